//! Links: rate, propagation delay and optional seeded loss, timed exactly in ticks.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// What a link is made of. Bytes counted are frame bytes only (no preamble, gap or FCS).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinkSpec {
    /// Rate in Gb/s (resolved to whole Mb/s).
    pub gbps: f64,
    /// Propagation delay in ns (resolved to whole ps).
    pub delay_ns: f64,
    /// Probability that a frame is lost (drawn from the link's own seeded generator).
    pub loss: f64,
}

impl LinkSpec {
    pub fn new(gbps: f64, delay_ns: f64) -> Self {
        LinkSpec { gbps, delay_ns, loss: 0.0 }
    }
    pub fn rate_mbps(&self) -> u64 {
        (self.gbps * 1000.0).round() as u64
    }
    pub fn delay_ps(&self) -> u64 {
        (self.delay_ns * 1000.0).round() as u64
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

pub(crate) fn lcm(a: u64, b: u64) -> u64 {
    a / gcd(a, b) * b
}

/// Ticks per cycle a link needs so that every frame's serialisation time and its propagation
/// delay are whole numbers of ticks.
pub fn ticks_needed(spec: &LinkSpec, clock_mhz: u64) -> u64 {
    let rate = spec.rate_mbps();
    let per_byte = 8 * clock_mhz; // serialisation of one byte = per_byte / rate cycles
    let ser = rate / gcd(rate, per_byte);
    let delay_num = spec.delay_ps() * clock_mhz; // delay = delay_num / 1e6 cycles
    let del = 1_000_000 / gcd(1_000_000, delay_num.max(1));
    lcm(ser, if spec.delay_ps() == 0 { 1 } else { del })
}

/// A link's timing resolved in ticks, with its loss generator and transmit state.
#[derive(Clone, Debug)]
pub struct LinkTiming {
    pub spec: LinkSpec,
    ticks_per_cycle: u64,
    clock_mhz: u64,
    /// Propagation delay in ticks.
    pub delay_ticks: u64,
    /// Tick at which the link has finished serialising everything given to it.
    pub free_at: u64,
    rng: ChaCha8Rng,
    /// Frames and bytes put on the link, frames lost on it.
    pub frames: u64,
    pub bytes: u64,
    pub lost: u64,
}

impl LinkTiming {
    pub fn new(spec: LinkSpec, ticks_per_cycle: u64, clock_mhz: u64, seed: u64) -> Self {
        let delay_ticks = spec.delay_ps() * clock_mhz * ticks_per_cycle / 1_000_000;
        LinkTiming {
            spec,
            ticks_per_cycle,
            clock_mhz,
            delay_ticks,
            free_at: 0,
            rng: ChaCha8Rng::seed_from_u64(seed),
            frames: 0,
            bytes: 0,
            lost: 0,
        }
    }

    /// Serialisation time of `bytes` frame bytes in ticks (exact).
    pub fn serialisation_ticks(&self, bytes: usize) -> u64 {
        bytes as u64 * 8 * self.clock_mhz * self.ticks_per_cycle / self.spec.rate_mbps()
    }

    /// Puts a frame of `bytes` on the link no earlier than `ready`: returns (start, tick its last
    /// byte arrives at the far end), or `None` if the frame is lost (it still occupies the link).
    pub fn transmit(&mut self, ready: u64, bytes: usize) -> (u64, Option<u64>) {
        let start = ready.max(self.free_at);
        let end = start + self.serialisation_ticks(bytes);
        self.free_at = end;
        self.frames += 1;
        self.bytes += bytes as u64;
        if self.spec.loss > 0.0 && self.rng.gen_bool(self.spec.loss) {
            self.lost += 1;
            return (start, None);
        }
        (start, Some(end + self.delay_ticks))
    }
}
