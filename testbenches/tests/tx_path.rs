//! Transmit path (hdl/nic/tx_path.rs) on the Verilator model of its generated Verilog: latency
//! of a 16-byte message, line rate with 1-byte messages, size classes and backpressure, payload
//! and metadata of every packet, bad input, leaks, and the native-vs-Verilator lockstep.

use nanotransport_sim::nic::message_words;
use nanotransport_hdl::nic::tx_path::TxPath16;
use nanotransport_sim::cosim::lockstep::run_lockstep;
use nanotransport_sim::cosim::stimulus::{Drive, Stimulus};
use nanotransport_sim::cosim::verilated::{PortId, VerilatedModel};
use nanotransport_testbenches::seed;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::{HashMap, VecDeque};

const MODEL: &str = "nt_nic_16_tx_path";

const INPUTS: &[&str] = &[
    "reset", "default_credit", "timeout_threshold", "rto_cycles", "s_axis_msg_tdata", "s_axis_msg_tkeep",
    "s_axis_msg_tlast", "s_axis_msg_tvalid", "done_ready", "dlv_valid", "dlv_tx_msg_id", "dlv_ack_bitmap",
    "ctx_valid", "ctx_tx_msg_id", "ctx_rtx_flag", "ctx_rtx_bitmap", "ctx_credit_flag", "ctx_new_credit",
    "ctx_allow_tx", "ctx_raise_only", "m_axis_pkt_tready",
];
const OUTPUTS: &[&str] = &[
    "s_axis_msg_tready", "msg_id_valid", "msg_id", "done_valid", "done_tx_msg_id", "done_abandoned",
    "m_axis_pkt_tdata", "m_axis_pkt_tkeep", "m_axis_pkt_tlast", "m_axis_pkt_tvalid", "m_axis_pkt_remote_ip",
    "m_axis_pkt_remote_port", "m_axis_pkt_msg_len", "m_axis_pkt_pkt_offset", "m_axis_pkt_local_port",
    "m_axis_pkt_tx_msg_id", "m_axis_pkt_credit", "m_axis_pkt_rank", "m_axis_pkt_flags", "m_axis_pkt_is_new_msg",
    "m_axis_pkt_is_rtx", "active", "buffers_all_free", "rejected_msg_count", "framing_error_count",
    "stale_delivered_count", "stale_credit_count", "stale_timeout_count", "ack_beyond_count", "rtx_beyond_count",
    "credit_beyond_count", "delivered_msg_count", "abandoned_msg_count", "write_busy_count",
    "buffer_double_free_count", "buffers_exhausted",
];

#[derive(Clone, Copy, Debug, Default)]
struct In {
    word: Option<(u64, u8, bool)>,
    done_ready: bool,
    dlv: Option<(u16, u64)>,
    ctx: Option<(u16, Option<u64>, Option<u16>, bool, bool)>,
    pkt_ready: bool,
}

struct Tx {
    m: VerilatedModel,
    inp: Vec<PortId>,
    out: Vec<PortId>,
    cycle: u64,
    threshold: u64,
    rto: u64,
    credit: u64,
}

