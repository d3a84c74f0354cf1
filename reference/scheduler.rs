//! Reference model of the priority scheduler extern (`nanotransport_hdl::pisa::priority_scheduler`)
//! and of the dual-ported memory.
//!
//! The scheduler model is stepped once per clock cycle with the cycle's operation (or none) and
//! returns the decision of an ARRIVE, which the hardware presents [`RESULT_LATENCY`] cycles
//! later. It keeps the messages as a set (entry slots are invisible at the ports) and models
//! the FIFO's pop timing (a pop starts when the FIFO is not empty, an entry is free and no pop
//! is under way; the message loads two cycles later if it is still waiting), which decides when
//! a waiting message can be granted.
//!
//! A decision is taken on the state right after its ARRIVE and applied two cycles later, after
//! those cycles' ops: the granted message's credit is raised, or it leaves and is marked fully
//! granted, if it is still in the entries then (the same entry: a REMOVE and a new message of the
//! same id in between make the decision void). An ARRIVE while a decision is in flight (one
//! or two cycles after a decided ARRIVE) is applied without a decision (`close_arrivals`).

use std::collections::VecDeque;

/// One scheduler operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SchedOp {
    Arrive { id: usize, remaining: u8, received: u8, total: u8, granted: u8 },
    Remove { id: usize },
}

/// The decision of one ARRIVE: `None` = no grant; else the granted message.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Grant {
    pub id: usize,
    pub offset: u8,
    pub position: u8,
    pub received: u8,
    pub total: u8,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Msg {
    /// Which entry instance this is (set when the message enters an entry): a decision applies
    /// to the instance it chose, not to a later message of the same id.
    serial: u64,
    id: usize,
    remaining: u8,
    received: u8,
    total: u8,
    granted: u8,
}

/// Counters, as the block's `*_count` outputs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SchedCounters {
    pub inserts: u64,
    pub removes: u64,
    pub unknown_removes: u64,
    pub grants: u64,
    pub fifo_enters: u64,
    pub skipped_arrivals: u64,
    pub close_arrivals: u64,
}

/// How often the model took the FIFO's corner paths (to show a test reaches them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FifoPaths {
    /// Waiting messages loaded into an entry.
    pub loads: u64,
    /// Popped records whose message had been removed meanwhile.
    pub discarded: u64,
    /// Inserts that reused their slot's old record still in the FIFO.
    pub reused_records: u64,
    /// ARRIVEs of a waiting message in the cycle its state was being read (forwarded).
    pub forwarded: u64,
    /// ARRIVE or REMOVE of a message in the cycle it loads from the FIFO.
    pub op_on_load: u64,
    /// New messages that found the FIFO empty but a pop under way (they queue behind it).
    pub insert_during_pop: u64,
}

/// Cycle-level model of the scheduler with `ids` message ids.
pub struct SchedulerModel {
    entries: Vec<Msg>,
    waiting: Vec<Msg>,
    queued: Vec<bool>,
    in_fifo: Vec<bool>,
    done: Vec<bool>,
    fifo: VecDeque<usize>,
    p1: Option<usize>,
    p2: Option<usize>,
    /// Decisions in flight: taken one and two cycles ago (the latter is applied this cycle).
    in_flight: [Option<Decision>; 2],
    /// The last entry instance number given.
    serial: u64,
    pub counters: SchedCounters,
    pub paths: FifoPaths,
}

pub const ENTRIES: usize = 16;

/// Cycles from an ARRIVE to its result at the ports.
pub const RESULT_LATENCY: usize = 3;

/// A decision on its way to being applied.
#[derive(Clone, Copy, Debug)]
struct Decision {
    grant: Option<Grant>,
    /// The chosen entry instance.
    serial: u64,
    fills: bool,
}

impl SchedulerModel {
    pub fn new(ids: usize) -> Self {
        SchedulerModel {
            entries: Vec::new(),
            waiting: vec![Msg::default(); ids],
            queued: vec![false; ids],
            in_fifo: vec![false; ids],
            done: vec![false; ids],
            fifo: VecDeque::new(),
            p1: None,
            p2: None,
            in_flight: [None, None],
            serial: 0,
            counters: SchedCounters::default(),
            paths: FifoPaths::default(),
        }
    }

    /// Valid entries.
    pub fn occupancy(&self) -> usize {
        self.entries.len()
    }

    /// Records in the FIFO.
    pub fn fifo_level(&self) -> usize {
        self.fifo.len()
    }

