//! GetRxMsgInfo on the Verilator model of its generated Verilog, at 16 and 128 messages with the
//! same test code: scenario tests (responses, back-to-back coherence, every fail reason,
//! exhaustion, size-class fallback, recently completed, both candidate buckets full) and a long
//! random run against the reference model (reference/rx.rs).

use nanotransport_hdl::nic::delivered_set::DELIVERED_SET_BUCKET_BITS;
use nanotransport_hdl::nic::get_rx_msg_info::{fail_reason, hash0, hash1, RX_MSG_ID_NONE};
use nanotransport_reference::rx::{key_of, RxRequest, RxResponse};
use nanotransport_sim::cosim::rx_harness::{counter_port, RxRequestPorts, RxResponsePorts, TABLE_COUNTERS as COUNTERS};
use nanotransport_sim::cosim::verilated::{PortId, VerilatedModel};
use nanotransport_testbenches::rx::RxSize;
use nanotransport_testbenches::rx::{RX_128, RX_16};
use nanotransport_testbenches::{cases, seed};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;

struct Table {
    m: VerilatedModel,
    request: RxRequestPorts,
    response: RxResponsePorts,
    /// reset, req_ready, release_valid, release_slot, release_delivered, release_ready.
    control: [PortId; 6],
}

/// What one cycle showed.
struct Cycle {
    request_taken: bool,
    release_taken: bool,
    response: Option<RxResponse>,
}

impl Table {
    fn new(size: &RxSize) -> Self {
        let m = VerilatedModel::new(&size.module("get_rx_msg_info")).unwrap();
        let control =
            ["reset", "req$ready", "release_valid", "release_slot", "release_delivered", "release_ready"].map(|n| m.port_or_panic(n));
        let mut t = Table { request: RxRequestPorts::of(&m), response: RxResponsePorts::of(&m), m, control };
        t.cycle(None, None, true);
        // The init sequence writes every bucket empty.
        for _ in 0..(1 << size.bucket_bits.max(DELIVERED_SET_BUCKET_BITS)) + 2 {
            t.cycle(None, None, false);
        }
        t
    }

    fn cycle(&mut self, req: Option<&RxRequest>, release: Option<(usize, bool)>, reset: bool) -> Cycle {
        let [reset_port, req_ready, release_valid, release_slot, release_delivered, release_ready] = self.control;
        let (slot, delivered) = release.unwrap_or((0, false));
        self.m.set(reset_port, reset as u64);
        self.request.drive(&mut self.m, req);
        self.m.set(release_valid, release.is_some() as u64);
        self.m.set(release_slot, slot as u64);
        self.m.set(release_delivered, delivered as u64);
        self.m.eval();
        let c = Cycle {
            request_taken: req.is_some() && self.m.get(req_ready) == 1,
            release_taken: release.is_some() && self.m.get(release_ready) == 1,
            response: self.response.read(&self.m),
        };
        self.m.tick();
        c
    }

    /// Issues a request until it is taken; returns its response.
    fn call(&mut self, r: &RxRequest) -> RxResponse {
        let mut taken = false;
        for _ in 0..10 {
            let c = self.cycle((!taken).then_some(r), None, false);
            if let Some(resp) = c.response {
                if taken {
                    return resp;
                }
            }
            taken |= c.request_taken;
        }
        panic!("no response");
    }

    /// Offers a release until it is taken.
    fn release(&mut self, slot: usize, delivered: bool) {
        for _ in 0..10 {
            if self.cycle(None, Some((slot, delivered)), false).release_taken {
                return;
            }
        }
        panic!("release never taken");
    }

    fn counter(&self, name: &str) -> u64 {
        self.m.get(counter_port(&self.m, "counters", name))
    }
}

fn req(ip: u32, port: u16, tx: u16, len: u16, off: u8) -> RxRequest {
    RxRequest { mark_received: true, peek: false, src_ip: ip, src_port: port, tx_msg_id: tx, msg_len: len, pkt_offset: off }
}

