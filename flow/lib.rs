//! External tools on generated Verilog: Verilator lint, Yosys synthesis (resources and logic
//! depth), and the Vivado build folders (out of context, and a board design).

pub mod board;
pub mod fpga;
pub mod lint;
pub mod memory;
pub mod synth;
pub mod verdicts;
pub mod verilog_files;
pub mod xdc;
