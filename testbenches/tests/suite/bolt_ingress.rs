//! Bolt switch ingress (thesis Algorithms 7 and 9) on the Verilator models of its generated
//! Verilog: lockstep against rust-hdl, a differential test against the reference model on random
//! traces, and scenario tests that read like the thesis.

use nanotransport_hdl::configs::find_switch_config;
use nanotransport_hdl::switch::bolt_header::*;
use nanotransport_hdl::switch::bolt_ingress::{BoltIngress, BoltParams, TOKEN_BIAS};
use nanotransport_reference::bolt::{BoltCounts, BoltModel, Decision, Descriptor};
use nanotransport_sim::cosim::bolt_ingress_dut::{BoltIngressDut, HwDecision, BOLT_INGRESS_LATENCY};
use nanotransport_sim::cosim::lockstep::{expect_agreement, run_lockstep_with};
use nanotransport_sim::cosim::native::NativeStepper;
use nanotransport_sim::cosim::stimulus::{Drive, Stimulus};
use nanotransport_testbenches::seed;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const MUL: &str = "nt_bolt_ingress_64p_bolt_ingress";
const LUT: &str = "nt_bolt_ingress_64p_lut_bolt_ingress";
const MTU: u32 = 1088;

fn params(config: &str) -> BoltParams {
    find_switch_config(config).unwrap().bolt_params().unwrap()
}

fn data(flags: u8, egress: u8, ingress: u8, queue: u32, now: u32) -> Descriptor {
    Descriptor {
        bolt: true,
        flags: FLAG_DATA | flags,
        pkt_len: MTU as u16,
        ingress_port: ingress,
        egress_port: egress,
        queue_bytes: queue,
        now,
    }
}

fn token(d: &HwDecision) -> i64 {
    d.supply_token_stored as i64 - TOKEN_BIAS
}

// ---------------------------------------------------------------- lockstep

fn lockstep(config: &str, model: &str, stimulus: Stimulus, cycles: u64, default_seed: u64) {
    let seed = seed(&format!("{model} lockstep"), default_seed);
    let native = NativeStepper::new(BoltIngress::<64, 6>::new(params(config)));
    expect_agreement(run_lockstep_with(native, model, &stimulus, cycles, seed));
}

/// Few ports (many back-to-back packets to the same port), some out of range, a slow clock.
fn stimulus_dense_ports() -> Stimulus {
    Stimulus::new()
        .drive("reset", Drive::Bernoulli(0.0005))
        .drive("now", Drive::Counter { start: 0xffff_f000, step: 37 })
        .drive("in_valid", Drive::Bernoulli(0.9))
        .drive("in_bolt", Drive::Bernoulli(0.95))
        .drive("in_pkt_len", Drive::Range(60, 1100))
        .drive("in_egress_port", Drive::Range(61, 65))
        .drive("in_queue_bytes", Drive::Range(0, 2 * MTU as u64))
        .drive("cfg_mtu", Drive::Range(60, 9000))
        .drive("cfg_cc_thresh", Drive::Range(0, 2 * MTU as u64))
        .drive("cfg_pru_enable", Drive::Bernoulli(0.8))
        .drive("cfg_sm_enable", Drive::Bernoulli(0.8))
}

/// Every input uniform: random times (mostly long gaps), ports, occupancies.
fn stimulus_uniform() -> Stimulus {
    Stimulus::new().drive("reset", Drive::Bernoulli(0.0005)).drive("in_valid", Drive::Bernoulli(0.9))
}

#[test]
fn lockstep_multiplier() {
    lockstep("bolt-ingress-64p", MUL, stimulus_dense_ports(), 10_000, 701);
    lockstep("bolt-ingress-64p", MUL, stimulus_uniform(), 5_000, 702);
}

#[test]
fn lockstep_table() {
    lockstep("bolt-ingress-64p-lut", LUT, stimulus_dense_ports(), 10_000, 703);
    lockstep("bolt-ingress-64p-lut", LUT, stimulus_uniform(), 5_000, 704);
}

// ---------------------------------------------------------------- differential test

/// Random traffic: phases of uniform ports, bursts to one port, floods (one port, no time
/// passing), idle gaps beyond 65 536 ns and the 65 535 / 65 536 boundary, a time counter that
/// wraps several times; a few non-data, non-Bolt and out-of-range packets; occupancies around
/// CC_THRESH and above 2^24 − 1.
struct TraceGen {
    rng: ChaCha8Rng,
    now: u32,
    phase: u8,
    phase_left: u32,
    hot_port: u8,
    wraps: u32,
    long_gaps: u32,
}

