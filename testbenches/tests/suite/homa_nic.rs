//! Homa and Homa-Tr NICs (homa-16, homa-tr-16, homa-128) end to end on their Verilator models:
//! the receiver's SRPT grants and priorities, the trimming response, loopbacks, and whole-NIC
//! lockstep. Latency, line rate and what every protocol shares: `whole_nic`.

use nanotransport_hdl::nic::register_map::*;
use nanotransport_hdl::pisa::wire::*;
use nanotransport_reference::pisa::Header;
use nanotransport_sim::cosim::ports::Ports;
use nanotransport_sim::nic::NicSim;
use nanotransport_sim::scenarios::*;
use nanotransport_testbenches::nic_preset;
use nanotransport_testbenches::{busy_self_loop, seed, BUSY, STALL};

fn status<B: Ports>(nic: &mut NicSim<B>, name: &str) -> u32 {
    let (v, resp) = nic.read_register(status_address(name).unwrap_or_else(|| panic!("no register {name}")));
    assert_eq!(resp, 0, "reading {name}");
    v
}

/// The control frames the NIC sent, decoded.
fn sent_headers<B: Ports>(nic: &NicSim<B>) -> Vec<Header> {
    nic.tx_frames.iter().map(|(_, f)| Header::decode(f)).collect()
}

/// Three messages of 20, 10 and 15 packets start (rtt_pkts 2, overcommitment 3, U = 1): each
/// first packet is granted one more packet, at priority U + its position by remaining packets;
/// the next packet of the largest message grants it at the last position.
#[test]
fn grants_follow_srpt_with_priorities_by_position() {
    let mut nic = nic_with_ip(&nic_preset("homa-16"), NIC_IP).unwrap();
    assert_eq!(nic.write_register(4 * CFG_RTT_PKTS as u64, 2), 0);
    let sizes = [20usize, 10, 15];
    let msgs: Vec<Vec<u8>> = sizes.iter().map(|n| (0..n * 1024).map(|i| (i % 251) as u8).collect()).collect();
    let frame = |k: usize, offset: usize| {
        data_frame_for(HOMA_IP_PROTOCOL, PEER_IP + k as u32, NIC_IP, 100 + k as u16, 80, 10 + k as u16, &msgs[k], offset)
    };
    let mut order = vec![(0, 0), (1, 0), (2, 0), (0, 1)];
    let mut seen = 0;
    for (k, off) in order.drain(..) {
        let at = nic.cycle;
        nic.push_frame(&frame(k, off), at);
        assert!(nic.run_until(2000, |n| n.tx_frames.len() > seen), "no reply to packet {off} of message {k}");
        nic.run(50);
        seen = nic.tx_frames.len();
    }
    let grants: Vec<Header> = sent_headers(&nic).into_iter().filter(|h| h.flags & FLAG_PULL != 0).collect();
    for g in &grants {
        println!(
            "GRANT to {:#x} port {} msg {}: grant_offset {} prio {} ack {} tos {}",
            g.dst_ip, g.dst_context, g.tx_msg_id, g.pull_offset, g.grant_prio, g.pkt_offset, g.ip_tos
        );
    }
    let got: Vec<(u32, u16, u8, u8)> = grants.iter().map(|g| (g.dst_ip, g.pull_offset, g.grant_prio, g.pkt_offset)).collect();
    assert_eq!(
        got,
        vec![
            (PEER_IP, 3, 1, 1),     // A alone: position 0
            (PEER_IP + 1, 3, 1, 1), // B (10 packets) is now the shortest: position 0
            (PEER_IP + 2, 3, 2, 1), // C (15) is second: position 1
            (PEER_IP, 4, 3, 2),     // A's second packet: only A is grantable, position 2
        ]
    );
    assert!(grants.iter().all(|g| g.ip_tos == 0 && g.tx_msg_id >= 10), "control packets at priority 0, echoing the sender's id");
    assert_eq!(status(&mut nic, "grant_sent_count"), 4);
    assert_eq!(status(&mut nic, "sched_inserts_count"), 3);
}

