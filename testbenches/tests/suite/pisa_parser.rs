//! PISA parsers, 64-bit and 512-bit: frames from the MAC (good and bad, random lengths, random
//! back-pressure) against the reference model (`reference/pisa.rs`); the same in lockstep
//! (rust-hdl against Verilator, every output every cycle); latency and throughput measured on the
//! Verilator model.

use nanotransport_hdl::pisa::parser::Parser;
use nanotransport_hdl::pisa::wide_parser::WideParser;
use nanotransport_hdl::pisa::wire::*;
use nanotransport_reference::pisa::{parse, DropReason, Header};
use nanotransport_sim::cosim::native::NativeStepper;
use nanotransport_sim::cosim::ports::{Lockstep, Ports};
use nanotransport_sim::cosim::verilated::VerilatedModel;
use nanotransport_testbenches::seed;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::HashMap;

/// One parser's datapath: its Verilator model, bytes per beat and latency (first beat in →
/// header fields and first payload beat out).
#[derive(Clone, Copy)]
struct Width {
    model: &'static str,
    beat_bytes: usize,
    latency: u64,
    /// Prefix of the seed names and printed lines.
    name: &'static str,
}

const NARROW_PARSER: Width = Width { model: "nt_blocks_16_parser", beat_bytes: 8, latency: 8, name: "parser" };
const WIDE_PARSER: Width = Width { model: "nt_blocks_16_wide_parser", beat_bytes: 64, latency: 2, name: "wide_parser" };
const NARROW: usize = NARROW_PARSER.beat_bytes;
const WIDE: usize = WIDE_PARSER.beat_bytes;
const PROTO: u8 = NDP_IP_PROTOCOL;

const HDR_PORTS: [&str; 18] = [
    "hdr_dst_mac",
    "hdr_src_mac",
    "hdr_ip_tos",
    "hdr_ip_total_len",
    "hdr_ip_ident",
    "hdr_ip_ttl",
    "hdr_src_ip",
    "hdr_dst_ip",
    "hdr_flags",
    "hdr_src_context",
    "hdr_dst_context",
    "hdr_msg_len",
    "hdr_pkt_offset",
    "hdr_pull_offset",
    "hdr_grant_prio",
    "hdr_tx_msg_id",
    "hdr_buf_ptr",
    "hdr_buf_size_class",
];

fn read_header(io: &mut dyn Ports) -> Header {
    let v: Vec<u64> = HDR_PORTS.iter().map(|p| io.get(p)).collect();
    Header {
        dst_mac: v[0],
        src_mac: v[1],
        ip_tos: v[2] as u8,
        ip_total_len: v[3] as u16,
        ip_ident: v[4] as u16,
        ip_ttl: v[5] as u8,
        src_ip: v[6] as u32,
        dst_ip: v[7] as u32,
        flags: v[8] as u8,
        src_context: v[9] as u16,
        dst_context: v[10] as u16,
        msg_len: v[11] as u16,
        pkt_offset: v[12] as u8,
        pull_offset: v[13] as u16,
        grant_prio: v[14] as u8,
        tx_msg_id: v[15] as u16,
        buf_ptr: v[16] as u16,
        buf_size_class: v[17] as u8,
    }
}

fn random_header(rng: &mut ChaCha8Rng) -> Header {
    let flags = loop {
        let f: u8 = rng.gen::<u8>() & 0x1f;
        if f & 0x0f != 0 {
            break f;
        }
    };
    Header {
        dst_mac: rng.gen::<u64>() & 0xffff_ffff_ffff,
        src_mac: rng.gen::<u64>() & 0xffff_ffff_ffff,
        ip_tos: rng.gen(),
        ip_total_len: 0,
        ip_ident: rng.gen(),
        ip_ttl: rng.gen(),
        src_ip: rng.gen(),
        dst_ip: rng.gen(),
        flags,
        src_context: rng.gen(),
        dst_context: rng.gen(),
        msg_len: rng.gen(),
        pkt_offset: rng.gen(),
        pull_offset: rng.gen(),
        grant_prio: rng.gen(),
        tx_msg_id: rng.gen(),
        buf_ptr: rng.gen(),
        buf_size_class: rng.gen(),
    }
}

