//! Differential test of the receive path at 16 and 128 messages with the same test code: the
//! reassembly module's Verilator model (GetRxMsgInfo, reassembly, ingress timers) against the
//! reference model (reference/rx.rs) under random traffic — many senders, the same tx_msg_id
//! from different senders, random packet order, duplicates, late retransmissions of delivered
//! messages, packets withheld forever (forcing garbage collection), read-only calls, every bad
//! input, and random CPU-side back-pressure. Every response, every delivered message (byte for
//! byte, in order) and every counter must agree; at the end every ID and buffer must be free
//! again (leak test).

use nanotransport_hdl::nic::delivered_set::DEFAULT_HORIZON_CYCLES;
use nanotransport_reference::rx::{ReleaseReason, RxMeta, RxRequest, RxResponse};
use nanotransport_sim::cosim::rx_harness::{RxHarness, RxPacket};
use nanotransport_testbenches::rx::{RxSize, RX_128, RX_16};
use nanotransport_testbenches::seed;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;

/// Traffic shape of a run: ingress timeout, senders, and messages in flight at the senders (more
/// than the table holds, so that it fills up).
struct Traffic {
    timeout: u64,
    senders: u32,
    pool: usize,
}

impl Traffic {
    fn of(size: &RxSize) -> Self {
        match size.messages() {
            16 => Traffic { timeout: 20_000, senders: 40, pool: 24 },
            _ => Traffic { timeout: 60_000, senders: 200, pool: 150 },
        }
    }
}

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
        RxRequest {
            mark_received: mark,
            peek: false,
            src_ip: self.ip,
            src_port: self.port,
            tx_msg_id: self.tx,
            msg_len: self.data.len() as u16,
            pkt_offset: off,
        }
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

fn new_message(rng: &mut ChaCha8Rng, next_tx: &mut [u16], senders: u32) -> Message {
    let sender = rng.gen_range(0..senders);
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
    Message { ip: 0x0a00_0000 + sender / 4, port: 1000 + (sender % 4) as u16, tx, local_port: 80 + rng.gen_range(0..4), data, pending }
}