    /// One clock cycle with operation `op`; returns `Some(decision)` for an ARRIVE.
    pub fn step(&mut self, op: Option<SchedOp>, overcommit: u8, rtt_pkts: u8) -> Option<Option<Grant>> {
        let pop_start = !self.fifo.is_empty() && self.p1.is_none() && self.p2.is_none() && self.entries.len() < ENTRIES;
        let pop_in_flight = self.p1.is_some();
        let fifo_len_at_start = self.fifo.len();
        // Step 1: load.
        let mut loaded = None;
        if let Some(x) = self.p2.take() {
            if !self.queued[x] {
                self.paths.discarded += 1;
            }
            if self.queued[x] {
                self.paths.loads += 1;
                loaded = Some(x);
                self.queued[x] = false;
                assert!(self.entries.len() < ENTRIES, "a pop never starts without a free entry");
                self.serial += 1;
                self.entries.push(Msg { id: x, serial: self.serial, ..self.waiting[x] });
            }
        }
        // Step 2: the op.
        let mut result = None;
        let mut decision = None;
        let op_id = match op {
            Some(SchedOp::Arrive { id, .. }) | Some(SchedOp::Remove { id }) => Some(id),
            None => None,
        };
        if op_id.is_some() && op_id == loaded {
            self.paths.op_on_load += 1;
        }
        if matches!(op, Some(SchedOp::Arrive { .. })) && op_id == self.p1 && self.p1.is_some() {
            self.paths.forwarded += 1;
        }
        match op {
            Some(SchedOp::Arrive { id, remaining, received, total, granted }) => {
                if let Some(e) = self.entries.iter_mut().find(|e| e.id == id) {
                    e.remaining = remaining;
                    e.received = received;
                } else if self.queued[id] {
                    self.waiting[id].remaining = remaining;
                    self.waiting[id].received = received;
                } else if self.done[id] || granted >= total {
                    self.done[id] = true;
                    self.counters.skipped_arrivals += 1;
                } else {
                    self.counters.inserts += 1;
                    let m = Msg { id, remaining, received, total, granted, serial: 0 };
                    if self.entries.len() < ENTRIES && fifo_len_at_start == 0 && !pop_in_flight {
                        self.serial += 1;
                        self.entries.push(Msg { serial: self.serial, ..m });
                    } else {
                        if fifo_len_at_start == 0 {
                            self.paths.insert_during_pop += 1;
                        }
                        self.counters.fifo_enters += 1;
                        self.queued[id] = true;
                        self.waiting[id] = m;
                        if !self.in_fifo[id] {
                            self.in_fifo[id] = true;
                            self.fifo.push_back(id);
                        } else {
                            self.paths.reused_records += 1;
                        }
                    }
                }
                if self.in_flight.iter().any(Option::is_some) {
                    self.counters.close_arrivals += 1;
                    result = Some(None);
                    decision = None;
                } else {
                    let d = self.decide(overcommit, rtt_pkts);
                    result = Some(d.grant);
                    decision = Some(d);
                }
            }
            Some(SchedOp::Remove { id }) => {
                if let Some(k) = self.entries.iter().position(|e| e.id == id) {
                    self.entries.remove(k);
                    self.counters.removes += 1;
                } else if self.queued[id] {
                    self.queued[id] = false;
                    self.counters.removes += 1;
                } else if self.done[id] {
                    self.done[id] = false;
                    self.counters.removes += 1;
                } else {
                    self.counters.unknown_removes += 1;
                }
            }
            None => {}
        }
        // The decision taken two cycles ago is applied after this cycle's op.
        if let Some(Decision { grant: Some(g), serial, fills }) = self.in_flight[1] {
            self.counters.grants += 1;
            if let Some(k) = self.entries.iter().position(|e| e.serial == serial) {
                if fills {
                    self.entries.remove(k);
                    self.done[g.id] = true;
                } else {
                    self.entries[k].granted = g.offset;
                }
            }
        }
        self.in_flight = [decision, self.in_flight[0]];
        // Pop stages.
        if let Some(x) = self.p1.take() {
            self.in_fifo[x] = false;
            self.p2 = Some(x);
        }
        if pop_start {
            self.p1 = self.fifo.pop_front();
        }
        result
    }

    /// Ranks the entries and picks the highest-priority grantable one (applied two cycles later).
    fn decide(&self, overcommit: u8, rtt_pkts: u8) -> Decision {
        let k = if overcommit == 0 { 1 } else { overcommit as usize };
        let mut order: Vec<usize> = (0..self.entries.len()).collect();
        order.sort_by_key(|&i| (self.entries[i].remaining, self.entries[i].id));
        for (position, &i) in order.iter().enumerate().take(k) {
            let e = self.entries[i];
            let reach = e.received as u16 + rtt_pkts as u16;
            if e.granted < e.total && (e.granted as u16) < reach {
                let offset = reach.min(e.total as u16) as u8;
                let grant = Grant { id: e.id, offset, position: position as u8, received: e.received, total: e.total };
                return Decision { grant: Some(grant), serial: e.serial, fills: offset >= e.total };
            }
        }
        Decision { grant: None, serial: 0, fills: false }
    }
}

/// Model of the dual-ported memory: write-first, zero after reset.
pub struct DualPortMemoryModel {
    pub values: Vec<u64>,
}

impl DualPortMemoryModel {
    pub fn new(entries: usize) -> Self {
        DualPortMemoryModel { values: vec![0; entries] }
    }
    /// One cycle: the write lands, then the read (answered next cycle) sees it.
    pub fn step(&mut self, write: Option<(usize, u64)>, read: Option<usize>) -> Option<u64> {
        if let Some((i, v)) = write {
            self.values[i] = v;
        }
        read.map(|i| self.values[i])
    }
}
