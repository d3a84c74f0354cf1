//! Ingress parser for the 512-bit datapath (100 GbE): the 64-byte header of
//! [`crate::pisa::wire`] is the whole first beat of a frame, so every check is made on that one
//! beat and the payload starts at byte 0 of the second — no realignment. The same fields,
//! counters and bad-input rules as the 64-bit [`crate::pisa::parser::Parser`]; the tests hold
//! both to the same reference model (`reference/pisa.rs`).
//!
//! # Ports
//! | port | dir | width | meaning |
//! |------|-----|-------|---------|
//! | `clock`, `reset` | in | 1 | synchronous reset: back to the start of a frame (counters zeroed) |
//! | `s_axis.tdata/tkeep/tlast/tvalid`, `s_axis.tready` | in/out | 512/64/1/1/1 | frames from the MAC, without FCS; byte 0 in `tdata[7:0]`; `tkeep` contiguous from lane 0 |
//! | `m_axis.tdata/tkeep/tlast/tvalid`, `m_axis.tready` | out/in | 512/64/1/1/1 | the payload of each accepted frame, byte 0 of the payload in lane 0 |
//! | `m_axis_tfirst` | out | 1 | this beat is the first of a frame: the `hdr_*` fields describe it |
//! | `hdr_*` | out | — | header fields of the frame on `m_axis` ([`HeaderFields`]), valid from its first payload beat until the next frame's header beat is accepted |
//! | `frame_count` | out | 32 | frames accepted |
//! | `not_ipv4_count`, `wrong_protocol_count`, `too_short_count`, `bad_checksum_count`, `bad_flags_count` | out | 32 | frames dropped, one counter per reason |
//!
//! A frame of exactly 64 bytes (no payload) comes out as one beat with `tkeep` = 0 and `tlast`.
//!
//! # Bad input
//! As the 64-bit parser, in the same order, each frame counted once and consumed at full rate:
//! too short (`tlast` on the header beat with fewer than 64 bytes, or IPv4 total length < 50),
//! not IPv4, wrong protocol, bad IPv4 header checksum, flags with none of DATA/ACK/NACK/PULL.
//!
//! # Latency and throughput
//! The checks and the IPv4 checksum (ten 16-bit words summed in one tree) are made while the
//! header beat is accepted: with the header beat in cycle 0, `hdr_*` and the first payload beat
//! are on `m_axis` in **cycle 1**. Payload beats pass straight through (`m_axis.tvalid` =
//! `s_axis.tvalid`, `s_axis.tready` = `m_axis.tready`). One beat per cycle, no bubbles between
//! frames: a 65-byte frame in 2 cycles (100 GbE at 322 MHz needs one per 2.29). A header-only
//! frame emits its empty beat in the next cycle; the following frame's header beat waits while
//! that beat is not taken (it would replace the fields the beat carries).
//!
//! # Resources (Yosys `synth_xilinx -family xcup`, `synth --config blocks-16 --block wide_parser`)
//! 1 955 LUT, 708 FF, **12 logic levels** (the 64-bit parser: 1 985 LUT, 1 243 FF, 8 levels). The
//! deepest paths run from the header beat through the checksum tree and the checks into the
//! drop counters and `s1_pass`: above the 8 levels a 322 MHz design wants. Splitting the checksum
//! from the decision (a register between, the payload beat held one cycle) is the way down; not
//! done yet, and the block is not yet part of a NIC.
//!
//! ```text
//! cycle      0   1   2   3
//! s_axis     H   p0  p1  H'
//! m_axis         p0  p1        (hdr_* valid from cycle 1, m_axis_tfirst with p0)
//! ```

