//! Blocks shared by every part of the NIC: bitmap operations and the ID free list.

pub mod bitmap_all_any;
pub mod find_first_set;
pub mod free_list;
pub mod key_hash;
pub mod one_hot;
pub mod ones_until;
pub mod popcount;
pub mod stream_fifo;
