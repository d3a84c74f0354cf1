//! PISA deparsers (64 and 512 bits): egress metadata + payload → frames on the MAC TX stream,
//! against the reference model; lockstep (rust-hdl against Verilator); back-to-back throughput and
//! latency; and the round trip deparser → parser of the same width (both Verilator models wired
//! together).

use nanotransport_hdl::pisa::deparser::Deparser;
use nanotransport_hdl::pisa::wide_deparser::WideDeparser;
use nanotransport_hdl::pisa::wire::*;
use nanotransport_reference::pisa::{deparse, parse, EgressMeta, NetConfig};
use nanotransport_sim::cosim::native::NativeStepper;
use nanotransport_sim::cosim::ports::{Lockstep, Ports};
use nanotransport_sim::cosim::verilated::VerilatedModel;
use nanotransport_testbenches::seed;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// One deparser width: its model, beat, the cycles from a frame's first payload beat in to its
/// header beat out, and the parser of the same width (the round trip).
#[derive(Clone, Copy)]
struct Width {
    model: &'static str,
    parser_model: &'static str,
    beat_bytes: usize,
    latency: u64,
    /// Prefix of the seed names and printed lines.
    name: &'static str,
}

const NARROW_DEPARSER: Width =
    Width { model: "nt_blocks_16_deparser", parser_model: "nt_blocks_16_parser", beat_bytes: 8, latency: 0, name: "deparser" };
const WIDE_DEPARSER: Width = Width {
    model: "nt_blocks_16_wide_deparser",
    parser_model: "nt_blocks_16_wide_parser",
    beat_bytes: 64,
    latency: 3,
    name: "wide_deparser",
};
const PROTO: u8 = NDP_IP_PROTOCOL;

const CFG: NetConfig = NetConfig { own_mac: 0x02_00_00_00_00_0a, peer_mac: 0x02_00_00_00_00_0b, own_ip: 0x0a00_000a };

/// A packet to send: metadata and payload (normally of the length the metadata implies).
#[derive(Clone, Debug)]
struct Packet {
    meta: EgressMeta,
    payload: Vec<u8>,
}

fn random_meta(rng: &mut ChaCha8Rng) -> EgressMeta {
    let data = rng.gen_bool(0.6);
    let msg_len: u16 = match rng.gen_range(0..4) {
        0 => rng.gen_range(1..=64),
        1 => rng.gen_range(1..=1024),
        _ => rng.gen_range(1..=38 * 1024),
    };
    let max_offset = (msg_len as usize - 1) / 1024;
    let mut offset = rng.gen_range(0..=max_offset) as u8;
    if rng.gen_bool(0.02) && msg_len % 1024 == 0 {
        offset = (msg_len / 1024) as u8; // an empty data payload
    }
    let flags =
        if data { FLAG_DATA } else { [FLAG_ACK, FLAG_NACK, FLAG_PULL, FLAG_ACK | FLAG_PULL, FLAG_NACK | FLAG_PULL][rng.gen_range(0..5)] };
    EgressMeta {
        remote_ip: rng.gen(),
        remote_port: rng.gen(),
        msg_len,
        pkt_offset: offset,
        local_port: rng.gen(),
        tx_msg_id: rng.gen(),
        credit: rng.gen(),
        rank: rng.gen_range(0..8),
        flags,
        grant_prio: rng.gen(),
        buf_ptr: rng.gen(),
        buf_size_class: rng.gen(),
    }
}

fn random_packets(rng: &mut ChaCha8Rng, n: usize, mismatch: f64) -> Vec<Packet> {
    (0..n)
        .map(|_| {
            let meta = random_meta(rng);
            let mut len = meta.payload_len();
            if rng.gen_bool(mismatch) {
                len = rng.gen_range(1..300);
            }
            Packet { meta, payload: (0..len).map(|_| rng.gen()).collect() }
        })
        .collect()
}

fn set_meta(io: &mut dyn Ports, m: &EgressMeta) {
    io.set("meta_remote_ip", m.remote_ip as u64);
    io.set("meta_remote_port", m.remote_port as u64);
    io.set("meta_msg_len", m.msg_len as u64);
    io.set("meta_pkt_offset", m.pkt_offset as u64);
    io.set("meta_local_port", m.local_port as u64);
    io.set("meta_tx_msg_id", m.tx_msg_id as u64);
    io.set("meta_credit", m.credit as u64);
    io.set("meta_rank", m.rank as u64);
    io.set("meta_flags", m.flags as u64);
    io.set("meta_grant_prio", m.grant_prio as u64);
    io.set("meta_buf_ptr", m.buf_ptr as u64);
    io.set("meta_buf_size_class", m.buf_size_class as u64);
}

