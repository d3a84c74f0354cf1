//! Unit tests of the block in `hdl/pisa/frame_length_check.rs`, on the natively stepped block.

use nanotransport_hdl::pisa::frame_length_check::FrameLengthCheck;
use rust_hdl::prelude::*;

fn new_check() -> FrameLengthCheck {
    let mut u = FrameLengthCheck::default();
    u.connect_all();
    u.reset.next = true;
    clock(&mut u);
    u.reset.next = false;
    u
}

fn clock(u: &mut FrameLengthCheck) {
    assert!(simulate(u, 100));
    u.clock.next = Clock { clk: true };
    assert!(simulate(u, 100));
    u.clock.next = Clock { clk: false };
    assert!(simulate(u, 100));
}

/// Sends one frame, a beat per cycle with the given `tkeep`s, whose IPv4 header says
/// `ip_total_len`; returns the frame verdict (raised exactly once, after the last beat).
fn frame(u: &mut FrameLengthCheck, keeps: &[u64], ip_total_len: u64) -> bool {
    let mut verdicts = vec![];
    for (i, &keep) in keeps.iter().enumerate() {
        u.beat.next = true;
        u.first.next = i == 0;
        u.last.next = i + 1 == keeps.len();
        u.tkeep.next = keep.into();
        u.ip_total_len.next = ip_total_len.into();
        clock(u);
        if u.verdict.val() {
            verdicts.push(u.frame_ok.val());
        }
    }
    u.beat.next = false;
    assert!(simulate(u, 100));
    assert_eq!(verdicts.len(), 1, "one verdict, after the last beat");
    verdicts[0]
}

#[test]
fn frame_lengths() {
    let mut u = new_check();
    // 20 payload bytes: two full beats and four bytes.
    assert!(frame(&mut u, &[0xFF, 0xFF, 0x0F], 70));
    // The same frame with a 4-byte trailer (an FCS left on), cut short, or with a hole.
    assert!(!frame(&mut u, &[0xFF, 0xFF, 0xFF], 70));
    assert!(!frame(&mut u, &[0xFF, 0xFF], 70));
    assert!(!frame(&mut u, &[0xFF, 0xFF, 0x0B], 70));
    // A short beat before the last.
    assert!(!frame(&mut u, &[0xFF, 0x0F, 0xFF], 70));
    // One beat (a control packet) of 8 bytes; the counts start again with every frame.
    assert!(frame(&mut u, &[0xFF], 58));
    assert!(frame(&mut u, &[0x01], 51));
    // An overlong frame whose byte count would wrap to the IPv4 length (65 544 = 8 mod 2^16):
    // the count saturates, so it fails.
    let mut keeps = vec![0xFF; 8193];
    assert!(!frame(&mut u, &keeps, 58));
    keeps.truncate(1);
    assert!(frame(&mut u, &keeps, 58));
}

/// The DATA rule: `min(1024, msg_len − 1024 · offset)` payload bytes; an offset beyond the
/// message passes (GetRxMsgInfo fails it).
#[test]
fn data_lengths() {
    let mut u = new_check();
    let mut check = |msg_len: u64, offset: u64, ip_total_len: u64| {
        u.msg_len.next = msg_len.into();
        u.pkt_offset.next = offset.into();
        u.ip_total_len.next = ip_total_len.into();
        clock(&mut u);
        u.data_length_ok.val()
    };
    assert!(check(5000, 0, 50 + 1024));
    assert!(!check(5000, 0, 50 + 1023));
    assert!(check(2500, 2, 50 + 452));
    assert!(!check(2500, 2, 50 + 453));
    // Beyond the message: any length passes here.
    assert!(check(2500, 3, 50 + 7));
    assert!(check(2500, 3, 50 + 1024));
    assert!(check(1, 0, 51));
    assert!(!check(1, 0, 52));
    // A 64 KiB − 1 message's last packet.
    assert!(check(65535, 63, 50 + 1023));
}
