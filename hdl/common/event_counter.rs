//! Event counter: the one status counter every block uses (frames accepted, drops by reason,
//! packets sent, …). A block raises `increment` in a cycle where the thing it counts happens;
//! software reads `count` through the status bank.
//!
//! Two kinds, fixed by the type so a block cannot mix them up:
//! - [`WrappingCounter`]: counts modulo `2^W`. The 32-bit traffic counters are of this kind, as
//!   interface counters usually are: software reads them periodically and takes differences.
//! - [`SaturatingCounter`]: stops at `2^W - 1`. The 16-bit counters (transmit path, arbiter,
//!   free list) are of this kind: a 16-bit count wraps too soon to be read as a difference, and
//!   a stuck all-ones value says "at least this many" instead of a small wrong number.
//!
//! A block names its counters once, at the head of its `update`, with `#[status_counters]` above
//! `#[hdl_gen]` (from `nanotransport-hdl-derive`):
//! ```ignore
//! #[status_counters]
//! #[hdl_gen]
//! fn update(&mut self) {
//!     status_counters!(self, clock, reset, n_data, n_drops);
//!     // …
//!     if self.drop.val() {
//!         self.n_drops.increment.next = true;
//!     }
//! }
//! ```
//! which clocks each counter, resets it with the block and leaves `increment` low unless the
//! block raises it later in the body.
//!
//! # Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock`, `reset` | in | 1 | synchronous reset: the count returns to 0 (wins over `increment`) |
//! | `increment` | in | 1 | count one in this cycle |
//! | `count` | out | `W` | events since reset (registered) |
//!
//! # Latency and throughput
//! An event in cycle t shows in `count` from cycle t + 1; one event per cycle. One `W`-bit
//! register and an incrementer; the saturating kind adds an all-ones comparison.

use crate::{ports, registers, Blank};
use rust_hdl::prelude::*;

/// Counts events, wrapping (`SATURATE` false) or stopping at all ones (`SATURATE` true).
#[ports(
    in clock: Clock;
    in reset, increment: Bit;
    out count: Bits<W>;
)]
#[registers(
    value: Bits<W>;
)]
#[derive(LogicBlock, Blank)]
pub struct EventCounter<const W: usize, const SATURATE: bool> {
    saturate: Constant<Bit>,
    all_ones: Constant<Bits<W>>,
}

/// A counter that wraps modulo `2^W`.
pub type WrappingCounter<const W: usize> = EventCounter<W, false>;
/// A counter that stops at `2^W - 1`.
pub type SaturatingCounter<const W: usize> = EventCounter<W, true>;

impl<const W: usize, const SATURATE: bool> Default for EventCounter<W, SATURATE> {
    fn default() -> Self {
        Self { saturate: Constant::new(SATURATE), all_ones: Constant::new(Bits::<W>::mask()), ..Self::blank() }
    }
}

impl<const W: usize, const SATURATE: bool> Logic for EventCounter<W, SATURATE> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, value);
        self.count.next = self.value.q.val();
        if self.increment.val() & (!(self.saturate.val() & (self.value.q.val() == self.all_ones.val()))) {
            self.value.d.next = self.value.q.val() + 1;
        }
        if self.reset.val() {
            self.value.d.next = 0.into();
        }
    }
}
