//! One array of per-port timeslot counters for PL2's switch (Algorithm 1's `inReservation` or
//! `outReservation`): one read-modify-write on one port's counter per request, one request per
//! cycle, correct for back-to-back requests to the same port. [`super::pl2_reservation`] chains
//! two of them, so each counter is touched once per packet in its own operation, as §4.2's two
//! hardware constraints demand.
//!
//! A counter holds the timeslots reserved at its port and not yet used: a reservation adds its
//! demand, a data packet through the port releases one.
//!
//! | `req_op` | name | new value | flags |
//! |---|---|---|---|
//! | 0 | read | old | — |
//! | 1 | reserve `req_amount` | `old + amount`, at most 2^32 − 1 | `resp_saturated` when clipped |
//! | 2 | release one | `old − 1`; at 0 stays 0 | `resp_underflow` at 0 |
//! | 3 | release one unless above `limit` | old when `old > limit`, else as op 2 | `resp_refused` when above |
//!
//! Releasing at 0 is counted by the caller, never wrapped: a wrapped counter would grant
//! timeslots 4 billion slots away. Reset forgets every counter at once: a bitmap of written ports
//! is cleared and an unwritten port reads 0 (the RAM itself cannot be cleared in one cycle).
//!
//! # Ports
//! | port | dir | width | meaning |
//! |------|-----|-------|---------|
//! | `clock`, `reset` | in | 1 | synchronous reset: every counter reads 0 again, the pipeline empties |
//! | `req_valid`, `req_port` | in | 1, PW | a request on the counter of `req_port` |
//! | `req_op`, `req_amount` | in | 2, 8 | the operation (table) and a reservation's demand |
//! | `req_limit` | in | 32 | op 3's threshold, sampled with the request |
//! | `resp_valid` | out | 1 | the response to the request of the previous cycle |
//! | `resp_old` | out | 32 | the counter before the operation |
//! | `resp_saturated`, `resp_underflow`, `resp_refused` | out | 1 | see the table (meaningful with `resp_valid`) |
//!
//! # Latency and throughput
//! The counters are a RAM with a synchronous read: the request's read is issued in its cycle, the
//! response is valid **1 cycle** later (combinational from the RAM's output: the caller
//! registers it) and the new value is written at the end of that cycle. A request to the same
//! port in the next cycle reads the RAM before that write lands and takes the value from a
//! forwarding register instead. One request per cycle, every cycle, whatever the ports.
//!
//! Yosys xcup (`P` = 64, per module): 378 LUTs, 185 flip-flops, 40 LUTRAM, 7 LUT levels (forwarding
//! compare → old value → release-at-0 check).

use crate::{locals, ports, registers, Blank};
use rust_hdl::prelude::*;

/// `req_op` codes.
pub const OP_READ: u64 = 0;
pub const OP_RESERVE: u64 = 1;
pub const OP_RELEASE: u64 = 2;
pub const OP_RELEASE_UNLESS_ABOVE: u64 = 3;

/// Counters of `P = 2^PW` ports.
#[ports(
    in clock: Clock;
    in reset, req_valid: Bit;
    in req_port: Bits<PW>;
    in req_op: Bits<2>;
    in req_amount: Bits<8>;
    in req_limit: Bits<32>;
    out resp_valid, resp_saturated, resp_underflow, resp_refused: Bit;
    out resp_old: Bits<32>;
)]
#[registers(
    /// Ports written since reset; an unwritten port reads 0.
    written: Bits<P>;
    s1_valid, s1_fresh: Bit;
    s1_port: Bits<PW>;
    s1_op: Bits<2>;
    s1_amount: Bits<8>;
    s1_limit: Bits<32>;
    /// The write made at the end of the previous cycle (not yet visible to a read issued then).
    fwd_valid: Bit;
    fwd_port: Bits<PW>;
    fwd_value: Bits<32>;
)]
#[locals(
    old, new_value: Bits<32>;
    sum: Bits<33>;
    release_blocked: Bit;
)]
#[derive(LogicBlock, Blank)]
pub struct TimeslotCounters<const P: usize, const PW: usize> {
    counter_max: Constant<Bits<32>>,
    counters: RAM<Bits<32>, PW>,
}

impl<const P: usize, const PW: usize> Default for TimeslotCounters<P, PW> {
    fn default() -> Self {
        assert_eq!(P, 1 << PW, "the block holds exactly 2^PW counters");
        assert!(P <= 64, "the written-ports bitmap is updated at a runtime index: at most 64 bits (hdl conventions)");
        Self { counter_max: Constant::new((u32::MAX as u64).into()), ..Self::blank() }
    }
}

impl<const P: usize, const PW: usize> Logic for TimeslotCounters<P, PW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, written, s1_valid, s1_port, s1_op, s1_amount, s1_limit, s1_fresh, fwd_valid, fwd_port, fwd_value);
        self.counters.read_clock.next = self.clock.val();
        self.counters.write_clock.next = self.clock.val();
        // ---- Stage 0: issue the read.
        self.counters.read_address.next = self.req_port.val();
        self.s1_valid.d.next = self.req_valid.val();
        self.s1_port.d.next = self.req_port.val();
        self.s1_op.d.next = self.req_op.val();
        self.s1_amount.d.next = self.req_amount.val();
        self.s1_limit.d.next = self.req_limit.val();
        self.s1_fresh.d.next = !self.written.q.val().get_bit(self.req_port.val().index());
        if self.req_valid.val() {
            self.written.d.next = self.written.q.val().replace_bit(self.req_port.val().index(), true);
        }
        // ---- Stage 1: modify and write back.
        self.old.next = self.counters.read_data.val();
        if self.s1_fresh.q.val() {
            self.old.next = 0.into();
        }
        if self.fwd_valid.q.val() & (self.fwd_port.q.val() == self.s1_port.q.val()) {
            self.old.next = self.fwd_value.q.val();
        }
        self.sum.next = bit_cast::<33, 32>(self.old.val()) + bit_cast::<33, 8>(self.s1_amount.q.val());
        self.release_blocked.next = (self.s1_op.q.val() == 3) & (self.old.val() > self.s1_limit.q.val());
        self.new_value.next = self.old.val();
        self.resp_saturated.next = false;
        self.resp_underflow.next = false;
        self.resp_refused.next = false;
        if self.s1_op.q.val() == 1 {
            self.new_value.next = bit_cast::<32, 33>(self.sum.val());
            if self.sum.val().get_bit(32) {
                self.new_value.next = self.counter_max.val();
                self.resp_saturated.next = true;
            }
        }
        if self.s1_op.q.val().get_bit(1) {
            if self.release_blocked.val() {
                self.resp_refused.next = true;
            } else if self.old.val().any() {
                self.new_value.next = self.old.val() - 1;
            } else {
                self.resp_underflow.next = true;
            }
        }
        self.counters.write_address.next = self.s1_port.q.val();
        self.counters.write_data.next = self.new_value.val();
        self.counters.write_enable.next = self.s1_valid.q.val();
        self.fwd_valid.d.next = self.s1_valid.q.val();
        self.fwd_port.d.next = self.s1_port.q.val();
        self.fwd_value.d.next = self.new_value.val();
        self.resp_valid.next = self.s1_valid.q.val();
        self.resp_old.next = self.old.val();
        if self.reset.val() {
            self.written.d.next = 0.into();
            self.s1_valid.d.next = false;
            self.fwd_valid.d.next = false;
        }
    }
}
