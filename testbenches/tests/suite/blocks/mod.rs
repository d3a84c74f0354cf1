//! Unit tests of the hardware blocks, on the natively stepped rust-hdl blocks: a module per block,
//! laid out as `hdl/`. They live here, not in the block files, so that `hdl/` holds only
//! synthesisable blocks and the crate is compiled once, not again with cfg(test).

mod configs;
mod generate;
mod common {
    mod bitmap_all_any;
    mod event_counter;
    mod find_first_set;
    mod free_list;
    mod key_hash;
    mod one_hot;
    mod ones_until;
    mod popcount;
    mod skid_buffer;
    mod stream_fifo;
}
mod nic {
    mod delivered_set;
    mod empty_egress;
    mod get_rx_msg_info;
    mod message_read_out;
    mod packet_generator;
    mod packet_read_out;
    mod packetization;
    mod reassembly;
    mod rx_buffer_classes;
    mod status_bank;
    mod timer;
}
mod switch {
    mod bolt_ingress;
    mod bolt_stream;
    mod pl2_reservation;
    mod supply_unit;
}
