//! Bolt ingress behind 64-bit AXI4-Streams: frames in, frames (flags rewritten, bad ports
//! dropped) and SRC packets out, checked against the reference model frame by frame; the same run
//! in lockstep (rust-hdl against Verilator, every output every cycle); throughput and latency.

use nanotransport_hdl::configs::find_switch_config;
use nanotransport_hdl::switch::bolt_header::*;
use nanotransport_hdl::switch::bolt_ingress::BOLT_CONFIG_INPUTS;
use nanotransport_hdl::switch::bolt_stream::{descriptor_beat, stream_latency, BoltStream};
use nanotransport_reference::bolt::*;
use nanotransport_sim::cosim::native::NativeStepper;
use nanotransport_sim::cosim::ports::{Lockstep, Ports};
use nanotransport_sim::cosim::verilated::VerilatedModel;
use nanotransport_testbenches::seed;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const MODEL: &str = "nt_bolt_ingress_64p_bolt_stream";
/// The wrapper with 32 bytes after the Bolt header in each SRC (75-byte SRCs, descriptor at beat 9).
const MODEL_SRC32: &str = "nt_bolt_ingress_64p_src32_bolt_stream";
type Stream = BoltStream<64, 6>;

/// A named configuration of the wrapper and the Verilator model of its Verilog.
#[derive(Clone, Copy)]
struct Cfg {
    name: &'static str,
    model: &'static str,
}

const DEFAULT: Cfg = Cfg { name: "bolt-ingress-64p", model: MODEL };
const SRC32: Cfg = Cfg { name: "bolt-ingress-64p-src32", model: MODEL_SRC32 };

impl Cfg {
    fn trailing(&self) -> usize {
        find_switch_config(self.name).unwrap().bolt().unwrap().src_trailing_bytes
    }
}

/// A frame with its first-beat metadata.
#[derive(Clone, Debug)]
struct Sent {
    frame: Vec<u8>,
    ingress: u8,
    egress: u8,
    queue: u32,
    /// `now` while the frame is offered (else the free-running clock of `now_of`).
    now: Option<u32>,
}

/// How the environment behaves.
#[derive(Clone, Copy)]
struct Env {
    /// Probability that the source offers a beat in a cycle (1.0: back to back).
    offer: f64,
    /// Probability that each sink is ready in a cycle.
    ready: f64,
    src_ready: f64,
}

/// What a run produced.
#[derive(Default)]
struct Run {
    out_frames: Vec<Vec<u8>>,
    src_frames: Vec<(Vec<u8>, u8)>,
    /// `now` at the cycle the frame's descriptor went to the core (its descriptor beat or its last beat).
    descriptor_now: Vec<u32>,
    first_in_cycle: Vec<u64>,
    first_out_cycle: Vec<u64>,
    out_beat_cycles: Vec<u64>,
    cycles: u64,
}

fn now_of(cycle: u64) -> u32 {
    0xffff_0000u32.wrapping_add((cycle * 7) as u32)
}