impl TraceGen {
    fn new(seed: u64) -> Self {
        TraceGen {
            rng: ChaCha8Rng::seed_from_u64(seed),
            now: u32::MAX - 3_000_000,
            phase: 0,
            phase_left: 0,
            hot_port: 0,
            wraps: 0,
            long_gaps: 0,
        }
    }

    /// Idle cycles before the next descriptor, and the descriptor.
    fn next(&mut self) -> (u32, Descriptor) {
        let r = &mut self.rng;
        if self.phase_left == 0 {
            self.phase = match r.gen_range(0..100) {
                0..=49 => 0,  // uniform ports
                50..=84 => 1, // burst to one port
                85..=94 => 2, // idle gaps
                _ => 3,       // flood: one port, no time passing
            };
            self.phase_left = match self.phase {
                0 => r.gen_range(50..2000),
                1 => r.gen_range(20..600),
                2 => r.gen_range(5..40),
                _ => r.gen_range(1000..9000),
            };
            self.hot_port = r.gen_range(0..64);
        }
        self.phase_left -= 1;
        let (port, dt): (u8, u32) = match self.phase {
            0 => (
                r.gen_range(0..64),
                match r.gen_range(0..100) {
                    0..=19 => 0,
                    20..=79 => r.gen_range(1..120),
                    80..=96 => r.gen_range(120..3000),
                    97..=98 => r.gen_range(65_536..1_000_000),
                    _ => r.gen_range(1_000_000..0x8000_0000),
                },
            ),
            1 => (self.hot_port, r.gen_range(0..100)),
            2 => (
                if r.gen_bool(0.5) { self.hot_port } else { r.gen_range(0..64) },
                match r.gen_range(0..4) {
                    0 => 65_535,
                    1 => 65_536,
                    2 => r.gen_range(60_000..70_000),
                    _ => r.gen_range(65_536..100_000_000),
                },
            ),
            _ => (self.hot_port, 0),
        };
        if dt >= 65_536 {
            self.long_gaps += 1;
        }
        let (next_now, wrapped) = self.now.overflowing_add(dt);
        self.now = next_now;
        self.wraps += wrapped as u32;
        let mut flags = 0u8;
        let kind = r.gen_range(0..1000);
        if kind >= 40 {
            flags |= FLAG_DATA;
        } else {
            flags |= [FLAG_ACK, FLAG_SRC, 0][r.gen_range(0..3)];
        }
        for (flag, p) in [(FLAG_LAST, 0.2), (FLAG_FIRST, 0.3), (FLAG_INC, 0.5), (FLAG_DEC, 0.2), (FLAG_RESERVED, 0.05)] {
            if r.gen_bool(p) {
                flags |= flag;
            }
        }
        let queue = match r.gen_range(0..100) {
            0..=54 => r.gen_range(0..MTU),
            55..=94 => r.gen_range(MTU..200_000),
            95..=97 => [MTU - 1, MTU][r.gen_range(0..2)],
            _ => r.gen_range(Q_SIZE_MAX - 2..=u32::MAX),
        };
        let egress = if r.gen_bool(0.01) { r.gen_range(64..=255) } else { port };
        let pkt_len = if self.phase == 3 { MTU as u16 } else { r.gen_range(60..=MTU as u16 + 4) };
        let d = Descriptor {
            bolt: !r.gen_bool(0.02),
            flags,
            pkt_len,
            ingress_port: r.gen_range(0..64),
            egress_port: egress,
            queue_bytes: queue,
            now: self.now,
        };
        let idle = if r.gen_bool(0.7) { 0 } else { r.gen_range(1..4) };
        (idle, d)
    }
}

/// What the differential run saw.
#[derive(Debug, Default)]
struct DiffStats {
    packets: u64,
    data: u64,
    inc_cleared: u64,
    token_at_floor: u64,
    token_at_cap: u64,
    same_port_back_to_back: u64,
    decisions: Vec<HwDecision>,
    counts: BoltCounts,
}