use crate::common::bundles::{StreamSink, StreamSource};
use crate::common::event_counter::WrappingCounter;
use crate::pisa::header_fields::HeaderFields;
use crate::pisa::wire::NDP_IP_PROTOCOL;
use crate::{locals, ports, registers, status_counters, Blank};
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
    /// The next beat in is payload (the frame's header beat has been accepted).
    in_payload: Bit;
    /// The header of the frame on `m_axis`.
    s1_header: Bits<512>;
    /// The payload of the current frame is passed on (the header passed every check).
    s1_pass: Bit;
    /// The next beat out is the frame's first.
    s1_first: Bit;
    /// A header-only frame passed: one empty beat to emit.
    s1_empty_pending: Bit;
)]
#[locals(
    accept, header_go, short_end, ok_ipv4, ok_protocol, ok_length, ok_checksum, ok_flags, empty_taken: Bit;
    /// The IPv4 header's ten big-endian 16-bit words (bytes 14–33), widened for the sum.
    word0, word1, word2, word3, word4, word5, word6, word7, word8, word9, sum: Bits<20>;
    fold1: Bits<17>;
    fold2, total_len: Bits<16>;
)]
#[derive(LogicBlock, Blank)]
pub struct WideParser {
    /// Frames from the MAC (`s_axis$tdata`, … in the Verilog).
    pub s_axis: StreamSink<512, 64>,
    /// The payload of each accepted frame.
    pub m_axis: StreamSource<512, 64>,
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

impl Default for WideParser {
    fn default() -> Self {
        Self::new(NDP_IP_PROTOCOL)
    }
}

impl WideParser {
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

impl Logic for WideParser {
    #[status_counters]
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, in_payload, s1_header, s1_pass, s1_first, s1_empty_pending);
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
        self.empty_taken.next = self.s1_empty_pending.q.val() & self.m_axis.tready.val();
        // Header beats are always taken, except while the previous header-only frame's empty
        // beat still waits (the header beat replaces the fields it carries).
        self.s_axis.tready.next = true;
        if self.in_payload.q.val() & self.s1_pass.q.val() {
            self.s_axis.tready.next = self.m_axis.tready.val();
        }
        if ((!self.in_payload.q.val()) & self.s1_empty_pending.q.val()) & (!self.empty_taken.val()) {
            self.s_axis.tready.next = false;
        }
        self.accept.next = self.s_axis.tvalid.val() & self.s_axis.tready.val();
        self.header_go.next = self.accept.val() & (!self.in_payload.q.val());

        // ---- Payload out: straight through while the frame passes; the empty beat of a
        // header-only frame comes from the register.
        self.m_axis.tdata.next = self.s_axis.tdata.val();
        self.m_axis.tkeep.next = self.s_axis.tkeep.val();
        self.m_axis.tlast.next = self.s_axis.tlast.val();
        self.m_axis.tvalid.next = (self.s_axis.tvalid.val() & self.in_payload.q.val()) & self.s1_pass.q.val();
        self.m_axis_tfirst.next = self.s1_first.q.val();
        if self.s1_empty_pending.q.val() {
            self.m_axis.tdata.next = 0.into();
            self.m_axis.tkeep.next = 0.into();
            self.m_axis.tlast.next = true;
            self.m_axis.tvalid.next = true;
        }

        // ---- IPv4 header checksum: the ten words of bytes 14–33, summed in a tree, folded twice.
        self.word0.next = (bit_cast::<20, 8>(self.s_axis.tdata.val().get_bits::<8>(112)) << 8)
            | bit_cast::<20, 8>(self.s_axis.tdata.val().get_bits::<8>(120));
        self.word1.next = (bit_cast::<20, 8>(self.s_axis.tdata.val().get_bits::<8>(128)) << 8)
            | bit_cast::<20, 8>(self.s_axis.tdata.val().get_bits::<8>(136));
        self.word2.next = (bit_cast::<20, 8>(self.s_axis.tdata.val().get_bits::<8>(144)) << 8)
            | bit_cast::<20, 8>(self.s_axis.tdata.val().get_bits::<8>(152));
        self.word3.next = (bit_cast::<20, 8>(self.s_axis.tdata.val().get_bits::<8>(160)) << 8)
            | bit_cast::<20, 8>(self.s_axis.tdata.val().get_bits::<8>(168));
        self.word4.next = (bit_cast::<20, 8>(self.s_axis.tdata.val().get_bits::<8>(176)) << 8)
            | bit_cast::<20, 8>(self.s_axis.tdata.val().get_bits::<8>(184));
        self.word5.next = (bit_cast::<20, 8>(self.s_axis.tdata.val().get_bits::<8>(192)) << 8)
            | bit_cast::<20, 8>(self.s_axis.tdata.val().get_bits::<8>(200));
        self.word6.next = (bit_cast::<20, 8>(self.s_axis.tdata.val().get_bits::<8>(208)) << 8)
            | bit_cast::<20, 8>(self.s_axis.tdata.val().get_bits::<8>(216));
        self.word7.next = (bit_cast::<20, 8>(self.s_axis.tdata.val().get_bits::<8>(224)) << 8)
            | bit_cast::<20, 8>(self.s_axis.tdata.val().get_bits::<8>(232));
        self.word8.next = (bit_cast::<20, 8>(self.s_axis.tdata.val().get_bits::<8>(240)) << 8)
            | bit_cast::<20, 8>(self.s_axis.tdata.val().get_bits::<8>(248));
        self.word9.next = (bit_cast::<20, 8>(self.s_axis.tdata.val().get_bits::<8>(256)) << 8)
            | bit_cast::<20, 8>(self.s_axis.tdata.val().get_bits::<8>(264));
        self.sum.next = (((self.word0.val() + self.word1.val()) + (self.word2.val() + self.word3.val()))
            + ((self.word4.val() + self.word5.val()) + (self.word6.val() + self.word7.val())))
            + (self.word8.val() + self.word9.val());
        self.fold1.next = bit_cast::<17, 16>(self.sum.val().get_bits::<16>(0)) + bit_cast::<17, 4>(self.sum.val().get_bits::<4>(16));
        self.fold2.next = self.fold1.val().get_bits::<16>(0) + bit_cast::<16, 1>(self.fold1.val().get_bits::<1>(16));

