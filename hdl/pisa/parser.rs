//! Ingress parser: Ethernet / IPv4 / transport header (the 64-byte wire format of
//! [`crate::pisa::wire`]) from the 64-bit MAC RX stream → header fields, and the payload as a
//! stream starting at byte 0.
//!
//! # Ports
//! | port | dir | width | meaning |
//! |------|-----|-------|---------|
//! | `clock`, `reset` | in | 1 | synchronous reset: back to the start of a frame, counters zeroed |
//! | `s_axis.tdata/tkeep/tlast/tvalid`, `s_axis.tready` | in/out | 64/8/1/1/1 | frames from the MAC, without FCS; byte 0 in `tdata[7:0]`; `tkeep` contiguous from lane 0 |
//! | `m_axis.tdata/tkeep/tlast/tvalid`, `m_axis.tready` | out/in | 64/8/1/1/1 | the payload of each accepted frame, byte 0 of the payload in lane 0 |
//! | `m_axis_tfirst` | out | 1 | this beat is the first of a frame: the `hdr_*` fields describe it |
//! | `hdr_*` | out | — | header fields of the frame on `m_axis` ([`HeaderFields`]), valid from its first payload beat until the next frame's beat 7 is accepted (after this frame's last beat). |
//! | `frame_count` | out | 32 | frames accepted |
//! | `not_ipv4_count`, `wrong_protocol_count`, `too_short_count`, `bad_checksum_count`, `bad_flags_count` | out | 32 | frames dropped, one counter per reason |
//!
//! A frame with no payload (exactly 64 bytes) comes out as one beat with `tkeep` = 0 and
//! `tlast` (its header is all there is). Payload length is given by `tkeep`/`tlast`; the IPv4 total
//! length is passed on as `hdr_ip_total_len` (a frame longer than its total length, i.e. with
//! Ethernet padding, keeps its padding: frames here are at least 64 bytes so a conforming sender
//! never pads).
//!
//! # Bad input
//! Checked in this order, the first that applies counts the frame once, and the frame is
//! consumed at full rate and dropped: too short (`tlast` before byte 63, or IPv4 total length
//! < 50), not IPv4 (EtherType ≠ 0x0800 or version/IHL ≠ 0x45), wrong protocol (≠ the
//! constructor's IP protocol), bad IPv4 header checksum, flags with none of DATA/ACK/NACK/PULL.
//!
//! # Latency and throughput
//! Header bytes arrive in beats 0–7; the checksum is summed as they arrive and the checks are
//! made while beat 7 is accepted, so the header fields are valid in the cycle after beat 7: with
//! the first beat in cycle 0, `hdr_*` and the first payload beat are on `m_axis` in **cycle 8**.
//! That is the physical floor at 64 bits (the 64th byte arrives in cycle 7 and is registered).
//! Payload beats pass straight through (`m_axis.tvalid` = `s_axis.tvalid`, `s_axis.tready` =
//! `m_axis.tready` in the payload), so there is no buffering and no added latency per beat;
//! header beats and dropped frames are always accepted. Throughput: one beat per cycle, a frame of
//! `n` bytes in `ceil(n/8)` cycles, no bubbles between frames. A 64-byte header-only frame emits
//! its empty beat in the cycle after beat 7, while the next frame's header beats are accepted.
//! ```text
//! cycle      0   1   …   7   8   9
//! s_axis     h0  h1  …   h7  p0  p1
//! m_axis                     p0  p1     (hdr_* valid from cycle 8, m_axis_tfirst with p0)
//! ```

use crate::common::bundles::{NicStreamSink, NicStreamSource};
use crate::common::event_counter::WrappingCounter;
use crate::pisa::header_fields::HeaderFields;
use crate::pisa::wire::NDP_IP_PROTOCOL;
use crate::{forwards, locals, ports, registers, status_counters, Blank};
use rust_hdl::prelude::*;

