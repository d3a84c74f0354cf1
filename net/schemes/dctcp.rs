//! DCTCP's switch (Alizadeh et al., SIGCOMM 2010, §3.1; Flexplane Fig. 3-1): an arriving frame
//! is ECN-marked when the port holds more than K packets, and dropped when it holds `capacity`.

use super::mark_ce;
use crate::switch::{PortQueues, QueueManager, StageContext, Verdict};

/// DCTCP marking (defaults: K = 65 packets, capacity 1 024, as Flexplane's §4.1).
#[derive(Clone, Copy, Debug)]
pub struct Dctcp {
    pub k_packets: usize,
    pub capacity: usize,
    /// Frames marked.
    pub marked: u64,
}

impl Dctcp {
    /// Marking above `k_packets`, dropping at `capacity`; K must be below the capacity.
    pub fn new(k_packets: usize, capacity: usize) -> Result<Self, String> {
        if capacity == 0 || k_packets >= capacity {
            return Err(format!("DCTCP K {k_packets} with capacity {capacity}: K must be below the capacity (valid 0..{capacity})"));
        }
        Ok(Dctcp { k_packets, capacity, marked: 0 })
    }
}

impl Default for Dctcp {
    fn default() -> Self {
        Dctcp { k_packets: 65, capacity: 1024, marked: 0 }
    }
}

impl QueueManager for Dctcp {
    fn enqueue(&mut self, q: &mut PortQueues, band: usize, mut frame: Vec<u8>, _ctx: &mut StageContext) -> Verdict {
        let held = q.packets();
        if held >= self.capacity {
            return Verdict::Dropped;
        }
        if held > self.k_packets && mark_ce(&mut frame) {
            self.marked += 1;
        }
        q.push(band, frame);
        Verdict::Enqueued
    }
}
