//! PL2's sender (Algorithm 2 with equation (1)) and a receiver, as behavioural hosts; the same
//! sender without PL2 transmits every message at once (raw Ethernet, the paper's baseline).
//!
//! **Sender.** Messages arrive as a Poisson process (seeded) at an offered rate and go to the
//! host's flows in turn (the paper's 12 flows per host, one application thread each). Each flow
//! cuts its messages into bursts of at most K packets and has at most one RSV outstanding:
//! - *scheduleBurst* (lines 5–13): send an RSV for the burst; if the flow's last chosen
//!   timeslot is below t and its last GRT is recent (within [`Pl2Params::recency_ns`]), also
//!   send the burst at once, marked unsolicited; otherwise wait for the GRT;
//! - *receiveGRT* (lines 14–22): chosen timeslot = max(sendTimeslot, recvTimeslot); the burst
//!   is handed to the link after waitingTime = chosen × slot − rsvGrtDelay − pendingDataDelay
//!   (equation (1)), at once when that is negative. rsvGrtDelay is this exchange's, from when
//!   the RSV left the host (after the bytes queued before it, as a hardware timestamp sees it)
//!   to the GRT. pendingDataDelay is the data still queued on the link *when the burst is
//!   handed over*, so that the burst leaves at chosen × slot − rsvGrtDelay after the GRT: the
//!   queue the host sees at the GRT drains while it waits, so the wait is that whole time when
//!   the queue drains first, and nothing (the burst queues behind it, late) when it does not. A burst already sent unsolicited is sent again —
//!   at that time, marked resent — only when chosen > t (lines 16–19); the flow then records the
//!   chosen timeslot and the GRT's time and starts its next burst.
//! - A GRT for no outstanding burst (duplicated, reordered, or for another host) is counted in
//!   [`Pl2Sender::stray_grants`] and ignored.
//!
//! The slot is the serialisation time of the largest frame on the link (1 514 B: 121.12 ns at
//! 100 Gb/s in frame bytes); a 64-byte frame also takes a whole slot.
//!
//! **Receiver.** Counts every distinct data packet once (a resent copy of a burst that also
//! arrived unsolicited is a duplicate, counted and dropped), and a message complete when all of
//! its packets have arrived: latency = completion − the message's creation at the sender.

use super::frame::{MessageFields, Pl2Header, Pl2Type, FLAG_RESENT, FLAG_UNSOLICITED, OFF_PL2_PAYLOAD};
use crate::host::{Host, HostIo};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::any::Any;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, HashSet, VecDeque};

/// Largest frame: 1 500-byte IPv4 packets.
pub const MAX_FRAME_BYTES: usize = 1514;
/// Payload bytes a full data frame carries after the PL2 header.
pub const MAX_PAYLOAD_BYTES: usize = MAX_FRAME_BYTES - OFF_PL2_PAYLOAD;

const ARRIVAL_TIMER: u64 = 0;
const RELEASE_TIMER: u64 = 1;

/// The sender's PL2 parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pl2Params {
    /// K: packets per burst (the paper's 4).
    pub k: u8,
    /// t: chosen timeslots below which bursts may go unsolicited (the paper's 15).
    pub t: u32,
    /// How long a GRT counts as recent for an unsolicited burst (about one RSV-GRT exchange).
    pub recency_ns: f64,
    /// Send unsolicited bursts at all (§4.4's optimisation).
    pub unsolicited: bool,
}

impl Default for Pl2Params {
    fn default() -> Self {
        Pl2Params { k: 4, t: 15, recency_ns: 2000.0, unsolicited: true }
    }
}

/// How a sender transmits.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SendMode {
    Pl2(Pl2Params),
    /// Every message at once, no reservation (raw Ethernet).
    Raw,
}

/// What a sender offers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Offer {
    pub flows: usize,
    /// Packets per message (full 1 514-byte frames).
    pub message_packets: u16,
    /// Offered data rate in Gb/s of frame bytes (Poisson message arrivals).
    pub gbps: f64,
    /// Messages arrive in [start_ns, stop_ns).
    pub start_ns: f64,
    pub stop_ns: f64,
    /// Messages created from this time on are counted in [`Pl2Sender::measured_messages`].
    pub measure_from_ns: f64,
}