impl Tx {
    fn new(threshold: u64, rto: u64, credit: u64) -> Self {
        let m = VerilatedModel::new(MODEL).unwrap();
        let inp = INPUTS.iter().map(|p| m.port_or_panic(p)).collect();
        let out = OUTPUTS.iter().map(|p| m.port_or_panic(p)).collect();
        let mut t = Tx { m, inp, out, cycle: 0, threshold, rto, credit };
        t.set("reset", 1);
        t.step(&In::default());
        t.set("reset", 0);
        t.cycle = 0;
        t
    }
    fn set(&mut self, name: &str, v: u64) {
        let k = INPUTS.iter().position(|p| *p == name).unwrap();
        self.m.set(self.inp[k], v);
    }
    fn get(&self, name: &str) -> u64 {
        let k = OUTPUTS.iter().position(|p| *p == name).unwrap();
        self.m.get(self.out[k])
    }
    /// Applies inputs and settles (outputs readable), without clocking.
    fn apply(&mut self, i: &In) {
        self.set("default_credit", self.credit);
        self.set("timeout_threshold", self.threshold);
        self.set("rto_cycles", self.rto);
        let (w, k, l) = i.word.unwrap_or((0, 0, false));
        self.set("s_axis_msg_tdata", w);
        self.set("s_axis_msg_tkeep", k as u64);
        self.set("s_axis_msg_tlast", l as u64);
        self.set("s_axis_msg_tvalid", i.word.is_some() as u64);
        self.set("done_ready", i.done_ready as u64);
        let (id, bits) = i.dlv.unwrap_or((0, 0));
        self.set("dlv_valid", i.dlv.is_some() as u64);
        self.set("dlv_tx_msg_id", id as u64);
        self.set("dlv_ack_bitmap", bits);
        let (cid, rtx, credit, allow, raise) = i.ctx.unwrap_or((0, None, None, false, false));
        self.set("ctx_valid", i.ctx.is_some() as u64);
        self.set("ctx_tx_msg_id", cid as u64);
        self.set("ctx_rtx_flag", rtx.is_some() as u64);
        self.set("ctx_rtx_bitmap", rtx.unwrap_or(0));
        self.set("ctx_credit_flag", credit.is_some() as u64);
        self.set("ctx_new_credit", credit.unwrap_or(0) as u64);
        self.set("ctx_allow_tx", allow as u64);
        self.set("ctx_raise_only", raise as u64);
        self.set("m_axis_pkt_tready", i.pkt_ready as u64);
        self.m.eval();
    }
    fn step(&mut self, i: &In) {
        self.apply(i);
        self.m.tick();
        self.cycle += 1;
    }
}

fn payload_of(seed: u64, len: usize) -> Vec<u8> {
    (0..len).map(|k| (seed.wrapping_mul(0x9e37_79b9).wrapping_add(k as u64 * 31) >> 3) as u8).collect()
}

/// A packet seen on m_axis_pkt: metadata of its first beat and its payload bytes.
#[derive(Clone, Debug, Default)]
struct Seen {
    tx_msg_id: u16,
    offset: u8,
    msg_len: u16,
    remote_ip: u32,
    remote_port: u16,
    local_port: u16,
    rank: u8,
    is_new: bool,
    is_rtx: bool,
    flags: u8,
    bytes: Vec<u8>,
}

/// Collects beats into packets; call after `apply` with the cycle's tready.
#[derive(Default)]
struct Collector {
    cur: Option<Seen>,
    done: Vec<Seen>,
    beats: u64,
}

impl Collector {
    fn observe(&mut self, t: &Tx, ready: bool) -> Option<Seen> {
        if t.get("m_axis_pkt_tvalid") == 0 || !ready {
            return None;
        }
        self.beats += 1;
        let cur = self.cur.get_or_insert_with(|| Seen {
            tx_msg_id: t.get("m_axis_pkt_tx_msg_id") as u16,
            offset: t.get("m_axis_pkt_pkt_offset") as u8,
            msg_len: t.get("m_axis_pkt_msg_len") as u16,
            remote_ip: t.get("m_axis_pkt_remote_ip") as u32,
            remote_port: t.get("m_axis_pkt_remote_port") as u16,
            local_port: t.get("m_axis_pkt_local_port") as u16,
            rank: t.get("m_axis_pkt_rank") as u8,
            is_new: t.get("m_axis_pkt_is_new_msg") == 1,
            is_rtx: t.get("m_axis_pkt_is_rtx") == 1,
            flags: t.get("m_axis_pkt_flags") as u8,
            bytes: vec![],
        });
        let data = t.get("m_axis_pkt_tdata");
        let keep = t.get("m_axis_pkt_tkeep");
        for k in 0..8 {
            if keep >> k & 1 == 1 {
                cur.bytes.push((data >> (8 * k)) as u8);
            }
        }
        if t.get("m_axis_pkt_tlast") == 1 {
            let p = self.cur.take().unwrap();
            self.done.push(p.clone());
            return Some(p);
        }
        None
    }
}