fn drive(io: &mut dyn Ports, cfg: Cfg, frames: &[Sent], env: Env, rng: &mut ChaCha8Rng) -> Run {
    let fire_beat = descriptor_beat(cfg.trailing());
    let mut run = Run::default();
    io.set("reset", 1);
    let params = find_switch_config(cfg.name).unwrap().bolt_params().unwrap();
    for (port, value) in BOLT_CONFIG_INPUTS.iter().zip(params.config_inputs()) {
        io.set(port, value);
    }
    io.eval();
    io.tick();
    io.set("reset", 0);
    let (mut frame, mut beat) = (0usize, 0usize);
    let mut offering = false;
    let (mut out, mut src) = (Vec::new(), Vec::new());
    let mut idle_after = 0;
    let mut cycle = 1u64;
    // AXI4-Stream: a beat shown without a handshake is shown unchanged in the next cycle.
    let mut stalled: [Option<(u64, u64, u64)>; 2] = [None, None];
    while idle_after < 40 {
        if !offering && frame < frames.len() {
            offering = rng.gen_bool(env.offer);
        }
        let f = frames.get(frame);
        let (mut data, mut keep, mut last, mut user) = (rng.gen::<u64>(), 0u64, false, rng.gen::<u64>() & ((1 << 48) - 1));
        if let (true, Some(f)) = (offering, f) {
            let bytes = &f.frame[beat * 8..(beat * 8 + 8).min(f.frame.len())];
            for (i, b) in bytes.iter().enumerate() {
                data = (data & !(0xff << (8 * i))) | ((*b as u64) << (8 * i));
                keep |= 1 << i;
            }
            last = (beat + 1) * 8 >= f.frame.len();
            if beat == 0 {
                user = f.ingress as u64 | (f.egress as u64) << 8 | (f.queue as u64) << 16;
            }
        }
        let now = match (offering, f) {
            (true, Some(Sent { now: Some(t), .. })) => *t,
            _ => now_of(cycle),
        };
        io.set("now", now as u64);
        io.set("s_axis$tdata", data);
        io.set("s_axis$tkeep", keep);
        io.set("s_axis$tlast", last as u64);
        io.set("s_axis$tvalid", offering as u64);
        io.set("s_axis_tuser", user);
        let ready = rng.gen_bool(env.ready);
        let src_ready = rng.gen_bool(env.src_ready);
        io.set("m_axis$tready", ready as u64);
        io.set("m_src_axis$tready", src_ready as u64);
        io.eval();
        for (k, (prefix, sink_ready)) in [("m_axis", ready), ("m_src_axis", src_ready)].into_iter().enumerate() {
            let shown = (io.get(&format!("{prefix}$tvalid")) == 1)
                .then(|| (io.get(&format!("{prefix}$tdata")), io.get(&format!("{prefix}$tkeep")), io.get(&format!("{prefix}$tlast"))));
            if let Some(beat) = stalled[k].take() {
                assert_eq!(shown, Some(beat), "{prefix}: a shown beat changed or vanished before its handshake (cycle {cycle})");
            }
            if !sink_ready {
                stalled[k] = shown;
            }
        }
        if offering && io.get("s_axis$tready") == 1 {
            if beat == 0 {
                run.first_in_cycle.push(cycle);
            }
            if beat == fire_beat || (last && beat < fire_beat) {
                run.descriptor_now.push(now);
            }
            beat += 1;
            offering = false;
            if last {
                frame += 1;
                beat = 0;
            }
        }
        let busy = io.get("m_axis$tvalid") == 1 || io.get("m_src_axis$tvalid") == 1;
        if io.get("m_axis$tvalid") == 1 && ready {
            if out.is_empty() {
                run.first_out_cycle.push(cycle);
            }
            run.out_beat_cycles.push(cycle);
            let (d, k) = (io.get("m_axis$tdata"), io.get("m_axis$tkeep"));
            out.extend((0..8).filter(|i| k >> i & 1 == 1).map(|i| (d >> (8 * i)) as u8));
            if io.get("m_axis$tlast") == 1 {
                run.out_frames.push(std::mem::take(&mut out));
            }
        }
        if io.get("m_src_axis$tvalid") == 1 && src_ready {
            let (d, k) = (io.get("m_src_axis$tdata"), io.get("m_src_axis$tkeep"));
            src.extend((0..8).filter(|i| k >> i & 1 == 1).map(|i| (d >> (8 * i)) as u8));
            if io.get("m_src_axis$tlast") == 1 {
                let dest = io.get("m_src_axis_tdest") as u8;
                run.src_frames.push((std::mem::take(&mut src), dest));
            }
        }
        io.tick();
        cycle += 1;
        idle_after = if frame >= frames.len() && !busy { idle_after + 1 } else { 0 };
        assert!(cycle < 10_000_000, "no progress");
    }
    run.cycles = cycle;
    run
}

