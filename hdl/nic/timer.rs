//! Timer module (thesis §3.2.5, §3.3.3): one timer per message with a background scan.
//!
//! One memory indexed by message ID holds, per entry, a 64-bit expiry time and `MW` bits of
//! metadata (e.g. `rtx_offset` for the egress timer); the entry's valid bit lives in flip-flops.
//! Schedule (also used to re-schedule) writes one memory entry and sets the valid bit; cancel
//! clears the valid bit. A background scan reads one entry per cycle, round robin, and raises a
//! timeout with the entry's ID and metadata when the entry is valid and `now >= expiry`. Firing
//! clears the valid bit: a timer fires once; the consumer schedules again if it wants another.
//!
//! # Ports
//! | port             | dir | width | meaning                                                     |
//! |------------------|-----|-------|-------------------------------------------------------------|
//! | `clock`, `reset` | in  | 1     | synchronous active-high reset: every timer cancelled         |
//! | `now`            | in  | 64    | current time (any unit the NIC chooses; the expiry uses it)  |
//! | `sched_valid`    | in  | 1     | schedule or re-schedule timer `sched_id`                     |
//! | `sched_id`       | in  | `IW`  | message ID                                                   |
//! | `sched_delay`    | in  | 32    | expiry = `now + sched_delay`                                 |
//! | `sched_meta`     | in  | `MW`  | metadata returned with the timeout                           |
//! | `cancel_valid`   | in  | 1     | cancel timer `cancel_id`                                     |
//! | `cancel_id`      | in  | `IW`  | message ID                                                   |
//! | `timeout_valid`  | out | 1     | a timer has expired (valid/ready handshake)                  |
//! | `timeout_ready`  | in  | 1     | the consumer takes the timeout this cycle                    |
//! | `timeout_offered`| out | 1     | the pending timeout, before this cycle's schedule/cancel masks it (see below) |
//! | `timeout_id`     | out | `IW`  | expired message ID                                           |
//! | `timeout_meta`   | out | `MW`  | its metadata as of the last schedule                         |
//!
//! # Latency and throughput
//! Schedule and cancel: one of each per cycle (also both in the same cycle), effective at the
//! next clock edge. If both name the same ID in the same cycle, **cancel wins**: a finished
//! message never leaves a timer behind. Timeouts: up to one per cycle.
//!
//! **Expiry bound**: while `timeout_ready` is high, a timer that is neither cancelled nor
//! re-scheduled raises `timeout_valid` at most **N + 2 cycles** after the later of (a) the cycle
//! its schedule was issued and (b) the first cycle with `now >= expiry`. The scan uses its own
//! read port and advances every cycle whatever the schedule/cancel traffic, so it never starves.
//! When `timeout_ready` is low the pending timeout waits; expired entries the scan meets meanwhile
//! are left for its next pass (nothing is lost; the bound then restarts once the consumer is
//! ready).
//!
//! # Never a stale timeout
//! A timeout is never raised for a timer that was cancelled or re-scheduled before it is raised:
//! ```text
//!  cycle t     scan reads entry i (memory read, 1 cycle)      schedule(i) in t  -> s1_stale
//!  cycle t+1   s1: valid bit (flip-flops, current) && now >= expiry && !stale
//!              && no schedule/cancel of i in this cycle       -> load output register
//!  cycle t+2   timeout_valid = pending && no schedule/cancel of that ID in this cycle
//! ```
//! Any schedule or cancel of the pending ID drops the pending timeout, and within the cycle it
//! arrives it already masks `timeout_valid` (a combinational path from `sched_*`/`cancel_*`).
//! `timeout_offered` is the same timeout without that same-cycle mask, a function of registers
//! alone, for a consumer that never takes a timeout of an ID it schedules or cancels in the
//! same cycle (the transmit core: it holds back a timeout for the slots in its second and third
//! stages, and only its third stage schedules or cancels). Such a consumer sees exactly the
//! timeouts it would see on `timeout_valid`, without the path from its own schedule and cancel
//! back into its choice of event.
//!
//! # Reset
//! One cycle with `reset` high clears every valid bit, the scan position and the pending
//! timeout (and masks `timeout_valid` in that cycle); memory contents need no init because
//! nothing is read without its valid bit.

use crate::common::one_hot::OneHot;
use crate::{locals, ports, registers, Blank};
use rust_hdl::prelude::*;

/// Timer module with `N = 2^IW` entries and `MW` bits of metadata.
#[ports(
    in clock: Clock;
    in reset, sched_valid, cancel_valid, timeout_ready: Bit;
    in now: Bits<64>;
    in sched_id, cancel_id: Bits<IW>;
    in sched_delay: Bits<32>;
    in sched_meta: Bits<MW>;
    out timeout_valid, timeout_offered: Bit;
    out timeout_id: Bits<IW>;
    out timeout_meta: Bits<MW>;
)]
#[registers(
    valid_bits: Bits<N>;
    scan_ptr, s1_id, out_id: Bits<IW>;
    s1_live, s1_stale, out_pending: Bit;
    out_meta: Bits<MW>;
)]
#[locals(
    sched_hits_s1, cancel_hits_s1, sched_hits_out, cancel_hits_out, fire, out_slot_free, s1_fires: Bit;
)]
#[derive(LogicBlock, Blank)]
pub struct Timer<const N: usize, const IW: usize, const MW: usize> {
    expiry_mem: RAM<Bits<64>, IW>,
    meta_mem: RAM<Bits<MW>, IW>,
    /// One-hot masks of the IDs fired, scheduled and cancelled this cycle.
    fired: OneHot<N, IW>,
    scheduled: OneHot<N, IW>,
    cancelled: OneHot<N, IW>,
}