fn check(d: &Descriptor, hw: &HwDecision, m: &Decision, i: u64, seed: u64) {
    let ctx = || format!("packet {i} (seed {seed}): {d:?}\n  hardware {hw:?}\n  model    {m:?}");
    assert_eq!(hw.drop, m.drop, "drop: {}", ctx());
    assert_eq!((hw.ingress_port, hw.egress_port, hw.pkt_len), (d.ingress_port, d.egress_port, d.pkt_len), "{}", ctx());
    if m.drop {
        return;
    }
    assert_eq!(hw.flags, m.flags, "flags: {}", ctx());
    assert_eq!(hw.src, m.src, "SRC: {}", ctx());
    assert_eq!(hw.q_size, m.q_size, "q_size: {}", ctx());
    assert_eq!(hw.link_rate, m.link_rate, "link_rate: {}", ctx());
    assert_eq!(hw.pru_token, m.pru_token, "PRU token: {}", ctx());
    let is_data = d.bolt && d.flags & FLAG_DATA != 0;
    assert_eq!(hw.supply_token_stored, m.supply_token_stored(is_data), "supply token: {}", ctx());
}

fn differential(model: &str, config: &str, packets: u64, seed: u64) -> DiffStats {
    differential_with(model, params(config), packets, seed)
}

/// The differential test with the configuration inputs driven from `params` (PRU and SM on or
/// off); the branch coverage asked of the run follows them.
fn differential_with(model: &str, params: BoltParams, packets: u64, seed: u64) -> DiffStats {
    let mut gen = TraceGen::new(seed);
    let mut dut = BoltIngressDut::with_config(model, &params).unwrap();
    let (pru, sm) = (params.pru, params.sm);
    let mut reference = BoltModel::new(params);
    let mut in_flight: std::collections::VecDeque<(u64, Descriptor, Decision)> = Default::default();
    let mut stats = DiffStats::default();
    let mut last_port = None;
    let mut cycle_of_last = 0u64;
    let take = |hw: Option<HwDecision>,
                cycle: u64,
                in_flight: &mut std::collections::VecDeque<(u64, Descriptor, Decision)>,
                stats: &mut DiffStats| {
        if let Some(hw) = hw {
            let (sent, d, m) = in_flight.pop_front().expect("a decision without a descriptor");
            assert_eq!(cycle - sent, BOLT_INGRESS_LATENCY, "latency");
            check(&d, &hw, &m, stats.decisions.len() as u64, seed);
            stats.decisions.push(hw);
        }
    };
    for i in 0..packets {
        let (idle, d) = gen.next();
        for _ in 0..idle {
            let c = dut.cycle;
            let hw = dut.step(None, d.now, false);
            take(hw, c, &mut in_flight, &mut stats);
        }
        let m = reference.ingress(&d);
        let is_data = d.bolt && d.flags & FLAG_DATA != 0 && !m.drop;
        if is_data {
            stats.data += 1;
            stats.inc_cleared += (d.flags & FLAG_INC != 0 && m.flags & FLAG_INC == 0 && !m.src) as u64;
            stats.token_at_floor += (m.supply_token == -(1 << 23)) as u64;
            stats.token_at_cap += (m.supply_token == MTU as i32) as u64;
            if last_port == Some(d.egress_port) && dut.cycle == cycle_of_last + 1 {
                stats.same_port_back_to_back += 1;
            }
            last_port = Some(d.egress_port);
            cycle_of_last = dut.cycle;
        }
        in_flight.push_back((dut.cycle, d, m));
        let c = dut.cycle;
        let hw = dut.step(Some(&d), d.now, false);
        take(hw, c, &mut in_flight, &mut stats);
        stats.packets = i + 1;
    }
    for _ in 0..BOLT_INGRESS_LATENCY {
        let c = dut.cycle;
        let hw = dut.step(None, gen.now, false);
        take(hw, c, &mut in_flight, &mut stats);
    }
    assert!(in_flight.is_empty());
    assert_eq!(stats.decisions.len() as u64, packets);
    stats.counts = dut.counts();
    assert_eq!(stats.counts, reference.counts, "counters");
    println!(
        "{model}: {} packets ({} data, {} back-to-back to the same port), {} time wraps, {} gaps ≥ 65 536 ns, {} cycles",
        stats.packets, stats.data, stats.same_port_back_to_back, gen.wraps, gen.long_gaps, dut.cycle
    );
    let c = &stats.counts;
    println!(
        "{model}: SRCs {}, PRU tokens created {}, PRU tokens consumed {}, supply-token grants {}, INC cleared {}, \
         supply token at cap {} / at floor {} times, bad port {}, not Bolt {}",
        c.src,
        c.pru_token,
        c.pru_grant,
        c.supply_grant,
        stats.inc_cleared,
        stats.token_at_cap,
        stats.token_at_floor,
        c.bad_port,
        c.not_bolt
    );
    // The run must have exercised every branch, or it proves little.
    assert!(gen.wraps >= 2 && gen.long_gaps > 100 && stats.same_port_back_to_back > 10_000);
    assert!(c.src > 1000);
    assert!(if pru { c.pru_token > 1000 && c.pru_grant > 1000 } else { c.pru_token == 0 && c.pru_grant == 0 });
    assert!(if sm { c.supply_grant > 1000 } else { c.supply_grant == 0 });
    assert!(stats.inc_cleared > 1000 && stats.token_at_floor > 0 && c.bad_port > 100 && c.not_bolt > 100);
    stats
}

