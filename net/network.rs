//! The simulation core: endpoints, behavioural hosts, switches and directed links, and the
//! event queue.

use super::endpoint::{beats_of, Endpoint};
use super::host::{Host, HostIo};
use super::link::{lcm, ticks_needed, LinkSpec, LinkTiming};
use super::switch::Switch;
use super::trace::PcapTrace;
use nanotransport_hdl::clock::NicClock;
use std::collections::{BinaryHeap, HashMap, VecDeque};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// One end of a link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Node {
    Endpoint(usize),
    Switch(usize),
    Host(usize),
}

/// A directed link.
pub struct DirectedLink {
    pub timing: LinkTiming,
    pub from: Node,
    pub to: Node,
    /// Frames as they start on the link, when traced.
    pub trace: Option<PcapTrace>,
}

impl DirectedLink {
    /// Puts `frame` on the link, ready at tick `ready`: returns the tick the link is free again
    /// and, unless the frame is lost, the tick of its arrival event at the far end (the whole
    /// frame for a switch; for an endpoint, the cycle its first beat is offered so that the last
    /// beat is taken in the cycle the last byte arrives).
    fn put(&mut self, ready: u64, frame: &[u8], ticks_per_cycle: u64) -> (u64, Option<u64>) {
        let (start, arrival) = self.timing.transmit(ready, frame.len());
        let end = start + self.timing.serialisation_ticks(frame.len());
        if let Some(t) = &mut self.trace {
            t.record(start, frame);
        }
        let at = arrival.map(|last_byte| match self.to {
            Node::Switch(_) | Node::Host(_) => last_byte,
            Node::Endpoint(_) => (last_byte.div_ceil(ticks_per_cycle) - beats_of(frame)).max(start / ticks_per_cycle + 1) * ticks_per_cycle,
        });
        (end, at)
    }
}

enum Event {
    /// A frame reaches the far end of `link` (whole, for a switch or a host; ready to stream, for
    /// an endpoint).
    Arrive { link: usize, frame: Vec<u8> },
    /// A switch port has finished serialising its frame.
    PortFree { switch: usize, port: usize },
    /// A host's link has finished serialising its frame.
    HostTxFree { host: usize },
    /// A host's timer, as set (`generation` tells a timer set again or cancelled since).
    HostTimer { host: usize, id: u64, generation: u64 },
}

/// Order of events: by tick, then arrivals, ports becoming free, hosts' links becoming free,
/// hosts' timers, then by link, port or host, so that the order does not depend on when an
/// event was created (and a run does not depend on how many threads stepped its endpoints);
/// last by creation, for a host's timers of one tick.
type EventKey = (u64, u8, usize, u64);

/// An event in the queue, ordered by its key (earliest first).
struct Queued {
    key: EventKey,
    event: Event,
}

impl PartialEq for Queued {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}
impl Eq for Queued {}
impl PartialOrd for Queued {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Queued {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        other.key.cmp(&self.key) // the earliest is the greatest: BinaryHeap pops it first
    }
}

/// A behavioural host with what the network keeps for it: its link, transmit queue and timers.
pub struct HostSlot {
    pub host: Box<dyn Host>,
    uplink: Option<usize>,
    tx_queue: VecDeque<Vec<u8>>,
    tx_queue_bytes: usize,
    tx_busy: bool,
    /// The host asked to be told when the link finishes its frame.
    wake_on_tx: bool,
    /// Pending timers: id → generation.
    timers: HashMap<u64, u64>,
    generation: u64,
    /// Frames sent while the host had no link (dropped).
    pub unconnected_sends: u64,
}

/// An endpoint's share of one window: the frames it receives, in cycle order, and the frames it
/// puts on its uplink (arrival tick, link, frame).
struct Lane<'a> {
    endpoint: &'a mut Box<dyn Endpoint>,
    uplink: Option<(usize, &'a mut DirectedLink)>,
    inbox: Vec<(u64, Vec<u8>)>,
    sent: Vec<(u64, usize, Vec<u8>)>,
    steps: u64,
    /// Cycles of the window in which it was stepped, as bits.
    stepped: Vec<u64>,
}

