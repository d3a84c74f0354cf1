//! Differential test of the receive path: the reassembly module's Verilator model (GetRxMsgInfo,
//! reassembly, ingress timers) against the reference model (sim/model/rx.rs) under random
//! traffic — many senders, the same tx_msg_id from different senders, random packet order,
//! duplicates, late retransmissions of delivered messages, packets withheld forever (forcing
//! garbage collection), read-only calls, every bad input, and random CPU-side back-pressure.
//! Every response, every delivered message (byte for byte, in order) and every counter must
//! agree; at the end every ID and buffer must be free again (leak test). Garbage collection is
//! checked on both sides: never before the last GetRxMsgInfo call + timeout (model), and no later
//! than that + schedule pipeline + the timer's scan bound (N + 2) per hold episode + the cycles
//! the timer's consumer was held by another release or a packet in flight. Stale timeouts are
//! bounded by the model's count of reschedulings of already closed messages.

use nanotransport_hdl::nic::get_rx_msg_info::{DEFAULT_SIZE_CLASSES, RECENT_DEPTH, RX_MESSAGES};
use nanotransport_sim::cosim::rx_harness::{RxHarness, RxPacket};
use nanotransport_sim::model::rx::{ReleaseReason, RxMeta, RxModel, RxRequest, RxResponse};
use nanotransport_testbenches::seed;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;

const TIMEOUT: u64 = 20_000;
const SENDERS: u32 = 40;
const POOL: usize = 24;
/// Cycles from a GetRxMsgInfo call to the earliest possible garbage-collection release, beyond
/// `timeout` and the timer's scan: the call's response cycle, the table's schedule output, and
/// the timer's expiry check (now >= expiry is seen one cycle after the schedule is written).
const GC_PIPELINE: u64 = 3;

#[derive(Clone)]
struct Message {
    ip: u32,
    port: u16,
    tx: u16,
    local_port: u16,
    data: Vec<u8>,
    /// Offsets still to send, in sending order (duplicates appear twice).
    pending: VecDeque<u8>,
}

impl Message {
    fn pkts(&self) -> usize {
        self.data.len().div_ceil(1024)
    }
    fn payload(&self, off: u8) -> Vec<u8> {
        let s = off as usize * 1024;
        self.data[s..(s + 1024).min(self.data.len())].to_vec()
    }
    fn request(&self, off: u8, mark: bool) -> RxRequest {
        RxRequest { mark_received: mark, src_ip: self.ip, src_port: self.port, tx_msg_id: self.tx, msg_len: self.data.len() as u16, pkt_offset: off }
    }
}

/// What the test does with a response when it arrives.
enum Pending {
    /// A data packet of pool message `msg` (index into a snapshot), to forward when accepted.
    Data { msg: Message, off: u8 },
    /// A request whose packet is never forwarded unless `force_forward`.
    Other { msg: Option<Message>, off: u8 },
}

struct Stats {
    packets: u64,
    forwarded: u64,
    delivered: u64,
    delivered_bytes: u64,
    releases: [u64; 4],
    max_stall: u64,
}

fn new_message(rng: &mut ChaCha8Rng, next_tx: &mut [u16]) -> Message {
    let sender = rng.gen_range(0..SENDERS);
    let tx = next_tx[sender as usize];
    next_tx[sender as usize] = tx.wrapping_add(1);
    let pkts = match rng.gen_range(0..10) {
        0..=3 => 1,
        4..=6 => rng.gen_range(2..=4),
        7..=8 => rng.gen_range(5..=12),
        _ => rng.gen_range(13..=38),
    };
    let last = if pkts == 1 && rng.gen_bool(0.6) { rng.gen_range(1..=256) } else { rng.gen_range(1..=1024) };
    let len = (pkts - 1) * 1024 + last;
    let data: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
    let mut order: Vec<u8> = (0..pkts as u8).collect();
    if rng.gen_bool(0.7) {
        order.shuffle(rng);
    }
    // Duplicates: some packets are sent twice, the copy later in the order.
    let mut pending: VecDeque<u8> = order.iter().copied().collect();
    for _ in 0..pkts / 4 + rng.gen_range(0..2) {
        let off = rng.gen_range(0..pkts as u8);
        let at = rng.gen_range(0..=pending.len());
        pending.insert(at, off);
    }
    // A packet lost for good: the message can never complete and must be garbage-collected.
    if rng.gen_bool(0.03) {
        let off = rng.gen_range(0..pkts as u8);
        pending.retain(|&o| o != off);
    }
    Message {
        ip: 0x0a00_0000 + sender / 4,
        port: 1000 + (sender % 4) as u16,
        tx,
        local_port: 80 + rng.gen_range(0..4),
        data,
        pending,
    }
}

