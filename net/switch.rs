//! A switch in Flexplane's structure: route → classify → enqueue (queue manager) → schedule,
//! each a small replaceable trait object, over output-queued ports.
//!
//! The queue disciplines of the authors' ns-3 model (`pfifo-{ndp,homa,homatr}-queue-disc`),
//! buffers counted in packets:
//! * [`NdpTrim`] — two bands: DATA in band 1; when band 1 holds ≥ limit − 1 packets a DATA packet
//!   is trimmed to its header (CHOP) and goes to band 0 with every control packet; either band
//!   drops at `limit`;
//! * [`HomaDropTail`] — bands by DSCP, one shared drop-tail limit over all bands;
//! * [`HomaTrTrim`] — bands by DSCP, a limit per band; a DATA packet that finds its band holding
//!   ≥ limit − 1 packets is trimmed and queued one band lower in priority (band + 1).
//!
//! Each limit is a [`Limit`]: packets (the model's default) or bytes (byte-counted mode: a frame
//! is taken while the band's bytes plus its own fit, and trimming starts when the band could not
//! take one more frame of the arriving frame's size after it — the packet rule for equal sizes).
//!
//! Between the queue disc and the wire each port has a **device queue** of
//! [`Switch::device_queue_pkts`] frames, as an ns-3 net device's transmit queue (the model's
//! switch ports: a 1-packet drop-tail queue, with traffic-control flow control, so the queue disc
//! hands over a frame only when it has room): a frame leaves the queue disc — and is chosen by
//! the scheduler — when it enters the device queue, up to one frame ahead of the wire. Frames
//! there and on the wire count toward no limit and no occupancy figure, as in the model. 0 hands
//! frames to the wire straight from the queue disc.
//!
//! Trimmed frames are those the NIC accepts ([`nanotransport_sim::scenarios::trimmed`]: header only, CHOP
//! added, IPv4 length 50).

use nanotransport_hdl::pisa::wire::{FLAG_DATA, OFF_FLAGS, OFF_TOS};
use nanotransport_sim::scenarios::trimmed;
use std::collections::VecDeque;

/// IPv4 destination address of a frame (Ethernet + IPv4, no VLAN).
pub fn dst_ip(frame: &[u8]) -> u32 {
    frame.get(30..34).map(|b| u32::from_be_bytes(b.try_into().unwrap())).unwrap_or(0)
}

/// IPv4 DSCP of a frame.
pub fn dscp(frame: &[u8]) -> u8 {
    frame.get(OFF_TOS).copied().unwrap_or(0) >> 2
}

fn is_data(frame: &[u8]) -> bool {
    frame.get(OFF_FLAGS).copied().unwrap_or(0) & FLAG_DATA != 0
}

/// Chooses the output port of a frame; `None` drops it (counted as unroutable).
pub trait Route {
    fn route(&mut self, frame: &[u8]) -> Option<usize>;
}

/// Chooses the band (0 = highest priority) of a frame at its output port.
pub trait Classify {
    fn classify(&mut self, frame: &[u8]) -> usize;
}

/// What the queue manager did with a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Enqueued,
    Trimmed,
    Dropped,
}

/// Decides whether and where a classified frame is queued; may trim or drop it.
pub trait QueueManager {
    fn enqueue(&mut self, queues: &mut PortQueues, band: usize, frame: Vec<u8>) -> Verdict;
}

/// Picks the next frame a port sends.
pub trait Schedule {
    fn dequeue(&mut self, queues: &mut PortQueues) -> Option<Vec<u8>>;
}

/// The bands of one output port.
#[derive(Clone, Debug, Default)]
pub struct PortQueues {
    pub bands: Vec<VecDeque<Vec<u8>>>,
}

impl PortQueues {
    pub fn new(bands: usize) -> Self {
        PortQueues { bands: vec![VecDeque::new(); bands] }
    }
    pub fn packets(&self) -> usize {
        self.bands.iter().map(|b| b.len()).sum()
    }
    pub fn bytes(&self) -> usize {
        self.bands.iter().flatten().map(|f| f.len()).sum()
    }
    pub fn band_bytes(&self, band: usize) -> usize {
        self.bands[band].iter().map(|f| f.len()).sum()
    }
    pub fn push(&mut self, band: usize, frame: Vec<u8>) {
        let last = self.bands.len() - 1;
        self.bands[band.min(last)].push_back(frame);
    }
}

