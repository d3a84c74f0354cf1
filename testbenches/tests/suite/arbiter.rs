//! Egress arbiter (hdl/nic/arbiter.rs) on the Verilator model of its generated Verilog: packet
//! granularity, the control-burst bound N (tight, for several N) under random traffic and
//! backpressure, and the native-vs-Verilator lockstep.

use nanotransport_hdl::nic::arbiter::Arbiter;
use nanotransport_sim::cosim::lockstep::{expect_agreement, run_lockstep};
use nanotransport_sim::cosim::stimulus::{Drive, Stimulus};
use nanotransport_sim::cosim::verilated::VerilatedModel;
use nanotransport_testbenches::seed;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;

const MODEL: &str = "nt_blocks_16_arbiter";

/// A packet: its source tag in the data word's top byte, sequence number and beat index below.
fn packet(src: u64, seq: u64, beats: u64) -> Vec<u64> {
    (0..beats).map(|b| (src << 56) | (seq << 16) | b).collect()
}

struct Source {
    packets: VecDeque<Vec<u64>>,
    beat: usize,
    next_seq: u64,
}

impl Source {
    fn head(&self) -> Option<(u64, bool)> {
        self.packets.front().map(|p| (p[self.beat], self.beat + 1 == p.len()))
    }
    fn pop_beat(&mut self) {
        let len = self.packets.front().unwrap().len();
        self.beat += 1;
        if self.beat == len {
            self.packets.pop_front();
            self.beat = 0;
        }
    }
}

/// Runs random traffic; returns (max consecutive control packets granted while data waited,
/// max consecutive data packets granted while control waited, packets).
fn run(limit: u64, cycles: u64, always_busy: bool, default_seed: u64) -> (u64, u64, u64) {
    let seed = seed(&format!("arbiter N={limit} saturated={always_busy}"), default_seed);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut m = VerilatedModel::new(MODEL).unwrap();
    let p = |m: &VerilatedModel, n: &str| m.port_or_panic(n);
    let (rst, lim) = (p(&m, "reset"), p(&m, "ctrl_burst_limit"));
    let names = ["ctrl", "data"];
    let tdata: Vec<_> = names.iter().map(|s| p(&m, &format!("s_axis_{s}$tdata"))).collect();
    let tlast: Vec<_> = names.iter().map(|s| p(&m, &format!("s_axis_{s}$tlast"))).collect();
    let tvalid: Vec<_> = names.iter().map(|s| p(&m, &format!("s_axis_{s}$tvalid"))).collect();
    let tready: Vec<_> = names.iter().map(|s| p(&m, &format!("s_axis_{s}$tready"))).collect();
    let offs: Vec<_> = names.iter().map(|s| p(&m, &format!("s_axis_{s}$pkt_offset"))).collect();
    let (o_data, o_last, o_valid, o_ready, o_off) =
        (p(&m, "m_axis$tdata"), p(&m, "m_axis$tlast"), p(&m, "m_axis$tvalid"), p(&m, "m_axis$tready"), p(&m, "m_axis$pkt_offset"));
    m.set(rst, 1);
    m.tick();
    m.set(rst, 0);
    m.set(lim, limit);
    let mut src = [Source { packets: VecDeque::new(), beat: 0, next_seq: 0 }, Source { packets: VecDeque::new(), beat: 0, next_seq: 0 }];
    let mut expect_seq = [0u64; 2];
    let mut current: Option<u64> = None;
    let mut shown_pending = [false; 2];
    let mut stalled_beat: Option<(u64, u64, u64)> = None;
    let mut stalled_checks = 0u64;
    let (mut ctrl_run, mut data_run, mut max_ctrl_run, mut max_data_run, mut packets) = (0, 0, 0, 0, 0);
    for _ in 0..cycles {
        for (k, s) in src.iter_mut().enumerate() {
            let want = if always_busy { s.packets.len() < 2 } else { rng.gen_bool(0.15) };
            if want && s.packets.len() < 8 {
                let beats = if k == 0 { 1 } else { rng.gen_range(1..6) };
                s.packets.push_back(packet(k as u64, s.next_seq, beats));
                s.next_seq += 1;
            }
        }
        let mut valid = [false; 2];
        for k in 0..2 {
            // AXI4-Stream sources: a gap only where no shown beat is still waiting for its handshake.
            let gap = !always_busy && !shown_pending[k] && rng.gen_bool(0.1);
            match src[k].head().filter(|_| !gap) {
                Some((w, last)) => {
                    valid[k] = true;
                    m.set(tdata[k], w);
                    m.set(tlast[k], last as u64);
                    m.set(offs[k], (w & 0xff) as u64);
                }
                None => m.set(tdata[k], 0),
            }
            m.set(tvalid[k], valid[k] as u64);
        }
        let ready = always_busy || rng.gen_bool(0.7);
        m.set(o_ready, ready as u64);
        m.eval();
        // A beat shown without a handshake must be shown unchanged in the next cycle.
        let shown = (m.get(o_valid) == 1).then(|| (m.get(o_data), m.get(o_last), m.get(o_off)));
        if let Some(stalled) = stalled_beat.take() {
            assert_eq!(shown, Some(stalled), "a shown output beat changed or vanished before its handshake");
            stalled_checks += 1;
        }
        if !ready {
            stalled_beat = shown;
        }
        for k in 0..2 {
            shown_pending[k] = valid[k] && m.get(tready[k]) == 0;
        }
        if m.get(o_valid) == 1 && ready {
            let w = m.get(o_data);
            let k = (w >> 56) as usize;
            assert_eq!(m.get(o_off), w & 0xff, "metadata travels with its beat");
            assert_eq!(m.get(tready[k]), 1);
            assert_eq!(m.get(tready[1 - k]), 0);
            match current {
                Some(c) => assert_eq!(c, k as u64, "a packet from the other source was interleaved"),
                None => {
                    // First beat of a packet: check order and the bounds.
                    assert_eq!((w >> 16) & 0xffff_ffff, expect_seq[k], "packets of one source in order");
                    expect_seq[k] += 1;
                    packets += 1;
                    if k == 0 {
                        data_run = 0;
                        ctrl_run = if valid[1] { ctrl_run + 1 } else { 0 };
                        max_ctrl_run = max_ctrl_run.max(ctrl_run);
                    } else {
                        ctrl_run = 0;
                        data_run = if valid[0] { data_run + 1 } else { 0 };
                        max_data_run = max_data_run.max(data_run);
                    }
                }
            }
            assert_eq!(m.get(o_last), (src[k].head().unwrap().1) as u64);
            current = if m.get(o_last) == 1 { None } else { Some(k as u64) };
            src[k].pop_beat();
        } else {
            for k in 0..2 {
                assert!(!(valid[k] && m.get(tready[k]) == 1), "no beat taken without an output handshake");
            }
        }
        m.tick();
    }
    println!("arbiter N={limit}: {packets} packets; longest control run while data waited {max_ctrl_run}, longest data run while control waited {max_data_run}; {stalled_checks} stalled beats held unchanged");
    if !always_busy {
        assert!(stalled_checks > 1_000, "the random run must stall shown beats");
    }
    (max_ctrl_run, max_data_run, packets)
}

