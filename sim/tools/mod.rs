//! External tools on generated Verilog: Verilator lint and Yosys synthesis.

pub mod lint;
