//! Transaction-level reference models of the blocks, and the whole-NIC checker that judges a
//! run from its inputs and outputs alone.

pub mod bolt;
pub mod csr;
pub mod frame_fifo;
pub mod free_list;
pub mod messages;
pub mod nic_checker;
pub mod packetization;
pub mod pisa;
pub mod pl2;
pub mod rx;
pub mod scheduler;
pub mod stream_width;
pub mod timer;
