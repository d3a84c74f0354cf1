//! OnesUntil(k): a mask with bits 0 … k−1 set — **exclusive** of k.
//!
//! Packetization uses it to limit sending to offsets below the credit (credit is exclusive,
//! the conventions in [`crate`]). Where an algorithm means "up to and including k", feed `k + 1`.
//!
//! # Ports
//! | port   | dir | width | meaning                                   |
//! |--------|-----|-------|-------------------------------------------|
//! | `k`    | in  | `KW`  | number of low bits to set; `k >= W` sets all |
//! | `mask` | out | `W`   | bits `0 … k−1` set, the rest clear          |
//!
//! # Latency and throughput
//! Combinational: latency 0 cycles, one mask per cycle. Bit `i` is the compare `k > i` with a
//! constant, a function of the `KW` bits of `k` alone, so each bit is its own small LUT function
//! (Yosys maps `OnesUntil<64, 7>` to one LUT level, as it did the shifter `~(all_ones << k)`
//! this form replaced).

use crate::{ports, Blank};
use rust_hdl::prelude::*;

/// OnesUntil over `W` bits with a `KW`-bit count (`2^KW > W` so that `k = W` is expressible).
#[ports(
    in k: Bits<KW>;
    out mask: Bits<W>;
)]
#[derive(LogicBlock, Blank)]
pub struct OnesUntil<const W: usize, const KW: usize> {}

impl<const W: usize, const KW: usize> Default for OnesUntil<W, KW> {
    fn default() -> Self {
        assert!((1usize << KW) > W, "count width {KW} cannot express k = {W}");
        Self::blank()
    }
}

impl<const W: usize, const KW: usize> Logic for OnesUntil<W, KW> {
    #[hdl_gen]
    fn update(&mut self) {
        self.mask.next = 0.into();
        for i in 0..W {
            if self.k.val() > i.to_bits() {
                self.mask.next = self.mask.val().replace_bit(i, true);
            }
        }
    }
}

/// Software definition of OnesUntil, the reference for tests.
pub fn ones_until_reference(k: usize, width: usize) -> u128 {
    let k = k.min(width);
    if k == 128 {
        u128::MAX
    } else {
        (1u128 << k) - 1
    }
}
