//! A switch in Flexplane's structure: route → classify → enqueue (queue manager) → schedule,
//! each a small replaceable trait object, over output-queued ports.
//!
//! # Stages
//! | stage | called with | decides |
//! |---|---|---|
//! | [`Route`] | the frame and its ingress port | the egress port (`None`: unroutable, counted) |
//! | [`Ingress`] (optional, one per switch) | the routed frame and the [`StageContext`] | [`IngressVerdict`]: forward, drop or consume it (it may rewrite it and emit) |
//! | [`Classify`] | the frame (any header field) and the [`StageContext`] | the band, 0 = highest priority |
//! | [`QueueManager`] | the egress port's [`PortQueues`], the band, the frame, the context | [`Verdict`]: queued, trimmed or dropped (it may also mark the frame) |
//! | [`Schedule`] | the port's queues and the context | the next frame the port sends |
//!
//! The ingress stage sees every routed frame with switch-wide state (PL2's reservations of every
//! port, Bolt's per-egress-port tokens), before the egress port's classifier and queue manager.
//!
//! The [`StageContext`] gives the ingress port (none when the scheduler picks), the egress port,
//! now in ticks and ns, and the egress link's rate; through it a stage **emits** packets of its
//! own — Bolt's SRC, PL2's GRT, a header for another band — to any port and band
//! ([`StageContext::emit`]): they are queued after the frame in hand, without passing a queue
//! manager, and the network starts the port if it is idle. **Per-port state** (RED's average, a
//! phantom queue, DRR deficits) lives in the stage object: each port gets its own queue manager
//! and scheduler, cloned from the ones the switch was built with when the port is added
//! ([`Switch::add_port`]), so a scheme is written for one port. A stage that asks for the
//! impossible — a band the port lacks, a port the switch lacks — is counted in
//! [`Switch::stage_errors`] with a one-line description in [`Switch::last_stage_error`] (a band is
//! then clamped to the last, an emitted packet dropped), never a panic.
//!
//! An example scheme: [`crate::schemes::Dctcp`], Flexplane's Fig. 3-1 — mark above K packets,
//! drop at capacity — in a dozen lines; [`crate::schemes`] has the others. A scheme that emits
//! and keeps per-port state is in the switch's tests (`net_switch.rs`).
//!
//! # Accounting
//! [`PortQueues`] keeps running packet and byte counts per band and per port, so every limit and
//! occupancy figure is O(1) to read. A port records its occupancy as
//! [`Switch::occupancy_sampling`] says: every µs by default (memory bounded by run length /
//! interval), at another interval, at every change (the incast's plots ask for it), or not at
//! all.
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

use nanotransport_hdl::pisa::wire::{FLAG_DATA, OFF_DST_IP, OFF_FLAGS, OFF_SRC_IP, OFF_TOS};
use nanotransport_sim::scenarios::trimmed;
use std::collections::VecDeque;

/// The IPv4 address at `offset` of a frame (0 when the frame is too short).
fn ip_at(frame: &[u8], offset: usize) -> u32 {
    frame.get(offset..offset + 4).map(|b| u32::from_be_bytes(b.try_into().unwrap())).unwrap_or(0)
}

/// IPv4 destination address of a frame (Ethernet + IPv4, no VLAN).
pub fn dst_ip(frame: &[u8]) -> u32 {
    ip_at(frame, OFF_DST_IP)
}

/// IPv4 source address of a frame.
pub fn src_ip(frame: &[u8]) -> u32 {
    ip_at(frame, OFF_SRC_IP)
}

/// IPv4 DSCP of a frame.
pub fn dscp(frame: &[u8]) -> u8 {
    frame.get(OFF_TOS).copied().unwrap_or(0) >> 2
}

fn is_data(frame: &[u8]) -> bool {
    frame.get(OFF_FLAGS).copied().unwrap_or(0) & FLAG_DATA != 0
}

/// What a stage knows of the frame it handles and of its switch, and where it puts packets of
/// its own. Made by the switch for every stage call.
#[derive(Debug)]
pub struct StageContext {
    /// The port the frame came in on (`None` when the scheduler picks a frame to send).
    pub ingress_port: Option<usize>,
    /// The port the frame leaves on.
    pub egress_port: usize,
    /// Now, in network ticks and in ns.
    pub now_ticks: u64,
    pub now_ns: f64,
    /// The egress port's link rate.
    pub link_gbps: f64,
    /// Bytes queued at the egress port over every band (the frame in hand not counted).
    pub egress_queue_bytes: usize,
    emitted: Vec<Emitted>,
}

