//! The two bucket hashes of a 64-bit message key `{tx_msg_id, src_port, src_ip}`, shared by
//! the GetRxMsgInfo table and the delivered-message set (two-way d-left tables of `2^B`
//! buckets per way).
//!
//! Each way is an H3 hash (Carter and Wegman's universal family of linear maps): bucket bit `j`
//! is the parity of the key under a fixed 64-bit mask, [`hash_mask`]`(way, j)`, the masks drawn
//! once from a fixed seed (splitmix64). For any two distinct keys the chance that they share a
//! bucket is `2^-B` per way, whatever structure the keys have: keys whose source port and
//! tx_msg_id rise together, or one sender's consecutive IDs, spread as evenly as random keys
//! (in a software model of the presets' delivered set, 100 000 keys of either kind with 30 948
//! alive found no bucket pair full; the fold of XORed 16-bit quarters used before would have
//! found 7 856 of 31 460 keys of the first kind in full bucket pairs). The masks do not depend on `B`: a table of `2^B` buckets uses the low
//! `B` bits of the 16-bit hash.
//!
//! # Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `key` | in | 64 | the key |
//! | `h0`, `h1` | out | `B` | bucket in way 0 and way 1 ([`hash0`], [`hash1`]) |
//!
//! # Latency and throughput
//! Combinational: 0 cycles, one key per cycle; each bucket bit is a parity of about 32 key bits
//! (two LUT6 levels).

use crate::{locals, ports, Blank};
use rust_hdl::prelude::*;

/// Widest bucket number (`3 ≤ B ≤ 16`).
pub const MAX_HASH_BITS: usize = 16;

fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The mask of bucket bit `bit` (0..16) in way `way` (0 or 1).
pub fn hash_mask(way: usize, bit: usize) -> u64 {
    let mut state = 0x6e61_6e6f;
    let mut m = 0;
    for _ in 0..=(way * MAX_HASH_BITS + bit) {
        m = splitmix64(&mut state);
    }
    m
}

fn hash(key: u64, way: usize, bits: usize) -> u64 {
    (0..bits).fold(0, |h, j| h | ((((key & hash_mask(way, j)).count_ones() & 1) as u64) << j))
}

/// Bucket of `key = {tx_msg_id, src_port, src_ip}` in way 0 of a table of `2^bits` buckets.
pub fn hash0(key: u64, bits: usize) -> u64 {
    hash(key, 0, bits)
}

/// Bucket of `key` in way 1.
pub fn hash1(key: u64, bits: usize) -> u64 {
    hash(key, 1, bits)
}

/// Both bucket hashes of a key for tables of `2^B` buckets per way.
#[ports(
    in key: Bits<64>;
    out h0, h1: Bits<B>;
)]
#[locals(
    acc0, acc1: Bits<B>;
)]
#[derive(LogicBlock, Blank)]
pub struct KeyHash<const B: usize> {
    masks0: [Constant<Bits<64>>; MAX_HASH_BITS],
    masks1: [Constant<Bits<64>>; MAX_HASH_BITS],
    /// `1 << j` for the bits of the hash, 0 beyond `B`.
    bit_of: [Constant<Bits<B>>; MAX_HASH_BITS],
}

impl<const B: usize> Default for KeyHash<B> {
    fn default() -> Self {
        assert!((3..=MAX_HASH_BITS).contains(&B), "bucket bits must be 3..={MAX_HASH_BITS}, not {B}");
        Self {
            masks0: std::array::from_fn(|j| Constant::new(hash_mask(0, j).to_bits())),
            masks1: std::array::from_fn(|j| Constant::new(hash_mask(1, j).to_bits())),
            bit_of: std::array::from_fn(|j| Constant::new(if j < B { (1u64 << j).to_bits() } else { 0u64.to_bits() })),
            ..Self::blank()
        }
    }
}

impl<const B: usize> Logic for KeyHash<B> {
    #[hdl_gen]
    fn update(&mut self) {
        self.acc0.next = 0.into();
        self.acc1.next = 0.into();
        for j in 0..16 {
            if (self.key.val() & self.masks0[j].val()).xor() {
                self.acc0.next = self.acc0.val() | self.bit_of[j].val();
            }
            if (self.key.val() & self.masks1[j].val()).xor() {
                self.acc1.next = self.acc1.val() | self.bit_of[j].val();
            }
        }
        self.h0.next = self.acc0.val();
        self.h1.next = self.acc1.val();
    }
}
