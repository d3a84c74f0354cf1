//! Find-first-set: the smallest index whose bit is set in a bitmap.
//!
//! Used by packetization (next packet to send), GetRxMsgInfo (ackNo = first zero of the
//! received bitmap, i.e. find-first-set of its complement) and the ID free list.
//!
//! # Ports
//! | port     | dir | width | meaning                                        |
//! |----------|-----|-------|------------------------------------------------|
//! | `bitmap` | in  | `W`   | the bitmap                                      |
//! | `found`  | out | 1     | at least one bit is set                          |
//! | `index`  | out | `IW`  | smallest set index; 0 when `found` is low        |
//! | `onehot` | out | `W`   | only the smallest set bit (all zero when `found` is low) |
//!
//! # Latency and throughput
//! Combinational: latency 0 cycles, one lookup per cycle. The lowest set bit is isolated as
//! `bitmap & (~bitmap + 1)` (a carry chain) and the one-hot result is encoded by one OR tree per
//! index bit, so the depth grows with log2(W) plus the carry chain, not with W comparisons in
//! series.

use crate::{locals, ports, Blank};
use rust_hdl::prelude::*;

/// Find-first-set over a `W`-bit bitmap producing an `IW`-bit index (`2^IW >= W`).
#[ports(
    in bitmap: Bits<W>;
    out found: Bit;
    out index: Bits<IW>;
    out onehot: Bits<W>;
)]
#[locals(
    lowest_set_onehot: Bits<W>;
)]
#[derive(LogicBlock, Blank)]
pub struct FindFirstSet<const W: usize, const IW: usize> {
    /// `index_bit[b]`: the bit positions whose index has bit `b` set.
    index_bit: [Constant<Bits<W>>; IW],
}

impl<const W: usize, const IW: usize> Default for FindFirstSet<W, IW> {
    fn default() -> Self {
        assert!(W <= (1 << IW), "index width {IW} cannot address {W} bits");
        Self {
            index_bit: std::array::from_fn(|b| {
                let mut mask = Bits::<W>::default();
                for i in (0..W).filter(|i| (i >> b) & 1 == 1) {
                    mask = mask.replace_bit(i, true);
                }
                Constant::new(mask)
            }),
            ..Self::blank()
        }
    }
}

impl<const W: usize, const IW: usize> Logic for FindFirstSet<W, IW> {
    #[hdl_gen]
    fn update(&mut self) {
        self.lowest_set_onehot.next = self.bitmap.val() & ((!self.bitmap.val()) + 1);
        self.onehot.next = self.lowest_set_onehot.val();
        self.found.next = self.bitmap.val().any();
        // Index bit b is set when the one-hot bit is at a position with bit b set: an OR tree
        // per index bit (a chain of `if`s would be a W-deep priority mux for the synthesiser).
        self.index.next = 0.into();
        for b in 0..IW {
            self.index.next = self.index.val().replace_bit(b, (self.lowest_set_onehot.val() & self.index_bit[b].val()).any());
        }
    }
}

/// Software definition of find-first-set, the reference for tests.
pub fn find_first_set_reference(bitmap: u128, width: usize) -> Option<usize> {
    (0..width).find(|&i| (bitmap >> i) & 1 == 1)
}
