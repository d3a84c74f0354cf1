//! Bolt's sender (thesis Algorithm 8, §4.3) and receiver as behavioural hosts, following the
//! authors' ns-3 sender (`bolt-l4-protocol.cc`) where it and the thesis' text differ.
//!
//! # Sender, per flow
//! * **Window** in bytes: starts at [`BoltConfig::init_cwnd`] (one BDP), kept within
//!   [`BoltConfig::min_cwnd`] (the authors' 15 bytes) and [`BoltConfig::max_cwnd`]; every step is
//!   one maximum payload (the MTU less the 59 bytes of headers).
//! * **Sending**: one frame at a time, the next when the link has finished the last (as the
//!   authors' sender schedules its next send one transmission time later), while
//!   `acked + cwnd` leaves room for the next payload. When the window is below one payload, or
//!   what is left of it is, the sender paces as the code's `SendDown` does: it arms a send
//!   `rtt × payload / cwnd` later and sends nothing until then, not even on an ACK; that send
//!   goes out if the window has room for a payload, or as one packet beyond the window if some
//!   but less than a payload is left (arming the next one), and not at all if none is left.
//! * **Flags** (Algorithm 8's header marking, as the code does it): DATA always; FIRST while no
//!   ACK has come back; otherwise INC while `next byte + cwnd < flow size`, LAST on the flow's
//!   final packet or once `next byte + cwnd ≥ flow size`; AI (the reserved bit) on the first
//!   packet sent after an AI ACK, so one packet per round trip carries it. `t_data_tx` is now in
//!   ns (32 bits, wrapping).
//! * **HandleAck**: the ACK number is cumulative; rtt = now − the reflected `t_data_tx` (the last
//!   sample, not smoothed). An ACK with AI adds one payload and asks for the next AI marker
//!   (the per-RTT additive increase; the thesis' `seq_no_at_last_ai` test is what the code
//!   replaced with the marker); an ACK with INC and without DEC adds one payload (a PRU or
//!   supply token the switch kept for it). While no SRC has arrived, an ACK with DEC is handled
//!   as an SRC (the code's fallback when switches send none).
//! * **HandleSrc**: rtt_src = now − the reflected `t_data_tx`. At a window of at most one
//!   payload the SRC halves it (every SRC). Otherwise the flow's share of the congested link is
//!   `rate / link rate` with `rate = cwnd / rtt` (the sender's link rate before the first ACK)
//!   and the queue in packets is `q_size / MTU` (target_q 0, as the code); the window drops one
//!   payload if the last drop was at least `rtt_src / (queue × share)` ago — several times per
//!   round trip when the queue is long (Algorithm 8's `target_q` rule). An SRC does not send.
//! * **Loss**: none in Bolt's runs (the switch buffers are large); a flow whose ACKs stop for
//!   [`BoltConfig::rto_ns`] goes back to its first unacknowledged byte, halves its window and
//!   asks for an AI marker again (the code's go-back-N); an ACK for bytes sent before the
//!   go-back moves it forward. A flow is never abandoned.
//!
//! # Receiver
//! ACKs every in-order data packet with the next byte expected, reflecting `t_data_tx`, `q_size`,
//! `link_rate` and the flags FIRST, LAST, INC, DEC and AI (a data packet's `q_size` and
//! `link_rate` are 0 — the switch stamps them into SRCs only — so the fallback above sees an
//! empty queue and decreases at most once per rtt_src); an out-of-order packet is dropped and
//! answered with the cumulative ACK and no other flag (as the authors' NACK: it grows no window). It records every distinct data frame's IP bytes
//! (payload, IPv4, Bolt and transport headers) with its arrival time, and each flow's completion.
//!
//! # Bad input
//! Frames that are not Bolt, ACKs or SRCs for unknown flows, and ACKs older than the one held
//! or beyond anything sent are counted ([`BoltSender::ignored`], [`BoltReceiver::ignored`]) and
//! change no other flow; a flow of 2^32 bytes or more is refused (the header's 32-bit offsets).

use super::frame::{
    ns_u32, BoltFrame, FLAG_ACK, FLAG_AI, FLAG_DATA, FLAG_DEC, FLAG_FIRST, FLAG_INC, FLAG_LAST, FLAG_SRC, FRAME_HEADER_BYTES,
};
use super::switch::SRC_TRAILING_BYTES;
use crate::host::{Host, HostIo};
use nanotransport_hdl::switch::bolt_ingress::BoltParams;
use nanotransport_reference::bolt::{forwarded_frame, frame_descriptor, src_frame, BoltModel};
use std::any::Any;
use std::collections::HashMap;

