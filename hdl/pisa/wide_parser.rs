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
//! | `hdr_*` | out | — | header fields of the frame on `m_axis` ([`HeaderFields`]), valid from its first payload beat on `m_axis` until the next passed frame's first beat is there |
//! | `frame_count` | out | 32 | frames accepted |
//! | `not_ipv4_count`, `wrong_protocol_count`, `too_short_count`, `bad_checksum_count`, `bad_flags_count` | out | 32 | frames dropped, one counter per reason |
//!
//! A frame of exactly 64 bytes (no payload) comes out as one beat with `tkeep` = 0 and `tlast`.
//!
//! # Bad input
//! As the 64-bit parser, in the same order, each frame counted once (in the cycle after its
//! header beat) and consumed at full rate: too short (`tlast` on the header beat with fewer than
//! 64 bytes, or IPv4 total length < 50), not IPv4, wrong protocol, bad IPv4 header checksum, flags
//! with none of DATA/ACK/NACK/PULL.
//!
//! # Latency and throughput
//! Two stages, so that no path is deeper than the 64-bit parser's: the header beat's checks and
//! the IPv4 header's ten 16-bit words, summed in two halves, are registered when it is accepted
//! (stage 0); in the next cycle the halves are added, the checksum checked and the frame decided
//! (stage 1), while its first payload beat is taken into the output register. With the header
//! beat in cycle 0, `hdr_*` and the first payload beat are on `m_axis` in **cycle 2**. `m_axis`
//! is driven from registers; a beat is taken from `s_axis` when the output register is free
//! (empty, or its beat is taken in the same cycle), so one beat per cycle with no bubbles between
//! frames: a 65-byte frame in 2 cycles (100 GbE at 322 MHz needs one per 2.29). A header-only
//! frame's empty beat enters the output register in stage 1; the next header beat waits while it
//! cannot (it would replace the fields the beat carries). A dropped frame's payload is consumed at
//! one beat per cycle (in its decision cycle, when the output register is free).
//!
//! # Resources (Yosys `synth_xilinx -family xcup`, `synth --config blocks-16 --block wide_parser`)
//! Per module 2 599 LUT, 1 846 FF, **6 logic levels**; flattened (`--flatten`) 262 LUT, 1 494 FF,
//! 5 levels (the 64-bit parser: 8 and 7 levels). Per module most LUTs are the enables of the
//! 512-bit registers, which rust-hdl puts in the parent module and a flattening tool folds into
//! the flip-flops. The deepest paths run from the registered half sums through the last adder
//! and the checks into the drop counters.
//!
//! ```text
//! cycle      0   1   2   3   4
//! s_axis     H   p0  p1  H'
//! m_axis             p0  p1        (hdr_* valid from cycle 2, m_axis_tfirst with p0)
//! ```

