//! The waiting messages of the [`PriorityScheduler`](crate::pisa::priority_scheduler::PriorityScheduler)
//! (thesis §3.3.4: messages beyond the entries compared in parallel wait in a FIFO): a FIFO of
//! message ids and each waiting message's state, and the pop that hands the oldest one to the
//! scheduler's entries. The scheduler keeps the per-id bits that say whether a message is still
//! waiting and whether it has a record here.
//!
//! # State
//! A RAM of ids (depth 2^IW) with its head, tail and level: it never overflows as long as the
//! caller pushes an id only while the id has no record here (the scheduler's `in_fifo` bit);
//! more than 2^IW records would overwrite the oldest; two RAMs indexed by id with each waiting message's `remaining, received` and
//! `total, granted`.
//!
//! # Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock`, `reset` | in | 1 | synchronous reset: empty, no pop under way (the RAMs' contents are kept; the writes below are not blocked by `reset`: the scheduler holds them low, so that the gate sits in its own logic, not one LUT level after it) |
//! | `id` | in | IW | the message of this cycle's writes |
//! | `push` | in | 1 | append `id` to the FIFO |
//! | `write_state`, `remaining`, `received` | in | 1, 8, 8 | store the message's `remaining, received` |
//! | `write_limits`, `total`, `granted` | in | 1, 8, 8 | store the message's `total, granted` |
//! | `pop_allowed` | in | 1 | an entry is free: a pop may start (with a record in the FIFO and no pop under way) |
//! | `reading`, `reading_id` | out | 1, IW | pop stage 1: the head id, read in this cycle |
//! | `loading`, `load_id` | out | 1, IW | pop stage 2: the message the scheduler loads in this cycle |
//! | `load_remaining`, `load_received`, `load_total`, `load_granted` | out | 8 each | its waiting state, including a write made to it in the cycle it was read |
//! | `level` | out | 16 | records in the FIFO |
//!
//! # Latency and throughput
//! A pop starts in cycle a when `pop_allowed`, a record and no pop under way (the head id is
//! addressed); in a+1 (`reading`) the id is there and addresses the state RAMs; in a+2
//! (`loading`) its state is there and the scheduler loads it. One pop per 3 cycles; a push and a
//! state write every cycle. A write to the message being read in a+1 reaches a+2 through
//! forwarding registers, as the RAMs read before they write.

use crate::{locals, ports, registers};
use rust_hdl::prelude::*;

/// The waiting messages of a scheduler of `2^IW` ids.
#[ports(
    in clock: Clock;
    in reset, push, write_state, write_limits, pop_allowed: Bit;
    in id: Bits<IW>;
    in remaining, received, total, granted: Bits<8>;
    out reading, loading: Bit;
    out reading_id, load_id: Bits<IW>;
    out load_remaining, load_received, load_total, load_granted: Bits<8>;
    out level: Bits<16>;
)]
#[registers(
    fifo_head, fifo_tail: Bits<IW>;
    fifo_count: Bits<16>;
    /// Pop stage 1: the head id is being read.
    p1_valid: Bit;
    /// Pop stage 2: the waiting state of `p2_id` is being read; loaded in this stage's cycle.
    p2_valid: Bit;
    p2_id: Bits<IW>;
    /// Forwarding of a waiting-state write made in the cycle the RAM was read.
    fw_rr_valid: Bit;
    fw_rr, fw_tg: Bits<16>;
    fw_tg_valid: Bit;
)]
#[locals(
    pop_start: Bit;
    p1_id: Bits<IW>;
    ld_rr, ld_tg: Bits<16>;
)]
#[derive(LogicBlock, Default)]
pub struct WaitingQueue<const IW: usize> {
    fifo_ids: RAM<Bits<IW>, IW>,
    wait_rr: RAM<Bits<16>, IW>,
    wait_tg: RAM<Bits<16>, IW>,
}

