//! PISA pipeline primitives shared by every protocol (thesis §3.2.1–3.2.2): parser, deparser,
//! stateful register externs and a match-action stage.

pub mod deparser;
pub mod dual_port_memory;
pub mod frame_length_check;
pub mod header_builder;
pub mod header_fields;
pub mod ingress_front;
pub mod match_action;
pub mod parser;
pub mod priority_scheduler;
pub mod register_extern;
pub mod waiting_queue;
pub mod wide_deparser;
pub mod wide_parser;
pub mod wire;
