//! External tools on generated Verilog: Verilator lint, Yosys synthesis (resources and logic
//! depth) and the out-of-context Vivado build folder.

pub mod fpga;
pub mod lint;
pub mod synth;
pub mod verdicts;
pub mod verilog_files;
pub mod xdc;
