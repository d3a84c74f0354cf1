//! PL2's sender of messages and a receiver, as behavioural hosts; the same sender without PL2
//! transmits every message at once (raw Ethernet, the paper's baseline).
//!
//! **Sender.** Messages arrive as a Poisson process (seeded) at an offered rate and go to the
//! host's flows in turn (the paper's 12 flows per host, one application thread each); flow i
//! sends to receiver i mod (receivers). With PL2 the flows reserve through
//! [`crate::pl2::reservations`] (Algorithm 2 with equation (1)).
//!
//! **Receiver.** Counts every distinct data packet once (a resent copy of a burst that also
//! arrived unsolicited is a duplicate, counted and dropped), and a message complete when all of
//! its packets have arrived: latency = completion − the message's creation at the sender.

use super::frame::{message_frames, MessageFields, Pl2Header, Pl2Type, OFF_PL2_PAYLOAD};
pub use super::reservations::{Pl2Params, ReservationCounts, MAX_FRAME_BYTES, MAX_PAYLOAD_BYTES};
use super::reservations::{Queued, Reservations};
use crate::host::{Host, HostIo};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::any::Any;
use std::collections::{HashMap, HashSet};

const ARRIVAL_TIMER: u64 = 0;
const RELEASE_TIMER: u64 = 1;
const RETRY_TIMER: u64 = 2;

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

/// A PL2 (or raw) sender of messages.
pub struct Pl2Sender {
    pub ip: u32,
    pub dst_ips: Vec<u32>,
    pub offer: Offer,
    rng: ChaCha8Rng,
    /// `None` without PL2.
    reservations: Option<Reservations>,
    flows: usize,
    raw_packets: u64,
    raw_bursts: u32,
    pub messages: u32,
    /// Messages created at or after [`Offer::measure_from_ns`].
    pub measured_messages: u64,
    /// Frames that are not GRTs for this sender (counted, dropped).
    pub other_frames: u64,
}

impl Pl2Sender {
    pub fn new(ip: u32, dst_ips: Vec<u32>, mode: SendMode, offer: Offer, link_gbps: f64, seed: u64) -> Self {
        assert!(!dst_ips.is_empty(), "a sender needs a receiver");
        let flows = offer.flows.max(1);
        let reservations = match mode {
            SendMode::Pl2(params) => {
                let mut r = Reservations::new(ip, link_gbps, params, RELEASE_TIMER, RETRY_TIMER);
                for flow in 0..flows {
                    r.add_flow(dst_ips[flow % dst_ips.len()]);
                }
                Some(r)
            }
            SendMode::Raw => None,
        };
        Pl2Sender {
            ip,
            dst_ips,
            offer,
            rng: ChaCha8Rng::seed_from_u64(seed),
            reservations,
            flows,
            raw_packets: 0,
            raw_bursts: 0,
            messages: 0,
            measured_messages: 0,
            other_frames: 0,
        }
    }

    /// Packets not yet in a burst, and bursts with an RSV out or waiting for their timeslot.
    pub fn backlog(&self) -> (usize, usize) {
        self.reservations.as_ref().map_or((0, 0), |r| (r.queued_packets(), r.bursts_in_flight()))
    }

    /// RSVs, data packets, bursts and waits so far (data packets only without PL2).
    pub fn counts(&self) -> ReservationCounts {
        let mut c = self.reservations.as_ref().map(|r| r.counts).unwrap_or_default();
        c.data_packets += self.raw_packets;
        c
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

    /// Without PL2: every packet of the message at once, in frames of at most 255 per burst id.
    fn send_raw(&mut self, flow: usize, message: MessageFields, io: &mut HostIo) {
        let dst = self.dst_ips[flow % self.dst_ips.len()];
        for first in (0..message.packets).step_by(255) {
            let packets = (message.packets - first).min(255) as u8;
            for f in message_frames(self.ip, dst, flow as u16, self.raw_bursts, 0, message, first, packets) {
                io.send(f);
                self.raw_packets += 1;
            }
            self.raw_bursts = self.raw_bursts.wrapping_add(1);
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
        match (Pl2Header::parse(&frame), self.reservations.as_mut()) {
            (Some(h), Some(r)) if h.kind == Pl2Type::Grant => r.receive_grant(&h, io),
            _ => self.other_frames += 1,
        }
    }
    fn timer(&mut self, id: u64, io: &mut HostIo) {
        if id == RELEASE_TIMER || id == RETRY_TIMER {
            if let Some(r) = self.reservations.as_mut() {
                if id == RELEASE_TIMER {
                    r.release_due(io);
                } else {
                    r.retry_due(io);
                }
            }
            return;
        }
        let flow = self.messages as usize % self.flows;
        let created_ps = (io.now_ns() * 1000.0).round() as u64;
        let message = MessageFields { created_ps, id: self.messages, packets: self.offer.message_packets, index: 0 };
        self.messages += 1;
        self.measured_messages += (io.now_ns() >= self.offer.measure_from_ns) as u64;
        match self.reservations.as_mut() {
            Some(r) => r.push(flow, Queued::Message { fields: message, taken: 0 }, io),
            None => self.send_raw(flow, message, io),
        }
        self.next_arrival(io);
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