/// A packet completing its message is ACKed even when it also triggers a GRANT for another.
/// Overcommitment 1, rtt_pkts 1: the short message S (3 packets) holds the only grant slot; the
/// long one L (6 packets) waits outside it; S's last packet lets L in, which is granted at once.
#[test]
fn completing_packet_is_acked_and_may_grant_another() {
    let mut nic = nic_with_ip(&nic_preset("homa-16"), NIC_IP).unwrap();
    assert_eq!(nic.write_register(4 * CFG_RTT_PKTS as u64, 1), 0);
    assert_eq!(nic.write_register(4 * CFG_OVERCOMMIT as u64, 1), 0);
    let long: Vec<u8> = vec![7; 6 * 1024];
    let short: Vec<u8> = vec![9; 3 * 1024];
    let l = |off| data_frame_for(HOMA_IP_PROTOCOL, PEER_IP, NIC_IP, 1, 80, 1, &long, off);
    let s = |off| data_frame_for(HOMA_IP_PROTOCOL, PEER_IP + 1, NIC_IP, 2, 80, 2, &short, off);
    let mut replies = Vec::new();
    for f in [s(0), l(0), s(1), s(2)] {
        let (at, before) = (nic.cycle, nic.tx_frames.len());
        nic.push_frame(&f, at);
        nic.run(600);
        replies.push(nic.tx_frames[before..].iter().map(|(_, f)| Header::decode(f)).collect::<Vec<_>>());
    }
    let kinds: Vec<Vec<(u8, u32, u8, u16)>> =
        replies.iter().map(|r| r.iter().map(|h| (h.flags, h.dst_ip, h.pkt_offset, h.pull_offset)).collect()).collect();
    println!("{kinds:?}");
    assert_eq!(
        kinds,
        vec![
            vec![(FLAG_PULL, PEER_IP + 1, 1, 2)],                            // S0: GRANT S up to 2
            vec![(FLAG_ACK, PEER_IP, 1, 0)],                                 // L0: outside the set: ACK only
            vec![(FLAG_PULL, PEER_IP + 1, 2, 3)],                            // S1: S fully granted, leaves
            vec![(FLAG_ACK, PEER_IP + 1, 3, 0), (FLAG_PULL, PEER_IP, 1, 2)], // S2: ACK S, GRANT L
        ]
    );
    assert_eq!(nic.delivered.len(), 1);
    assert_eq!(nic.delivered[0].payload, short);
}

/// Homa-Tr answers a trimmed packet with a NACK carrying its offset; Homa drops it silently.
#[test]
fn trimmed_packet_nacked_by_homa_tr_only() {
    for (config, nacks) in [("homa-tr-16", 1), ("homa-16", 0)] {
        let mut nic = nic_with_ip(&nic_preset(config), NIC_IP).unwrap();
        let msg: Vec<u8> = vec![3; 3000];
        let f = trimmed(&data_frame_for(HOMA_IP_PROTOCOL, PEER_IP, NIC_IP, 1, 80, 5, &msg, 1));
        nic.push_frame(&f, 0);
        nic.run(300);
        let hs = sent_headers(&nic);
        let n: Vec<&Header> = hs.iter().filter(|h| h.flags == FLAG_NACK).collect();
        assert_eq!(n.len(), nacks, "{config}: {hs:?}");
        if let Some(h) = n.first() {
            assert_eq!((h.pkt_offset, h.tx_msg_id, h.dst_ip, h.dst_context), (1, 5, PEER_IP, 1));
        }
        assert_eq!(status(&mut nic, "nack_sent_count"), nacks as u32, "{config}");
        assert_eq!(hs.len(), nacks, "{config}: nothing else is sent");
    }
}

