//! One-hot decoder: `onehot = enable ? 1 << index : 0` over `N = 2^IW` bits.
//!
//! This is how blocks update per-ID flag vectors (free lists, timer valid bits, per-slot
//! flags): `next = (q & !clear_onehot) | set_onehot`, a bitwise operation on the whole vector
//! instead of an update at a runtime index. The design rule it serves (the conventions in [`crate`]: no
//! runtime-indexed update of a vector wider than 64 bits) exists for LUTs and simulation
//! speed: a runtime-indexed write into an N-bit vector is a barrel shifter in LUTs and a
//! multi-word shift in Verilator, and its constant-index alternative (one `if` per ID) becomes a
//! chain of N full-width multiplexers. Here the only runtime shift is a 64-bit one, shared by
//! every 64-bit word; each word is selected by comparing the upper index bits with its number.
//!
//! # Ports
//! | port     | dir | width | meaning                                       |
//! |----------|-----|-------|-----------------------------------------------|
//! | `index`  | in  | `IW`  | the bit to set                                 |
//! | `enable` | in  | 1     | low: the output is all zero                    |
//! | `onehot` | out | `N`   | bit `index` set when `enable`, every other clear |
//!
//! # Latency and throughput
//! Combinational: latency 0 cycles, one decode per cycle. Depth: one 64-bit shift (6 select
//! levels) and one comparison of `IW − 6` bits per word above 64 bits.
//!
//! # Verilog
//! Written by hand (like rust-hdl's RAM): up to 64 bits a shift of the whole vector; above, a
//! loop over 64-bit words that Yosys and Verilator unroll. The rust-hdl simulation computes the
//! same function directly; the lockstep test compares the two.

use crate::ports;
use rust_hdl::prelude::*;

/// One-hot decoder of an `IW`-bit index into `N = 2^IW` bits.
#[ports(
    in index: Bits<IW>;
    in enable: Bit;
    out onehot: Bits<N>;
)]
#[derive(LogicBlock)]
pub struct OneHot<const N: usize, const IW: usize> {}

impl<const N: usize, const IW: usize> Default for OneHot<N, IW> {
    fn default() -> Self {
        assert_eq!(N, 1 << IW, "a one-hot decoder of {IW} index bits has 2^{IW} outputs");
        Self { index: Default::default(), enable: Default::default(), onehot: Default::default() }
    }
}

impl<const N: usize, const IW: usize> Logic for OneHot<N, IW> {
    fn update(&mut self) {
        self.onehot.next =
            if self.enable.val() { Bits::<N>::default().replace_bit(self.index.val().index(), true) } else { Bits::<N>::default() };
    }

    fn connect(&mut self) {
        self.onehot.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(one_hot_verilog(N, IW))
    }
}

/// The decoder's Verilog body for `n = 2^iw` outputs.
pub fn one_hot_verilog(n: usize, iw: usize) -> String {
    if n <= 64 {
        return format!(
            "\
always @(*) begin
   onehot = {n}'d0;
   if (enable) begin
      onehot = {n}'d1 << index;
   end
end"
        );
    }
    let high = iw - 6;
    format!(
        "\
// The 64-bit one-hot of the low index bits, placed in the word the high bits select.
wire [63:0] word_onehot;
assign word_onehot = 64'd1 << index[5:0];
integer word;
always @(*) begin
   for (word = 0; word < {words}; word = word + 1) begin
      onehot[word * 64 +: 64] = (enable && index[{top}:6] == word[{hm1}:0]) ? word_onehot : 64'd0;
   end
end",
        words = n / 64,
        top = iw - 1,
        hm1 = high - 1,
    )
}