fn run(size: &RxSize, packets_wanted: u64, default_seed: u64) {
    let Traffic { timeout, senders, pool: pool_size } = Traffic::of(size);
    let seed = seed(&format!("rx differential {}", size.messages()), default_seed);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut h = RxHarness::new(&size.module("reassembly"), timeout);
    let mut model = size.model(timeout);
    let mut next_tx = vec![0u16; senders as usize];
    let mut pool: Vec<Message> = Vec::new();
    let mut finished: Vec<Message> = Vec::new();
    // The cycle each finished message was sent completely: copies are offered only within half
    // the delivered set's horizon of it (the hardware forgets a key between H and 17/16 H after
    // its release, the model at exactly H; a copy in between would be judged differently).
    let mut finished_at: Vec<u64> = Vec::new();
    // Requests taken by the table, answered three cycles later: (due cycle, what, request, model's answer).
    let mut awaiting: VecDeque<(u64, Pending, RxRequest, RxResponse)> = VecDeque::new();
    // The request offered to the table until it is taken.
    let mut offered: Option<(Pending, RxRequest)> = None;
    let mut bucket_full_seen = 0u64;
    let mut stats = Stats { packets: 0, forwarded: 0, delivered: 0, delivered_bytes: 0, releases: [0; 4], max_stall: 0 };
    let mut stall_left = 0u64;
    let mut generating = true;
    let mut drain_cycles = 0u64;
    loop {
        let cycle = h.cycle;
        if generating && stats.forwarded >= packets_wanted {
            generating = false;
        }
        if !generating {
            drain_cycles += 1;
            let quiet = model.live_messages() == 0
                && h.packets.is_empty()
                && awaiting.is_empty()
                && offered.is_none()
                && model.deliveries.is_empty();
            if quiet || drain_cycles > 3 * timeout {
                break;
            }
        }
        while generating && pool.len() < pool_size {
            pool.push(new_message(&mut rng, &mut next_tx, senders));
        }
        // Choose this cycle's request.
        let mut issue: Option<(Pending, RxRequest)> = offered.take();
        if issue.is_none() && generating && h.packets.len() < 3 && rng.gen_bool(0.5) {
            let roll = rng.gen_range(0..1000);
            if roll < 5 {
                // Junk from an unknown sender: zero length, too long, offset past the end.
                let junk = RxRequest {
                    mark_received: true,
                    peek: false,
                    src_ip: 0x0b00_0000 + rng.gen_range(0..1000),
                    src_port: 9,
                    tx_msg_id: rng.gen(),
                    msg_len: [0, 40_000, 1500][roll % 3],
                    pkt_offset: [0, 0, 7][roll % 3],
                };
                issue = Some((Pending::Other { msg: None, off: 0 }, junk));
            } else if roll < 25 && !finished.is_empty() && {
                let newest = *finished_at.last().unwrap();
                cycle < newest + DEFAULT_HORIZON_CYCLES / 2
            } {
                // Late retransmission of a message that was sent completely: mostly recent ones,
                // sometimes older, never older than half the horizon.
                let mut k = if rng.gen_bool(0.9) {
                    finished.len() - 1 - rng.gen_range(0..finished.len().min(8))
                } else {
                    rng.gen_range(0..finished.len())
                };
                while cycle >= finished_at[k] + DEFAULT_HORIZON_CYCLES / 2 {
                    k += 1;
                }
                let m = finished[k].clone();
                let off = rng.gen_range(0..m.pkts() as u8);
                issue = Some((Pending::Other { msg: Some(m.clone()), off }, m.request(off, true)));
            } else if !pool.is_empty() {
                // Senders take turns much like admission control would: mostly the oldest
                // messages, sometimes any of them, so that the table does fill up.
                let window = if rng.gen_bool(0.85) { 24 } else { pool_size };
                let i = rng.gen_range(0..pool.len().min(window));
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
                    finished_at.push(cycle);
                    if finished.len() > 200 {
                        finished.remove(0);
                        finished_at.remove(0);
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

        // Releases of this cycle come before this cycle's request in the model.
        if let Some((slot, code)) = c.release {
            let reason = ReleaseReason::from_code(code).unwrap_or_else(|| panic!("cycle {cycle}: release reason {code}"));
            stats.releases[code as usize] += 1;
            if let Err(e) = model.release(slot, reason, cycle) {
                panic!("{e} (seed {seed})");
            }
        }
        if let Some((pending, r)) = issue {
            if c.request_taken {
                let want = model.request(&r, cycle);
                awaiting.push_back((cycle + 3, pending, r, want));
            } else {
                offered = Some((pending, r));
            }
        }
        assert_eq!(c.response.is_some(), awaiting.front().is_some_and(|a| a.0 == cycle), "cycle {cycle}: response timing (seed {seed})");
        // The response to the request taken three cycles ago.
        if let Some((_, pending, r, want)) = c.response.is_some().then(|| awaiting.pop_front().unwrap()) {
            let got = c.response.unwrap();
            bucket_full_seen += (got.fail_reason == 7) as u64;
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
                        } else if let Some(k) = finished
                            .iter()
                            .position(|p| (p.ip, p.port, p.tx) == key)
                            .filter(|k| cycle < finished_at[*k] + DEFAULT_HORIZON_CYCLES / 2)
                        {
                            // (A sender gives a message up long before the horizon.)
                            finished_at.remove(k);
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
        if let Some(p) = c.packet_done {
            model.packet(&p.meta, &p.payload);
        }
        if let Some(msg) = c.message_done {
            let want =
                model.deliveries.pop_front().unwrap_or_else(|| panic!("cycle {cycle}: delivery the model does not expect (seed {seed})"));
            assert!(
                msg == want,
                "cycle {cycle}: delivered message {} differs from the model's (lengths {} vs {}) (seed {seed})",
                stats.delivered,
                msg.len(),
                want.len()
            );
            stats.delivered += 1;
            stats.delivered_bytes += msg.len() as u64;
        }
    }
    // The table frees a released slot's ID and buffer in the cycle after it takes the release.
    for _ in 0..4 {
        let c = h.step(None, false, true);
        assert!(c.release.is_none() && c.message_done.is_none());
    }
    let cycles = h.cycle;
    let got = h.counters();
    println!(
        "rx differential {}: {} GetRxMsgInfo calls for data packets, {} packets streamed into the reassembly, {} messages ({} bytes) delivered identically, {cycles} cycles",
        size.messages(), stats.packets, stats.forwarded, stats.delivered, stats.delivered_bytes
    );
    println!(
        "releases: delivered {}, garbage-collected {}; longest CPU stall {} cycles",
        stats.releases[1], stats.releases[3], stats.max_stall
    );
    println!("counters: {got:?}; bucket full {}; stale timeouts {}", h.output("fail_bucket_full_count"), h.output("stale_timeout_count"));
    assert_eq!(got, model.counters(), "every counter equals the model's (seed {seed})");
    assert_eq!(h.output("fail_bucket_full_count"), model.fail_bucket_full(), "bucket-full count (seed {seed})");
    assert_eq!(h.output("fail_bucket_full_count"), bucket_full_seen);
    assert!(model.deliveries.is_empty(), "{} messages completed in the model were never delivered", model.deliveries.len());
    // Leak test: after every message completed or expired, every free list is full again.
    assert_eq!(model.live_messages(), 0, "messages still live after draining {drain_cycles} cycles");
    assert!(model.all_free());
    assert!(h.m.get_words(h.m.port_or_panic("busy_slots")).iter().all(|&w| w == 0), "table entries left");
    assert_eq!(h.output("free_lists_full"), 0x1f, "an ID or buffer leaked");
    assert!(stats.forwarded >= packets_wanted);
    let c = got;
    // No-buffer and class fallback need a class with fewer buffers than IDs (not at 16, where
    // every ID can hold a maximum-size message in the best-fitting class).
    let class_limited = size.classes.iter().any(|c| (c.1 as usize) < size.messages());
    for (name, n) in [
        ("zero_len", c.fail_zero_len),
        ("too_long", c.fail_too_long),
        ("bad_offset", c.fail_bad_offset),
        ("len_mismatch", c.fail_len_mismatch),
        ("no_id", c.fail_no_id),
        ("no_buffer", c.fail_no_buffer),
        ("duplicate", c.duplicate),
        ("recent_duplicate", c.recent_duplicate),
        ("class_fallback", c.class_fallback),
        ("drop_stale", c.drop_stale),
        ("drop_duplicate", c.drop_duplicate),
        ("drop_bad_length", c.drop_bad_length),
        ("gc", c.gc),
        ("delivered", c.delivered),
    ] {
        if class_limited || !matches!(name, "no_buffer" | "class_fallback") {
            assert!(n > 0, "the run never exercised {name}");
        }
    }
}

#[test]
fn rx_path_16_matches_the_reference_model_on_100k_random_packets() {
    run(&RX_16, 100_000, 401);
}

#[test]
fn rx_path_128_matches_the_reference_model_on_100k_random_packets() {
    run(&RX_128, 100_000, 601);
}
