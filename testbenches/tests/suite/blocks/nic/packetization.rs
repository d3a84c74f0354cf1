//! Unit tests of the block in `hdl/nic/packetization.rs`, on the natively stepped block.

use nanotransport_hdl::nic::packetization::*;
use rust_hdl::prelude::*;

fn clock(u: &mut Packetization<128, 7>) {
    assert!(simulate(u, 10_000));
    u.clock.next = Clock { clk: true };
    assert!(simulate(u, 10_000));
    u.clock.next = Clock { clk: false };
    assert!(simulate(u, 10_000));
}

/// One message of 10 packets (credit 10, the consumer always ready): the install chooses
/// offset 0, the packet choices follow every third cycle.
#[test]
fn one_message_descriptor_rate_and_order() {
    let mut u = Packetization::<128, 7>::new();
    u.connect_all();
    u.pkt.ready.next = true;
    u.default_credit.next = 10.into();
    u.timeout_threshold.next = 3.into();
    u.reset.next = true;
    clock(&mut u);
    u.reset.next = false;
    u.new_valid.next = true;
    u.new_slot.next = 100.into();
    u.new_msg_len.next = 10_000.into();
    u.new_remote_ip.next = 0x0a00_0001.into();
    assert!(simulate(&mut u, 10_000));
    assert!(u.new_ready.val(), "the install wins S0 on an idle core");
    clock(&mut u);
    u.new_valid.next = false;
    let mut got = vec![];
    let mut id = None;
    for cycle in 1..45u64 {
        assert!(simulate(&mut u, 10_000));
        if u.new_id_valid.val() {
            id = Some(u.new_id.val().to_u64());
        }
        if u.pkt.valid.val() {
            got.push((cycle, u.pkt.offset.val().to_u64(), u.pkt.is_new_msg.val(), u.pkt.tx_msg_id.val().to_u64()));
        }
        clock(&mut u);
    }
    assert_eq!(id, Some(100), "first generation of slot 100");
    let offsets: Vec<u64> = got.iter().map(|g| g.1).collect();
    assert_eq!(offsets, (0..10).collect::<Vec<u64>>());
    assert!(got[0].2 && got[1..].iter().all(|g| !g.2), "is_new_msg on the first packet only");
    assert!(got.iter().all(|g| g.3 == 100));
    let span = got[9].0 - got[0].0;
    println!(
        "packetization (128 slots): one message, 10 descriptors in {} cycles (first at cycle {} after the install)",
        span + 1,
        got[0].0
    );
    // The install's choice, then one every 3 cycles (the slot is skipped while it is in S1
    // or S2).
    assert_eq!(span, 3 * 9, "10 descriptors of one message in {} cycles", span + 1);
    assert!(u.active.val().get_bit(100));
}