/// `count` keys `(src_ip, 1, tx)` whose candidate buckets are the same in both ways.
fn colliding_keys(size: &RxSize, src_ip: u32, count: usize) -> Vec<u16> {
    let bits = size.bucket_bits;
    let target = key_of(&req(src_ip, 1, 0, 100, 0));
    let mut keys = vec![0u16];
    for tx in 1..=u16::MAX {
        let k = key_of(&req(src_ip, 1, tx, 100, 0));
        if hash0(k, bits) == hash0(target, bits) && hash1(k, bits) == hash1(target, bits) {
            keys.push(tx);
            if keys.len() == count {
                break;
            }
        }
    }
    assert_eq!(keys.len(), count, "colliding keys exist");
    keys
}

fn out_of_order_packets_ack_no_and_last_packet(size: &RxSize) {
    let mut t = Table::new(size);
    let r = t.call(&req(10, 1, 7, 3000, 2));
    assert!(!r.fail && r.is_new_msg && r.is_new_pkt && !r.is_last_pkt, "{r:?}");
    assert_eq!(r.ack_no, 0);
    let id = r.rx_msg_id;
    assert_eq!(id >> (size.slot_bits + 8), 0, "rx_msg_id = {{generation, slot}}");
    let r = t.call(&req(10, 1, 7, 3000, 0));
    assert_eq!((r.rx_msg_id, r.is_new_msg, r.is_new_pkt, r.is_last_pkt, r.ack_no), (id, false, true, false, 1));
    // Read-only call (trimmed packet): reports, does not mark.
    let r = t.call(&RxRequest { mark_received: false, ..req(10, 1, 7, 3000, 1) });
    assert_eq!((r.is_new_pkt, r.is_last_pkt, r.ack_no), (true, false, 1));
    let r = t.call(&req(10, 1, 7, 3000, 1));
    assert_eq!((r.is_new_pkt, r.is_last_pkt, r.ack_no), (true, true, 3));
    let r = t.call(&req(10, 1, 7, 3000, 1));
    assert_eq!((r.fail, r.is_new_pkt, r.is_last_pkt, r.ack_no), (false, false, true, 3));
    assert_eq!(t.counter("duplicate_count"), 1);
}

fn same_tx_msg_id_from_two_senders_never_shares_an_entry(size: &RxSize) {
    let mut t = Table::new(size);
    let a = t.call(&req(10, 1, 5, 2048, 0));
    let b = t.call(&req(11, 1, 5, 2048, 0));
    let c = t.call(&req(10, 2, 5, 2048, 0));
    assert!(a.is_new_msg && b.is_new_msg && c.is_new_msg);
    assert!(a.rx_msg_id != b.rx_msg_id && b.rx_msg_id != c.rx_msg_id && a.rx_msg_id != c.rx_msg_id);
    let b1 = t.call(&req(11, 1, 5, 2048, 1));
    assert_eq!((b1.rx_msg_id, b1.is_last_pkt), (b.rx_msg_id, true));
    let a1 = t.call(&req(10, 1, 5, 2048, 0));
    assert_eq!((a1.rx_msg_id, a1.is_new_pkt, a1.is_last_pkt), (a.rx_msg_id, false, false));
}

fn back_to_back_requests_see_each_other(size: &RxSize) {
    let mut t = Table::new(size);
    // Four requests offered back to back (taken one every 3 cycles) for one new message.
    let reqs = [req(1, 1, 1, 3072, 1), req(1, 1, 1, 3072, 1), req(1, 1, 1, 3072, 0), req(1, 1, 1, 3072, 2)];
    let mut pending: VecDeque<&RxRequest> = reqs.iter().collect();
    let mut resps = Vec::new();
    let mut taken_at = Vec::new();
    for cycle in 0..20 {
        let c = t.cycle(pending.front().copied(), None, false);
        if c.request_taken {
            pending.pop_front();
            taken_at.push(cycle);
        }
        resps.extend(c.response);
    }
    assert_eq!(taken_at, vec![0, 3, 6, 9], "one request every 3 cycles");
    assert_eq!(resps.len(), 4);
    assert!(resps[0].is_new_msg && resps[0].is_new_pkt);
    assert!(!resps[1].is_new_msg && !resps[1].is_new_pkt, "second call sees the first one's allocation and bit");
    assert_eq!((resps[2].is_new_pkt, resps[2].ack_no), (true, 2));
    assert_eq!((resps[3].is_new_pkt, resps[3].is_last_pkt, resps[3].ack_no), (true, true, 3));
    assert!(resps.iter().all(|r| r.rx_msg_id == resps[0].rx_msg_id));
}

