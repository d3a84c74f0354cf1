//! Deficit round robin (Shreedhar and Varghese, SIGCOMM 1995) over a port's bands, with a weight
//! per band (weighted DRR: a band's quantum is `quantum × weight`), and the per-source queues
//! that make it per-source fair queueing (Flexplane §4.2: one queue per source at each port, a
//! 32-packet buffer per queue, quantum one MTU).

use crate::switch::{src_ip, PortQueues, QueueManager, Schedule, StageContext, Verdict};
use std::collections::HashMap;

/// Deficit round robin over the bands.
#[derive(Clone, Debug)]
pub struct Drr {
    /// Bytes a band may send per round at weight 1.
    pub quantum: usize,
    /// Weight of each band (a band beyond the list has weight 1).
    pub weights: Vec<u32>,
    deficits: Vec<usize>,
    /// The band being served, and whether it has had its quantum this round.
    current: usize,
    credited: bool,
}

impl Drr {
    /// DRR with `quantum` bytes per round and these band weights (all ≥ 1).
    pub fn new(quantum: usize, weights: Vec<u32>) -> Result<Self, String> {
        if quantum == 0 {
            return Err("DRR quantum 0: valid 1 byte or more (one MTU, 1500, is usual)".to_string());
        }
        if let Some(b) = weights.iter().position(|w| *w == 0) {
            return Err(format!("DRR weight of band {b} is 0: valid 1 or more"));
        }
        Ok(Drr { quantum, weights, deficits: Vec::new(), current: 0, credited: false })
    }

    fn weight(&self, band: usize) -> usize {
        self.weights.get(band).copied().unwrap_or(1) as usize
    }
}

impl Default for Drr {
    fn default() -> Self {
        Drr::new(1500, Vec::new()).expect("valid defaults")
    }
}

impl Schedule for Drr {
    fn dequeue(&mut self, q: &mut PortQueues, _ctx: &mut StageContext) -> Option<Vec<u8>> {
        if q.packets() == 0 {
            return None;
        }
        let bands = q.band_count();
        self.deficits.resize(bands, 0);
        loop {
            let b = self.current;
            match q.front(b).map(|f| f.len()) {
                None => {
                    // An empty band keeps no deficit.
                    self.deficits[b] = 0;
                }
                Some(len) => {
                    if !self.credited {
                        self.deficits[b] += self.quantum * self.weight(b);
                        self.credited = true;
                    }
                    if len <= self.deficits[b] {
                        self.deficits[b] -= len;
                        return q.pop(b);
                    }
                }
            }
            self.current = (b + 1) % bands;
            self.credited = false;
        }
    }
}

/// One queue (band) per source IPv4 address, each with its own buffer: a source is given the
/// next band the first time it is seen (sources beyond the port's bands share, round robin).
#[derive(Clone, Debug)]
pub struct PerSourceQueues {
    pub per_queue_packets: usize,
    bands_of: HashMap<u32, usize>,
}

impl PerSourceQueues {
    pub fn new(per_queue_packets: usize) -> Result<Self, String> {
        if per_queue_packets == 0 {
            return Err("per-source queue of 0 packets: valid 1 or more".to_string());
        }
        Ok(PerSourceQueues { per_queue_packets, bands_of: HashMap::new() })
    }
}

impl Default for PerSourceQueues {
    fn default() -> Self {
        PerSourceQueues::new(32).expect("valid defaults")
    }
}

impl QueueManager for PerSourceQueues {
    fn enqueue(&mut self, q: &mut PortQueues, _band: usize, frame: Vec<u8>, _ctx: &mut StageContext) -> Verdict {
        let src = src_ip(&frame);
        let next = self.bands_of.len() % q.band_count();
        let band = *self.bands_of.entry(src).or_insert(next);
        if q.band_len(band) >= self.per_queue_packets {
            return Verdict::Dropped;
        }
        q.push(band, frame);
        Verdict::Enqueued
    }
}
