//! Unit tests of the hardware blocks, on the natively stepped rust-hdl blocks: a module per block,
//! laid out as `hdl/`. They live here, not in the block files, so that `hdl/` holds only
//! synthesisable blocks and the crate is compiled once, not again with cfg(test).

/// One clock cycle of a natively stepped block that reads a synchronous payload memory
/// (`payload_address` out, `payload_data` in): drives `$word`, the memory's answer to the
/// previous cycle's address, and evaluates to this cycle's address.
macro_rules! payload_memory_cycle {
    ($uut:expr, $word:expr) => {{
        let u = $uut;
        u.payload_data.next = $word.into();
        assert!(simulate(u, 100));
        let address = u.payload_address.val().to_u64();
        u.clock.next = Clock { clk: true };
        assert!(simulate(u, 100));
        u.clock.next = Clock { clk: false };
        assert!(simulate(u, 100));
        address
    }};
}

mod board {
    mod board_registers;
}
mod configs;
mod generate;
mod common {
    mod bitmap_all_any;
    mod cmac_edge;
    mod event_counter;
    mod find_first_set;
    mod frame_fifo;
    mod free_list;
    mod key_hash;
    mod message_echo;
    mod one_hot;
    mod ones_until;
    mod popcount;
    mod sized_ram;
    mod skid_buffer;
    mod stream_downsizer;
    mod stream_fifo;
    mod stream_upsizer;
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
    mod slot_update;
    mod status_bank;
    mod timer;
}
mod pisa {
    mod frame_length_check;
    mod waiting_queue;
}
mod switch {
    mod bolt_ingress;
    mod bolt_stream;
    mod pl2_reservation;
    mod supply_unit;
}