/// Every fail reason with its counter: zero length, too long, offset past the end, msg_len
/// mismatch, both candidate buckets full, no buffer in a class that fits (only where a class has
/// fewer buffers than there are IDs), no free ID.
fn every_fail_reason_is_reported_and_counted(size: &RxSize) {
    let mut t = Table::new(size);
    let largest = size.classes[3];
    assert_eq!(t.call(&req(1, 1, 1, 0, 0)).fail_reason as u64, fail_reason::ZERO_LEN);
    assert_eq!(t.call(&req(1, 1, 1, (largest.0 * 1024 + 1) as u16, 0)).fail_reason as u64, fail_reason::TOO_LONG);
    assert_eq!(t.call(&req(1, 1, 1, 2048, 2)).fail_reason as u64, fail_reason::BAD_OFFSET);
    let ok = t.call(&req(1, 1, 1, 2048, 0));
    assert!(!ok.fail);
    assert_eq!(t.call(&req(1, 1, 1, 2048, 5)).fail_reason as u64, fail_reason::BAD_OFFSET);
    assert_eq!(t.call(&req(1, 1, 1, 2000, 1)).fail_reason as u64, fail_reason::LEN_MISMATCH);
    let mut used = 1;
    // Five keys with the same buckets in both ways: four fit, the fifth does not.
    let keys = colliding_keys(size, 7, 5);
    for &tx in &keys[..4] {
        assert!(t.call(&req(7, 1, tx, 100, 0)).is_new_msg);
    }
    used += 4;
    let r = t.call(&req(7, 1, keys[4], 100, 0));
    assert_eq!((r.fail, r.fail_reason as u64, r.rx_msg_id as u64), (true, fail_reason::BUCKET_FULL, RX_MSG_ID_NONE));
    let r = t.call(&req(7, 1, keys[2], 100, 0));
    assert!(!r.fail && !r.is_new_pkt && !r.is_new_msg, "a stored key still hits: the full key is compared");
    // Maximum-size messages take the largest class; with fewer buffers than IDs it runs out.
    let no_buffer_reachable = (largest.1 as usize) < size.messages() - used;
    if no_buffer_reachable {
        for tx in 0..largest.1 as u16 {
            assert!(!t.call(&req(2, 1, tx, (largest.0 * 1024) as u16, 0)).fail);
        }
        used += largest.1 as usize;
        let r = t.call(&req(2, 1, 999, (largest.0 * 1024) as u16, 0));
        assert_eq!((r.fail, r.fail_reason as u64), (true, fail_reason::NO_BUFFER));
    }
    // Fill the remaining IDs with single-packet messages (a key may find its buckets full).
    let mut extra_bucket_full = 0;
    let mut ip = 100;
    while used < size.messages() {
        let r = t.call(&req(ip, 1, 0, 100, 0));
        if r.fail {
            assert_eq!(r.fail_reason as u64, fail_reason::BUCKET_FULL);
            extra_bucket_full += 1;
        } else {
            used += 1;
        }
        ip += 1;
    }
    let r = t.call(&req(ip, 1, 0, 100, 0));
    assert_eq!((r.fail, r.fail_reason as u64), (true, fail_reason::NO_ID));
    let counts: Vec<u64> = COUNTERS.iter().map(|c| t.counter(c)).collect();
    println!("counters after the fail-reason scenario: {:?}", COUNTERS.iter().zip(&counts).collect::<Vec<_>>());
    assert_eq!(&counts[..7], &[1, 1, 2, 1, 1, no_buffer_reachable as u64, 1 + extra_bucket_full]);
}

fn exhausted_class_falls_back_to_a_larger_one(size: &RxSize) {
    let mut t = Table::new(size);
    // 2-page messages exhaust the 4-page class and fall back to the 8-page one.
    let four_page = size.classes[1].1 as u16;
    for tx in 0..four_page {
        assert!(!t.call(&req(1, 1, tx, 2048, 0)).fail);
    }
    assert_eq!(t.counter("class_fallback_count"), 0);
    let r = t.call(&req(1, 1, four_page, 2048, 0));
    if (four_page as usize) < size.messages() {
        assert!(!r.fail);
        assert_eq!(t.counter("class_fallback_count"), 1);
    } else {
        assert_eq!(r.fail_reason as u64, fail_reason::NO_ID, "every ID is taken first");
    }
}