#[derive(Clone, Copy, Debug)]
struct Burst {
    flow: usize,
    message: MessageFields,
    first_packet: u16,
    packets: u8,
    rsv_sent_ns: f64,
    unsolicited: bool,
}

#[derive(Clone, Debug, Default)]
struct Flow {
    /// Messages waiting, with the packets of the first already given to bursts.
    queue: VecDeque<(MessageFields, u16)>,
    outstanding: Option<u32>,
    last_chosen: Option<u32>,
    last_response_ns: Option<f64>,
}

/// A PL2 (or raw) sender; flow i sends to receiver i mod (receivers).
pub struct Pl2Sender {
    pub ip: u32,
    pub dst_ips: Vec<u32>,
    pub mode: SendMode,
    pub offer: Offer,
    link_gbps: f64,
    rng: ChaCha8Rng,
    flows: Vec<Flow>,
    bursts: HashMap<u32, Burst>,
    next_burst: u32,
    /// Bursts waiting for their timeslot: (release time in ps, burst, resent).
    releases: BinaryHeap<Reverse<(u64, u32, bool)>>,
    pub messages: u32,
    /// Messages created at or after [`Offer::measure_from_ns`].
    pub measured_messages: u64,
    pub rsvs: u64,
    pub data_packets: u64,
    pub unsolicited_bursts: u64,
    pub resent_bursts: u64,
    pub stray_grants: u64,
    /// Frames that are not GRTs for this sender (counted, dropped).
    pub other_frames: u64,
    /// Sum of the waiting times (ns) of scheduled bursts, and how many.
    pub waiting_ns: f64,
    pub waits: u64,
}

impl Pl2Sender {
    pub fn new(ip: u32, dst_ips: Vec<u32>, mode: SendMode, offer: Offer, link_gbps: f64, seed: u64) -> Self {
        assert!(!dst_ips.is_empty(), "a sender needs a receiver");
        Pl2Sender {
            ip,
            dst_ips,
            mode,
            offer,
            link_gbps,
            rng: ChaCha8Rng::seed_from_u64(seed),
            flows: vec![Flow::default(); offer.flows.max(1)],
            bursts: HashMap::new(),
            next_burst: 0,
            releases: BinaryHeap::new(),
            messages: 0,
            measured_messages: 0,
            rsvs: 0,
            data_packets: 0,
            unsolicited_bursts: 0,
            resent_bursts: 0,
            stray_grants: 0,
            other_frames: 0,
            waiting_ns: 0.0,
            waits: 0,
        }
    }

    fn dst_of(&self, flow: usize) -> u32 {
        self.dst_ips[flow % self.dst_ips.len()]
    }

    /// One timeslot: the largest frame on the link.
    pub fn slot_ns(&self) -> f64 {
        MAX_FRAME_BYTES as f64 * 8.0 / self.link_gbps
    }

    fn next_arrival(&mut self, io: &mut HostIo) {
        let message_bits = self.offer.message_packets as f64 * MAX_FRAME_BYTES as f64 * 8.0;
        let mean_ns = message_bits / self.offer.gbps;
        let gap = -(1.0 - self.rng.gen::<f64>()).ln() * mean_ns;
        let at = io.now_ns().max(self.offer.start_ns) + gap;
        if at < self.offer.stop_ns {
            io.set_timer_at(at, ARRIVAL_TIMER);
        }
    }

    fn data_frames(&self, b: &Burst, burst: u32, flags: u8) -> Vec<Vec<u8>> {
        (0..b.packets)
            .map(|i| {
                let h = Pl2Header {
                    flags,
                    demand: b.packets,
                    index: i,
                    ..Pl2Header::new(Pl2Type::Data, self.ip, self.dst_of(b.flow), b.flow as u16, burst)
                };
                h.frame(MAX_PAYLOAD_BYTES, Some(MessageFields { index: b.first_packet + i as u16, ..b.message }))
            })
            .collect()
    }

