//! Reference checker of the timer module's contract (hdl/nic/timer.rs).
//!
//! The timer may raise an expired entry at any point within its bound, so the reference is a
//! checker, not a cycle copy: it keeps every entry's schedule and verifies, cycle by cycle, that
//! - every raised timeout names a valid entry, whose expiry has passed, with the metadata of its
//!   latest schedule, and that is not being scheduled or cancelled in the same cycle;
//! - a timer fires at most once per schedule;
//! - (when the consumer is always ready) every due timer is raised within the bound.

/// Inputs and outputs of one cycle, as seen before the clock edge.
#[derive(Clone, Copy, Debug, Default)]
pub struct TimerCycle {
    pub reset: bool,
    pub now: u64,
    pub sched: Option<(u32, u32, u64)>,
    pub cancel: Option<u32>,
    pub timeout_ready: bool,
    pub timeout: Option<(u32, u64)>,
}

#[derive(Clone, Copy, Debug, Default)]
struct Entry {
    valid: bool,
    expiry: u64,
    meta: u64,
    due_since: Option<u64>,
}

/// Checks a timer's outputs against its contract.
#[derive(Clone, Debug)]
pub struct TimerChecker {
    entries: Vec<Entry>,
    /// Cycles allowed between an entry becoming due and its timeout (`None`: not checked).
    bound: Option<u64>,
    cycle: u64,
    /// Timeouts accepted by the consumer.
    pub fired: u64,
    /// Largest due→raised latency seen, in cycles.
    pub max_latency: u64,
}

impl TimerChecker {
    /// `bound`: check the expiry bound (only meaningful when the consumer is always ready).
    pub fn new(entries: usize, bound: Option<u64>) -> Self {
        TimerChecker { entries: vec![Entry::default(); entries], bound, cycle: 0, fired: 0, max_latency: 0 }
    }

    /// Feeds one cycle; an error describes the first contract violation.
    pub fn step(&mut self, c: &TimerCycle) -> Result<(), String> {
        let cycle = self.cycle;
        self.cycle += 1;
        if let Some((id, meta)) = c.timeout {
            let e = self.entries[id as usize];
            if !e.valid {
                return Err(format!("cycle {cycle}: timeout for entry {id}, which is not scheduled"));
            }
            if c.now < e.expiry {
                return Err(format!("cycle {cycle}: entry {id} raised at {} before its expiry {}", c.now, e.expiry));
            }
            if meta != e.meta {
                return Err(format!("cycle {cycle}: entry {id} raised with metadata {meta:#x}, scheduled with {:#x}", e.meta));
            }
            if c.sched.is_some_and(|(s, _, _)| s == id) || c.cancel == Some(id) || c.reset {
                return Err(format!("cycle {cycle}: entry {id} raised while being scheduled/cancelled/reset"));
            }
            if c.timeout_ready {
                let due = e.due_since.ok_or_else(|| {
                    format!("cycle {cycle}: entry {id} raised before any cycle saw now >= its expiry (time went backwards?)")
                })?;
                self.max_latency = self.max_latency.max(cycle - due);
                self.entries[id as usize].valid = false;
                self.fired += 1;
            }
        }
        if let Some(bound) = self.bound {
            for (id, e) in self.entries.iter().enumerate() {
                if let (true, Some(due)) = (e.valid, e.due_since) {
                    if cycle - due > bound {
                        return Err(format!("cycle {cycle}: entry {id} due since cycle {due} not raised within {bound} cycles"));
                    }
                }
            }
        }
        if let Some((id, delay, meta)) = c.sched {
            self.entries[id as usize] = Entry { valid: true, expiry: c.now.wrapping_add(delay as u64), meta, due_since: None };
        }
        if let Some(id) = c.cancel {
            self.entries[id as usize].valid = false;
        }
        if c.reset {
            self.entries.iter_mut().for_each(|e| e.valid = false);
        }
        for e in self.entries.iter_mut() {
            if e.valid && e.due_since.is_none() && c.now >= e.expiry {
                e.due_since = Some(cycle);
            }
        }
        Ok(())
    }

    /// Entries currently scheduled.
    pub fn scheduled(&self) -> usize {
        self.entries.iter().filter(|e| e.valid).count()
    }
}