/// Homa-Tr NACKs a trimmed packet whose GetRxMsgInfo fails (here: every receive ID taken), so
/// its sender retransmits instead of waiting for its timeout.
#[test]
fn trimmed_packet_without_a_receive_slot_is_nacked() {
    let mut nic = nic_with_ip(&nic_preset("homa-tr-16"), NIC_IP).unwrap();
    let msg: Vec<u8> = vec![7; 20 * 1024];
    // Sixteen messages hold the sixteen IDs (first packet of each, the rest never comes).
    for id in 0..16u16 {
        nic.push_frame(&data_frame_for(HOMA_IP_PROTOCOL, PEER_IP, NIC_IP, 1, 80, id, &msg, 0), 0);
    }
    nic.run(2000);
    let before = sent_headers(&nic).iter().filter(|h| h.flags == FLAG_NACK).count();
    assert_eq!(before, 0);
    nic.push_frame(&trimmed(&data_frame_for(HOMA_IP_PROTOCOL, PEER_IP, NIC_IP, 1, 80, 99, &msg, 3)), 0);
    nic.run(300);
    assert_eq!(status(&mut nic, "fail_no_id_count"), 1);
    let hs = sent_headers(&nic);
    let n: Vec<&Header> = hs.iter().filter(|h| h.flags == FLAG_NACK).collect();
    assert_eq!(n.len(), 1, "{hs:?}");
    assert_eq!((n[0].pkt_offset, n[0].tx_msg_id, n[0].dst_ip), (3, 99, PEER_IP));
}

fn loopback_registers(rto: u32) -> Vec<(usize, u32)> {
    vec![(CFG_RTT_PKTS, 3), (CFG_RTO_CYCLES, rto), (CFG_TIMEOUT_THRESHOLD, 60), (CFG_GC_TIMEOUT, 4_000_000), (CFG_OVERCOMMIT, 3)]
}

/// For links that lose frames: a lost GRANT that no later packet replaces stalls its message
/// under the thesis' Homa (see `every_lost_grant_position_recovers_with_the_option`), so these
/// runs use the lost-GRANT recovery (register 0x38 bit 1); and a lost last ACK makes the sender
/// abandon its message under the default policy
/// (`ack_policies_lost_last_ack_completes_or_is_abandoned`), so they ACK duplicates.
fn lossy_registers() -> Vec<(usize, u32)> {
    let mut r = loopback_registers(6_000);
    r.push((CFG_RECOVERY_OPTIONS, 2));
    r.push((CFG_ACK_POLICY, AckPolicy::PrototypeDuplicateAcks.value()));
    r
}

#[test]
fn loopback_clean_link_scheduled_packets_carry_their_priority() {
    let s = seed("homa_loopback_clean", 601);
    let r = loopback(
        &nic_preset("homa-16"),
        s,
        24,
        20_000,
        200,
        LinkFaults { trim: 0.0, drop: 0.0, stall: STALL, ..LinkFaults::NONE },
        &loopback_registers(20_000),
        4_000_000,
    )
    .unwrap();
    r.print("homa clean");
    for side in 0..2 {
        assert!(r.value(side, "grant_sent_count") > 0);
        assert_eq!(r.value(side, "tx_active_any"), 0);
        assert_eq!(r.value(side, "rx_busy_any"), 0);
        // Unscheduled packets (offset < rtt_pkts = 3) at priority 0; scheduled ones at U + position ≥ 1.
        let unsched = r.data_tos[side].iter().filter(|(o, _, _)| *o < 3);
        assert!(unsched.clone().all(|(_, tos, _)| *tos == 0));
        let sched: Vec<u8> = r.data_tos[side].iter().filter(|(o, _, _)| *o >= 3).map(|(_, t, _)| t >> 2).collect();
        assert!(!sched.is_empty() && sched.iter().all(|p| (1..=3).contains(p)), "scheduled priorities {sched:?}");
    }
}

#[test]
fn loopback_lossy_link_recovers() {
    let s = seed("homa_loopback_lossy", 602);
    let r = loopback(
        &nic_preset("homa-16"),
        s,
        16,
        12_000,
        200,
        LinkFaults { trim: 0.0, drop: 0.04, stall: STALL, ..LinkFaults::NONE },
        &lossy_registers(),
        8_000_000,
    )
    .unwrap();
    r.print("homa lossy");
    assert!(r.dropped > 5, "dropped {}", r.dropped);
    for side in 0..2 {
        assert_eq!(r.value(side, "tx_active_any"), 0);
        assert_eq!(r.value(side, "rx_busy_any"), 0);
    }
}

