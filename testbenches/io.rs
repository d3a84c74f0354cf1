//! Port access by Verilog name for transaction-level test drivers: the Verilator model alone
//! (long runs), the natively stepped rust-hdl block alone (unit tests), or both in lockstep
//! (every output compared every cycle, on each `eval`).

use nanotransport_sim::cosim::native::{NativeDut, NativeStepper};
use nanotransport_sim::cosim::verilated::VerilatedModel;

pub trait Io {
    fn set(&mut self, port: &str, value: u64);
    fn get(&mut self, port: &str) -> u64;
    /// Settles combinational logic after inputs changed.
    fn eval(&mut self);
    /// One rising clock edge.
    fn tick(&mut self);
}

impl Io for VerilatedModel {
    fn set(&mut self, port: &str, value: u64) {
        let p = self.port_or_panic(port);
        self.set_words(p, &[value])
    }
    fn get(&mut self, port: &str) -> u64 {
        let p = self.port_or_panic(port);
        self.get_words(p)[0]
    }
    fn eval(&mut self) {
        VerilatedModel::eval(self)
    }
    fn tick(&mut self) {
        VerilatedModel::tick(self)
    }
}

fn input_index<D: NativeDut>(port: &str) -> usize {
    D::INPUTS.iter().position(|p| *p == port).unwrap_or_else(|| panic!("no input '{port}'"))
}

fn output_index<D: NativeDut>(port: &str) -> usize {
    D::OUTPUTS.iter().position(|p| *p == port).unwrap_or_else(|| panic!("no output '{port}'"))
}

impl<D: NativeDut> Io for NativeStepper<D> {
    fn set(&mut self, port: &str, value: u64) {
        self.dut.set_input(input_index::<D>(port), &[value]);
    }
    fn get(&mut self, port: &str) -> u64 {
        self.dut.get_output(output_index::<D>(port))[0]
    }
    fn eval(&mut self) {
        self.settle()
    }
    fn tick(&mut self) {
        NativeStepper::tick(self)
    }
}

/// rust-hdl and Verilator side by side.
pub struct Lockstep<D: NativeDut> {
    pub native: NativeStepper<D>,
    pub verilated: VerilatedModel,
    pub cycle: u64,
    pub comparisons: u64,
}

impl<D: NativeDut> Lockstep<D> {
    pub fn new(model: &str) -> Self {
        Self::with(NativeStepper::<D>::default(), model)
    }
    pub fn with(native: NativeStepper<D>, model: &str) -> Self {
        let mut verilated = VerilatedModel::new(model).unwrap();
        if let Some(clock) = verilated.port("clock") {
            verilated.set(clock, 0);
        }
        Lockstep { native, verilated, cycle: 0, comparisons: 0 }
    }
}

impl<D: NativeDut> Io for Lockstep<D> {
    fn set(&mut self, port: &str, value: u64) {
        Io::set(&mut self.native, port, value);
        Io::set(&mut self.verilated, port, value);
    }
    fn get(&mut self, port: &str) -> u64 {
        let i = output_index::<D>(port);
        let a = self.native.dut.get_output(i);
        let p = self.verilated.port_or_panic(port);
        let b = self.verilated.get_words(p);
        assert_eq!(a, b, "lockstep divergence at cycle {} on {port}: rust-hdl {a:x?} vs Verilator {b:x?}", self.cycle);
        self.comparisons += 1;
        a[0]
    }
    fn eval(&mut self) {
        self.native.settle();
        Io::eval(&mut self.verilated);
        for port in D::OUTPUTS {
            self.get(port);
        }
    }
    fn tick(&mut self) {
        Io::tick(&mut self.native);
        Io::tick(&mut self.verilated);
        self.cycle += 1;
    }
}