#[test]
fn sixteen_byte_message_latency() {
    let mut t = Tx::new(3, 100_000, 12);
    let payload = payload_of(1, 16);
    let words = message_words(16, None, 0, 0x0a000002, 9000, 7, &payload);
    let mut col = Collector::default();
    let mut accepted_first = None;
    let mut next = 0;
    let mut first_beat = None;
    let mut id = None;
    for _ in 0..40 {
        let i = In { word: words.get(next).copied(), pkt_ready: true, done_ready: true, ..Default::default() };
        t.apply(&i);
        if i.word.is_some() && t.get("s_axis_msg_tready") == 1 {
            if next == 0 {
                accepted_first = Some(t.cycle);
            }
            next += 1;
        }
        if t.get("msg_id_valid") == 1 {
            id = Some(t.get("msg_id") as u16);
        }
        if t.get("m_axis_pkt_tvalid") == 1 && first_beat.is_none() {
            first_beat = Some(t.cycle);
        }
        col.observe(&t, true);
        t.m.tick();
        t.cycle += 1;
    }
    let latency = first_beat.unwrap() - accepted_first.unwrap();
    println!("tx_path: 16-byte message, first descriptor word accepted → first packet beat valid (first payload bytes): {latency} cycles ({:.2} ns at 3.2 GHz; thesis packetize 9 cycles)", latency as f64 / 3.2);
    assert_eq!(col.done.len(), 1);
    let p = &col.done[0];
    assert_eq!(p.bytes, payload);
    assert_eq!((p.tx_msg_id, p.offset, p.msg_len, p.remote_ip, p.remote_port, p.local_port, p.is_new, p.is_rtx, p.flags), (id.unwrap(), 0, 16, 0x0a000002, 9000, 7, true, false, 1));
    assert!(latency <= 9, "target ≤ 9 cycles, measured {latency}");
}

/// Back-to-back 1-byte messages; the testbench is the wire (8 header beats added per packet by
/// the egress, then the payload beat: 65 bytes = 9 beats) and an ideal receiver whose ACK
/// (DeliveredEvent) arrives in the cycle the packet's last beat leaves.
#[test]
fn line_rate_with_one_byte_messages() {
    let mut t = Tx::new(3, 1_000_000, 12);
    let total_msgs = 3000u64;
    let mut cpu: VecDeque<(u64, u8, bool)> = VecDeque::new();
    for k in 0..total_msgs {
        cpu.extend(message_words(1, None, 0, 0x0a000000 | k as u32, 1, 2, &[k as u8]));
    }
    let mut col = Collector::default();
    let mut wire_busy = 0u32; // header beats left for the packet at the head
    let mut wire_idle = Vec::new();
    let mut pkt_cycles = Vec::new();
    let mut pending_ack: Option<u16> = None;
    let mut bytes_ok = 0u64;
    let mut header_started = false;
    for _ in 0..(total_msgs * 12) {
        let ready = header_started && wire_busy == 0;
        let i = In { word: cpu.front().copied(), done_ready: true, dlv: pending_ack.take().map(|id| (id, 1)), pkt_ready: ready, ..Default::default() };
        t.apply(&i);
        if i.word.is_some() && t.get("s_axis_msg_tready") == 1 {
            cpu.pop_front();
        }
        // The wire: idle → (packet available) 8 header beats → payload beat(s).
        let valid = t.get("m_axis_pkt_tvalid") == 1;
        let mut wire_used = true;
        if !header_started {
            if valid {
                header_started = true;
                wire_busy = 7; // this cycle carries header beat 1 of 8
            } else {
                wire_used = false;
            }
        } else if wire_busy > 0 {
            wire_busy -= 1;
        } else if let Some(p) = col.observe(&t, true) {
            pending_ack = Some(p.tx_msg_id);
            bytes_ok += (p.bytes == [p.remote_ip as u8]) as u64;
            pkt_cycles.push(t.cycle);
            header_started = false;
        }
        wire_idle.push(!wire_used);
        t.m.tick();
        t.cycle += 1;
        if col.done.len() as u64 == total_msgs {
            break;
        }
    }
    assert_eq!(col.done.len() as u64, total_msgs, "every message sent");
    assert_eq!(bytes_ok, total_msgs, "every payload byte correct");
    // Steady state: the middle 80 % of the run.
    let n = pkt_cycles.len();
    let (a, b) = (pkt_cycles[n / 10], pkt_cycles[n * 9 / 10]);
    let pkts = (n * 9 / 10 - n / 10) as f64;
    let cycles = (b - a) as f64;
    let idle = wire_idle[a as usize..b as usize].iter().filter(|x| **x).count();
    let beats_per_cycle = pkts * 9.0 / cycles;
    println!(
        "tx_path line rate, 1-byte messages (65-byte frames = 9 beats at 64 bits), ACK = ideal receiver on the last beat: \
         {:.3} cycles/packet, {idle} idle wire cycles in {cycles} steady-state cycles, {beats_per_cycle:.3} beats/cycle, \
         {:.1} Mpps, {:.1} Gb/s of frames at 3.2 GHz",
        cycles / pkts,
        pkts / cycles * 3200.0,
        pkts / cycles * 3.2 * 65.0 * 8.0
    );
    assert_eq!(idle, 0, "no idle beat in steady state");
    let o = (0..200).map(|_| { let i = In { done_ready: true, pkt_ready: true, dlv: pending_ack.take().map(|id| (id, 1)), ..Default::default() }; t.step(&i); t.get("buffers_all_free") }).last();
    assert_eq!(o, Some(1), "all buffers free after the run");
    assert_eq!(t.get("active"), 0);
}

