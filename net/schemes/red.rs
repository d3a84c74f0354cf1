//! Random Early Detection (Floyd and Jacobson, "Random Early Detection Gateways for Congestion
//! Avoidance", 1993, Fig. 2), count-based, in packet mode, with the idle-time correction:
//!
//! ```text
//! on every arrival:
//!   if the queue is empty: m = idle time / s;  avg = (1 − w)^m · avg
//!   else:                  avg = (1 − w) · avg + w · q
//!   if min ≤ avg < max:    count += 1;  pb = max_p (avg − min) / (max − min)
//!                          pa = pb / (1 − count · pb);  with probability pa: mark, count = 0
//!   else if avg ≥ max:     mark, count = 0
//!   else:                  count = −1
//! ```
//! `q` is the port's queue in packets and `s` a typical packet's transmission time (a 1 500-byte
//! frame at the port's link rate). "Mark" drops the frame, or with `ecn` ECN-marks it when it is
//! ECN-capable (a frame that is not is dropped). The buffer itself drops at `capacity`.
//!
//! The queue manager sees arrivals only, so the idle time is estimated: the queue became empty
//! when the bytes it held after the last arrival had drained at the link rate.

use super::mark_ce;
use crate::switch::{PortQueues, QueueManager, StageContext, Verdict};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// RED's parameters and one port's state (defaults: Flexplane's §4.1 — min 150, max 300
/// packets, max_p 0.1, w = 2⁻⁵, drop mode, capacity 1 024).
#[derive(Clone, Debug)]
pub struct Red {
    pub min_packets: f64,
    pub max_packets: f64,
    pub max_p: f64,
    pub weight: f64,
    pub ecn: bool,
    pub capacity: usize,
    /// Seed of the marking decisions (mixed with the port's index).
    pub seed: u64,
    avg: f64,
    count: i64,
    /// When the queue was last seen non-empty, and when it drains empty after it (ns).
    empty_at_ns: f64,
    rng: Option<ChaCha8Rng>,
    pub marked: u64,
    pub early_drops: u64,
}

impl Red {
    /// RED with these thresholds (in packets), maximum probability and weight.
    pub fn new(min_packets: f64, max_packets: f64, max_p: f64, weight: f64, ecn: bool, capacity: usize, seed: u64) -> Result<Self, String> {
        if !(min_packets >= 0.0 && min_packets < max_packets) {
            return Err(format!("RED min {min_packets} and max {max_packets}: valid 0 ≤ min < max"));
        }
        if !(max_p > 0.0 && max_p <= 1.0) {
            return Err(format!("RED max_p {max_p}: valid (0, 1]"));
        }
        if !(weight > 0.0 && weight <= 1.0) {
            return Err(format!("RED weight {weight}: valid (0, 1]"));
        }
        if capacity == 0 {
            return Err("RED capacity 0: valid 1 packet or more".to_string());
        }
        Ok(Red {
            min_packets,
            max_packets,
            max_p,
            weight,
            ecn,
            capacity,
            seed,
            avg: 0.0,
            count: -1,
            empty_at_ns: 0.0,
            rng: None,
            marked: 0,
            early_drops: 0,
        })
    }

    /// The average queue (packets).
    pub fn average(&self) -> f64 {
        self.avg
    }

    /// Whether RED marks the arriving frame (Floyd and Jacobson's Fig. 2).
    fn decide(&mut self, q: &PortQueues, ctx: &StageContext) -> bool {
        let held = q.packets() as f64;
        if held == 0.0 {
            let s_ns = 1500.0 * 8.0 / ctx.link_gbps.max(1e-9);
            let m = ((ctx.now_ns - self.empty_at_ns) / s_ns).max(0.0);
            self.avg *= (1.0 - self.weight).powf(m);
        } else {
            self.avg = (1.0 - self.weight) * self.avg + self.weight * held;
        }
        let seed = self.seed;
        let rng =
            self.rng.get_or_insert_with(|| ChaCha8Rng::seed_from_u64(seed ^ (ctx.egress_port as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)));
        if self.avg >= self.min_packets && self.avg < self.max_packets {
            self.count += 1;
            let pb = self.max_p * (self.avg - self.min_packets) / (self.max_packets - self.min_packets);
            let pa = if self.count as f64 * pb >= 1.0 { 1.0 } else { pb / (1.0 - self.count as f64 * pb) };
            if rng.gen_bool(pa.clamp(0.0, 1.0)) {
                self.count = 0;
                return true;
            }
            false
        } else if self.avg >= self.max_packets {
            self.count = 0;
            true
        } else {
            self.count = -1;
            false
        }
    }
}

impl Default for Red {
    fn default() -> Self {
        Red::new(150.0, 300.0, 0.1, 1.0 / 32.0, false, 1024, 1).expect("valid defaults")
    }
}

impl QueueManager for Red {
    fn enqueue(&mut self, q: &mut PortQueues, band: usize, mut frame: Vec<u8>, ctx: &mut StageContext) -> Verdict {
        let mark = self.decide(q, ctx);
        let verdict = if q.packets() >= self.capacity {
            Verdict::Dropped
        } else if mark && self.ecn && mark_ce(&mut frame) {
            self.marked += 1;
            Verdict::Enqueued
        } else if mark {
            self.early_drops += 1;
            Verdict::Dropped
        } else {
            Verdict::Enqueued
        };
        if verdict == Verdict::Enqueued {
            q.push(band, frame);
        }
        // The queue drains empty once the bytes it holds now have left at the link rate.
        self.empty_at_ns = ctx.now_ns + q.bytes() as f64 * 8.0 / ctx.link_gbps.max(1e-9);
        verdict
    }
}
