//! Port access of a device under test, by its Verilog port names: the Verilator model alone (long
//! runs), the natively stepped rust-hdl block alone (unit tests), or both in lockstep
//! ([`Lockstep`]: every output compared on every evaluation). Every driver — the whole-NIC
//! driver [`crate::nic::NicSim`], the AXI4-Lite master [`super::axil`], the block tests — works on
//! any of the three through [`Ports`].

use super::native::{NativeDut, NativeStepper};
use super::verilated::{PortGetter, PortId, VerilatedModel};
use rust_hdl::prelude::{Atom, Block, Probe};
use std::collections::HashMap;
use std::fmt;

/// A device's ports: found by name once, then read and written by [`PortId`] (or by name, for
/// tests that read better that way).
pub trait Ports {
    /// The port named `name`, if there is one.
    fn port(&self, name: &str) -> Option<PortId>;
    /// Writes an input (a wider port: its low 64 bits, the rest zero).
    fn set_port(&mut self, port: PortId, value: u64);
    /// Reads a port (a wider port: its low 64 bits).
    fn get_port(&mut self, port: PortId) -> u64;
    /// Settles combinational logic after inputs changed.
    fn eval(&mut self);
    /// One clock cycle.
    fn tick(&mut self);

    /// The port named `name`; panics naming it when there is none.
    fn port_named(&self, name: &str) -> PortId {
        self.port(name).unwrap_or_else(|| panic!("no port '{name}'"))
    }
    /// Writes the input named `name`.
    fn set(&mut self, name: &str, value: u64) {
        let p = self.port_named(name);
        self.set_port(p, value)
    }
    /// Reads the port named `name`.
    fn get(&mut self, name: &str) -> u64 {
        let p = self.port_named(name);
        self.get_port(p)
    }
    /// Writes an input of any width as little-endian 64-bit words (here: a port of at most 64
    /// bits; the models with wide ports override it).
    fn set_port_words(&mut self, port: PortId, words: &[u64]) {
        assert!(words.iter().skip(1).all(|w| *w == 0), "a value wider than 64 bits for a narrow port");
        self.set_port(port, words.first().copied().unwrap_or(0));
    }
    /// Reads a port of any width as little-endian 64-bit words (here: its low 64 bits).
    fn get_port_words(&mut self, port: PortId) -> Vec<u64> {
        vec![self.get_port(port)]
    }
    /// Writes the input named `name`, of any width.
    fn set_wide(&mut self, name: &str, words: &[u64]) {
        let p = self.port_named(name);
        self.set_port_words(p, words)
    }
    /// Reads the port named `name`, of any width.
    fn get_wide(&mut self, name: &str) -> Vec<u64> {
        let p = self.port_named(name);
        self.get_port_words(p)
    }
}

impl Ports for VerilatedModel {
    fn port(&self, name: &str) -> Option<PortId> {
        VerilatedModel::port(self, name)
    }
    fn set_port(&mut self, port: PortId, value: u64) {
        VerilatedModel::set(self, port, value)
    }
    fn get_port(&mut self, port: PortId) -> u64 {
        match self.spec().ports[port.0].get {
            PortGetter::Narrow(_) => VerilatedModel::get(self, port),
            PortGetter::Wide(_) => self.get_words(port)[0],
        }
    }
    fn eval(&mut self) {
        VerilatedModel::eval(self)
    }
    fn tick(&mut self) {
        VerilatedModel::tick(self)
    }
    fn set_port_words(&mut self, port: PortId, words: &[u64]) {
        VerilatedModel::set_words(self, port, words)
    }
    fn get_port_words(&mut self, port: PortId) -> Vec<u64> {
        VerilatedModel::get_words(self, port)
    }
}

/// A native block's ports are numbered inputs first, then outputs, each in its
/// [`NativeDut`] order.
impl<D: NativeDut> Ports for NativeStepper<D> {
    fn port(&self, name: &str) -> Option<PortId> {
        D::INPUTS.iter().chain(D::OUTPUTS).position(|p| *p == name).map(PortId)
    }
    fn set_port(&mut self, port: PortId, value: u64) {
        assert!(port.0 < D::INPUTS.len(), "port {} is an output", D::OUTPUTS[port.0 - D::INPUTS.len()]);
        self.dut.set_input(port.0, &[value]);
    }
    fn get_port(&mut self, port: PortId) -> u64 {
        assert!(port.0 >= D::INPUTS.len(), "port {} is an input", D::INPUTS[port.0]);
        self.dut.get_output(port.0 - D::INPUTS.len())[0]
    }
    fn eval(&mut self) {
        self.settle()
    }
    fn tick(&mut self) {
        NativeStepper::tick(self)
    }
    fn set_port_words(&mut self, port: PortId, words: &[u64]) {
        assert!(port.0 < D::INPUTS.len(), "port {} is an output", D::OUTPUTS[port.0 - D::INPUTS.len()]);
        self.dut.set_input(port.0, words);
    }
    fn get_port_words(&mut self, port: PortId) -> Vec<u64> {
        assert!(port.0 >= D::INPUTS.len(), "port {} is an input", D::INPUTS[port.0]);
        self.dut.get_output(port.0 - D::INPUTS.len())
    }
}

/// The first output on which the two models of a [`Lockstep`] pair disagree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Divergence {
    pub model: String,
    pub cycle: u64,
    pub port: String,
    pub native: Vec<u64>,
    pub verilator: Vec<u64>,
}

