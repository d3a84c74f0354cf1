//! Links: rate, propagation delay and optional seeded loss, timed exactly in ticks.

use nanotransport_hdl::clock::NicClock;
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
    /// Rate in bit/s (whole Mb/s).
    pub fn rate_bps(&self) -> u128 {
        self.rate_mbps() as u128 * 1_000_000
    }
    pub fn delay_ps(&self) -> u64 {
        (self.delay_ns * 1000.0).round() as u64
    }
}

fn gcd(a: u128, b: u128) -> u128 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

pub(crate) fn lcm(a: u64, b: u64) -> u64 {
    (a as u128 / gcd(a as u128, b as u128) * b as u128) as u64
}

const PS_PER_S: u128 = 1_000_000_000_000;

/// Ticks per cycle of `clock` a link needs so that every frame's serialisation time and its
/// propagation delay are whole numbers of ticks.
pub fn ticks_needed(spec: &LinkSpec, clock: NicClock) -> u64 {
    let rate = spec.rate_bps();
    let per_byte = 8 * clock.hz() as u128; // serialisation of one byte = per_byte / rate cycles
    let ser = rate / gcd(rate, per_byte);
    let delay_num = spec.delay_ps() as u128 * clock.hz() as u128; // delay = delay_num / 1e12 cycles
    let del = PS_PER_S / gcd(PS_PER_S, delay_num.max(1));
    lcm(ser as u64, if spec.delay_ps() == 0 { 1 } else { del as u64 })
}

/// A link's timing resolved in ticks, with its loss generator and transmit state.
#[derive(Clone, Debug)]
pub struct LinkTiming {
    pub spec: LinkSpec,
    ticks_per_cycle: u64,
    clock: NicClock,
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
    pub fn new(spec: LinkSpec, ticks_per_cycle: u64, clock: NicClock, seed: u64) -> Self {
        let delay_ticks = (spec.delay_ps() as u128 * clock.hz() as u128 * ticks_per_cycle as u128 / PS_PER_S) as u64;
        LinkTiming {
            spec,
            ticks_per_cycle,
            clock,
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
        (bytes as u128 * 8 * self.clock.hz() as u128 * self.ticks_per_cycle as u128 / self.spec.rate_bps()) as u64
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