/// The same ≥ 100 000-packet trace through both supply implementations: every decision equals
/// the reference model's, so the two give identical decisions.
#[test]
fn differential_against_the_reference_model_both_supply_modes() {
    let seed = seed("bolt ingress differential", 7_001);
    let packets = 120_000;
    let mul = differential(MUL, "bolt-ingress-64p", packets, seed);
    let lut = differential(LUT, "bolt-ingress-64p-lut", packets, seed);
    assert_eq!(mul.decisions, lut.decisions, "multiplier and table disagree");
    assert_eq!(mul.counts, lut.counts);
    println!("multiplier and table: {} identical decisions", mul.decisions.len());
}

/// The configuration inputs: PRU off, SM off, both off (the thesis' ablations) on the same trace;
/// every decision equals the reference model's under the same configuration, and switching a
/// mechanism off changes decisions.
#[test]
fn differential_with_pru_or_supply_matching_off() {
    let seed = seed("bolt ingress differential ablations", 7_002);
    let packets = 120_000;
    let on = differential_with(MUL, params("bolt-ingress-64p"), packets, seed);
    for (pru, sm) in [(false, true), (true, false), (false, false)] {
        let off = differential_with(MUL, BoltParams { pru, sm, ..params("bolt-ingress-64p") }, packets, seed);
        assert_ne!(on.decisions, off.decisions, "PRU {pru}, SM {sm}: no decision changed");
    }
}

/// MTU and CC_THRESH come from the configuration inputs: with 5 000 and 10 000 bytes (Table 4.1's
/// setup) a port is congested from 10 000 queued bytes, and a supply grant needs and costs 5 000.
#[test]
fn mtu_and_cc_thresh_are_inputs() {
    let p = BoltParams { mtu: 5000, cc_thresh: 10_000, ..params("bolt-ingress-64p") };
    let mut dut = BoltIngressDut::with_config(MUL, &p).unwrap();
    let mut reference = BoltModel::new(p);
    let d = |flags: u8, queue: u32, now: u32| Descriptor { pkt_len: 5000, ..data(flags, 3, 1, queue, now) };
    // First packet: the token starts at the cap (5 000) less nothing; 9 999 B queued is not
    // congested; INC takes one MTU of supply; 10 000 B is congested and sends an SRC.
    let trace = [d(FLAG_INC, 9_999, 1000), d(FLAG_INC, 9_999, 1100), d(0, 10_000, 1200)];
    let out = dut.run(&trace);
    for (i, (t, hw)) in trace.iter().zip(&out).enumerate() {
        check(t, hw, &reference.ingress(t), i as u64, 0);
    }
    assert_eq!((out[0].src, out[0].flags & FLAG_INC != 0, token(&out[0])), (false, true, 0));
    assert_eq!((out[1].src, out[1].flags & FLAG_INC != 0), (false, false), "no supply left for a second grant");
    assert!(out[2].src && out[2].flags & FLAG_DEC != 0);
    // The MTU is the grant's price: on a fresh port one grant empties the token, and 200 ns later
    // a 60-byte packet finds 2 440 bytes — refused at MTU 5 000 (granted at 1 088).
    let small = |flags: u8, now: u32| Descriptor { pkt_len: 60, ..data(flags, 4, 1, 0, now) };
    let trace = [small(FLAG_INC, 5000), small(FLAG_INC, 5200)];
    let out = dut.run(&trace);
    for (i, (t, hw)) in trace.iter().zip(&out).enumerate() {
        check(t, hw, &reference.ingress(t), i as u64, 0);
    }
    assert_eq!((token(&out[0]), out[0].flags & FLAG_INC != 0), (0, true));
    assert_eq!((token(&out[1]), out[1].flags & FLAG_INC != 0), (2440, false), "the MTU input was not the price");
}