/// Routes by IPv4 destination through a table of (address, port).
#[derive(Clone, Debug, Default)]
pub struct IpRoute {
    pub table: Vec<(u32, usize)>,
}

impl Route for IpRoute {
    fn route(&mut self, frame: &[u8]) -> Option<usize> {
        let ip = dst_ip(frame);
        self.table.iter().find(|(a, _)| *a == ip).map(|(_, p)| *p)
    }
}

/// Band = DSCP, the last band for anything beyond it.
#[derive(Clone, Copy, Debug)]
pub struct DscpClassify {
    pub bands: usize,
}

impl Classify for DscpClassify {
    fn classify(&mut self, frame: &[u8]) -> usize {
        (dscp(frame) as usize).min(self.bands - 1)
    }
}

/// NDP's two bands: control (and trimmed headers) in 0, DATA in 1.
#[derive(Clone, Copy, Debug, Default)]
pub struct NdpClassify;

impl Classify for NdpClassify {
    fn classify(&mut self, frame: &[u8]) -> usize {
        is_data(frame) as usize
    }
}

/// Lowest non-empty band first.
#[derive(Clone, Copy, Debug, Default)]
pub struct StrictPriority;

impl Schedule for StrictPriority {
    fn dequeue(&mut self, queues: &mut PortQueues) -> Option<Vec<u8>> {
        queues.bands.iter_mut().find_map(|b| b.pop_front())
    }
}

/// A buffer limit, in packets or in frame bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    Packets(usize),
    Bytes(usize),
}

impl Limit {
    /// Whether a queue holding `packets` frames of `bytes` in all cannot take a frame of `len` bytes.
    pub fn full(self, packets: usize, bytes: usize, len: usize) -> bool {
        match self {
            Limit::Packets(n) => packets >= n,
            Limit::Bytes(n) => bytes + len > n,
        }
    }
    /// Whether a queue is at its trimming point (≥ limit − 1 packets): after a frame of `len`
    /// bytes it could not take another of the same size.
    pub fn at_trim_point(self, packets: usize, bytes: usize, len: usize) -> bool {
        match self {
            Limit::Packets(n) => packets + 1 >= n,
            Limit::Bytes(n) => bytes + 2 * len > n,
        }
    }
}

/// Queues `frame` in `band` — or, with `trim`, its header in `trim_band` — unless that band
/// cannot take it under `limit`.
fn trim_or_queue(q: &mut PortQueues, band: usize, frame: Vec<u8>, trim: bool, trim_band: usize, limit: Limit) -> Verdict {
    let (band, frame, verdict) = if trim { (trim_band, trimmed(&frame), Verdict::Trimmed) } else { (band, frame, Verdict::Enqueued) };
    if limit.full(q.bands[band].len(), q.band_bytes(band), frame.len()) {
        return Verdict::Dropped;
    }
    q.push(band, frame);
    verdict
}

/// NDP: trim DATA when its band holds ≥ limit − 1 packets; each band drops at `limit`.
#[derive(Clone, Copy, Debug)]
pub struct NdpTrim {
    pub limit: Limit,
}

impl QueueManager for NdpTrim {
    fn enqueue(&mut self, q: &mut PortQueues, band: usize, frame: Vec<u8>) -> Verdict {
        let trim = band == 1 && self.limit.at_trim_point(q.bands[1].len(), q.band_bytes(1), frame.len());
        trim_or_queue(q, band, frame, trim, 0, self.limit)
    }
}

/// Homa: one drop-tail limit shared by every band.
#[derive(Clone, Copy, Debug)]
pub struct HomaDropTail {
    pub limit: Limit,
}

impl QueueManager for HomaDropTail {
    fn enqueue(&mut self, q: &mut PortQueues, band: usize, frame: Vec<u8>) -> Verdict {
        if self.limit.full(q.packets(), q.bytes(), frame.len()) {
            return Verdict::Dropped;
        }
        q.push(band, frame);
        Verdict::Enqueued
    }
}

/// Homa-Tr: a limit per band; DATA that finds its band at ≥ limit − 1 is trimmed, one band lower.
#[derive(Clone, Copy, Debug)]
pub struct HomaTrTrim {
    pub limit: Limit,
}

