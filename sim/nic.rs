//! Transaction-level driver of a whole-NIC Verilator model (e.g. `nt_ndp_16_nic`): frames in
//! and out on the MAC side, messages in and out on the CPU side, AXI4-Lite register access, and
//! the cycle of every first beat at each stage boundary (for the latency report).
//!
//! Conventions of the ports (see `nanotransport_hdl::nic::shell`): 64-bit AXI4-Stream, byte 0 in
//! bits 7..0. An input beat counts when it is accepted (`tvalid & tready`), an output beat from
//! the cycle it is first shown (`tvalid`), so "first byte in → first byte out" is the number of
//! clock edges between the two.

use crate::cosim::axil::{AxilMaster, AxilPorts, AXIL_TIMEOUT_CYCLES};
use crate::cosim::ports::Ports;
use crate::cosim::verilated::{PortId, VerilatedModel};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;

/// A message delivered to the CPU.
/// Cycles a NIC needs after reset before its receive path takes frames: the delivered set
/// writes its 2 × 4 096 buckets empty (GetRxMsgInfo's own table is cleared meanwhile).
pub const RESET_INIT_CYCLES: u64 = (1 << nanotransport_hdl::nic::delivered_set::DELIVERED_SET_BUCKET_BITS) + 8;

pub use nanotransport_reference::messages::{Completion, RxMessage, TxMessage};

/// The words `(data, keep, last)` of one message on the CPU TX stream (`s_axis_msg`, format in
/// `nanotransport_hdl::nic::tx_path`): the descriptor word (`msg_len`, optional credit, rank), the
/// address word, then the payload, `tlast` on the last word.
pub fn message_words(len: u16, credit: Option<u16>, rank: u8, ip: u32, rport: u16, lport: u16, payload: &[u8]) -> Vec<(u64, u8, bool)> {
    let w0 = len as u64 | ((credit.unwrap_or(0) as u64) << 16) | ((credit.is_some() as u64) << 32) | ((rank as u64) << 40);
    let w1 = ip as u64 | ((rport as u64) << 32) | ((lport as u64) << 48);
    let mut words = vec![(w0, 0xff, false), (w1, 0xff, false)];
    for chunk in payload.chunks(8) {
        let w = chunk.iter().enumerate().fold(0u64, |w, (k, b)| w | (*b as u64) << (8 * k));
        let keep = if chunk.len() == 8 { 0xff } else { (1u8 << chunk.len()) - 1 };
        words.push((w, keep, false));
    }
    words.last_mut().unwrap().2 = true;
    words
}

/// [`message_words`] of a [`TxMessage`] (the transmit path's default credit, rank 0).
pub fn tx_message_words(m: &TxMessage) -> Vec<(u64, u64, bool)> {
    message_words(m.payload.len() as u16, None, 0, m.remote_ip, m.remote_port, m.local_port, &m.payload)
        .into_iter()
        .map(|(d, k, l)| (d, k as u64, l))
        .collect()
}

/// Beats `(data, keep, last)` of a frame on a 64-bit stream.
pub fn frame_beats(frame: &[u8]) -> Vec<(u64, u64, bool)> {
    let n = frame.chunks(8).count();
    frame
        .chunks(8)
        .enumerate()
        .map(|(i, c)| (c.iter().enumerate().fold(0u64, |d, (k, b)| d | (*b as u64) << (8 * k)), (1u64 << c.len()) - 1, i + 1 == n))
        .collect()
}

fn keep_bytes(data: u64, keep: u64) -> impl Iterator<Item = u8> {
    (0..8).filter(move |k| keep >> k & 1 == 1).map(move |k| (data >> (8 * k)) as u8)
}

/// First-beat cycles at each stage boundary, in order of occurrence.
#[derive(Clone, Debug, Default)]
pub struct StageTimes {
    /// MAC RX: first beat of a frame accepted.
    pub mac_rx: Vec<u64>,
    /// Ingress pipeline → reassembly: first beat of a packet shown.
    pub ingress_out: Vec<u64>,
    /// Reassembly → CPU: first beat of a message shown.
    pub cpu_rx: Vec<u64>,
    /// CPU → transmit path: first word of a message accepted.
    pub cpu_tx: Vec<u64>,
    /// Packetization → arbiter: first beat of a data packet shown.
    pub pkt_out: Vec<u64>,
    /// MAC TX: first beat of a frame shown.
    pub mac_tx: Vec<u64>,
}