impl<const N: usize, const IW: usize, const MW: usize> Default for Timer<N, IW, MW> {
    fn default() -> Self {
        assert_eq!(N, 1 << IW, "the timer holds exactly 2^IW entries");
        assert!(N >= 2, "the scan needs at least two entries");
        Self::blank()
    }
}

impl<const N: usize, const IW: usize, const MW: usize> Logic for Timer<N, IW, MW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, valid_bits, scan_ptr, s1_live, s1_id, s1_stale, out_pending, out_id, out_meta);
        self.expiry_mem.read_clock.next = self.clock.val();
        self.expiry_mem.write_clock.next = self.clock.val();
        self.meta_mem.read_clock.next = self.clock.val();
        self.meta_mem.write_clock.next = self.clock.val();

        // Schedule: one memory write, valid bit set below.
        self.expiry_mem.write_address.next = self.sched_id.val();
        self.expiry_mem.write_data.next = self.now.val() + bit_cast::<64, 32>(self.sched_delay.val());
        self.expiry_mem.write_enable.next = self.sched_valid.val();
        self.meta_mem.write_address.next = self.sched_id.val();
        self.meta_mem.write_data.next = self.sched_meta.val();
        self.meta_mem.write_enable.next = self.sched_valid.val();

        // Scan: one read per cycle, round robin.
        self.expiry_mem.read_address.next = self.scan_ptr.q.val();
        self.meta_mem.read_address.next = self.scan_ptr.q.val();
        self.scan_ptr.d.next = self.scan_ptr.q.val() + 1;
        self.s1_live.d.next = true;
        self.s1_id.d.next = self.scan_ptr.q.val();
        self.s1_stale.d.next = self.sched_valid.val() & (self.sched_id.val() == self.scan_ptr.q.val());

        // Races with this cycle's schedule / cancel.
        self.sched_hits_s1.next = self.sched_valid.val() & (self.sched_id.val() == self.s1_id.q.val());
        self.cancel_hits_s1.next = self.cancel_valid.val() & (self.cancel_id.val() == self.s1_id.q.val());
        self.sched_hits_out.next = self.sched_valid.val() & (self.sched_id.val() == self.out_id.q.val());
        self.cancel_hits_out.next = self.cancel_valid.val() & (self.cancel_id.val() == self.out_id.q.val());

        // Output stage.
        // Reset cancels every timer at once, the pending timeout included.
        self.timeout_valid.next =
            ((self.out_pending.q.val() & (!self.sched_hits_out.val())) & (!self.cancel_hits_out.val())) & (!self.reset.val());
        self.timeout_offered.next = self.out_pending.q.val() & (!self.reset.val());
        self.timeout_id.next = self.out_id.q.val();
        self.timeout_meta.next = self.out_meta.q.val();
        // The valid bits need no mask here: a schedule of the same ID sets its bit after the fire
        // clears it and a cancel clears it anyway, and `out_slot_free` and `s1_fires` already
        // account for both, so the pending timeout's path from `sched_*` stays out of the clear.
        self.fire.next = (self.out_pending.q.val() & (!self.reset.val())) & self.timeout_ready.val();
        self.out_slot_free.next =
            (((!self.out_pending.q.val()) | self.fire.val()) | self.sched_hits_out.val()) | self.cancel_hits_out.val();

        // Scan stage 1: the entry read last cycle.
        self.s1_fires.next = ((((((self.s1_live.q.val() & (!self.s1_stale.q.val()))
            & self.valid_bits.q.val().get_bit(self.s1_id.q.val().index()))
            & (self.now.val() >= self.expiry_mem.read_data.val()))
            & (!self.sched_hits_s1.val()))
            & (!self.cancel_hits_s1.val()))
            & (!(self.fire.val() & (self.out_id.q.val() == self.s1_id.q.val()))))
            & self.out_slot_free.val();
        if self.s1_fires.val() {
            self.out_pending.d.next = true;
            self.out_id.d.next = self.s1_id.q.val();
            self.out_meta.d.next = self.meta_mem.read_data.val();
        } else if self.out_slot_free.val() {
            self.out_pending.d.next = false;
        }

        // Valid bits: firing clears, schedule sets, cancel clears last (cancel wins).
        self.fired.index.next = self.out_id.q.val();
        self.fired.enable.next = self.fire.val();
        self.scheduled.index.next = self.sched_id.val();
        self.scheduled.enable.next = self.sched_valid.val();
        self.cancelled.index.next = self.cancel_id.val();
        self.cancelled.enable.next = self.cancel_valid.val();
        self.valid_bits.d.next =
            ((self.valid_bits.q.val() & (!self.fired.onehot.val())) | self.scheduled.onehot.val()) & (!self.cancelled.onehot.val());

        if self.reset.val() {
            self.valid_bits.d.next = 0.into();
            self.scan_ptr.d.next = 0.into();
            self.s1_live.d.next = false;
            self.s1_stale.d.next = false;
            self.out_pending.d.next = false;
        }
    }
}
