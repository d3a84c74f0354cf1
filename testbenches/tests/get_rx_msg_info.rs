//! GetRxMsgInfo on the Verilator model of its generated Verilog: scenario tests (responses,
//! back-to-back coherence, every fail reason, exhaustion, size-class fallback, recently
//! completed) and a long random run against the reference model (sim/model/rx.rs).

use nanotransport_hdl::nic::get_rx_msg_info::{fail_reason, DEFAULT_SIZE_CLASSES, RECENT_DEPTH, RX_MESSAGES};
use nanotransport_sim::cosim::verilated::{PortId, VerilatedModel};
use nanotransport_sim::model::rx::{RxModel, RxRequest, RxResponse};
use nanotransport_testbenches::seed;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const REQ: [&str; 8] = [
    "req_valid", "req_mark_received", "req_src_ip", "req_src_port", "req_tx_msg_id", "req_msg_len", "req_pkt_offset", "reset",
];
const REL: [&str; 3] = ["release_valid", "release_slot", "release_delivered"];
const RESP: [&str; 8] = [
    "resp_valid", "resp_fail", "resp_fail_reason", "resp_rx_msg_id", "resp_is_new_msg", "resp_is_new_pkt", "resp_is_last_pkt", "resp_ack_no",
];
const COUNTERS: [&str; 9] = [
    "fail_zero_len_count", "fail_too_long_count", "fail_bad_offset_count", "fail_len_mismatch_count", "fail_no_id_count",
    "fail_no_buffer_count", "duplicate_count", "recent_duplicate_count", "class_fallback_count",
];

struct Table {
    m: VerilatedModel,
    req: Vec<PortId>,
    rel: Vec<PortId>,
    resp: Vec<PortId>,
}

impl Table {
    fn new() -> Self {
        let m = VerilatedModel::new("nt_nic_16_get_rx_msg_info").unwrap();
        let p = |names: &[&str]| names.iter().map(|n| m.port_or_panic(n)).collect::<Vec<_>>();
        let (req, rel, resp) = (p(&REQ), p(&REL), p(&RESP));
        let mut t = Table { m, req, rel, resp };
        t.cycle(None, None, true);
        t
    }

    /// One cycle: drive a request and/or a release, return the response visible in this cycle
    /// (to the previous cycle's request), then clock.
    fn cycle(&mut self, req: Option<&RxRequest>, release: Option<(usize, bool)>, reset: bool) -> Option<RxResponse> {
        let r = req.copied().unwrap_or_default();
        let vals = [
            req.is_some() as u64, r.mark_received as u64, r.src_ip as u64, r.src_port as u64, r.tx_msg_id as u64, r.msg_len as u64,
            r.pkt_offset as u64, reset as u64,
        ];
        for (p, v) in self.req.iter().zip(vals) {
            self.m.set(*p, v);
        }
        let (slot, delivered) = release.unwrap_or((0, false));
        self.m.set(self.rel[0], release.is_some() as u64);
        self.m.set(self.rel[1], slot as u64);
        self.m.set(self.rel[2], delivered as u64);
        self.m.eval();
        let g = |i: usize| self.m.get(self.resp[i]);
        let resp = (g(0) == 1).then(|| RxResponse {
            fail: g(1) == 1,
            fail_reason: g(2) as u8,
            rx_msg_id: g(3) as u16,
            is_new_msg: g(4) == 1,
            is_new_pkt: g(5) == 1,
            is_last_pkt: g(6) == 1,
            ack_no: g(7) as u16,
        });
        self.m.tick();
        resp
    }

    /// A request followed by an idle cycle: its response.
    fn call(&mut self, req: &RxRequest) -> RxResponse {
        self.cycle(Some(req), None, false);
        self.cycle(None, None, false).expect("a response one cycle after the request")
    }

    fn counter(&self, name: &str) -> u64 {
        self.m.get(self.m.port_or_panic(name))
    }
}

fn req(ip: u32, port: u16, tx: u16, len: u16, off: u8) -> RxRequest {
    RxRequest { mark_received: true, src_ip: ip, src_port: port, tx_msg_id: tx, msg_len: len, pkt_offset: off }
}

