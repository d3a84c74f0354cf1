//! A host's side of PL2 — Algorithm 2 with equation (1) — apart from where its packets come
//! from: flows with queues of packets, at most one RSV outstanding per flow, bursts of at most K
//! packets handed to the link at their timeslot. [`crate::pl2::host::Pl2Sender`] feeds it
//! messages; [`crate::pl2::layer::Pl2Layer`] feeds it any host's frames.
//!
//! A flow is the paper's application thread (§4.2.1: "each thread maintains at most one
//! outstanding RSV-GRT exchange"): in Algorithm 2, scheduleBurst calls receiveGRT and then sends
//! the burst after waitingTime before it returns, so a flow's next RSV leaves only once its
//! burst has been handed to the link. A flow therefore holds at most one reservation at the
//! switch, and the reservation horizon of a port stays within (flows × K) timeslots however much
//! is offered.
//!
//! - *scheduleBurst* (lines 5–13): send an RSV for the flow's next burst; if the flow's last
//!   chosen timeslot is below t and its last GRT is recent (within [`Pl2Params::recency_ns`]),
//!   also send the burst at once, marked unsolicited; otherwise wait for the GRT. A burst never
//!   spans two messages; queued frames go K at a time.
//! - *receiveGRT* (lines 14–22): chosen timeslot = max(sendTimeslot, recvTimeslot); the burst
//!   is handed to the link after waitingTime = chosen × slot − rsvGrtDelay − pendingDataDelay
//!   (equation (1)), at once when that is negative. rsvGrtDelay is this exchange's, from when
//!   the RSV left the host (after the bytes queued before it, as a hardware timestamp sees it)
//!   to the GRT. pendingDataDelay is the data still queued on the link *when the burst is
//!   handed over*, so that the burst leaves at chosen × slot − rsvGrtDelay after the GRT: the
//!   queue the host sees at the GRT drains while it waits, so the wait is that whole time when
//!   the queue drains first, and nothing (the burst queues behind it, late) when it does not.
//!   A burst already sent unsolicited is sent again — at that time, marked resent — only when
//!   chosen > t (lines 16–19); the flow records the chosen timeslot and the GRT's time, and
//!   starts its next burst when this one has been handed to the link (at once when nothing is
//!   left to send: an unsolicited burst that needs no resend).
//! - A GRT for no outstanding burst (duplicated, reordered, or for another host) is counted in
//!   [`ReservationCounts::stray_grants`] and ignored.
//! - An RSV whose GRT has not come back after [`Pl2Params::rsv_timeout_ns`] (the RSV or its GRT
//!   was dropped: they share the port's buffer with data) is sent again, counted in
//!   [`ReservationCounts::rsv_retries`]; the switch then holds the lost exchange's reservation
//!   too, which data never releases (its counter under-counts time until it drains). Without
//!   this a flow whose GRT is lost would wait for ever.
//!
//! The slot is the serialisation time of the largest frame on the link (1 514 B: 121.12 ns at
//! 100 Gb/s in frame bytes); a 64-byte frame also takes a whole slot.

use super::frame::{message_frames, MessageFields, Pl2Header, Pl2Type, FLAG_ENCAPSULATED, FLAG_RESENT, FLAG_UNSOLICITED};
use crate::host::HostIo;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, VecDeque};

pub use super::frame::{MAX_FRAME_BYTES, MAX_PAYLOAD_BYTES};

/// A host's PL2 parameters.
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
    /// An RSV unanswered for this long is sent again.
    pub rsv_timeout_ns: f64,
}

impl Default for Pl2Params {
    fn default() -> Self {
        Pl2Params { k: 4, t: 15, recency_ns: 2000.0, unsolicited: true, rsv_timeout_ns: 100_000.0 }
    }
}

/// What a flow queues.
#[derive(Clone, Debug)]
pub enum Queued {
    /// A message of full frames, with how many of its packets have gone into bursts.
    Message { fields: MessageFields, taken: u16 },
    /// One frame's bytes after the PL2 header (under the layer: an IPv4 packet).
    Payload(Vec<u8>),
}

