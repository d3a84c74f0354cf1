//! Store-and-forward frame FIFO: an AXI4-Stream frame leaves only once all of it is stored, so
//! the output never pauses inside a frame, and a frame can still be dropped while it arrives.
//!
//! The two edges of a board's MAC need it (Corundum's MAC wrappers do the same): the receive
//! side of the UltraScale+ CMAC has no `tready` and flags a bad frame (FCS or length error) in
//! `tuser` on its last beat, so the FIFO drops bad frames and frames that arrive while it is full
//! ([`FrameFifo::dropping`]); the transmit side must not run dry inside a frame (the CMAC
//! underflows and sends it corrupt), so the FIFO back-pressures its sender and forwards whole
//! frames only ([`FrameFifo::lossless`]). Either way a dropped frame is rolled back whole and
//! counted, never forwarded in part.
//!
//! # Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock`, `reset` | in | 1 | synchronous reset empties the FIFO and forgets the frame under way |
//! | `s_axis$tdata`, `$tkeep`, `$tlast`, `$tvalid`, `$tready` | in/out | `DW`, `KW`, 1, 1, 1 | frames in; `tready` is 1 in the dropping kind, and in the lossless kind 0 only while the FIFO is full of other frames |
//! | `s_axis_tuser` | in | 1 | with `tlast`: the frame is bad, drop it (the CMAC's error flag; tie 0 where there is none) |
//! | `m_axis$tdata`, `$tkeep`, `$tlast`, `$tvalid`, `$tready` | out/in | `DW`, `KW`, 1, 1, 1 | whole frames out, every beat of a frame on consecutive cycles while `tready` |
//! | `frame_count` | out | 32 | frames stored whole (each leaves) |
//! | `bad_frame_count` | out | 32 | frames dropped for `s_axis_tuser` |
//! | `overflow_count` | out | 32 | frames dropped for want of room: in the dropping kind a beat that found the FIFO full, in the lossless kind a frame longer than the whole FIFO |
//! | `level` | out | 16 | beats stored, the frame under way included |
//!
//! Counters wrap at 2^32. A beat taken while a frame is being dropped is discarded up to and
//! including its `tlast`.
//!
//! # Latency and throughput
//! One beat in and one beat out per cycle. A frame whose last beat is taken in cycle t shows its
//! first beat on `m_axis` from cycle t + 2 (one cycle to make the frame readable, one for the
//! RAM read). The FIFO holds `2^AW` beats; a frame is at most `2^AW` beats long (longer ones are
//! counted in `overflow_count`).
//!
//! Yosys xcup at 512 bits and 64 beats (`blocks-16`: `cmac_rx_fifo`, `cmac_tx_fifo`): 573 / 376
//! LUTs, 757 flip-flops, 680 LUTRAM (the beats in RAM64M8), 5 / 6 LUT levels (`stored` and
//! `readable` updates). `nanotransport synth --config blocks-16 --block cmac_rx_fifo` prints it.

use crate::common::bundles::{StreamSink, StreamSource};
use crate::common::event_counter::WrappingCounter;
use crate::{locals, ports, registers, status_counters, Blank};
use rust_hdl::prelude::*;

/// A frame FIFO of `2^AW` beats of `DW` bits (`KW` = `DW` / 8 byte enables).
#[ports(
    in clock: Clock;
    in reset, s_axis_tuser: Bit;
    out frame_count, bad_frame_count, overflow_count: Bits<32>;
    out level: Bits<16>;
)]
#[registers(
    /// Next beat's place, the first beat of the frame under way, the head.
    write_ptr, commit_ptr, read_ptr: Bits<AW>;
    /// Beats stored (the frame under way included), beats of the frame under way, beats
    /// readable, and the beats of a frame completed in the previous cycle (readable from this
    /// cycle's edge on).
    stored, frame_beats, readable, just_committed: Bits<16>;
    /// Discarding the rest of a dropped frame.
    dropping: Bit;
    /// `readable != 0`, registered: `m_axis$tvalid` comes straight from a flip-flop.
    nonempty: Bit;
)]
#[locals(
    full, oversize, ready, take, write_beat, no_room, bad, commit, rollback, pop: Bit;
    kept, popped: Bits<16>;
)]
#[derive(LogicBlock, Blank)]
pub struct FrameFifo<const DW: usize, const KW: usize, const AW: usize> {
    pub s_axis: StreamSink<DW, KW>,
    pub m_axis: StreamSource<DW, KW>,
    data: RAM<Bits<DW>, AW>,
    keep: RAM<Bits<KW>, AW>,
    last: RAM<Bit, AW>,
    depth: Constant<Bits<16>>,
    /// Back-pressure the sender when full (the transmit kind) instead of dropping.
    lossless: Constant<Bit>,
    frames: WrappingCounter<32>,
    bad_frames: WrappingCounter<32>,
    overflows: WrappingCounter<32>,
}

impl<const DW: usize, const KW: usize, const AW: usize> FrameFifo<DW, KW, AW> {
    fn new(lossless: bool) -> Self {
        assert!(AW <= 15, "levels are 16 bits");
        assert_eq!(DW, KW * 8, "one byte enable per byte");
        Self { depth: Constant::new((1u64 << AW).into()), lossless: Constant::new(lossless), ..Self::blank() }
    }

    /// The receive kind: `s_axis$tready` is always 1; a frame that finds the FIFO full is dropped.
    pub fn dropping() -> Self {
        Self::new(false)
    }

    /// The transmit kind: the sender waits while the FIFO is full; only a frame longer than the
    /// whole FIFO is dropped.
    pub fn lossless() -> Self {
        Self::new(true)
    }
}

