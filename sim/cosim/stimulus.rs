//! Random stimulus for lockstep runs: one rule per input port, drawn from a seeded generator.

use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// How one input port is driven each cycle.
#[derive(Clone, Debug)]
pub enum Drive {
    /// Every bit uniformly random.
    Uniform,
    /// 1 with probability p, else 0.
    Bernoulli(f64),
    /// Uniform in `lo..=hi`.
    Range(u64, u64),
    /// `start + step × cycle` (a time counter).
    Counter { start: u64, step: u64 },
    /// A constant.
    Const(u64),
    /// Up to `n` randomly placed set bits (sparse bitmaps: uniform words almost never are).
    Sparse(u32),
}

/// Per-port drive rules; ports without a rule are [`Drive::Uniform`].
#[derive(Clone, Debug, Default)]
pub struct Stimulus {
    rules: Vec<(String, Drive)>,
}

impl Stimulus {
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the rule for `port`.
    pub fn drive(mut self, port: &str, drive: Drive) -> Self {
        self.rules.retain(|(p, _)| p != port);
        self.rules.push((port.to_string(), drive));
        self
    }

    /// The rule for `port`.
    pub fn rule(&self, port: &str) -> Drive {
        self.rules.iter().find(|(p, _)| p == port).map(|(_, d)| d.clone()).unwrap_or(Drive::Uniform)
    }

    /// Ports that have an explicit rule.
    pub fn ruled_ports(&self) -> impl Iterator<Item = &str> {
        self.rules.iter().map(|(p, _)| p.as_str())
    }
}

/// Draws one value of `width` bits as little-endian words.
pub fn draw(drive: &Drive, width: usize, cycle: u64, rng: &mut ChaCha8Rng) -> Vec<u64> {
    let mut words = match drive {
        Drive::Uniform => (0..width.div_ceil(64)).map(|_| rng.gen::<u64>()).collect(),
        Drive::Bernoulli(p) => vec![rng.gen_bool(*p) as u64],
        Drive::Range(lo, hi) => vec![rng.gen_range(*lo..=*hi)],
        Drive::Counter { start, step } => vec![start.wrapping_add(step.wrapping_mul(cycle))],
        Drive::Const(v) => vec![*v],
        Drive::Sparse(n) => {
            let mut w = vec![0u64; width.div_ceil(64).max(1)];
            for _ in 0..rng.gen_range(0..=*n) {
                let bit = rng.gen_range(0..width.max(1));
                w[bit / 64] |= 1 << (bit % 64);
            }
            w
        }
    };
    words.resize(width.div_ceil(64).max(1), 0);
    if width % 64 != 0 {
        let last = width / 64;
        words[last] &= (1u64 << (width % 64)) - 1;
    }
    words
}