/// A packet a stage generated (Bolt's SRC, PL2's GRT, a header for another band), to be queued
/// on `port`'s `band` — after the frame in hand is handled, without passing a queue manager.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Emitted {
    pub port: usize,
    pub band: usize,
    pub frame: Vec<u8>,
}

impl StageContext {
    /// A context for a stage call at port `egress_port`.
    pub fn new(ingress_port: Option<usize>, egress_port: usize, now_ticks: u64, now_ns: f64, link_gbps: f64) -> Self {
        StageContext { ingress_port, egress_port, now_ticks, now_ns, link_gbps, egress_queue_bytes: 0, emitted: Vec::new() }
    }
    /// Sends a packet of the stage's own out of `port` in `band`.
    pub fn emit(&mut self, port: usize, band: usize, frame: Vec<u8>) {
        self.emitted.push(Emitted { port, band, frame });
    }
    /// What the stage emitted.
    pub fn take_emitted(&mut self) -> Vec<Emitted> {
        std::mem::take(&mut self.emitted)
    }
}

/// Chooses the output port of a frame that came in on `ingress_port`; `None` drops it (counted
/// as unroutable).
pub trait Route {
    fn route(&mut self, frame: &[u8], ingress_port: usize) -> Option<usize>;
}

/// What a switch-wide ingress stage does with a routed frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IngressVerdict {
    /// On to the egress port's classifier and queue manager.
    Forward,
    /// Dropped by the stage's decision (counted in [`Switch::ingress_dropped`], apart from
    /// buffer drops).
    Drop,
    /// Taken by the stage, as a request it answered (counted in [`Switch::ingress_consumed`]).
    Consume,
}

/// One stage for the whole switch between routing and the egress port's stages: it sees every
/// routed frame with its ingress and egress port, may rewrite it, emit packets of its own and
/// decide its fate.
pub trait Ingress {
    fn ingress(&mut self, frame: &mut Vec<u8>, ctx: &mut StageContext) -> IngressVerdict;
    /// For reading the stage's own counts back after a run.
    fn as_any(&self) -> &dyn std::any::Any;
}

/// Chooses the band (0 = highest priority) of a frame at its output port, from any header field.
pub trait Classify {
    fn classify(&mut self, frame: &[u8], ctx: &StageContext) -> usize;
}

/// What the queue manager did with a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Enqueued,
    Trimmed,
    Dropped,
}

/// Decides whether and where a classified frame is queued; may trim, mark or drop it. Each port
/// has its own (cloned from the one the switch was built with), so per-port state — RED's
/// average, a phantom queue — lives in the object.
pub trait QueueManager: dyn_clone::DynClone {
    fn enqueue(&mut self, queues: &mut PortQueues, band: usize, frame: Vec<u8>, ctx: &mut StageContext) -> Verdict;
}
dyn_clone::clone_trait_object!(QueueManager);

/// Picks the next frame a port sends. Each port has its own, like [`QueueManager`] (DRR's
/// deficits are per port).
pub trait Schedule: dyn_clone::DynClone {
    fn dequeue(&mut self, queues: &mut PortQueues, ctx: &mut StageContext) -> Option<Vec<u8>>;
}
dyn_clone::clone_trait_object!(Schedule);

/// The bands of one output port, with running packet and byte counts (O(1) to read).
#[derive(Clone, Debug, Default)]
pub struct PortQueues {
    bands: Vec<VecDeque<Vec<u8>>>,
    band_bytes: Vec<usize>,
    packets: usize,
    bytes: usize,
}

impl PortQueues {
    pub fn new(bands: usize) -> Self {
        PortQueues { bands: vec![VecDeque::new(); bands], band_bytes: vec![0; bands], packets: 0, bytes: 0 }
    }
    /// Number of bands.
    pub fn band_count(&self) -> usize {
        self.bands.len()
    }
    pub fn packets(&self) -> usize {
        self.packets
    }
    pub fn bytes(&self) -> usize {
        self.bytes
    }
    pub fn band_len(&self, band: usize) -> usize {
        self.bands[band].len()
    }
    pub fn band_bytes(&self, band: usize) -> usize {
        self.band_bytes[band]
    }
    /// The frame at the head of `band`.
    pub fn front(&self, band: usize) -> Option<&[u8]> {
        self.bands[band].front().map(|f| f.as_slice())
    }
    /// Queues `frame` at the tail of `band` (the last band for anything beyond it).
    pub fn push(&mut self, band: usize, frame: Vec<u8>) {
        let band = band.min(self.bands.len() - 1);
        self.band_bytes[band] += frame.len();
        self.packets += 1;
        self.bytes += frame.len();
        self.bands[band].push_back(frame);
    }
    /// Takes the frame at the head of `band`.
    pub fn pop(&mut self, band: usize) -> Option<Vec<u8>> {
        let f = self.bands[band].pop_front()?;
        self.band_bytes[band] -= f.len();
        self.packets -= 1;
        self.bytes -= f.len();
        Some(f)
    }
}