/// A Bolt sender's parameters (the authors' attribute names in brackets).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BoltConfig {
    /// Largest frame, bytes (Ethernet, no FCS).
    pub mtu: usize,
    /// Initial window, bytes (`BandwidthDelayProduct` in the authors' sender).
    pub init_cwnd: f64,
    /// `MaxCwnd` in the authors' sender, bytes.
    pub max_cwnd: f64,
    /// `MinCwnd` in the authors' sender, bytes.
    pub min_cwnd: f64,
    /// The host's link, Gb/s (the rate before the first RTT sample).
    pub link_gbps: f64,
    /// No progress for this long: go back to the first unacknowledged byte.
    pub rto_ns: f64,
}

impl BoltConfig {
    /// Payload bytes of a full frame.
    pub fn max_payload(&self) -> usize {
        self.mtu - FRAME_HEADER_BYTES
    }

    /// One line naming the first parameter out of range.
    pub fn validate(&self) -> Result<(), String> {
        if !(FRAME_HEADER_BYTES + 1..=9000).contains(&self.mtu) {
            return Err(format!("MTU {}: valid {}..=9000 bytes", self.mtu, FRAME_HEADER_BYTES + 1));
        }
        if !(self.min_cwnd > 0.0 && self.min_cwnd <= self.init_cwnd && self.init_cwnd <= self.max_cwnd) {
            return Err(format!("windows min {} ≤ initial {} ≤ max {} bytes, min > 0", self.min_cwnd, self.init_cwnd, self.max_cwnd));
        }
        if !(self.link_gbps > 0.0 && self.rto_ns > 0.0) {
            return Err("the link rate and the RTO must be positive".into());
        }
        Ok(())
    }
}

/// One flow's record, for results.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FlowStats {
    pub srcs: u64,
    /// Window decreases by SRC (one payload each) and halvings (at most one payload).
    pub decreases: u64,
    pub halvings: u64,
    /// Payloads added by INC ACKs and by AI ACKs.
    pub inc_increases: u64,
    pub ai_increases: u64,
    pub timeouts: u64,
    pub data_packets: u64,
    /// When the last byte was acknowledged.
    pub done_ns: Option<f64>,
    /// (time, cwnd bytes) at every change, when recording.
    pub cwnd_trace: Vec<(f64, f64)>,
    /// (time, ns) of every paced send armed, when recording: until then the flow sends nothing.
    pub pace_trace: Vec<(f64, f64)>,
}

#[derive(Clone, Debug)]
struct Flow {
    dst_ip: u32,
    port: u16,
    size: u64,
    start_ns: f64,
    /// From here the flow sends nothing (it was rerouted away; `f64::INFINITY`: never).
    stop_ns: f64,
    snd_next: u64,
    /// The highest byte sent (`snd_next` goes back on a timeout).
    snd_max: u64,
    ack_no: u64,
    cwnd: f64,
    /// Last RTT sample, ns (0: none yet).
    rtt_ns: f64,
    /// The last window decrease (the authors' `m_wndTimeMarker`: the flow's start until the first).
    last_decrease_ns: f64,
    set_ai_next: bool,
    src_seen: bool,
    /// The authors' `m_resumeTime`: when the pending paced send is due.
    resume_ns: f64,
    /// A paced send is pending (the authors' `m_sndEvent` armed by the pacing branch): until it
    /// is due the flow sends nothing, not even on an ACK.
    pace_pending: bool,
    progress_at_ns: f64,
    stats: FlowStats,
}

const TIMER_START: u64 = 0;
const TIMER_PACE: u64 = 1;
const TIMER_RTO: u64 = 2;
const TIMERS_PER_FLOW: u64 = 3;

/// A host sending Bolt flows.
pub struct BoltSender {
    pub ip: u32,
    pub config: BoltConfig,
    flows: Vec<Flow>,
    by_port: HashMap<u16, usize>,
    /// Frames for no flow of this host, or not Bolt ACKs/SRCs, and stale ACKs (counted, dropped).
    pub ignored: u64,
    /// Record every flow's window at every change.
    pub record_cwnd: bool,
    next_flow: usize,
    /// The Bolt queue disc on the host's own link, where the experiment puts one there
    /// ([`Self::with_host_queue_disc`]).
    host_queue_disc: Option<HostQueueDisc>,
}