#[test]
fn loopback_wrong_length_frames_are_dropped_unacknowledged_and_recovered() {
    for (config, seed_default) in [("homa-16", 604), ("homa-tr-16", 605)] {
        let s = seed(&format!("{config}_loopback_wrong_length"), seed_default);
        let faults = LinkFaults { length: 0.04, stall: STALL, ..LinkFaults::NONE };
        let r = loopback(&nic_preset(config), s, 16, 12_000, 200, faults, &lossy_registers(), 8_000_000).unwrap();
        r.print(&format!("{config} wrong length"));
        r.check_length_faults(5).unwrap();
    }
}

/// Issue item "Homa recovers from any single lost packet": two 20-packet messages (one each way,
/// 3 packets unscheduled) and each GRANT of the run dropped in turn. With recovery option bit 1
/// every message is delivered and none abandoned; without it (the thesis) a lost GRANT that no
/// later packet can replace stalls its message until the sender abandons it.
#[test]
fn every_lost_grant_position_recovers_with_the_option() {
    let s = seed("homa_lost_grant", 606);
    // `drop`: the position of the GRANT to lose (usize::MAX: none, only count them).
    let run = |drop: usize, options: u32| {
        let registers = [
            (CFG_RTT_PKTS, 3),
            (CFG_RTO_CYCLES, 6_000),
            (CFG_TIMEOUT_THRESHOLD, 5),
            (CFG_GC_TIMEOUT, 4_000_000),
            (CFG_OVERCOMMIT, 3),
            (CFG_RECOVERY_OPTIONS, options),
        ];
        let faults = LinkFaults { drop_nth: Some((FLAG_PULL, drop)), stall: STALL, ..LinkFaults::NONE };
        loopback_with_lengths(&nic_preset("homa-16"), s, 1, &mut |_| 20 * 1024, 200, faults, &registers, 400_000)
    };
    let grants = run(usize::MAX, 2).unwrap().flagged;
    assert!(grants >= 20, "only {grants} GRANTs in the run");
    let mut stalled_without = Vec::new();
    for k in 0..grants {
        let with = run(k, 2).unwrap_or_else(|e| panic!("GRANT {k} of {grants} lost, option on: {e}"));
        assert_eq!(with.dropped, 1);
        if run(k, 0).is_err() {
            stalled_without.push(k);
        }
    }
    println!("{grants} GRANT positions, each lost in turn: all recovered with the option; without it these stall: {stalled_without:?}");
    assert!(!stalled_without.is_empty(), "without the option a lost last GRANT stalls its message");
}

