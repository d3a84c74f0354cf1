//! Everything that is not synthesisable: Verilator co-simulation, the lockstep checker and
//! transaction-level reference models.

pub mod bench;
pub mod cosim;
pub mod fuzz;
pub mod nic;
pub mod registers;
pub mod replay;
pub mod scenarios;
pub mod whole_nic;