impl<const IW: usize> Logic for WaitingQueue<IW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, fifo_head, fifo_tail, fifo_count, p1_valid, p2_valid, p2_id, fw_rr_valid, fw_rr, fw_tg_valid, fw_tg);
        self.fifo_ids.read_clock.next = self.clock.val();
        self.fifo_ids.write_clock.next = self.clock.val();
        self.wait_rr.read_clock.next = self.clock.val();
        self.wait_rr.write_clock.next = self.clock.val();
        self.wait_tg.read_clock.next = self.clock.val();
        self.wait_tg.write_clock.next = self.clock.val();

        // Stage 2: the waiting state read in the previous cycle, or a write made to it then.
        self.ld_rr.next = self.wait_rr.read_data.val();
        if self.fw_rr_valid.q.val() {
            self.ld_rr.next = self.fw_rr.q.val();
        }
        self.ld_tg.next = self.wait_tg.read_data.val();
        if self.fw_tg_valid.q.val() {
            self.ld_tg.next = self.fw_tg.q.val();
        }
        self.loading.next = self.p2_valid.q.val();
        self.load_id.next = self.p2_id.q.val();
        self.load_remaining.next = self.ld_rr.val().get_bits::<8>(8);
        self.load_received.next = self.ld_rr.val().get_bits::<8>(0);
        self.load_total.next = self.ld_tg.val().get_bits::<8>(8);
        self.load_granted.next = self.ld_tg.val().get_bits::<8>(0);

        // Pop: stage 1 reads the head id (every cycle), stage 2 reads the waiting state.
        self.pop_start.next =
            (((self.fifo_count.q.val() != 0) & (!self.p1_valid.q.val())) & (!self.p2_valid.q.val())) & self.pop_allowed.val();
        self.fifo_ids.read_address.next = self.fifo_head.q.val();
        self.p1_id.next = self.fifo_ids.read_data.val();
        self.reading.next = self.p1_valid.q.val();
        self.reading_id.next = self.p1_id.val();
        self.wait_rr.read_address.next = self.p1_id.val();
        self.wait_tg.read_address.next = self.p1_id.val();
        self.p1_valid.d.next = self.pop_start.val();
        self.p2_valid.d.next = self.p1_valid.q.val();
        self.p2_id.d.next = self.p1_id.val();

        self.fifo_ids.write_address.next = self.fifo_tail.q.val();
        self.fifo_ids.write_data.next = self.id.val();
        self.fifo_ids.write_enable.next = self.push.val();
        if self.push.val() {
            self.fifo_tail.d.next = self.fifo_tail.q.val() + 1;
        }
        if self.pop_start.val() {
            self.fifo_head.d.next = self.fifo_head.q.val() + 1;
        }
        if self.push.val() & (!self.pop_start.val()) {
            self.fifo_count.d.next = self.fifo_count.q.val() + 1;
        }
        if self.pop_start.val() & (!self.push.val()) {
            self.fifo_count.d.next = self.fifo_count.q.val() - 1;
        }
        self.level.next = self.fifo_count.q.val();

        // Waiting state.
        self.wait_rr.write_address.next = self.id.val();
        self.wait_rr.write_data.next = (bit_cast::<16, 8>(self.remaining.val()) << 8) | bit_cast::<16, 8>(self.received.val());
        self.wait_rr.write_enable.next = self.write_state.val();
        self.wait_tg.write_address.next = self.id.val();
        self.wait_tg.write_data.next = (bit_cast::<16, 8>(self.total.val()) << 8) | bit_cast::<16, 8>(self.granted.val());
        self.wait_tg.write_enable.next = self.write_limits.val();
        self.fw_rr_valid.d.next = (self.p1_valid.q.val() & self.write_state.val()) & (self.id.val() == self.p1_id.val());
        self.fw_rr.d.next = self.wait_rr.write_data.val();
        self.fw_tg_valid.d.next = (self.p1_valid.q.val() & self.write_limits.val()) & (self.id.val() == self.p1_id.val());
        self.fw_tg.d.next = self.wait_tg.write_data.val();

        if self.reset.val() {
            self.fifo_head.d.next = 0.into();
            self.fifo_tail.d.next = 0.into();
            self.fifo_count.d.next = 0.into();
            self.p1_valid.d.next = false;
            self.p2_valid.d.next = false;
            self.fw_rr_valid.d.next = false;
            self.fw_tg_valid.d.next = false;
        }
    }
}