/// Bolt's queue disc on a sender's own link, as the authors' star script installs it on both
/// ends of every host link (`bolt-star-topo-incast.cc`, `boltQdisc.Install(hostToSwDevices[i])`):
/// the switch's decision logic ([`BoltModel`], the RTL's reference) over the host's link, with
/// one difference the code makes: a packet still at TTL 64 (not yet routed) loses an INC it
/// cannot grant only with supply matching on (`pfifo-bolt-queue-disc.cc`: `if (ipv4h.GetTtl() <
/// 64 || m_absEnabled)`). So with SM on an INC leaves the host only with the host link's own
/// supply or a PRU token of the host's own; with SM off the host keeps every INC below
/// CC_THRESH. At CC_THRESH the host's queue marks the packet as a switch does (DEC, no INC) and
/// its SRC is handled at once as the sender's own; the host's queue holds at most the frame
/// being sent, so that takes a CC_THRESH of less than one frame.
struct HostQueueDisc {
    model: BoltModel,
    sm: bool,
    /// Packets whose INC the host's queue disc removed.
    inc_cleared: u64,
}

impl BoltSender {
    pub fn new(ip: u32, config: BoltConfig) -> Result<Self, String> {
        config.validate()?;
        Ok(BoltSender {
            ip,
            config,
            flows: Vec::new(),
            by_port: HashMap::new(),
            ignored: 0,
            record_cwnd: false,
            next_flow: 0,
            host_queue_disc: None,
        })
    }

    /// Puts Bolt's queue disc with `params` (one port: the host's link) on the host's own link
    /// ([`HostQueueDisc`]).
    pub fn with_host_queue_disc(mut self, params: BoltParams) -> Result<Self, String> {
        if params.port_rates.len() != 1 {
            return Err(format!("a host's queue disc has one port, {} given", params.port_rates.len()));
        }
        let sm = params.sm;
        self.host_queue_disc = Some(HostQueueDisc { model: BoltModel::new(params), sm, inc_cleared: 0 });
        Ok(self)
    }

    /// Packets whose INC the host's own queue disc removed (0 without one).
    pub fn host_inc_cleared(&self) -> u64 {
        self.host_queue_disc.as_ref().map_or(0, |q| q.inc_cleared)
    }

    /// A flow of `bytes` of payload to `dst_ip` from local port `port`, starting at `start_ns`;
    /// returns its index.
    pub fn add_flow(&mut self, dst_ip: u32, port: u16, bytes: u64, start_ns: f64) -> Result<usize, String> {
        if bytes == 0 || bytes >= 1 << 32 {
            return Err(format!("a flow of {bytes} bytes: valid 1..2^32 (the header's offsets are 32 bits)"));
        }
        if self.by_port.contains_key(&port) {
            return Err(format!("port {port} already has a flow"));
        }
        let cwnd = self.config.init_cwnd;
        self.flows.push(Flow {
            dst_ip,
            port,
            size: bytes,
            start_ns,
            stop_ns: f64::INFINITY,
            snd_next: 0,
            snd_max: 0,
            ack_no: 0,
            cwnd,
            rtt_ns: 0.0,
            last_decrease_ns: start_ns,
            set_ai_next: true,
            src_seen: false,
            resume_ns: start_ns,
            pace_pending: false,
            progress_at_ns: start_ns,
            stats: FlowStats { cwnd_trace: vec![(start_ns, cwnd)], ..FlowStats::default() },
        });
        self.by_port.insert(port, self.flows.len() - 1);
        Ok(self.flows.len() - 1)
    }

    /// Flow `flow` leaves this path at `ns` without warning, as when its route changes (the
    /// authors' reroute runs take the sender's link down): from then on it sends nothing, so
    /// no LAST flag tells the switch it is going.
    pub fn stop_flow_at(&mut self, flow: usize, ns: f64) {
        self.flows[flow].stop_ns = ns;
    }

    pub fn flow_stats(&self, flow: usize) -> &FlowStats {
        &self.flows[flow].stats
    }

    pub fn cwnd(&self, flow: usize) -> f64 {
        self.flows[flow].cwnd
    }

    fn payload(&self) -> f64 {
        self.config.max_payload() as f64
    }

