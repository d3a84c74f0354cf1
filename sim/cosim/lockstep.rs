//! Lockstep under random stimulus: the natively stepped rust-hdl block and the Verilator model of
//! its generated Verilog ([`Lockstep`]) get the same random inputs, and every output is compared
//! on every cycle.
//!
//! Per cycle: draw inputs → write them to both models → settle both (rust-hdl `simulate`,
//! Verilator `eval`) → **compare every output** (after inputs settle and before the clock edge,
//! so combinational input→output paths are checked too) → clock edge in both. The first
//! divergence is reported with its cycle, port and both values.

use crate::cosim::native::{NativeDut, NativeStepper};
pub use crate::cosim::ports::Divergence;
use crate::cosim::ports::{Lockstep, Ports};
use crate::cosim::stimulus::{draw, Stimulus};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::fmt;

/// What a clean lockstep run checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LockstepReport {
    pub model: String,
    pub seed: u64,
    pub cycles: u64,
    /// Output comparisons made (outputs × cycles).
    pub comparisons: u64,
}

impl fmt::Display for LockstepReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {} cycles, {} output comparisons, no divergence (seed {})", self.model, self.cycles, self.comparisons, self.seed)
    }
}

/// A lockstep run that must agree: prints its report and returns it; panics with the divergence
/// (or the setup error) otherwise.
pub fn expect_agreement<E: fmt::Display>(run: Result<LockstepReport, E>) -> LockstepReport {
    match run {
        Ok(r) => {
            println!("{r}");
            r
        }
        Err(e) => panic!("{e}"),
    }
}

/// Why a lockstep run could not start or did not agree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LockstepError {
    /// The two models do not have the same ports (or the stimulus names a missing port).
    Setup(String),
    /// The models disagreed under the run's seed.
    Diverged(Divergence, u64),
}

impl fmt::Display for LockstepError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LockstepError::Setup(s) => write!(f, "{s}"),
            LockstepError::Diverged(d, seed) => write!(f, "{d} (seed {seed})"),
        }
    }
}

/// Runs `cycles` cycles of random stimulus through both models.
pub fn run_lockstep<D: NativeDut>(model_name: &str, stimulus: &Stimulus, cycles: u64, seed: u64) -> Result<LockstepReport, LockstepError> {
    run_lockstep_with(NativeStepper::<D>::default(), model_name, stimulus, cycles, seed)
}

/// As [`run_lockstep`], starting from a given native block.
pub fn run_lockstep_with<D: NativeDut>(
    native: NativeStepper<D>,
    model_name: &str,
    stimulus: &Stimulus,
    cycles: u64,
    seed: u64,
) -> Result<LockstepReport, LockstepError> {
    let mut pair = Lockstep::with_stepper(native, model_name).map_err(LockstepError::Setup)?;
    for port in stimulus.ruled_ports() {
        if !D::INPUTS.contains(&port) {
            return Err(LockstepError::Setup(format!("{model_name}: stimulus drives unknown input '{port}'")));
        }
    }
    let inputs: Vec<_> = D::INPUTS
        .iter()
        .map(|n| {
            let p = pair.port_named(n);
            (p, pair.verilated.spec().ports[p.0].width, stimulus.rule(n))
        })
        .collect();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for cycle in 0..cycles {
        for (port, width, rule) in &inputs {
            let value = draw(rule, *width, cycle, &mut rng);
            pair.set_words(*port, &value);
        }
        pair.compare().map_err(|d| LockstepError::Diverged(d, seed))?;
        pair.tick();
    }
    Ok(LockstepReport { model: model_name.to_string(), seed, cycles, comparisons: pair.comparisons })
}