/// Random frames: Bolt data and control frames of many lengths, non-IPv4, other protocols, Bolt
/// frames too short for the header, tiny frames, out-of-range egress ports, occupancies around
/// CC_THRESH and above 2^24 − 1, a few hot ports.
fn random_frames(rng: &mut ChaCha8Rng, n: usize) -> Vec<Sent> {
    (0..n)
        .map(|_| {
            let kind = rng.gen_range(0..100);
            let mut flags = if rng.gen_bool(0.9) { FLAG_DATA } else { FLAG_ACK };
            for (flag, p) in [(FLAG_LAST, 0.2), (FLAG_FIRST, 0.3), (FLAG_INC, 0.5), (FLAG_DEC, 0.2)] {
                if rng.gen_bool(p) {
                    flags |= flag;
                }
            }
            let payload_len = match rng.gen_range(0..10) {
                0 => 0,
                1 => 1045,
                _ => rng.gen_range(1..120),
            };
            let payload: Vec<u8> = (0..payload_len).map(|_| rng.gen()).collect();
            let macs = (rng.gen(), rng.gen());
            let ips = (rng.gen(), rng.gen());
            let mut frame = bolt_frame(macs, ips, flags, rng.gen(), &payload);
            // Most runts are padded to 60 bytes with non-zero padding (not part of the packet).
            if frame.len() < 60 && rng.gen_bool(0.7) {
                frame.resize_with(60, || rng.gen_range(1..=255));
            }
            match kind {
                0..=4 => frame[12] = 0x86,                       // not IPv4
                5..=7 => frame[23] = 6,                          // TCP
                8..=10 => frame.truncate(rng.gen_range(34..43)), // Bolt header cut short
                11..=12 => frame.truncate(rng.gen_range(1..16)), // tiny
                13..=14 => {
                    // Length disagrees with the IPv4 header: bytes missing or extra.
                    if rng.gen_bool(0.5) && frame.len() > 44 {
                        let cut = rng.gen_range(43..frame.len());
                        frame.truncate(cut);
                    } else {
                        frame.extend((0..rng.gen_range(1..40)).map(|_| rng.gen::<u8>()));
                    }
                }
                _ => {}
            }
            let queue = match rng.gen_range(0..10) {
                0..=4 => rng.gen_range(0..1088),
                5..=8 => rng.gen_range(1088..100_000),
                _ => rng.gen_range(Q_SIZE_MAX - 1..=u32::MAX),
            };
            let egress = if rng.gen_bool(0.03) { rng.gen_range(64..=255) } else { [3u8, 9, rng.gen_range(0..64)][rng.gen_range(0..3)] };
            Sent { frame, ingress: rng.gen_range(0..64), egress, queue, now: None }
        })
        .collect()
}

/// Expected forwarded frames and SRCs from the reference model, given each frame's descriptor time.
fn expected(cfg: Cfg, frames: &[Sent], run: &Run) -> (Vec<Vec<u8>>, Vec<(Vec<u8>, u8)>, BoltCounts, [u32; 4]) {
    let mut model = BoltModel::new(find_switch_config(cfg.name).unwrap().bolt_params().unwrap());
    let (mut out, mut srcs, mut not_bolt) = (Vec::new(), Vec::new(), [0u32; 4]);
    assert_eq!(run.descriptor_now.len(), frames.len());
    for (s, now) in frames.iter().zip(&run.descriptor_now) {
        let d = frame_descriptor(&s.frame, s.ingress, s.egress, s.queue, *now);
        let decision = model.ingress(&d);
        // The parser classifies every frame, whatever its egress port.
        match classify(&s.frame) {
            Err(NotBolt::NotIpv4) => not_bolt[0] += 1,
            Err(NotBolt::WrongProtocol) => not_bolt[1] += 1,
            Err(NotBolt::TooShort) => not_bolt[2] += 1,
            Ok(()) => {}
        }
        not_bolt[3] += length_mismatch(&s.frame) as u32;
        if !decision.drop {
            out.push(forwarded_frame(&s.frame, &decision));
        }
        if decision.src {
            srcs.push((src_frame(&s.frame, &decision, cfg.trailing()), s.ingress));
        }
    }
    (out, srcs, model.counts, not_bolt)
}