/// A beat: its data as 64-bit words (byte 0 in the low byte of word 0), tkeep, tlast.
type Beat = (Vec<u64>, u64, bool);

/// Beats of `beat_bytes` (8 or 64) of a payload: an empty payload is one beat with tkeep 0.
fn beats(payload: &[u8], beat_bytes: usize) -> Vec<Beat> {
    if payload.is_empty() {
        return vec![(vec![0; beat_bytes / 8], 0, true)];
    }
    let n = payload.len().div_ceil(beat_bytes);
    (0..n)
        .map(|b| {
            let bytes = &payload[b * beat_bytes..(b * beat_bytes + beat_bytes).min(payload.len())];
            let mut d = vec![0u64; beat_bytes / 8];
            for (i, x) in bytes.iter().enumerate() {
                d[i / 8] |= (*x as u64) << (8 * (i % 8));
            }
            (d, if bytes.len() == 64 { u64::MAX } else { (1u64 << bytes.len()) - 1 }, b + 1 == n)
        })
        .collect()
}

/// The bytes of an output beat its tkeep marks.
fn kept_bytes(data: &[u64], keep: u64, beat_bytes: usize, into: &mut Vec<u8>) {
    for i in 0..beat_bytes {
        if keep >> i & 1 == 1 {
            into.push((data[i / 8] >> (8 * (i % 8))) as u8);
        }
    }
}

#[derive(Clone, Copy)]
struct Env {
    offer: f64,
    ready: f64,
}

#[derive(Default)]
struct Run {
    frames: Vec<Vec<u8>>,
    first_in_cycle: Vec<u64>,
    first_out_cycle: Vec<u64>,
    /// Cycles from the first beat out with m_axis.tready high, input data waiting or a frame in
    /// progress, and no beat out (a deparser with latency fills its stages before the first).
    idle_out: u64,
    out_beats: u64,
    cycles: u64,
    frame_count: u64,
    mismatch_count: u64,
}

fn drive(io: &mut dyn Ports, beat_bytes: usize, packets: &[Packet], env: Env, rng: &mut ChaCha8Rng) -> Run {
    let mut run = Run::default();
    io.set("reset", 1);
    io.set("s_axis$tvalid", 0);
    io.set("cfg_own_mac", CFG.own_mac);
    io.set("cfg_peer_mac", CFG.peer_mac);
    io.set("cfg_own_ip", CFG.own_ip as u64);
    io.eval();
    io.tick();
    io.set("reset", 0);
    let (mut pkt, mut beat, mut offering) = (0usize, 0usize, false);
    let mut cur = Vec::new();
    let mut in_frame = false;
    let (mut cycle, mut idle_after) = (0u64, 0);
    let mut first_seen = vec![false; packets.len()];
    while idle_after < 20 {
        if !offering && pkt < packets.len() {
            offering = rng.gen_bool(env.offer);
        }
        let lanes_mask = if beat_bytes == 64 { u64::MAX } else { (1u64 << beat_bytes) - 1 };
        let (mut d, mut k, mut l): Beat =
            ((0..beat_bytes / 8).map(|_| rng.gen()).collect(), rng.gen::<u64>() & lanes_mask, rng.gen_bool(0.5));
        if offering {
            let p = &packets[pkt];
            (d, k, l) = beats(&p.payload, beat_bytes)[beat].clone();
            if beat == 0 {
                set_meta(io, &p.meta);
                if !first_seen[pkt] {
                    first_seen[pkt] = true;
                    run.first_in_cycle.push(cycle);
                }
            } else {
                set_meta(io, &random_meta(rng));
            }
        } else {
            set_meta(io, &random_meta(rng));
        }
        io.set_wide("s_axis$tdata", &d);
        io.set("s_axis$tkeep", k);
        io.set("s_axis$tlast", l as u64);
        io.set("s_axis$tvalid", offering as u64);
        let ready = rng.gen_bool(env.ready);
        io.set("m_axis$tready", ready as u64);
        io.eval();
        if offering && io.get("s_axis$tready") == 1 {
            if l {
                pkt += 1;
                beat = 0;
                offering = false;
            } else {
                beat += 1;
            }
        }
        let out_valid = io.get("m_axis$tvalid") == 1;
        if ready && !out_valid && (offering || in_frame) && !run.first_out_cycle.is_empty() {
            run.idle_out += 1;
        }
        if out_valid && ready {
            if !in_frame {
                run.first_out_cycle.push(cycle);
                in_frame = true;
            }
            run.out_beats += 1;
            let (od, ok) = (io.get_wide("m_axis$tdata"), io.get("m_axis$tkeep"));
            assert!(ok != 0, "an empty beat on the MAC stream at cycle {cycle}");
            kept_bytes(&od, ok, beat_bytes, &mut cur);
            if io.get("m_axis$tlast") == 1 {
                run.frames.push(std::mem::take(&mut cur));
                in_frame = false;
            }
        }
        io.tick();
        cycle += 1;
        if pkt >= packets.len() {
            idle_after += 1;
        }
        assert!(cycle < 200 * (packets.len() as u64 + 10) * 140, "no progress");
    }
    io.eval();
    run.frame_count = io.get("frame_count");
    run.mismatch_count = io.get("length_mismatch_count");
    run.cycles = cycle;
    run
}

