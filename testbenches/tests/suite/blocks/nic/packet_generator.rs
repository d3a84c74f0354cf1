//! Unit tests of the block in `hdl/nic/packet_generator.rs`, on the natively stepped block.

use nanotransport_hdl::nic::packet_generator::*;
use rust_hdl::prelude::*;

/// One event: (slot, generation, immediate flags, paced PULL, credit, remote_ip).
type Ev = (u64, u64, u64, bool, u64, u64);

fn clock(u: &mut PacketGenerator<16, 4, 3>) {
    u.clock.next = Clock { clk: true };
    assert!(simulate(u, 2000));
    u.clock.next = Clock { clk: false };
    assert!(simulate(u, 2000));
}

/// Runs `cycles` cycles with `events[c]` in cycle c (output always ready); returns the
/// packets sent as (cycle, flags, credit, tx_msg_id, remote_ip) and the counters. An
/// event's `tx_msg_id` is `gen << 8 | slot`, so a packet names its message.
fn run(events: &[(u64, Ev)], pace: u64, bucket: u64, cycles: u64) -> (Vec<(u64, u64, u64, u64, u64)>, [u64; 6]) {
    let mut u = PacketGenerator::<16, 4, 3>::default();
    u.connect_all();
    u.cfg_pace_cycles.next = pace.into();
    u.cfg_bucket_max.next = bucket.into();
    u.m_axis.tready.next = true;
    u.reset.next = true;
    assert!(simulate(&mut u, 2000));
    clock(&mut u);
    u.reset.next = false;
    let mut out = Vec::new();
    for cycle in 0..cycles {
        let ev = events.iter().find(|e| e.0 == cycle).map(|e| e.1);
        let (slot, gen, flags, pull, credit, ip) = ev.unwrap_or((0, 0, 0, false, 0, 0));
        u.ev.valid.next = ev.is_some();
        u.ev.msg_id.next = slot.into();
        u.ev.msg_gen.next = gen.into();
        u.ev.ctrl_flags.next = flags.into();
        u.ev.pull.next = pull;
        u.ev.credit.next = credit.into();
        u.ev.remote_ip.next = ip.into();
        u.ev.tx_msg_id.next = ((gen << 8) | slot).into();
        assert!(simulate(&mut u, 2000));
        if u.m_axis.tvalid.val() {
            out.push((
                cycle,
                u.m_axis.flags.val().to_u64(),
                u.m_axis.credit.val().to_u64(),
                u.m_axis.tx_msg_id.val().to_u64(),
                u.m_axis.remote_ip.val().to_u64(),
            ));
        }
        clock(&mut u);
    }
    assert!(simulate(&mut u, 2000));
    let counters = [
        u.ctrl_sent_count.val().to_u64(),
        u.pull_sent_count.val().to_u64(),
        u.merged_count.val().to_u64(),
        u.pull_coalesced_count.val().to_u64(),
        u.pull_replaced_count.val().to_u64(),
        u.dropped_count.val().to_u64(),
    ];
    (out, counters)
}

/// A pending PULL of a slot's previous message (high credit) is replaced by the PULL of the
/// message that reuses the slot (lower credit): the PULL sent carries the new message's
/// credit and metadata. PULLs of one message still coalesce, the higher credit winning.
#[test]
fn pull_of_reused_slot_replaces_stale_pull() {
    const ACK: u64 = 0x02;
    let events: Vec<(u64, Ev)> = vec![
        (0, (3, 5, ACK, true, 10, 0xA)), // token there: merged into the ACK
        (1, (3, 5, 0, true, 30, 0xB)),   // no token: pending (slot 3, generation 5), credit 30
        (2, (7, 2, 0, true, 20, 0xC)),   // pending (7, 2), credit 20
        (4, (7, 2, 0, true, 8, 0xD)),    // same message: coalesces, credit 20 stays, metadata 0xD
        (5, (3, 6, ACK, true, 4, 0xE)),  // slot 3 reused: ACK now, its PULL replaces the stale one
        (10, (9, 1, 0, true, 50, 0xF)),  // pending (9, 1), credit 50 ...
        (11, (9, 2, 0, true, 3, 0x10)),  // ... replaced in the next cycle (forwarded table write)
    ];
    let (out, counters) = run(&events, 100, 1, 500);
    assert_eq!(out[0], (1, ACK | FLAG_PULL, 10, 0x503, 0xA), "ACK+PULL 1 cycle after its event");
    assert_eq!(out[1], (6, ACK, 4, 0x603, 0xE), "the new message's ACK at once, its PULL not merged");
    let mut paced: Vec<(u64, u64, u64)> = out[2..].iter().map(|o| (o.3, o.2, o.4)).collect();
    assert!(out[2..].iter().all(|o| o.1 == FLAG_PULL && o.0 >= 100), "paced PULLs, one per token: {out:?}");
    paced.sort();
    assert_eq!(
        paced,
        vec![(0x207, 20, 0xD), (0x209, 3, 0x10), (0x603, 4, 0xE)],
        "one PULL per live message, each with its own message's credit and latest metadata"
    );
    // [ctrl_sent, pull_sent, merged, coalesced, replaced, dropped]
    assert_eq!(counters, [5, 3, 1, 1, 2, 0]);
    let pull_events = events.iter().filter(|e| e.1 .3).count() as u64;
    assert_eq!(counters[1] + counters[2] + counters[3] + counters[4], pull_events, "every PULL event accounted for");
}