use crate::common::bundles::{StreamSink, StreamSource};
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
    /// The next beat in is payload (the frame's header beat has been accepted).
    in_payload: Bit;
    /// Stage 0: a header beat was accepted last cycle; its frame is decided this cycle.
    s0_valid: Bit;
    /// Stage 0: the header beat, its checks, and the IPv4 header's words summed in two halves.
    s0_header: Bits<512>;
    s0_short, s0_header_only, s0_ok_length, s0_ok_ipv4, s0_ok_protocol, s0_ok_flags: Bit;
    s0_sum_low, s0_sum_high: Bits<20>;
    /// The current frame's payload beats after the decision go out.
    pass: Bit;
    /// The next payload beat out is the frame's first.
    first_pending: Bit;
    /// A passed header-only frame's empty beat waits for the output register.
    empty_pending: Bit;
    /// The output register: the beat on `m_axis`.
    out_valid, out_last, out_first: Bit;
    out_data: Bits<512>;
    out_keep: Bits<64>;
    /// The header of the frame on `m_axis`.
    s1_header: Bits<512>;
)]
#[locals(
    accept, header_go, short_end, out_free, ok_checksum, decide_pass, pass_now, first_now, load_beat, load_empty: Bit;
    /// The IPv4 header's ten big-endian 16-bit words (bytes 14–33), widened for the sum.
    word0, word1, word2, word3, word4, word5, word6, word7, word8, word9, sum: Bits<20>;
    total_len: Bits<16>;
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
    #[forwards]
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            in_payload,
            s0_valid,
            s0_header,
            s0_short,
            s0_header_only,
            s0_ok_length,
            s0_ok_ipv4,
            s0_ok_protocol,
            s0_ok_flags,
            s0_sum_low,
            s0_sum_high,
            pass,
            first_pending,
            empty_pending,
            out_valid,
            out_last,
            out_first,
            out_data,
            out_keep,
            s1_header
        );
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
        self.out_free.next = (!self.out_valid.q.val()) | self.m_axis.tready.val();

        // ---- Stage 1: the frame whose header beat was accepted last cycle is decided. The
        // checksum is valid when the folded one's-complement sum is 0xFFFF; the sum of ten
        // 16-bit words is below 2^20, so that is low 16 bits + high 4 bits = 0xFFFF, i.e. the low
        // 16 bits are 0xFFF and then the complement of the high 4 (no folding adders).
        self.sum.next = self.s0_sum_low.q.val() + self.s0_sum_high.q.val();
        self.ok_checksum.next =
            self.sum.val().get_bits::<12>(4).all() & (self.sum.val().get_bits::<4>(0) == !self.sum.val().get_bits::<4>(16));
        self.decide_pass.next = ((self.s0_valid.q.val() & (!self.s0_short.q.val()))
            & (self.s0_ok_length.q.val() & self.s0_ok_ipv4.q.val()))
            & ((self.s0_ok_protocol.q.val() & self.ok_checksum.val()) & self.s0_ok_flags.q.val());
        self.pass_now.next = self.pass.q.val();
        self.first_now.next = self.first_pending.q.val();
        if self.s0_valid.q.val() {
            self.pass_now.next = self.decide_pass.val();
            self.first_now.next = true;
        }

        // Header beats are taken unless a header-only frame's empty beat cannot go out this cycle
        // (the next header would replace the fields it carries); payload beats when the output
        // register is free, or at once while a dropped frame is consumed.
        self.s_axis.tready.next = true;
        if self.in_payload.q.val() {
            self.s_axis.tready.next = self.out_free.val() | ((!self.s0_valid.q.val()) & (!self.pass.q.val()));
        } else if (self.empty_pending.q.val() | (self.s0_valid.q.val() & self.s0_header_only.q.val())) & (!self.out_free.val()) {
            self.s_axis.tready.next = false;
        }
        self.accept.next = self.s_axis.tvalid.val() & self.s_axis.tready.val();
        self.header_go.next = self.accept.val() & (!self.in_payload.q.val());
        self.short_end.next = (self.header_go.val() & self.s_axis.tlast.val()) & (!self.s_axis.tkeep.val().all());
        self.load_beat.next = (self.accept.val() & self.in_payload.q.val()) & self.pass_now.val();
        self.load_empty.next = (((self.s0_valid.q.val() & self.s0_header_only.q.val()) & self.decide_pass.val())
            | self.empty_pending.q.val())
            & self.out_free.val();

        // ---- Stage 0: the header beat's checks and the IPv4 header checksum in two halves.
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
        self.total_len.next = (bit_cast::<16, 8>(self.s_axis.tdata.val().get_bits::<8>(128)) << 8)
            | bit_cast::<16, 8>(self.s_axis.tdata.val().get_bits::<8>(136));
        self.s0_valid.d.next = self.header_go.val();
        if self.header_go.val() {
            self.s0_header.d.next = self.s_axis.tdata.val();
            self.s0_short.d.next = self.short_end.val();
            self.s0_header_only.d.next = self.s_axis.tlast.val();
            self.s0_ok_length.d.next = self.total_len.val() >= 50;
            self.s0_ok_ipv4.d.next = self.s_axis.tdata.val().get_bits::<24>(96) == self.eth_ip_start.val();
            self.s0_ok_protocol.d.next = self.s_axis.tdata.val().get_bits::<8>(184) == self.ip_protocol.val();
            self.s0_ok_flags.d.next = self.s_axis.tdata.val().get_bits::<4>(272).any();
            self.s0_sum_low.d.next = ((self.word0.val() + self.word1.val()) + (self.word2.val() + self.word3.val())) + self.word4.val();
            self.s0_sum_high.d.next = ((self.word5.val() + self.word6.val()) + (self.word7.val() + self.word8.val())) + self.word9.val();
        }
        if self.accept.val() {
            if self.s_axis.tlast.val() {
                self.in_payload.d.next = false;
            } else if !self.in_payload.q.val() {
                self.in_payload.d.next = true;
            }
        }

        // ---- The decision: each frame counted once, by the first check it fails.
        if self.s0_valid.q.val() {
            if self.s0_short.q.val() | (!self.s0_ok_length.q.val()) {
                self.too_shorts.increment.next = true;
            } else if !self.s0_ok_ipv4.q.val() {
                self.not_ipv4s.increment.next = true;
            } else if !self.s0_ok_protocol.q.val() {
                self.wrong_protocols.increment.next = true;
            } else if !self.ok_checksum.val() {
                self.bad_checksums.increment.next = true;
            } else if !self.s0_ok_flags.q.val() {
                self.bad_flagss.increment.next = true;
            } else {
                self.frames.increment.next = true;
            }
            self.pass.d.next = self.decide_pass.val() & (!self.s0_header_only.q.val());
            self.first_pending.d.next = self.decide_pass.val() & (!self.s0_header_only.q.val());
            self.empty_pending.d.next = (self.decide_pass.val() & self.s0_header_only.q.val()) & (!self.out_free.val());
        }
        if (self.accept.val() & self.in_payload.q.val()) & self.s_axis.tlast.val() {
            self.pass.d.next = false;
        }
        if self.empty_pending.q.val() & self.out_free.val() {
            self.empty_pending.d.next = false;
        }

        // ---- The output register: a beat taken frees it; a payload beat or an empty beat fills it.
        if self.m_axis.tready.val() {
            self.out_valid.d.next = false;
        }
        if self.load_beat.val() {
            self.out_valid.d.next = true;
            self.out_data.d.next = self.s_axis.tdata.val();
            self.out_keep.d.next = self.s_axis.tkeep.val();
            self.out_last.d.next = self.s_axis.tlast.val();
            self.out_first.d.next = self.first_now.val();
            self.first_pending.d.next = false;
        }
        if self.load_empty.val() {
            // No byte is valid (`tkeep` = 0): the data lanes keep what they hold.
            self.out_valid.d.next = true;
            self.out_keep.d.next = 0.into();
            self.out_last.d.next = true;
            self.out_first.d.next = true;
        }
        if (self.load_beat.val() & self.first_now.val()) | self.load_empty.val() {
            self.s1_header.d.next = self.s0_header.q.val();
        }
        self.m_axis.tvalid.next = self.out_valid.q.val();
        self.m_axis.tdata.next = self.out_data.q.val();
        self.m_axis.tkeep.next = self.out_keep.q.val();
        self.m_axis.tlast.next = self.out_last.q.val();
        self.m_axis_tfirst.next = self.out_first.q.val();

        // ---- Header fields of the frame on `m_axis`.
        self.fields.header.next = self.s1_header.q.val();
        forward!(
            self.fields => hdr_dst_mac, hdr_src_mac, hdr_ip_tos, hdr_ip_total_len, hdr_ip_ident, hdr_ip_ttl, hdr_src_ip,
            hdr_dst_ip, hdr_flags, hdr_src_context, hdr_dst_context, hdr_msg_len, hdr_pkt_offset, hdr_pull_offset,
            hdr_grant_prio, hdr_tx_msg_id, hdr_buf_ptr, hdr_buf_size_class
        );

        if self.reset.val() {
            self.in_payload.d.next = false;
            self.s0_valid.d.next = false;
            self.pass.d.next = false;
            self.first_pending.d.next = false;
            self.empty_pending.d.next = false;
            self.out_valid.d.next = false;
        }
    }
}
