//! Co-simulation self-test fixtures: blocks that exist only to prove the lockstep checker works.
//!
//! `PrecedenceBug` writes `a & b == 0` inside `#[hdl_gen]`. Rust reads it as `(a & b) == 0`;
//! rust-hdl 0.46 emits it without parentheses, and Verilog reads `a & (b == 0)`. The lockstep
//! checker must report that divergence. `PrecedenceFixed` is the same expression parenthesised
//! by hand, as every block in hdl/ is written, and must agree.
//!
//! `WidePorts` has ports wider than 64 bits, so the shim's 32-bit word access and the lockstep
//! checker's multi-word comparison are exercised before any real block needs them.

use crate::native_dut;
use nanotransport_hdl::generate::{verilog_of, GeneratedModule};
use rust_hdl::prelude::*;

/// `a & b == 0`, unparenthesised: rust-hdl and its Verilog disagree.
#[derive(LogicBlock, Default)]
pub struct PrecedenceBug {
    pub a: Signal<In, Bits<8>>,
    pub b: Signal<In, Bits<8>>,
    pub no_common_bits: Signal<Out, Bit>,
}

impl Logic for PrecedenceBug {
    #[hdl_gen]
    #[allow(clippy::precedence)]
    fn update(&mut self) {
        self.no_common_bits.next = self.a.val() & self.b.val() == 0;
    }
}

/// `(a & b) == 0`: both models agree.
#[derive(LogicBlock, Default)]
pub struct PrecedenceFixed {
    pub a: Signal<In, Bits<8>>,
    pub b: Signal<In, Bits<8>>,
    pub no_common_bits: Signal<Out, Bit>,
}

impl Logic for PrecedenceFixed {
    #[hdl_gen]
    fn update(&mut self) {
        self.no_common_bits.next = (self.a.val() & self.b.val()) == 0;
    }
}

/// A registered 96-bit adder with a 70-bit operand: ports wider than 64 bits.
#[derive(LogicBlock, Default)]
pub struct WidePorts {
    pub clock: Signal<In, Clock>,
    pub a: Signal<In, Bits<96>>,
    pub b: Signal<In, Bits<70>>,
    pub sum: Signal<Out, Bits<96>>,
    pub high_bits: Signal<Out, Bits<40>>,
    sum_q: DFF<Bits<96>>,
}

impl Logic for WidePorts {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, sum_q);
        self.sum_q.d.next = self.a.val() + bit_cast::<96, 70>(self.b.val());
        self.sum.next = self.sum_q.q.val();
        self.high_bits.next = self.a.val().get_bits::<40>(56);
    }
}

native_dut!(WidePorts, clocked: true, inputs: [a, b], outputs: [sum, high_bits]);
native_dut!(PrecedenceBug, clocked: false, inputs: [a, b], outputs: [no_common_bits]);
native_dut!(PrecedenceFixed, clocked: false, inputs: [a, b], outputs: [no_common_bits]);

/// Module name of the unparenthesised fixture.
pub const PRECEDENCE_BUG: &str = "nt_fixture_precedence_bug";
/// Module name of the parenthesised fixture.
pub const PRECEDENCE_FIXED: &str = "nt_fixture_precedence_fixed";

/// Module name of the wide-port fixture.
pub const WIDE_PORTS: &str = "nt_fixture_wide_ports";

/// Folder of the fixtures' Verilog, relative to the repository root.
pub const FIXTURE_DIR: &str = "sim/cosim/fixtures";

/// Generates the fixtures' Verilog.
pub fn generate() -> Vec<GeneratedModule> {
    vec![
        GeneratedModule::new(PRECEDENCE_BUG, &verilog_of(&mut PrecedenceBug::default()), "co-simulation fixture"),
        GeneratedModule::new(PRECEDENCE_FIXED, &verilog_of(&mut PrecedenceFixed::default()), "co-simulation fixture"),
        GeneratedModule::new(WIDE_PORTS, &verilog_of(&mut WidePorts::default()), "co-simulation fixture"),
    ]
}
