//! Fixed-function blocks of the nanoTransport NIC (thesis §3.2–3.3) and the NIC shell that
//! holds them around a protocol's program.

pub mod delivered_set;
pub mod get_rx_msg_info;
pub mod reassembly;
pub mod timer;
pub mod packetization;
pub mod tx_path;
pub mod arbiter;
pub mod packet_generator;
pub mod csr;
pub mod status_bank;
pub mod register_map;
pub mod empty_egress;
#[macro_use]
pub mod shell;