/// A random frame: mostly good, with every kind of bad input mixed in.
fn random_frame(rng: &mut ChaCha8Rng) -> Vec<u8> {
    let h = random_header(rng);
    let len = match rng.gen_range(0..10) {
        0 => 0,
        1 => 1,
        2 => rng.gen_range(1000..=1024),
        _ => rng.gen_range(0..200),
    };
    let payload: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
    let mut f = h.frame(PROTO, &payload);
    let fix_checksum = |f: &mut Vec<u8>| {
        f[OFF_CHECKSUM] = 0;
        f[OFF_CHECKSUM + 1] = 0;
        let c = !nanotransport_reference::pisa::ipv4_sum(&f[14..34]);
        f[OFF_CHECKSUM..OFF_CHECKSUM + 2].copy_from_slice(&c.to_be_bytes());
    };
    match rng.gen_range(0..20) {
        0 => f.truncate(rng.gen_range(1..64)),
        1 => {
            f[OFF_ETHERTYPE] = 0x86;
            f[OFF_ETHERTYPE + 1] = 0xdd;
        }
        2 => {
            f[OFF_VERSION_IHL] = 0x46;
            fix_checksum(&mut f);
        }
        3 => {
            f[OFF_PROTOCOL] = HOMA_IP_PROTOCOL;
            fix_checksum(&mut f);
        }
        4 => f[OFF_IDENT] ^= 1 << rng.gen_range(0..8),
        5 => f[OFF_FLAGS] &= 0xf0,
        6 => {
            f[OFF_TOTAL_LEN] = 0;
            f[OFF_TOTAL_LEN + 1] = rng.gen_range(0..50);
            fix_checksum(&mut f);
        }
        _ => {}
    }
    f
}

#[derive(Clone, Copy)]
struct Env {
    offer: f64,
    ready: f64,
}

#[derive(Default)]
struct Run {
    out: Vec<(Header, Vec<u8>)>,
    first_in_cycle: Vec<u64>,
    first_out_cycle: Vec<u64>,
    cycles: u64,
    in_beats: u64,
    /// Cycles in which a beat was offered and not taken.
    in_stalls: u64,
    counters: HashMap<&'static str, u64>,
}

const COUNTERS: [&str; 6] =
    ["frame_count", "not_ipv4_count", "wrong_protocol_count", "too_short_count", "bad_checksum_count", "bad_flags_count"];

