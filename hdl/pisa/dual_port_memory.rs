//! Dual-ported memory (thesis §3.2.2, Algorithm 6 `msgPrio`): a register array written by one
//! pipeline and read by another in the same cycle. Homa: ingress writes a message's priority
//! when a GRANT arrives, egress reads it for every outgoing DATA packet.
//!
//! # Ports
//! | port | dir | width | meaning |
//! |------|-----|-------|---------|
//! | `clock`, `reset` | in | 1 | synchronous reset: every entry reads 0 from the next cycle |
//! | `wr_valid`, `wr_index`, `wr_value` | in | 1, AW, W | write `wr_value` to entry `wr_index` (one write per cycle) |
//! | `rd_valid`, `rd_index` | in | 1, AW | read entry `rd_index` (one read per cycle) |
//! | `rd_resp_valid`, `rd_value` | out | 1, W | the read of the previous cycle (`rd_value` is 0 when no read) |
//!
//! # Latency and throughput
//! Reads are synchronous: a read issued in cycle t answers in cycle **t+1**. One read and one
//! write per cycle, every cycle, any indices.
//!
//! # Read during write: write-first
//! A read in the same cycle as a write to the same index returns the **new** value (the written
//! value is forwarded past the RAM, whose own read would see the old one). Rationale: the write
//! is the newer information (a GRANT that just changed a message's priority), and the read is
//! answered after the write has landed, so the reader sees what the array holds from then on.
//! A write in cycle t is seen by every read issued in cycle t or later.
//!
//! # Reset and initial contents
//! The array is a RAM (no reset); a flip-flop valid bit per entry is cleared by reset and set by
//! the first write, and an entry whose bit is clear reads as **0**. So every entry reads 0 after
//! reset without an init sequence (0 is the highest priority in Homa).

use crate::common::one_hot::OneHot;
use crate::{ports, registers, Blank};
use rust_hdl::prelude::*;

#[ports(
    in clock: Clock;
    in reset, wr_valid, rd_valid: Bit;
    in wr_index, rd_index: Bits<AW>;
    in wr_value: Bits<W>;
    out rd_resp_valid: Bit;
    out rd_value: Bits<W>;
)]
#[registers(
    /// One bit per entry (`N = 2^AW`): the entry was written since reset.
    written: Bits<N>;
    s1_valid, s1_written, s1_bypass: Bit;
    s1_bypass_value: Bits<W>;
)]
#[derive(LogicBlock, Blank)]
pub struct DualPortMemory<const W: usize, const N: usize, const AW: usize> {
    array: RAM<Bits<W>, AW>,
    /// One-hot mask of the entry written this cycle.
    write_mask: OneHot<N, AW>,
}

impl<const W: usize, const N: usize, const AW: usize> Default for DualPortMemory<W, N, AW> {
    fn default() -> Self {
        assert!(N == 1 << AW, "N = 2^AW entries");
        Self::blank()
    }
}

impl<const W: usize, const N: usize, const AW: usize> Logic for DualPortMemory<W, N, AW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, written, s1_valid, s1_written, s1_bypass, s1_bypass_value);
        self.array.read_clock.next = self.clock.val();
        self.array.write_clock.next = self.clock.val();
        self.array.read_address.next = self.rd_index.val();
        self.array.write_address.next = self.wr_index.val();
        self.array.write_data.next = self.wr_value.val();
        self.array.write_enable.next = self.wr_valid.val();
        self.write_mask.index.next = self.wr_index.val();
        self.write_mask.enable.next = self.wr_valid.val();
        self.written.d.next = self.written.q.val() | self.write_mask.onehot.val();
        self.s1_valid.d.next = self.rd_valid.val();
        self.s1_written.d.next = self.written.q.val().get_bit(self.rd_index.val().index());
        self.s1_bypass.d.next = (self.rd_valid.val() & self.wr_valid.val()) & (self.rd_index.val() == self.wr_index.val());
        self.s1_bypass_value.d.next = self.wr_value.val();
        self.rd_resp_valid.next = self.s1_valid.q.val();
        self.rd_value.next = 0.into();
        if self.s1_valid.q.val() & self.s1_written.q.val() {
            self.rd_value.next = self.array.read_data.val();
        }
        if self.s1_valid.q.val() & self.s1_bypass.q.val() {
            self.rd_value.next = self.s1_bypass_value.q.val();
        }
        if self.reset.val() {
            self.written.d.next = 0.into();
            self.s1_valid.d.next = false;
            self.array.write_enable.next = false;
        }
    }
}

/// The block's Verilog (for `gen`), built in its own stack frame so the configuration table's
/// frame does not grow.
#[inline(never)]
pub fn generate_verilog_of<const W: usize, const N: usize, const AW: usize>() -> String {
    crate::generate::verilog_of(&mut DualPortMemory::<W, N, AW>::default())
}
