//! The simulation core: endpoints, switches and directed links, and the event queue.

use super::endpoint::{beats_of, Endpoint};
use super::link::{lcm, ticks_needed, LinkSpec, LinkTiming};
use super::switch::{Port, Switch};
use super::trace::PcapTrace;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};

/// One end of a link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Node {
    Endpoint(usize),
    Switch(usize),
}

/// A directed link.
pub struct DirectedLink {
    pub timing: LinkTiming,
    pub from: Node,
    pub to: Node,
    /// Frames as they start on the link, when traced.
    pub trace: Option<PcapTrace>,
}

enum Event {
    /// A frame reaches the far end of `link` (whole, for a switch; ready to stream, for an endpoint).
    Arrive { link: usize, frame: Vec<u8> },
    /// A switch port has finished serialising its frame.
    PortFree { switch: usize, port: usize },
}

/// Endpoints, switches, links and time.
pub struct Network {
    pub clock_mhz: u64,
    /// Ticks per NIC clock cycle (see the module docs).
    pub ticks_per_cycle: u64,
    pub endpoints: Vec<Box<dyn Endpoint>>,
    /// The link each endpoint sends on.
    endpoint_uplink: Vec<Option<usize>>,
    pub switches: Vec<Switch>,
    pub links: Vec<DirectedLink>,
    queue: BinaryHeap<Reverse<(u64, u64)>>,
    events: BTreeMap<u64, Event>,
    sequence: u64,
    /// The current cycle.
    pub cycle: u64,
    /// Cycles in which at least one endpoint was stepped (the rest were skipped).
    pub stepped_cycles: u64,
    /// Endpoint steps in total (NIC cycles simulated).
    pub endpoint_steps: u64,
    /// Seed of the links' loss generators.
    pub seed: u64,
}

impl Network {
    /// An empty network whose links will be `specs` (they fix the tick).
    pub fn new(clock_mhz: u64, specs: &[LinkSpec], seed: u64) -> Self {
        let ticks_per_cycle = specs.iter().fold(1, |t, s| lcm(t, ticks_needed(s, clock_mhz)));
        Network {
            clock_mhz,
            ticks_per_cycle,
            endpoints: Vec::new(),
            endpoint_uplink: Vec::new(),
            switches: Vec::new(),
            links: Vec::new(),
            queue: BinaryHeap::new(),
            events: BTreeMap::new(),
            sequence: 0,
            cycle: 0,
            stepped_cycles: 0,
            endpoint_steps: 0,
            seed,
        }
    }

    pub fn add_endpoint(&mut self, e: Box<dyn Endpoint>) -> Node {
        self.cycle = self.cycle.max(e.cycle());
        self.endpoints.push(e);
        self.endpoint_uplink.push(None);
        Node::Endpoint(self.endpoints.len() - 1)
    }

    pub fn add_switch(&mut self, s: Switch) -> Node {
        self.switches.push(s);
        Node::Switch(self.switches.len() - 1)
    }

    /// Connects two switches with `a_bands` / `b_bands` bands on the new ports.
    pub fn connect_switches(&mut self, a: Node, b: Node, spec: LinkSpec, a_bands: usize, b_bands: usize) -> Result<(usize, usize), String> {
        let ids = self.connect(a, b, spec, a_bands)?;
        if let Node::Switch(s) = b {
            let port = self.switches[s].ports.len() - 1;
            self.switches[s].ports[port] = Port::new(ids.1, b_bands);
        }
        Ok(ids)
    }

    /// Connects `a` and `b` both ways; returns the link indices (a → b, b → a). A switch gets
    /// one port per link, numbered in the order they are connected, with `bands` bands.
    pub fn connect(&mut self, a: Node, b: Node, spec: LinkSpec, bands: usize) -> Result<(usize, usize), String> {
        let need = ticks_needed(&spec, self.clock_mhz);
        if self.ticks_per_cycle % need != 0 {
            return Err(format!("link of {} Gb/s, {} ns was not among the specs the network was built for", spec.gbps, spec.delay_ns));
        }
        if spec.rate_mbps() == 0 || spec.rate_mbps() > 64 * self.clock_mhz {
            return Err(format!("link rate {} Gb/s: valid 0.001..={} Gb/s (the NIC's 64-bit MAC side)", spec.gbps, (64 * self.clock_mhz) as f64 / 1000.0));
        }
        let mut ids = [0; 2];
        for (k, (from, to)) in [(a, b), (b, a)].into_iter().enumerate() {
            let id = self.links.len();
            let seed = self.seed.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(id as u64);
            self.links.push(DirectedLink { timing: LinkTiming::new(spec, self.ticks_per_cycle, self.clock_mhz, seed), from, to, trace: None });
            match from {
                Node::Endpoint(e) => self.endpoint_uplink[e] = Some(id),
                Node::Switch(s) => self.switches[s].ports.push(Port::new(id, bands)),
            }
            ids[k] = id;
        }
        Ok((ids[0], ids[1]))
    }