/// Core counters; parser counters (not IPv4, other protocol, too short, length mismatch); SRCs
/// sent; SRCs dropped.
fn counters(io: &mut dyn Ports) -> (BoltCounts, [u32; 4], u32, u32) {
    let mut g = |p: &str| io.get(p) as u32;
    (
        BoltCounts {
            bad_port: g("bad_port_count"),
            not_bolt: g("not_bolt_count"),
            src: g("src_count"),
            pru_token: g("pru_token_count"),
            pru_grant: g("pru_grant_count"),
            supply_grant: g("supply_grant_count"),
        },
        [g("not_ipv4_count"), g("wrong_protocol_count"), g("too_short_count"), g("length_mismatch_count")],
        g("src_sent_count"),
        g("src_dropped_count"),
    )
}

fn check_run(io: &mut dyn Ports, cfg: Cfg, frames: &[Sent], run: &Run, label: &str) -> (u32, u32) {
    let (out, srcs, counts, not_bolt) = expected(cfg, frames, run);
    assert_eq!(run.out_frames.len(), out.len(), "{label}: forwarded frame count");
    for (i, (a, b)) in run.out_frames.iter().zip(&out).enumerate() {
        assert_eq!(a, b, "{label}: forwarded frame {i}");
    }
    let (hw_counts, hw_not_bolt, sent, dropped) = counters(io);
    assert_eq!(hw_counts, counts, "{label}: core counters");
    assert_eq!(hw_not_bolt, not_bolt, "{label}: parser counters");
    assert_eq!(sent as usize, run.src_frames.len());
    assert_eq!((sent + dropped) as usize, srcs.len(), "{label}: every SRC is sent or counted as dropped");
    // The SRCs sent are the expected ones, in order, with the dropped ones left out.
    let mut k = 0;
    for (i, got) in run.src_frames.iter().enumerate() {
        let next_expected = srcs.get(k).cloned();
        while k < srcs.len() && &srcs[k] != got {
            k += 1;
        }
        assert!(k < srcs.len(), "{label}: SRC {i} is not an expected SRC in order:\n  got  {:02x?}\n  next {:02x?}", got, next_expected);
        k += 1;
    }
    println!(
        "{label} ({}): {} frames in, {} out, {} SRCs decided, {} sent, {} dropped (SRC stream busy); parser: not IPv4 {}, other protocol {}, too short {}, length mismatch {}; bad port {}",
        cfg.name, frames.len(), run.out_frames.len(), srcs.len(), sent, dropped, not_bolt[0], not_bolt[1], not_bolt[2], not_bolt[3], counts.bad_port
    );
    (sent, dropped)
}

fn frames_and_srcs_match(cfg: Cfg, seed_default: u64) {
    let seed = seed("bolt stream frames", seed_default);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let frames = random_frames(&mut rng, 10_000);
    let mut m = VerilatedModel::new(cfg.model).unwrap();
    // Sinks always ready: no SRC is dropped unless SRCs come faster than one per SRC length.
    let run = drive(&mut m, cfg, &frames, Env { offer: 0.7, ready: 1.0, src_ready: 1.0 }, &mut rng);
    check_run(&mut m, cfg, &frames, &run, "ready sinks");
    let mut m = VerilatedModel::new(cfg.model).unwrap();
    let run = drive(&mut m, cfg, &frames, Env { offer: 0.8, ready: 0.6, src_ready: 0.3 }, &mut rng);
    let (_, dropped) = check_run(&mut m, cfg, &frames, &run, "random back-pressure");
    assert!(dropped > 0, "a slow SRC stream must drop SRCs");
}