impl fmt::Display for Divergence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: lockstep divergence at cycle {} on port '{}': rust-hdl {} vs Verilator {}",
            self.model,
            self.cycle,
            self.port,
            hex(&self.native),
            hex(&self.verilator)
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

/// The rust-hdl block and the Verilator model of its generated Verilog side by side: every input
/// goes to both, every output is compared on every [`Ports::eval`] (after inputs settle and before
/// the clock edge, so combinational paths are checked too) and on every read. A divergence panics
/// with its cycle, port and both values; [`Lockstep::compare`] returns it instead.
pub struct Lockstep<D: NativeDut> {
    pub native: NativeStepper<D>,
    pub verilated: VerilatedModel,
    /// Per Verilator port: its index among the native block's inputs, or outputs.
    native_input: Vec<Option<usize>>,
    native_output: Vec<Option<usize>>,
    /// Verilator ports of the native outputs, in native order.
    outputs: Vec<PortId>,
    /// Clock edges so far.
    pub cycle: u64,
    /// Output comparisons made.
    pub comparisons: u64,
}

impl<D: NativeDut> Lockstep<D> {
    /// The default native block beside the Verilator model `module`.
    pub fn new(module: &str) -> Result<Self, String> {
        Self::with_native(D::default(), module)
    }

    /// A native block built by the caller (another program option, a parameter set) beside the
    /// Verilator model `module`. Both must have the same ports with the same widths (the clock
    /// aside).
    pub fn with_native(native: D, module: &str) -> Result<Self, String> {
        Self::with_stepper(NativeStepper::new(native), module)
    }

    /// As [`Self::with_native`], with a native block already being stepped.
    pub fn with_stepper(native: NativeStepper<D>, module: &str) -> Result<Self, String> {
        let mut verilated = VerilatedModel::new(module)?;
        let spec = verilated.spec();
        let mut widths = TopWidths::default();
        native.dut.accept("dut", &mut widths);
        for name in D::INPUTS.iter().chain(D::OUTPUTS) {
            let p = verilated.port(name).ok_or_else(|| format!("{module}: Verilog has no port '{name}'"))?;
            let (verilog, rust) = (spec.ports[p.0].width, widths.widths.get(*name).copied());
            if rust.is_some_and(|w| w != verilog) {
                return Err(format!("{module}: port '{name}' is {} bits in rust-hdl but {verilog} bits in Verilog", rust.unwrap()));
            }
        }
        let native_input: Vec<Option<usize>> = spec.ports.iter().map(|p| D::INPUTS.iter().position(|i| *i == p.name)).collect();
        let native_output: Vec<Option<usize>> = spec.ports.iter().map(|p| D::OUTPUTS.iter().position(|o| *o == p.name)).collect();
        for (p, (i, o)) in spec.ports.iter().zip(native_input.iter().zip(&native_output)) {
            let known = match (i, o) {
                (Some(_), _) => p.input,
                (_, Some(_)) => !p.input,
                _ => p.input && p.name == "clock" && D::CLOCKED,
            };
            if !known {
                return Err(format!("{module}: Verilog port '{}' is not driven/compared by the native model", p.name));
            }
        }
        let outputs = D::OUTPUTS.iter().map(|o| verilated.port(o).unwrap()).collect();
        if let Some(clock) = verilated.port("clock") {
            verilated.set(clock, 0);
        }
        Ok(Lockstep { native, verilated, native_input, native_output, outputs, cycle: 0, comparisons: 0 })
    }

    /// Writes an input of any width to both models, as little-endian 64-bit words.
    pub fn set_words(&mut self, port: PortId, words: &[u64]) {
        if let Some(i) = self.native_input[port.0] {
            self.native.dut.set_input(i, words);
        }
        self.verilated.set_words(port, words);
    }

    /// Settles both models and compares every output.
    pub fn compare(&mut self) -> Result<(), Divergence> {
        self.native.settle();
        self.verilated.eval();
        for (k, &port) in self.outputs.iter().enumerate() {
            let (a, b) = (self.native.dut.get_output(k), self.verilated.get_words(port));
            self.comparisons += 1;
            if a != b {
                return Err(Divergence {
                    model: self.verilated.spec().name.to_string(),
                    cycle: self.cycle,
                    port: D::OUTPUTS[k].to_string(),
                    native: a,
                    verilator: b,
                });
            }
        }
        Ok(())
    }
}

impl<D: NativeDut> Ports for Lockstep<D> {
    fn port(&self, name: &str) -> Option<PortId> {
        self.verilated.port(name)
    }
    fn set_port(&mut self, port: PortId, value: u64) {
        Lockstep::set_words(self, port, &[value]);
    }
    fn get_port(&mut self, port: PortId) -> u64 {
        self.get_port_words(port)[0]
    }
    fn set_port_words(&mut self, port: PortId, words: &[u64]) {
        Lockstep::set_words(self, port, words);
    }
    fn get_port_words(&mut self, port: PortId) -> Vec<u64> {
        let b = self.verilated.get_words(port);
        if let Some(o) = self.native_output[port.0] {
            let a = self.native.dut.get_output(o);
            if a != b {
                let d = Divergence {
                    model: self.verilated.spec().name.to_string(),
                    cycle: self.cycle,
                    port: D::OUTPUTS[o].to_string(),
                    native: a,
                    verilator: b,
                };
                panic!("{d}");
            }
            self.comparisons += 1;
        }
        b
    }
    fn eval(&mut self) {
        if let Err(d) = self.compare() {
            panic!("{d}");
        }
    }
    fn tick(&mut self) {
        self.native.tick();
        self.verilated.tick();
        self.cycle += 1;
    }
}

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