    fn send_burst(&mut self, io: &mut HostIo, burst: u32, flags: u8) {
        let b = self.bursts[&burst];
        for f in self.data_frames(&b, burst, flags) {
            io.send(f);
            self.data_packets += 1;
        }
    }

    /// Algorithm 2's scheduleBurst for the flow's next burst, if it has one and no RSV out.
    fn schedule_burst(&mut self, flow: usize, io: &mut HostIo, params: Pl2Params) {
        let f = &mut self.flows[flow];
        if f.outstanding.is_some() {
            return;
        }
        let Some((message, sent)) = f.queue.front_mut() else { return };
        let packets = (message.packets - *sent).min(params.k as u16) as u8;
        // The RSV leaves after the bytes already queued on the link.
        let rsv_sent_ns = io.now_ns() + io.queued_bytes() as f64 * 8.0 / self.link_gbps;
        let b = Burst { flow, message: *message, first_packet: *sent, packets, rsv_sent_ns, unsolicited: false };
        *sent += packets as u16;
        if *sent == message.packets {
            f.queue.pop_front();
        }
        let recent = f.last_response_ns.is_some_and(|t| io.now_ns() - t <= params.recency_ns);
        let unsolicited = params.unsolicited && recent && f.last_chosen.is_some_and(|c| c < params.t);
        let id = self.next_burst;
        self.next_burst = self.next_burst.wrapping_add(1);
        f.outstanding = Some(id);
        self.bursts.insert(id, Burst { unsolicited, ..b });
        let rsv = Pl2Header { demand: packets, ..Pl2Header::new(Pl2Type::Reserve, self.ip, self.dst_of(flow), flow as u16, id) };
        io.send(rsv.frame(0, None));
        self.rsvs += 1;
        if unsolicited {
            self.unsolicited_bursts += 1;
            self.send_burst(io, id, FLAG_UNSOLICITED);
        }
    }

    /// Algorithm 2's receiveGRT.
    fn receive_grant(&mut self, h: &Pl2Header, io: &mut HostIo, params: Pl2Params) {
        let Some(b) = self.bursts.get(&h.burst).copied().filter(|b| self.flows[b.flow].outstanding == Some(h.burst)) else {
            self.stray_grants += 1;
            return;
        };
        let now = io.now_ns();
        let chosen = h.chosen_timeslot();
        let pending_ns = io.queued_bytes() as f64 * 8.0 / self.link_gbps;
        let departure = chosen as f64 * self.slot_ns() - (now - b.rsv_sent_ns);
        let waiting = if departure >= pending_ns { departure } else { 0.0 };
        let release = |s: &mut Self, resent: bool| {
            s.releases.push(Reverse((((now + waiting) * 1000.0).round() as u64, h.burst, resent)));
            s.waiting_ns += waiting;
            s.waits += 1;
        };
        if !b.unsolicited {
            release(self, false);
        } else if chosen > params.t {
            self.resent_bursts += 1;
            release(self, true);
        } else {
            self.bursts.remove(&h.burst);
        }
        let f = &mut self.flows[b.flow];
        f.last_chosen = Some(chosen);
        f.last_response_ns = Some(now);
        f.outstanding = None;
        self.arm_release(io);
        self.schedule_burst(b.flow, io, params);
    }

    fn arm_release(&self, io: &mut HostIo) {
        if let Some(Reverse((at, _, _))) = self.releases.peek() {
            io.set_timer_at(*at as f64 / 1000.0, RELEASE_TIMER);
        }
    }
}