/// Offers `frames` as beats of `beat_bytes` (8 or 64) and collects what comes out.
fn drive(io: &mut dyn Ports, beat_bytes: usize, frames: &[Vec<u8>], env: Env, rng: &mut ChaCha8Rng) -> Run {
    let mut run = Run::default();
    io.set("reset", 1);
    io.set("s_axis$tvalid", 0);
    io.eval();
    io.tick();
    io.set("reset", 0);
    let (mut frame, mut beat, mut offering) = (0usize, 0usize, false);
    let mut current: Option<(Header, Vec<u8>)> = None;
    let mut idle_after = 0;
    let mut cycle = 0u64;
    while idle_after < 20 {
        if !offering && frame < frames.len() {
            offering = rng.gen_bool(env.offer);
        }
        let lanes_mask = if beat_bytes == 64 { u64::MAX } else { (1u64 << beat_bytes) - 1 };
        let mut data: Vec<u64> = (0..beat_bytes / 8).map(|_| rng.gen()).collect();
        let (mut keep, mut last) = (rng.gen::<u64>() & lanes_mask, rng.gen_bool(0.5));
        if offering {
            let f = &frames[frame];
            let bytes = &f[beat * beat_bytes..(beat * beat_bytes + beat_bytes).min(f.len())];
            keep = 0;
            for (i, b) in bytes.iter().enumerate() {
                let (w, k) = (i / 8, i % 8);
                data[w] = (data[w] & !(0xff << (8 * k))) | ((*b as u64) << (8 * k));
                keep |= 1 << i;
            }
            last = (beat + 1) * beat_bytes >= f.len();
        }
        io.set_wide("s_axis$tdata", &data);
        io.set("s_axis$tkeep", keep);
        io.set("s_axis$tlast", last as u64);
        io.set("s_axis$tvalid", offering as u64);
        let ready = rng.gen_bool(env.ready);
        io.set("m_axis$tready", ready as u64);
        io.eval();
        let taken = offering && io.get("s_axis$tready") == 1;
        if offering && !taken {
            run.in_stalls += 1;
        }
        if taken {
            run.in_beats += 1;
            if beat == 0 {
                run.first_in_cycle.push(cycle);
            }
            if last {
                frame += 1;
                beat = 0;
                offering = false;
            } else {
                beat += 1;
            }
        }
        if io.get("m_axis$tvalid") == 1 && ready {
            if io.get("m_axis_tfirst") == 1 {
                assert!(current.is_none(), "a first beat inside a frame at cycle {cycle}");
                current = Some((read_header(io), Vec::new()));
                run.first_out_cycle.push(cycle);
            }
            let cur = current.as_mut().unwrap_or_else(|| panic!("a beat without a first beat at cycle {cycle}"));
            let (d, k) = (io.get_wide("m_axis$tdata"), io.get("m_axis$tkeep"));
            for i in 0..beat_bytes {
                if k >> i & 1 == 1 {
                    cur.1.push((d[i / 8] >> (8 * (i % 8))) as u8);
                }
            }
            if io.get("m_axis$tlast") == 1 {
                run.out.push(current.take().unwrap());
            }
        }
        io.tick();
        cycle += 1;
        if frame >= frames.len() {
            idle_after += 1;
        }
        assert!(cycle < 100 * (frames.len() as u64 + 10) * 140, "no progress");
    }
    io.eval();
    for c in COUNTERS {
        run.counters.insert(c, io.get(c));
    }
    run.cycles = cycle;
    run
}

/// Checks a run against the reference model; returns the expected drop counts.
fn check(frames: &[Vec<u8>], run: &Run) -> HashMap<DropReason, u64> {
    let mut expected = Vec::new();
    let mut drops = HashMap::new();
    for f in frames {
        match parse(f, PROTO) {
            Ok(x) => expected.push(x),
            Err(r) => *drops.entry(r).or_insert(0) += 1,
        }
    }
    assert_eq!(run.out.len(), expected.len(), "frames passed");
    for (i, (got, want)) in run.out.iter().zip(&expected).enumerate() {
        assert_eq!(got.0, want.0, "header of passed frame {i}");
        assert_eq!(got.1, want.1, "payload of passed frame {i}");
    }
    let d = |r| drops.get(&r).copied().unwrap_or(0);
    assert_eq!(run.counters["frame_count"], expected.len() as u64);
    assert_eq!(run.counters["too_short_count"], d(DropReason::TooShort));
    assert_eq!(run.counters["not_ipv4_count"], d(DropReason::NotIpv4));
    assert_eq!(run.counters["wrong_protocol_count"], d(DropReason::WrongProtocol));
    assert_eq!(run.counters["bad_checksum_count"], d(DropReason::BadChecksum));
    assert_eq!(run.counters["bad_flags_count"], d(DropReason::BadFlags));
    drops
}

fn frames(rng: &mut ChaCha8Rng, n: usize) -> Vec<Vec<u8>> {
    (0..n).map(|_| random_frame(rng)).collect()
}

/// Native unit test: two 80-byte frames back to back; header fields and the first payload beat
/// are on `m_axis` 8 cycles after the first beat went in, and the second frame follows without a
/// bubble.
#[test]
fn unit_latency_is_eight_cycles() {
    let mut rng = ChaCha8Rng::seed_from_u64(seed("pisa_parser_unit_latency", 1));
    let hs = [random_header(&mut rng), random_header(&mut rng)];
    let fs: Vec<Vec<u8>> = hs.iter().map(|h| h.frame(PROTO, &[0x5a; 16])).collect();
    let mut native = NativeStepper::<Parser>::default();
    let run = drive(&mut native, NARROW, &fs, Env { offer: 1.0, ready: 1.0 }, &mut rng);
    check(&fs, &run);
    assert_eq!(run.first_in_cycle, vec![0, 10]);
    assert_eq!(run.first_out_cycle, vec![8, 18], "first beat in → header fields and first payload beat out");
    assert_eq!(run.in_stalls, 0);
    println!("parser latency: first beat in → header fields valid: {} cycles (floor at 64 bits: 8)", run.first_out_cycle[0]);
}

