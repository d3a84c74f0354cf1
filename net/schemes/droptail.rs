//! Drop-tail (Flexplane's DropTailQueueManager): a frame is queued in its band unless the
//! port's buffer, shared by every band, is full.

use crate::switch::{Classify, Limit, PortQueues, QueueManager, StageContext, StrictPriority, Verdict};
use crate::topology::SwitchStages;

/// Drop-tail over a port's shared buffer (default 1 024 packets, as Flexplane's).
#[derive(Clone, Copy, Debug)]
pub struct DropTail {
    pub limit: Limit,
}

impl Default for DropTail {
    fn default() -> Self {
        DropTail { limit: Limit::Packets(1024) }
    }
}

impl QueueManager for DropTail {
    fn enqueue(&mut self, q: &mut PortQueues, band: usize, frame: Vec<u8>, _ctx: &mut StageContext) -> Verdict {
        if self.limit.full(q.packets(), q.bytes(), frame.len()) {
            return Verdict::Dropped;
        }
        q.push(band, frame);
        Verdict::Enqueued
    }
}

/// A port of two bands by `classify` (band 0 first: a switch block's control packets), one
/// drop-tail buffer of `buffer_bytes` shared by both, strict priority — the PL2 and Bolt
/// switches' ports (their ingress stage is added apart).
pub fn two_bands_drop_tail(classify: Box<dyn Classify>, buffer_bytes: usize) -> SwitchStages {
    (classify, Box::new(DropTail { limit: Limit::Bytes(buffer_bytes) }), Box::new(StrictPriority), 2)
}
