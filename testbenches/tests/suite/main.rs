//! Every integration test of the blocks, the whole NICs and the network, in one binary (one link
//! instead of one per file): a module per block or subject, named as its file.

mod arbiter;
mod blocks;
mod bolt_ingress;
mod bolt_stream;
mod cosim;
mod csr;
mod drift;
mod dual_port_memory;
mod formal;
mod four_state;
mod free_list;
mod fuzz;
mod get_rx_msg_info;
mod homa_nic;
mod incast_orderings;
mod ingress_front;
mod lint;
mod lockstep;
mod ndp_nic;
mod net_core;
mod packet_generator;
mod param_sets;
mod pisa_deparser;
mod pisa_match_action;
mod pisa_parser;
mod pisa_register_extern;
mod priority_scheduler;
mod reassembly;
mod register_map;
mod replay;
mod rx_differential;
mod timer;
mod tx_path;
mod whole_nic;
mod wireshark;