impl QueueManager for HomaTrTrim {
    fn enqueue(&mut self, q: &mut PortQueues, band: usize, frame: Vec<u8>) -> Verdict {
        let trim = is_data(&frame) && self.limit.at_trim_point(q.bands[band].len(), q.band_bytes(band), frame.len());
        let lower = (band + 1).min(q.bands.len() - 1);
        trim_or_queue(q, band, frame, trim, lower, self.limit)
    }
}

/// Per-port counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PortCounters {
    pub enqueued: u64,
    pub trimmed: u64,
    pub dropped: u64,
    pub sent: u64,
    pub sent_bytes: u64,
    pub max_packets: u64,
}

/// One output port: its queues, counters and occupancy over time (tick, packets, bytes).
pub struct Port {
    pub queues: PortQueues,
    pub counters: PortCounters,
    pub occupancy: Vec<(u64, usize, usize)>,
    /// Directed link this port sends on.
    pub link: usize,
    pub busy: bool,
    /// Frames taken from the queue disc, waiting for the wire (see the module docs).
    pub device: VecDeque<Vec<u8>>,
}

/// A switch: the four stages and its ports.
pub struct Switch {
    pub route: Box<dyn Route>,
    pub classify: Box<dyn Classify>,
    pub queue_manager: Box<dyn QueueManager>,
    pub schedule: Box<dyn Schedule>,
    pub ports: Vec<Port>,
    pub unroutable: u64,
    /// Frames each port's device queue holds beyond the queue disc (0: none).
    pub device_queue_pkts: usize,
}

impl Switch {
    /// A switch with `bands` bands per port; ports are added by the topology builder.
    pub fn new(
        route: Box<dyn Route>,
        classify: Box<dyn Classify>,
        queue_manager: Box<dyn QueueManager>,
        schedule: Box<dyn Schedule>,
    ) -> Self {
        Switch { route, classify, queue_manager, schedule, ports: Vec::new(), unroutable: 0, device_queue_pkts: 0 }
    }

    /// Route, classify and enqueue a frame that arrived (whole) at tick `now`; returns the port
    /// it was queued on.
    pub fn accept(&mut self, frame: Vec<u8>, now: u64) -> Option<usize> {
        let Some(port) = self.route.route(&frame).filter(|p| *p < self.ports.len()) else {
            self.unroutable += 1;
            return None;
        };
        let band = self.classify.classify(&frame);
        let p = &mut self.ports[port];
        let verdict = self.queue_manager.enqueue(&mut p.queues, band, frame);
        match verdict {
            Verdict::Dropped => p.counters.dropped += 1,
            Verdict::Trimmed => {
                p.counters.trimmed += 1;
                p.counters.enqueued += 1
            }
            Verdict::Enqueued => p.counters.enqueued += 1,
        }
        p.record(now);
        if p.busy {
            self.fill_device_queue(port, now);
        }
        (verdict != Verdict::Dropped).then_some(port)
    }

    /// The next frame port `port` sends, if any (the port is then busy): the device queue's
    /// head, else the scheduler's choice; the device queue is then topped up.
    pub fn next_frame(&mut self, port: usize, now: u64) -> Option<Vec<u8>> {
        let p = &mut self.ports[port];
        let f = p.device.pop_front().or_else(|| self.schedule.dequeue(&mut p.queues));
        p.busy = f.is_some();
        if let Some(f) = &f {
            p.counters.sent += 1;
            p.counters.sent_bytes += f.len() as u64;
        }
        self.fill_device_queue(port, now);
        f
    }

    fn fill_device_queue(&mut self, port: usize, now: u64) {
        let p = &mut self.ports[port];
        while p.device.len() < self.device_queue_pkts {
            let Some(f) = self.schedule.dequeue(&mut p.queues) else { break };
            p.device.push_back(f);
        }
        p.record(now);
    }
}

impl Port {
    pub fn new(link: usize, bands: usize) -> Self {
        Port {
            queues: PortQueues::new(bands),
            counters: PortCounters::default(),
            occupancy: vec![(0, 0, 0)],
            link,
            busy: false,
            device: VecDeque::new(),
        }
    }
    fn record(&mut self, now: u64) {
        let (n, b) = (self.queues.packets(), self.queues.bytes());
        self.counters.max_packets = self.counters.max_packets.max(n as u64);
        if self.occupancy.last().map(|o| (o.1, o.2)) != Some((n, b)) {
            self.occupancy.push((now, n, b));
        }
    }
}
