//! PL2 under any host: the layer the paper puts between a transport and the NIC (§4.4, its VMA
//! library), here around a behavioural host — TCP with congestion control off
//! ([`crate::tcp::CongestionControl::Off`]), an RPC client or server, a UDP-like sender.
//!
//! **Sending.** Every IPv4 frame the host sends is queued on a PL2 flow and leaves in a reserved
//! burst ([`crate::pl2::reservations`]: an RSV per burst of at most K
//! frames, the burst at its timeslot, unsolicited while the flow's timeslots stay below t). A
//! flow is one destination and, for TCP and UDP, one pair of ports (a connection's direction);
//! other protocols share one flow per destination. The frame's IPv4 packet becomes the payload of
//! a PL2 data frame flagged encapsulated: 40 bytes more on the wire (an outer IPv4 and the PL2
//! header), so a frame the host sends may be at most 1 474 bytes (TCP: an MSS of 1 420). A
//! larger frame, or one that is not IPv4, is counted and dropped.
//!
//! **TCP segments without payload (pure ACKs) go as they are**, outside reservations, as the PL2 switch expects of ACKs
//! ([`crate::pl2::switch`]: frames without a PL2 header reserve and release nothing). Reserving
//! them would not make them safer — they are 54–90-byte frames on the reverse path — but would
//! cost an RSV per burst of ACKs and a GRT back down the *receiver's* link, where the data's
//! timeslots are already booked to the full line rate: with a TCP receiver at line rate those
//! GRTs (about 2 Gb/s) alone overflow its switch port. Everything else — any frame with a
//! payload, any other protocol — is reserved.
//!
//! **Receiving.** GRTs go to the reservations; an encapsulated data frame is unwrapped (its
//! Ethernet header kept, the inner packet after it) and handed to the host, once: a frame that
//! may arrive twice (unsolicited, or its resent copy) is remembered by (source, burst, index)
//! and a second copy is counted and dropped. PL2 data that is not encapsulated (another host's
//! messages, [`crate::pl2::host::Pl2Sender`]) is counted and dropped; frames without a PL2 header
//! go to the host as they are.
//!
//! **Unsolicited bursts and few flows.** An unsolicited burst releases its reservation at the
//! switch as it arrives, so while few flows share a port its counters stay below t and every
//! sender keeps sending unsolicited: three hosts of four bulk TCP connections each overflow the
//! receiver's port, T never being reached (pinned by the suite's
//! `unsolicited_bursts_overflow_a_port_that_few_flows_share`). With unsolicited bursts off
//! ([`Pl2Params::unsolicited`]) the same transfers lose nothing; with 12 flows per host, as the
//! paper's runs, the counters stay above t under load.
//!
//! **Timers.** The layer's are [`LAYER_RELEASE_TIMER`] and [`LAYER_RETRY_TIMER`]; the host's
//! own timer ids pass through unchanged (TCP's are small, the RPC client's is `u64::MAX`).
//!
//! **What the host sees of its link.** The host's transmit queue is the link's: frames waiting
//! for their reservation are not in it, so TCP's transmit-queue limit bounds only what is on its
//! way out, and a wake-up the host asks for comes when the link next finishes a frame of the
//! host's (a released burst).

use super::frame::{Pl2Header, Pl2Type, FLAG_ENCAPSULATED, OFF_PL2_PAYLOAD};
use super::reservations::{Pl2Params, Queued, ReservationCounts, Reservations, MAX_FRAME_BYTES};
use crate::host::{Host, HostIo};
use crate::ipv4::{self, OFF_IPV4_PAYLOAD};
use nanotransport_hdl::pisa::wire::{ETH_HEADER_BYTES, MIN_FRAME_BYTES, OFF_DST_IP, OFF_TOTAL_LEN};
use std::any::Any;
use std::collections::{HashMap, HashSet};

