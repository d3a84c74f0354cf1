//! HULL's phantom queue (Alizadeh et al., "Less is More", NSDI 2012, §4.1; a scheduler in
//! Flexplane's Table 3.1): a counter beside the port that every departing frame fills and that
//! drains at a fraction γ of the line rate; a frame that leaves while it holds more than the
//! marking threshold is ECN-marked. The port itself is served in strict priority.

use super::mark_ce;
use crate::switch::{PortQueues, Schedule, StageContext};

/// HULL (defaults: γ = 0.95, marking above 15 KB, as Flexplane's §4.2).
#[derive(Clone, Debug)]
pub struct Hull {
    pub drain_fraction: f64,
    pub mark_bytes: f64,
    phantom_bytes: f64,
    last_ns: f64,
    pub marked: u64,
}

impl Hull {
    pub fn new(drain_fraction: f64, mark_bytes: f64) -> Result<Self, String> {
        if !(drain_fraction > 0.0 && drain_fraction <= 1.0) {
            return Err(format!("HULL drain fraction {drain_fraction}: valid (0, 1]"));
        }
        if !(mark_bytes > 0.0) {
            return Err(format!("HULL marking threshold {mark_bytes} bytes: valid above 0"));
        }
        Ok(Hull { drain_fraction, mark_bytes, phantom_bytes: 0.0, last_ns: 0.0, marked: 0 })
    }

    /// The phantom queue's bytes after the last departure.
    pub fn phantom_bytes(&self) -> f64 {
        self.phantom_bytes
    }
}

impl Default for Hull {
    fn default() -> Self {
        Hull::new(0.95, 15_000.0).expect("valid defaults")
    }
}

impl Schedule for Hull {
    fn dequeue(&mut self, q: &mut PortQueues, ctx: &mut StageContext) -> Option<Vec<u8>> {
        let mut frame = (0..q.band_count()).find_map(|b| q.pop(b))?;
        let drained = (ctx.now_ns - self.last_ns).max(0.0) * ctx.link_gbps * self.drain_fraction / 8.0;
        self.phantom_bytes = (self.phantom_bytes - drained).max(0.0) + frame.len() as f64;
        self.last_ns = ctx.now_ns;
        if self.phantom_bytes > self.mark_bytes && mark_ce(&mut frame) {
            self.marked += 1;
        }
        Some(frame)
    }
}
