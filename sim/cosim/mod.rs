//! Co-simulation: Verilator models of the generated Verilog, and the lockstep checker that runs
//! them beside the natively stepped rust-hdl blocks.

pub mod fixtures;
pub mod lockstep;
pub mod native;
pub mod native_rx;
pub mod rx_harness;
pub mod stimulus;
pub mod verilated;
pub mod dynamic;
pub mod native_bolt;
pub mod bolt_ingress_dut;
pub mod tx;
pub mod native_pisa;
pub mod native_packet_generator;
pub mod native_nic;
pub mod native_csr;
pub mod native_sched;
