//! AXI4-Stream width converter from the CMAC's 512 bits to the NIC's 64: each wide beat leaves as
//! one narrow beat per 8 bytes it carries, in byte order, so a 64-bit NIC can sit behind a 100 GbE
//! MAC (at a 64-bit NIC's rate: 20.6 Gb/s at 322 MHz; the receive frame FIFO in front drops what
//! it cannot take).
//!
//! A wide beat's bytes are contiguous from byte 0 (`tkeep` of ones then zeros), as an AXI4-Stream
//! packet's are; a beat's narrow beats end at the first 8-byte group whose byte 0 is not kept, so
//! a wide beat with a hole sends what precedes it (and a beat that keeps nothing sends one empty
//! narrow beat, with its `tlast`).
//!
//! # Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock`, `reset` | in | 1 | synchronous reset drops the wide beat held |
//! | `s_axis$tdata`, `$tkeep`, `$tlast`, `$tvalid`, `$tready` | in/out | 512, 64, 1, 1, 1 | wide beats in |
//! | `m_axis$tdata`, `$tkeep`, `$tlast`, `$tvalid`, `$tready` | out/in | 64, 8, 1, 1, 1 | narrow beats out; `tlast` on the last narrow beat of a wide beat with `tlast` |
//!
//! # Latency and throughput
//! A wide beat taken in cycle t shows its first narrow beat from cycle t + 1; one narrow beat per
//! cycle, and the next wide beat is taken in the cycle its predecessor's last narrow beat leaves,
//! so the output has no idle cycle while beats wait. `tready` depends on `m_axis$tready` (one LUT).
//!
//! Yosys xcup (`blocks-16`: `cmac_downsizer`): 1 082 LUTs, 578 flip-flops, 1 LUT level (the
//! held beat shifts down by constant amounts, so there is no 8-way multiplexer by position).
//! `nanotransport synth --config blocks-16 --block cmac_downsizer` prints it.

use crate::common::bundles::{NicStreamSource, StreamSink};
use crate::{locals, ports, registers};
use rust_hdl::prelude::*;

/// The 512 → 64-bit converter.
#[ports(
    in clock: Clock;
    in reset: Bit;
)]
#[registers(
    /// What is left of the wide beat being sent, its next narrow beat in the low bits (shifted
    /// down by constant amounts: no multiplexer by position).
    held_data: Bits<512>;
    held_keep: Bits<64>;
    held_last, held_valid: Bit;
)]
#[locals(
    more, sent, done, take: Bit;
)]
#[derive(LogicBlock, Default)]
pub struct StreamDownsizer {
    pub s_axis: StreamSink<512, 64>,
    pub m_axis: NicStreamSource,
}

impl Logic for StreamDownsizer {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, held_data, held_keep, held_last, held_valid);
        // Another narrow beat follows: byte 0 of the next group is kept.
        self.more.next = self.held_keep.q.val().get_bit(8);
        self.m_axis.tvalid.next = self.held_valid.q.val();
        self.m_axis.tdata.next = self.held_data.q.val().get_bits::<64>(0);
        self.m_axis.tkeep.next = self.held_keep.q.val().get_bits::<8>(0);
        self.m_axis.tlast.next = self.held_last.q.val() & (!self.more.val());
        self.sent.next = self.held_valid.q.val() & self.m_axis.tready.val();
        self.done.next = self.sent.val() & (!self.more.val());
        self.s_axis.tready.next = (!self.held_valid.q.val()) | self.done.val();
        self.take.next = self.s_axis.tvalid.val() & ((!self.held_valid.q.val()) | self.done.val());
        if self.sent.val() {
            self.held_data.d.next = self.held_data.q.val() >> 64;
            self.held_keep.d.next = self.held_keep.q.val() >> 8;
        }
        if self.done.val() {
            self.held_valid.d.next = false;
        }
        if self.take.val() {
            self.held_data.d.next = self.s_axis.tdata.val();
            self.held_keep.d.next = self.s_axis.tkeep.val();
            self.held_last.d.next = self.s_axis.tlast.val();
            self.held_valid.d.next = true;
        }
        if self.reset.val() {
            self.held_valid.d.next = false;
        }
    }
}
