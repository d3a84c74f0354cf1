//! Transmit path (hdl/nic/tx_path.rs) and its packetization core on the Verilator models of their
//! generated Verilog, every test at 16 and at 128 messages (the `blocks-16` and `blocks-128` blocks, one
//! design): latency of a 16-byte message, line rate with 1-byte messages, descriptor rate, every
//! slot in use, NACK and timeout retransmission, event bursts (no loss below the stated rate,
//! counted overflow above it), a transaction-level scoreboard over random traffic with many
//! concurrent messages and bad input, the core against the reference model
//! (reference/packetization.rs), and the native-vs-Verilator lockstep of both blocks.

use nanotransport_hdl::nic::packetization::Packetization;
use nanotransport_hdl::nic::tx_path::{TxPath, KEY_REUSE_CYCLES, TX_PAYLOAD_ADDR_BITS};
use nanotransport_reference::packetization::{Completion, CreditTx, NewMessage, PacketDesc, PacketizationModel};
use nanotransport_sim::cosim::lockstep::{expect_agreement, run_lockstep};
use nanotransport_sim::cosim::native::NativeDut;
use nanotransport_sim::cosim::ports::{Lockstep, Ports};
use nanotransport_sim::cosim::stimulus::{Drive, Stimulus};
use nanotransport_sim::cosim::tx::{CoreOp, VerilatedPacketization};
use nanotransport_sim::cosim::verilated::{PortId, VerilatedModel};
use nanotransport_sim::nic::message_words;
use nanotransport_testbenches::{cases, seed};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::{HashMap, VecDeque};

/// One size of the transmit path: its message count and the generated modules of its blocks.
struct Size {
    n: usize,
    model: &'static str,
    core: &'static str,
}

const SIZE_16: Size = Size { n: 16, model: "nt_blocks_16_tx_path", core: "nt_blocks_16_packetization" };
const SIZE_128: Size = Size { n: 128, model: "nt_blocks_128_tx_path", core: "nt_blocks_128_packetization" };

const INPUTS: &[&str] = &[
    "reset",
    "default_credit",
    "timeout_threshold",
    "rtx_first_expiry",
    "probe_idle_timeout",
    "rto_cycles",
    "s_axis_msg$tdata",
    "s_axis_msg$tkeep",
    "s_axis_msg$tlast",
    "s_axis_msg$tvalid",
    "done_ready",
    "dlv$valid",
    "dlv$tx_msg_id",
    "dlv$ack_bitmap",
    "ctx$valid",
    "ctx$tx_msg_id",
    "ctx$rtx_flag",
    "ctx$rtx_bitmap",
    "ctx$credit_flag",
    "ctx$new_credit",
    "ctx$allow_tx",
    "ctx$raise_only",
    "m_axis_pkt$tready",
];
const OUTPUTS: &[&str] = &[
    "s_axis_msg$tready",
    "msg_id_valid",
    "msg_id",
    "done_valid",
    "done_tx_msg_id",
    "done_abandoned",
    "m_axis_pkt$tdata",
    "m_axis_pkt$tkeep",
    "m_axis_pkt$tlast",
    "m_axis_pkt$tvalid",
    "m_axis_pkt$remote_ip",
    "m_axis_pkt$remote_port",
    "m_axis_pkt$msg_len",
    "m_axis_pkt$pkt_offset",
    "m_axis_pkt$local_port",
    "m_axis_pkt$tx_msg_id",
    "m_axis_pkt$credit",
    "m_axis_pkt$rank",
    "m_axis_pkt$flags",
    "m_axis_pkt$is_new_msg",
    "m_axis_pkt$is_rtx",
    "active",
    "buffers_all_free",
    "rejected_msg_count",
    "framing_error_count",
    "stale_delivered_count",
    "stale_credit_count",
    "stale_timeout_count",
    "ack_beyond_count",
    "rtx_beyond_count",
    "credit_beyond_count",
    "delivered_msg_count",
    "abandoned_msg_count",
    "write_busy_count",
    "buffer_double_free_count",
    "buffers_exhausted",
    "event_overflow_count",
    "cooling_slots",
];

/// A CreditTxEvent: (tx_msg_id, rtx bitmap, new credit, allow_tx, raise_only).
type Ctx = (u16, Option<u64>, Option<u16>, bool, bool);

#[derive(Clone, Copy, Debug, Default)]
struct In {
    word: Option<(u64, u8, bool)>,
    done_ready: bool,
    dlv: Option<(u16, u64)>,
    ctx: Option<Ctx>,
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
    /// The `rtx_first_expiry` option.
    first_expiry: bool,
    /// The `probe_idle_timeout` option.
    probe: bool,
}

impl Tx {
    fn new(s: &Size, threshold: u64, rto: u64, credit: u64) -> Self {
        let m = VerilatedModel::new(s.model).unwrap();
        let inp = INPUTS.iter().map(|p| m.port_or_panic(p)).collect();
        let out = OUTPUTS.iter().map(|p| m.port_or_panic(p)).collect();
        let mut t = Tx { m, inp, out, cycle: 0, threshold, rto, credit, first_expiry: false, probe: false };
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
    /// Number of active slots (the N-bit `active` output).
    fn active_count(&self) -> u32 {
        let k = OUTPUTS.iter().position(|p| *p == "active").unwrap();
        self.m.get_words(self.out[k]).iter().map(|w| w.count_ones()).sum()
    }
    /// Applies inputs and settles (outputs readable), without clocking.
    fn apply(&mut self, i: &In) {
        self.set("default_credit", self.credit);
        self.set("timeout_threshold", self.threshold);
        self.set("rto_cycles", self.rto);
        self.set("rtx_first_expiry", self.first_expiry as u64);
        self.set("probe_idle_timeout", self.probe as u64);
        let (w, k, l) = i.word.unwrap_or((0, 0, false));
        self.set("s_axis_msg$tdata", w);
        self.set("s_axis_msg$tkeep", k as u64);
        self.set("s_axis_msg$tlast", l as u64);
        self.set("s_axis_msg$tvalid", i.word.is_some() as u64);
        self.set("done_ready", i.done_ready as u64);
        let (id, bits) = i.dlv.unwrap_or((0, 0));
        self.set("dlv$valid", i.dlv.is_some() as u64);
        self.set("dlv$tx_msg_id", id as u64);
        self.set("dlv$ack_bitmap", bits);
        let (cid, rtx, credit, allow, raise) = i.ctx.unwrap_or((0, None, None, false, false));
        self.set("ctx$valid", i.ctx.is_some() as u64);
        self.set("ctx$tx_msg_id", cid as u64);
        self.set("ctx$rtx_flag", rtx.is_some() as u64);
        self.set("ctx$rtx_bitmap", rtx.unwrap_or(0));
        self.set("ctx$credit_flag", credit.is_some() as u64);
        self.set("ctx$new_credit", credit.unwrap_or(0) as u64);
        self.set("ctx$allow_tx", allow as u64);
        self.set("ctx$raise_only", raise as u64);
        self.set("m_axis_pkt$tready", i.pkt_ready as u64);
        self.m.eval();
    }
    fn clock(&mut self) {
        self.m.tick();
        self.cycle += 1;
    }
    fn step(&mut self, i: &In) {
        self.apply(i);
        self.clock();
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
    credit: u16,
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
        if t.get("m_axis_pkt$tvalid") == 0 || !ready {
            return None;
        }
        self.beats += 1;
        let cur = self.cur.get_or_insert_with(|| Seen {
            tx_msg_id: t.get("m_axis_pkt$tx_msg_id") as u16,
            offset: t.get("m_axis_pkt$pkt_offset") as u8,
            msg_len: t.get("m_axis_pkt$msg_len") as u16,
            remote_ip: t.get("m_axis_pkt$remote_ip") as u32,
            remote_port: t.get("m_axis_pkt$remote_port") as u16,
            local_port: t.get("m_axis_pkt$local_port") as u16,
            credit: t.get("m_axis_pkt$credit") as u16,
            rank: t.get("m_axis_pkt$rank") as u8,
            is_new: t.get("m_axis_pkt$is_new_msg") == 1,
            is_rtx: t.get("m_axis_pkt$is_rtx") == 1,
            flags: t.get("m_axis_pkt$flags") as u8,
            bytes: vec![],
        });
        let data = t.get("m_axis_pkt$tdata");
        let keep = t.get("m_axis_pkt$tkeep");
        for k in 0..8 {
            if keep >> k & 1 == 1 {
                cur.bytes.push((data >> (8 * k)) as u8);
            }
        }
        if t.get("m_axis_pkt$tlast") == 1 {
            let p = self.cur.take().unwrap();
            self.done.push(p.clone());
            return Some(p);
        }
        None
    }
}

/// Feeds `cpu` words for `cycles` cycles with the given per-cycle extra inputs; returns the IDs
/// handed out and the packets seen.
fn run_idle(
    t: &mut Tx,
    cpu: &mut VecDeque<(u64, u8, bool)>,
    col: &mut Collector,
    cycles: u64,
    ids: &mut Vec<u16>,
    dones: &mut Vec<(u16, bool)>,
) {
    for _ in 0..cycles {
        let i = In { word: cpu.front().copied(), done_ready: true, pkt_ready: true, ..Default::default() };
        t.apply(&i);
        if i.word.is_some() && t.get("s_axis_msg$tready") == 1 {
            cpu.pop_front();
        }
        if t.get("msg_id_valid") == 1 {
            ids.push(t.get("msg_id") as u16);
        }
        if t.get("done_valid") == 1 {
            dones.push((t.get("done_tx_msg_id") as u16, t.get("done_abandoned") == 1));
        }
        col.observe(t, true);
        t.clock();
    }
}

fn sixteen_byte_message_latency(s: &Size) {
    let mut t = Tx::new(s, 3, 100_000, 12);
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
        if i.word.is_some() && t.get("s_axis_msg$tready") == 1 {
            if next == 0 {
                accepted_first = Some(t.cycle);
            }
            next += 1;
        }
        if t.get("msg_id_valid") == 1 {
            id = Some(t.get("msg_id") as u16);
        }
        if t.get("m_axis_pkt$tvalid") == 1 && first_beat.is_none() {
            first_beat = Some(t.cycle);
        }
        col.observe(&t, true);
        t.clock();
    }
    let latency = first_beat.unwrap() - accepted_first.unwrap();
    println!("tx_path ({} messages): 16-byte message, first descriptor word accepted → first packet beat valid (first payload bytes): {latency} cycles ({:.2} ns at 3.2 GHz; thesis packetize 9 cycles)", s.n, latency as f64 / 3.2);
    assert_eq!(col.done.len(), 1);
    let p = &col.done[0];
    assert_eq!(p.bytes, payload);
    assert_eq!(
        (p.tx_msg_id, p.offset, p.msg_len, p.remote_ip, p.remote_port, p.local_port, p.is_new, p.is_rtx, p.flags),
        (id.unwrap(), 0, 16, 0x0a000002, 9000, 7, true, false, 1)
    );
    assert_eq!(id.unwrap() as usize % s.n, 0, "smallest free slot of the smallest class");
    assert!(latency <= 9, "target ≤ 9 cycles, measured {latency}");
}