#[test]
fn homa_tr_loopback_trimming_link_recovers_with_nacks() {
    let s = seed("homa_tr_loopback_trimming", 603);
    let r = loopback(
        &nic_preset("homa-tr-16"),
        s,
        24,
        20_000,
        200,
        LinkFaults { trim: 0.05, drop: 0.0, stall: STALL, ..LinkFaults::NONE },
        &loopback_registers(1_000_000),
        4_000_000,
    )
    .unwrap();
    r.print("homa-tr trimming");
    assert!(r.trimmed > 5, "trimmed {}", r.trimmed);
    let nacks: u32 = (0..2).map(|side| r.value(side, "nack_sent_count")).sum();
    // Homa-Tr NACKs every trimmed packet and every DATA packet whose GetRxMsgInfo fails. The
    // transmit side holds 16 maximum-size messages, more large ones than homa-tr-16's receive
    // classes take at once, so receive failures (counted, NACKed, recovered) can add NACKs; a
    // trimmed packet that also fails is NACKed once.
    let rx_fails: u32 = (0..2).map(|side| r.value(side, "rx_fail_count")).sum();
    assert!(nacks as usize >= r.trimmed, "every trimmed packet NACKed: {nacks} NACKs, {} trimmed", r.trimmed);
    assert!(
        nacks as usize <= r.trimmed + rx_fails as usize,
        "no NACK beyond trimmed packets and receive failures: {nacks} NACKs, {} trimmed, {rx_fails} failures",
        r.trimmed
    );
    for side in 0..2 {
        assert_eq!(r.value(side, "tx_active_any"), 0);
        assert_eq!(r.value(side, "rx_busy_any"), 0);
    }
    // Priorities (Algorithm 6's egress reads the message's priority for every packet; the
    // authors' model sends a retransmission at the message's priority, at least U): an
    // unscheduled packet's first copy goes at priority 0, its retransmissions (the NACKed
    // copies) at priority U = 1 or the message's GRANT priority, never in the unscheduled band.
    let mut retransmitted = 0;
    for side in 0..2 {
        let mut seen = std::collections::HashSet::new();
        for &(offset, tos, id) in r.data_tos[side].iter().filter(|(o, _, _)| *o < 3) {
            if seen.insert((id, offset)) {
                assert_eq!(tos >> 2, 0, "first copy of message {id:#06x} offset {offset} at priority {}", tos >> 2);
            } else {
                retransmitted += 1;
                assert!((1..=3).contains(&(tos >> 2)), "retransmission of message {id:#06x} offset {offset} at priority {}", tos >> 2);
            }
        }
    }
    assert!(retransmitted > 0, "some unscheduled packet was retransmitted");
}

/// rust-hdl beside Verilator on the whole Homa-Tr NIC, MAC looped back: its own messages are
/// scheduled, granted, trimmed copies NACKed.
#[test]
fn lockstep_whole_nic_self_loop() {
    std::thread::Builder::new().stack_size(1 << 30).spawn(lockstep_self_loop).unwrap().join().unwrap();
}

fn lockstep_self_loop() {
    use nanotransport_hdl::protocols::homa::ingress::HomaNic;
    use nanotransport_sim::cosim::ports::Lockstep;
    use rand::SeedableRng;
    let s = seed("homa_lockstep_whole_nic_self_loop", 604);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(s);
    let backend = Lockstep::<HomaNic<16, 4, 4, 17>>::new(&nic_preset("homa-tr-16").module()).unwrap();
    let mut nic = NicSim::with_backend(backend, "nt_homa_tr_16_nic").unwrap();
    assert_eq!(nic.write_register(4 * CFG_RTT_PKTS as u64, 1), 0);
    let mut trims = 0;
    let (_, looped) = busy_self_loop(&mut nic, &mut rng, s, BUSY, &mut trimming_link(0.15, &mut trims));
    assert_eq!(status(&mut nic, "nack_sent_count"), trims);
    println!(
        "Homa-Tr whole-NIC lockstep: {} cycles, {} comparisons, {looped} frames looped, {trims} trimmed",
        nic.cycle, nic.model.comparisons
    );
}

/// The 128-message Homa NIC: a loopback with 40 messages each way, so more than 16 compete for
/// the scheduler and some wait in its FIFO (latency and line rate: `whole_nic`).
#[test]
fn homa_128_loopback_fills_the_scheduler_fifo() {
    let s = seed("homa_128_loopback", 605);
    // One BDP of one packet and one message granted at a time: the backlog of partly received
    // messages grows beyond the scheduler's 16 entries.
    let regs =
        vec![(CFG_RTT_PKTS, 1), (CFG_RTO_CYCLES, 400_000), (CFG_TIMEOUT_THRESHOLD, 60), (CFG_GC_TIMEOUT, 8_000_000), (CFG_OVERCOMMIT, 1)];
    // Every message 5–20 KB (5–20 packets, all but the first scheduled).
    let mut lengths = |rng: &mut rand_chacha::ChaCha8Rng| {
        use rand::Rng;
        rng.gen_range(5 * 1024..=20 * 1024)
    };
    let l = loopback_with_lengths(
        &nic_preset("homa-128"),
        s,
        40,
        &mut lengths,
        200,
        LinkFaults { trim: 0.0, drop: 0.0, stall: STALL, ..LinkFaults::NONE },
        &regs,
        8_000_000,
    )
    .unwrap();
    l.print("homa-128 clean");
    let fifo: u32 = (0..2).map(|side| l.value(side, "sched_fifo_enters_count")).sum();
    println!("messages that waited in a scheduler FIFO: {fifo}");
    assert!(fifo > 0, "no message waited in the scheduler's FIFO");
    for side in 0..2 {
        assert!(l.value(side, "grant_sent_count") > 0);
        assert_eq!(l.value(side, "tx_active_any"), 0);
        assert_eq!(l.value(side, "rx_busy_any"), 0);
    }
}

