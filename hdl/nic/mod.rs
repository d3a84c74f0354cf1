//! Fixed-function blocks of the nanoTransport NIC (thesis §3.2–3.3).

pub mod timer;
pub mod packet_generator;
