//! Verilator models of the generated Verilog, by module name: built on first use from Yosys'
//! netlist of the file ([`build`]), cached in `target/verilator-models/` and loaded as shared
//! libraries ([`cache`]), driven through a safe wrapper ([`verilated`]).
//!
//! This crate depends on no hardware description, so its small `nanotransport-models` command
//! builds in seconds and can build every model while the rest of the workspace compiles.

pub mod build;
pub mod cache;
pub mod spec;
pub mod verilated;