#[test]
fn frames_and_srcs_match_the_reference_model() {
    frames_and_srcs_match(DEFAULT, 7_101);
}

/// The same random frames through the configuration with 32 bytes after the Bolt header.
#[test]
fn frames_and_srcs_match_the_reference_model_with_32_trailing_bytes() {
    frames_and_srcs_match(SRC32, 7_104);
}

#[test]
fn lockstep_with_frames() {
    for (cfg, default_seed, n) in [(DEFAULT, 7_102, 400), (SRC32, 7_105, 400)] {
        let seed = seed("bolt stream lockstep", default_seed);
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let frames = random_frames(&mut rng, n);
        let c = find_switch_config(cfg.name).unwrap();
        let native = NativeStepper::new(Stream::new(c.bolt_params().unwrap(), c.bolt().unwrap().src_trailing_bytes));
        let mut both = Lockstep::<Stream>::with_stepper(native, cfg.model).unwrap();
        let run = drive(&mut both, cfg, &frames, Env { offer: 0.8, ready: 0.8, src_ready: 0.5 }, &mut rng);
        check_run(&mut both, cfg, &frames, &run, "lockstep");
        println!("{}: {} cycles in lockstep, {} output comparisons, no divergence", cfg.model, run.cycles, both.comparisons);
        assert!(run.cycles >= 10_000);
    }
}

/// Back-to-back frames with ready sinks: one beat per cycle in and out, no bubbles between
/// frames; latency from a frame's first beat in to its first beat out (both configurations).
#[test]
fn one_beat_per_cycle_and_latency() {
    for cfg in [DEFAULT, SRC32] {
        let mut rng = ChaCha8Rng::seed_from_u64(seed("bolt stream back to back", 7_103));
        let mut frames = Vec::new();
        for i in 0..400 {
            let len = [0usize, 1, 17, 21, 100, 1045][i % 6];
            let payload: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
            let flags = FLAG_DATA | if i % 2 == 0 { FLAG_INC } else { FLAG_LAST };
            // Every third frame meets a congested queue: SRCs are built while frames stream on.
            let queue = if i % 3 == 0 { 5_000 } else { 0 };
            frames.push(Sent {
                frame: bolt_frame(([1; 6], [2; 6]), ([10, 0, 0, 1], [10, 0, 0, 2]), flags, i as u32, &payload),
                ingress: 1,
                egress: (i % 5) as u8,
                queue,
                now: None,
            });
        }
        frames.push(Sent { frame: vec![0xaa; 7], ingress: 1, egress: 1, queue: 0, now: None });
        let mut m = VerilatedModel::new(cfg.model).unwrap();
        let run = drive(&mut m, cfg, &frames, Env { offer: 1.0, ready: 1.0, src_ready: 1.0 }, &mut rng);
        let (sent, _) = check_run(&mut m, cfg, &frames, &run, "back to back");
        assert!(sent > 50, "SRCs were sent during the run");
        let beats: usize = frames.iter().map(|f| f.frame.len().div_ceil(8)).sum();
        let first = run.out_beat_cycles[0];
        let last = *run.out_beat_cycles.last().unwrap();
        let bubbles = (last - first + 1) as usize - run.out_beat_cycles.len();
        let latencies: Vec<u64> = run.first_in_cycle.iter().zip(&run.first_out_cycle).map(|(a, b)| b - a).collect();
        println!(
            "bolt stream ({}): {} frames, {beats} beats out in {} cycles ({bubbles} bubbles); first beat in → first beat out: {} cycles (all frames {}–{})",
            cfg.name, frames.len(), last - first + 1, latencies[0], latencies.iter().min().unwrap(), latencies.iter().max().unwrap()
        );
        assert_eq!(run.out_beat_cycles.len(), beats);
        assert_eq!(bubbles, 0, "one frame per ceil(bytes/8) beats, no bubbles");
        let expected_latency = stream_latency(cfg.trailing()) as u64;
        assert!(latencies.iter().all(|l| *l == expected_latency), "{}: every frame's latency is {expected_latency}", cfg.name);
    }
}