struct NicPorts {
    clock: PortId,
    reset: PortId,
    rx_tdata: PortId,
    rx_tkeep: PortId,
    rx_tlast: PortId,
    rx_tvalid: PortId,
    rx_tready: PortId,
    tx_tdata: PortId,
    tx_tkeep: PortId,
    tx_tlast: PortId,
    tx_tvalid: PortId,
    tx_tready: PortId,
    msg_out_tdata: PortId,
    msg_out_tkeep: PortId,
    msg_out_tlast: PortId,
    msg_out_tvalid: PortId,
    msg_out_tready: PortId,
    msg_in_tdata: PortId,
    msg_in_tkeep: PortId,
    msg_in_tlast: PortId,
    msg_in_tvalid: PortId,
    msg_in_tready: PortId,
    msg_id_valid: PortId,
    msg_id: PortId,
    done_valid: PortId,
    done_ready: PortId,
    done_tx_msg_id: PortId,
    done_abandoned: PortId,
    ingress_tvalid: PortId,
    ingress_tready: PortId,
    ingress_tlast: PortId,
    pkt_tvalid: PortId,
    pkt_tready: PortId,
    pkt_tlast: PortId,
}

/// Random back-pressure on the NIC's outputs: in each cycle MAC TX's and the CPU read-out's
/// `tready` are each low with probability `probability`. The draw is a function of the seed, the
/// stream and the cycle alone (a seekable generator), so two runs that reach a cycle by different
/// paths (a fuzz run and its bundle's replay) see the same stalls.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stalls {
    pub probability: f64,
    pub seed: u64,
}

impl Stalls {
    /// The back-pressure of a run with stall probability `probability` (`None` at 0); a one-line
    /// error outside 0 ≤ P < 1.
    pub fn with_probability(probability: f64, seed: u64) -> Result<Option<Stalls>, String> {
        if !(0.0..1.0).contains(&probability) {
            return Err(format!("--stall {probability}: valid 0 ≤ P < 1 (the probability that an output is not ready in a cycle)"));
        }
        Ok((probability > 0.0).then_some(Stalls { probability, seed }))
    }

    /// Whether stream `stream` (0 MAC TX, 1 CPU read-out) is ready in `cycle`.
    pub fn ready(&self, stream: u64, cycle: u64) -> bool {
        let mut rng = ChaCha8Rng::seed_from_u64(self.seed);
        rng.set_stream(stream);
        rng.set_word_pos(cycle as u128 * 2);
        !rng.gen_bool(self.probability)
    }
}

/// A beat an output stream showed without its `tready`: it must be shown again, unchanged, until
/// taken (AXI4-Stream).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct HeldBeat {
    data: u64,
    keep: u64,
    last: bool,
}

/// A whole-NIC model with its drivers. Inputs are offered as soon as they are queued (MAC RX
/// frames no earlier than their release cycle); outputs are taken when the `*_ready` knobs allow.
pub struct NicSim<B: Ports = VerilatedModel> {
    pub model: B,
    p: NicPorts,
    pub cycle: u64,
    rx_queue: VecDeque<(u64, Vec<(u64, u64, bool)>)>,
    rx_beat: usize,
    tx_partial: Vec<u8>,
    tx_partial_first: u64,
    /// Frames sent on MAC TX: (cycle of the first beat, bytes).
    pub tx_frames: Vec<(u64, Vec<u8>)>,
    /// Whether MAC TX takes beats this cycle (set before `step`).
    pub tx_ready: bool,
    msg_queue: VecDeque<Vec<(u64, u64, bool)>>,
    msg_word: usize,
    msg_out_beats: Vec<(u64, u64)>,
    msg_out_first: u64,
    /// Messages delivered to the CPU.
    pub delivered: Vec<RxMessage>,
    /// Whether the CPU takes message beats this cycle.
    pub msg_ready: bool,
    /// When set, `tx_ready` and `msg_ready` are drawn every cycle instead (see [`Stalls`]).
    pub stalls: Option<Stalls>,
    /// Cycles in which MAC TX or the CPU read-out changed or withdrew a beat it had shown
    /// without being taken (must stay 0).
    pub stream_rule_violations: u64,
    /// Cycles in which a shown beat waited for `tready` (how much back-pressure bit).
    pub stalled_beats: u64,
    tx_held: Option<HeldBeat>,
    msg_out_held: Option<HeldBeat>,
    /// tx_msg_ids given to the CPU's messages, in order: (cycle, id).
    pub sent_ids: Vec<(u64, u16)>,
    pub completions: Vec<Completion>,
    pub stages: StageTimes,
    /// Cycle of every beat accepted on MAC RX / taken on MAC TX.
    pub rx_beat_cycles: Vec<u64>,
    pub tx_beat_cycles: Vec<u64>,
    ingress_in_packet: bool,
    pkt_in_packet: bool,
    tx_shown: bool,
    msg_out_shown: bool,
    axil: AxilMaster,
}