    fn set_cwnd(&mut self, f: usize, cwnd: f64, now: f64, clamp_max: bool) {
        let c = &self.config;
        let cwnd = if clamp_max { cwnd.min(c.max_cwnd) } else { cwnd };
        let flow = &mut self.flows[f];
        flow.cwnd = cwnd.max(c.min_cwnd);
        if self.record_cwnd {
            flow.stats.cwnd_trace.push((now, flow.cwnd));
        }
    }

    fn active(&self, f: usize, now: f64) -> bool {
        let flow = &self.flows[f];
        now >= flow.start_ns && now < flow.stop_ns && flow.stats.done_ns.is_none() && flow.snd_next < flow.size
    }

    /// Sends the next packet of some flow if the link is free; round robin over the flows.
    fn transmit(&mut self, io: &mut HostIo) {
        if io.queued_bytes() > 0 {
            io.wake_on_tx();
            return;
        }
        let n = self.flows.len();
        for k in 0..n {
            let f = (self.next_flow + k) % n;
            if self.try_send(f, io) {
                self.next_flow = (f + 1) % n;
                io.wake_on_tx();
                return;
            }
        }
    }

    /// Sends flow `f`'s next packet if its window (or its pacing) allows; arms its pacing timer
    /// when it must wait.
    fn try_send(&mut self, f: usize, io: &mut HostIo) -> bool {
        let now = io.now_ns();
        if !self.active(f, now) {
            return false;
        }
        let max_payload = self.payload();
        // The authors' SendDown: while a paced send is pending nothing is sent (an ACK's
        // SendDown returns at `!m_sndEvent.IsExpired()`); the paced send itself runs at
        // `m_resumeTime`.
        let mut at_resume = false;
        if self.flows[f].pace_pending {
            let resume = self.flows[f].resume_ns;
            if !io.due(resume) {
                io.set_timer_at(resume, f as u64 * TIMERS_PER_FLOW + TIMER_PACE);
                return false;
            }
            self.flows[f].pace_pending = false;
            at_resume = true;
        }
        let flow = &self.flows[f];
        let payload = (flow.size - flow.snd_next).min(max_payload as u64);
        let window_end = flow.ack_no as f64 + flow.cwnd;
        let room = window_end - flow.snd_next as f64;
        if room <= 0.0 {
            return false;
        }
        if flow.cwnd < max_payload || room < payload as f64 {
            // Less than a payload of window left: one packet only if this is the paced send
            // (`Simulator::Now() == m_resumeTime`), and in any case the next paced send is
            // `rtt × payload / cwnd` from now, nothing before it.
            let gap = if flow.rtt_ns > 0.0 { flow.rtt_ns * max_payload / flow.cwnd } else { 0.0 };
            let record = self.record_cwnd;
            let flow = &mut self.flows[f];
            flow.resume_ns = now + gap;
            flow.pace_pending = true;
            if record {
                flow.stats.pace_trace.push((now, gap));
            }
            io.set_timer_at(flow.resume_ns, f as u64 * TIMERS_PER_FLOW + TIMER_PACE);
            if !at_resume {
                return false;
            }
        }
        let flow = &mut self.flows[f];
        let mut flags = FLAG_DATA;
        if flow.rtt_ns == 0.0 {
            flags |= FLAG_FIRST;
        } else if (flow.snd_next as f64 + flow.cwnd) < flow.size as f64 {
            flags |= FLAG_INC;
        }
        if flow.snd_next + payload >= flow.size || flow.snd_next as f64 + flow.cwnd >= flow.size as f64 {
            flags = (flags & !FLAG_INC) | FLAG_LAST;
        }
        if flow.set_ai_next {
            flags |= FLAG_AI;
            flow.set_ai_next = false;
        }
        let flow = &self.flows[f];
        let mut frame = BoltFrame {
            src_ip: self.ip,
            dst_ip: flow.dst_ip,
            flags,
            t_data_tx: ns_u32(now),
            src_port: flow.port,
            dst_port: flow.port,
            seq: flow.snd_next as u32,
            flow_bytes: flow.size as u32,
            ..BoltFrame::default()
        }
        .frame(payload as usize);
        // The host's own queue disc decides on the frame as a switch port does (the same
        // descriptor, rewrite and SRC), but for an INC it cannot grant (see `HostQueueDisc`).
        let mut host_src = None;
        if let Some(q) = self.host_queue_disc.as_mut() {
            let d = q.model.ingress(&frame_descriptor(&frame, 0, 0, io.queued_bytes() as u32, ns_u32(now)));
            let cleared = flags & FLAG_INC != 0 && d.flags & FLAG_INC == 0;
            if d.src || !cleared || q.sm {
                q.inc_cleared += cleared as u64;
                frame = forwarded_frame(&frame, &d);
            }
            if d.src {
                host_src = BoltFrame::parse(&src_frame(&frame, &d, SRC_TRAILING_BYTES)).map(|(h, _)| h);
            }
        }
        io.send(frame);
        let flow = &mut self.flows[f];
        flow.snd_next += payload;
        flow.snd_max = flow.snd_max.max(flow.snd_next);
        flow.stats.data_packets += 1;
        let rto = self.config.rto_ns;
        io.set_timer_after(rto, f as u64 * TIMERS_PER_FLOW + TIMER_RTO);
        if let Some(src) = host_src {
            self.flows[f].src_seen = true;
            self.handle_src(f, &src, now);
        }
        true
    }