fn check(packets: &[Packet], run: &Run) {
    assert_eq!(run.frames.len(), packets.len());
    let mut mismatches = 0;
    for (i, (p, f)) in packets.iter().zip(&run.frames).enumerate() {
        assert_eq!(*f, deparse(&p.meta, &CFG, PROTO, &p.payload), "frame {i}");
        assert!(f.len() >= MIN_FRAME_BYTES);
        if p.payload.len() != p.meta.payload_len() {
            mismatches += 1;
        } else {
            // A frame whose payload matches its metadata parses back to its metadata.
            let (h, payload) = parse(f, PROTO).expect("parses");
            assert_eq!(h, p.meta.header(&CFG));
            assert_eq!(payload, p.payload);
        }
    }
    assert_eq!(run.frame_count, packets.len() as u64);
    assert_eq!(run.mismatch_count, mismatches);
}

#[test]
fn unit_header_leaves_with_the_first_payload_beat() {
    let mut rng = ChaCha8Rng::seed_from_u64(seed("pisa_deparser_unit_latency", 7));
    let mut meta = random_meta(&mut rng);
    meta.flags = FLAG_DATA;
    meta.msg_len = 16;
    meta.pkt_offset = 0;
    let p = Packet { meta, payload: vec![0x11; 16] };
    let ctrl = Packet { meta: EgressMeta { flags: FLAG_ACK | FLAG_PULL, ..meta }, payload: vec![0] };
    let packets = vec![p.clone(), ctrl, p];
    let mut native = NativeStepper::<Deparser>::default();
    let run = drive(&mut native, 8, &packets, Env { offer: 1.0, ready: 1.0 }, &mut rng);
    check(&packets, &run);
    assert_eq!(run.first_in_cycle, vec![0, 10, 19]);
    assert_eq!(run.first_out_cycle, vec![0, 10, 19], "header beat 0 leaves in the cycle its payload arrives");
    assert_eq!(run.idle_out, 0);
    assert_eq!(run.frames[1].len(), 65, "a control packet: 64-byte header + 1 dummy byte");
}

/// The 512-bit deparser, natively: a 16-byte DATA packet, a control packet and the DATA packet
/// again, and an empty payload, back to back; the header beat leaves 3 cycles after the first
/// payload beat came in (the stages filling), then every cycle carries a beat: a frame of one
/// payload beat every 2 cycles, the empty payload in 1.
#[test]
fn wide_unit_header_three_cycles_after_the_first_payload_beat() {
    let mut rng = ChaCha8Rng::seed_from_u64(seed("pisa_wide_deparser_unit_latency", 7));
    let mut meta = random_meta(&mut rng);
    meta.flags = FLAG_DATA;
    meta.msg_len = 16;
    meta.pkt_offset = 0;
    let p = Packet { meta, payload: vec![0x11; 16] };
    let ctrl = Packet { meta: EgressMeta { flags: FLAG_ACK | FLAG_PULL, ..meta }, payload: vec![0] };
    let empty = Packet { meta: EgressMeta { msg_len: 1024, pkt_offset: 1, ..meta }, payload: vec![] };
    let packets = vec![p.clone(), ctrl, empty, p];
    let mut native = NativeStepper::<WideDeparser>::default();
    let run = drive(&mut native, 64, &packets, Env { offer: 1.0, ready: 1.0 }, &mut rng);
    check(&packets, &run);
    // (A frame's first beat is counted in when first offered: the last waits a cycle.)
    assert_eq!(run.first_in_cycle, vec![0, 1, 2, 3]);
    assert_eq!(
        run.first_out_cycle,
        vec![3, 5, 7, 8],
        "header beats: 3 cycles after the first, then one frame per 2 (1 for the empty payload)"
    );
    assert_eq!(run.idle_out, 0);
    assert_eq!(run.frames[1].len(), 65, "a control packet: 64-byte header + 1 dummy byte");
    assert_eq!(run.frames[2].len(), 64, "an empty payload: the header beat alone");
}