/// The layer's timer ids for burst releases and RSV retries (a host inside it must not use them).
pub const LAYER_RELEASE_TIMER: u64 = u64::MAX - 1;
pub const LAYER_RETRY_TIMER: u64 = u64::MAX - 2;
/// Bytes the layer adds to a frame: an outer IPv4 header and the PL2 header.
pub const LAYER_OVERHEAD_BYTES: usize = OFF_PL2_PAYLOAD - ETH_HEADER_BYTES;
/// The largest frame a host under the layer may send.
pub const MAX_INNER_FRAME_BYTES: usize = MAX_FRAME_BYTES - LAYER_OVERHEAD_BYTES;

/// What the layer counted apart from its reservations.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LayerCounts {
    /// Frames of the host sent under reservations.
    pub frames_reserved: u64,
    /// TCP segments without payload, sent as they are.
    pub pure_acks: u64,
    /// Frames of the host too large to carry (dropped).
    pub oversized: u64,
    /// Frames of the host that were not IPv4, and encapsulated frames whose payload is not an
    /// IPv4 packet (dropped).
    pub malformed: u64,
    /// Second copies of a burst's frame (dropped).
    pub duplicates: u64,
    /// PL2 data frames that are not encapsulated (dropped), and their bytes.
    pub foreign_frames: u64,
    pub foreign_bytes: u64,
}

/// A host with PL2 under it.
pub struct Pl2Layer<H: Host> {
    pub host: H,
    reservations: Reservations,
    /// (destination, protocol, ports) → flow.
    flows: HashMap<(u32, u8, u32), usize>,
    /// Frames that may arrive twice, seen once: (source, burst, index). Kept for the run (a
    /// burst id is reused only after 2^32 bursts of one sender).
    seen: HashSet<(u32, u32, u8)>,
    pub counts: LayerCounts,
}

impl<H: Host> Pl2Layer<H> {
    pub fn new(host: H, link_gbps: f64, params: Pl2Params) -> Self {
        let reservations = Reservations::new(host.ip(), link_gbps, params, LAYER_RELEASE_TIMER, LAYER_RETRY_TIMER);
        Pl2Layer { host, reservations, flows: HashMap::new(), seen: HashSet::new(), counts: LayerCounts::default() }
    }

    /// RSVs, bursts and waits of the layer's reservations.
    pub fn reservation_counts(&self) -> ReservationCounts {
        self.reservations.counts
    }

    /// Frames queued for a reservation.
    pub fn reservations_queued(&self) -> usize {
        self.reservations.queued_packets()
    }

    /// Runs `call` on the host and reserves for what it sent.
    fn with_host(&mut self, io: &mut HostIo, call: impl FnOnce(&mut H, &mut HostIo)) {
        let mut host_io = io.nested();
        call(&mut self.host, &mut host_io);
        // Everything the host sent in this call is queued before any RSV leaves, so frames sent
        // together (a TCP window's segments) share bursts.
        let mut touched: Vec<usize> = Vec::new();
        for frame in io.absorb(host_io) {
            if is_pure_ack(&frame) {
                self.counts.pure_acks += 1;
                io.send(frame);
            } else if let Some(flow) = self.enqueue(frame) {
                if !touched.contains(&flow) {
                    touched.push(flow);
                }
            }
        }
        for flow in touched {
            self.reservations.schedule(flow, io);
        }
    }

