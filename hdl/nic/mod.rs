//! Fixed-function blocks of the nanoTransport NIC (thesis §3.2–3.3) and the NIC shell that
//! holds them around a protocol's program.

pub mod arbiter;
pub mod csr;
pub mod delivered_set;
pub mod empty_egress;
pub mod get_rx_msg_info;
pub mod message_read_out;
pub mod packet_choice;
pub mod packet_generator;
pub mod packet_read_out;
pub mod packetization;
pub mod reassembly;
pub mod register_map;
pub mod rx_buffer_classes;
pub mod slot_update;
pub mod status_bank;
pub mod timer;
pub mod tx_path;
#[macro_use]
pub mod shell;