#[test]
fn out_of_order_packets_ack_no_and_last_packet() {
    let mut t = Table::new();
    let r = t.call(&req(10, 1, 7, 3000, 2));
    assert!(!r.fail && r.is_new_msg && r.is_new_pkt && !r.is_last_pkt, "{r:?}");
    assert_eq!(r.ack_no, 0);
    let id = r.rx_msg_id;
    assert_eq!(id & 0xf000, 0);
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

#[test]
fn same_tx_msg_id_from_two_senders_never_shares_an_entry() {
    let mut t = Table::new();
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

#[test]
fn back_to_back_requests_see_each_other() {
    let mut t = Table::new();
    // Three requests in consecutive cycles for one new message, then one for another.
    let reqs = [req(1, 1, 1, 3072, 1), req(1, 1, 1, 3072, 1), req(1, 1, 1, 3072, 0), req(1, 1, 1, 3072, 2)];
    let mut resps = Vec::new();
    for r in &reqs {
        resps.extend(t.cycle(Some(r), None, false));
    }
    resps.extend(t.cycle(None, None, false));
    assert_eq!(resps.len(), 4, "one response per cycle, one cycle after each request");
    assert!(resps[0].is_new_msg && resps[0].is_new_pkt);
    assert!(!resps[1].is_new_msg && !resps[1].is_new_pkt, "second call sees the first one's allocation and bit");
    assert_eq!((resps[2].is_new_pkt, resps[2].ack_no), (true, 2));
    assert_eq!((resps[3].is_new_pkt, resps[3].is_last_pkt, resps[3].ack_no), (true, true, 3));
    assert!(resps.iter().all(|r| r.rx_msg_id == resps[0].rx_msg_id));
}

#[test]
fn every_fail_reason_is_reported_and_counted() {
    let mut t = Table::new();
    assert_eq!(t.call(&req(1, 1, 1, 0, 0)).fail_reason as u64, fail_reason::ZERO_LEN);
    assert_eq!(t.call(&req(1, 1, 1, 38 * 1024 + 1, 0)).fail_reason as u64, fail_reason::TOO_LONG);
    assert_eq!(t.call(&req(1, 1, 1, 2048, 2)).fail_reason as u64, fail_reason::BAD_OFFSET);
    let ok = t.call(&req(1, 1, 1, 2048, 0));
    assert!(!ok.fail);
    assert_eq!(t.call(&req(1, 1, 1, 2048, 5)).fail_reason as u64, fail_reason::BAD_OFFSET);
    assert_eq!(t.call(&req(1, 1, 1, 2000, 1)).fail_reason as u64, fail_reason::LEN_MISMATCH);
    // Four maximum-size messages take the 38-page class; a fifth has nowhere to go.
    for tx in 10..14 {
        let r = t.call(&req(2, 1, tx, 38 * 1024, 0));
        assert!(!r.fail, "{r:?}");
    }
    let r = t.call(&req(2, 1, 14, 38 * 1024, 0));
    assert!(r.fail && r.fail_reason as u64 == fail_reason::NO_BUFFER, "{r:?}");
    assert_eq!(r.rx_msg_id, 0x8000);
    // Fill the remaining IDs with single-packet messages; the 17th message fails for lack of an ID.
    for tx in 20..31 {
        assert!(!t.call(&req(3, 1, tx, 100, 0)).fail);
    }
    let r = t.call(&req(3, 1, 31, 100, 0));
    assert_eq!((r.fail, r.fail_reason as u64), (true, fail_reason::NO_ID));
    let counts: Vec<u64> = COUNTERS.iter().map(|c| t.counter(c)).collect();
    println!("counters after the fail-reason scenario: {:?}", COUNTERS.iter().zip(&counts).collect::<Vec<_>>());
    assert_eq!(&counts[..6], &[1, 1, 2, 1, 1, 1]);
}

#[test]
fn exhausted_class_falls_back_to_a_larger_one() {
    let mut t = Table::new();
    // 16 single-page buffers: the 17th single-packet message would need an ID too, so use
    // 2-page messages to exhaust the 4-page class (8 buffers) and see the fallback to 8 pages.
    for tx in 0..8 {
        assert!(!t.call(&req(1, 1, tx, 2048, 0)).fail);
    }
    assert_eq!(t.counter("class_fallback_count"), 0);
    assert!(!t.call(&req(1, 1, 8, 2048, 0)).fail);
    assert_eq!(t.counter("class_fallback_count"), 1);
}

#[test]
fn released_delivered_message_is_reported_as_a_duplicate() {
    let mut t = Table::new();
    let r = t.call(&req(9, 9, 9, 500, 0));
    let slot = (r.rx_msg_id & 0xf) as usize;
    // Release as delivered in the same cycle as a retransmission arrives.
    t.cycle(Some(&req(9, 9, 9, 500, 0)), Some((slot, true)), false);
    let r = t.cycle(None, None, false).unwrap();
    assert_eq!((r.fail, r.is_new_msg, r.is_new_pkt, r.is_last_pkt, r.ack_no, r.rx_msg_id), (false, false, false, true, 1, 0x8000));
    let r = t.call(&req(9, 9, 9, 500, 0));
    assert!(!r.is_new_pkt && r.rx_msg_id == 0x8000);
    assert_eq!(t.counter("recent_duplicate_count"), 2);
    // A garbage-collected (not delivered) message starts afresh with a new generation.
    let a = t.call(&req(8, 8, 8, 500, 0));
    t.cycle(None, Some(((a.rx_msg_id & 0xf) as usize, false)), false);
    let b = t.call(&req(8, 8, 8, 500, 0));
    assert!(b.is_new_msg && b.rx_msg_id != a.rx_msg_id && (b.rx_msg_id & 0xf) == (a.rx_msg_id & 0xf));
    assert!(t.m.get(t.m.port_or_panic("free_lists_full")) != 0x1f);
}

/// Random traffic from a small key space (hits, misses, exhaustion, recent duplicates) with
/// random releases, against the reference model: every response equal, counters equal.
#[test]
fn random_requests_and_releases_match_the_reference_model() {
    let seed = seed("get_rx_msg_info random", 301);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut t = Table::new();
    let mut model = RxModel::new(DEFAULT_SIZE_CLASSES, u64::MAX / 2, RX_MESSAGES, RECENT_DEPTH);
    let mut expected: Option<RxResponse> = None;
    let mut live: Vec<usize> = Vec::new();
    let cycles = 200_000u64;
    let (mut new_msgs, mut fails, mut dups) = (0u64, 0u64, 0u64);
    for cycle in 0..cycles {
        let request = rng.gen_bool(0.7).then(|| {
            let (src_ip, src_port, tx_msg_id) = (rng.gen_range(0..12u32), rng.gen_range(0..2u16), rng.gen_range(0..8u16));
            // Each key has its own message length most of the time (a sender keeps msg_len).
            let own_len = 1 + ((src_ip * 7919 + src_port as u32 * 104_729 + tx_msg_id as u32 * 1_299_709) % 9000) as u16;
            let msg_len = match rng.gen_range(0..40) {
                0 => 0,
                1 => rng.gen_range(38 * 1024..40 * 1024),
                2 => rng.gen_range(1..=12 * 1024),
                3 => rng.gen_range(20 * 1024..38 * 1024),
                _ => own_len,
            };
            let pkts = (msg_len as u64).div_ceil(1024).max(1);
            let pkt_offset = if rng.gen_bool(0.05) { rng.gen_range(0..40) } else { rng.gen_range(0..pkts) as u8 };
            RxRequest { mark_received: rng.gen_bool(0.85), src_ip, src_port, tx_msg_id, msg_len, pkt_offset }
        });
        // Releases only of slots the model holds (the hardware's other blocks never release a
        // free slot; the table ignores such a release anyway).
        let release = (rng.gen_bool(0.12) && !live.is_empty()).then(|| {
            let i = rng.gen_range(0..live.len());
            (live.swap_remove(i), rng.gen_bool(0.5))
        });
        if let Some((slot, delivered)) = release {
            model.release_table(slot, delivered);
        }
        let want = request.map(|r| model.request(&r, cycle));
        let got = t.cycle(request.as_ref(), release, false);
        assert_eq!(got, expected, "cycle {cycle}: response (seed {seed})");
        if let Some(w) = want {
            new_msgs += w.is_new_msg as u64;
            fails += w.fail as u64;
            dups += (!w.fail && !w.is_new_pkt) as u64;
            if w.is_new_msg {
                live.push((w.rx_msg_id & 0xf) as usize);
            }
        }
        expected = want;
        model.end_cycle();
    }
    let c = model.counters;
    let want = [
        c.fail_zero_len, c.fail_too_long, c.fail_bad_offset, c.fail_len_mismatch, c.fail_no_id, c.fail_no_buffer, c.duplicate,
        c.recent_duplicate, c.class_fallback,
    ];
    for (name, w) in COUNTERS.iter().zip(want) {
        assert_eq!(t.counter(name), w, "{name}");
    }
    println!("{cycles} cycles: {new_msgs} allocations, {fails} fails, {dups} duplicates; counters {c:?}");
    assert!(new_msgs > 1000 && fails > 1000 && dups > 1000 && want.iter().all(|&n| n > 0), "a run that exercises every outcome");
}