#[derive(Clone, Debug)]
enum Content {
    Message { fields: MessageFields, first_packet: u16 },
    Payloads(Vec<Vec<u8>>),
}

#[derive(Clone, Debug)]
struct Burst {
    flow: usize,
    content: Content,
    packets: u8,
    rsv_sent_ns: f64,
    unsolicited: bool,
}

#[derive(Clone, Debug)]
struct Flow {
    dst_ip: u32,
    queue: VecDeque<Queued>,
    /// The burst whose RSV is out (no GRT yet).
    outstanding: Option<u32>,
    /// The burst granted and waiting for its timeslot.
    waiting: Option<u32>,
    last_chosen: Option<u32>,
    last_response_ns: Option<f64>,
}

/// What a host's reservations did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ReservationCounts {
    pub rsvs: u64,
    pub data_packets: u64,
    pub unsolicited_bursts: u64,
    pub resent_bursts: u64,
    /// GRTs for no outstanding burst (counted, ignored).
    pub stray_grants: u64,
    /// RSVs sent again after [`Pl2Params::rsv_timeout_ns`] without a GRT.
    pub rsv_retries: u64,
    /// Sum of the waiting times (ns) of scheduled bursts, and how many.
    pub waiting_ns: f64,
    pub waits: u64,
}

/// One host's flows, bursts and timed releases.
pub struct Reservations {
    ip: u32,
    link_gbps: f64,
    pub params: Pl2Params,
    /// The host's timer ids for releases and for RSV retries.
    release_timer: u64,
    retry_timer: u64,
    /// RSVs waiting for their GRT: (deadline in ps, burst).
    rsv_deadlines: BinaryHeap<Reverse<(u64, u32)>>,
    flows: Vec<Flow>,
    bursts: HashMap<u32, Burst>,
    next_burst: u32,
    /// Bursts waiting for their timeslot: (release time in ps, burst, resent).
    releases: BinaryHeap<Reverse<(u64, u32, bool)>>,
    pub counts: ReservationCounts,
}

impl Reservations {
    /// No flows yet; releases are asked for on timer `release_timer`, RSV retries on
    /// `retry_timer`. K must be at least 1.
    pub fn new(ip: u32, link_gbps: f64, params: Pl2Params, release_timer: u64, retry_timer: u64) -> Self {
        assert!(params.k >= 1, "K = 0: a burst must hold a packet");
        Reservations {
            ip,
            link_gbps,
            params,
            release_timer,
            retry_timer,
            rsv_deadlines: BinaryHeap::new(),
            flows: Vec::new(),
            bursts: HashMap::new(),
            next_burst: 0,
            releases: BinaryHeap::new(),
            counts: ReservationCounts::default(),
        }
    }

    /// A new flow to `dst_ip`; returns its index.
    pub fn add_flow(&mut self, dst_ip: u32) -> usize {
        self.flows.push(Flow {
            dst_ip,
            queue: VecDeque::new(),
            outstanding: None,
            waiting: None,
            last_chosen: None,
            last_response_ns: None,
        });
        self.flows.len() - 1
    }

    /// Packets queued (not yet in a burst) over every flow.
    pub fn queued_packets(&self) -> usize {
        self.flows
            .iter()
            .flat_map(|f| &f.queue)
            .map(|q| if let Queued::Message { fields, taken } = q { (fields.packets - taken) as usize } else { 1 })
            .sum()
    }

    /// Bursts with an RSV out or waiting for their timeslot.
    pub fn bursts_in_flight(&self) -> usize {
        self.flows.iter().filter(|f| f.outstanding.is_some() || f.waiting.is_some()).count()
    }

    /// One timeslot: the largest frame on the link.
    pub fn slot_ns(&self) -> f64 {
        self.serialisation_ns(MAX_FRAME_BYTES)
    }

    fn serialisation_ns(&self, bytes: usize) -> f64 {
        bytes as f64 * 8.0 / self.link_gbps
    }

    /// Queues `item` on `flow` and reserves for it if the flow has no RSV out.
    pub fn push(&mut self, flow: usize, item: Queued, io: &mut HostIo) {
        self.enqueue(flow, item);
        self.schedule(flow, io);
    }

