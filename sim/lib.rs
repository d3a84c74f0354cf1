//! Everything that is not synthesisable: Verilator co-simulation, the lockstep checker and
//! transaction-level reference models.

pub mod cosim;
pub mod whole_nic;
pub mod bench;
pub mod nic;
pub mod scenarios;
pub mod replay;
pub mod fuzz;
pub mod registers;
