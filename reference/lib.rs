//! Transaction-level reference models of the blocks, and the whole-NIC checker that judges a
//! run from its inputs and outputs alone.

pub mod free_list;
pub mod rx;
pub mod timer;
pub mod bolt;
pub mod packetization;
pub mod pisa;
pub mod csr;
pub mod scheduler;
pub mod messages;
pub mod nic_checker;