/// Random messages, random ACK order, NACKs, credit changes, timeouts and MAC backpressure; every
/// packet's payload and metadata checked, no packet reordered within a message's first pass,
/// bad input counted, and everything free at the end.
#[test]
fn random_traffic_scoreboard_bad_input_and_leaks() {
    let seed = seed("tx_path random", 0x7043);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut t = Tx::new(4, 600, 4);
    struct Msg {
        len: u16,
        payload: Vec<u8>,
        sent: u64,
        next_new: u8,
        ip: u32,
    }
    let mut msgs: HashMap<u16, Msg> = HashMap::new();
    let mut pending_cpu: VecDeque<(u64, u8, bool)> = VecDeque::new();
    let mut pending_meta: VecDeque<(u16, Vec<u8>, u32)> = VecDeque::new();
    let mut col = Collector::default();
    let (mut rejected, mut framing, mut written, mut completions, mut abandoned) = (0u64, 0u64, 0u64, 0u64, 0u64);
    let mut stalled_cycles = 0u64;
    let cycles = 400_000u64;
    let mut k = 0u64;
    while t.cycle < cycles || !msgs.is_empty() || !pending_cpu.is_empty() {
        let draining = t.cycle >= cycles;
        if t.cycle > cycles + 400_000 {
            panic!("not drained: {} messages left", msgs.len());
        }
        if pending_cpu.is_empty() && !draining && rng.gen_bool(0.05) {
            k += 1;
            match rng.gen_range(0..40) {
                0 => {
                    // zero-length or too long: consumed and rejected
                    let len = if rng.gen_bool(0.5) { 0 } else { rng.gen_range(38913..=65535) };
                    pending_cpu.extend(message_words(len, None, 0, 0, 0, 0, &[0; 16]));
                    rejected += 1;
                }
                1 => {
                    // tlast one word early
                    let len = rng.gen_range(9..2000);
                    let mut w = message_words(len, None, 0, 0, 0, 0, &payload_of(k, len as usize));
                    w.pop();
                    w.last_mut().unwrap().2 = true;
                    pending_cpu.extend(w);
                    framing += 1;
                }
                2 => {
                    // tlast one word late
                    let len = rng.gen_range(1..2000);
                    let mut w = message_words(len, None, 0, 0, 0, 0, &payload_of(k, len as usize));
                    w.last_mut().unwrap().2 = false;
                    w.push((0, 0xff, true));
                    pending_cpu.extend(w);
                    framing += 1;
                }
                3 => {
                    // wrong tkeep on the last word
                    let len = rng.gen_range(1..2000);
                    let mut w = message_words(len, None, 0, 0, 0, 0, &payload_of(k, len as usize));
                    let last = w.last_mut().unwrap();
                    last.1 = !last.1 | 0x01;
                    pending_cpu.extend(w);
                    framing += 1;
                }
                _ => {
                    let len = match rng.gen_range(0..10) {
                        0..=5 => rng.gen_range(1..=1024),
                        6..=8 => rng.gen_range(1..=8192),
                        _ => rng.gen_range(1..=38912),
                    };
                    let payload = payload_of(k, len as usize);
                    let ip = rng.gen();
                    let credit = rng.gen_bool(0.3).then(|| rng.gen_range(0..6));
                    pending_cpu.extend(message_words(len, credit, 5, ip, 1, 2, &payload));
                    pending_meta.push_back((len, payload, ip));
                }
            }
        }
        // Events from the "ingress".
        let mut i = In { word: pending_cpu.front().copied(), done_ready: rng.gen_bool(0.8), pkt_ready: rng.gen_bool(0.7), ..Default::default() };
        if !msgs.is_empty() && rng.gen_bool(if draining { 0.3 } else { 0.1 }) {
            let mut ids: Vec<u16> = msgs.keys().copied().collect();
            ids.sort();
            let id = ids[rng.gen_range(0..ids.len())];
            let m = &msgs[&id];
            match rng.gen_range(0..10) {
                0..=5 => {
                    let bits = if draining { m.sent } else { m.sent & rng.gen::<u64>() };
                    i.dlv = Some((id, bits));
                }
                6..=7 => i.ctx = Some((id, Some(m.sent & rng.gen::<u64>()), None, rng.gen_bool(0.5), false)),
                _ => i.ctx = Some((id, None, Some(rng.gen_range(0..40)), true, rng.gen_bool(0.5))),
            }
        }
        t.apply(&i);
        if i.word.is_some() {
            if t.get("s_axis_msg_tready") == 1 {
                pending_cpu.pop_front();
            } else {
                stalled_cycles += 1;
            }
        }
        if t.get("msg_id_valid") == 1 {
            let (len, payload, ip) = pending_meta.pop_front().expect("an ID for a message we wrote");
            let id = t.get("msg_id") as u16;
            assert!(msgs.insert(id, Msg { len, payload, sent: 0, next_new: 0, ip }).is_none(), "ID {id:#x} handed out twice");
            written += 1;
        }
        if i.done_ready && t.get("done_valid") == 1 {
            let id = t.get("done_tx_msg_id") as u16;
            assert!(msgs.remove(&id).is_some(), "completion for unknown ID {id:#x}");
            completions += 1;
            abandoned += t.get("done_abandoned");
        }
        if let Some(p) = col.observe(&t, i.pkt_ready) {
            if let Some(m) = msgs.get_mut(&p.tx_msg_id) {
                let off = p.offset as usize;
                let end = (m.len as usize).min(off * 1024 + 1024);
                assert_eq!(p.bytes, m.payload[off * 1024..end], "payload of {:#x} offset {off}", p.tx_msg_id);
                assert_eq!((p.msg_len, p.remote_ip, p.rank, p.flags), (m.len, m.ip, 5, 1));
                if !p.is_rtx {
                    assert_eq!(p.offset, m.next_new, "first transmissions in offset order");
                    m.next_new += 1;
                }
                m.sent |= 1 << off;
            }
        }
        t.m.tick();
        t.cycle += 1;
    }
    for _ in 0..100 {
        t.step(&In { done_ready: true, pkt_ready: true, ..Default::default() });
    }
    let c = |n| t.get(n);
    println!(
        "tx_path random: seed {seed}, {} cycles, {written} messages, {} packets, {completions} completions ({abandoned} abandoned), \
         CPU stalled by backpressure {stalled_cycles} cycles; rejected {} framing {} stale dlv/ctx/timeout {}/{}/{} double frees {}",
        t.cycle, col.done.len(), c("rejected_msg_count"), c("framing_error_count"), c("stale_delivered_count"),
        c("stale_credit_count"), c("stale_timeout_count"), c("buffer_double_free_count")
    );
    assert_eq!(c("rejected_msg_count"), rejected);
    assert_eq!(c("framing_error_count"), framing);
    assert_eq!(completions, written);
    assert_eq!(c("active"), 0, "slot leak");
    assert_eq!(c("buffers_all_free"), 1, "buffer leak");
    assert_eq!(c("buffer_double_free_count"), 0);
    assert!(stalled_cycles > 0, "backpressure exercised");
}

