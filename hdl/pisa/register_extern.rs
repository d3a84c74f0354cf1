//! Stateful register extern (thesis §3.2.2): one read-modify-write on one entry of a register
//! array per request, one request per cycle, correct for back-to-back requests to the same
//! entry. The four primitives of §3.2.2 are request encodings of this one unit:
//!
//! | primitive | `req_pred` | `req_op_true` / `req_value_true` | `req_op_false` / `req_value_false` |
//! |-----------|------------|----------------------------------|------------------------------------|
//! | RW (read)        | 1 | `OP_KEEP`            | — |
//! | RW (write v)     | 1 | `OP_WRITE`, v        | — |
//! | RAW (add v / overwrite v) | 1 | `OP_ADD` or `OP_WRITE`, v | — |
//! | PRAW(p, op, v)   | p | op, v                | `OP_KEEP` |
//! | ifElseRAW(p, op1, v1, op2, v2) | p | op1, v1 | op2, v2 |
//!
//! Operations: `OP_KEEP` (0, read only), `OP_ADD` (1, `old + v`, wrapping), `OP_WRITE` (2, `v`),
//! `OP_MAX` (3, `max(old, v)`: a raise-only write).
//! NDP's credit update (Algorithm 5) is ifElseRAW(is_new_msg, WRITE, BDP + 1, ADD, 1).
//!
//! # Ports
//! | port | dir | width | meaning |
//! |------|-----|-------|---------|
//! | `clock`, `reset` | in | 1 | synchronous reset clears the pipeline (not the array: entries are written by the protocol before use, e.g. by ifElseRAW's new-message branch) |
//! | `req_valid`, `req_index` | in | 1, AW | a request on entry `req_index` |
//! | `req_pred`, `req_op_true`, `req_value_true`, `req_op_false`, `req_value_false` | in | 1, 2, W, 2, W | see the table |
//! | `resp_valid`, `resp_index` | out | 1, AW | the response to the request of the previous cycle |
//! | `resp_old`, `resp_new` | out | W, W | the entry before and after the operation |
//!
//! # Latency and throughput
//! The array is a RAM with a synchronous read: the request's read is issued in its cycle, the
//! response (`resp_old`, `resp_new`) is valid **1 cycle** after the request and the new value is
//! written at the end of that cycle. A request in the next cycle to the same entry reads the
//! RAM before that write lands, so it takes the value from a forwarding register instead; any
//! later request reads the RAM. One request per cycle, every cycle, whatever the indices.
//! ```text
//! cycle     0          1                      2
//! req       A(i)       B(i)                   C(i)
//! resp                 A: old=M[i], new=a     B: old=a (forwarded), new=b
//! RAM write            M[i]←a (end of cycle)  M[i]←b
//! ```

use crate::{locals, ports, registers};
use rust_hdl::prelude::*;

pub const OP_KEEP: u64 = 0;
pub const OP_ADD: u64 = 1;
pub const OP_WRITE: u64 = 2;
pub const OP_MAX: u64 = 3;

#[ports(
    in clock: Clock;
    in reset, req_valid, req_pred: Bit;
    in req_index: Bits<AW>;
    in req_op_true, req_op_false: Bits<2>;
    in req_value_true, req_value_false: Bits<W>;
    out resp_valid: Bit;
    out resp_index: Bits<AW>;
    out resp_old, resp_new: Bits<W>;
)]
#[registers(
    /// Stage 1: the request whose RAM read is under way.
    s1_valid: Bit;
    s1_index: Bits<AW>;
    s1_op: Bits<2>;
    s1_value: Bits<W>;
    /// The write made at the end of the previous cycle (not yet visible to a read issued then).
    fwd_valid: Bit;
    fwd_index: Bits<AW>;
    fwd_value: Bits<W>;
)]
#[locals(
    old_value, new_value: Bits<W>;
)]
#[derive(LogicBlock, Default)]
pub struct RegisterExtern<const W: usize, const AW: usize> {
    array: RAM<Bits<W>, AW>,
}

impl<const W: usize, const AW: usize> Logic for RegisterExtern<W, AW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, s1_valid, s1_index, s1_op, s1_value, fwd_valid, fwd_index, fwd_value);
        self.array.read_clock.next = self.clock.val();
        self.array.write_clock.next = self.clock.val();
        // ---- Stage 0: issue the read, choose the branch.
        self.array.read_address.next = self.req_index.val();
        self.s1_valid.d.next = self.req_valid.val();
        self.s1_index.d.next = self.req_index.val();
        if self.req_pred.val() {
            self.s1_op.d.next = self.req_op_true.val();
            self.s1_value.d.next = self.req_value_true.val();
        } else {
            self.s1_op.d.next = self.req_op_false.val();
            self.s1_value.d.next = self.req_value_false.val();
        }
        // ---- Stage 1: modify and write back.
        self.old_value.next = self.array.read_data.val();
        if self.fwd_valid.q.val() & (self.fwd_index.q.val() == self.s1_index.q.val()) {
            self.old_value.next = self.fwd_value.q.val();
        }
        self.new_value.next = self.old_value.val();
        if self.s1_op.q.val() == 1 {
            self.new_value.next = self.old_value.val() + self.s1_value.q.val();
        }
        if self.s1_op.q.val() == 2 {
            self.new_value.next = self.s1_value.q.val();
        }
        if (self.s1_op.q.val() == 3) & (self.s1_value.q.val() > self.old_value.val()) {
            self.new_value.next = self.s1_value.q.val();
        }
        self.array.write_address.next = self.s1_index.q.val();
        self.array.write_data.next = self.new_value.val();
        self.array.write_enable.next = self.s1_valid.q.val();
        self.fwd_valid.d.next = self.s1_valid.q.val();
        self.fwd_index.d.next = self.s1_index.q.val();
        self.fwd_value.d.next = self.new_value.val();
        self.resp_valid.next = self.s1_valid.q.val();
        self.resp_index.next = self.s1_index.q.val();
        self.resp_old.next = self.old_value.val();
        self.resp_new.next = self.new_value.val();
        if self.reset.val() {
            self.s1_valid.d.next = false;
            self.fwd_valid.d.next = false;
        }
    }
}