/// A Bolt data frame to port `egress` at `now`, padded to 60 bytes when shorter.
fn timed(flags: u8, payload_len: usize, egress: u8, now: u32, pad: bool) -> Sent {
    let mut frame = bolt_frame(([1; 6], [2; 6]), ([10, 0, 0, 1], [10, 0, 0, 2]), FLAG_DATA | flags, now, &vec![0x33; payload_len]);
    if pad && frame.len() < 60 {
        frame.resize(60, 0);
    }
    Sent { frame, ingress: 2, egress, queue: 0, now: Some(now) }
}

/// A padded runt (IPv4 total length 29, 60-byte frame) is charged 60 bytes of supply, not 43.
/// Per port: A sets the supply token to its cap (1 088), runt B at the same ns costs 60, INC runt
/// C follows `gap` ns later (supply 12.5 B/ns at 100 Gb/s, rounded down) and costs 60: it keeps
/// INC only if supply(gap) ≥ 120. Charged 43 each, gaps of 7 and 9 ns (87 and 112 B ≥ 86) would
/// keep INC too.
#[test]
fn a_padded_runt_is_charged_sixty_bytes() {
    let mut frames = Vec::new();
    let gaps = [(7u32, false), (9, false), (10, true)];
    for (k, (gap, _)) in gaps.iter().enumerate() {
        let (port, t) = (10 + k as u8, 1_000 + 1_000 * k as u32);
        frames.push(timed(0, 0, port, t, true));
        frames.push(timed(0, 0, port, t, true));
        frames.push(timed(FLAG_INC, 0, port, t + gap, true));
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed("bolt stream padded runts", 7_106));
    let mut m = VerilatedModel::new(MODEL).unwrap();
    let run = drive(&mut m, DEFAULT, &frames, Env { offer: 1.0, ready: 1.0, src_ready: 1.0 }, &mut rng);
    check_run(&mut m, DEFAULT, &frames, &run, "padded runts");
    for (k, (gap, keeps)) in gaps.iter().enumerate() {
        let out = &run.out_frames[3 * k + 2];
        assert_eq!(out.len(), 60);
        assert_eq!(out[38] & FLAG_INC != 0, *keeps, "INC after B and C charged 60 B each and {gap} ns of supply");
    }
    assert_eq!(Ports::get(&mut m, "supply_grant_count"), 1);
    assert_eq!(Ports::get(&mut m, "length_mismatch_count"), 0, "padded runts are well-formed");
    println!("padded runts: INC kept after 7 / 9 / 10 ns: {:?}", gaps.map(|g| g.1));
}