/// Lockstep: rust-hdl against Verilator on random packets with back-pressure, at least 10 000
/// cycles.
fn lockstep_packets<D: nanotransport_sim::cosim::native::NativeDut>(w: Width, count: usize, default_seed: u64) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed(&format!("pisa_{}_lockstep", w.name), default_seed));
    let packets = random_packets(&mut rng, count, 0.05);
    let mut io = Lockstep::<D>::new(w.model).unwrap();
    let run = drive(&mut io, w.beat_bytes, &packets, Env { offer: 0.8, ready: 0.7 }, &mut rng);
    check(&packets, &run);
    assert!(run.cycles >= 10_000, "lockstep ran {} cycles", run.cycles);
    println!(
        "{} lockstep: {} cycles, {} comparisons, {} frames ({} length mismatches)",
        w.name,
        run.cycles,
        io.comparisons,
        run.frames.len(),
        run.mismatch_count
    );
}

#[test]
fn lockstep_random_packets() {
    lockstep_packets::<Deparser>(NARROW_DEPARSER, 300, 511);
}

#[test]
fn wide_lockstep_random_packets() {
    lockstep_packets::<WideDeparser>(WIDE_DEPARSER, 2000, 516);
}

/// Reference model on the Verilator model, under three offer / back-pressure mixes.
fn model_runs(w: Width, default_seed: u64) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed(&format!("pisa_{}_model", w.name), default_seed));
    for env in [Env { offer: 0.5, ready: 0.5 }, Env { offer: 0.95, ready: 0.3 }, Env { offer: 0.3, ready: 0.95 }] {
        let packets = random_packets(&mut rng, 10_000, 0.05);
        let mut io = VerilatedModel::new(w.model).unwrap();
        let run = drive(&mut io, w.beat_bytes, &packets, env, &mut rng);
        check(&packets, &run);
        assert!(run.mismatch_count > 0);
        println!(
            "{} model run (offer {}, ready {}): {} frames, {} cycles, length_mismatch_count {}",
            w.name,
            env.offer,
            env.ready,
            run.frames.len(),
            run.cycles,
            run.mismatch_count
        );
    }
}

#[test]
fn model_random_packets_on_verilator() {
    model_runs(NARROW_DEPARSER, 512);
}

#[test]
fn wide_model_random_packets_on_verilator() {
    model_runs(WIDE_DEPARSER, 517);
}

/// Back to back at full rate: every frame in ceil(frame bytes / beat bytes) beats, no idle beat
/// on the MAC stream once the first header is out, the deparser's latency for the first frame.
fn throughput(w: Width, default_seed: u64) -> Run {
    let mut rng = ChaCha8Rng::seed_from_u64(seed(&format!("pisa_{}_throughput", w.name), default_seed));
    let mut packets = random_packets(&mut rng, 1500, 0.0);
    for _ in 0..1000 {
        let meta = EgressMeta { flags: FLAG_DATA, msg_len: 1, pkt_offset: 0, ..random_meta(&mut rng) };
        packets.push(Packet { meta, payload: vec![0x42] }); // 65-byte frames
    }
    let mut io = VerilatedModel::new(w.model).unwrap();
    let run = drive(&mut io, w.beat_bytes, &packets, Env { offer: 1.0, ready: 1.0 }, &mut rng);
    check(&packets, &run);
    let frame_beats = |f: &Vec<u8>| f.len().div_ceil(w.beat_bytes) as u64;
    let expected_beats: u64 = run.frames.iter().map(frame_beats).sum();
    assert_eq!(run.out_beats, expected_beats);
    assert_eq!(run.idle_out, 0, "idle beats on the MAC stream at full rate");
    let span = run.first_out_cycle.last().unwrap() - run.first_out_cycle[0] + frame_beats(run.frames.last().unwrap());
    assert_eq!(span, expected_beats);
    let lat: Vec<u64> = run.first_out_cycle.iter().zip(&run.first_in_cycle).map(|(o, i)| o - i).collect();
    assert_eq!(lat[0], w.latency, "first payload beat in → header beat out");
    println!(
        "{} throughput: {} frames, {} beats out in {} cycles ({:.3} beats/cycle), 0 idle beats after the first header, latency {} cycles",
        w.name,
        run.frames.len(),
        expected_beats,
        span,
        expected_beats as f64 / span as f64,
        w.latency
    );
    run
}

