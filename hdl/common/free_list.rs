//! Free list of IDs (message slots, buffers): allocate one and free one per cycle.
//!
//! The state is one bit per ID (`1` = in use) held in flip-flops; the offered ID is the smallest
//! free one ([`FindFirstSet`] over the complement). The bits are updated as a whole vector with
//! one-hot masks (the search's own one-hot for an allocation, a [`OneHot`] decoder for a free),
//! never at a runtime index. Because the state is the set itself, an ID can never be handed out
//! twice, and freeing an ID that is already free (a double free) is detected by reading its bit:
//! it is counted in `double_free_count` and changes nothing.
//!
//! An allocation is recorded in two steps: the cycle it is taken, only the taken ID is
//! registered (`pending`, one-hot); the next cycle the ID counts as held (`occupied` = `in_use | pending`) for every
//! answer and is folded into `in_use`. So `alloc_ready`, typically decided late in its cycle,
//! drives one flip-flop and not the whole vector, and the list behaves exactly as if the bit had
//! been set at the first edge.
//!
//! # Ports
//! | port                | dir | width | meaning                                                  |
//! |---------------------|-----|-------|----------------------------------------------------------|
//! | `clock`, `reset`    | in  | 1     | synchronous active-high reset                            |
//! | `alloc_valid`       | out | 1     | an ID is available (`!empty`)                            |
//! | `alloc_id`          | out | `IW`  | the ID handed out when `alloc_ready` is high             |
//! | `alloc_ready`       | in  | 1     | the consumer takes `alloc_id` this cycle                 |
//! | `free_valid`        | in  | 1     | return `free_id` to the list                             |
//! | `free_id`           | in  | `IW`  | ID being returned                                        |
//! | `empty`             | out | 1     | no ID is free                                            |
//! | `full`              | out | 1     | every ID is free                                         |
//! | `double_free_count` | out | 16    | frees of an ID that was already free (saturating)        |
//!
//! # Latency and throughput
//! Allocation: `alloc_id` is valid combinationally from registered state; the ID is taken at the
//! clock edge of the cycle `alloc_valid && alloc_ready`. Free: one per cycle; a freed ID is
//! offered again from the next cycle. Both can happen in the same cycle. A free is judged against
//! the state at the start of the cycle, so freeing the very ID being allocated in that cycle
//! counts as a double free (the ID was free) and the allocation stands.
//!
//! # Reset and init
//! Reset (one cycle with `reset` high) refills the list: the init sequence is that single cycle;
//! every ID is free from the first cycle after reset.

use crate::common::event_counter::SaturatingCounter;
use crate::common::find_first_set::FindFirstSet;
use crate::common::one_hot::OneHot;
use crate::{locals, ports, registers, status_counters, Blank};
use rust_hdl::prelude::*;

/// Free list of `N = 2^IW` IDs.
#[ports(
    in clock: Clock;
    in reset, alloc_ready, free_valid: Bit;
    out alloc_valid, empty, full: Bit;
    out alloc_id: Bits<IW>;
    in free_id: Bits<IW>;
    out double_free_count: Bits<16>;
)]
#[registers(
    in_use: Bits<N>;
    /// The ID taken in the previous cycle (one-hot, zero when none), not yet in `in_use`.
    pending: Bits<N>;
)]
#[locals(
    /// The IDs held now: `in_use` and the pending one.
    occupied: Bits<N>;
    freeing_ok: Bit;
)]
#[derive(LogicBlock, Blank)]
pub struct FreeList<const N: usize, const IW: usize> {
    double_frees: SaturatingCounter<16>,
    lowest_free: FindFirstSet<N, IW>,
    freed: OneHot<N, IW>,
}

impl<const N: usize, const IW: usize> Default for FreeList<N, IW> {
    fn default() -> Self {
        assert_eq!(N, 1 << IW, "the free list holds exactly 2^IW IDs");
        Self::blank()
    }
}

impl<const N: usize, const IW: usize> Logic for FreeList<N, IW> {
    #[status_counters]
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, in_use, pending);
        status_counters!(self, clock, reset, double_frees => double_free_count);
        self.occupied.next = self.in_use.q.val() | self.pending.q.val();
        self.lowest_free.bitmap.next = !self.occupied.val();
        self.alloc_valid.next = self.lowest_free.found.val();
        self.alloc_id.next = self.lowest_free.index.val();
        self.empty.next = !self.lowest_free.found.val();
        self.full.next = !self.occupied.val().any();

        // An allocation is registered as pending; the pending one joins `in_use`, then a free
        // clears its bit.
        self.pending.d.next = 0.into();
        if self.alloc_ready.val() {
            self.pending.d.next = self.lowest_free.onehot.val();
        }
        // From the registers, not `occupied` (which feeds the search): the free's mask stays out
        // of a process-level loop through the two submodules.
        self.freeing_ok.next = self.free_valid.val()
            & (self.in_use.q.val().get_bit(self.free_id.val().index()) | self.pending.q.val().get_bit(self.free_id.val().index()));
        self.freed.index.next = self.free_id.val();
        self.freed.enable.next = self.freeing_ok.val();
        self.in_use.d.next = self.occupied.val() & (!self.freed.onehot.val());
        if self.free_valid.val() & (!self.freeing_ok.val()) {
            self.double_frees.increment.next = true;
        }
        if self.reset.val() {
            self.in_use.d.next = 0.into();
            self.pending.d.next = 0.into();
        }
    }
}