fn run(packets_wanted: u64, default_seed: u64) {
    let seed = seed("rx differential", default_seed);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut h = RxHarness::new("nt_nic_16_reassembly", TIMEOUT);
    let mut model = RxModel::new(DEFAULT_SIZE_CLASSES, TIMEOUT, RX_MESSAGES, RECENT_DEPTH);
    let mut next_tx = vec![0u16; SENDERS as usize];
    let mut pool: Vec<Message> = Vec::new();
    let mut finished: Vec<Message> = Vec::new();
    let mut awaiting: Option<(Pending, RxRequest, RxResponse)> = None;
    let mut stats = Stats { packets: 0, forwarded: 0, delivered: 0, delivered_bytes: 0, releases: [0; 4], max_stall: 0 };
    let mut stall_left = 0u64;
    let mut generating = true;
    let mut drain_cycles = 0u64;
    // Per cycle: whether the release port or the packet stream could hold a timeout (a release
    // of another reason, or a packet beat in flight); used for the garbage-collection bound.
    let mut obstructed: Vec<bool> = Vec::new();
    let mut in_packet = false;
    loop {
        let cycle = h.cycle;
        if generating && stats.forwarded >= packets_wanted {
            generating = false;
        }
        if !generating {
            drain_cycles += 1;
            let quiet = model.live_messages() == 0 && h.packets.is_empty() && awaiting.is_none() && model.deliveries.is_empty();
            if quiet || drain_cycles > 3 * TIMEOUT {
                break;
            }
        }
        while generating && pool.len() < POOL {
            pool.push(new_message(&mut rng, &mut next_tx));
        }
        // Choose this cycle's request.
        let mut issue: Option<(Pending, RxRequest)> = None;
        if generating && h.packets.len() < 3 && rng.gen_bool(0.5) {
            let roll = rng.gen_range(0..1000);
            if roll < 5 {
                // Junk from an unknown sender: zero length, too long, offset past the end.
                let junk = RxRequest {
                    mark_received: true,
                    src_ip: 0x0b00_0000 + rng.gen_range(0..1000),
                    src_port: 9,
                    tx_msg_id: rng.gen(),
                    msg_len: [0, 40_000, 1500][roll % 3],
                    pkt_offset: [0, 0, 7][roll % 3],
                };
                issue = Some((Pending::Other { msg: None, off: 0 }, junk));
            } else if roll < 25 && !finished.is_empty() {
                // Late retransmission of a message that was sent completely.
                // Mostly recent ones (still in the recently-completed table), sometimes older.
                let k = if rng.gen_bool(0.9) { finished.len() - 1 - rng.gen_range(0..finished.len().min(8)) } else { rng.gen_range(0..finished.len()) };
                let m = finished[k].clone();
                let off = rng.gen_range(0..m.pkts() as u8);
                issue = Some((Pending::Other { msg: Some(m.clone()), off }, m.request(off, true)));
            } else if !pool.is_empty() {
                // Senders take turns much like admission control would: mostly the oldest
                // messages, a few more than the table holds so that it does fill up.
                let i = rng.gen_range(0..pool.len().min(RX_MESSAGES + 2));
                let off = pool[i].pending.pop_front();
                if let Some(off) = off {
                    let m = pool[i].clone();
                    stats.packets += 1;
                    if roll < 35 {
                        // A trimmed copy: read-only call; the packet itself comes again later.
                        pool[i].pending.push_back(off);
                        issue = Some((Pending::Other { msg: Some(m.clone()), off }, m.request(off, false)));
                    } else if roll < 40 {
                        // Wrong msg_len or offset for an existing message.
                        let mut r = m.request(off, true);
                        if roll % 2 == 0 {
                            r.msg_len = r.msg_len.wrapping_add(1);
                        } else {
                            r.pkt_offset = m.pkts() as u8 + 3;
                        }
                        pool[i].pending.push_back(off);
                        issue = Some((Pending::Other { msg: Some(m.clone()), off }, r));
                    } else {
                        issue = Some((Pending::Data { msg: m.clone(), off }, m.request(off, true)));
                    }
                }
                if pool[i].pending.is_empty() {
                    let done = pool.remove(i);
                    finished.push(done);
                    if finished.len() > 200 {
                        finished.remove(0);
                    }
                }
            }
        }
        // CPU side: ready, or stalled for a random stretch.
        let ready = if stall_left > 0 {
            stall_left -= 1;
            false
        } else {
            if rng.gen_bool(0.01) {
                stall_left = rng.gen_range(1..300);
                stats.max_stall = stats.max_stall.max(stall_left);
            }
            true
        };
        let feed = rng.gen_bool(0.9);
        let req = issue.as_ref().map(|(_, r)| *r);
        let c = h.step(req.as_ref(), feed, ready);
        let other_release = c.release.is_some_and(|(_, code)| code != 3);
        obstructed.push(other_release || in_packet || c.packet_started);
        if c.packet_started {
            in_packet = true;
        }
        if c.packet_done.is_some() {
            in_packet = false;
        }

        // Releases of this cycle come before this cycle's request in the model.
        if let Some((slot, code)) = c.release {
            let reason = ReleaseReason::from_code(code).unwrap_or_else(|| panic!("cycle {cycle}: release reason {code}"));
            stats.releases[code as usize] += 1;
            if let Err(e) = model.release(slot, reason, cycle) {
                panic!("{e} (seed {seed})");
            }
        }
        // The response to last cycle's request.
        if let Some((pending, r, want)) = awaiting.take() {
            let got = c.response.unwrap_or_else(|| panic!("cycle {cycle}: no response (seed {seed})"));
            assert_eq!(got, want, "cycle {cycle}: response to {r:?} (seed {seed})");
            let forward = |m: &Message, off: u8, payload: Vec<u8>, h: &mut RxHarness| {
                let meta = RxMeta {
                    remote_ip: m.ip,
                    remote_port: m.port,
                    msg_len: m.data.len() as u16,
                    pkt_offset: off,
                    local_port: m.local_port,
                    rx_msg_id: got.rx_msg_id,
                    tx_msg_id: m.tx,
                    is_last_pkt: got.is_last_pkt,
                };
                h.packets.push_back(RxPacket { meta, payload });
            };
            match pending {
                Pending::Data { msg, off } => {
                    if got.fail {
                        // The sender will retransmit it.
                        let key = (msg.ip, msg.port, msg.tx);
                        if let Some(p) = pool.iter_mut().find(|p| (p.ip, p.port, p.tx) == key) {
                            p.pending.push_back(off);
                        } else if let Some(k) = finished.iter().position(|p| (p.ip, p.port, p.tx) == key) {
                            let mut p = finished.remove(k);
                            p.pending.push_back(off);
                            pool.insert(0, p);
                        }
                    }
                    // A well-behaved protocol forwards new packets only; sometimes this one
                    // forwards a duplicate (0.2) or a failed packet (0.002) anyway.
                    let roll = rng.gen_range(0..1000);
                    let anyway = if got.fail { roll < 2 } else { roll < 200 };
                    if (!got.fail && got.is_new_pkt) || anyway {
                        let mut payload = msg.payload(off);
                        if (200..205).contains(&roll) || (got.is_new_pkt && roll > 997) {
                            // Payload length disagrees with offset and msg_len.
                            if roll % 2 == 0 && payload.len() > 1 {
                                payload.truncate(payload.len() - 1);
                            } else {
                                payload.push(0xee);
                            }
                        }
                        forward(&msg, off, payload, &mut h);
                        stats.forwarded += 1;
                    }
                }
                Pending::Other { msg, off } => {
                    if let Some(m) = msg {
                        if rng.gen_bool(0.1) {
                            forward(&m, off, m.payload(off), &mut h);
                            stats.forwarded += 1;
                        }
                    }
                }
            }
        }
        if let Some((pending, r)) = issue {
            let want = model.request(&r, cycle);
            awaiting = Some((pending, r, want));
        }
        if let Some(p) = c.packet_done {
            model.packet(&p.meta, &p.payload);
        }
        if let Some(msg) = c.message_done {
            let want = model.deliveries.pop_front().unwrap_or_else(|| panic!("cycle {cycle}: delivery the model does not expect (seed {seed})"));
            assert!(msg == want, "cycle {cycle}: delivered message {} differs from the model's (lengths {} vs {}) (seed {seed})", stats.delivered, msg.len(), want.len());
            stats.delivered += 1;
            stats.delivered_bytes += msg.len() as u64;
        }
        model.end_cycle();
    }
    let cycles = h.cycle;
    let got = h.counters();
    // Garbage-collection latency: a message idle since its last GetRxMsgInfo call (cycle c) is
    // due at c + timeout. Beyond that it waits for the schedule pipeline, the timer's scan
    // (≤ N + 2 cycles, hdl/nic/timer.rs) and the cycles in which the timer's consumer is not
    // ready (another release, or a packet in the stream). After such a hold the scan may have
    // passed the entry, so each hold episode can cost another N + 2 cycles.
    let scan = RX_MESSAGES as u64 + 2;
    let (mut max_free_late, mut max_late, mut unobstructed) = (0u64, 0u64, 0u64);
    for &(due, at) in &model.gc_timing {
        let late = at - due;
        let window = &obstructed[due as usize..at as usize];
        let held = window.iter().filter(|x| **x).count() as u64;
        let episodes = window.windows(2).filter(|w| w[1] && !w[0]).count() as u64 + window.first().copied().unwrap_or(false) as u64;
        max_late = max_late.max(late);
        if held == 0 {
            unobstructed += 1;
            max_free_late = max_free_late.max(late);
        }
        assert!(
            late <= GC_PIPELINE + scan * (1 + episodes) + held,
            "garbage collection {late} cycles after due: above pipeline {GC_PIPELINE} + scan {scan} × {} + held {held} (seed {seed})",
            1 + episodes
        );
    }
    println!(
        "garbage collection: {} collections, latency beyond last call + timeout: max {max_late} cycles, \
         max {max_free_late} cycles over the {unobstructed} with no other release or packet in flight meanwhile (bound {})",
        model.gc_timing.len(),
        GC_PIPELINE + scan
    );
    println!(
        "rx differential: {} GetRxMsgInfo calls for data packets, {} packets streamed into the reassembly, {} messages ({} bytes) delivered identically, {cycles} cycles",
        stats.packets, stats.forwarded, stats.delivered, stats.delivered_bytes
    );
    println!("releases: delivered {}, aborted {}, garbage-collected {}; longest CPU stall {} cycles", stats.releases[1], stats.releases[2], stats.releases[3], stats.max_stall);
    let stale = h.output("stale_timeout_count");
    println!(
        "counters: {got:?}; stale timeouts {stale} (at most {}: GetRxMsgInfo reschedulings of already closed messages)",
        model.reschedules_after_close
    );
    // When each rescheduled timer fires relative to the release depends on read-out back-pressure
    // and the scan, so the exact count is not a transaction-level property; its upper bound is.
    assert!(stale <= model.reschedules_after_close, "stale timeouts {stale} above the possible {} (seed {seed})", model.reschedules_after_close);
    assert_eq!(got, model.counters, "every counter equals the model's (seed {seed})");
    assert!(model.deliveries.is_empty(), "{} messages completed in the model were never delivered", model.deliveries.len());
    // Leak test: after every message completed or expired, every free list is full again.
    assert_eq!(model.live_messages(), 0, "messages still live after draining {drain_cycles} cycles");
    assert!(model.all_free());
    assert_eq!(h.output("busy_slots"), 0, "table entries left");
    assert_eq!(h.output("free_lists_full"), 0x1f, "an ID or buffer leaked");
    assert!(stats.forwarded >= packets_wanted);
    let c = got;
    for (name, n) in [
        ("zero_len", c.fail_zero_len), ("too_long", c.fail_too_long), ("bad_offset", c.fail_bad_offset), ("len_mismatch", c.fail_len_mismatch),
        ("no_id", c.fail_no_id), ("no_buffer", c.fail_no_buffer), ("duplicate", c.duplicate), ("recent_duplicate", c.recent_duplicate),
        ("class_fallback", c.class_fallback), ("drop_stale", c.drop_stale), ("drop_duplicate", c.drop_duplicate),
        ("drop_bad_length", c.drop_bad_length), ("gc", c.gc), ("delivered", c.delivered),
    ] {
        assert!(n > 0, "the run never exercised {name}");
    }
}

#[test]
fn rx_path_matches_the_reference_model_on_100k_random_packets() {
    run(100_000, 401);
}
