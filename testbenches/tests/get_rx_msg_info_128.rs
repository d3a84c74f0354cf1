//! The 128-message hashed GetRxMsgInfo table on the Verilator model of its generated Verilog:
//! random requests and releases against the reference model (sim/model/rx_hashed.rs), and a
//! constructed "bucket full" case.

use nanotransport_hdl::nic::get_rx_msg_info::RECENT_DEPTH;
use nanotransport_hdl::nic::get_rx_msg_info_hashed::{hash0, hash1, DEFAULT_SIZE_CLASSES_128, FAIL_BUCKET_FULL};
use nanotransport_sim::cosim::verilated::{PortId, VerilatedModel};
use nanotransport_sim::model::rx::{RxRequest, RxResponse};
use nanotransport_sim::model::rx_hashed::{key_of, HashedTableModel};
use nanotransport_testbenches::seed;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;

const IN: [&str; 11] = [
    "reset", "req_valid", "req_mark_received", "req_src_ip", "req_src_port", "req_tx_msg_id", "req_msg_len", "req_pkt_offset",
    "release_valid", "release_slot", "release_delivered",
];
const OUT: [&str; 10] = [
    "req_ready", "release_ready", "resp_valid", "resp_fail", "resp_fail_reason", "resp_rx_msg_id", "resp_is_new_msg", "resp_is_new_pkt",
    "resp_is_last_pkt", "resp_ack_no",
];

struct Table {
    m: VerilatedModel,
    i: Vec<PortId>,
    o: Vec<PortId>,
}

/// What one cycle showed.
struct Cycle {
    request_taken: bool,
    release_taken: bool,
    response: Option<RxResponse>,
}

impl Table {
    fn new() -> Self {
        let m = VerilatedModel::new("nt_nic_128_get_rx_msg_info").unwrap();
        let i = IN.iter().map(|n| m.port_or_panic(n)).collect();
        let o = OUT.iter().map(|n| m.port_or_panic(n)).collect();
        let mut t = Table { m, i, o };
        t.cycle(None, None, true);
        // The init sequence writes every bucket empty.
        for _ in 0..70 {
            t.cycle(None, None, false);
        }
        t
    }

