//! Board-level logic: what a board design puts around a whole NIC.

#[macro_use]
pub mod board_nic;
pub mod board_registers;
