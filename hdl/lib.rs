//! Synthesisable rust-hdl blocks of the nanoTransport NIC.
//!
//! Nothing in this crate is simulation code: every block here becomes Verilog through
//! [`generate`], and is checked cycle for cycle against that Verilog by the lockstep tests.
//!
//! rust-hdl 0.46 writes binary operators into Verilog without parentheses, so every binary
//! sub-expression inside `#[hdl_gen]` is parenthesised by hand.

pub mod common;
pub mod configs;
pub mod generate;
pub mod nic;
pub mod switch;
pub mod pisa;
pub mod protocols;