/// rust-hdl beside Verilator on the whole 128-message Homa NIC, MAC looped back, under the
/// model's acknowledgement policy (no ACK for a packet without a GRANT) with every fifth frame
/// looped twice, so the policy's silent paths for new packets and duplicates run in lockstep
/// (the 16-message test runs the default policy).
#[test]
fn homa_128_lockstep_whole_nic_self_loop() {
    std::thread::Builder::new().stack_size(1 << 30).spawn(lockstep_self_loop_128).unwrap().join().unwrap();
}

fn lockstep_self_loop_128() {
    use nanotransport_hdl::protocols::homa::ingress::HomaNic;
    use nanotransport_sim::cosim::ports::Lockstep;
    use rand::SeedableRng;
    let s = seed("homa_128_lockstep_whole_nic_self_loop", 606);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(s);
    // The generated homa-128 file is Homa (no trimming): compare it with the same program.
    let native = HomaNic::<128, 7, 6, 17>::new(&nanotransport_hdl::configs::preset_params(nanotransport_hdl::configs::Protocol::Homa, 128));
    let backend = Lockstep::<HomaNic<128, 7, 6, 17>>::with_native(native, "nt_homa_128_nic").unwrap();
    let mut nic = NicSim::with_backend(backend, "nt_homa_128_nic").unwrap();
    assert_eq!(nic.write_register(4 * CFG_RTT_PKTS as u64, 1), 0);
    assert_eq!(nic.write_register(4 * CFG_ACK_POLICY as u64, AckPolicy::Model.value()), 0);
    let mut frames = 0usize;
    let (_, looped) = busy_self_loop(&mut nic, &mut rng, s, BUSY, &mut |f, _| {
        frames += 1;
        vec![f.to_vec(); if frames % 5 == 0 { 2 } else { 1 }]
    });
    let duplicates = status(&mut nic, "duplicate_data_count");
    println!(
        "homa-128 whole-NIC lockstep (model policy): {} cycles, {} comparisons, {looped} frames looped, {duplicates} duplicate DATA",
        nic.cycle, nic.model.comparisons
    );
    assert!(duplicates > 0, "some DATA frame was looped twice");
}

/// Homa-Tr: a message whose first packet arrives trimmed starts its packet count at 0 even in a
/// slot whose previous message left a count behind, so its first GRANT is one BDP past what
/// arrived (a regression test: the count used to continue from the slot's previous message).
#[test]
fn trimmed_first_packet_does_not_inherit_the_slot_count() {
    let mut nic = nic_with_ip(&nic_preset("homa-tr-16"), NIC_IP).unwrap();
    assert_eq!(nic.write_register(4 * CFG_RTT_PKTS as u64, 1), 0);
    // Message A (3 packets) is received and delivered: slot 0 is freed with a count of 3.
    let a: Vec<u8> = vec![1; 3 * 1024];
    for off in 0..3 {
        let at = nic.cycle;
        nic.push_frame(&data_frame_for(HOMA_IP_PROTOCOL, PEER_IP, NIC_IP, 1, 80, 1, &a, off), at);
        nic.run(300);
    }
    assert!(nic.run_until(3000, |n| n.delivered.len() == 1), "A delivered");
    nic.run(100);
    // Message B (10 packets): packet 0 trimmed, then packet 0 itself.
    let b: Vec<u8> = vec![2; 10 * 1024];
    let before = nic.tx_frames.len();
    let at = nic.cycle;
    nic.push_frame(&trimmed(&data_frame_for(HOMA_IP_PROTOCOL, PEER_IP + 1, NIC_IP, 2, 80, 2, &b, 0)), at);
    nic.run(300);
    let at = nic.cycle;
    nic.push_frame(&data_frame_for(HOMA_IP_PROTOCOL, PEER_IP + 1, NIC_IP, 2, 80, 2, &b, 0), at);
    nic.run(600);
    let replies: Vec<Header> = nic.tx_frames[before..].iter().map(|(_, f)| Header::decode(f)).collect();
    println!("{:?}", replies.iter().map(|h| (h.flags, h.pkt_offset, h.pull_offset)).collect::<Vec<_>>());
    assert_eq!(replies[0].flags, FLAG_NACK);
    let grant = replies.iter().find(|h| h.flags == FLAG_PULL).expect("a GRANT for B");
    assert_eq!(grant.pull_offset, 2, "one packet arrived, rtt_pkts 1: credit 2");
}