    fn cycle(&mut self, req: Option<&RxRequest>, release: Option<(usize, bool)>, reset: bool) -> Cycle {
        let r = req.copied().unwrap_or_default();
        let (slot, delivered) = release.unwrap_or((0, false));
        let v = [
            reset as u64, req.is_some() as u64, r.mark_received as u64, r.src_ip as u64, r.src_port as u64, r.tx_msg_id as u64,
            r.msg_len as u64, r.pkt_offset as u64, release.is_some() as u64, slot as u64, delivered as u64,
        ];
        for (p, x) in self.i.iter().zip(v) {
            self.m.set(*p, x);
        }
        self.m.eval();
        let g = |k: usize| self.m.get(self.o[k]);
        let c = Cycle {
            request_taken: req.is_some() && g(0) == 1,
            release_taken: release.is_some() && g(1) == 1,
            response: (g(2) == 1).then(|| RxResponse {
                fail: g(3) == 1,
                fail_reason: g(4) as u8,
                rx_msg_id: g(5) as u16,
                is_new_msg: g(6) == 1,
                is_new_pkt: g(7) == 1,
                is_last_pkt: g(8) == 1,
                ack_no: g(9) as u16,
            }),
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
}

fn req(ip: u32, port: u16, tx: u16, len: u16, off: u8) -> RxRequest {
    RxRequest { mark_received: true, src_ip: ip, src_port: port, tx_msg_id: tx, msg_len: len, pkt_offset: off }
}

#[test]
fn both_candidate_buckets_full_is_its_own_fail_reason() {
    // Five keys with the same bucket in both ways: four fit (two per bucket), the fifth does not,
    // although 124 IDs are still free.
    let target = key_of(&req(1, 1, 0, 100, 0));
    let (b0, b1) = (hash0(target), hash1(target));
    let mut keys = vec![0u16];
    for tx in 1..=u16::MAX {
        let k = key_of(&req(1, 1, tx, 100, 0));
        if hash0(k) == b0 && hash1(k) == b1 {
            keys.push(tx);
            if keys.len() == 5 {
                break;
            }
        }
    }
    assert_eq!(keys.len(), 5, "colliding keys exist");
    let mut t = Table::new();
    for &tx in &keys[..4] {
        let r = t.call(&req(1, 1, tx, 100, 0));
        assert!(!r.fail && r.is_new_msg, "{r:?}");
    }
    let r = t.call(&req(1, 1, keys[4], 100, 0));
    assert_eq!((r.fail, r.fail_reason as u64), (true, FAIL_BUCKET_FULL));
    assert_eq!(t.m.get(t.m.port_or_panic("fail_bucket_full_count")), 1);
    // The stored keys still hit: the full key is compared.
    let r = t.call(&req(1, 1, keys[2], 100, 0));
    assert!(!r.fail && !r.is_new_pkt && !r.is_new_msg);
}

/// Random traffic (hits, misses, exhaustion, bucket collisions, recent duplicates) with random
/// releases, every response and counter against the reference model.
#[test]
fn random_requests_and_releases_match_the_reference_model() {
    let seed = seed("get_rx_msg_info 128 random", 501);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut t = Table::new();
    let mut model = HashedTableModel::new(DEFAULT_SIZE_CLASSES_128, 128, RECENT_DEPTH);
    let mut expected: VecDeque<RxResponse> = VecDeque::new();
    let (mut requests, mut allocations, mut fails) = (0u64, 0u64, 0u64);
    let cycles = 200_000u64;
    for cycle in 0..cycles {
        let request = rng.gen_bool(0.8).then(|| {
            let (ip, tx) = (rng.gen_range(0..60u32), rng.gen_range(0..8u16));
            let h = ip * 7919 + tx as u32 * 1_299_709;
            // First half: larger messages and frequent releases (buffer classes run out and fall
            // back); second half: mostly single-page messages and rare releases (IDs run out).
            let large = cycle < cycles / 2;
            let own_len = 1 + (if large || h % 5 == 0 { h % 12_000 } else { h % 900 }) as u16;
            let msg_len = match rng.gen_range(0..40) {
                0 => 0,
                1 => 40_000,
                2 => rng.gen_range(20 * 1024..38 * 1024),
                _ => own_len,
            };
            let pkts = (msg_len as u64).div_ceil(1024).max(1);
            let pkt_offset = if rng.gen_bool(0.02) { pkts as u8 + 2 } else { rng.gen_range(0..pkts) as u8 };
            RxRequest { mark_received: rng.gen_bool(0.9), src_ip: ip, src_port: 3, tx_msg_id: tx, msg_len, pkt_offset }
        });
        let live = model.live();
        let release = (rng.gen_bool(if cycle < cycles / 2 { 0.15 } else { 0.04 }) && !live.is_empty()).then(|| (live[rng.gen_range(0..live.len())], rng.gen_bool(0.5)));
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
    // Let the last operation finish (its counters update in its second cycle).
    for _ in 0..3 {
        if let Some(got) = t.cycle(None, None, false).response {
            assert_eq!(Some(got), expected.pop_front());
        }
    }
    assert!(expected.is_empty());
    let g = |n: &str| t.m.get(t.m.port_or_panic(n));
    let c = model.counters;
    let pairs = [
        ("fail_zero_len_count", c.fail_zero_len), ("fail_too_long_count", c.fail_too_long), ("fail_bad_offset_count", c.fail_bad_offset),
        ("fail_len_mismatch_count", c.fail_len_mismatch), ("fail_no_id_count", c.fail_no_id), ("fail_no_buffer_count", c.fail_no_buffer),
        ("fail_bucket_full_count", model.fail_bucket_full), ("duplicate_count", c.duplicate), ("recent_duplicate_count", c.recent_duplicate),
        ("class_fallback_count", c.class_fallback),
    ];
    for (name, want) in pairs {
        assert_eq!(g(name), want, "{name}");
    }
    println!("{cycles} cycles: {requests} requests, {allocations} allocations, {fails} fails; counters {pairs:?}");
    assert!(pairs.iter().all(|(_, n)| *n > 0), "every outcome exercised");
}