// ---------------------------------------------------------------- scenarios (thesis §4.3)

fn dut() -> BoltIngressDut {
    BoltIngressDut::new(MUL).unwrap()
}

/// Descriptor in at cycle t, decision out at t + 3; back-to-back descriptors leave back to back.
#[test]
fn latency_three_cycles_and_one_descriptor_per_cycle() {
    let mut dut = dut();
    let start = dut.cycle;
    assert!(dut.step(Some(&data(0, 1, 2, 0, 1000)), 1000, false).is_none());
    let mut seen_at = None;
    for _ in 0..10 {
        let c = dut.cycle;
        if dut.step(None, 1000, false).is_some() {
            seen_at = Some(c - start);
            break;
        }
    }
    println!("bolt ingress: descriptor → decision latency {} cycles", seen_at.unwrap());
    assert_eq!(seen_at, Some(BOLT_INGRESS_LATENCY));
    let descs: Vec<_> = (0..1000).map(|i| data(FLAG_INC, (i % 3) as u8, 0, 0, 2000 + i)).collect();
    let start = dut.cycle;
    let out = dut.run(&descs);
    println!("bolt ingress: {} descriptors back to back → {} decisions in {} cycles", descs.len(), out.len(), dut.cycle - start);
    assert_eq!(out.len(), 1000);
    assert_eq!(dut.cycle - start, 1000 + BOLT_INGRESS_LATENCY);
}

/// §4.3.1: at a congested port every data packet without DEC gets exactly one SRC (and leaves
/// with DEC set and INC cleared); packets that already carry DEC get none; nothing else happens to
/// a packet at a congested port (a LAST packet makes no PRU token there).
#[test]
fn congested_port_answers_each_data_packet_without_dec_with_exactly_one_src() {
    let mut dut = dut();
    let queue = 5_000;
    let mut descs = Vec::new();
    for i in 0..40u32 {
        let dec = if i % 3 == 0 { FLAG_DEC } else { 0 };
        let extra = [FLAG_INC, FLAG_LAST, 0, FLAG_INC | FLAG_LAST][(i % 4) as usize];
        descs.push(data(dec | extra, 9, (i % 7) as u8, queue, 100 + 50 * i));
    }
    let out = dut.run(&descs);
    let without_dec = descs.iter().filter(|d| d.flags & FLAG_DEC == 0).count();
    let srcs = out.iter().filter(|o| o.src).count();
    println!("congested port: {} data packets, {without_dec} without DEC, {srcs} SRCs", descs.len());
    assert_eq!(srcs, without_dec);
    for (d, o) in descs.iter().zip(&out) {
        if d.flags & FLAG_DEC == 0 {
            assert!(o.src);
            assert_eq!(o.flags, (d.flags | FLAG_DEC) & !FLAG_INC, "DEC set, INC cleared");
            assert_eq!((o.q_size, o.link_rate, o.ingress_port), (queue, 100, d.ingress_port), "SRC contents");
        } else {
            assert!(!o.src);
            assert_eq!(o.flags, d.flags, "a packet with DEC passes a congested port unchanged");
        }
        assert_eq!(o.pru_token, 0, "no PRU token at a congested port");
    }
    assert_eq!(dut.counts().src as usize, without_dec);
    assert_eq!(dut.counts().pru_token, 0);
    // CC_THRESH is inclusive: MTU − 1 bytes is not congested, MTU bytes is.
    let out = dut.run(&[data(0, 10, 0, MTU - 1, 10_000), data(0, 10, 0, MTU, 10_001)]);
    assert_eq!((out[0].src, out[1].src), (false, true));
    // Non-data packets never get an SRC.
    let ack = Descriptor { flags: FLAG_ACK, ..data(0, 9, 0, queue, 10_002) };
    let out = dut.run(&[ack]);
    assert!(!out[0].src && out[0].flags == FLAG_ACK);
}