/// Lockstep: rust-hdl against Verilator on random good and bad frames with back-pressure, at
/// least 10 000 cycles.
fn lockstep_frames<D: nanotransport_sim::cosim::native::NativeDut>(w: Width, frame_count: usize, default_seed: u64) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed(&format!("pisa_{}_lockstep", w.name), default_seed));
    let fs = frames(&mut rng, frame_count);
    let mut io = Lockstep::<D>::new(w.model).unwrap();
    let run = drive(&mut io, w.beat_bytes, &fs, Env { offer: 0.8, ready: 0.7 }, &mut rng);
    check(&fs, &run);
    assert!(run.cycles >= 10_000, "lockstep ran {} cycles", run.cycles);
    println!("{} lockstep: {} cycles, {} comparisons, {} frames passed", w.name, run.cycles, io.comparisons, run.out.len());
}

#[test]
fn lockstep_random_frames() {
    lockstep_frames::<Parser>(NARROW_PARSER, 400, 501);
}

#[test]
fn wide_lockstep_random_frames() {
    lockstep_frames::<WideParser>(WIDE_PARSER, 2200, 505);
}

/// Reference model on the Verilator model: many frames, every bad-input kind, counters exact,
/// under three offer / back-pressure mixes.
fn model_runs(w: Width, default_seed: u64) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed(&format!("pisa_{}_model", w.name), default_seed));
    for env in [Env { offer: 1.0, ready: 1.0 }, Env { offer: 0.5, ready: 0.5 }, Env { offer: 0.95, ready: 0.3 }] {
        let fs = frames(&mut rng, 10_000);
        let mut io = VerilatedModel::new(w.model).unwrap();
        let run = drive(&mut io, w.beat_bytes, &fs, env, &mut rng);
        let drops = check(&fs, &run);
        for r in [DropReason::TooShort, DropReason::NotIpv4, DropReason::WrongProtocol, DropReason::BadChecksum, DropReason::BadFlags] {
            assert!(drops.get(&r).copied().unwrap_or(0) > 0, "the run has no {r:?} frame");
        }
        let mut counters: Vec<_> = run.counters.iter().collect();
        counters.sort();
        println!(
            "{} model run (offer {}, ready {}): {} frames, {} cycles, counters {counters:?}",
            w.name,
            env.offer,
            env.ready,
            fs.len(),
            run.cycles
        );
    }
}

#[test]
fn model_random_frames_on_verilator() {
    model_runs(NARROW_PARSER, 502);
}

#[test]
fn wide_model_random_frames_on_verilator() {
    model_runs(WIDE_PARSER, 506);
}

/// Back to back at full rate: one beat per cycle in, no stall, every frame in
/// ceil(n / beat bytes) cycles, the parser's latency for every passed frame.
fn throughput(w: Width, payload_lens: [usize; 5], default_seed: u64) -> Run {
    let mut rng = ChaCha8Rng::seed_from_u64(seed(&format!("pisa_{}_throughput", w.name), default_seed));
    let mut fs = Vec::new();
    for i in 0..2000 {
        fs.push(random_header(&mut rng).frame(PROTO, &vec![0xab; payload_lens[i % 5]]));
    }
    fs.extend(frames(&mut rng, 500));
    let mut io = VerilatedModel::new(w.model).unwrap();
    let run = drive(&mut io, w.beat_bytes, &fs, Env { offer: 1.0, ready: 1.0 }, &mut rng);
    check(&fs, &run);
    let beats: u64 = fs.iter().map(|f| f.len().div_ceil(w.beat_bytes) as u64).sum();
    assert_eq!(run.in_beats, beats);
    assert_eq!(run.in_stalls, 0, "input stalls at full rate");
    let span = run.first_in_cycle.last().unwrap() - run.first_in_cycle[0] + fs.last().unwrap().len().div_ceil(w.beat_bytes) as u64;
    assert_eq!(span, beats, "frames follow each other without bubbles");
    let lat: Vec<u64> = run
        .first_out_cycle
        .iter()
        .zip(fs.iter().zip(&run.first_in_cycle).filter(|(f, _)| parse(f, PROTO).is_ok()).map(|(_, c)| *c))
        .map(|(o, i)| o - i)
        .collect();
    assert!(lat.iter().all(|&l| l == w.latency), "latency of every passed frame is {} cycles", w.latency);
    println!(
        "{} throughput: {} beats in {} cycles ({:.3} beats/cycle), 0 idle beats, latency {} cycles for all {} passed frames",
        w.name,
        beats,
        span,
        beats as f64 / span as f64,
        w.latency,
        lat.len()
    );
    run
}

