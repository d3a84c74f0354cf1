//! Population count: the number of set bits in a bitmap (packets received / delivered).
//!
//! # Ports
//! | port     | dir | width | meaning                  |
//! |----------|-----|-------|--------------------------|
//! | `bitmap` | in  | `W`   | the bitmap (`W <= 64`)   |
//! | `count`  | out | `CW`  | number of set bits       |
//!
//! # Latency and throughput
//! Combinational: latency 0 cycles, one count per cycle. A six-level adder tree on bit fields
//! (pairs, nibbles, bytes, …) — the classic SWAR popcount — so the depth is log2(W) adders.

use crate::{locals, ports, Blank};
use rust_hdl::prelude::*;

/// Popcount of a `W`-bit bitmap (`W <= 64`) into a `CW`-bit count (`2^CW > W`).
#[ports(
    in bitmap: Bits<W>;
    out count: Bits<CW>;
)]
#[locals(
    sum_pairs, sum_nibbles, sum_bytes, sum_halfwords, sum_words, sum_dwords: Bits<W>;
)]
#[derive(LogicBlock, Blank)]
pub struct Popcount<const W: usize, const CW: usize> {
    mask_pairs: Constant<Bits<W>>,
    mask_nibbles: Constant<Bits<W>>,
    mask_bytes: Constant<Bits<W>>,
    mask_halfwords: Constant<Bits<W>>,
    mask_words: Constant<Bits<W>>,
    mask_dwords: Constant<Bits<W>>,
}

fn truncated<const W: usize>(pattern: u64) -> Constant<Bits<W>> {
    let value = if W >= 64 { pattern } else { pattern & ((1u64 << W) - 1) };
    Constant::new(value.into())
}

impl<const W: usize, const CW: usize> Default for Popcount<W, CW> {
    fn default() -> Self {
        assert!(W <= 64, "popcount is defined for bitmaps of at most 64 bits");
        assert!((1usize << CW) > W, "count width {CW} cannot express {W}");
        Self {
            mask_pairs: truncated::<W>(0x5555_5555_5555_5555),
            mask_nibbles: truncated::<W>(0x3333_3333_3333_3333),
            mask_bytes: truncated::<W>(0x0f0f_0f0f_0f0f_0f0f),
            mask_halfwords: truncated::<W>(0x00ff_00ff_00ff_00ff),
            mask_words: truncated::<W>(0x0000_ffff_0000_ffff),
            mask_dwords: truncated::<W>(0x0000_0000_ffff_ffff),
            ..Self::blank()
        }
    }
}

impl<const W: usize, const CW: usize> Logic for Popcount<W, CW> {
    #[hdl_gen]
    fn update(&mut self) {
        self.sum_pairs.next = (self.bitmap.val() & self.mask_pairs.val()) + ((self.bitmap.val() >> 1) & self.mask_pairs.val());
        self.sum_nibbles.next = (self.sum_pairs.val() & self.mask_nibbles.val()) + ((self.sum_pairs.val() >> 2) & self.mask_nibbles.val());
        self.sum_bytes.next = (self.sum_nibbles.val() & self.mask_bytes.val()) + ((self.sum_nibbles.val() >> 4) & self.mask_bytes.val());
        self.sum_halfwords.next =
            (self.sum_bytes.val() & self.mask_halfwords.val()) + ((self.sum_bytes.val() >> 8) & self.mask_halfwords.val());
        self.sum_words.next =
            (self.sum_halfwords.val() & self.mask_words.val()) + ((self.sum_halfwords.val() >> 16) & self.mask_words.val());
        self.sum_dwords.next = (self.sum_words.val() & self.mask_dwords.val()) + ((self.sum_words.val() >> 32) & self.mask_dwords.val());
        self.count.next = self.sum_dwords.val().get_bits::<CW>(0);
    }
}