#[test]
fn all_buffers_in_use_backpressures_the_cpu_without_loss() {
    let mut t = Tx::new(3, 1_000_000, 0); // credit 0: nothing is sent, nothing completes
    let mut cpu: VecDeque<(u64, u8, bool)> = VecDeque::new();
    for k in 0..17u64 {
        cpu.extend(message_words(100, None, 0, k as u32, 0, 0, &payload_of(k, 100)));
    }
    let mut ids = vec![];
    for _ in 0..400 {
        let i = In { word: cpu.front().copied(), done_ready: true, pkt_ready: true, ..Default::default() };
        t.apply(&i);
        if i.word.is_some() && t.get("s_axis_msg_tready") == 1 {
            cpu.pop_front();
        }
        if t.get("msg_id_valid") == 1 {
            ids.push(t.get("msg_id") as u16);
        }
        t.m.tick();
        t.cycle += 1;
    }
    // 16 buffers: 8 of the 1 KiB class, then the larger classes; the 17th waits at tready.
    let slots: Vec<u16> = ids.iter().map(|id| id & 0xf).collect();
    assert_eq!(slots.len(), 16);
    assert_eq!(&slots[..8], &(0..8).collect::<Vec<u16>>(), "smallest class first");
    assert_eq!(t.get("buffers_exhausted"), 1);
    assert_eq!(cpu.len(), 15, "the 17th message's first word is held, nothing dropped");
    // Deliver one: its buffer returns after the completion is read, the 17th goes in.
    t.step(&In { ctx: Some((ids[3], None, Some(1), true, false)), done_ready: true, pkt_ready: true, ..Default::default() });
    for _ in 0..10 {
        t.step(&In { done_ready: true, pkt_ready: true, ..Default::default() });
    }
    t.step(&In { dlv: Some((ids[3], 1)), done_ready: true, pkt_ready: true, ..Default::default() });
    let mut got = None;
    for _ in 0..40 {
        let i = In { word: cpu.front().copied(), done_ready: true, pkt_ready: true, ..Default::default() };
        t.apply(&i);
        if i.word.is_some() && t.get("s_axis_msg_tready") == 1 {
            cpu.pop_front();
        }
        if t.get("msg_id_valid") == 1 {
            got = Some(t.get("msg_id") as u16);
        }
        t.m.tick();
        t.cycle += 1;
    }
    let got = got.expect("the waiting message was accepted");
    assert_eq!(got & 0xf, 3, "it reuses the freed buffer");
    assert_ne!(got, ids[3], "with a new generation");
}