impl NicSim<VerilatedModel> {
    /// The Verilator model `module` (e.g. `nt_ndp_16_nic`), reset for one cycle.
    pub fn new(module: &str) -> Result<Self, String> {
        Self::with_backend(VerilatedModel::new(module)?, module)
    }
}

impl<B: Ports> NicSim<B> {
    /// A NIC on `model` (named `module` in errors), reset for one cycle and run for
    /// [`RESET_INIT_CYCLES`] so that its tables are initialised.
    pub fn with_backend(model: B, module: &str) -> Result<Self, String> {
        let q = |n: &str| model.port(n).ok_or_else(|| format!("{module}: no port {n}"));
        let p = NicPorts {
            clock: q("clock")?,
            reset: q("reset")?,
            rx_tdata: q("s_axis_rx_tdata")?,
            rx_tkeep: q("s_axis_rx_tkeep")?,
            rx_tlast: q("s_axis_rx_tlast")?,
            rx_tvalid: q("s_axis_rx_tvalid")?,
            rx_tready: q("s_axis_rx_tready")?,
            tx_tdata: q("m_axis_tx_tdata")?,
            tx_tkeep: q("m_axis_tx_tkeep")?,
            tx_tlast: q("m_axis_tx_tlast")?,
            tx_tvalid: q("m_axis_tx_tvalid")?,
            tx_tready: q("m_axis_tx_tready")?,
            msg_out_tdata: q("m_axis_msg_tdata")?,
            msg_out_tkeep: q("m_axis_msg_tkeep")?,
            msg_out_tlast: q("m_axis_msg_tlast")?,
            msg_out_tvalid: q("m_axis_msg_tvalid")?,
            msg_out_tready: q("m_axis_msg_tready")?,
            msg_in_tdata: q("s_axis_msg_tdata")?,
            msg_in_tkeep: q("s_axis_msg_tkeep")?,
            msg_in_tlast: q("s_axis_msg_tlast")?,
            msg_in_tvalid: q("s_axis_msg_tvalid")?,
            msg_in_tready: q("s_axis_msg_tready")?,
            msg_id_valid: q("msg_id_valid")?,
            msg_id: q("msg_id")?,
            done_valid: q("done_valid")?,
            done_ready: q("done_ready")?,
            done_tx_msg_id: q("done_tx_msg_id")?,
            done_abandoned: q("done_abandoned")?,
            ingress_tvalid: q("probe_ingress_tvalid")?,
            ingress_tready: q("probe_ingress_tready")?,
            ingress_tlast: q("probe_ingress_tlast")?,
            pkt_tvalid: q("probe_pkt_tvalid")?,
            pkt_tready: q("probe_pkt_tready")?,
            pkt_tlast: q("probe_pkt_tlast")?,
        };
        let axil = AxilMaster::new(AxilPorts::of(&model).map_err(|e| format!("{module}: {e}"))?);
        let mut sim = NicSim {
            model,
            p,
            cycle: 0,
            rx_queue: VecDeque::new(),
            rx_beat: 0,
            tx_partial: Vec::new(),
            tx_partial_first: 0,
            tx_frames: Vec::new(),
            tx_ready: true,
            msg_queue: VecDeque::new(),
            msg_word: 0,
            msg_out_beats: Vec::new(),
            msg_out_first: 0,
            delivered: Vec::new(),
            msg_ready: true,
            stalls: None,
            stream_rule_violations: 0,
            stalled_beats: 0,
            tx_held: None,
            msg_out_held: None,
            sent_ids: Vec::new(),
            completions: Vec::new(),
            stages: StageTimes::default(),
            rx_beat_cycles: Vec::new(),
            tx_beat_cycles: Vec::new(),
            ingress_in_packet: false,
            pkt_in_packet: false,
            tx_shown: false,
            msg_out_shown: false,
            axil,
        };
        sim.model.set_port(sim.p.clock, 0);
        sim.model.set_port(sim.p.reset, 1);
        sim.model.eval();
        sim.model.tick();
        sim.model.set_port(sim.p.reset, 0);
        sim.model.eval();
        // The receive path clears its tables after reset (the delivered set's 4 096 buckets);
        // frames offered meanwhile would wait. Cycle 0 is the first cycle after that.
        for _ in 0..RESET_INIT_CYCLES {
            sim.model.tick();
        }
        sim.model.eval();
        Ok(sim)
    }

    /// Queues a frame for MAC RX, offered from cycle `not_before` on (in queue order).
    pub fn push_frame(&mut self, frame: &[u8], not_before: u64) {
        self.rx_queue.push_back((not_before, frame_beats(frame)));
    }