impl Lane<'_> {
    /// Steps the endpoint through cycles `from .. to`, handing it its frames in their cycles and
    /// skipping the cycles in which it has nothing to do.
    fn run(&mut self, from: u64, to: u64, ticks_per_cycle: u64) {
        let mut next_in = 0;
        let mut c = from;
        while c < to {
            while next_in < self.inbox.len() && self.inbox[next_in].0 <= c {
                let frame = std::mem::take(&mut self.inbox[next_in].1);
                self.endpoint.receive(frame, c);
                next_in += 1;
            }
            if !self.endpoint.busy(c) {
                let next =
                    [self.inbox.get(next_in).map(|f| f.0), self.endpoint.wake_at(), Some(to)].into_iter().flatten().min().unwrap_or(to);
                c = next.max(c + 1);
                continue;
            }
            self.steps += 1;
            let k = (c - from) as usize;
            self.stepped[k / 64] |= 1 << (k % 64);
            let end = (c + 1) * ticks_per_cycle;
            // MAC TX may start a frame once the link finishes the previous one within this cycle.
            let ready = self.uplink.as_ref().is_some_and(|(_, l)| l.timing.free_at < end);
            for (first_beat, frame) in self.endpoint.step(c, ready) {
                if let Some((id, link)) = &mut self.uplink {
                    if let (_, Some(at)) = link.put(first_beat * ticks_per_cycle, &frame, ticks_per_cycle) {
                        self.sent.push((at, *id, frame));
                    }
                }
            }
            c += 1;
        }
    }
}

/// Endpoints, switches, links and time.
pub struct Network {
    pub clock: NicClock,
    /// Ticks per NIC clock cycle (see the module docs).
    pub ticks_per_cycle: u64,
    pub endpoints: Vec<Box<dyn Endpoint>>,
    /// The link each endpoint sends on.
    endpoint_uplink: Vec<Option<usize>>,
    /// Behavioural hosts ([`crate::host`]).
    pub hosts: Vec<HostSlot>,
    hosts_started: bool,
    /// Events handled so far.
    pub events_handled: u64,
    /// Host timers asked for a time already past (they fired at once).
    pub host_past_timers: u64,
    pub switches: Vec<Switch>,
    pub links: Vec<DirectedLink>,
    /// For a link into a switch: the switch's port on that link (its ingress port).
    link_ingress_port: Vec<Option<usize>>,
    queue: BinaryHeap<Queued>,
    sequence: u64,
    /// The current cycle.
    pub cycle: u64,
    /// Cycles in which at least one endpoint was stepped (the rest were skipped).
    pub stepped_cycles: u64,
    /// Endpoint steps in total (NIC cycles simulated).
    pub endpoint_steps: u64,
    /// Seed of the links' loss generators.
    pub seed: u64,
    /// Threads that step endpoints within a window (see [`Network::window_cycles`]); results do
    /// not depend on it.
    pub threads: usize,
}

impl Network {
    /// An empty network whose links will be `specs` (they fix the tick). Endpoints are stepped
    /// on `NANOTRANSPORT_THREADS` threads (default: the machine's cores).
    pub fn new(clock: NicClock, specs: &[LinkSpec], seed: u64) -> Self {
        let ticks_per_cycle = specs.iter().fold(1, |t, s| lcm(t, ticks_needed(s, clock)));
        let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
        let threads = std::env::var("NANOTRANSPORT_THREADS").ok().and_then(|t| t.parse().ok()).unwrap_or(cores).max(1);
        Network {
            clock,
            ticks_per_cycle,
            endpoints: Vec::new(),
            endpoint_uplink: Vec::new(),
            hosts: Vec::new(),
            hosts_started: false,
            events_handled: 0,
            host_past_timers: 0,
            switches: Vec::new(),
            links: Vec::new(),
            link_ingress_port: Vec::new(),
            queue: BinaryHeap::new(),
            sequence: 0,
            cycle: 0,
            stepped_cycles: 0,
            endpoint_steps: 0,
            seed,
            threads,
        }
    }