#[ports(
    in clock: Clock;
    in reset: Bit;
    out m_axis_tfirst: Bit;
    out hdr_dst_mac, hdr_src_mac: Bits<48>;
    out hdr_ip_tos, hdr_ip_ttl, hdr_flags, hdr_pkt_offset, hdr_grant_prio, hdr_buf_size_class: Bits<8>;
    out hdr_ip_total_len, hdr_ip_ident, hdr_src_context, hdr_dst_context, hdr_msg_len, hdr_pull_offset, hdr_tx_msg_id,
    hdr_buf_ptr: Bits<16>;
    out hdr_src_ip, hdr_dst_ip, frame_count, not_ipv4_count, wrong_protocol_count, too_short_count, bad_checksum_count,
    bad_flags_count: Bits<32>;
)]
#[registers(
    /// Beat of the frame being received: 0–7 header, 8 payload.
    in_beat: Bits<4>;
    /// Header bytes received so far (byte k at bits 8k+7..8k).
    in_header: Bits<512>;
    /// One's-complement sum of the IPv4 header words received so far (unfolded).
    in_ip_sum: Bits<20>;
    /// Stage 1 (set when beat 7 is accepted): the header of the frame on `m_axis`.
    s1_header: Bits<512>;
    /// The payload of the current frame is passed on (the header passed every check).
    s1_pass: Bit;
    /// The next beat out is the frame's first.
    s1_first: Bit;
    /// A header-only frame passed: one empty beat to emit.
    s1_empty_pending: Bit;
)]
#[locals(
    accept, in_payload, header_beat, beat7, short_end, ok_ipv4, ok_protocol, ok_length, ok_checksum, ok_flags, empty_taken: Bit;
    header_merged: Bits<512>;
    word0, word1, word2, word3, sum_add: Bits<20>;
    fold1: Bits<17>;
    fold2, total_len: Bits<16>;
)]
#[derive(LogicBlock, Blank)]
pub struct Parser {
    /// Frames from the MAC (`s_axis$tdata`, … in the Verilog).
    pub s_axis: NicStreamSink,
    /// The payload of each accepted frame.
    pub m_axis: NicStreamSource,
    fields: HeaderFields,
    ip_protocol: Constant<Bits<8>>,
    eth_ip_start: Constant<Bits<24>>,
    frames: WrappingCounter<32>,
    not_ipv4s: WrappingCounter<32>,
    wrong_protocols: WrappingCounter<32>,
    too_shorts: WrappingCounter<32>,
    bad_checksums: WrappingCounter<32>,
    bad_flagss: WrappingCounter<32>,
}

impl Default for Parser {
    fn default() -> Self {
        Self::new(NDP_IP_PROTOCOL)
    }
}

impl Parser {
    /// A parser accepting IP protocol `ip_protocol` (NDP 155, Homa 154).
    pub fn new(ip_protocol: u8) -> Self {
        Self {
            ip_protocol: Constant::new((ip_protocol as u64).into()),
            // Bytes 12, 13, 14 = 0x08, 0x00, 0x45 (little-endian by byte position).
            eth_ip_start: Constant::new(0x45_00_08u64.into()),
            ..Self::blank()
        }
    }
}