    /// Frames waiting for MAC RX (including the one being received).
    pub fn rx_backlog(&self) -> usize {
        self.rx_queue.len()
    }

    /// Queues a message for the CPU TX stream.
    pub fn send(&mut self, m: &TxMessage) {
        self.msg_queue.push_back(tx_message_words(m));
    }

    /// Messages not yet fully written into the NIC.
    pub fn send_backlog(&self) -> usize {
        self.msg_queue.len()
    }

    /// Cycles with a beat accepted on MAC RX or taken on MAC TX (each cycle counted once).
    pub fn busy_cycles(&self) -> usize {
        let (rx, tx) = (&self.rx_beat_cycles, &self.tx_beat_cycles);
        let (mut i, mut j, mut n) = (0, 0, 0);
        while i < rx.len() || j < tx.len() {
            let next = rx.get(i).copied().unwrap_or(u64::MAX).min(tx.get(j).copied().unwrap_or(u64::MAX));
            i += (rx.get(i) == Some(&next)) as usize;
            j += (tx.get(j) == Some(&next)) as usize;
            n += 1;
        }
        n
    }

    /// Whether a frame is part-way out on MAC TX or a message part-way out to the CPU.
    pub fn output_in_progress(&self) -> bool {
        self.tx_shown || !self.tx_partial.is_empty() || self.msg_out_shown || !self.msg_out_beats.is_empty()
    }

