//! All / any of a bitmap: "every packet delivered" and "some packet pending" tests.
//!
//! # Ports
//! | port     | dir | width | meaning              |
//! |----------|-----|-------|----------------------|
//! | `bitmap` | in  | `W`   | the bitmap           |
//! | `all`    | out | 1     | every bit is set     |
//! | `any`    | out | 1     | at least one bit set |
//!
//! # Latency and throughput
//! Combinational: latency 0 cycles (AND / OR reduction trees), one bitmap per cycle.
//! Inside other blocks the same reductions are written as `.all()` / `.any()` directly.

use crate::ports;
use rust_hdl::prelude::*;

/// AND / OR reduction of a `W`-bit bitmap.
#[ports(
    in bitmap: Bits<W>;
    out all, any: Bit;
)]
#[derive(LogicBlock, Default)]
pub struct BitmapAllAny<const W: usize> {}

impl<const W: usize> Logic for BitmapAllAny<W> {
    #[hdl_gen]
    fn update(&mut self) {
        self.all.next = self.bitmap.val().all();
        self.any.next = self.bitmap.val().any();
    }
}
