//! Blocks shared by every part of the NIC: bitmap operations, the ID free list, stream stages,
//! the status counter.

pub mod bitmap_all_any;
pub mod bundles;
pub mod cmac_edge;
pub mod event_counter;
pub mod find_first_set;
pub mod frame_fifo;
pub mod free_list;
pub mod key_hash;
pub mod message_echo;
pub mod one_hot;
pub mod ones_until;
pub mod popcount;
pub mod sized_ram;
pub mod skid_buffer;
pub mod stream_downsizer;
pub mod stream_fifo;
pub mod stream_upsizer;
