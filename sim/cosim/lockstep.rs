//! Lockstep checker: the natively stepped rust-hdl block and the Verilator model of its generated
//! Verilog get the same stimulus, and every output is compared on every cycle.
//!
//! Per cycle: draw inputs → write them to both models → settle both (rust-hdl `simulate`,
//! Verilator `eval`) → **compare every output** (after inputs settle and before the clock edge,
//! so combinational input→output paths are checked too) → clock edge in both. The first
//! divergence is reported with its cycle, port and both values.

use crate::cosim::native::{NativeDut, NativeStepper};
use crate::cosim::stimulus::{draw, Stimulus};
use crate::cosim::verilated::{PortId, VerilatedModel};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rust_hdl::prelude::{Atom, Block, Probe};
use std::collections::HashMap;
use std::fmt;

/// Collects the widths of a block's own (top-level) signals.
#[derive(Default)]
struct TopWidths {
    depth: usize,
    widths: HashMap<String, usize>,
}

impl Probe for TopWidths {
    fn visit_start_scope(&mut self, _name: &str, _node: &dyn Block) {
        self.depth += 1;
    }
    fn visit_atom(&mut self, name: &str, signal: &dyn Atom) {
        if self.depth == 1 {
            self.widths.insert(name.to_string(), signal.bits());
        }
    }
    fn visit_end_scope(&mut self, _name: &str, _node: &dyn Block) {
        self.depth -= 1;
    }
}

/// The first cycle on which the two models disagree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Divergence {
    pub model: String,
    pub seed: u64,
    pub cycle: u64,
    pub port: String,
    pub native: Vec<u64>,
    pub verilator: Vec<u64>,
}

impl fmt::Display for Divergence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: lockstep divergence at cycle {} on port '{}': rust-hdl {} vs Verilator {} (seed {})",
            self.model,
            self.cycle,
            self.port,
            hex(&self.native),
            hex(&self.verilator),
            self.seed
        )
    }
}

fn hex(words: &[u64]) -> String {
    let mut s = String::from("0x");
    for w in words.iter().rev() {
        s.push_str(&format!("{w:016x}"));
    }
    s
}

/// What a clean lockstep run checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LockstepReport {
    pub model: String,
    pub seed: u64,
    pub cycles: u64,
    /// Output comparisons made (outputs × cycles).
    pub comparisons: u64,
}

/// Why a lockstep run could not start or did not agree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LockstepError {
    /// The two models do not have the same ports (or the stimulus names a missing port).
    Setup(String),
    Diverged(Divergence),
}

impl fmt::Display for LockstepError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LockstepError::Setup(s) => write!(f, "{s}"),
            LockstepError::Diverged(d) => write!(f, "{d}"),
        }
    }
}

struct Pairing {
    inputs: Vec<(usize, PortId, usize)>,
    outputs: Vec<(usize, PortId, &'static str)>,
}

fn pair_ports<D: NativeDut>(native: &D, model: &VerilatedModel) -> Result<Pairing, String> {
    let spec = model.spec();
    let mut probe = TopWidths::default();
    native.accept("dut", &mut probe);
    for name in D::INPUTS.iter().chain(D::OUTPUTS) {
        let native_width = probe.widths.get(*name).copied();
        let verilog_width = model.port(name).map(|p| spec.ports[p.0].width);
        if let (Some(a), Some(b)) = (native_width, verilog_width) {
            if a != b {
                return Err(format!("{}: port '{name}' is {a} bits in rust-hdl but {b} bits in Verilog", spec.name));
            }
        }
    }
    let mut inputs = Vec::new();
    let mut outputs = Vec::new();
    for (i, name) in D::INPUTS.iter().enumerate() {
        let p = model.port(name).ok_or_else(|| format!("{}: Verilog has no input '{name}'", spec.name))?;
        inputs.push((i, p, spec.ports[p.0].width));
    }
    for (i, name) in D::OUTPUTS.iter().enumerate() {
        let p = model.port(name).ok_or_else(|| format!("{}: Verilog has no output '{name}'", spec.name))?;
        outputs.push((i, p, spec.ports[p.0].name));
    }
    for p in spec.ports {
        let known = if p.input {
            p.name == "clock" && D::CLOCKED || D::INPUTS.contains(&p.name)
        } else {
            D::OUTPUTS.contains(&p.name)
        };
        if !known {
            return Err(format!("{}: Verilog port '{}' is not driven/compared by the native model", spec.name, p.name));
        }
    }
    Ok(Pairing { inputs, outputs })
}

/// Runs `cycles` cycles of random stimulus through both models.
pub fn run_lockstep<D: NativeDut>(
    model_name: &str,
    stimulus: &Stimulus,
    cycles: u64,
    seed: u64,
) -> Result<LockstepReport, LockstepError> {
    run_lockstep_with(NativeStepper::<D>::default(), model_name, stimulus, cycles, seed)
}

/// As [`run_lockstep`], starting from a given native block.
pub fn run_lockstep_with<D: NativeDut>(
    mut native: NativeStepper<D>,
    model_name: &str,
    stimulus: &Stimulus,
    cycles: u64,
    seed: u64,
) -> Result<LockstepReport, LockstepError> {
    let mut verilated = VerilatedModel::new(model_name).map_err(LockstepError::Setup)?;
    let pairing = pair_ports::<D>(&native.dut, &verilated).map_err(LockstepError::Setup)?;
    for port in stimulus.ruled_ports() {
        if !D::INPUTS.contains(&port) {
            return Err(LockstepError::Setup(format!("{model_name}: stimulus drives unknown input '{port}'")));
        }
    }
    let rules: Vec<_> = D::INPUTS.iter().map(|n| stimulus.rule(n)).collect();
    if let Some(clock) = verilated.port("clock") {
        verilated.set(clock, 0);
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut comparisons = 0;
    for cycle in 0..cycles {
        for &(i, port, width) in &pairing.inputs {
            let value = draw(&rules[i], width, cycle, &mut rng);
            native.dut.set_input(i, &value);
            verilated.set_words(port, &value);
        }
        native.settle();
        verilated.eval();
        for &(i, port, name) in &pairing.outputs {
            let a = native.dut.get_output(i);
            let b = verilated.get_words(port);
            comparisons += 1;
            if a != b {
                return Err(LockstepError::Diverged(Divergence {
                    model: model_name.to_string(),
                    seed,
                    cycle,
                    port: name.to_string(),
                    native: a,
                    verilator: b,
                }));
            }
        }
        native.tick();
        verilated.tick();
    }
    Ok(LockstepReport { model: model_name.to_string(), seed, cycles, comparisons })
}