/// Frames whose length disagrees with their IPv4 header are counted; the decision was made on
/// the header's length (the frame may already be on its way when its last beat arrives).
#[test]
fn frames_whose_length_disagrees_with_their_ipv4_header_are_counted() {
    let mut frames = Vec::new();
    frames.push(timed(0, 100, 20, 5_000, false)); // 143 bytes, agrees
    let mut cut = timed(0, 100, 20, 5_100, false);
    cut.frame.truncate(120); // 23 bytes missing
    frames.push(cut);
    let mut long = timed(0, 100, 20, 5_200, false);
    long.frame.extend_from_slice(&[0x77; 9]); // 9 bytes beyond the packet
    frames.push(long);
    frames.push(timed(0, 0, 20, 5_300, false)); // 43-byte runt without padding
    frames.push(timed(0, 0, 20, 5_400, true)); // padded: agrees
    let mut not_bolt = timed(0, 100, 20, 5_500, false);
    not_bolt.frame[23] = 17;
    not_bolt.frame.truncate(90); // not Bolt: not checked
    frames.push(not_bolt);
    let mut rng = ChaCha8Rng::seed_from_u64(seed("bolt stream length mismatches", 7_107));
    let mut m = VerilatedModel::new(MODEL).unwrap();
    let run = drive(&mut m, DEFAULT, &frames, Env { offer: 1.0, ready: 1.0, src_ready: 1.0 }, &mut rng);
    check_run(&mut m, DEFAULT, &frames, &run, "length mismatches");
    assert_eq!(Ports::get(&mut m, "length_mismatch_count"), 3);
    assert_eq!(run.out_frames.len(), frames.len(), "mismatched frames are forwarded as they came");
    assert_eq!(run.out_frames[1].len(), 120);
    assert_eq!(run.out_frames[2].len(), 152);
    println!("length mismatch: 3 of 6 frames counted (cut, extended, unpadded runt)");
}

/// A first beat shown to a sink that stays not ready for longer than the wrapper's 16-bit wait
/// counter can count (70 000 cycles) stays shown, unchanged, until the sink takes it.
#[test]
fn a_shown_beat_survives_a_stall_longer_than_the_wait_counter() {
    let mut model = VerilatedModel::new(MODEL).unwrap();
    let m: &mut dyn Ports = &mut model;
    let frame = bolt_frame(([1; 6], [2; 6]), ([10, 0, 0, 1], [10, 0, 0, 2]), FLAG_DATA | FLAG_INC, 9, &[0x5a; 100]);
    m.set("reset", 1);
    m.tick();
    m.set("reset", 0);
    m.set("m_axis$tready", 0);
    m.set("m_src_axis$tready", 1);
    let beats: Vec<&[u8]> = frame.chunks(8).collect();
    for (i, chunk) in beats.iter().enumerate() {
        let mut data = 0u64;
        for (j, b) in chunk.iter().enumerate() {
            data |= (*b as u64) << (8 * j);
        }
        m.set("s_axis$tdata", data);
        m.set("s_axis$tkeep", (1u64 << chunk.len()) - 1);
        m.set("s_axis$tlast", (i + 1 == beats.len()) as u64);
        m.set("s_axis_tuser", if i == 0 { 1 | (3 << 8) } else { 0 });
        m.set("s_axis$tvalid", 1);
        m.eval();
        assert_eq!(m.get("s_axis$tready"), 1);
        m.tick();
    }
    m.set("s_axis$tvalid", 0);
    let mut first_shown = None;
    for cycle in 0..70_000u64 {
        m.eval();
        let shown = (m.get("m_axis$tvalid") == 1).then(|| (m.get("m_axis$tdata"), m.get("m_axis$tkeep")));
        match (first_shown, shown) {
            (None, Some(b)) => first_shown = Some(b),
            (Some(b), s) => assert_eq!(s, Some(b), "stalled first beat changed or vanished after {cycle} cycles"),
            (None, None) => assert!(cycle < 100, "the frame was never shown"),
        }
        m.tick();
    }
    m.set("m_axis$tready", 1);
    let mut out = Vec::new();
    for _ in 0..100 {
        m.eval();
        if m.get("m_axis$tvalid") == 1 {
            let (d, k) = (m.get("m_axis$tdata"), m.get("m_axis$tkeep"));
            out.extend((0..8).filter(|i| k >> i & 1 == 1).map(|i| (d >> (8 * i)) as u8));
        }
        m.tick();
    }
    assert_eq!(out.len(), frame.len(), "the whole frame left after the stall");
    assert_eq!(out[..38], frame[..38], "bytes before the flags unchanged");
    assert_eq!(out[39..], frame[39..], "bytes after the flags unchanged");
    println!("bolt stream: first beat held unchanged for 70 000 stalled cycles, then {} bytes left", out.len());
}