#[test]
fn lockstep_native_against_verilator() {
    let seed = seed(MODEL, 0x7044);
    let stimulus = Stimulus::new()
        .drive("reset", Drive::Bernoulli(0.001))
        .drive("default_credit", Drive::Range(0, 8))
        .drive("timeout_threshold", Drive::Range(0, 3))
        .drive("rto_cycles", Drive::Range(10, 200))
        .drive("s_axis_msg_tdata", Drive::Range(0, 3000))
        .drive("s_axis_msg_tlast", Drive::Bernoulli(0.2))
        .drive("s_axis_msg_tvalid", Drive::Bernoulli(0.7))
        .drive("done_ready", Drive::Bernoulli(0.7))
        .drive("dlv_valid", Drive::Bernoulli(0.3))
        .drive("dlv_tx_msg_id", Drive::Range(0, 47))
        .drive("dlv_ack_bitmap", Drive::Sparse(3))
        .drive("ctx_valid", Drive::Bernoulli(0.3))
        .drive("ctx_tx_msg_id", Drive::Range(0, 47))
        .drive("ctx_rtx_bitmap", Drive::Sparse(2))
        .drive("ctx_new_credit", Drive::Range(0, 6))
        .drive("m_axis_pkt_tready", Drive::Bernoulli(0.7));
    // The block holds many 1024-bit signals inline: build and step it on a thread with a large stack.
    let run = std::thread::Builder::new()
        .stack_size(512 << 20)
        .spawn(move || run_lockstep::<TxPath16>(MODEL, &stimulus, 10_000, seed).map_err(|e| e.to_string()))
        .unwrap();
    match run.join().unwrap() {
        Ok(r) => println!("{}: {} cycles, {} output comparisons, no divergence", r.model, r.cycles, r.comparisons),
        Err(e) => panic!("{e}"),
    }
}