    /// Records every frame put on `link` for a pcap.
    pub fn trace_link(&mut self, link: usize) {
        self.links[link].trace = Some(PcapTrace::default());
    }

    /// Nanoseconds of a tick.
    pub fn tick_ns(&self, tick: u64) -> f64 {
        tick as f64 * 1000.0 / (self.ticks_per_cycle * self.clock_mhz) as f64
    }

    /// Nanoseconds of a cycle.
    pub fn cycle_ns(&self, cycle: u64) -> f64 {
        cycle as f64 * 1000.0 / self.clock_mhz as f64
    }

    fn push(&mut self, tick: u64, e: Event) {
        self.sequence += 1;
        self.queue.push(Reverse((tick, self.sequence)));
        self.events.insert(self.sequence, e);
    }

    /// Puts `frame` on `link`, ready at tick `ready`; schedules its arrival.
    fn transmit(&mut self, link: usize, ready: u64, frame: Vec<u8>) -> u64 {
        let tpc = self.ticks_per_cycle;
        let l = &mut self.links[link];
        let (start, arrival) = l.timing.transmit(ready, frame.len());
        let end = start + l.timing.serialisation_ticks(frame.len());
        if let Some(t) = &mut l.trace {
            t.record(start, &frame);
        }
        if let Some(last_byte) = arrival {
            let at = match l.to {
                Node::Switch(_) => last_byte,
                // Streamed so that the last beat is taken in the cycle the last byte arrives.
                Node::Endpoint(_) => (last_byte.div_ceil(tpc) - beats_of(&frame)).max(start / tpc + 1) * tpc,
            };
            self.push(at, Event::Arrive { link, frame });
        }
        end
    }

    fn start_port(&mut self, s: usize, port: usize, now: u64) {
        if let Some(frame) = self.switches[s].next_frame(port, now) {
            let link = self.switches[s].ports[port].link;
            let end = self.transmit(link, now, frame);
            self.push(end, Event::PortFree { switch: s, port });
        }
    }

    fn handle(&mut self, tick: u64, e: Event) {
        match e {
            Event::Arrive { link, frame } => match self.links[link].to {
                Node::Switch(s) => {
                    if let Some(port) = self.switches[s].accept(frame, tick) {
                        if !self.switches[s].ports[port].busy {
                            self.start_port(s, port, tick);
                        }
                    }
                }
                Node::Endpoint(ep) => {
                    self.endpoints[ep].receive(frame, tick / self.ticks_per_cycle);
                }
            },
            Event::PortFree { switch, port } => {
                self.switches[switch].ports[port].busy = false;
                self.start_port(switch, port, tick);
            }
        }
    }

    /// Runs cycle by cycle until `stop` holds (checked every 64 cycles and at the end) or
    /// `until` is reached; `progress` is called every 4096 cycles. Returns whether `stop` held.
    pub fn run(&mut self, until: u64, stop: &mut dyn FnMut(&Network) -> bool, progress: &mut dyn FnMut(&Network)) -> bool {
        let tpc = self.ticks_per_cycle;
        let mut next_check = self.cycle;
        let mut next_progress = self.cycle;
        while self.cycle < until {
            if self.cycle >= next_check {
                if stop(self) {
                    return true;
                }
                next_check = self.cycle + 64;
            }
            if self.cycle >= next_progress {
                progress(self);
                next_progress = self.cycle + 4096;
            }
            let now = self.cycle;
            let end = (now + 1) * tpc;
            while let Some(&Reverse((tick, seq))) = self.queue.peek() {
                if tick >= end {
                    break;
                }
                self.queue.pop();
                let e = self.events.remove(&seq).expect("event of a queued tick");
                self.handle(tick, e);
            }
            let mut stepped = false;
            for i in 0..self.endpoints.len() {
                if !self.endpoints[i].busy(now) {
                    continue;
                }
                stepped = true;
                self.endpoint_steps += 1;
                let uplink = self.endpoint_uplink[i];
                // MAC TX may start a frame once the link finishes the previous one within this cycle.
                let ready = uplink.is_some_and(|l| self.links[l].timing.free_at < end);
                let frames = self.endpoints[i].step(now, ready);
                for (first_beat, f) in frames {
                    if let Some(l) = uplink {
                        self.transmit(l, first_beat * tpc, f);
                    }
                }
            }
            self.cycle += 1;
            if stepped {
                self.stepped_cycles += 1;
            } else {
                let next_event = self.queue.peek().map(|Reverse((t, _))| t / tpc);
                let next_wake = self.endpoints.iter().filter_map(|e| e.wake_at()).min();
                let next = [next_event, next_wake, Some(until)].into_iter().flatten().min().unwrap();
                self.cycle = self.cycle.max(next);
            }
        }
        stop(self)
    }
}