    /// Algorithm 8's HandleSrc (or an ACK with DEC before any SRC).
    fn handle_src(&mut self, f: usize, h: &BoltFrame, now: f64) {
        let max_payload = self.payload();
        let link_gbps = self.config.link_gbps;
        let mtu = self.config.mtu as f64;
        let flow = &mut self.flows[f];
        flow.stats.srcs += (h.flags & FLAG_SRC != 0) as u64;
        let rtt_src = ns_u32(now).wrapping_sub(h.t_data_tx) as f64;
        if flow.cwnd <= max_payload {
            flow.stats.halvings += 1;
            let cwnd = flow.cwnd * 0.5;
            self.set_cwnd(f, cwnd, now, false);
            return;
        }
        let link = if h.link_rate > 0 { h.link_rate as f64 } else { link_gbps };
        let rate = if flow.rtt_ns > 0.0 { flow.cwnd * 8.0 / flow.rtt_ns } else { link_gbps };
        let share = rate / link;
        let queue_packets = h.q_size as f64 / mtu;
        let interval = if queue_packets * share > 0.0 { rtt_src / (queue_packets * share) } else { rtt_src };
        if h.flags & FLAG_DEC != 0 && now - flow.last_decrease_ns >= interval {
            flow.last_decrease_ns = now;
            flow.stats.decreases += 1;
            let cwnd = flow.cwnd - max_payload;
            self.set_cwnd(f, cwnd, now, false);
        }
    }

    /// Algorithm 8's HandleAck.
    fn handle_ack(&mut self, f: usize, h: &BoltFrame, now: f64, io: &mut HostIo) {
        let flow = &mut self.flows[f];
        let ack = h.seq as u64;
        if ack < flow.ack_no || ack > flow.snd_max {
            self.ignored += 1;
            return;
        }
        if ack > flow.ack_no {
            flow.progress_at_ns = now;
        }
        flow.ack_no = ack;
        flow.snd_next = flow.snd_next.max(ack);
        flow.rtt_ns = (ns_u32(now).wrapping_sub(h.t_data_tx) as f64).max(1.0);
        if !flow.src_seen && h.flags & FLAG_DEC != 0 {
            self.handle_src(f, h, now);
        }
        let max_payload = self.payload();
        let flow = &mut self.flows[f];
        if flow.ack_no >= flow.size {
            flow.stats.done_ns = Some(now);
            io.cancel_timer(f as u64 * TIMERS_PER_FLOW + TIMER_RTO);
            return;
        }
        let mut cwnd = flow.cwnd;
        if h.flags & FLAG_AI != 0 {
            cwnd += max_payload;
            flow.set_ai_next = true;
            flow.stats.ai_increases += 1;
        }
        if h.flags & FLAG_DEC == 0 && h.flags & FLAG_INC != 0 {
            cwnd += max_payload;
            flow.stats.inc_increases += 1;
        }
        if cwnd != flow.cwnd {
            self.set_cwnd(f, cwnd, now, true);
        }
    }

    fn on_rto(&mut self, f: usize, io: &mut HostIo) {
        let now = io.now_ns();
        let rto = self.config.rto_ns;
        let flow = &mut self.flows[f];
        if flow.stats.done_ns.is_some() || flow.snd_next == flow.ack_no {
            return;
        }
        if now - flow.progress_at_ns < rto {
            io.set_timer_at(flow.progress_at_ns + rto, f as u64 * TIMERS_PER_FLOW + TIMER_RTO);
            return;
        }
        flow.stats.timeouts += 1;
        flow.snd_next = flow.ack_no;
        flow.set_ai_next = true;
        flow.progress_at_ns = now;
        let cwnd = flow.cwnd * 0.5;
        self.set_cwnd(f, cwnd, now, true);
    }
}