impl<const DW: usize, const KW: usize, const AW: usize> Default for FrameFifo<DW, KW, AW> {
    fn default() -> Self {
        Self::dropping()
    }
}

impl<const DW: usize, const KW: usize, const AW: usize> Logic for FrameFifo<DW, KW, AW> {
    #[status_counters]
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, write_ptr, commit_ptr, read_ptr, stored, frame_beats, readable, just_committed, dropping, nonempty);
        status_counters!(
            self,
            clock,
            reset,
            frames => frame_count,
            bad_frames => bad_frame_count,
            overflows => overflow_count
        );
        self.data.read_clock.next = self.clock.val();
        self.data.write_clock.next = self.clock.val();
        self.keep.read_clock.next = self.clock.val();
        self.keep.write_clock.next = self.clock.val();
        self.last.read_clock.next = self.clock.val();
        self.last.write_clock.next = self.clock.val();

        // Input side.
        self.full.next = self.stored.q.val() == self.depth.val();
        // The frame under way fills the FIFO alone: it can never be stored.
        self.oversize.next = self.frame_beats.q.val() == self.depth.val();
        self.ready.next = (self.dropping.q.val() | (!self.lossless.val())) | ((!self.full.val()) | self.oversize.val());
        self.s_axis.tready.next = self.ready.val();
        self.take.next = self.s_axis.tvalid.val() & self.ready.val();
        self.write_beat.next = (self.take.val() & (!self.dropping.q.val())) & (!self.full.val());
        self.no_room.next = (self.take.val() & (!self.dropping.q.val())) & self.full.val();
        self.bad.next = (self.write_beat.val() & self.s_axis.tlast.val()) & self.s_axis_tuser.val();
        self.commit.next = (self.write_beat.val() & self.s_axis.tlast.val()) & (!self.s_axis_tuser.val());
        self.rollback.next = self.bad.val() | self.no_room.val();
        self.data.write_address.next = self.write_ptr.q.val();
        self.keep.write_address.next = self.write_ptr.q.val();
        self.last.write_address.next = self.write_ptr.q.val();
        self.data.write_data.next = self.s_axis.tdata.val();
        self.keep.write_data.next = self.s_axis.tkeep.val();
        self.last.write_data.next = self.s_axis.tlast.val();
        self.data.write_enable.next = self.write_beat.val();
        self.keep.write_enable.next = self.write_beat.val();
        self.last.write_enable.next = self.write_beat.val();
        self.frames.increment.next = self.commit.val();
        self.bad_frames.increment.next = self.bad.val();
        self.overflows.increment.next = self.no_room.val();

        // Output side: whole frames only.
        self.pop.next = self.nonempty.q.val() & self.m_axis.tready.val();
        self.popped.next = bit_cast::<16, 1>(self.pop.val().into());
        self.data.read_address.next = self.read_ptr.q.val();
        self.keep.read_address.next = self.read_ptr.q.val();
        self.last.read_address.next = self.read_ptr.q.val();
        if self.pop.val() {
            self.data.read_address.next = self.read_ptr.q.val() + 1;
            self.keep.read_address.next = self.read_ptr.q.val() + 1;
            self.last.read_address.next = self.read_ptr.q.val() + 1;
            self.read_ptr.d.next = self.read_ptr.q.val() + 1;
        }
        self.m_axis.tvalid.next = self.nonempty.q.val();
        self.m_axis.tdata.next = self.data.read_data.val();
        self.m_axis.tkeep.next = self.keep.read_data.val();
        self.m_axis.tlast.next = self.last.read_data.val();

        // The frame under way: stored beat by beat, made readable whole, or rolled back.
        self.kept.next = self.stored.q.val();
        self.just_committed.d.next = 0.into();
        if self.write_beat.val() {
            self.write_ptr.d.next = self.write_ptr.q.val() + 1;
            self.frame_beats.d.next = self.frame_beats.q.val() + 1;
            self.kept.next = self.stored.q.val() + 1;
        }
        if self.commit.val() {
            self.commit_ptr.d.next = self.write_ptr.q.val() + 1;
            self.frame_beats.d.next = 0.into();
            self.just_committed.d.next = self.frame_beats.q.val() + 1;
        }
        if self.rollback.val() {
            self.write_ptr.d.next = self.commit_ptr.q.val();
            self.frame_beats.d.next = 0.into();
            self.kept.next = self.stored.q.val() - self.frame_beats.q.val();
            self.dropping.d.next = !self.s_axis.tlast.val();
        }
        if (self.dropping.q.val() & self.take.val()) & self.s_axis.tlast.val() {
            self.dropping.d.next = false;
        }
        self.stored.d.next = self.kept.val() - self.popped.val();
        self.readable.d.next = (self.readable.q.val() + self.just_committed.q.val()) - self.popped.val();
        // Readable next cycle: a frame becomes readable, or more than the popped beat is left.
        self.nonempty.d.next =
            ((self.just_committed.q.val() != 0) | (self.readable.q.val() > 1)) | (self.nonempty.q.val() & (!self.pop.val()));
        self.level.next = self.stored.q.val();

        if self.reset.val() {
            self.write_ptr.d.next = 0.into();
            self.commit_ptr.d.next = 0.into();
            self.read_ptr.d.next = 0.into();
            self.stored.d.next = 0.into();
            self.frame_beats.d.next = 0.into();
            self.readable.d.next = 0.into();
            self.just_committed.d.next = 0.into();
            self.dropping.d.next = false;
            self.nonempty.d.next = false;
        }
    }
}