    /// One clock cycle: drive inputs, settle, observe every handshake, clock edge.
    pub fn step(&mut self) {
        if let Some(st) = self.stalls {
            self.tx_ready = st.ready(0, self.cycle);
            self.msg_ready = st.ready(1, self.cycle);
        }
        self.axil.drive(&mut self.model);
        let p = &self.p;
        let m = &mut self.model;
        // MAC RX
        let rx_offer = self.rx_queue.front().filter(|(t, _)| *t <= self.cycle).map(|(_, beats)| beats[self.rx_beat]);
        match rx_offer {
            Some((d, k, l)) => {
                m.set_port(p.rx_tdata, d);
                m.set_port(p.rx_tkeep, k);
                m.set_port(p.rx_tlast, l as u64);
                m.set_port(p.rx_tvalid, 1);
            }
            None => m.set_port(p.rx_tvalid, 0),
        }
        // CPU TX
        let msg_offer = self.msg_queue.front().map(|w| w[self.msg_word]);
        match msg_offer {
            Some((d, k, l)) => {
                m.set_port(p.msg_in_tdata, d);
                m.set_port(p.msg_in_tkeep, k);
                m.set_port(p.msg_in_tlast, l as u64);
                m.set_port(p.msg_in_tvalid, 1);
            }
            None => m.set_port(p.msg_in_tvalid, 0),
        }
        m.set_port(p.tx_tready, self.tx_ready as u64);
        m.set_port(p.msg_out_tready, self.msg_ready as u64);
        m.set_port(p.done_ready, 1);
        m.eval();

        let now = self.cycle;
        if rx_offer.is_some() && m.get_port(p.rx_tready) == 1 {
            if self.rx_beat == 0 {
                self.stages.mac_rx.push(now);
            }
            self.rx_beat_cycles.push(now);
            self.rx_beat += 1;
            if self.rx_beat == self.rx_queue.front().unwrap().1.len() {
                self.rx_queue.pop_front();
                self.rx_beat = 0;
            }
        }
        if msg_offer.is_some() && m.get_port(p.msg_in_tready) == 1 {
            if self.msg_word == 0 {
                self.stages.cpu_tx.push(now);
            }
            self.msg_word += 1;
            if self.msg_word == self.msg_queue.front().unwrap().len() {
                self.msg_queue.pop_front();
                self.msg_word = 0;
            }
        }
        // Output beats shown and not taken must stay until taken.
        let tx_beat = (m.get_port(p.tx_tvalid) == 1).then(|| HeldBeat {
            data: m.get_port(p.tx_tdata),
            keep: m.get_port(p.tx_tkeep),
            last: m.get_port(p.tx_tlast) == 1,
        });
        let msg_beat = (m.get_port(p.msg_out_tvalid) == 1).then(|| HeldBeat {
            data: m.get_port(p.msg_out_tdata),
            keep: m.get_port(p.msg_out_tkeep),
            last: m.get_port(p.msg_out_tlast) == 1,
        });
        for (held, shown, ready) in [(&mut self.tx_held, tx_beat, self.tx_ready), (&mut self.msg_out_held, msg_beat, self.msg_ready)] {
            if held.is_some() && *held != shown {
                self.stream_rule_violations += 1;
            }
            self.stalled_beats += (shown.is_some() && !ready) as u64;
            *held = if ready { None } else { shown };
        }
        // MAC TX
        if m.get_port(p.tx_tvalid) == 1 {
            if self.tx_partial.is_empty() && !self.tx_shown {
                self.tx_partial_first = now;
                self.stages.mac_tx.push(now);
                self.tx_shown = true;
            }
            if self.tx_ready {
                self.tx_beat_cycles.push(now);
                let (d, k) = (m.get_port(p.tx_tdata), m.get_port(p.tx_tkeep));
                self.tx_partial.extend(keep_bytes(d, k));
                if m.get_port(p.tx_tlast) == 1 {
                    self.tx_frames.push((self.tx_partial_first, std::mem::take(&mut self.tx_partial)));
                    self.tx_shown = false;
                }
            }
        }
        // CPU RX
        if m.get_port(p.msg_out_tvalid) == 1 {
            if self.msg_out_beats.is_empty() && !self.msg_out_shown {
                self.msg_out_first = now;
                self.stages.cpu_rx.push(now);
                self.msg_out_shown = true;
            }
            if self.msg_ready {
                self.msg_out_beats.push((m.get_port(p.msg_out_tdata), m.get_port(p.msg_out_tkeep)));
                if m.get_port(p.msg_out_tlast) == 1 {
                    let beats = std::mem::take(&mut self.msg_out_beats);
                    let (h0, h1) = (beats[0].0, beats.get(1).map(|b| b.0).unwrap_or(0));
                    let payload = beats[2.min(beats.len())..].iter().flat_map(|(d, k)| keep_bytes(*d, *k)).collect();
                    self.delivered.push(RxMessage {
                        remote_ip: h0 as u32,
                        remote_port: (h0 >> 32) as u16,
                        local_port: (h0 >> 48) as u16,
                        payload,
                        first_cycle: self.msg_out_first,
                    });
                    let _ = h1;
                    self.msg_out_shown = false;
                }
            }
        }
        // probes
        if m.get_port(p.ingress_tvalid) == 1 {
            if !self.ingress_in_packet {
                self.stages.ingress_out.push(now);
                self.ingress_in_packet = true;
            }
            if m.get_port(p.ingress_tready) == 1 && m.get_port(p.ingress_tlast) == 1 {
                self.ingress_in_packet = false;
            }
        }
        if m.get_port(p.pkt_tvalid) == 1 {
            if !self.pkt_in_packet {
                self.stages.pkt_out.push(now);
                self.pkt_in_packet = true;
            }
            if m.get_port(p.pkt_tready) == 1 && m.get_port(p.pkt_tlast) == 1 {
                self.pkt_in_packet = false;
            }
        }
        if m.get_port(p.msg_id_valid) == 1 {
            self.sent_ids.push((now, m.get_port(p.msg_id) as u16));
        }
        if m.get_port(p.done_valid) == 1 {
            self.completions.push(Completion {
                tx_msg_id: m.get_port(p.done_tx_msg_id) as u16,
                abandoned: m.get_port(p.done_abandoned) == 1,
                cycle: now,
            });
        }
        self.axil.observe(&mut self.model);
        self.model.tick();
        self.cycle += 1;
    }

    fn axil_wait(&mut self) -> (u64, u64) {
        for _ in 0..AXIL_TIMEOUT_CYCLES {
            self.step();
            if let Some(r) = self.axil.take_response() {
                return r;
            }
        }
        panic!("AXI4-Lite access did not complete in {AXIL_TIMEOUT_CYCLES} cycles");
    }

    /// Writes a register (traffic keeps flowing meanwhile); returns BRESP.
    pub fn write_register(&mut self, addr: u64, value: u32) -> u64 {
        self.axil.start_write(addr, value, 0xF);
        self.axil_wait().1
    }

    /// Reads a register; returns (RDATA, RRESP).
    pub fn read_register(&mut self, addr: u64) -> (u32, u64) {
        self.axil.start_read(addr);
        let (d, r) = self.axil_wait();
        (d as u32, r)
    }

    /// Steps `n` cycles.
    pub fn run(&mut self, n: u64) {
        for _ in 0..n {
            self.step();
        }
    }

    /// Steps until `done(self)` holds or `max` cycles passed; returns whether it held.
    pub fn run_until(&mut self, max: u64, mut done: impl FnMut(&Self) -> bool) -> bool {
        for _ in 0..max {
            if done(self) {
                return true;
            }
            self.step();
        }
        done(self)
    }
}