impl Host for BoltSender {
    fn ip(&self) -> u32 {
        self.ip
    }
    fn start(&mut self, io: &mut HostIo) {
        for f in 0..self.flows.len() {
            io.set_timer_at(self.flows[f].start_ns, f as u64 * TIMERS_PER_FLOW + TIMER_START);
        }
    }
    fn receive(&mut self, frame: Vec<u8>, io: &mut HostIo) {
        let Some((h, _)) = BoltFrame::parse(&frame) else {
            self.ignored += 1;
            return;
        };
        // An ACK carries the flow's port as its destination port; an SRC carries the data
        // packet's transport header, the flow's port as its source port.
        let (port, src) = if h.flags & FLAG_SRC != 0 { (h.src_port, true) } else { (h.dst_port, false) };
        let Some(&f) = self.by_port.get(&port).filter(|_| h.dst_ip == self.ip && (src || h.flags & FLAG_ACK != 0)) else {
            self.ignored += 1;
            return;
        };
        let now = io.now_ns();
        if src {
            self.flows[f].src_seen = true;
            self.handle_src(f, &h, now);
        } else {
            self.handle_ack(f, &h, now, io);
        }
        self.transmit(io);
    }
    fn timer(&mut self, id: u64, io: &mut HostIo) {
        let f = (id / TIMERS_PER_FLOW) as usize;
        if f >= self.flows.len() {
            return;
        }
        if id % TIMERS_PER_FLOW == TIMER_RTO {
            self.on_rto(f, io);
        }
        self.transmit(io);
    }
    fn tx_done(&mut self, io: &mut HostIo) {
        self.transmit(io);
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// A host receiving Bolt flows.
#[derive(Default)]
pub struct BoltReceiver {
    pub ip: u32,
    /// (sender, port) → next byte expected.
    expected: HashMap<(u32, u16), u64>,
    /// Every in-order data frame: (arrival ns, IP bytes: payload and every header after
    /// Ethernet).
    pub arrivals: Vec<(f64, u32)>,
    /// Flows complete: (sender, port, ns).
    pub completions: Vec<(u32, u16, f64)>,
    pub out_of_order: u64,
    /// Frames that are not Bolt data for this host (counted, dropped).
    pub ignored: u64,
}

impl BoltReceiver {
    pub fn new(ip: u32) -> Self {
        BoltReceiver { ip, ..Default::default() }
    }
}

impl Host for BoltReceiver {
    fn ip(&self) -> u32 {
        self.ip
    }
    fn receive(&mut self, frame: Vec<u8>, io: &mut HostIo) {
        let Some((h, payload)) = BoltFrame::parse(&frame).filter(|(h, _)| h.flags & FLAG_DATA != 0 && h.dst_ip == self.ip) else {
            self.ignored += 1;
            return;
        };
        let next = self.expected.entry((h.src_ip, h.src_port)).or_insert(0);
        let in_order = h.seq as u64 == *next;
        if in_order {
            *next += payload as u64;
            self.arrivals.push((io.now_ns(), (frame.len().max(14) - 14) as u32));
            if *next >= h.flow_bytes as u64 && payload > 0 {
                self.completions.push((h.src_ip, h.src_port, io.now_ns()));
            }
        } else {
            self.out_of_order += 1;
        }
        let ack = BoltFrame {
            src_ip: self.ip,
            dst_ip: h.src_ip,
            q_size: h.q_size,
            link_rate: h.link_rate,
            flags: if in_order { FLAG_ACK | (h.flags & (FLAG_FIRST | FLAG_LAST | FLAG_INC | FLAG_DEC | FLAG_AI)) } else { FLAG_ACK },
            t_data_tx: h.t_data_tx,
            src_port: h.dst_port,
            dst_port: h.src_port,
            seq: *next as u32,
            flow_bytes: h.flow_bytes,
        };
        io.send(ack.frame(0));
    }
    fn timer(&mut self, _id: u64, _io: &mut HostIo) {}
    fn as_any(&self) -> &dyn Any {
        self
    }
}
