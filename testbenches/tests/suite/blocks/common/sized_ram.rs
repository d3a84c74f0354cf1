//! Unit tests of the block in `hdl/common/sized_ram.rs`, on the natively stepped block.

use nanotransport_hdl::common::sized_ram::SizedRam;
use rust_hdl::prelude::*;

/// One cycle: a read of `read` and, if given, a write; returns what the read gives.
fn cycle(m: &mut SizedRam<Bits<8>, 4>, read: u64, write: Option<(u64, u64)>) -> u64 {
    m.read_address.next = read.into();
    m.write_enable.next = write.is_some();
    let (wa, wd) = write.unwrap_or((0, 0));
    m.write_address.next = wa.into();
    m.write_data.next = wd.into();
    assert!(simulate(m, 100));
    m.clock.next = Clock { clk: true };
    assert!(simulate(m, 100));
    m.clock.next = Clock { clk: false };
    assert!(simulate(m, 100));
    m.read_data.val().to_u64()
}

#[test]
fn holds_its_depth_and_nothing_beyond() {
    let mut m = SizedRam::<Bits<8>, 4>::new(11);
    m.connect_all();
    assert_eq!(m.depth(), 11);
    for a in 0..16 {
        cycle(&mut m, 0, Some((a, 0x80 | a)));
    }
    for a in 0..16 {
        let expected = if a < 11 { 0x80 | a } else { 0 };
        assert_eq!(cycle(&mut m, a, None), expected, "address {a}");
    }
}

#[test]
fn a_read_sees_the_old_word_when_written_in_the_same_cycle() {
    let mut m = SizedRam::<Bits<8>, 4>::new(11);
    m.connect_all();
    cycle(&mut m, 0, Some((3, 7)));
    assert_eq!(cycle(&mut m, 3, Some((3, 9))), 7);
    assert_eq!(cycle(&mut m, 3, None), 9);
}

#[test]
fn a_full_power_of_two_is_one_array_and_any_other_depth_power_of_two_banks() {
    use nanotransport_hdl::common::sized_ram::banks_of;
    let m = SizedRam::<Bits<8>, 4>::default();
    assert_eq!(m.depth(), 16);
    let verilog = format!("{:?}", m.hdl());
    assert!(verilog.contains("mem[15:0]") && !verilog.contains("read_high"), "one array, no bank select at 2^N words: {verilog}");
    // 11 = 8 + 2 + 1: banks at 0, 8 and 10, each indexed by the address's low bits.
    assert_eq!(banks_of(11, 4), vec![(3, 0), (1, 8), (0, 10)]);
    let sized = format!("{:?}", SizedRam::<Bits<8>, 4>::new(11).hdl());
    // The bank is decoded after the read from the address bits registered as they are.
    for part in [
        "mem0[7:0]",
        "mem1[1:0]",
        "mem2[0:0]",
        "read_high <= read_address[3:0]",
        "(read_high[3:0] == 4'd10)",
        "(write_address[3:0] == 4'd10)",
    ] {
        assert!(sized.contains(part), "{part} in {sized}");
    }
    // The payload memories of ndp-16: 816 KiB and 608 KiB of 64-bit words.
    assert_eq!(banks_of(816 * 128, 17), vec![(16, 0), (15, 65_536), (12, 98_304), (11, 102_400)]);
    assert_eq!(banks_of(608 * 128, 17), vec![(16, 0), (13, 65_536), (12, 73_728)]);
}

#[test]
#[should_panic(expected = "sized RAM: depth 17 words, valid 1..=2^4")]
fn a_depth_beyond_its_addresses_is_refused() {
    let _ = SizedRam::<Bits<8>, 4>::new(17);
}