/// The acknowledgement policies (register `ack_policy`) on one 3-packet message that needs no
/// GRANT (rtt_pkts 8): its first packet, a duplicate of it, the other two (the last completes
/// the message) and a late copy once it is delivered. Value 3 is undefined and acts as 0.
#[test]
fn ack_policies_answer_new_duplicate_and_late_packets() {
    const ACK1: (u8, u8) = (FLAG_ACK, 1);
    const ACK2: (u8, u8) = (FLAG_ACK, 2);
    const ACK3: (u8, u8) = (FLAG_ACK, 3);
    let prototype = vec![vec![ACK1], vec![], vec![ACK2], vec![ACK3], vec![]];
    let homa_model = vec![vec![], vec![], vec![], vec![ACK3], vec![]];
    let duplicate_acks = vec![vec![ACK1], vec![ACK1], vec![ACK2], vec![ACK3], vec![ACK3]];
    let cases = [
        ("homa-16", 0, &prototype),
        ("homa-16", 1, &homa_model),
        ("homa-16", 2, &duplicate_acks),
        ("homa-16", 3, &prototype),
        ("homa-tr-16", 0, &prototype),
        ("homa-tr-16", 1, &prototype),
        ("homa-tr-16", 2, &duplicate_acks),
    ];
    for (config, policy, expected) in cases {
        let mut nic = nic_with_ip(&nic_preset(config), NIC_IP).unwrap();
        assert_eq!(nic.write_register(4 * CFG_ACK_POLICY as u64, policy), 0);
        let msg: Vec<u8> = (0..3 * 1024).map(|i| (i % 253) as u8).collect();
        let f = |off| data_frame_for(HOMA_IP_PROTOCOL, PEER_IP, NIC_IP, 1, 80, 7, &msg, off);
        let mut replies = Vec::new();
        for frame in [f(0), f(0), f(1), f(2), f(1)] {
            let (at, before) = (nic.cycle, nic.tx_frames.len());
            nic.push_frame(&frame, at);
            nic.run(6_000);
            replies
                .push(nic.tx_frames[before..].iter().map(|(_, f)| Header::decode(f)).map(|h| (h.flags, h.pkt_offset)).collect::<Vec<_>>());
        }
        println!("{config} ack_policy {policy}: {replies:?}");
        assert_eq!(&replies, expected, "{config}, ack_policy {policy}");
        assert_eq!(nic.delivered.len(), 1, "{config}, ack_policy {policy}: delivered once");
        let acks = expected.iter().flatten().count() as u32;
        assert_eq!(status(&mut nic, "ack_sent_count"), acks, "{config}, ack_policy {policy}");
        assert_eq!(status(&mut nic, "duplicate_data_count"), 2, "{config}, ack_policy {policy}");
    }
}