#[test]
fn throughput_back_to_back() {
    let run = throughput(NARROW_DEPARSER, 513);
    let lat: Vec<u64> = run.first_out_cycle.iter().zip(&run.first_in_cycle).map(|(o, i)| o - i).collect();
    assert!(lat.iter().all(|&l| l == 0), "the header leaves as its first payload beat arrives");
}

/// At 512 bits the 1 000 65-byte frames at the end go out one every 2 cycles.
#[test]
fn wide_throughput_back_to_back() {
    let run = throughput(WIDE_DEPARSER, 518);
    let starts = &run.first_out_cycle[run.first_out_cycle.len() - 1000..];
    assert!(starts.windows(2).all(|p| p[1] - p[0] == 2), "a 65-byte frame every 2 cycles");
}

/// Deparser → parser, both Verilator models, wired beat for beat: every field the metadata set
/// comes back from the parser, payloads intact, no drop counted.
fn round_trip(w: Width, seed_name: &str, default_seed: u64) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed(seed_name, default_seed));
    let packets = random_packets(&mut rng, 10_000, 0.0);
    let mut dep = VerilatedModel::new(w.model).unwrap();
    let mut par = VerilatedModel::new(w.parser_model).unwrap();
    for io in [&mut dep as &mut dyn Ports, &mut par] {
        io.set("reset", 1);
        io.eval();
        io.tick();
        io.set("reset", 0);
    }
    dep.set_cfg();
    let (mut pkt, mut beat) = (0usize, 0usize);
    let mut got: Vec<(nanotransport_reference::pisa::Header, Vec<u8>)> = Vec::new();
    let mut cur: Option<(nanotransport_reference::pisa::Header, Vec<u8>)> = None;
    let (mut first_in, mut first_out) = (Vec::new(), Vec::new());
    let mut cycle = 0u64;
    while got.len() < packets.len() {
        let offering = pkt < packets.len();
        if offering {
            let p = &packets[pkt];
            let (d, k, l) = beats(&p.payload, w.beat_bytes)[beat].clone();
            set_meta(&mut dep, &p.meta);
            Ports::set_wide(&mut dep, "s_axis$tdata", &d);
            Ports::set(&mut dep, "s_axis$tkeep", k);
            Ports::set(&mut dep, "s_axis$tlast", l as u64);
        }
        Ports::set(&mut dep, "s_axis$tvalid", offering as u64);
        let sink_ready = rng.gen_bool(0.9);
        Ports::set(&mut par, "m_axis$tready", sink_ready as u64);
        Ports::eval(&mut par);
        // The parser's ready does not depend on its input valid: settle it first.
        let par_ready = Ports::get(&mut par, "s_axis$tready");
        Ports::set(&mut dep, "m_axis$tready", par_ready);
        Ports::eval(&mut dep);
        let data = Ports::get_wide(&mut dep, "m_axis$tdata");
        Ports::set_wide(&mut par, "s_axis$tdata", &data);
        for signal in ["tkeep", "tlast", "tvalid"] {
            let v = Ports::get(&mut dep, &format!("m_axis${signal}"));
            Ports::set(&mut par, &format!("s_axis${signal}"), v);
        }
        Ports::eval(&mut par);
        assert_eq!(Ports::get(&mut par, "s_axis$tready"), par_ready);
        if offering && Ports::get(&mut dep, "s_axis$tready") == 1 {
            if beat == 0 {
                first_in.push(cycle);
            }
            if beats(&packets[pkt].payload, w.beat_bytes)[beat].2 {
                pkt += 1;
                beat = 0;
            } else {
                beat += 1;
            }
        }
        if Ports::get(&mut par, "m_axis$tvalid") == 1 && sink_ready {
            if Ports::get(&mut par, "m_axis_tfirst") == 1 {
                first_out.push(cycle);
                let h = read_parser_header(&mut par);
                cur = Some((h, Vec::new()));
            }
            let c = cur.as_mut().expect("first beat");
            let (d, k) = (Ports::get_wide(&mut par, "m_axis$tdata"), Ports::get(&mut par, "m_axis$tkeep"));
            kept_bytes(&d, k, w.beat_bytes, &mut c.1);
            if Ports::get(&mut par, "m_axis$tlast") == 1 {
                got.push(cur.take().unwrap());
            }
        }
        Ports::tick(&mut dep);
        Ports::tick(&mut par);
        cycle += 1;
        assert!(cycle < 10_000_000);
    }
    for (i, (p, (h, payload))) in packets.iter().zip(&got).enumerate() {
        assert_eq!(*h, p.meta.header(&CFG), "header of packet {i}");
        assert_eq!(*payload, p.payload, "payload of packet {i}");
    }
    Ports::eval(&mut par);
    assert_eq!(Ports::get(&mut par, "frame_count"), packets.len() as u64);
    for c in ["not_ipv4_count", "wrong_protocol_count", "too_short_count", "bad_checksum_count", "bad_flags_count"] {
        assert_eq!(Ports::get(&mut par, c), 0, "{c}");
    }
    println!("round trip {} → parser: {} packets, {} cycles, header fields and payloads identical", w.name, packets.len(), cycle);
}

