//! Co-simulation: Verilator models of the generated Verilog (built and cached by
//! `nanotransport_models`, re-exported here), the natively stepped rust-hdl blocks, and the
//! harness that drives either or both: port access, the lockstep pair, the AXI4-Lite master.

pub use nanotransport_models::{build, cache, verilated};

pub mod axil;
pub mod bolt_ingress_dut;
pub mod fixtures;
pub mod lockstep;
pub mod native;
pub mod native_csr;
pub mod native_nic;
pub mod native_packet_generator;
pub mod native_pisa;
pub mod native_rx;
pub mod native_sched;
pub mod native_switch;
pub mod pl2_dut;
pub mod ports;
pub mod rx_harness;
pub mod stimulus;
pub mod tx;