#[test]
fn control_burst_bound_holds_and_is_tight() {
    for (limit, seed) in [(1u64, 91u64), (2, 92), (4, 93), (8, 94)] {
        // Both sources always busy: exactly N control packets, then one data packet.
        let (ctrl, data, _) = run(limit, 5_000, true, seed);
        assert_eq!((ctrl, data), (limit, 1), "saturated: the bound N is reached and never exceeded");
        // Random arrivals, gaps and backpressure: the bounds hold.
        let (ctrl, data, packets) = run(limit, 30_000, false, seed + 100);
        assert!(ctrl <= limit && data <= 1 && packets > 1_000);
    }
}

#[test]
fn limit_zero_is_taken_as_one() {
    let (ctrl, data, _) = run(0, 2_000, true, 95);
    assert_eq!((ctrl, data), (1, 1));
}

#[test]
fn lockstep_native_against_verilator() {
    let seed = seed(MODEL, 96);
    let stimulus = Stimulus::new()
        .drive("reset", Drive::Bernoulli(0.002))
        .drive("ctrl_burst_limit", Drive::Range(0, 4))
        .drive("s_axis_ctrl$tvalid", Drive::Bernoulli(0.5))
        .drive("s_axis_ctrl$tlast", Drive::Bernoulli(0.6))
        .drive("s_axis_data$tvalid", Drive::Bernoulli(0.5))
        .drive("s_axis_data$tlast", Drive::Bernoulli(0.3))
        .drive("m_axis$tready", Drive::Bernoulli(0.7));
    expect_agreement(run_lockstep::<Arbiter>(MODEL, &stimulus, 10_000, seed));
}