/// §4.3.2: a flow's LAST packets that are not FIRST create PRU tokens at the egress port; other
/// flows' INC packets take one each (back to back, so the per-port read-modify-write forwards).
#[test]
fn last_packets_create_pru_tokens_that_inc_packets_consume_one_each() {
    let mut dut = dut();
    let port = 5;
    let t = 1_000;
    let mut descs = Vec::new();
    // Drain the supply token: no time passes, so supply cannot grant INC below.
    for _ in 0..4 {
        descs.push(data(0, port, 1, 0, t));
    }
    // Flow A (ingress 1): three LAST packets create three tokens; LAST + FIRST creates none.
    for _ in 0..3 {
        descs.push(data(FLAG_LAST, port, 1, 0, t));
    }
    descs.push(data(FLAG_LAST | FLAG_FIRST, port, 1, 0, t));
    // Flow B (ingress 2): five INC packets, back to back.
    for _ in 0..5 {
        descs.push(data(FLAG_INC, port, 2, 0, t));
    }
    let out = dut.run(&descs);
    let pru: Vec<u16> = out.iter().map(|o| o.pru_token).collect();
    println!("PRU token after each packet: {pru:?}");
    assert_eq!(pru, vec![0, 0, 0, 0, 1, 2, 3, 3, 2, 1, 0, 0, 0]);
    let inc_kept: Vec<bool> = out[8..].iter().map(|o| o.flags & FLAG_INC != 0).collect();
    assert_eq!(inc_kept, vec![true, true, true, false, false], "three INC kept (one token each), then cleared");
    let c = dut.counts();
    assert_eq!((c.pru_token, c.pru_grant, c.supply_grant), (3, 3, 0));
    // Tokens belong to their egress port: another port's INC packet finds none there.
    let other = dut.run(&[data(FLAG_LAST, 6, 1, 0, t), data(FLAG_INC, 7, 2, 0, t), data(FLAG_INC, 7, 2, 0, t)]);
    assert_eq!(other[0].pru_token, 1);
    assert_eq!(other[1].pru_token, 0);
    assert!(other[1].flags & FLAG_INC != 0, "port 7's first packet: supply token at its cap");
    assert!(other[2].flags & FLAG_INC == 0, "port 7 has neither PRU nor supply tokens left");
}

/// §4.3.3: on an under-used link INC packets keep INC through supply tokens; on a link at line
/// rate they do not (after the one MTU the token starts with).
#[test]
fn idle_link_keeps_inc_through_supply_tokens_saturated_link_does_not() {
    let mut dut = dut();
    let n = 200u32;
    // 100 Gb/s = 12.5 B/ns. Idle: one MTU every 200 ns (supply 2500 B per packet, demand 1088 B).
    // Saturated: one MTU every 87 ns (supply 1087 B per packet): arrivals at line rate.
    let idle: Vec<_> = (0..n).map(|i| data(FLAG_INC, 20, 0, 0, 5_000 + 200 * i)).collect();
    let busy: Vec<_> = (0..n).map(|i| data(FLAG_INC, 21, 0, 0, 5_000 + 87 * i)).collect();
    let kept = |out: &[HwDecision]| out.iter().filter(|o| o.flags & FLAG_INC != 0).count();
    let idle_out = dut.run(&idle);
    let busy_out = dut.run(&busy);
    println!(
        "supply matching: idle link {} of {n} INC packets keep INC, saturated link {} of {n}; saturated token after {n} packets {} B",
        kept(&idle_out),
        kept(&busy_out),
        token(busy_out.last().unwrap())
    );
    assert_eq!(kept(&idle_out), n as usize);
    assert_eq!(kept(&busy_out), 1);
    assert_eq!(token(busy_out.last().unwrap()), -(n as i64 - 1), "one byte short per packet");
    assert_eq!(dut.counts().supply_grant, n + 1);
}