    pub fn add_endpoint(&mut self, e: Box<dyn Endpoint>) -> Result<Node, String> {
        if e.clock() != self.clock {
            return Err(format!(
                "the NIC at {} runs at {}, the network at {}: one network runs its NICs at one clock",
                std::net::Ipv4Addr::from(e.ip()),
                e.clock(),
                self.clock
            ));
        }
        self.cycle = self.cycle.max(e.cycle());
        self.endpoints.push(e);
        self.endpoint_uplink.push(None);
        Ok(Node::Endpoint(self.endpoints.len() - 1))
    }

    /// Adds a behavioural host.
    pub fn add_host(&mut self, host: Box<dyn Host>) -> Node {
        self.hosts.push(HostSlot {
            host,
            uplink: None,
            tx_queue: VecDeque::new(),
            tx_queue_bytes: 0,
            tx_busy: false,
            wake_on_tx: false,
            timers: HashMap::new(),
            generation: 0,
            unconnected_sends: 0,
        });
        Node::Host(self.hosts.len() - 1)
    }

    /// Host `i` as its own type, for reading its results.
    pub fn host<T: 'static>(&self, i: usize) -> Option<&T> {
        self.hosts.get(i).and_then(|h| h.host.as_any().downcast_ref())
    }

    pub fn add_switch(&mut self, mut s: Switch) -> Node {
        s.ns_per_tick = self.tick_ns(1);
        self.switches.push(s);
        Node::Switch(self.switches.len() - 1)
    }

    /// Connects two switches with `a_bands` / `b_bands` bands on the new ports.
    pub fn connect_switches(&mut self, a: Node, b: Node, spec: LinkSpec, a_bands: usize, b_bands: usize) -> Result<(usize, usize), String> {
        self.connect_with_bands(a, b, spec, [a_bands, b_bands])
    }

    /// Connects `a` and `b` both ways; returns the link indices (a → b, b → a). A switch gets
    /// one port per link, numbered in the order they are connected, with `bands` bands.
    pub fn connect(&mut self, a: Node, b: Node, spec: LinkSpec, bands: usize) -> Result<(usize, usize), String> {
        self.connect_with_bands(a, b, spec, [bands, bands])
    }

    fn connect_with_bands(&mut self, a: Node, b: Node, spec: LinkSpec, bands: [usize; 2]) -> Result<(usize, usize), String> {
        let need = ticks_needed(&spec, self.clock);
        if self.ticks_per_cycle % need != 0 {
            return Err(format!("link of {} Gb/s, {} ns was not among the specs the network was built for", spec.gbps, spec.delay_ns));
        }
        if spec.rate_mbps() == 0 || spec.rate_bps() > 64 * self.clock.hz() as u128 {
            return Err(format!(
                "link rate {} Gb/s: valid 0.001..={} Gb/s (the NIC's 64-bit MAC side at {})",
                spec.gbps,
                64.0 * self.clock.hz() as f64 / 1e9,
                self.clock
            ));
        }
        let mut ids = [0; 2];
        let mut ports = [None; 2];
        for (k, (from, to)) in [(a, b), (b, a)].into_iter().enumerate() {
            let id = self.links.len();
            let seed = self.seed.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(id as u64);
            self.links.push(DirectedLink { timing: LinkTiming::new(spec, self.ticks_per_cycle, self.clock, seed), from, to, trace: None });
            self.link_ingress_port.push(None);
            match from {
                Node::Endpoint(e) => self.endpoint_uplink[e] = Some(id),
                Node::Host(h) => self.hosts[h].uplink = Some(id),
                Node::Switch(s) => ports[k] = Some(self.switches[s].add_port(id, spec.gbps, bands[k])),
            }
            ids[k] = id;
        }
        // A switch port sends on one link of the pair and receives on the other.
        self.link_ingress_port[ids[1]] = ports[0];
        self.link_ingress_port[ids[0]] = ports[1];
        Ok((ids[0], ids[1]))
    }

    /// Records every frame put on `link` for a pcap.
    pub fn trace_link(&mut self, link: usize) {
        self.links[link].trace = Some(PcapTrace::default());
    }

    /// Nanoseconds of a tick.
    pub fn tick_ns(&self, tick: u64) -> f64 {
        self.clock.ns_of_ticks(tick, self.ticks_per_cycle)
    }

    /// Nanoseconds of a cycle.
    pub fn cycle_ns(&self, cycle: u64) -> f64 {
        self.clock.ns_of_cycles(cycle)
    }

    /// Cycles the endpoints run on their own between two exchanges with the rest of the network:
    /// one less than the shortest link delay in whole cycles, so nothing an endpoint sends in a
    /// window can reach anything before the window ends (at least 1).
    pub fn window_cycles(&self) -> u64 {
        let shortest = self.links.iter().map(|l| l.timing.delay_ticks / self.ticks_per_cycle).min().unwrap_or(1);
        shortest.saturating_sub(1).max(1)
    }

    fn push(&mut self, tick: u64, event: Event) {
        self.sequence += 1;
        let (class, id) = match &event {
            Event::Arrive { link, .. } => (0, *link),
            Event::PortFree { switch, port } => (1, (*switch << 16) | *port),
            Event::HostTxFree { host } => (2, *host),
            Event::HostTimer { host, .. } => (3, *host),
        };
        self.queue.push(Queued { key: (tick, class, id, self.sequence), event });
    }

    /// Calls host `h` at tick `now` and carries out what it asked.
    fn call_host(&mut self, h: usize, now: u64, call: impl FnOnce(&mut dyn Host, &mut HostIo)) {
        let mut io = HostIo::new(now, self.tick_ns(1), self.hosts[h].tx_queue_bytes);
        call(self.hosts[h].host.as_mut(), &mut io);
        self.hosts[h].wake_on_tx |= io.wake_on_tx;
        self.host_past_timers += io.past_timers;
        for (at, id) in io.timer_ops {
            let slot = &mut self.hosts[h];
            match at {
                Some(at) => {
                    slot.generation += 1;
                    let generation = slot.generation;
                    slot.timers.insert(id, generation);
                    self.push(at, Event::HostTimer { host: h, id, generation });
                }
                None => {
                    slot.timers.remove(&id);
                }
            }
        }
        self.hosts[h].tx_queue_bytes += io.sends.iter().map(Vec::len).sum::<usize>();
        self.hosts[h].tx_queue.extend(io.sends);
        if !self.hosts[h].tx_busy {
            self.start_host_tx(h, now);
        }
    }

    /// Puts host `h`'s next queued frame on its link.
    fn start_host_tx(&mut self, h: usize, now: u64) {
        let Some(frame) = self.hosts[h].tx_queue.pop_front() else { return };
        self.hosts[h].tx_queue_bytes -= frame.len();
        let Some(link) = self.hosts[h].uplink else {
            self.hosts[h].unconnected_sends += 1 + self.hosts[h].tx_queue.len() as u64;
            self.hosts[h].tx_queue.clear();
            self.hosts[h].tx_queue_bytes = 0;
            return;
        };
        let (end, at) = self.links[link].put(now, &frame, self.ticks_per_cycle);
        if let Some(at) = at {
            self.push(at, Event::Arrive { link, frame });
        }
        self.hosts[h].tx_busy = true;
        self.push(end, Event::HostTxFree { host: h });
    }

    /// Starts every host once, at the network's current cycle.
    fn start_hosts(&mut self) {
        if self.hosts_started {
            return;
        }
        self.hosts_started = true;
        let now = self.cycle * self.ticks_per_cycle;
        for h in 0..self.hosts.len() {
            self.call_host(h, now, |host, io| host.start(io));
        }
    }

    fn start_port(&mut self, s: usize, port: usize, now: u64) {
        if let Some(frame) = self.switches[s].next_frame(port, now) {
            let link = self.switches[s].ports[port].link;
            let (end, at) = self.links[link].put(now, &frame, self.ticks_per_cycle);
            if let Some(at) = at {
                self.push(at, Event::Arrive { link, frame });
            }
            self.push(end, Event::PortFree { switch: s, port });
        }
    }

    /// Starts the idle ports of switch `s` that were given frames.
    fn start_fed_ports(&mut self, s: usize, now: u64) {
        while let Some(port) = self.switches[s].fed_ports.pop() {
            if !self.switches[s].ports[port].busy {
                self.start_port(s, port, now);
            }
        }
    }

    /// Handles the events before tick `end`; frames for endpoints go to their inboxes.
    fn handle_until(&mut self, end: u64, inboxes: &mut [Vec<(u64, Vec<u8>)>]) {
        while self.queue.peek().is_some_and(|q| q.key.0 < end) {
            let Queued { key, event } = self.queue.pop().expect("peeked");
            self.handle(key.0, event, inboxes);
        }
    }

    /// Handles one event at `tick`; a frame for an endpoint goes to its inbox.
    fn handle(&mut self, tick: u64, event: Event, inboxes: &mut [Vec<(u64, Vec<u8>)>]) {
        self.events_handled += 1;
        match event {
            Event::Arrive { link, frame } => match self.links[link].to {
                Node::Switch(s) => {
                    let ingress = self.link_ingress_port[link].expect("a link into a switch has its port");
                    self.switches[s].accept(frame, ingress, tick);
                    self.start_fed_ports(s, tick);
                }
                Node::Endpoint(ep) => inboxes[ep].push((tick / self.ticks_per_cycle, frame)),
                Node::Host(h) => self.call_host(h, tick, |host, io| host.receive(frame, io)),
            },
            Event::PortFree { switch, port } => {
                self.switches[switch].ports[port].busy = false;
                self.start_port(switch, port, tick);
                self.start_fed_ports(switch, tick);
            }
            Event::HostTxFree { host } => {
                self.hosts[host].tx_busy = false;
                self.start_host_tx(host, tick);
                if std::mem::take(&mut self.hosts[host].wake_on_tx) {
                    self.call_host(host, tick, |h, io| h.tx_done(io));
                }
            }
            Event::HostTimer { host, id, generation } => {
                if self.hosts[host].timers.get(&id) == Some(&generation) {
                    self.hosts[host].timers.remove(&id);
                    self.call_host(host, tick, |h, io| h.timer(id, io));
                }
            }
        }
    }

    /// Runs a network without cycle-stepped endpoints as a plain discrete-event simulation: one
    /// event after the other, up to cycle `until` or until `stop` holds (checked, with
    /// `progress`, every 4096 events).
    fn run_events(&mut self, until: u64, stop: &mut dyn FnMut(&Network) -> bool, progress: &mut dyn FnMut(&Network)) -> bool {
        let end = until * self.ticks_per_cycle;
        let mut handled = 0u64;
        while self.queue.peek().is_some_and(|q| q.key.0 < end) {
            if handled % 4096 == 0 {
                if stop(self) {
                    return true;
                }
                progress(self);
            }
            let Queued { key, event } = self.queue.pop().expect("peeked");
            self.cycle = key.0 / self.ticks_per_cycle;
            self.handle(key.0, event, &mut []);
            handled += 1;
        }
        self.cycle = self.cycle.max(until);
        stop(self)
    }

    /// Runs window by window ([`Network::window_cycles`]) until `stop` holds (checked at every
    /// window's end) or `until` is reached; `progress` is called about every 4096 cycles.
    /// Returns whether `stop` held.
    ///
    /// A window first handles the network's events up to its end — everything an endpoint will
    /// receive in it was sent before it began — then steps every endpoint through it, each on its
    /// own (on [`Network::threads`] threads), and finally queues what they sent.
    ///
    /// Behavioural hosts are started at the first run and live on the event queue; a network
    /// with no cycle-stepped endpoint runs as a plain discrete-event simulation instead (no
    /// windows, no threads).
    pub fn run(&mut self, until: u64, stop: &mut dyn FnMut(&Network) -> bool, progress: &mut dyn FnMut(&Network)) -> bool {
        self.start_hosts();
        if self.endpoints.is_empty() {
            return self.run_events(until, stop, progress);
        }
        let tpc = self.ticks_per_cycle;
        let window = self.window_cycles();
        let threads = if window < 16 { 1 } else { self.threads };
        let mut next_progress = self.cycle;
        while self.cycle < until {
            if stop(self) {
                return true;
            }
            if self.cycle >= next_progress {
                progress(self);
                next_progress = self.cycle + 4096;
            }
            let (from, to) = (self.cycle, (self.cycle + window).min(until));
            let mut inboxes = vec![Vec::new(); self.endpoints.len()];
            self.handle_until(to * tpc, &mut inboxes);
            let mut uplinks: Vec<Option<(usize, &mut DirectedLink)>> = (0..self.endpoints.len()).map(|_| None).collect();
            for (id, link) in self.links.iter_mut().enumerate() {
                if let Node::Endpoint(e) = link.from {
                    if self.endpoint_uplink[e] == Some(id) {
                        uplinks[e] = Some((id, link));
                    }
                }
            }
            let words = (to - from).div_ceil(64) as usize;
            let lanes: Vec<Mutex<Lane>> = self
                .endpoints
                .iter_mut()
                .zip(uplinks)
                .zip(inboxes)
                .filter(|((e, _), inbox)| !inbox.is_empty() || e.busy(from) || e.wake_at().is_some_and(|w| w < to))
                .map(|((endpoint, uplink), inbox)| {
                    Mutex::new(Lane { endpoint, uplink, inbox, sent: Vec::new(), steps: 0, stepped: vec![0; words] })
                })
                .collect();
            let next = AtomicUsize::new(0);
            let work = || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(lane) = lanes.get(i) else { break };
                lane.lock().expect("lane").run(from, to, tpc);
            };
            if threads > 1 && lanes.len() > 1 {
                std::thread::scope(|s| {
                    for _ in 1..threads.min(lanes.len()) {
                        s.spawn(work);
                    }
                    work();
                });
            } else {
                work();
            }
            let mut stepped = vec![0u64; words];
            let mut sent = Vec::new();
            for lane in lanes {
                let lane = lane.into_inner().expect("lane");
                self.endpoint_steps += lane.steps;
                stepped.iter_mut().zip(&lane.stepped).for_each(|(s, l)| *s |= l);
                sent.extend(lane.sent);
            }
            for (at, link, frame) in sent {
                self.push(at, Event::Arrive { link, frame });
            }
            self.stepped_cycles += stepped.iter().map(|w| w.count_ones() as u64).sum::<u64>();
            self.cycle = to;
            if stepped.iter().all(|w| *w == 0) {
                // Nothing ran: jump to the next event or wake-up.
                let next_event = self.queue.peek().map(|q| q.key.0 / tpc);
                let next_wake = self.endpoints.iter().filter_map(|e| e.wake_at()).min();
                let next = [next_event, next_wake, Some(until)].into_iter().flatten().min().unwrap_or(until);
                self.cycle = self.cycle.max(next);
            }
        }
        stop(self)
    }
}
