//! Fixed-function blocks of the nanoTransport NIC (thesis §3.2–3.3).

pub mod get_rx_msg_info;
pub mod reassembly;
pub mod timer;
pub mod packetization;
pub mod tx_path;
pub mod arbiter;
pub mod packet_generator;
pub mod csr;
pub mod top;
pub mod top_homa;
pub mod top_ndp_128;
pub mod top_homa_128;