/// §4.4.1: an inter-arrival time of 65 536 ns or more sets the supply token to one MTU, 65 535 ns
/// goes through the table / multiplier; the time counter may wrap in between. Both supply modes.
#[test]
fn idle_gap_boundary_and_time_wrap_in_both_supply_modes() {
    for model in [MUL, LUT] {
        let mut dut = BoltIngressDut::new(model).unwrap();
        let t0 = u32::MAX - 70_000;
        // Flood: 9000 MTU packets in the same nanosecond drive the token to its floor, −2^23.
        let flood: Vec<_> = (0..9_000).map(|_| data(0, 30, 0, 0, t0)).collect();
        let out = dut.run(&flood);
        assert_eq!(token(out.last().unwrap()), -(1 << 23), "saturates at −2^23");
        // 65 535 ns later (no wrap yet): +819 187 B supply (12.5 × 65 535, rounded down), −1088 demand.
        let out = dut.run(&[data(FLAG_INC, 30, 0, 0, t0 + 65_535)]);
        assert_eq!(token(&out[0]), -(1 << 23) + 819_187 - 1088);
        assert_eq!(out[0].flags & FLAG_INC, 0);
        // 65 536 ns later, across the wrap of the 32-bit counter: the token goes to its cap.
        let t1 = t0.wrapping_add(65_535).wrapping_add(65_536);
        assert!(t1 < t0, "the time counter wrapped");
        let out = dut.run(&[data(FLAG_INC, 30, 0, 0, t1)]);
        assert_eq!(out[0].flags & FLAG_INC, FLAG_INC, "{model}: idle link, INC kept");
        assert_eq!(token(&out[0]), 0, "cap (one MTU) minus the MTU granted");
        // A short gap across the wrap: 0xffff_ff00 → 0x100 is 512 ns (6400 B supply, capped).
        let out = dut.run(&[data(0, 31, 0, 0, 0xffff_ff00), data(0, 31, 0, 0, 0xffff_ff00), data(0, 31, 0, 0, 0x100)]);
        assert_eq!(token(&out[1]), 0);
        assert_eq!(token(&out[2]), MTU as i64, "512 ns across the wrap: 6400 − 1088 B, capped at MTU");
        println!("{model}: floor −2^23, 65 535 ns → table/multiplier, 65 536 ns → cap, wrap-around ok");
    }
}

/// Bad input: out-of-range egress ports are dropped and counted and touch no state; non-Bolt
/// frames pass untouched and are counted; occupancies above 2^24 − 1 saturate `q_size`; the PRU
/// token saturates at 65 535.
#[test]
fn bad_input_is_counted_and_changes_no_state() {
    let mut dut = dut();
    let mut descs = vec![data(FLAG_LAST, 0, 0, 0, 100)];
    for bad in [64u8, 65, 127, 200, 255] {
        descs.push(data(FLAG_LAST, bad, 3, 9_999, 100));
    }
    let not_bolt = Descriptor { bolt: false, ..data(FLAG_INC, 0, 3, 9_999, 100) };
    descs.push(not_bolt);
    descs.push(data(0, 0, 0, 0, 100));
    let out = dut.run(&descs);
    assert!(out[1..6].iter().all(|o| o.drop && !o.src), "out-of-range ports dropped, no SRC");
    assert!(!out[6].drop && !out[6].src && out[6].flags == not_bolt.flags, "non-Bolt passes untouched");
    assert_eq!(out[7].pru_token, 1, "port 0's PRU token untouched by the dropped packets");
    let c = dut.counts();
    println!("bad input: bad_port_count {}, not_bolt_count {}, src_count {}", c.bad_port, c.not_bolt, c.src);
    assert_eq!((c.bad_port, c.not_bolt, c.src), (5, 1, 0));
    // q_size saturates.
    let out = dut.run(&[data(0, 1, 0, Q_SIZE_MAX + 5, 200), data(0, 1, 0, u32::MAX, 200), data(0, 1, 0, Q_SIZE_MAX, 200)]);
    assert!(out.iter().all(|o| o.src && o.q_size == Q_SIZE_MAX));
    // The PRU token saturates at 65 535 instead of wrapping.
    let lasts: Vec<_> = (0..65_540).map(|_| data(FLAG_LAST, 2, 0, 0, 300)).collect();
    let out = dut.run(&lasts);
    assert_eq!(out[65_534].pru_token, 65_535);
    assert_eq!(out.last().unwrap().pru_token, 65_535);
    // Reset: every port forgets its state and the counters clear.
    dut.step(None, 400, true);
    assert_eq!(dut.counts(), BoltCounts::default());
    let out = dut.run(&[data(FLAG_INC, 2, 0, 0, 400)]);
    assert_eq!((out[0].pru_token, token(&out[0])), (0, 0), "after reset: no PRU token, supply at cap then granted");
}