/// The delivered set remembers by time, not by count: 3 000 one-packet messages delivered after
/// message 0 (a 16-entry table of recent keys would have forgotten it after 16), then a copy of
/// every 100th of them, message 0 first: each is a duplicate, none a new message.
fn a_delivered_key_outlives_thousands_of_later_deliveries(size: &RxSize) {
    let mut t = Table::new(size);
    let key = |i: u16| req(0x0a00_0002, 7000 + (i % 64), i, 100, 0);
    for i in 0..3000 {
        let r = t.call(&key(i));
        assert!(r.is_new_msg && r.is_last_pkt, "message {i}: {r:?}");
        t.release(size.slot_of(r.rx_msg_id), true);
    }
    for i in (0..3000).step_by(100) {
        let r = t.call(&key(i));
        assert_eq!((r.fail, r.is_new_msg, r.is_new_pkt, r.rx_msg_id as u64), (false, false, false, RX_MSG_ID_NONE), "copy of message {i}");
    }
    assert_eq!(t.counter("recent_duplicate_count"), 30);
    assert_eq!(t.counter("full_wait_count"), 0);
}

fn released_delivered_message_is_reported_as_a_duplicate(size: &RxSize) {
    let mut t = Table::new(size);
    let r = t.call(&req(9, 9, 9, 500, 0));
    t.release(size.slot_of(r.rx_msg_id), true);
    let r = t.call(&req(9, 9, 9, 500, 0));
    assert_eq!(
        (r.fail, r.is_new_msg, r.is_new_pkt, r.is_last_pkt, r.ack_no, r.rx_msg_id as u64),
        (false, false, false, true, 1, RX_MSG_ID_NONE)
    );
    let r = t.call(&req(9, 9, 9, 500, 0));
    assert!(!r.is_new_pkt && r.rx_msg_id as u64 == RX_MSG_ID_NONE);
    assert_eq!(t.counter("recent_duplicate_count"), 2);
    // A garbage-collected (not delivered) message starts afresh with a new generation.
    let a = t.call(&req(8, 8, 8, 500, 0));
    t.release(size.slot_of(a.rx_msg_id), false);
    let b = t.call(&req(8, 8, 8, 500, 0));
    assert!(b.is_new_msg && b.rx_msg_id != a.rx_msg_id && size.slot_of(b.rx_msg_id) == size.slot_of(a.rx_msg_id));
    assert!(t.counter("free_lists_full") != 0x1f);
    // A release of a slot that holds no message changes nothing.
    t.release(size.messages() - 1, true);
    assert_eq!(t.call(&req(8, 8, 8, 500, 0)).rx_msg_id, b.rx_msg_id);
}

