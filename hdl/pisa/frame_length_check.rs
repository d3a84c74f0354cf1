//! The length checks of the [`IngressFront`](crate::pisa::ingress_front::IngressFront) (thesis
//! §3.2.1: a packet is accepted only when its lengths agree), counted on the parser's payload
//! beats:
//! * **the frame** (its verdict after the last beat): every beat but the last full, the last
//!   one's `tkeep` contiguous from byte 0, and as many bytes as the IPv4 total length says beyond
//!   the 50 bytes of IPv4 and transport header (an FCS or other trailer left on, or a frame cut
//!   short, fails). The byte count saturates above any IPv4 length, so an overlong frame cannot
//!   wrap into agreement.
//! * **a DATA packet's length** (from its header, with the first beat): its IPv4 length must
//!   give `min(1024, msg_len − 1024 · pkt_offset)` payload bytes; an offset beyond the message
//!   passes here (GetRxMsgInfo fails it, reason 3).
//!
//! # Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock`, `reset` | in | 1 | synchronous reset: no verdict, no frame under way |
//! | `beat`, `first`, `last`, `tkeep` | in | 1, 1, 1, 8 | a payload beat taken from the parser: the frame's first (header fields valid), its last, its byte enables |
//! | `ip_total_len`, `msg_len`, `pkt_offset` | in | 16, 16, 8 | the parser's header fields |
//! | `verdict`, `frame_ok` | out | 1, 1 | registered: the frame's last beat was taken in the previous cycle; whether its length is good |
//! | `data_length_ok` | out | 1 | registered: the DATA length check of the header of the previous cycle (the match stage's cycle) |
//!
//! # Latency and throughput
//! One beat per cycle; both results one cycle after the beat they judge.

use crate::{locals, ports, registers};
use rust_hdl::prelude::*;

/// The frame and DATA length checks of a 64-bit payload stream.
#[ports(
    in clock: Clock;
    in reset, beat, first, last: Bit;
    in tkeep, pkt_offset: Bits<8>;
    in ip_total_len, msg_len: Bits<16>;
    out verdict, frame_ok, data_length_ok: Bit;
)]
#[registers(
    /// Bytes counted and whether a beat was short, for the frame under way.
    fl_bytes: Bits<16>;
    fl_bad, vd_pulse, vd_ok, length_ok: Bit;
)]
#[locals(
    beat_bytes, cur_bytes: Bits<16>;
    keep_contig, cur_bad: Bit;
    p_start, p_len, p_rest, p_expected, p_carried: Bits<24>;
)]
#[derive(LogicBlock, Default)]
pub struct FrameLengthCheck {}

impl Logic for FrameLengthCheck {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, fl_bytes, fl_bad, vd_pulse, vd_ok, length_ok);
        // A DATA packet must carry min(1024, msg_len − 1024·offset) bytes.
        self.p_start.next = bit_cast::<24, 8>(self.pkt_offset.val()) << 10;
        self.p_len.next = bit_cast::<24, 16>(self.msg_len.val());
        self.p_rest.next = self.p_len.val() - self.p_start.val();
        self.p_expected.next = self.p_rest.val();
        if self.p_rest.val() > 1024 {
            self.p_expected.next = 1024.into();
        }
        self.p_carried.next = bit_cast::<24, 16>(self.ip_total_len.val() - 50);
        self.length_ok.d.next = (self.p_start.val() >= self.p_len.val()) | (self.p_carried.val() == self.p_expected.val());

        // The frame: bytes of this beat, and of the frame so far.
        self.beat_bytes.next = 0.into();
        for i in 0..8 {
            if self.tkeep.val().get_bit(i) {
                self.beat_bytes.next = (i + 1).to_bits();
            }
        }
        self.keep_contig.next = (self.tkeep.val() & (self.tkeep.val() + 1)) == 0;
        self.cur_bytes.next = self.fl_bytes.q.val();
        self.cur_bad.next = self.fl_bad.q.val();
        if self.first.val() {
            self.cur_bytes.next = 0.into();
            self.cur_bad.next = false;
        }
        if self.beat.val() {
            if self.cur_bytes.val() < 0xFFE0 {
                self.fl_bytes.d.next = self.cur_bytes.val() + 8;
            }
            self.fl_bad.d.next = self.cur_bad.val() | (self.tkeep.val() != 0xFF);
        }
        self.vd_pulse.d.next = self.beat.val() & self.last.val();
        self.vd_ok.d.next = ((!self.cur_bad.val()) & self.keep_contig.val())
            & ((self.cur_bytes.val() + self.beat_bytes.val()) == (self.ip_total_len.val() - 50));
        self.verdict.next = self.vd_pulse.q.val();
        self.frame_ok.next = self.vd_ok.q.val();
        self.data_length_ok.next = self.length_ok.q.val();

        if self.reset.val() {
            self.vd_pulse.d.next = false;
            self.fl_bytes.d.next = 0.into();
            self.fl_bad.d.next = false;
        }
    }
}
