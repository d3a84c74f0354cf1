//! Drop-tail (Flexplane's DropTailQueueManager): a frame is queued in its band unless the
//! port's buffer, shared by every band, is full.

use crate::switch::{Limit, PortQueues, QueueManager, StageContext, Verdict};

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
