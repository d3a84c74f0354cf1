//! AXI4-Stream width converter from the NIC's 64 bits to the CMAC's 512: eight narrow beats, or
//! fewer ending with `tlast`, leave as one wide beat, bytes in order and `tkeep` kept, so a 64-bit
//! NIC can feed a 100 GbE MAC (the transmit frame FIFO behind it collects whole frames, so the MAC
//! never runs dry inside one).
//!
//! # Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock`, `reset` | in | 1 | synchronous reset drops the beats collected and the wide beat shown |
//! | `s_axis$tdata`, `$tkeep`, `$tlast`, `$tvalid`, `$tready` | in/out | 64, 8, 1, 1, 1 | narrow beats in |
//! | `m_axis$tdata`, `$tkeep`, `$tlast`, `$tvalid`, `$tready` | out/in | 512, 64, 1, 1, 1 | wide beats out; bytes of groups not received are zero and not kept |
//!
//! # Latency and throughput
//! The wide beat completed by a narrow beat taken in cycle t shows from cycle t + 1; one narrow
//! beat per cycle, and a wide beat is collected while the previous one waits to leave: `tready`
//! is low only while a wide beat is shown and not taken (`tready` depends on `m_axis$tready`, one
//! LUT).
//!
//! Yosys xcup (`blocks-16`: `cmac_upsizer`): 1 168 LUTs, 1 157 flip-flops, 3 LUT levels.
//! `nanotransport synth --config blocks-16 --block cmac_upsizer` prints it.

use crate::common::bundles::{NicStreamSink, StreamSource};
use crate::{locals, ports, registers, Blank};
use rust_hdl::prelude::*;

/// The 64 → 512-bit converter.
#[ports(
    in clock: Clock;
    in reset: Bit;
)]
#[registers(
    /// The wide beat shown on the output.
    out_data: Bits<512>;
    out_keep: Bits<64>;
    out_last, out_valid: Bit;
    /// The narrow beat the next one fills (0–7).
    index: Bits<3>;
)]
#[locals(
    take, complete, room: Bit;
    /// One-hot of `index`.
    slot_select: Bits<8>;
)]
#[derive(LogicBlock, Blank)]
pub struct StreamUpsizer {
    pub s_axis: NicStreamSink,
    pub m_axis: StreamSource<512, 64>,
    /// The narrow beats collected so far, zero after the last (each in its own register, placed
    /// with constant shifts).
    slot_data: [DFF<Bits<64>>; 8],
    slot_keep: [DFF<Bits<8>>; 8],
    /// The slots with this cycle's beat in its place.
    next_data: [Signal<Local, Bits<64>>; 8],
    next_keep: [Signal<Local, Bits<8>>; 8],
}

impl Default for StreamUpsizer {
    fn default() -> Self {
        Self::blank()
    }
}

impl Logic for StreamUpsizer {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, out_data, out_keep, out_last, out_valid, index);
        self.room.next = (!self.out_valid.q.val()) | self.m_axis.tready.val();
        self.s_axis.tready.next = self.room.val();
        self.take.next = self.s_axis.tvalid.val() & self.room.val();
        self.complete.next = self.take.val() & ((self.index.q.val() == 7) | self.s_axis.tlast.val());
        self.slot_select.next = bit_cast::<8, 1>(true.into()) << self.index.q.val();
        for i in 0..8 {
            self.slot_data[i].clock.next = self.clock.val();
            self.slot_keep[i].clock.next = self.clock.val();
            self.next_data[i].next = self.slot_data[i].q.val();
            self.next_keep[i].next = self.slot_keep[i].q.val();
            if self.take.val() & self.slot_select.val().get_bit(i) {
                self.next_data[i].next = self.s_axis.tdata.val();
                self.next_keep[i].next = self.s_axis.tkeep.val();
            }
            self.slot_data[i].d.next = self.next_data[i].val();
            self.slot_keep[i].d.next = self.next_keep[i].val();
            // A wide beat leaves: the slots start again from zero.
            if self.complete.val() | self.reset.val() {
                self.slot_data[i].d.next = 0.into();
                self.slot_keep[i].d.next = 0.into();
            }
        }
        if self.out_valid.q.val() & self.m_axis.tready.val() {
            self.out_valid.d.next = false;
        }
        if self.take.val() {
            self.index.d.next = self.index.q.val() + 1;
        }
        if self.complete.val() {
            self.index.d.next = 0.into();
            self.out_data.d.next = ((bit_cast::<512, 64>(self.next_data[0].val()) | (bit_cast::<512, 64>(self.next_data[1].val()) << 64))
                | ((bit_cast::<512, 64>(self.next_data[2].val()) << 128) | (bit_cast::<512, 64>(self.next_data[3].val()) << 192)))
                | (((bit_cast::<512, 64>(self.next_data[4].val()) << 256) | (bit_cast::<512, 64>(self.next_data[5].val()) << 320))
                    | ((bit_cast::<512, 64>(self.next_data[6].val()) << 384) | (bit_cast::<512, 64>(self.next_data[7].val()) << 448)));
            self.out_keep.d.next = ((bit_cast::<64, 8>(self.next_keep[0].val()) | (bit_cast::<64, 8>(self.next_keep[1].val()) << 8))
                | ((bit_cast::<64, 8>(self.next_keep[2].val()) << 16) | (bit_cast::<64, 8>(self.next_keep[3].val()) << 24)))
                | (((bit_cast::<64, 8>(self.next_keep[4].val()) << 32) | (bit_cast::<64, 8>(self.next_keep[5].val()) << 40))
                    | ((bit_cast::<64, 8>(self.next_keep[6].val()) << 48) | (bit_cast::<64, 8>(self.next_keep[7].val()) << 56)));
            self.out_last.d.next = self.s_axis.tlast.val();
            self.out_valid.d.next = true;
        }
        self.m_axis.tdata.next = self.out_data.q.val();
        self.m_axis.tkeep.next = self.out_keep.q.val();
        self.m_axis.tlast.next = self.out_last.q.val();
        self.m_axis.tvalid.next = self.out_valid.q.val();
        if self.reset.val() {
            self.index.d.next = 0.into();
            self.out_valid.d.next = false;
        }
    }
}
