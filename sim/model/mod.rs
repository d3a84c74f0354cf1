//! Transaction-level reference models.

pub mod free_list;
pub mod rx;
pub mod timer;
pub mod bolt;
pub mod packetization;
pub mod pisa;
pub mod csr;
pub mod scheduler;
pub mod nic_checker;
