//! Message read-out (thesis Algorithm 1 lines 12–16): streams one complete message from the
//! payload memory to the CPU as two header beats and its payload. Part of
//! [`Reassembly`](crate::nic::reassembly::Reassembly), which decides when a message starts (from
//! its completion queue, or straight from the packet that completed it) and releases the slot
//! once `done` has been raised.
//!
//! # Output (`m_axis_*`, 64-bit AXI4-Stream, registered)
//! Header beat 0: bytes 0–3 `remote_ip`, 4–5 `remote_port`, 6–7 `local_port`; header beat 1:
//! bytes 0–1 `msg_len`, 2–7 zero (little-endian); then `⌈msg_len / 8⌉` payload words, the last
//! with `tlast` and a `tkeep` of `msg_len mod 8` bytes (all 8 when it is 0; bytes beyond are
//! zero).
//!
//! # Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock`, `reset` | in | 1 | reset ends a read-out and empties the output register |
//! | `ready` | out | 1 | idle, and the output register free this cycle: a `start` is taken |
//! | `start`, `header` | in | 1, 103 | begin a message: `{page[102:90], msg_len[89:74], remote_port[73:58], remote_ip[57:26], local_port[25:10], slot[IW−1:0]}` (the reassembly's queue entry); `start` only with `ready` |
//! | `payload_address`, `payload_data` | out, in | PW, 64 | the payload memory's read port (synchronous: the word addressed in one cycle arrives in the next) |
//! | `done`, `done_slot` | out | 1, IW | the last payload word enters the output register this cycle; the message's slot |
//! | `m_axis.tdata`, `m_axis.tkeep`, `m_axis.tlast`, `m_axis.tvalid` | out | 64, 8, 1, 1 | the stream, from flip-flops |
//! | `m_axis.tready` | in | 1 | |
//!
//! # Latency and throughput
//! Header beat 0 is valid the cycle after `start`, header beat 1 the next, the first payload
//! word the one after: one beat per cycle while `m_axis.tready` is high. `ready` returns in the
//! cycle the last word leaves the output register, so back-to-back messages have no gap.
//! A payload word is read at `page · 128 + k` (1 KiB pages of 64-bit words).

use crate::common::bundles::NicStreamSource;
use crate::{locals, ports, registers, Blank};
use rust_hdl::prelude::*;

/// Bits of a read-out header (the reassembly's queue entry).
pub const READ_OUT_HEADER_BITS: usize = 103;

/// The read-out of one message at a time from a payload memory of `2^PW` 64-bit words, for
/// slots of `IW` bits.
#[ports(
    in clock: Clock;
    in reset, start: Bit;
    out ready, done: Bit;
    in header: Bits<READ_OUT_HEADER_BITS>;
    out payload_address: Bits<PW>;
    in payload_data: Bits<64>;
    out done_slot: Bits<IW>;
)]
#[registers(
    /// 0 idle, 1 header beat 1 next, 2 payload.
    state: Bits<2>;
    slot: Bits<IW>;
    ptr: Bits<PW>;
    words_left: Bits<13>;
    msg_len: Bits<16>;
    out_valid, out_last: Bit;
    out_data: Bits<64>;
    out_keep: Bits<8>;
)]
#[locals(
    out_free, load_hdr1, load_data, last_word: Bit;
    first_word, ptr_next: Bits<PW>;
    last_rem: Bits<3>;
    last_rem_bits: Bits<6>;
    last_keep: Bits<8>;
    last_mask: Bits<64>;
)]
#[derive(LogicBlock, Blank)]
pub struct MessageReadOut<const IW: usize, const PW: usize> {
    /// The message stream, from flip-flops (`m_axis$tdata`, … in the Verilog).
    pub m_axis: NicStreamSource,
    all_ones64: Constant<Bits<64>>,
}

impl<const IW: usize, const PW: usize> Default for MessageReadOut<IW, PW> {
    fn default() -> Self {
        Self { all_ones64: Constant::new(Bits::<64>::mask()), ..Self::blank() }
    }
}