#[test]
fn round_trip_deparser_to_parser() {
    round_trip(NARROW_DEPARSER, "pisa_round_trip", 514);
}

#[test]
fn wide_round_trip_deparser_to_parser() {
    round_trip(WIDE_DEPARSER, "pisa_wide_round_trip", 519);
}

trait SetCfg {
    fn set_cfg(&mut self);
}

impl SetCfg for VerilatedModel {
    fn set_cfg(&mut self) {
        Ports::set(self, "cfg_own_mac", CFG.own_mac);
        Ports::set(self, "cfg_peer_mac", CFG.peer_mac);
        Ports::set(self, "cfg_own_ip", CFG.own_ip as u64);
    }
}

fn read_parser_header(io: &mut dyn Ports) -> nanotransport_reference::pisa::Header {
    let mut g = |p: &str| io.get(p);
    nanotransport_reference::pisa::Header {
        dst_mac: g("hdr_dst_mac"),
        src_mac: g("hdr_src_mac"),
        ip_tos: g("hdr_ip_tos") as u8,
        ip_total_len: g("hdr_ip_total_len") as u16,
        ip_ident: g("hdr_ip_ident") as u16,
        ip_ttl: g("hdr_ip_ttl") as u8,
        src_ip: g("hdr_src_ip") as u32,
        dst_ip: g("hdr_dst_ip") as u32,
        flags: g("hdr_flags") as u8,
        src_context: g("hdr_src_context") as u16,
        dst_context: g("hdr_dst_context") as u16,
        msg_len: g("hdr_msg_len") as u16,
        pkt_offset: g("hdr_pkt_offset") as u8,
        pull_offset: g("hdr_pull_offset") as u16,
        grant_prio: g("hdr_grant_prio") as u8,
        tx_msg_id: g("hdr_tx_msg_id") as u16,
        buf_ptr: g("hdr_buf_ptr") as u16,
        buf_size_class: g("hdr_buf_size_class") as u8,
    }
}

/// Lockstep on raw random beats and metadata with random resets (mid-frame resets).
fn lockstep_beats<D: nanotransport_sim::cosim::native::NativeDut>(w: Width, default_seed: u64) {
    use nanotransport_sim::cosim::lockstep::{expect_agreement, run_lockstep};
    use nanotransport_sim::cosim::stimulus::{Drive, Stimulus};
    let stim = Stimulus::new()
        .drive("reset", Drive::Bernoulli(0.003))
        .drive("s_axis$tvalid", Drive::Bernoulli(0.8))
        .drive("s_axis$tlast", Drive::Bernoulli(0.2))
        .drive("m_axis$tready", Drive::Bernoulli(0.7))
        .drive("meta_flags", Drive::Range(0, 3))
        .drive("meta_pkt_offset", Drive::Range(0, 3));
    let s = seed(&format!("pisa_{}_lockstep_resets", w.name), default_seed);
    expect_agreement(run_lockstep::<D>(w.model, &stim, 10_000, s));
}

#[test]
fn lockstep_random_beats_with_resets() {
    lockstep_beats::<Deparser>(NARROW_DEPARSER, 515);
}

#[test]
fn wide_lockstep_random_beats_with_resets() {
    lockstep_beats::<WideDeparser>(WIDE_DEPARSER, 520);
}