/// Routes by IPv4 destination through a table of (address, port).
#[derive(Clone, Debug, Default)]
pub struct IpRoute {
    pub table: Vec<(u32, usize)>,
}

impl Route for IpRoute {
    fn route(&mut self, frame: &[u8], _ingress_port: usize) -> Option<usize> {
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
    fn classify(&mut self, frame: &[u8], _ctx: &StageContext) -> usize {
        (dscp(frame) as usize).min(self.bands - 1)
    }
}

/// NDP's two bands: control (and trimmed headers) in 0, DATA in 1.
#[derive(Clone, Copy, Debug, Default)]
pub struct NdpClassify;

impl Classify for NdpClassify {
    fn classify(&mut self, frame: &[u8], _ctx: &StageContext) -> usize {
        is_data(frame) as usize
    }
}

/// Lowest non-empty band first.
#[derive(Clone, Copy, Debug, Default)]
pub struct StrictPriority;

impl Schedule for StrictPriority {
    fn dequeue(&mut self, queues: &mut PortQueues, _ctx: &mut StageContext) -> Option<Vec<u8>> {
        (0..queues.band_count()).find_map(|b| queues.pop(b))
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
    if limit.full(q.band_len(band), q.band_bytes(band), frame.len()) {
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
    fn enqueue(&mut self, q: &mut PortQueues, band: usize, frame: Vec<u8>, _ctx: &mut StageContext) -> Verdict {
        let trim = band == 1 && self.limit.at_trim_point(q.band_len(1), q.band_bytes(1), frame.len());
        trim_or_queue(q, band, frame, trim, 0, self.limit)
    }
}

/// Homa: one drop-tail limit shared by every band (the library's [`crate::schemes::DropTail`]).
pub type HomaDropTail = crate::schemes::DropTail;

/// Homa-Tr: a limit per band; DATA that finds its band at ≥ limit − 1 is trimmed, one band lower.
#[derive(Clone, Copy, Debug)]
pub struct HomaTrTrim {
    pub limit: Limit,
}

impl QueueManager for HomaTrTrim {
    fn enqueue(&mut self, q: &mut PortQueues, band: usize, frame: Vec<u8>, _ctx: &mut StageContext) -> Verdict {
        let band = band.min(q.band_count() - 1);
        let trim = is_data(&frame) && self.limit.at_trim_point(q.band_len(band), q.band_bytes(band), frame.len());
        let lower = (band + 1).min(q.band_count() - 1);
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

/// How a port records its queue occupancy (tick, packets, bytes).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum OccupancySampling {
    /// A sample at every change: exact, but as long as the run is busy (the incast's plots ask
    /// for it).
    OnChange,
    /// The occupancy at every multiple of this many ns (the default: every µs), so memory is
    /// bounded by run length / interval. A switch outside a network counts a tick as 1 ns.
    EveryNs(f64),
    /// None (the maximum is still counted).
    Off,
}

impl Default for OccupancySampling {
    fn default() -> Self {
        OccupancySampling::EveryNs(1000.0)
    }
}

/// One output port: its queues, counters and occupancy over time (tick, packets, bytes).
pub struct Port {
    pub queues: PortQueues,
    pub counters: PortCounters,
    pub occupancy: Vec<(u64, usize, usize)>,
    /// Directed link this port sends on, and its rate.
    pub link: usize,
    pub link_gbps: f64,
    pub busy: bool,
    /// Frames taken from the queue disc, waiting for the wire (see the module docs).
    pub device: VecDeque<Vec<u8>>,
    queue_manager: Box<dyn QueueManager>,
    schedule: Box<dyn Schedule>,
    /// The next tick sampled with [`OccupancySampling::EveryNs`] (0: not started), and the
    /// occupancy (packets, bytes) after the last change.
    next_sample: u64,
    state: (usize, usize),
}

/// A switch: the four stages and its ports.
pub struct Switch {
    pub route: Box<dyn Route>,
    /// The switch-wide stage after routing, if any.
    pub ingress: Option<Box<dyn Ingress>>,
    pub classify: Box<dyn Classify>,
    /// What every new port's queue manager and scheduler are cloned from.
    queue_manager: Box<dyn QueueManager>,
    schedule: Box<dyn Schedule>,
    pub ports: Vec<Port>,
    pub unroutable: u64,
    /// Frames the ingress stage dropped, and requests it consumed.
    pub ingress_dropped: u64,
    pub ingress_consumed: u64,
    /// Frames each port's device queue holds beyond the queue disc (0: none).
    pub device_queue_pkts: usize,
    /// How ports record their occupancy.
    pub occupancy_sampling: OccupancySampling,
    /// ns per network tick (set by the network; 0 for a switch used on its own).
    pub ns_per_tick: f64,
    /// Stage calls that asked for something impossible (a band or port that does not exist):
    /// counted, and the last one described.
    pub stage_errors: u64,
    pub last_stage_error: Option<String>,
    /// Ports that were given frames since the network last looked (it starts the idle ones).
    pub(crate) fed_ports: Vec<usize>,
}

impl Switch {
    /// A switch whose ports each get a clone of `queue_manager` and `schedule`; ports are added
    /// by the topology builder ([`Switch::add_port`]).
    pub fn new(
        route: Box<dyn Route>,
        classify: Box<dyn Classify>,
        queue_manager: Box<dyn QueueManager>,
        schedule: Box<dyn Schedule>,
    ) -> Self {
        Switch {
            route,
            ingress: None,
            classify,
            queue_manager,
            schedule,
            ports: Vec::new(),
            unroutable: 0,
            ingress_dropped: 0,
            ingress_consumed: 0,
            device_queue_pkts: 0,
            occupancy_sampling: OccupancySampling::default(),
            ns_per_tick: 0.0,
            stage_errors: 0,
            last_stage_error: None,
            fed_ports: Vec::new(),
        }
    }

    /// Adds a port sending on directed link `link` of `gbps`, with `bands` bands; returns its index.
    pub fn add_port(&mut self, link: usize, gbps: f64, bands: usize) -> usize {
        let port = Port {
            queues: PortQueues::new(bands.max(1)),
            counters: PortCounters::default(),
            occupancy: vec![(0, 0, 0)],
            link,
            link_gbps: gbps,
            busy: false,
            device: VecDeque::new(),
            queue_manager: self.queue_manager.clone(),
            schedule: self.schedule.clone(),
            next_sample: 0,
            state: (0, 0),
        };
        self.ports.push(port);
        self.ports.len() - 1
    }

    fn context(&self, ingress_port: Option<usize>, port: usize, now: u64) -> StageContext {
        let mut ctx = StageContext::new(ingress_port, port, now, now as f64 * self.ns_per_tick, self.ports[port].link_gbps);
        ctx.egress_queue_bytes = self.ports[port].queues.bytes();
        ctx
    }

    fn stage_error(&mut self, what: String) {
        self.stage_errors += 1;
        self.last_stage_error = Some(what);
    }

    /// Route, classify and enqueue a frame that arrived (whole) on `ingress_port` at tick `now`;
    /// returns the port it was queued on.
    pub fn accept(&mut self, mut frame: Vec<u8>, ingress_port: usize, now: u64) -> Option<usize> {
        let Some(port) = self.route.route(&frame, ingress_port).filter(|p| *p < self.ports.len()) else {
            self.unroutable += 1;
            return None;
        };
        let mut ctx = self.context(Some(ingress_port), port, now);
        if let Some(stage) = self.ingress.as_mut() {
            let verdict = stage.ingress(&mut frame, &mut ctx);
            if verdict != IngressVerdict::Forward {
                match verdict {
                    IngressVerdict::Drop => self.ingress_dropped += 1,
                    _ => self.ingress_consumed += 1,
                }
                self.queue_emitted(ctx.take_emitted(), "ingress", now);
                return None;
            }
        }
        let mut band = self.classify.classify(&frame, &ctx);
        let bands = self.ports[port].queues.band_count();
        if band >= bands {
            self.stage_error(format!("classifier: band {band} at port {port}, which has {bands} bands (queued in the last)"));
            band = bands - 1;
        }
        let p = &mut self.ports[port];
        let verdict = p.queue_manager.enqueue(&mut p.queues, band, frame, &mut ctx);
        match verdict {
            Verdict::Dropped => p.counters.dropped += 1,
            Verdict::Trimmed => {
                p.counters.trimmed += 1;
                p.counters.enqueued += 1
            }
            Verdict::Enqueued => p.counters.enqueued += 1,
        }
        self.queue_emitted(ctx.take_emitted(), "queue manager", now);
        if verdict != Verdict::Dropped {
            self.feed(port, now);
        } else {
            self.ports[port].record(now, self.occupancy_sampling, self.ns_per_tick);
        }
        (verdict != Verdict::Dropped).then_some(port)
    }

    /// Queues what a stage emitted, each on its port and band.
    fn queue_emitted(&mut self, emitted: Vec<Emitted>, stage: &str, now: u64) {
        for e in emitted {
            let Some(p) = self.ports.get_mut(e.port) else {
                let n = self.ports.len();
                self.stage_error(format!("{stage}: emitted to port {}, but the switch has {n} ports", e.port));
                continue;
            };
            if e.band >= p.queues.band_count() {
                let n = p.queues.band_count();
                self.stage_error(format!("{stage}: emitted to band {} of port {}, which has {n} bands", e.band, e.port));
                continue;
            }
            p.queues.push(e.band, e.frame);
            p.counters.enqueued += 1;
            self.feed(e.port, now);
        }
    }

    /// A port was given a frame: record it, top up its device queue and tell the network.
    fn feed(&mut self, port: usize, now: u64) {
        self.ports[port].record(now, self.occupancy_sampling, self.ns_per_tick);
        if self.ports[port].busy {
            self.fill_device_queue(port, now);
        } else {
            self.fed_ports.push(port);
        }
    }

    /// The next frame port `port` sends, if any (the port is then busy): the device queue's
    /// head, else the scheduler's choice; the device queue is then topped up.
    pub fn next_frame(&mut self, port: usize, now: u64) -> Option<Vec<u8>> {
        let f = match self.ports[port].device.pop_front() {
            Some(f) => Some(f),
            None => self.schedule_one(port, now),
        };
        let p = &mut self.ports[port];
        p.busy = f.is_some();
        if let Some(f) = &f {
            p.counters.sent += 1;
            p.counters.sent_bytes += f.len() as u64;
        }
        self.fill_device_queue(port, now);
        f
    }

    /// The scheduler's choice at `port` (and whatever it emitted, queued).
    fn schedule_one(&mut self, port: usize, now: u64) -> Option<Vec<u8>> {
        let mut ctx = self.context(None, port, now);
        let p = &mut self.ports[port];
        let f = p.schedule.dequeue(&mut p.queues, &mut ctx);
        let emitted = ctx.take_emitted();
        if !emitted.is_empty() {
            self.queue_emitted(emitted, "scheduler", now);
        }
        f
    }

    fn fill_device_queue(&mut self, port: usize, now: u64) {
        while self.ports[port].device.len() < self.device_queue_pkts {
            let Some(f) = self.schedule_one(port, now) else { break };
            self.ports[port].device.push_back(f);
        }
        self.ports[port].record(now, self.occupancy_sampling, self.ns_per_tick);
    }
}

impl Port {
    fn record(&mut self, now: u64, sampling: OccupancySampling, ns_per_tick: f64) {
        let (n, b) = (self.queues.packets(), self.queues.bytes());
        self.counters.max_packets = self.counters.max_packets.max(n as u64);
        match sampling {
            OccupancySampling::OnChange => {
                if self.occupancy.last().map(|o| (o.1, o.2)) != Some((n, b)) {
                    self.occupancy.push((now, n, b));
                }
            }
            OccupancySampling::EveryNs(ns) => {
                let interval = if ns_per_tick > 0.0 { (ns / ns_per_tick).round() } else { ns.round() }.max(1.0) as u64;
                if self.next_sample == 0 {
                    self.next_sample = interval; // tick 0 is the first sample
                }
                // The boundaries passed since the last change saw the occupancy before this one.
                while self.next_sample <= now {
                    let (pn, pb) = if self.next_sample == now { (n, b) } else { self.state };
                    self.occupancy.push((self.next_sample, pn, pb));
                    self.next_sample += interval;
                }
                if let Some(last) = self.occupancy.last_mut().filter(|o| o.0 == now) {
                    (last.1, last.2) = (n, b);
                }
            }
            OccupancySampling::Off => {}
        }
        self.state = (n, b);
    }
}
