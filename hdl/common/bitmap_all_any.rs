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

use rust_hdl::prelude::*;

/// AND / OR reduction of a `W`-bit bitmap.
#[derive(LogicBlock, Default)]
pub struct BitmapAllAny<const W: usize> {
    pub bitmap: Signal<In, Bits<W>>,
    pub all: Signal<Out, Bit>,
    pub any: Signal<Out, Bit>,
}

impl<const W: usize> Logic for BitmapAllAny<W> {
    #[hdl_gen]
    fn update(&mut self) {
        self.all.next = self.bitmap.val().all();
        self.any.next = self.bitmap.val().any();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reductions() {
        let mut uut = BitmapAllAny::<64>::default();
        uut.connect_all();
        for (value, all, any) in [(0u64, false, false), (1, false, true), (u64::MAX, true, true), (u64::MAX >> 1, false, true)] {
            uut.bitmap.next = value.into();
            assert!(simulate(&mut uut, 100));
            assert_eq!((uut.all.val(), uut.any.val()), (all, any), "bitmap {value:#x}");
        }
    }
}