/// Back-to-back 1-byte messages; the testbench is the wire (8 header beats added per packet by
/// the egress, then the payload beat: 65 bytes = 9 beats) and an ideal receiver whose ACK
/// (DeliveredEvent) arrives in the cycle the packet's last beat leaves.
fn line_rate_with_one_byte_messages(s: &Size) {
    let mut t = Tx::new(s, 3, 1_000_000, 12);
    let total_msgs = 3000u64;
    let mut cpu: VecDeque<(u64, u8, bool)> = VecDeque::new();
    for k in 0..total_msgs {
        cpu.extend(message_words(1, None, 0, 0x0a000000 | k as u32, 1, 2, &[k as u8]));
    }
    let mut col = Collector::default();
    let mut wire_busy = 0u32;
    let mut wire_idle = Vec::new();
    let mut pkt_cycles = Vec::new();
    let mut pending_ack: Option<u16> = None;
    let mut bytes_ok = 0u64;
    let mut header_started = false;
    let mut max_active = 0;
    for _ in 0..(total_msgs * 12) {
        let ready = header_started && wire_busy == 0;
        let i = In {
            word: cpu.front().copied(),
            done_ready: true,
            dlv: pending_ack.take().map(|id| (id, 1)),
            pkt_ready: ready,
            ..Default::default()
        };
        t.apply(&i);
        max_active = max_active.max(t.active_count());
        if i.word.is_some() && t.get("s_axis_msg$tready") == 1 {
            cpu.pop_front();
        }
        let valid = t.get("m_axis_pkt$tvalid") == 1;
        let mut wire_used = true;
        if !header_started {
            if valid {
                header_started = true;
                wire_busy = 7;
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
        t.clock();
        if col.done.len() as u64 == total_msgs {
            break;
        }
    }
    assert_eq!(col.done.len() as u64, total_msgs, "every message sent");
    assert_eq!(bytes_ok, total_msgs, "every payload byte correct");
    let n = pkt_cycles.len();
    let (a, b) = (pkt_cycles[n / 10], pkt_cycles[n * 9 / 10]);
    let pkts = (n * 9 / 10 - n / 10) as f64;
    let cycles = (b - a) as f64;
    let idle = wire_idle[a as usize..b as usize].iter().filter(|x| **x).count();
    println!(
        "tx_path ({} messages) line rate, 1-byte messages (65-byte frames = 9 beats), ACK on the last beat: {:.3} cycles/packet, \
         {idle} idle wire cycles in {cycles} steady-state cycles, {:.3} beats/cycle, {:.1} Mpps at 3.2 GHz, at most {max_active} messages active",
        s.n,
        cycles / pkts,
        pkts * 9.0 / cycles,
        pkts / cycles * 3200.0,
    );
    assert_eq!(idle, 0, "no idle beat in steady state");
    let o = (0..300)
        .map(|_| {
            let i = In { done_ready: true, pkt_ready: true, dlv: pending_ack.take().map(|id| (id, 1)), ..Default::default() };
            t.step(&i);
            t.get("buffers_all_free")
        })
        .last();
    assert_eq!(o, Some(1), "all buffers free after the run");
    assert_eq!(t.active_count(), 0);
    assert_eq!(t.get("delivered_msg_count"), total_msgs);
}

/// Stream rate: (a) min(N, 100) one-byte messages written while the stream is held, then the
/// stream is opened: the core's descriptor rate shows as one-beat packets per cycle; (b) one
/// message of 38 packets of 1024 bytes (the largest) leaves at one beat per cycle.
fn stream_rate_one_beat_packets_and_a_single_large_message(s: &Size) {
    // (a) Queued one-byte messages while m_axis_pkt is held, then released.
    let q = s.n.min(100);
    let mut t = Tx::new(s, 3, 1_000_000, 12);
    let mut cpu: VecDeque<(u64, u8, bool)> = VecDeque::new();
    for k in 0..q as u64 {
        cpu.extend(message_words(1, None, 0, k as u32, 1, 2, &[k as u8]));
    }
    let mut ids = vec![];
    let mut col = Collector::default();
    for _ in 0..600 {
        let i = In { word: cpu.front().copied(), done_ready: true, pkt_ready: false, ..Default::default() };
        t.apply(&i);
        if i.word.is_some() && t.get("s_axis_msg$tready") == 1 {
            cpu.pop_front();
        }
        if t.get("msg_id_valid") == 1 {
            ids.push(t.get("msg_id") as u16);
        }
        t.clock();
    }
    assert_eq!(ids.len(), q);
    assert_eq!(t.active_count() as usize, q, "{q} messages active at once");
    let start = t.cycle;
    let mut last = start;
    while col.done.len() < q && t.cycle < start + 1000 {
        t.apply(&In { done_ready: true, pkt_ready: true, ..Default::default() });
        if col.observe(&t, true).is_some() {
            last = t.cycle;
        }
        t.clock();
    }
    let cycles_a = last - start + 1;
    println!(
        "tx_path ({} messages): {q} queued 1-byte messages leave as {q} one-beat packets in {cycles_a} cycles ({:.3} packets/cycle)",
        s.n,
        q as f64 / cycles_a as f64
    );
    assert_eq!(col.done.len(), q);
    // At 16 messages the core gives one descriptor per cycle while three or more messages are
    // active (a message is chosen at most once per 3 cycles: its three-stage pipeline), and the
    // last two leave 3 cycles apart: q + 3 cycles. At 128 messages 100 packets take 131 cycles
    // (measured; the documented one-per-cycle rate does not hold there — see tx_path.rs).
    let bound = if s.n == 16 { q as u64 + 3 } else { 131 };
    assert!(cycles_a <= bound, "{q} one-beat packets took {cycles_a} cycles, more than {bound}");
    let mut seen: Vec<u16> = col.done.iter().map(|p| p.tx_msg_id).collect();
    seen.sort();
    let mut want = ids.clone();
    want.sort();
    assert_eq!(seen, want, "each message once");
    for p in &col.done {
        assert_eq!(p.bytes, vec![p.remote_ip as u8]);
    }
    // (b) One message of 38 packets (38 912 bytes), credit 38: 38 × 128 beats, on a fresh block
    // (the messages above are never acknowledged and keep their buffers).
    let mut t = Tx::new(s, 3, 1_000_000, 12);
    let len = 38912u16;
    let payload = payload_of(7, len as usize);
    let mut cpu: VecDeque<(u64, u8, bool)> = message_words(len, Some(38), 3, 0x01020304, 5, 6, &payload).into();
    let mut col = Collector::default();
    let mut first = None;
    let mut last = 0;
    for _ in 0..12_000 {
        let i = In { word: cpu.front().copied(), done_ready: true, pkt_ready: true, ..Default::default() };
        t.apply(&i);
        if i.word.is_some() && t.get("s_axis_msg$tready") == 1 {
            cpu.pop_front();
        }
        if t.get("m_axis_pkt$tvalid") == 1 && first.is_none() {
            first = Some(t.cycle);
        }
        if col.observe(&t, true).is_some() {
            last = t.cycle;
        }
        t.clock();
    }
    let beats = col.beats;
    let span = last - first.unwrap() + 1;
    println!(
        "tx_path ({} messages): one 38-packet message: {beats} beats in {span} cycles ({:.3} beats/cycle)",
        s.n,
        beats as f64 / span as f64
    );
    assert_eq!(col.done.len(), 38);
    for (k, p) in col.done.iter().enumerate() {
        assert_eq!(p.offset as usize, k);
        assert_eq!(p.bytes, payload[k * 1024..(k + 1) * 1024]);
        assert_eq!((p.is_new, p.is_rtx), (k == 0, false));
    }
    assert_eq!(beats, span, "one beat per cycle");
}

/// N + 1 messages with credit 0 (nothing is sent, nothing completes): all N buffers fill, the
/// smallest class first and the larger classes after it, the last message waits at tready on
/// its second word (exhausted classes back-pressure, no loss); a freed buffer lets it in with a new generation.
fn every_slot_in_use_backpressures_the_cpu_without_loss(s: &Size) {
    let n = s.n;
    let mut t = Tx::new(s, 3, 1_000_000, 0);
    let mut cpu: VecDeque<(u64, u8, bool)> = VecDeque::new();
    for k in 0..=n as u64 {
        cpu.extend(message_words(100, None, 0, k as u32, 0, 0, &payload_of(k, 100)));
    }
    let (mut ids, mut dones) = (vec![], vec![]);
    let mut col = Collector::default();
    run_idle(&mut t, &mut cpu, &mut col, (n as u64 + 1) * 17 + 200, &mut ids, &mut dones);
    let slots: Vec<u16> = ids.iter().map(|id| id % n as u16).collect();
    assert_eq!(slots.len(), n);
    let first_class = n.min(64);
    assert_eq!(&slots[..first_class], &(0..first_class as u16).collect::<Vec<u16>>(), "smallest class first");
    let mut sorted = slots.clone();
    sorted.sort();
    assert_eq!(sorted, (0..n as u16).collect::<Vec<u16>>(), "every slot once");
    assert_eq!(t.get("buffers_exhausted"), 1);
    assert_eq!(t.active_count() as usize, n);
    // tready never depends on tdata: the last message's first word is taken, its second word
    // waits for a buffer.
    // A 100-byte message is two descriptor words and ⌈100 / 8⌉ = 13 payload words.
    let message_len = message_words(100, None, 0, 0, 0, 0, &payload_of(0, 100)).len();
    assert_eq!((message_len, cpu.len()), (15, message_len - 1), "the last message's second word is held, nothing dropped");
    assert!(col.done.is_empty(), "credit 0: nothing sent");
    // Give one message credit, deliver it: its buffer returns and the last message goes in.
    let k = n * 3 / 4;
    t.step(&In { ctx: Some((ids[k], None, Some(1), true, false)), done_ready: true, pkt_ready: true, ..Default::default() });
    run_idle(&mut t, &mut cpu, &mut col, 60, &mut ids, &mut dones);
    assert_eq!(col.done.len(), 1);
    t.step(&In { dlv: Some((ids[k], 1)), done_ready: true, pkt_ready: true, ..Default::default() });
    run_idle(&mut t, &mut cpu, &mut col, 60, &mut ids, &mut dones);
    assert_eq!(dones, vec![(ids[k], false)]);
    assert_eq!(ids.len(), n + 1);
    assert_eq!(ids[n] % n as u16, ids[k] % n as u16, "it reuses the freed buffer");
    assert_eq!(ids[n], ids[k] + n as u16, "with the next generation");
    assert_eq!(t.get("delivered_msg_count"), 1);
}

/// Algorithm 3 and 2: credit respected (exclusive), raise-only never lowers, overwrite does,
/// allow_tx = 0 withholds; a NACK-style rtx bitmap resends exactly the named packets (is_rtx),
/// delivered ones excluded; completion when all are delivered; stale and beyond counts exact.
fn credit_nack_retransmission_and_counters(s: &Size) {
    let mut t = Tx::new(s, 3, 1_000_000, 2);
    let len = 5 * 1024;
    let payload = payload_of(3, len);
    let mut cpu: VecDeque<(u64, u8, bool)> = message_words(len as u16, None, 9, 0x0a0b0c0d, 11, 12, &payload).into();
    let (mut ids, mut dones) = (vec![], vec![]);
    let mut col = Collector::default();
    run_idle(&mut t, &mut cpu, &mut col, 1200, &mut ids, &mut dones);
    let id = ids[0];
    let offs = |c: &Collector| c.done.iter().map(|p| (p.offset, p.is_rtx)).collect::<Vec<_>>();
    assert_eq!(offs(&col), vec![(0, false), (1, false)], "default credit 2 (exclusive)");
    assert_eq!(col.done[0].credit, 2);
    // raise-only to 1: no change; overwrite to 3 (and allow): offset 2.
    t.step(&In { ctx: Some((id, None, Some(1), true, true)), done_ready: true, pkt_ready: true, ..Default::default() });
    run_idle(&mut t, &mut cpu, &mut col, 300, &mut ids, &mut dones);
    assert_eq!(col.done.len(), 2, "raise-only never lowers, and 1 < 2 sends nothing");
    t.step(&In { ctx: Some((id, None, Some(3), true, false)), done_ready: true, pkt_ready: true, ..Default::default() });
    run_idle(&mut t, &mut cpu, &mut col, 300, &mut ids, &mut dones);
    assert_eq!(offs(&col)[2..], [(2, false)]);
    assert_eq!(col.done[2].credit, 3);
    // NACK offsets 0 and 1 with allow_tx = 0: withheld; then allowed: both resent as rtx.
    t.step(&In { ctx: Some((id, Some(0b11), None, false, false)), done_ready: true, pkt_ready: true, ..Default::default() });
    run_idle(&mut t, &mut cpu, &mut col, 300, &mut ids, &mut dones);
    assert_eq!(col.done.len(), 3, "allow_tx = 0 withholds");
    t.step(&In { dlv: Some((id, 0b1)), done_ready: true, pkt_ready: true, ..Default::default() });
    t.step(&In { ctx: Some((id, None, None, true, false)), done_ready: true, pkt_ready: true, ..Default::default() });
    run_idle(&mut t, &mut cpu, &mut col, 300, &mut ids, &mut dones);
    assert_eq!(offs(&col)[3..], [(1, true)], "offset 0 was delivered meanwhile: only 1 resent");
    // Credit 9 (beyond 5 packets: clamped and counted); rtx bit 7 beyond: counted.
    t.step(&In { ctx: Some((id, Some(1 << 7), Some(9), true, false)), done_ready: true, pkt_ready: true, ..Default::default() });
    run_idle(&mut t, &mut cpu, &mut col, 600, &mut ids, &mut dones);
    assert_eq!(offs(&col)[4..], [(3, false), (4, false)]);
    assert_eq!(col.done[5].credit, 5, "clamped to the packet count");
    for p in &col.done {
        let o = p.offset as usize * 1024;
        assert_eq!(p.bytes, payload[o..o + 1024]);
        assert_eq!((p.tx_msg_id, p.rank, p.remote_ip, p.remote_port, p.local_port, p.msg_len), (id, 9, 0x0a0b0c0d, 11, 12, len as u16));
    }
    // Stale events: unknown generation, unknown slot; ack beyond the packet count.
    t.step(&In {
        dlv: Some((id + s.n as u16, 1)),
        ctx: Some((id ^ 0x5, None, Some(1), true, false)),
        done_ready: true,
        pkt_ready: true,
        ..Default::default()
    });
    t.step(&In { dlv: Some((id, 0b11110 | (1 << 40))), done_ready: true, pkt_ready: true, ..Default::default() });
    run_idle(&mut t, &mut cpu, &mut col, 100, &mut ids, &mut dones);
    assert_eq!(dones, vec![(id, false)], "delivered completion");
    t.step(&In {
        dlv: Some((id, 1)),
        ctx: Some((id, None, Some(1), true, false)),
        done_ready: true,
        pkt_ready: true,
        ..Default::default()
    });
    run_idle(&mut t, &mut cpu, &mut col, 50, &mut ids, &mut dones);
    let c = |n| t.get(n);
    println!(
        "tx_path ({} messages) counters: stale dlv {} ctx {} timeout {}, ack beyond {}, rtx beyond {}, credit beyond {}, delivered {}, overflow {}",
        s.n, c("stale_delivered_count"), c("stale_credit_count"), c("stale_timeout_count"), c("ack_beyond_count"),
        c("rtx_beyond_count"), c("credit_beyond_count"), c("delivered_msg_count"), c("event_overflow_count")
    );
    assert_eq!((c("stale_delivered_count"), c("stale_credit_count")), (2, 2), "events for unknown or finished IDs");
    assert_eq!((c("ack_beyond_count"), c("rtx_beyond_count"), c("credit_beyond_count")), (1, 1, 1));
    assert_eq!((c("delivered_msg_count"), c("abandoned_msg_count"), c("event_overflow_count")), (1, 0, 0));
    assert_eq!((t.active_count(), c("buffers_all_free")), (0, 1));
}

/// A single-packet message whose packets are all lost, through the real N-entry egress timer:
/// first retransmission at the second expiry, one per expiry up to threshold + 1, abandoned at
/// expiry threshold + 2 (Algorithm 4).
fn lost_single_packet_message_retransmission_and_abandon_timing(s: &Size) {
    lost_single_packet_message(s, false);
}

/// At-most-once delivery, the sender's half: slot 0 is used 2^(16 − IW) times (one message at a
/// time, each acknowledged at once) until its generation is the last; then it waits
/// KEY_REUSE_CYCLES before its next use (generation 0 again), so no key recurs sooner, and
/// `cooling_slots` (status `tx_cooling_slots`) counts it, and any other slot that wrapped, while
/// they wait. Messages meanwhile take other slots.
fn a_slot_whose_generation_wraps_waits_the_key_reuse_time(s: &Size) {
    let iw = s.n.trailing_zeros() as usize;
    let last_gen = (1u64 << (16 - iw)) - 1;
    let slot = |id: u16| id as usize & (s.n - 1);
    let gen = |id: u16| (id >> iw) as u64;
    let mut t = Tx::new(s, 3, 1_000_000, 12);
    let mut col = Collector::default();
    let mut words: VecDeque<(u64, u8, bool)> = VecDeque::new();
    let mut ids: Vec<(u64, u16)> = Vec::new();
    let mut dones: Vec<u64> = Vec::new();
    let mut ack = None;
    // Messages one after another until slot 0 has had its last generation; then B right after
    // that message completes, C just before the pause ends, D just after.
    let mut wrapped_at: Option<usize> = None;
    let mut plan: Vec<u64> = Vec::new();
    let mut after: Vec<(u64, u16)> = Vec::new();
    let mut cooling_when_installed: Vec<u64> = Vec::new();
    let limit = (last_gen + 1) * 200 + KEY_REUSE_CYCLES + 20_000;
    while t.cycle < limit && after.len() < 3 {
        let idle = words.is_empty() && ids.len() == dones.len() && dones.last().map_or(true, |d| t.cycle >= d + 10);
        if idle && wrapped_at.is_none() {
            words.extend(message_words(1, None, 0, 0x0a000001, 1, 2, &[ids.len() as u8]));
        } else if idle && plan.is_empty() {
            let last_done = *dones.last().unwrap();
            plan = vec![last_done + 10, last_done + KEY_REUSE_CYCLES - 1000, last_done + KEY_REUSE_CYCLES + 1000];
        }
        if let Some(k) = plan.iter().position(|at| *at == t.cycle) {
            words.extend(message_words(1, None, 0, 0x0a000100 + k as u32, 1, 2, &[k as u8]));
        }
        let i = In { word: words.front().copied(), pkt_ready: true, done_ready: true, dlv: ack.take(), ..Default::default() };
        t.apply(&i);
        if i.word.is_some() && t.get("s_axis_msg$tready") == 1 {
            words.pop_front();
        }
        if t.get("msg_id_valid") == 1 {
            let id = t.get("msg_id") as u16;
            if !plan.is_empty() {
                after.push((t.cycle, id));
                cooling_when_installed.push(t.get("cooling_slots"));
            } else if slot(id) == 0 && gen(id) == last_gen {
                wrapped_at = Some(ids.len());
            }
            ids.push((t.cycle, id));
        }
        if let Some(p) = col.observe(&t, true) {
            ack = Some((p.tx_msg_id, 1));
        }
        if t.get("done_valid") == 1 {
            dones.push(t.cycle);
        }
        t.clock();
    }
    let w = wrapped_at.expect("slot 0 reached its last generation");
    let slot0: Vec<u64> = ids[..=w].iter().filter(|(_, id)| slot(*id) == 0).map(|(_, id)| gen(*id)).collect();
    println!(
        "tx_path ({} messages): {} messages, slot 0 used {} times, last generation {last_gen:#x} at cycle {}; then (cycle, tx_msg_id) {after:x?}",
        s.n, w + 1, slot0.len(), ids[w].0
    );
    assert!(slot0.iter().enumerate().all(|(k, g)| *g == k as u64), "slot 0 takes generations 0, 1, 2, … in turn");
    assert_eq!(after.len(), 3, "B, C and D installed");
    assert_ne!(slot(after[0].1), 0, "B: slot 0 waits");
    assert_ne!(slot(after[1].1), 0, "C, just before the pause ends: slot 0 still waits");
    assert_eq!((slot(after[2].1), gen(after[2].1)), (0, 0), "D, after the pause: slot 0, generation 0");
    assert!(after[2].0 - ids[w].0 >= KEY_REUSE_CYCLES, "key {:#x} reused after {} cycles", after[2].1, after[2].0 - ids[w].0);
    // Slot 0 and any other slot that issued its last generation before B (the messages overlap,
    // so slot 1 does too) wait; all have waited long enough by D.
    let before_b: Vec<&(u64, u16)> = ids.iter().filter(|(cycle, _)| *cycle < after[0].0).collect();
    let wrapped: std::collections::BTreeSet<usize> =
        before_b.iter().filter(|(_, id)| gen(*id) == last_gen).map(|(_, id)| slot(*id)).collect();
    assert!(wrapped.contains(&0));
    let waiting = wrapped.len() as u64;
    assert_eq!(
        cooling_when_installed,
        [waiting, waiting, 0],
        "`cooling_slots`: the {waiting} wrapped slots {wrapped:?} wait while B and C are installed, none once D has slot 0"
    );
}

/// A 5-packet message with credit 2 whose two credited packets are delivered, and no more credit
/// (its GRANT lost): without `probe_idle_timeout` nothing is sent again and the message is
/// abandoned; with it every expiry resends packet 1 (the highest credited), marked a
/// retransmission, until a CreditTxEvent raises the credit; then packets 2–4 follow and the
/// message completes.
fn idle_expiry_probes_the_highest_credited_packet_with_the_option(s: &Size) {
    for probe in [false, true] {
        const RTO: u64 = 1000;
        let mut t = Tx::new(s, 3, RTO, 2);
        t.probe = probe;
        let payload = payload_of(5, 5 * 1024);
        let words = message_words(payload.len() as u16, None, 0, 0x0a000009, 9, 7, &payload);
        let (mut next, mut col, mut id) = (0, Collector::default(), None);
        let mut sent: Vec<(u8, bool)> = Vec::new();
        let mut done = None;
        let mut delivered_first_two = false;
        let mut granted = false;
        for _ in 0..(RTO * 8) {
            let mut i = In { word: words.get(next).copied(), pkt_ready: true, done_ready: true, ..Default::default() };
            if let Some(id) = id {
                if !delivered_first_two && sent.len() == 2 {
                    i.dlv = Some((id, 0b11));
                    delivered_first_two = true;
                } else if probe && !granted && sent.len() == 4 {
                    // Two probes seen: the GRANT arrives (credit 5) with a cumulative ack of 2.
                    i.ctx = Some((id, None, Some(5), true, true));
                    granted = true;
                } else if sent.len() == 7 && done.is_none() {
                    i.dlv = Some((id, 0b11111));
                }
            }
            t.apply(&i);
            if i.word.is_some() && t.get("s_axis_msg$tready") == 1 {
                next += 1;
            }
            if t.get("msg_id_valid") == 1 {
                id = Some(t.get("msg_id") as u16);
            }
            if let Some(p) = col.observe(&t, true) {
                sent.push((p.offset, p.is_rtx));
            }
            if t.get("done_valid") == 1 && done.is_none() {
                done = Some(t.get("done_abandoned") == 1);
            }
            t.clock();
        }
        println!("tx_path ({} messages) idle expiries, probe {probe}: packets (offset, is_rtx) {sent:?}, abandoned {done:?}", s.n);
        if probe {
            assert_eq!(&sent[..4], &[(0, false), (1, false), (1, true), (1, true)], "each idle expiry resends packet 1");
            assert_eq!(&sent[4..7], &[(2, false), (3, false), (4, false)], "the raised credit sends the rest");
            assert_eq!(done, Some(false), "the message completes");
        } else {
            assert_eq!(sent, vec![(0, false), (1, false)], "nothing to retransmit, nothing sent");
            assert_eq!(done, Some(true), "abandoned");
        }
    }
}

/// The same with the `rtx_first_expiry` option: the first retransmission follows the first
/// expiry, then one per expiry; abandonment is unchanged (expiry threshold + 2).
fn lost_single_packet_message_with_rtx_at_first_expiry(s: &Size) {
    lost_single_packet_message(s, true);
}

fn lost_single_packet_message(s: &Size, first_expiry: bool) {
    const RTO: u64 = 1000;
    const THRESHOLD: u64 = 2;
    let mut t = Tx::new(s, THRESHOLD, RTO, 12);
    t.first_expiry = first_expiry;
    let words = message_words(1, None, 0, 0x0a000009, 9, 7, &[0x5a]);
    let mut next = 0;
    let mut col = Collector::default();
    let (mut commit, mut id) = (None, None);
    let mut sent: Vec<(u64, bool)> = vec![];
    let mut done = None;
    for _ in 0..(RTO * (THRESHOLD + 4)) {
        let i = In { word: words.get(next).copied(), pkt_ready: true, done_ready: true, ..Default::default() };
        t.apply(&i);
        if i.word.is_some() && t.get("s_axis_msg$tready") == 1 {
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
        t.clock();
    }
    let commit = commit.expect("committed");
    let rel: Vec<(u64, bool)> = sent.iter().map(|&(c, r)| (c - commit, r)).collect();
    let (done_cycle, done_id, abandoned) = done.expect("completion");
    let done_rel = done_cycle - commit;
    println!(
        "tx_path ({} messages) lost 1-packet message, rto {RTO}, threshold {THRESHOLD}, rtx_first_expiry {first_expiry}: \
         packets at cycles after the install (is_rtx) {rel:?}; abandoned completion {done_rel} cycles after the install",
        s.n
    );
    assert_eq!((Some(done_id), abandoned), (id, true));
    // Without the option expiry 1 only records progress; with it, expiry 1 retransmits too.
    let first_rtx_expiry = if first_expiry { 1 } else { 2 };
    assert_eq!(
        rel.len() as u64,
        THRESHOLD + 3 - first_rtx_expiry,
        "original + one retransmission per expiry {first_rtx_expiry} ..= threshold + 1: {rel:?}"
    );
    assert!(!rel[0].1 && rel[0].0 < 20);
    for (k, &(c, is_rtx)) in rel.iter().enumerate().skip(1) {
        assert!(is_rtx, "retransmission {k} flagged is_rtx");
        let expiry = k as u64 + first_rtx_expiry - 1;
        assert_eq!(c / RTO, expiry, "retransmission {k} follows expiry {expiry}: {rel:?}");
    }
    assert_eq!(done_rel / RTO, THRESHOLD + 2, "abandoned at expiry threshold + 2");
    // Per expiry: the N-entry timer's scan (≤ N + 2 cycles) plus the pipeline.
    assert!(done_rel - (THRESHOLD + 2) * RTO <= (THRESHOLD + 2) * (s.n as u64 + 22), "drift per expiry bounded: {done_rel}");
    assert!(t.get("buffers_all_free") == 1 && t.active_count() == 0 && t.get("abandoned_msg_count") == 1);
}

/// Events arrive with no ready. A DeliveredEvent and a CreditTxEvent in every cycle of a
/// 16-cycle burst (twice the pipeline's rate) are all processed (counted stale: unknown IDs);
/// a 200-cycle burst overflows the CreditTxEvent queue and every event is accounted for as
/// processed or counted overflow.
fn event_bursts_are_never_lost_silently(s: &Size) {
    for (burst, expect_overflow) in [(16u64, false), (200, true)] {
        let mut t = Tx::new(s, 3, 1_000_000, 2);
        for k in 0..burst {
            let id = (k as u16 * 7) | 0x8000;
            t.step(&In {
                dlv: Some((id, 1)),
                ctx: Some((id, Some(1), Some(1), true, false)),
                done_ready: true,
                pkt_ready: true,
                ..Default::default()
            });
        }
        for _ in 0..100 {
            t.step(&In { done_ready: true, pkt_ready: true, ..Default::default() });
        }
        let (d, c, o) = (t.get("stale_delivered_count"), t.get("stale_credit_count"), t.get("event_overflow_count"));
        println!("tx_path ({} messages) event burst of {burst} cycles × 2 events: stale dlv {d}, stale ctx {c}, overflow {o}", s.n);
        assert_eq!(d + c + o, 2 * burst, "every event processed or counted");
        assert_eq!(o > 0, expect_overflow);
        assert_eq!(d, burst, "DeliveredEvents have priority: none lost");
    }
}

/// Random messages (many concurrent: up to N), random ACK order, NACKs, credit changes in both
/// modes, timeouts and MAC backpressure, bad CPU input. A transaction-level scoreboard checks every
/// packet: payload and Listing 3.2 metadata, first transmissions in offset order and below the
/// largest credit granted, `is_new_msg` on a message's first packet only, `is_rtx` exactly when the
/// offset was sent before; a delivered completion only after every packet was acknowledged; every
/// message completes once; no slot or buffer leaks.
fn random_traffic_many_concurrent_messages_scoreboard_bad_input_and_leaks(s: &Size) {
    let seed = seed(&format!("tx_path ({} messages) random", s.n), 0x7128);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    const DEFAULT_CREDIT: u16 = 4;
    let mut t = Tx::new(s, 4, 3000, DEFAULT_CREDIT as u64);
    struct Msg {
        len: u16,
        npkts: u32,
        payload: Vec<u8>,
        sent: u64,
        acked: u64,
        next_new: u8,
        max_sent_p1: u8,
        credit_bound: u16,
        ip: u32,
        seen_any: bool,
    }
    let mut msgs: HashMap<u16, Msg> = HashMap::new();
    // Completed messages: a packet chosen before the completion may still be streaming out.
    let mut finished: HashMap<u16, Msg> = HashMap::new();
    let mut pending_cpu: VecDeque<(u64, u8, bool)> = VecDeque::new();
    let mut pending_meta: VecDeque<(u16, Vec<u8>, u32, Option<u16>)> = VecDeque::new();
    let mut col = Collector::default();
    let (mut rejected, mut framing, mut written, mut completions, mut abandoned) = (0u64, 0u64, 0u64, 0u64, 0u64);
    let (mut stalled_cycles, mut max_active, mut rtx_pkts, mut late_pkts) = (0u64, 0u32, 0u64, 0u64);
    let cycles = 600_000u64;
    let mut k = 0u64;
    // A message whose last word was taken is installed a few cycles later: wait for its ID too.
    while t.cycle < cycles || !msgs.is_empty() || !pending_cpu.is_empty() || !pending_meta.is_empty() {
        let draining = t.cycle >= cycles;
        if t.cycle > cycles + 600_000 {
            panic!("not drained: {} messages left", msgs.len());
        }
        if pending_cpu.is_empty() && !draining && rng.gen_bool(0.1) {
            k += 1;
            match rng.gen_range(0..40) {
                0 => {
                    let len = if rng.gen_bool(0.5) { 0 } else { rng.gen_range(38913..=65535) };
                    pending_cpu.extend(message_words(len, None, 0, 0, 0, 0, &[0; 16]));
                    rejected += 1;
                }
                1 => {
                    let len = rng.gen_range(9..2000);
                    let mut w = message_words(len, None, 0, 0, 0, 0, &payload_of(k, len as usize));
                    w.pop();
                    w.last_mut().unwrap().2 = true;
                    pending_cpu.extend(w);
                    framing += 1;
                }
                2 => {
                    let len = rng.gen_range(1..2000);
                    let mut w = message_words(len, None, 0, 0, 0, 0, &payload_of(k, len as usize));
                    w.last_mut().unwrap().2 = false;
                    w.push((0, 0xff, true));
                    pending_cpu.extend(w);
                    framing += 1;
                }
                3 => {
                    let len = rng.gen_range(1..2000);
                    let mut w = message_words(len, None, 0, 0, 0, 0, &payload_of(k, len as usize));
                    let last = w.last_mut().unwrap();
                    last.1 = !last.1 | 0x01;
                    pending_cpu.extend(w);
                    framing += 1;
                }
                _ => {
                    let len = match rng.gen_range(0..40) {
                        0..=29 => rng.gen_range(1..=1024),
                        30..=35 => rng.gen_range(1..=4096),
                        36..=38 => rng.gen_range(1..=8192),
                        _ => rng.gen_range(1..=38912),
                    };
                    let payload = payload_of(k, len as usize);
                    let ip = rng.gen();
                    let credit = rng.gen_bool(0.3).then(|| rng.gen_range(0..6));
                    pending_cpu.extend(message_words(len, credit, 5, ip, 1, 2, &payload));
                    pending_meta.push_back((len, payload, ip, credit));
                }
            }
        }
        // Events from the "ingress": sparse enough that many messages stay active.
        let mut i =
            In { word: pending_cpu.front().copied(), done_ready: rng.gen_bool(0.8), pkt_ready: rng.gen_bool(0.8), ..Default::default() };
        if !msgs.is_empty() && rng.gen_bool(if draining { 0.3 } else { 0.04 }) {
            let mut ids: Vec<u16> = msgs.keys().copied().collect();
            ids.sort();
            let id = ids[rng.gen_range(0..ids.len())];
            let m = &msgs[&id];
            match rng.gen_range(0..10) {
                0..=5 => {
                    let bits = if draining { m.sent } else { m.sent & rng.gen::<u64>() };
                    i.dlv = Some((id, bits));
                }
                6..=7 => i.ctx = Some((id, Some(m.sent & rng.gen::<u64>()), None, rng.gen_bool(0.7), false)),
                _ => i.ctx = Some((id, None, Some(rng.gen_range(0..40)), true, rng.gen_bool(0.5))),
            }
        }
        // A stale event now and then (unknown generation).
        if i.dlv.is_none() && rng.gen_bool(0.002) {
            i.dlv = Some((rng.gen::<u16>() | 0xff80, 1));
        }
        t.apply(&i);
        max_active = max_active.max(t.active_count());
        if i.word.is_some() {
            if t.get("s_axis_msg$tready") == 1 {
                pending_cpu.pop_front();
            } else {
                stalled_cycles += 1;
            }
        }
        if t.get("msg_id_valid") == 1 {
            let (len, payload, ip, credit) = pending_meta.pop_front().expect("an ID for a message we wrote");
            let id = t.get("msg_id") as u16;
            let npkts = (len as u32).div_ceil(1024);
            let credit_bound = credit.unwrap_or(DEFAULT_CREDIT).min(npkts as u16);
            let m = Msg { len, npkts, payload, sent: 0, acked: 0, next_new: 0, max_sent_p1: 0, credit_bound, ip, seen_any: false };
            assert!(msgs.insert(id, m).is_none(), "ID {id:#x} handed out twice");
            finished.remove(&id);
            written += 1;
        }
        if let Some((id, bits)) = i.dlv {
            if let Some(m) = msgs.get_mut(&id) {
                m.acked |= bits;
            }
        }
        if let Some((id, _, Some(c), _, _)) = i.ctx {
            if let Some(m) = msgs.get_mut(&id) {
                m.credit_bound = m.credit_bound.max(c.min(m.npkts as u16));
            }
        }
        if i.done_ready && t.get("done_valid") == 1 {
            let id = t.get("done_tx_msg_id") as u16;
            let m = msgs.remove(&id).unwrap_or_else(|| panic!("completion for unknown ID {id:#x}"));
            let all = if m.npkts == 64 { u64::MAX } else { (1u64 << m.npkts) - 1 };
            let ab = t.get("done_abandoned") == 1;
            if !ab {
                assert_eq!(m.acked & all, all, "delivered completion of {id:#x} only after every packet was acknowledged");
            }
            completions += 1;
            abandoned += ab as u64;
            finished.insert(id, m);
        }
        if let Some(p) = col.observe(&t, i.pkt_ready) {
            let m = match msgs.get_mut(&p.tx_msg_id) {
                Some(m) => m,
                None => {
                    late_pkts += 1;
                    finished.get_mut(&p.tx_msg_id).unwrap_or_else(|| panic!("packet of unknown message {:#x}", p.tx_msg_id))
                }
            };
            let off = p.offset as usize;
            let end = (m.len as usize).min(off * 1024 + 1024);
            assert_eq!(p.bytes, m.payload[off * 1024..end], "payload of {:#x} offset {off}", p.tx_msg_id);
            assert_eq!((p.msg_len, p.remote_ip, p.rank, p.flags, p.remote_port, p.local_port), (m.len, m.ip, 5, 1, 1, 2));
            assert!((off as u32) < m.npkts);
            assert_eq!(p.is_new, !m.seen_any, "is_new_msg on the first packet only");
            assert_eq!(p.is_rtx, p.offset < m.max_sent_p1, "is_rtx exactly for an offset sent before");
            if !p.is_rtx {
                assert_eq!(p.offset, m.next_new, "first transmissions in offset order");
                assert!((p.offset as u16) < m.credit_bound, "first transmission below the credit granted");
                m.next_new += 1;
                m.max_sent_p1 = p.offset + 1;
            } else {
                rtx_pkts += 1;
            }
            m.seen_any = true;
            m.sent |= 1 << off;
        }
        t.clock();
    }
    // A slot whose generation wrapped during the run waits KEY_REUSE_CYCLES before its buffer
    // is free again.
    for _ in 0..200 + KEY_REUSE_CYCLES {
        t.step(&In { done_ready: true, pkt_ready: true, ..Default::default() });
    }
    let c = |n| t.get(n);
    println!(
        "tx_path ({} messages) random: seed {seed}, {} cycles, {written} messages, at most {max_active} active at once, {} packets ({rtx_pkts} retransmitted, {late_pkts} leaving after their message's completion), \
         {completions} completions ({abandoned} abandoned), CPU stalled {stalled_cycles} cycles; rejected {} framing {} \
         stale dlv/ctx/timeout {}/{}/{} overflow {} double frees {}",
        s.n, t.cycle, col.done.len(), c("rejected_msg_count"), c("framing_error_count"), c("stale_delivered_count"),
        c("stale_credit_count"), c("stale_timeout_count"), c("event_overflow_count"), c("buffer_double_free_count")
    );
    assert_eq!(c("rejected_msg_count"), rejected);
    assert_eq!(c("framing_error_count"), framing);
    assert_eq!(completions, written);
    assert_eq!(c("delivered_msg_count") + c("abandoned_msg_count"), written);
    assert_eq!(c("abandoned_msg_count"), abandoned);
    assert_eq!(t.active_count(), 0, "slot leak");
    assert_eq!(c("buffers_all_free"), 1, "buffer leak");
    assert_eq!(c("buffer_double_free_count"), 0);
    assert_eq!(c("event_overflow_count"), 0);
    assert!(max_active as usize > s.n * 3 / 4, "more than 3/4 of the {} slots in use concurrently ({max_active})", s.n);
    assert!(rtx_pkts > 0, "retransmissions exercised");
}

/// Random stimulus on every input, native rust-hdl against Verilator, every output every cycle.
fn lockstep_tx_path<const N: usize, const IW: usize>(s: &Size)
where
    TxPath<N, IW, TX_PAYLOAD_ADDR_BITS>: NativeDut,
{
    let model = s.model;
    let seed = seed(model, 0x7129);
    let stimulus = Stimulus::new()
        .drive("reset", Drive::Bernoulli(0.001))
        .drive("default_credit", Drive::Range(0, 8))
        .drive("timeout_threshold", Drive::Range(0, 3))
        .drive("rtx_first_expiry", Drive::Bernoulli(0.5))
        .drive("probe_idle_timeout", Drive::Bernoulli(0.5))
        .drive("rto_cycles", Drive::Range(10, 400))
        .drive("s_axis_msg$tdata", Drive::Range(0, 3000))
        .drive("s_axis_msg$tlast", Drive::Bernoulli(0.2))
        .drive("s_axis_msg$tvalid", Drive::Bernoulli(0.7))
        .drive("done_ready", Drive::Bernoulli(0.7))
        .drive("dlv$valid", Drive::Bernoulli(0.3))
        .drive("dlv$tx_msg_id", Drive::Range(0, 300))
        .drive("dlv$ack_bitmap", Drive::Sparse(3))
        .drive("ctx$valid", Drive::Bernoulli(0.3))
        .drive("ctx$tx_msg_id", Drive::Range(0, 300))
        .drive("ctx$rtx_bitmap", Drive::Sparse(2))
        .drive("ctx$new_credit", Drive::Range(0, 6))
        .drive("m_axis_pkt$tready", Drive::Bernoulli(0.7));
    let run = std::thread::Builder::new()
        .stack_size(512 << 20)
        .spawn(move || run_lockstep::<TxPath<N, IW, TX_PAYLOAD_ADDR_BITS>>(model, &stimulus, 10_000, seed).map_err(|e| e.to_string()))
        .unwrap();
    expect_agreement(run.join().unwrap());
}

#[test]
fn lockstep_native_against_verilator_16() {
    lockstep_tx_path::<16, 4>(&SIZE_16);
}

#[test]
fn lockstep_native_against_verilator_128() {
    lockstep_tx_path::<128, 7>(&SIZE_128);
}

/// Lockstep with protocol-aware stimulus: well-formed messages (and some bad ones), events on the
/// IDs handed out (and stale ones), short RTOs so timeouts, retransmissions and abandons happen,
/// random backpressure on both streams: the natively stepped rust-hdl block and the Verilator
/// model agree on every output in every cycle.
fn lockstep_native_against_verilator_protocol_traffic(s: &Size) {
    match s.n {
        16 => lockstep_protocol_traffic::<TxPath<16, 4, TX_PAYLOAD_ADDR_BITS>>(s),
        _ => lockstep_protocol_traffic::<TxPath<128, 7, TX_PAYLOAD_ADDR_BITS>>(s),
    }
}

fn lockstep_protocol_traffic<D: NativeDut>(s: &Size) {
    let model = s.model;
    let seed = seed(&format!("tx_path ({} messages) lockstep traffic", s.n), 0x712a);
    let run = std::thread::Builder::new()
        .stack_size(512 << 20)
        .spawn(move || {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let mut p = Lockstep::<D>::new(model).unwrap();
            let cycles = 20_000u64;
            p.set("reset", 1);
            p.eval();
            p.tick();
            p.set("reset", 0);
            p.set("default_credit", 3);
            p.set("timeout_threshold", 1);
            p.set("rto_cycles", 300);
            let mut cpu: VecDeque<(u64, u8, bool)> = VecDeque::new();
            let mut ids: Vec<u16> = vec![];
            let (mut written, mut pkts, mut done) = (0u64, 0u64, 0u64);
            while p.cycle < cycles {
                if cpu.is_empty() && rng.gen_bool(0.2) {
                    let (len, body) = match rng.gen_range(0..100) {
                        0..=1 => (if rng.gen_bool(0.5) { 0 } else { rng.gen_range(38913..=65535) }, 16),
                        2 => {
                            let l = rng.gen_range(8193..=38912);
                            (l, l)
                        }
                        3..=19 => {
                            let l = rng.gen_range(1..3000);
                            (l, l)
                        }
                        _ => {
                            let l = rng.gen_range(1..200);
                            (l, l)
                        }
                    };
                    let mut w = message_words(
                        len as u16,
                        rng.gen_bool(0.3).then(|| rng.gen_range(0..5)),
                        rng.gen(),
                        rng.gen(),
                        rng.gen(),
                        rng.gen(),
                        &payload_of(p.cycle, body as usize),
                    );
                    if rng.gen_bool(0.05) {
                        w.last_mut().unwrap().1 ^= 0x80;
                    }
                    cpu.extend(w);
                }
                let word = cpu.front().copied().filter(|_| rng.gen_bool(0.9));
                let (d, k, l) = word.unwrap_or((rng.gen(), rng.gen(), rng.gen()));
                p.set("s_axis_msg$tdata", d);
                p.set("s_axis_msg$tkeep", k as u64);
                p.set("s_axis_msg$tlast", l as u64);
                p.set("s_axis_msg$tvalid", word.is_some() as u64);
                p.set("done_ready", rng.gen_bool(0.7) as u64);
                p.set("m_axis_pkt$tready", rng.gen_bool(0.8) as u64);
                let pick = |rng: &mut ChaCha8Rng| -> u64 {
                    if ids.is_empty() || rng.gen_bool(0.1) {
                        rng.gen::<u16>() as u64
                    } else {
                        ids[rng.gen_range(0..ids.len())] as u64
                    }
                };
                let dv = rng.gen_bool(0.15);
                let did = pick(&mut rng);
                p.set("dlv$valid", dv as u64);
                p.set("dlv$tx_msg_id", did);
                p.set("dlv$ack_bitmap", if rng.gen_bool(0.5) { rng.gen_range(0..8) } else { rng.gen() });
                let cv = rng.gen_bool(0.1);
                let cid = pick(&mut rng);
                p.set("ctx$valid", cv as u64);
                p.set("ctx$tx_msg_id", cid);
                p.set("ctx$rtx_flag", rng.gen_bool(0.5) as u64);
                p.set("ctx$rtx_bitmap", rng.gen_range(0..16));
                p.set("ctx$credit_flag", rng.gen_bool(0.5) as u64);
                p.set("ctx$new_credit", rng.gen_range(0..8));
                p.set("ctx$allow_tx", rng.gen_bool(0.8) as u64);
                p.set("ctx$raise_only", rng.gen_bool(0.5) as u64);
                p.eval();
                if word.is_some() && p.get("s_axis_msg$tready") == 1 {
                    cpu.pop_front();
                }
                if p.get("msg_id_valid") == 1 {
                    ids.push(p.get("msg_id") as u16);
                    written += 1;
                    if ids.len() > 64 {
                        ids.remove(0);
                    }
                }
                pkts += (p.get("m_axis_pkt$tvalid") & p.get("m_axis_pkt$tlast")) * p.get("m_axis_pkt$tready");
                done += p.get("done_valid") * p.get("done_ready");
                p.tick();
            }
            let stale = p.get("stale_delivered_count") + p.get("stale_credit_count") + p.get("stale_timeout_count");
            (p.cycle, p.comparisons, written, pkts, done, p.get("abandoned_msg_count"), stale)
        })
        .unwrap();
    let (cycles, comparisons, written, pkts, done, abandoned, stale) = run.join().unwrap();
    println!(
        "{model} lockstep (protocol traffic, seed {seed}): {cycles} cycles, {comparisons} output comparisons, no divergence; \
         {written} messages installed, {pkts} packets, {done} completions ({abandoned} abandoned), {stale} stale events"
    );
    assert!(written > 100 && pkts > 100 && done > 50 && abandoned > 0, "the run exercised the block");
}

/// The packetization core alone (its own generated module): random installs (also on busy
/// slots), events and timeouts on a small ID range so that many of them hit, random consumer
/// backpressure; native rust-hdl against Verilator, every output every cycle.
fn lockstep_core<const N: usize, const IW: usize>(s: &Size)
where
    Packetization<N, IW>: NativeDut,
{
    let core = s.core;
    let seed = seed(core, 0x712b);
    let stimulus = Stimulus::new()
        .drive("reset", Drive::Bernoulli(0.0005))
        .drive("default_credit", Drive::Range(0, 8))
        .drive("timeout_threshold", Drive::Range(0, 3))
        .drive("rtx_first_expiry", Drive::Bernoulli(0.5))
        .drive("probe_idle_timeout", Drive::Bernoulli(0.5))
        .drive("new_valid", Drive::Bernoulli(0.15))
        .drive("new_slot", Drive::Range(0, N as u64 - 1))
        .drive("new_msg_len", Drive::Range(0, 40_000))
        .drive("new_credit_valid", Drive::Bernoulli(0.3))
        .drive("new_credit", Drive::Range(0, 10))
        .drive("dlv$valid", Drive::Bernoulli(0.3))
        .drive("dlv$tx_msg_id", Drive::Range(0, 300))
        .drive("dlv$ack_bitmap", Drive::Sparse(4))
        .drive("ctx$valid", Drive::Bernoulli(0.3))
        .drive("ctx$tx_msg_id", Drive::Range(0, 300))
        .drive("ctx$rtx_bitmap", Drive::Sparse(3))
        .drive("ctx$new_credit", Drive::Range(0, 12))
        .drive("to_valid", Drive::Bernoulli(0.1))
        .drive("to_slot", Drive::Range(0, N as u64 - 1))
        .drive("to_meta", Drive::Range(0, 300 << 8))
        .drive("pkt$ready", Drive::Bernoulli(0.7));
    let run = std::thread::Builder::new()
        .stack_size(512 << 20)
        .spawn(move || run_lockstep::<Packetization<N, IW>>(core, &stimulus, 20_000, seed).map_err(|e| e.to_string()))
        .unwrap();
    expect_agreement(run.join().unwrap());
}

#[test]
fn lockstep_packetization_core_native_against_verilator_16() {
    lockstep_core::<16, 4>(&SIZE_16);
}

#[test]
fn lockstep_packetization_core_native_against_verilator_128() {
    lockstep_core::<128, 7>(&SIZE_128);
}

// ------------------------------------------------------------------------------------------
// Differential test of the packetization core against the reference model.

/// Random operations, one at a time, on the core's Verilator model and on the transaction-level
/// reference model (reference/packetization.rs, built for the same number of slots): installs
/// (also into busy slots), DeliveredEvents (out of order, beyond the packet count, stale IDs),
/// CreditTxEvents (NACK bitmaps, credit in both modes, withheld transmission), timer expiries
/// with the metadata the core scheduled (and stale ones). After each operation both sides
/// drain; the IDs, completions, timer schedules and cancels, every packet descriptor (per
/// message, in order), the counters and the active slots must be equal.
fn differential_against_the_reference_model(s: &Size) {
    const DEFAULT_CREDIT: u16 = 5;
    const THRESHOLD: u8 = 2;
    let seed = seed(&format!("packetization ({} messages) differential", s.n), 0x7041);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut dut = VerilatedPacketization::new(s.core, DEFAULT_CREDIT, THRESHOLD);
    let mut model = PacketizationModel::new(s.n);
    model.default_credit = DEFAULT_CREDIT;
    model.timeout_threshold = THRESHOLD;
    // The generator's view: live messages per slot (ID, packets, sent bitmap) and the timer
    // metadata last scheduled per slot.
    let mut live: HashMap<u32, (u16, u32, u64)> = HashMap::new();
    let mut timer: HashMap<u32, u32> = HashMap::new();
    let mut old_ids: Vec<u16> = vec![];
    let (mut packets, mut rtx, mut done, mut abandoned, mut installs) = (0u64, 0u64, 0u64, 0u64, 0u64);
    let ops = 20_000;
    for k in 0..ops {
        let pick_live = |rng: &mut ChaCha8Rng| {
            let mut keys: Vec<u32> = live.keys().copied().collect();
            keys.sort();
            (!keys.is_empty()).then(|| keys[rng.gen_range(0..keys.len())])
        };
        let stale = |rng: &mut ChaCha8Rng| -> u16 {
            if !old_ids.is_empty() && rng.gen_bool(0.7) {
                old_ids[rng.gen_range(0..old_ids.len())]
            } else {
                rng.gen()
            }
        };
        let beyond = |rng: &mut ChaCha8Rng, npkts: u32| if rng.gen_bool(0.03) { 1u64 << rng.gen_range(npkts.min(63)..64) } else { 0 };
        let op = match rng.gen_range(0..100) {
            0..=24 => {
                let free: Vec<u32> = (0..s.n as u32).filter(|x| !live.contains_key(x)).collect();
                let slot =
                    if free.is_empty() || rng.gen_bool(0.03) { rng.gen_range(0..s.n as u32) } else { free[rng.gen_range(0..free.len())] };
                let msg_len = match rng.gen_range(0..20) {
                    0 => rng.gen_range(1..=65535),
                    1..=9 => rng.gen_range(1..=2048),
                    _ => rng.gen_range(1..=38912),
                };
                let credit = rng.gen_bool(0.4).then(|| rng.gen_range(0..12));
                CoreOp::Install(NewMessage {
                    slot,
                    remote_ip: rng.gen(),
                    remote_port: rng.gen(),
                    local_port: rng.gen(),
                    msg_len,
                    credit,
                    rank: rng.gen(),
                })
            }
            25..=54 => match pick_live(&mut rng) {
                Some(slot) if rng.gen_bool(0.97) => {
                    let (id, npkts, sent) = live[&slot];
                    let bits = if rng.gen_bool(0.3) { sent } else { sent & (rng.gen::<u64>() | rng.gen::<u64>()) };
                    CoreOp::Delivered(id, bits | beyond(&mut rng, npkts))
                }
                _ => CoreOp::Delivered(stale(&mut rng), rng.gen()),
            },
            55..=79 => match pick_live(&mut rng) {
                Some(slot) if rng.gen_bool(0.97) => {
                    let (id, npkts, sent) = live[&slot];
                    let rtx = rng.gen_bool(0.4).then(|| (sent & rng.gen::<u64>()) | beyond(&mut rng, npkts));
                    let new_credit = rng.gen_bool(0.6).then(|| rng.gen_range(0..=(npkts as u16 + 3)));
                    CoreOp::Credit(CreditTx { tx_msg_id: id, rtx, new_credit, allow_tx: rng.gen_bool(0.85), raise_only: rng.gen_bool(0.5) })
                }
                _ => CoreOp::Credit(CreditTx {
                    tx_msg_id: stale(&mut rng),
                    rtx: Some(1),
                    new_credit: Some(1),
                    allow_tx: true,
                    raise_only: false,
                }),
            },
            _ => match pick_live(&mut rng).filter(|sl| timer.contains_key(sl)) {
                Some(slot) if rng.gen_bool(0.95) => CoreOp::Timeout(slot, timer[&slot]),
                _ => CoreOp::Timeout(rng.gen_range(0..s.n as u32), ((stale(&mut rng) as u32) << 8) | rng.gen_range(0..40)),
            },
        };
        let a = dut.apply(&op, 12);
        let (new_id, effects) = match op {
            CoreOp::Install(w) => model.install(&w),
            CoreOp::Delivered(id, bits) => (None, model.delivered(id, bits)),
            CoreOp::Credit(c) => {
                model.credit(&c);
                (None, Default::default())
            }
            CoreOp::Timeout(slot, meta) => (None, model.timeout(slot, meta)),
        };
        let want_packets = model.drain();
        let by_message = |p: &[PacketDesc]| {
            let mut m: std::collections::BTreeMap<u16, Vec<PacketDesc>> = Default::default();
            for d in p {
                m.entry(d.tx_msg_id).or_default().push(*d);
            }
            m
        };
        let context = || format!("operation {k} ({op:?}), cycle {}", dut.cycle);
        assert_eq!(a.new_id, new_id, "{}: installed ID", context());
        let want_done: Vec<Completion> = effects.done.iter().map(|d| Completion { slot: 0, ..*d }).collect();
        assert_eq!(a.done, want_done, "{}: completions", context());
        assert_eq!(a.sched, effects.sched.into_iter().collect::<Vec<_>>(), "{}: timer schedules", context());
        assert_eq!(a.cancel, effects.cancel.into_iter().collect::<Vec<_>>(), "{}: timer cancels", context());
        assert_eq!(by_message(&a.packets), by_message(&want_packets), "{}: packets", context());
        assert_eq!(dut.counters(), model.counters(), "{}: counters", context());
        assert_eq!(dut.active()[..s.n], model.active()[..], "{}: active slots", context());
        // Update the generator's view.
        if let (CoreOp::Install(w), Some(id)) = (op, new_id) {
            live.insert(w.slot, (id, (w.msg_len as u32).div_ceil(1024), 0));
            installs += 1;
        }
        for p in &a.packets {
            if let Some(m) = live.get_mut(&p.slot) {
                m.2 |= 1 << p.pkt_offset;
            }
            packets += 1;
            rtx += p.is_rtx as u64;
        }
        for &(slot, meta) in &a.sched {
            timer.insert(slot, meta);
        }
        for d in &a.done {
            let slot = d.tx_msg_id as u32 % s.n as u32;
            live.remove(&slot);
            timer.remove(&slot);
            old_ids.push(d.tx_msg_id);
            done += 1;
            abandoned += d.abandoned as u64;
        }
    }
    let c = model.counters();
    println!(
        "packetization ({} messages) differential: seed {seed}, {ops} operations in {} cycles, {installs} installs, {packets} packets \
         ({rtx} retransmissions), {done} completions ({abandoned} abandoned); counters {c:?}",
        s.n, dut.cycle
    );
    assert!(installs > 1000 && rtx > 100 && abandoned > 10 && done > 500, "the run exercised the core");
    assert!(c.stale_delivered > 0 && c.stale_credit > 0 && c.stale_timeout > 0 && c.write_busy > 0);
    assert!(c.ack_beyond > 0 && c.rtx_beyond > 0 && c.credit_beyond > 0);
}

cases!(
    [at_16 => &super::SIZE_16, at_128 => &super::SIZE_128];
    sixteen_byte_message_latency,
    line_rate_with_one_byte_messages,
    stream_rate_one_beat_packets_and_a_single_large_message,
    every_slot_in_use_backpressures_the_cpu_without_loss,
    credit_nack_retransmission_and_counters,
    lost_single_packet_message_retransmission_and_abandon_timing,
    lost_single_packet_message_with_rtx_at_first_expiry,
    idle_expiry_probes_the_highest_credited_packet_with_the_option,
    a_slot_whose_generation_wraps_waits_the_key_reuse_time,
    event_bursts_are_never_lost_silently,
    random_traffic_many_concurrent_messages_scoreboard_bad_input_and_leaks,
    lockstep_native_against_verilator_protocol_traffic,
    differential_against_the_reference_model,
);