#[test]
fn throughput_back_to_back() {
    throughput(NARROW_PARSER, [1, 0, 16, 200, 1024], 503);
}

/// At 512 bits a 65-byte frame (1 byte of payload) takes 2 cycles.
#[test]
fn wide_throughput_back_to_back() {
    let run = throughput(WIDE_PARSER, [1, 0, 64, 65, 1024], 507);
    assert_eq!(run.first_in_cycle[1] - run.first_in_cycle[0], 2, "a 65-byte frame takes 2 cycles");
}

/// Lockstep on raw random beats with random resets (mid-frame resets, garbage frames).
fn lockstep_beats<D: nanotransport_sim::cosim::native::NativeDut>(w: Width, tlast: f64, all_lanes: u64, default_seed: u64) {
    use nanotransport_sim::cosim::lockstep::{expect_agreement, run_lockstep};
    use nanotransport_sim::cosim::stimulus::{Drive, Stimulus};
    let stim = Stimulus::new()
        .drive("reset", Drive::Bernoulli(0.003))
        .drive("s_axis$tvalid", Drive::Bernoulli(0.8))
        .drive("s_axis$tlast", Drive::Bernoulli(tlast))
        .drive("s_axis$tkeep", Drive::Const(all_lanes))
        .drive("m_axis$tready", Drive::Bernoulli(0.7));
    expect_agreement(run_lockstep::<D>(w.model, &stim, 10_000, seed(&format!("pisa_{}_lockstep_resets", w.name), default_seed)));
}

#[test]
fn lockstep_random_beats_with_resets() {
    lockstep_beats::<Parser>(NARROW_PARSER, 0.08, 0xff, 504);
}

#[test]
fn wide_lockstep_random_beats_with_resets() {
    lockstep_beats::<WideParser>(WIDE_PARSER, 0.3, u64::MAX, 508);
}

/// The 512-bit parser, natively: frames of 80, 80, 64 and 64 bytes back to back; header fields
/// and the first payload beat are on `m_axis` 2 cycles after the header beat went in (a stage to
/// decide, the output register), the frames follow without a bubble, and the header-only frames
/// come out as their empty beats.
#[test]
fn wide_unit_latency_is_two_cycles() {
    let mut rng = ChaCha8Rng::seed_from_u64(seed("pisa_wide_parser_unit_latency", 1));
    let hs: Vec<Header> = (0..4).map(|_| random_header(&mut rng)).collect();
    let fs: Vec<Vec<u8>> =
        vec![hs[0].frame(PROTO, &[0x5a; 16]), hs[1].frame(PROTO, &[0xa5; 16]), hs[2].frame(PROTO, &[]), hs[3].frame(PROTO, &[])];
    let mut native = NativeStepper::<WideParser>::default();
    let run = drive(&mut native, WIDE, &fs, Env { offer: 1.0, ready: 1.0 }, &mut rng);
    check(&fs, &run);
    assert_eq!(run.first_in_cycle, vec![0, 2, 4, 5]);
    assert_eq!(run.first_out_cycle, vec![2, 4, 6, 7], "header beat in → header fields and first payload beat out");
    assert_eq!(run.in_stalls, 0);
    println!("wide parser latency: header beat in → header fields valid: {} cycles", run.first_out_cycle[0]);
}