    /// Queues `item` on `flow` without reserving yet: frames sent together then share a burst
    /// ([`Reservations::schedule`] after the last).
    pub fn enqueue(&mut self, flow: usize, item: Queued) {
        self.flows[flow].queue.push_back(item);
    }

    /// Reserves for the flow's next burst if it has no RSV out and no burst waiting.
    pub fn schedule(&mut self, flow: usize, io: &mut HostIo) {
        self.schedule_burst(flow, io);
    }

    fn frames(&self, b: &Burst, burst: u32, flags: u8) -> Vec<Vec<u8>> {
        let dst_ip = self.flows[b.flow].dst_ip;
        match &b.content {
            Content::Message { fields, first_packet } => {
                message_frames(self.ip, dst_ip, b.flow as u16, burst, flags, *fields, *first_packet, b.packets)
            }
            Content::Payloads(payloads) => payloads
                .iter()
                .enumerate()
                .map(|(i, p)| {
                    let h = Pl2Header {
                        flags: flags | FLAG_ENCAPSULATED,
                        demand: b.packets,
                        index: i as u8,
                        ..Pl2Header::new(Pl2Type::Data, self.ip, dst_ip, b.flow as u16, burst)
                    };
                    h.data_frame(p)
                })
                .collect(),
        }
    }

    fn send_burst(&mut self, io: &mut HostIo, burst: u32, flags: u8) {
        for f in self.frames(&self.bursts[&burst], burst, flags) {
            io.send(f);
            self.counts.data_packets += 1;
        }
    }

    /// The flow's next burst off its queue: one message's next ≤ K packets, or ≤ K frames.
    fn take_burst(&mut self, flow: usize) -> Option<(Content, u8)> {
        let k = self.params.k as usize;
        let queue = &mut self.flows[flow].queue;
        match queue.front_mut()? {
            Queued::Message { fields, taken } => {
                let packets = (fields.packets - *taken).min(k as u16) as u8;
                let content = Content::Message { fields: *fields, first_packet: *taken };
                *taken += packets as u16;
                if *taken == fields.packets {
                    queue.pop_front();
                }
                Some((content, packets))
            }
            Queued::Payload(_) => {
                let mut payloads = Vec::new();
                while payloads.len() < k {
                    match queue.front() {
                        Some(Queued::Payload(_)) => {
                            let Some(Queued::Payload(p)) = queue.pop_front() else { unreachable!() };
                            payloads.push(p);
                        }
                        _ => break,
                    }
                }
                let packets = payloads.len() as u8;
                Some((Content::Payloads(payloads), packets))
            }
        }
    }

    /// Algorithm 2's scheduleBurst for the flow's next burst, if it has one, no RSV out and no
    /// burst waiting for its timeslot.
    fn schedule_burst(&mut self, flow: usize, io: &mut HostIo) {
        if self.flows[flow].outstanding.is_some() || self.flows[flow].waiting.is_some() {
            return;
        }
        let Some((content, packets)) = self.take_burst(flow) else { return };
        let params = self.params;
        let f = &mut self.flows[flow];
        let recent = f.last_response_ns.is_some_and(|t| io.now_ns() - t <= params.recency_ns);
        let unsolicited = params.unsolicited && recent && f.last_chosen.is_some_and(|c| c < params.t);
        let id = self.next_burst;
        self.next_burst = self.next_burst.wrapping_add(1);
        f.outstanding = Some(id);
        self.bursts.insert(id, Burst { flow, content, packets, rsv_sent_ns: 0.0, unsolicited });
        self.send_rsv(id, io);
        if unsolicited {
            self.counts.unsolicited_bursts += 1;
            self.send_burst(io, id, FLAG_UNSOLICITED);
        }
    }