/// A single-packet message whose packets are all lost (no DeliveredEvent ever), through the real
/// egress timer: the first expiry (metadata "nothing sent yet", written at commit) retransmits
/// nothing and counts as progress; every later expiry retransmits offset 0 (`is_rtx`) and
/// increments timeoutCnt; the message is abandoned at expiry `threshold + 2` after the commit.
#[test]
fn lost_single_packet_message_retransmission_and_abandon_timing() {
    const RTO: u64 = 1000;
    const THRESHOLD: u64 = 2;
    let mut t = Tx::new(THRESHOLD, RTO, 12);
    let words = message_words(1, None, 0, 0x0a000009, 9, 7, &[0x5a]);
    let mut next = 0;
    let mut col = Collector::default();
    let (mut commit, mut id) = (None, None);
    let mut sent: Vec<(u64, bool)> = vec![]; // (cycle of the last beat, is_rtx)
    let mut done = None;
    for _ in 0..(RTO * (THRESHOLD + 4)) {
        let i = In { word: words.get(next).copied(), pkt_ready: true, done_ready: true, ..Default::default() };
        t.apply(&i);
        if i.word.is_some() && t.get("s_axis_msg_tready") == 1 {
            next += 1;
        }
        if t.get("msg_id_valid") == 1 {
            commit = Some(t.cycle);
            id = Some(t.get("msg_id") as u16);
        }
        if let Some(p) = col.observe(&t, true) {
            assert_eq!((Some(p.tx_msg_id), p.offset, p.bytes.as_slice()), (id, 0, &[0x5au8][..]));
            sent.push((t.cycle, p.is_rtx));
        }
        if t.get("done_valid") == 1 {
            assert!(done.is_none(), "one completion");
            done = Some((t.cycle, t.get("done_tx_msg_id") as u16, t.get("done_abandoned") == 1));
        }
        t.m.tick();
        t.cycle += 1;
    }
    let commit = commit.expect("committed");
    let rel: Vec<(u64, bool)> = sent.iter().map(|&(c, r)| (c - commit, r)).collect();
    let (done_cycle, done_id, abandoned) = done.expect("completion");
    let done_rel = done_cycle - commit;
    println!(
        "tx_path lost 1-packet message, rto {RTO}, threshold {THRESHOLD}: packets at cycles after commit (is_rtx) {rel:?}; \
         abandoned completion {done_rel} cycles after commit (expiry {} in RTOs)",
        done_rel / RTO
    );
    assert_eq!((Some(done_id), abandoned), (id, true));
    // First transmission right after the commit, then one retransmission per expiry 2..=threshold+1.
    assert_eq!(rel.len() as u64, 1 + THRESHOLD, "original + threshold retransmissions: {rel:?}");
    assert!(!rel[0].1 && rel[0].0 < 20);
    // Expiry k happens k*RTO after the commit plus the timer's scan (≤ N + 2 = 18 cycles per
    // schedule) and the core's processing; well inside one RTO, so floor(cycle / RTO) = k.
    for (k, &(c, is_rtx)) in rel.iter().enumerate().skip(1) {
        assert!(is_rtx, "retransmission {k} flagged is_rtx");
        assert_eq!(c / RTO, k as u64 + 1, "retransmission {k} follows expiry {}: {rel:?}", k + 1);
    }
    assert_eq!(done_rel / RTO, THRESHOLD + 2, "abandoned at expiry threshold + 2");
    // Per-expiry slack: at most (timer bound 18 + core/read-out pipeline) per rescheduling.
    assert!(done_rel - (THRESHOLD + 2) * RTO <= (THRESHOLD + 2) * 40, "drift per expiry bounded: {done_rel}");
    assert!(t.get("buffers_all_free") == 1 && t.get("active") == 0 && t.get("abandoned_msg_count") == 1);
}