    /// Queues a frame of the host on its flow; returns the flow (`None`: counted and dropped).
    fn enqueue(&mut self, frame: Vec<u8>) -> Option<usize> {
        let Some(protocol) = ipv4::protocol(&frame) else {
            self.counts.malformed += 1;
            return None;
        };
        let ip_len = u16::from_be_bytes([frame[OFF_TOTAL_LEN], frame[OFF_TOTAL_LEN + 1]]) as usize;
        let Some(packet) = frame.get(ETH_HEADER_BYTES..ETH_HEADER_BYTES + ip_len) else {
            self.counts.malformed += 1;
            return None;
        };
        if ETH_HEADER_BYTES + ip_len > MAX_INNER_FRAME_BYTES {
            self.counts.oversized += 1;
            return None;
        }
        let dst = u32::from_be_bytes(frame[OFF_DST_IP..OFF_DST_IP + 4].try_into().unwrap());
        let ports = match (protocol, frame.get(OFF_IPV4_PAYLOAD..OFF_IPV4_PAYLOAD + 4)) {
            (crate::tcp::TCP_IP_PROTOCOL | UDP_IP_PROTOCOL, Some(p)) => u32::from_be_bytes(p.try_into().unwrap()),
            _ => 0,
        };
        let key = (dst, protocol, ports);
        let flow = match self.flows.get(&key) {
            Some(&f) => f,
            None => {
                let f = self.reservations.add_flow(dst);
                self.flows.insert(key, f);
                f
            }
        };
        self.counts.frames_reserved += 1;
        self.reservations.enqueue(flow, Queued::Payload(packet.to_vec()));
        Some(flow)
    }

    /// The host's frame inside an encapsulated data frame: the outer Ethernet header, then the
    /// inner IPv4 packet.
    fn unwrap_frame(frame: &[u8]) -> Option<Vec<u8>> {
        let packet = frame.get(OFF_PL2_PAYLOAD..)?;
        let ip_len =
            u16::from_be_bytes([*packet.get(OFF_TOTAL_LEN - ETH_HEADER_BYTES)?, *packet.get(OFF_TOTAL_LEN - ETH_HEADER_BYTES + 1)?]);
        let packet = packet.get(..ip_len as usize).filter(|p| p.first().is_some_and(|v| v >> 4 == 4))?;
        let mut inner = Vec::with_capacity((ETH_HEADER_BYTES + packet.len()).max(MIN_FRAME_BYTES));
        inner.extend_from_slice(&frame[..ETH_HEADER_BYTES]);
        inner.extend_from_slice(packet);
        inner.resize(inner.len().max(MIN_FRAME_BYTES), 0);
        Some(inner)
    }
}

/// A TCP segment with no payload.
fn is_pure_ack(frame: &[u8]) -> bool {
    crate::tcp::Segment::parse(frame).is_some_and(|s| s.payload == 0)
}

/// IPv4 protocol number of UDP.
pub const UDP_IP_PROTOCOL: u8 = 17;

impl<H: Host + 'static> Host for Pl2Layer<H> {
    fn ip(&self) -> u32 {
        self.host.ip()
    }
    fn start(&mut self, io: &mut HostIo) {
        self.with_host(io, |h, io| h.start(io));
    }
    fn receive(&mut self, frame: Vec<u8>, io: &mut HostIo) {
        match Pl2Header::parse(&frame) {
            None => self.with_host(io, |h, io| h.receive(frame, io)),
            Some(g) if g.kind == Pl2Type::Grant => self.reservations.receive_grant(&g, io),
            Some(d) if d.kind == Pl2Type::Data && d.flags & FLAG_ENCAPSULATED != 0 => {
                if d.may_be_duplicated() && !self.seen.insert((d.src_ip, d.burst, d.index)) {
                    self.counts.duplicates += 1;
                    return;
                }
                match Self::unwrap_frame(&frame) {
                    Some(inner) => self.with_host(io, |h, io| h.receive(inner, io)),
                    None => self.counts.malformed += 1,
                }
            }
            Some(_) => {
                self.counts.foreign_frames += 1;
                self.counts.foreign_bytes += frame.len() as u64;
            }
        }
    }
    fn timer(&mut self, id: u64, io: &mut HostIo) {
        if id == LAYER_RELEASE_TIMER {
            self.reservations.release_due(io);
        } else if id == LAYER_RETRY_TIMER {
            self.reservations.retry_due(io);
        } else {
            self.with_host(io, |h, io| h.timer(id, io));
        }
    }
    fn tx_done(&mut self, io: &mut HostIo) {
        self.with_host(io, |h, io| h.tx_done(io));
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}