impl Host for Pl2Sender {
    fn ip(&self) -> u32 {
        self.ip
    }
    fn start(&mut self, io: &mut HostIo) {
        self.next_arrival(io);
    }
    fn receive(&mut self, frame: Vec<u8>, io: &mut HostIo) {
        match (Pl2Header::parse(&frame), self.mode) {
            (Some(h), SendMode::Pl2(params)) if h.kind == Pl2Type::Grant => self.receive_grant(&h, io, params),
            _ => self.other_frames += 1,
        }
    }
    fn timer(&mut self, id: u64, io: &mut HostIo) {
        if id == ARRIVAL_TIMER {
            let flow = self.messages as usize % self.flows.len();
            let created_ps = (io.now_ns() * 1000.0).round() as u64;
            let message = MessageFields { created_ps, id: self.messages, packets: self.offer.message_packets, index: 0 };
            self.messages += 1;
            self.measured_messages += (io.now_ns() >= self.offer.measure_from_ns) as u64;
            match self.mode {
                SendMode::Raw => {
                    let b = Burst { flow, message, first_packet: 0, packets: 0, rsv_sent_ns: 0.0, unsolicited: false };
                    for first in (0..message.packets).step_by(255) {
                        let b = Burst { first_packet: first, packets: (message.packets - first).min(255) as u8, ..b };
                        for f in self.data_frames(&b, self.next_burst, 0) {
                            io.send(f);
                            self.data_packets += 1;
                        }
                        self.next_burst = self.next_burst.wrapping_add(1);
                    }
                }
                SendMode::Pl2(params) => {
                    self.flows[flow].queue.push_back((message, 0));
                    self.schedule_burst(flow, io, params);
                }
            }
            self.next_arrival(io);
            return;
        }
        let now_ps = (io.now_ns() * 1000.0).round() as u64;
        while let Some(Reverse((at, burst, resent))) = self.releases.peek().copied() {
            if at > now_ps {
                break;
            }
            self.releases.pop();
            self.send_burst(io, burst, if resent { FLAG_RESENT } else { 0 });
            self.bursts.remove(&burst);
        }
        self.arm_release(io);
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// A receiver of PL2 (or raw) data: distinct packets, duplicates, message latencies.
#[derive(Default)]
pub struct Pl2Receiver {
    pub ip: u32,
    /// Count payload bytes arriving in [count_from_ns, count_until_ns) (goodput's window).
    pub count_from_ns: f64,
    pub count_until_ns: f64,
    pub payload_bytes: u64,
    pub packets: u64,
    pub duplicates: u64,
    /// Frames that are not PL2 data.
    pub other: u64,
    /// Latency of every completed message, ns, with its creation time.
    pub latencies: Vec<(f64, f64)>,
    seen: HashSet<(u32, u16, u32, u16)>,
    partial: HashMap<(u32, u16, u32), u16>,
}

impl Pl2Receiver {
    pub fn new(ip: u32, count_from_ns: f64, count_until_ns: f64) -> Self {
        Pl2Receiver { ip, count_from_ns, count_until_ns, ..Default::default() }
    }
}

impl Host for Pl2Receiver {
    fn ip(&self) -> u32 {
        self.ip
    }
    fn receive(&mut self, frame: Vec<u8>, io: &mut HostIo) {
        let (Some(h), Some(m)) = (Pl2Header::parse(&frame), MessageFields::parse(&frame)) else {
            self.other += 1;
            return;
        };
        if h.kind != Pl2Type::Data {
            self.other += 1;
            return;
        }
        if !self.seen.insert((h.src_ip, h.flow, m.id, m.index)) {
            self.duplicates += 1;
            return;
        }
        self.packets += 1;
        if (self.count_from_ns..self.count_until_ns).contains(&io.now_ns()) {
            self.payload_bytes += (frame.len() - OFF_PL2_PAYLOAD) as u64;
        }
        let key = (h.src_ip, h.flow, m.id);
        let got = self.partial.entry(key).or_insert(0);
        *got += 1;
        if *got == m.packets {
            self.partial.remove(&key);
            let created = m.created_ps as f64 / 1000.0;
            self.latencies.push((created, io.now_ns() - created));
        }
    }
    fn timer(&mut self, _id: u64, _io: &mut HostIo) {}
    fn as_any(&self) -> &dyn Any {
        self
    }
}