/// Random traffic (hits, misses, exhaustion, bucket collisions, recent duplicates) with random
/// releases, every response and counter against the reference model.
fn random_requests_and_releases_match_the_reference_model(size: &RxSize) {
    let seed = seed(&format!("{} random", size.module("get_rx_msg_info")), 501);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut t = Table::new(size);
    let mut model = size.table_model();
    let mut expected: VecDeque<RxResponse> = VecDeque::new();
    let (mut requests, mut allocations, mut fails) = (0u64, 0u64, 0u64);
    let cycles = 200_000u64;
    let largest = (size.classes[3].0 * 1024) as u16;
    // About twice as many keys as IDs, so misses, hits and exhaustion all happen.
    let ips = (size.messages() as u32 / 4).max(6);
    let mut colliders: Vec<Vec<u16>> = Vec::new();
    for cycle in 0..cycles {
        let request = rng.gen_bool(0.8).then(|| {
            // Senders move on to new IDs (a delivered key is remembered for the horizon, longer
            // than this run): a fresh window of 8 IDs every 2 000 cycles, and one request in ten
            // from the window before (late copies, often of delivered messages).
            let window = (cycle / 2000) as u16 - (cycle >= 2000 && rng.gen_bool(0.1)) as u16;
            let (mut ip, mut tx, mut port) = (rng.gen_range(0..ips), window * 8 + rng.gen_range(0..8u16), 3);
            // One request in ten uses one of 5 keys of the window that share both candidate
            // buckets, so "both buckets full" happens.
            if rng.gen_bool(0.1) {
                let w = window as usize;
                while colliders.len() <= w {
                    colliders.push(colliding_keys(size, 0x100 + colliders.len() as u32, 5));
                }
                (ip, tx, port) = (0x100 + window as u32, colliders[w][rng.gen_range(0..5)], 1);
            }
            let h = ip.wrapping_mul(7919).wrapping_add((tx as u32).wrapping_mul(1_299_709));
            // First half: larger messages and frequent releases (buffer classes run out and fall
            // back); second half: mostly single-page messages and rare releases (IDs run out).
            let large = cycle < cycles / 2;
            let own_len = 1 + (if large || h % 5 == 0 { h % 12_000 } else { h % 900 }) as u16;
            let msg_len = match rng.gen_range(0..40) {
                0 => 0,
                1 => largest + 1 + rng.gen_range(0..2000),
                2 => rng.gen_range(largest / 2..=largest),
                _ => own_len,
            };
            let pkts = (msg_len as u64).div_ceil(1024).max(1);
            let pkt_offset = if rng.gen_bool(0.02) { pkts as u8 + 2 } else { rng.gen_range(0..pkts) as u8 };
            // A peek (a frame not yet validated) never marks; a later request announces the message.
            let peek = rng.gen_bool(0.2);
            RxRequest { mark_received: !peek && rng.gen_bool(0.9), peek, src_ip: ip, src_port: port, tx_msg_id: tx, msg_len, pkt_offset }
        });
        let live = model.live();
        let release_rate = if cycle < cycles / 2 { 0.15 } else { 0.04 };
        let release = (rng.gen_bool(release_rate) && !live.is_empty()).then(|| (live[rng.gen_range(0..live.len())], rng.gen_bool(0.5)));
        let c = t.cycle(request.as_ref(), release, false);
        if let Some(got) = c.response {
            let want = expected.pop_front().unwrap_or_else(|| panic!("cycle {cycle}: unexpected response"));
            assert_eq!(got, want, "cycle {cycle} (seed {seed})");
        }
        assert!(!(c.request_taken && c.release_taken), "one operation at a time");
        if c.release_taken {
            let (slot, delivered) = release.unwrap();
            model.release(slot, delivered);
        }
        if c.request_taken {
            let want = model.request(&request.unwrap());
            requests += 1;
            allocations += want.is_new_msg as u64;
            fails += want.fail as u64;
            expected.push_back(want);
        }
    }
    // Let the last operation finish (its counters update in its third cycle).
    for _ in 0..3 {
        if let Some(got) = t.cycle(None, None, false).response {
            assert_eq!(Some(got), expected.pop_front());
        }
    }
    assert!(expected.is_empty());
    let c = model.counters;
    let want = [
        c.fail_zero_len,
        c.fail_too_long,
        c.fail_bad_offset,
        c.fail_len_mismatch,
        c.fail_no_id,
        c.fail_no_buffer,
        model.fail_bucket_full,
        c.duplicate,
        c.recent_duplicate,
        c.class_fallback,
    ];
    for (name, w) in COUNTERS.iter().zip(want) {
        assert_eq!(t.counter(name), w, "{name}");
    }
    println!(
        "{cycles} cycles: {requests} requests, {allocations} allocations, {fails} fails; counters {:?}",
        COUNTERS.iter().zip(want).collect::<Vec<_>>()
    );
    assert!(allocations > 1000 && fails > 1000);
    // Outcomes every size reaches (no-buffer and fallback need a class with fewer buffers than IDs).
    for (name, w) in COUNTERS.iter().zip(want) {
        let class_limited = size.classes.iter().any(|c| (c.1 as usize) < size.messages());
        if class_limited || !matches!(*name, "fail_no_buffer_count" | "class_fallback_count") {
            assert!(w > 0, "{name} never exercised");
        }
    }
}

cases!(
    [at_16 => &super::RX_16, at_128 => &super::RX_128];
    out_of_order_packets_ack_no_and_last_packet,
    same_tx_msg_id_from_two_senders_never_shares_an_entry,
    back_to_back_requests_see_each_other,
    every_fail_reason_is_reported_and_counted,
    exhausted_class_falls_back_to_a_larger_one,
    released_delivered_message_is_reported_as_a_duplicate,
    a_delivered_key_outlives_thousands_of_later_deliveries,
    random_requests_and_releases_match_the_reference_model,
);