    /// Sends the burst's RSV and times the exchange from when it leaves the host: after the
    /// bytes already queued on the link.
    fn send_rsv(&mut self, burst: u32, io: &mut HostIo) {
        let rsv_sent_ns = io.now_ns() + self.serialisation_ns(io.queued_bytes());
        let b = self.bursts.get_mut(&burst).expect("an RSV for a known burst");
        b.rsv_sent_ns = rsv_sent_ns;
        let b = &self.bursts[&burst];
        let dst_ip = self.flows[b.flow].dst_ip;
        let rsv = Pl2Header { demand: b.packets, ..Pl2Header::new(Pl2Type::Reserve, self.ip, dst_ip, b.flow as u16, burst) };
        io.send(rsv.frame(0, None));
        self.counts.rsvs += 1;
        let deadline = ((io.now_ns() + self.params.rsv_timeout_ns) * 1000.0).round() as u64;
        self.rsv_deadlines.push(Reverse((deadline, burst)));
        if self.rsv_deadlines.peek() == Some(&Reverse((deadline, burst))) {
            io.set_timer_at(deadline as f64 / 1000.0, self.retry_timer);
        }
    }

    /// The retry timer fired: sends again every RSV still unanswered at its deadline.
    pub fn retry_due(&mut self, io: &mut HostIo) {
        let now_ps = (io.now_ns() * 1000.0).round() as u64;
        let mut again = Vec::new();
        while let Some(Reverse((at, burst))) = self.rsv_deadlines.peek().copied() {
            if at > now_ps {
                break;
            }
            self.rsv_deadlines.pop();
            let unanswered = self.bursts.get(&burst).is_some_and(|b| self.flows[b.flow].outstanding == Some(burst));
            if unanswered {
                again.push(burst);
            }
        }
        for burst in again {
            self.counts.rsv_retries += 1;
            self.send_rsv(burst, io);
        }
        if let Some(Reverse((at, _))) = self.rsv_deadlines.peek() {
            io.set_timer_at(*at as f64 / 1000.0, self.retry_timer);
        }
    }

    /// Algorithm 2's receiveGRT.
    pub fn receive_grant(&mut self, h: &Pl2Header, io: &mut HostIo) {
        let Some((flow, unsolicited, rsv_sent_ns)) = self
            .bursts
            .get(&h.burst)
            .filter(|b| self.flows[b.flow].outstanding == Some(h.burst))
            .map(|b| (b.flow, b.unsolicited, b.rsv_sent_ns))
        else {
            self.counts.stray_grants += 1;
            return;
        };
        let now = io.now_ns();
        let chosen = h.chosen_timeslot();
        let pending_ns = self.serialisation_ns(io.queued_bytes());
        let departure = chosen as f64 * self.slot_ns() - (now - rsv_sent_ns);
        let waiting = if departure >= pending_ns { departure } else { 0.0 };
        let release = |s: &mut Self, resent: bool| {
            s.releases.push(Reverse((((now + waiting) * 1000.0).round() as u64, h.burst, resent)));
            s.counts.waiting_ns += waiting;
            s.counts.waits += 1;
            s.flows[flow].waiting = Some(h.burst);
        };
        if !unsolicited {
            release(self, false);
        } else if chosen > self.params.t {
            self.counts.resent_bursts += 1;
            release(self, true);
        } else {
            self.bursts.remove(&h.burst);
        }
        let f = &mut self.flows[flow];
        f.last_chosen = Some(chosen);
        f.last_response_ns = Some(now);
        f.outstanding = None;
        self.arm_release(io);
        self.schedule_burst(flow, io);
    }

    /// The release timer fired: hands over every burst whose time has come.
    pub fn release_due(&mut self, io: &mut HostIo) {
        let now_ps = (io.now_ns() * 1000.0).round() as u64;
        while let Some(Reverse((at, burst, resent))) = self.releases.peek().copied() {
            if at > now_ps {
                break;
            }
            self.releases.pop();
            self.send_burst(io, burst, if resent { FLAG_RESENT } else { 0 });
            let flow = self.bursts.remove(&burst).expect("a released burst is kept until then").flow;
            self.flows[flow].waiting = None;
            self.schedule_burst(flow, io);
        }
        self.arm_release(io);
    }

    fn arm_release(&self, io: &mut HostIo) {
        if let Some(Reverse((at, _, _))) = self.releases.peek() {
            io.set_timer_at(*at as f64 / 1000.0, self.release_timer);
        }
    }
}