        // ---- Checks on the header beat.
        self.short_end.next = (self.header_go.val() & self.s_axis.tlast.val()) & (!self.s_axis.tkeep.val().all());
        self.total_len.next = (bit_cast::<16, 8>(self.s_axis.tdata.val().get_bits::<8>(128)) << 8)
            | bit_cast::<16, 8>(self.s_axis.tdata.val().get_bits::<8>(136));
        self.ok_length.next = self.total_len.val() >= 50;
        self.ok_ipv4.next = self.s_axis.tdata.val().get_bits::<24>(96) == self.eth_ip_start.val();
        self.ok_protocol.next = self.s_axis.tdata.val().get_bits::<8>(184) == self.ip_protocol.val();
        self.ok_checksum.next = self.fold2.val().all();
        self.ok_flags.next = self.s_axis.tdata.val().get_bits::<4>(272).any();

        if self.accept.val() {
            if self.s_axis.tlast.val() {
                self.in_payload.d.next = false;
            } else if !self.in_payload.q.val() {
                self.in_payload.d.next = true;
            }
        }
        if self.short_end.val() {
            self.too_shorts.increment.next = true;
        }
        // Beats taken this cycle (written before the header-beat updates, which win).
        if self.m_axis.tvalid.val() & self.m_axis.tready.val() {
            self.s1_first.d.next = false;
        }
        if self.empty_taken.val() {
            self.s1_empty_pending.d.next = false;
            self.s1_pass.d.next = false;
        }
        if self.header_go.val() & (!self.short_end.val()) {
            self.s1_header.d.next = self.s_axis.tdata.val();
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
        if (self.accept.val() & self.in_payload.q.val()) & self.s_axis.tlast.val() {
            self.s1_pass.d.next = false;
        }

        // ---- Header fields of the frame on `m_axis`.
        self.fields.header.next = self.s1_header.q.val();
        self.hdr_dst_mac.next = self.fields.hdr_dst_mac.val();
        self.hdr_src_mac.next = self.fields.hdr_src_mac.val();
        self.hdr_ip_tos.next = self.fields.hdr_ip_tos.val();
        self.hdr_ip_total_len.next = self.fields.hdr_ip_total_len.val();
        self.hdr_ip_ident.next = self.fields.hdr_ip_ident.val();
        self.hdr_ip_ttl.next = self.fields.hdr_ip_ttl.val();
        self.hdr_src_ip.next = self.fields.hdr_src_ip.val();
        self.hdr_dst_ip.next = self.fields.hdr_dst_ip.val();
        self.hdr_flags.next = self.fields.hdr_flags.val();
        self.hdr_src_context.next = self.fields.hdr_src_context.val();
        self.hdr_dst_context.next = self.fields.hdr_dst_context.val();
        self.hdr_msg_len.next = self.fields.hdr_msg_len.val();
        self.hdr_pkt_offset.next = self.fields.hdr_pkt_offset.val();
        self.hdr_pull_offset.next = self.fields.hdr_pull_offset.val();
        self.hdr_grant_prio.next = self.fields.hdr_grant_prio.val();
        self.hdr_tx_msg_id.next = self.fields.hdr_tx_msg_id.val();
        self.hdr_buf_ptr.next = self.fields.hdr_buf_ptr.val();
        self.hdr_buf_size_class.next = self.fields.hdr_buf_size_class.val();

        if self.reset.val() {
            self.in_payload.d.next = false;
            self.s1_pass.d.next = false;
            self.s1_first.d.next = false;
            self.s1_empty_pending.d.next = false;
        }
    }
}
