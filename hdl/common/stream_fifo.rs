//! First-word-fall-through FIFO on a synchronous RAM, with a synchronous reset.
//!
//! # Ports
//! | port         | dir | width | meaning                                                     |
//! |--------------|-----|-------|-------------------------------------------------------------|
//! | `clock`, `reset` | in | 1  | synchronous reset empties the FIFO                          |
//! | `push`       | in  | 1     | store `push_data` (ignored when `level` = 2^AW: the caller checks `level`) |
//! | `push_data`  | in  | `D`   |                                                             |
//! | `pop`        | in  | 1     | take the head (ignored when `head_valid` is low)            |
//! | `head_valid` | out | 1     | `head_data` holds the oldest entry                          |
//! | `head_data`  | out | `D`   |                                                             |
//! | `level`      | out | 16    | entries stored (including the ones not yet at the head)     |
//!
//! # Latency and throughput
//! An entry pushed in cycle t can be at the head from cycle t + 2 (the RAM reads before it
//! writes, so the entry is read one edge after it is written). One push and one pop per cycle.

use crate::{locals, ports, registers, Blank};
use rust_hdl::prelude::*;

#[ports(
    in clock: Clock;
    in reset, push, pop: Bit;
    in push_data: D;
    out head_valid: Bit;
    out head_data: D;
    out level: Bits<16>;
)]
#[registers(
    write_ptr, read_ptr: Bits<AW>;
    stored, readable: Bits<16>;
    pushed_last_cycle: Bit;
    /// `readable != 0`, registered: `head_valid` comes straight from a flip-flop.
    nonempty: Bit;
)]
#[locals(
    do_push, do_pop: Bit;
)]
#[derive(LogicBlock, Blank)]
pub struct StreamFifo<D: Synth, const AW: usize> {
    storage: RAM<D, AW>,
    depth: Constant<Bits<16>>,
}

impl<D: Synth, const AW: usize> Default for StreamFifo<D, AW> {
    fn default() -> Self {
        assert!(AW <= 15, "levels are 16 bits");
        Self { depth: Constant::new(((1u64 << AW) as u64).into()), ..Self::blank() }
    }
}

impl<D: Synth, const AW: usize> Logic for StreamFifo<D, AW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, write_ptr, read_ptr, stored, readable, pushed_last_cycle, nonempty);
        self.storage.read_clock.next = self.clock.val();
        self.storage.write_clock.next = self.clock.val();
        self.do_push.next = self.push.val() & (self.stored.q.val() < self.depth.val());
        self.do_pop.next = self.pop.val() & self.nonempty.q.val();
        self.storage.write_address.next = self.write_ptr.q.val();
        self.storage.write_data.next = self.push_data.val();
        self.storage.write_enable.next = self.do_push.val();
        self.storage.read_address.next = self.read_ptr.q.val();
        if self.do_pop.val() {
            self.storage.read_address.next = self.read_ptr.q.val() + 1;
            self.read_ptr.d.next = self.read_ptr.q.val() + 1;
        }
        if self.do_push.val() {
            self.write_ptr.d.next = self.write_ptr.q.val() + 1;
        }
        self.pushed_last_cycle.d.next = self.do_push.val();
        self.stored.d.next =
            (self.stored.q.val() + bit_cast::<16, 1>(self.do_push.val().into())) - bit_cast::<16, 1>(self.do_pop.val().into());
        self.readable.d.next = (self.readable.q.val() + bit_cast::<16, 1>(self.pushed_last_cycle.q.val().into()))
            - bit_cast::<16, 1>(self.do_pop.val().into());
        // Non-empty next cycle: an entry becomes readable, or more than the popped one is left
        // (from registers but the pop, so the consumer's `pop` is the only late input).
        self.nonempty.d.next =
            (self.pushed_last_cycle.q.val() | (self.readable.q.val() > 1)) | (self.nonempty.q.val() & (!self.do_pop.val()));
        self.head_valid.next = self.nonempty.q.val();
        self.head_data.next = self.storage.read_data.val();
        self.level.next = self.stored.q.val();
        if self.reset.val() {
            self.write_ptr.d.next = 0.into();
            self.read_ptr.d.next = 0.into();
            self.stored.d.next = 0.into();
            self.readable.d.next = 0.into();
            self.pushed_last_cycle.d.next = false;
            self.nonempty.d.next = false;
        }
    }
}
