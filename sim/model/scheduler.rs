//! Reference model of the priority scheduler extern (`nanotransport_hdl::pisa::priority_scheduler`)
//! and of the dual-ported memory.
//!
//! The scheduler model is stepped once per clock cycle with the cycle's operation (or none) and
//! returns the decision of an ARRIVE, which the hardware presents one cycle later. It keeps the
//! messages as a set (entry slots are invisible at the ports) and models the FIFO's pop timing
//! (a pop starts when the FIFO is not empty, an entry is free and no pop is under way; the
//! message loads two cycles later if it is still waiting), which decides when a waiting message
//! can be granted.

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
    pub counters: SchedCounters,
    pub paths: FifoPaths,
}

pub const ENTRIES: usize = 16;

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
                self.entries.push(Msg { id: x, ..self.waiting[x] });
            }
        }
        // Step 2: the op.
        let mut result = None;
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
                    let m = Msg { id, remaining, received, total, granted };
                    if self.entries.len() < ENTRIES && fifo_len_at_start == 0 && !pop_in_flight {
                        self.entries.push(m);
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
                result = Some(self.decide(overcommit, rtt_pkts));
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

    /// Ranks the entries, picks the highest-priority grantable one and applies its grant.
    fn decide(&mut self, overcommit: u8, rtt_pkts: u8) -> Option<Grant> {
        let k = if overcommit == 0 { 1 } else { overcommit as usize };
        let mut order: Vec<usize> = (0..self.entries.len()).collect();
        order.sort_by_key(|&i| (self.entries[i].remaining, self.entries[i].id));
        for (position, &i) in order.iter().enumerate().take(k) {
            let e = self.entries[i];
            let reach = e.received as u16 + rtt_pkts as u16;
            if e.granted < e.total && (e.granted as u16) < reach {
                let offset = reach.min(e.total as u16) as u8;
                self.counters.grants += 1;
                if offset >= e.total {
                    self.entries.remove(i);
                    self.done[e.id] = true;
                } else {
                    self.entries[i].granted = offset;
                }
                return Some(Grant { id: e.id, offset, position: position as u8, received: e.received, total: e.total });
            }
        }
        None
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