impl Logic for Parser {
    #[status_counters]
    #[forwards]
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, in_beat, in_header, in_ip_sum, s1_header, s1_pass, s1_first, s1_empty_pending);
        status_counters!(
            self,
            clock,
            reset,
            bad_checksums => bad_checksum_count,
            bad_flagss => bad_flags_count,
            frames => frame_count,
            not_ipv4s => not_ipv4_count,
            too_shorts => too_short_count,
            wrong_protocols => wrong_protocol_count,
        );
        self.in_payload.next = self.in_beat.q.val() == 8;
        self.header_beat.next = !self.in_payload.val();
        self.empty_taken.next = self.s1_empty_pending.q.val() & self.m_axis.tready.val();
        // Header beats are always taken, except beat 7 while the previous header-only frame's
        // empty beat still waits (beat 7 replaces the header fields it carries).
        self.s_axis.tready.next = true;
        if self.in_payload.val() & self.s1_pass.q.val() {
            self.s_axis.tready.next = self.m_axis.tready.val();
        }
        if ((self.in_beat.q.val() == 7) & self.s1_empty_pending.q.val()) & (!self.empty_taken.val()) {
            self.s_axis.tready.next = false;
        }
        self.accept.next = self.s_axis.tvalid.val() & self.s_axis.tready.val();

        // ---- Payload out: straight through while the frame passes; the empty beat of a
        // header-only frame comes from the register.
        self.m_axis.tdata.next = self.s_axis.tdata.val();
        self.m_axis.tkeep.next = self.s_axis.tkeep.val();
        self.m_axis.tlast.next = self.s_axis.tlast.val();
        self.m_axis.tvalid.next = (self.s_axis.tvalid.val() & self.in_payload.val()) & self.s1_pass.q.val();
        self.m_axis_tfirst.next = self.s1_first.q.val();
        if self.s1_empty_pending.q.val() {
            self.m_axis.tdata.next = 0.into();
            self.m_axis.tkeep.next = 0.into();
            self.m_axis.tlast.next = true;
            self.m_axis.tvalid.next = true;
        }
        // ---- Header bytes into place. Lanes beyond tkeep only occur on a frame's last beat; a
        // frame ending in the header is dropped, so they need no masking.
        // Beat b fills bits 64b..64b+63: a write into a fixed field selected by the beat counter,
        // not a shift by a runtime amount (the conventions in `hdl/lib.rs`). Beat 0 starts a new header.
        self.header_merged.next = self.in_header.q.val();
        for b in 1..8 {
            if self.in_beat.q.val() == b {
                self.header_merged.next = self.in_header.q.val() | (bit_cast::<512, 64>(self.s_axis.tdata.val()) << (b * 64));
            }
        }
        if self.in_beat.q.val() == 0 {
            self.header_merged.next = bit_cast::<512, 64>(self.s_axis.tdata.val());
        }

        // ---- IPv4 header checksum (bytes 14–33), big-endian 16-bit words summed as they arrive.
        self.word0.next = (bit_cast::<20, 8>(self.s_axis.tdata.val().get_bits::<8>(0)) << 8)
            | bit_cast::<20, 8>(self.s_axis.tdata.val().get_bits::<8>(8));
        self.word1.next = (bit_cast::<20, 8>(self.s_axis.tdata.val().get_bits::<8>(16)) << 8)
            | bit_cast::<20, 8>(self.s_axis.tdata.val().get_bits::<8>(24));
        self.word2.next = (bit_cast::<20, 8>(self.s_axis.tdata.val().get_bits::<8>(32)) << 8)
            | bit_cast::<20, 8>(self.s_axis.tdata.val().get_bits::<8>(40));
        self.word3.next = (bit_cast::<20, 8>(self.s_axis.tdata.val().get_bits::<8>(48)) << 8)
            | bit_cast::<20, 8>(self.s_axis.tdata.val().get_bits::<8>(56));
        self.sum_add.next = 0.into();
        if self.in_beat.q.val() == 1 {
            self.sum_add.next = self.word3.val();
        }
        if (self.in_beat.q.val() == 2) | (self.in_beat.q.val() == 3) {
            self.sum_add.next = (self.word0.val() + self.word1.val()) + (self.word2.val() + self.word3.val());
        }
        if self.in_beat.q.val() == 4 {
            self.sum_add.next = self.word0.val();
        }
        self.fold1.next =
            bit_cast::<17, 16>(self.in_ip_sum.q.val().get_bits::<16>(0)) + bit_cast::<17, 4>(self.in_ip_sum.q.val().get_bits::<4>(16));
        self.fold2.next = self.fold1.val().get_bits::<16>(0) + bit_cast::<16, 1>(self.fold1.val().get_bits::<1>(16));

        // ---- Checks, made while beat 7 is accepted (the checksum is complete since beat 4).
        self.beat7.next = self.accept.val() & (self.in_beat.q.val() == 7);
        self.short_end.next = (self.accept.val() & self.header_beat.val())
            & (self.s_axis.tlast.val() & ((self.in_beat.q.val() < 7) | (!self.s_axis.tkeep.val().all())));
        self.total_len.next = (bit_cast::<16, 8>(self.in_header.q.val().get_bits::<8>(128)) << 8)
            | bit_cast::<16, 8>(self.in_header.q.val().get_bits::<8>(136));
        self.ok_length.next = self.total_len.val() >= 50;
        self.ok_ipv4.next = self.in_header.q.val().get_bits::<24>(96) == self.eth_ip_start.val();
        self.ok_protocol.next = self.in_header.q.val().get_bits::<8>(184) == self.ip_protocol.val();
        self.ok_checksum.next = self.fold2.val().all();
        self.ok_flags.next = self.in_header.q.val().get_bits::<4>(272).any();

        if self.accept.val() {
            self.in_header.d.next = self.header_merged.val();
            self.in_ip_sum.d.next = self.in_ip_sum.q.val() + self.sum_add.val();
            if self.in_beat.q.val() == 0 {
                self.in_ip_sum.d.next = 0.into();
            }
            if self.s_axis.tlast.val() {
                self.in_beat.d.next = 0.into();
            } else if self.header_beat.val() {
                self.in_beat.d.next = self.in_beat.q.val() + 1;
            }
        }
        if self.short_end.val() {
            self.too_shorts.increment.next = true;
        }
        // Beats taken this cycle (written before the beat-7 updates, which win).
        if self.m_axis.tvalid.val() & self.m_axis.tready.val() {
            self.s1_first.d.next = false;
        }
        if self.empty_taken.val() {
            self.s1_empty_pending.d.next = false;
            self.s1_pass.d.next = false;
        }
        if self.beat7.val() & (!self.short_end.val()) {
            self.s1_header.d.next = self.header_merged.val();
            self.s1_pass.d.next = false;
            if !self.ok_length.val() {
                self.too_shorts.increment.next = true;
            } else if !self.ok_ipv4.val() {
                self.not_ipv4s.increment.next = true;
            } else if !self.ok_protocol.val() {
                self.wrong_protocols.increment.next = true;
            } else if !self.ok_checksum.val() {
                self.bad_checksums.increment.next = true;
            } else if !self.ok_flags.val() {
                self.bad_flagss.increment.next = true;
            } else {
                self.frames.increment.next = true;
                self.s1_pass.d.next = true;
                self.s1_first.d.next = true;
                self.s1_empty_pending.d.next = self.s_axis.tlast.val();
            }
        }

        if (self.accept.val() & self.in_payload.val()) & self.s_axis.tlast.val() {
            self.s1_pass.d.next = false;
        }

        // ---- Header fields of the frame on `m_axis`.
        self.fields.header.next = self.s1_header.q.val();
        forward!(
            self.fields => hdr_dst_mac, hdr_src_mac, hdr_ip_tos, hdr_ip_total_len, hdr_ip_ident, hdr_ip_ttl, hdr_src_ip,
            hdr_dst_ip, hdr_flags, hdr_src_context, hdr_dst_context, hdr_msg_len, hdr_pkt_offset, hdr_pull_offset,
            hdr_grant_prio, hdr_tx_msg_id, hdr_buf_ptr, hdr_buf_size_class
        );

        if self.reset.val() {
            self.in_beat.d.next = 0.into();
            self.s1_pass.d.next = false;
            self.s1_first.d.next = false;
            self.s1_empty_pending.d.next = false;
        }
    }
}