/// Control frames per DATA frame on a clean loopback (24 messages each way, 2–20 KB, rtt_pkts
/// 3): with no duplicate, the prototype's policy and duplicate ACKs run cycle for cycle alike;
/// the model's Homa ACKs only completions (one ACK per message), so it sends fewer control
/// frames; its Homa-Tr is the prototype's.
#[test]
fn ack_policies_control_frames_per_data_frame_on_a_clean_loopback() {
    for config in ["homa-16", "homa-tr-16"] {
        let s = seed(&format!("{config}_ack_policy_clean"), 607);
        let mut counts = Vec::new();
        for policy in AckPolicy::ALL {
            let mut registers = loopback_registers(20_000);
            registers.push((CFG_ACK_POLICY, policy.value()));
            let r =
                loopback(&nic_preset(config), s, 24, 20_000, 200, LinkFaults { stall: STALL, ..LinkFaults::NONE }, &registers, 4_000_000)
                    .unwrap_or_else(|e| panic!("{config} {policy}: {e}"));
            let (acks, grants, data): (u32, u32, u32) = (0..2).fold((0, 0, 0), |(a, g, d), side| {
                (a + r.value(side, "ack_sent_count"), g + r.value(side, "grant_sent_count"), d + r.value(side, "data_count"))
            });
            println!(
                "{config} {policy}: {data} DATA, {acks} ACKs, {grants} GRANTs: {:.3} control frames per DATA frame, {} cycles",
                (acks + grants) as f64 / data as f64,
                r.cycles
            );
            counts.push((acks, grants, data, r.cycles));
        }
        let (prototype, model, duplicate_acks) = (counts[0], counts[1], counts[2]);
        assert_eq!(prototype, duplicate_acks, "{config}: no duplicate on a clean link");
        assert!(prototype.0 + prototype.1 >= prototype.2, "{config}: a GRANT or an ACK per DATA frame");
        if config == "homa-16" {
            assert_eq!(model.0, 48, "{config}: the model's Homa ACKs each of the 48 messages once");
            assert!(model.0 + model.1 < prototype.0 + prototype.1, "{config}: fewer control frames under the model");
        } else {
            assert_eq!(model, prototype, "{config}: the model's Homa-Tr is the prototype's");
        }
    }
}

/// A message's only ACK is lost (one 1-packet message each way; the first ACK of the run
/// dropped). Under the prototype's and the model's policies the receiver, which delivered the
/// message, drops every resent copy silently: the sender abandons the message after
/// `timeout_threshold` timeouts and counts it (the loopback reports it). With duplicate ACKs
/// the first resent copy is ACKed and the message completes.
#[test]
fn ack_policies_lost_last_ack_completes_or_is_abandoned() {
    let s = seed("homa_ack_policy_lost_ack", 608);
    for config in ["homa-16", "homa-tr-16"] {
        for policy in AckPolicy::ALL {
            let registers =
                [(CFG_RTO_CYCLES, 6_000), (CFG_TIMEOUT_THRESHOLD, 5), (CFG_GC_TIMEOUT, 4_000_000), (CFG_ACK_POLICY, policy.value())];
            let faults = LinkFaults { drop_nth: Some((FLAG_ACK, 0)), ..LinkFaults::NONE };
            let r = loopback_with_lengths(&nic_preset(config), s, 1, &mut |_| 500, 200, faults, &registers, 400_000);
            println!("{config} {policy}: {:?}", r.as_ref().map(|r| (r.dropped, r.cycles)));
            match policy {
                AckPolicy::PrototypeDuplicateAcks => {
                    let r = r.unwrap_or_else(|e| panic!("{config} {policy}: {e}"));
                    assert_eq!(r.dropped, 1);
                    let dup_acks: u32 = (0..2).map(|side| r.value(side, "ack_sent_count")).sum();
                    assert_eq!(dup_acks, 3, "{config}: two completion ACKs and one for the resent copy");
                }
                _ => {
                    let e = r.expect_err("the sender hears nothing after its ACK is lost");
                    assert!(e.contains("abandoned") && !e.contains("twice"), "{config} {policy}: {e}");
                }
            }
        }
    }
}