impl<const IW: usize, const PW: usize> Logic for MessageReadOut<IW, PW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state, slot, ptr, words_left, msg_len, out_valid, out_data, out_keep, out_last);
        self.m_axis.tvalid.next = self.out_valid.q.val();
        self.m_axis.tdata.next = self.out_data.q.val();
        self.m_axis.tkeep.next = self.out_keep.q.val();
        self.m_axis.tlast.next = self.out_last.q.val();
        self.out_free.next = (!self.out_valid.q.val()) | self.m_axis.tready.val();
        self.ready.next = (self.state.q.val() == 0) & self.out_free.val();
        self.first_word.next = bit_cast::<PW, 13>(self.header.val().get_bits::<13>(90)) << 7;
        self.load_hdr1.next = (self.state.q.val() == 1) & self.out_free.val();
        self.load_data.next = (self.state.q.val() == 2) & self.out_free.val();
        self.last_word.next = self.load_data.val() & (self.words_left.q.val() == 1);
        self.done.next = self.last_word.val();
        self.done_slot.next = self.slot.q.val();
        self.ptr_next.next = self.ptr.q.val();
        if self.start.val() {
            self.ptr_next.next = self.first_word.val();
        }
        if self.load_data.val() {
            self.ptr_next.next = self.ptr.q.val() + 1;
        }
        self.ptr.d.next = self.ptr_next.val();
        self.payload_address.next = self.ptr_next.val();
        self.last_rem.next = self.msg_len.q.val().get_bits::<3>(0);
        self.last_rem_bits.next = bit_cast::<6, 3>(self.last_rem.val()) << 3;
        self.last_keep.next = 0xFF.into();
        self.last_mask.next = self.all_ones64.val();
        if self.last_rem.val() != 0 {
            self.last_keep.next = (bits::<8>(1) << self.last_rem.val()) - 1;
            self.last_mask.next = (bits::<64>(1) << self.last_rem_bits.val()) - 1;
        }
        if self.start.val() {
            self.out_valid.d.next = true;
            // Header beat 0: remote_ip, remote_port, local_port.
            self.out_data.d.next = (bit_cast::<64, 48>(self.header.val().get_bits::<48>(26)))
                | (bit_cast::<64, 16>(self.header.val().get_bits::<16>(10)) << 48);
            self.out_keep.d.next = 0xFF.into();
            self.out_last.d.next = false;
            self.state.d.next = 1.into();
            self.slot.d.next = self.header.val().get_bits::<IW>(0);
            self.msg_len.d.next = self.header.val().get_bits::<16>(74);
        } else if self.load_hdr1.val() {
            self.out_valid.d.next = true;
            self.out_data.d.next = bit_cast::<64, 16>(self.msg_len.q.val());
            self.out_keep.d.next = 0xFF.into();
            self.out_last.d.next = false;
            self.state.d.next = 2.into();
            // Counted from the registered length during header beat 1, not in the start cycle
            // (whose header may come straight from the packet that completed the message).
            self.words_left.d.next = bit_cast::<13, 17>((bit_cast::<17, 16>(self.msg_len.q.val()) + 7) >> 3);
        } else if self.load_data.val() {
            self.out_valid.d.next = true;
            self.out_data.d.next = self.payload_data.val();
            self.out_keep.d.next = 0xFF.into();
            self.out_last.d.next = false;
            self.words_left.d.next = self.words_left.q.val() - 1;
            if self.last_word.val() {
                self.out_data.d.next = self.payload_data.val() & self.last_mask.val();
                self.out_keep.d.next = self.last_keep.val();
                self.out_last.d.next = true;
                self.state.d.next = 0.into();
            }
        } else if self.m_axis.tready.val() {
            self.out_valid.d.next = false;
        }
        if self.reset.val() {
            self.state.d.next = 0.into();
            self.out_valid.d.next = false;
        }
    }
}
