//! Egress deparser for the 512-bit datapath (100 GbE): egress metadata + payload → a frame whose
//! first beat is the whole 64-byte header ([`crate::pisa::wire`], built by [`HeaderBuilder`]) and
//! whose payload follows from lane 0 of the next beat — no realignment. The same header, length
//! rule and counters as the 64-bit [`crate::pisa::deparser::Deparser`]; the tests hold both to the
//! same reference model (`reference/pisa.rs`).
//!
//! # Ports
//! | port | dir | width | meaning |
//! |------|-----|-------|---------|
//! | `clock`, `reset` | in | 1 | synchronous reset: every stage empty, counters zeroed |
//! | `cfg_own_mac`, `cfg_peer_mac`, `cfg_own_ip` | in | 48/48/32 | as the 64-bit deparser; change only between frames |
//! | `meta_*` | in | — | as the 64-bit deparser: valid with the first payload beat |
//! | `s_axis.tdata/tkeep/tlast/tvalid`, `s_axis.tready` | in/out | 512/64/1/1/1 | the payload, byte 0 in lane 0; an empty payload is one beat with `tkeep` = 0 and `tlast` |
//! | `m_axis.tdata/tkeep/tlast/tvalid`, `m_axis.tready` | out/in | 512/64/1/1/1 | frames toward the MAC, without FCS |
//! | `frame_count` | out | 32 | frames sent (in the count from the second cycle after its last beat) |
//! | `length_mismatch_count` | out | 32 | frames whose payload length differed from the one written into the IPv4 header (sent as they came) |
//!
//! # Latency and throughput
//! The header beat carries the IPv4 total length and checksum, which follow from the metadata
//! through a subtraction, a minimum, an addition and a ten-word sum: too deep for one cycle at
//! 322 MHz. So the beats pass through three registered stages, one beat per cycle each (a stage
//! takes a beat when it is empty or its beat moves on in the same cycle):
//! 1. the beat and the header without its lengths (metadata and configuration, latched);
//! 2. the payload length (`min(1024, msg_len − 1024 · pkt_offset)` for DATA, else 1), the beat's
//!    byte count, and the IPv4 header's fixed words summed with the header's 50 bytes;
//! 3. the total length and the checksum written into the header.
//!
//! From stage 3 a frame's first beat goes out after its header beat. With the first payload beat
//! and its metadata taken in cycle 0, the header beat is on `m_axis` in **cycle 3** and the first
//! payload beat in cycle 4 (0 and 8 at 64 bits). A frame of `n` payload bytes takes
//! `1 + max(1, ceil(n/64))` output cycles with no idle beat between frames while the input keeps
//! up: a 65-byte frame (1 payload byte) every 2 cycles. An empty payload's beat goes out with the
//! header beat (its `tlast`). The input waits one cycle per frame (the header beat's cycle).
//!
//! # Resources (Yosys `synth_xilinx -family xcup`, `synth --config blocks-16 --block wide_deparser`)
//! Per module 4 412 LUT, 3 471 FF, **8 logic levels**; flattened 921 LUT, 2 851 FF, 8 levels
//! (the three stages' registers hold 512-bit beats and headers). The deepest path is the byte
//! count of a beat (the highest lane of 64 in `tkeep`).
//!
//! ```text
//! cycle   0      1      2      3      4      5      6
//! s_axis  p0(m)  p1     q0(m)                              (nothing taken in cycle 3: p's header)
//! m_axis                       hp     p0     p1     hq
//! ```

use crate::common::bundles::{StreamSink, StreamSource};
use crate::common::event_counter::WrappingCounter;
use crate::pisa::header_builder::HeaderBuilder;
use crate::pisa::wire::NDP_IP_PROTOCOL;
use crate::{forwards, locals, ports, registers, status_counters, Blank};
use rust_hdl::prelude::*;

#[ports(
    in clock: Clock;
    in reset: Bit;
    in cfg_own_mac, cfg_peer_mac: Bits<48>;
    in cfg_own_ip, meta_remote_ip: Bits<32>;
    in meta_remote_port, meta_msg_len, meta_local_port, meta_tx_msg_id, meta_credit, meta_buf_ptr: Bits<16>;
    in meta_pkt_offset, meta_rank, meta_flags, meta_grant_prio, meta_buf_size_class: Bits<8>;
    out frame_count, length_mismatch_count: Bits<32>;
)]
#[registers(
    /// The next input beat continues a frame (its first beat has been taken).
    in_frame: Bit;
    /// Stage 1: a beat, whether it is its frame's first and last, and (first beats) its header.
    s1_valid, s1_first, s1_last: Bit;
    s1_data, s1_header: Bits<512>;
    s1_keep: Bits<64>;
    /// Stage 2: as stage 1, with the payload length, the fixed IPv4 words' sum and the beat's bytes.
    s2_valid, s2_first, s2_last: Bit;
    s2_data, s2_header: Bits<512>;
    s2_keep: Bits<64>;
    s2_payload_len: Bits<16>;
    s2_sum: Bits<20>;
    s2_bytes: Bits<7>;
    /// Stage 3: as stage 2, the header complete.
    s3_valid, s3_first, s3_last: Bit;
    s3_data, s3_header: Bits<512>;
    s3_keep: Bits<64>;
    s3_payload_len: Bits<16>;
    s3_bytes: Bits<7>;
    /// Stage 3's beat is an empty payload (`tlast`, no byte): it leaves with the header beat.
    s3_empty: Bit;
    /// Stage 3's first beat has had its header beat sent.
    header_sent: Bit;
    /// The frame going out: its payload length and the bytes sent so far.
    out_payload_len, sent_bytes: Bits<16>;
    /// A frame ended in the previous cycle, with this many payload bytes and this payload length:
    /// counted a cycle later, so the byte count and the compare are not in series.
    frame_ended: Bit;
    ended_bytes, ended_payload_len: Bits<16>;
)]
#[locals(
    s1_free, s2_free, s3_free, take_in, out_take, header_beat, beat_out, frame_done: Bit;
    header_now: Bits<512>;
    remaining, payload_len, total_len, fold2, checksum, bytes_now, frame_payload_len: Bits<16>;
    beat_bytes: Bits<7>;
    ip_sum: Bits<20>;
    fold1: Bits<17>;
)]
#[derive(LogicBlock, Blank)]
pub struct WideDeparser {
    /// The payload (`s_axis$tdata`, … in the Verilog).
    pub s_axis: StreamSink<512, 64>,
    /// Frames toward the MAC.
    pub m_axis: StreamSource<512, 64>,
    builder: HeaderBuilder,
    max_payload: Constant<Bits<16>>,
    header_len: Constant<Bits<20>>,
    frames: WrappingCounter<32>,
    mismatches: WrappingCounter<32>,
}

impl Default for WideDeparser {
    fn default() -> Self {
        Self::new(NDP_IP_PROTOCOL)
    }
}

impl WideDeparser {
    /// A deparser writing IP protocol `ip_protocol` (NDP 155, Homa 154).
    pub fn new(ip_protocol: u8) -> Self {
        Self {
            builder: HeaderBuilder::new(ip_protocol),
            max_payload: Constant::new(1024u64.into()),
            header_len: Constant::new(50u64.into()),
            ..Self::blank()
        }
    }
}

impl Logic for WideDeparser {
    #[status_counters]
    #[forwards]
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            in_frame,
            s1_valid,
            s1_first,
            s1_last,
            s1_data,
            s1_header,
            s1_keep,
            s2_valid,
            s2_first,
            s2_last,
            s2_data,
            s2_header,
            s2_keep,
            s2_payload_len,
            s2_sum,
            s2_bytes,
            s3_valid,
            s3_first,
            s3_last,
            s3_data,
            s3_header,
            s3_keep,
            s3_payload_len,
            s3_bytes,
            s3_empty,
            header_sent,
            out_payload_len,
            sent_bytes,
            frame_ended,
            ended_bytes,
            ended_payload_len
        );
        status_counters!(self, clock, reset, frames => frame_count, mismatches => length_mismatch_count);
        forward!(
            self.builder <= cfg_own_mac,
            cfg_peer_mac,
            cfg_own_ip,
            meta_remote_ip,
            meta_remote_port,
            meta_msg_len,
            meta_local_port,
            meta_tx_msg_id,
            meta_credit,
            meta_buf_ptr,
            meta_pkt_offset,
            meta_rank,
            meta_flags,
            meta_grant_prio,
            meta_buf_size_class
        );
        self.header_now.next = self.builder.header.val();

        // ---- Output: stage 3's first beat is preceded by its header beat; an empty payload's
        // beat leaves with the header beat.
        self.header_beat.next = (self.s3_valid.q.val() & self.s3_first.q.val()) & (!self.header_sent.q.val());
        self.m_axis.tvalid.next = self.s3_valid.q.val();
        self.m_axis.tdata.next = self.s3_data.q.val();
        self.m_axis.tkeep.next = self.s3_keep.q.val();
        self.m_axis.tlast.next = self.s3_last.q.val();
        if self.header_beat.val() {
            self.m_axis.tdata.next = self.s3_header.q.val();
            self.m_axis.tkeep.next = 0xFFFF_FFFF_FFFF_FFFFu64.into();
            self.m_axis.tlast.next = self.s3_empty.q.val();
        }
        self.out_take.next = self.s3_valid.q.val() & self.m_axis.tready.val();
        // Stage 3's beat leaves: a payload beat taken, or an empty payload with its header beat.
        self.beat_out.next = self.out_take.val() & ((!self.header_beat.val()) | self.s3_empty.q.val());
        if self.out_take.val() & self.header_beat.val() {
            self.header_sent.d.next = true;
        }
        if self.beat_out.val() {
            self.header_sent.d.next = false;
        }

        // ---- Stages advance: a stage takes a beat when it is empty or its beat moves on now.
        self.s3_free.next = (!self.s3_valid.q.val()) | self.beat_out.val();
        self.s2_free.next = (!self.s2_valid.q.val()) | self.s3_free.val();
        self.s1_free.next = (!self.s1_valid.q.val()) | self.s2_free.val();
        self.s_axis.tready.next = self.s1_free.val();
        self.take_in.next = self.s_axis.tvalid.val() & self.s1_free.val();
        if self.take_in.val() {
            self.in_frame.d.next = !self.s_axis.tlast.val();
        }

        // Stage 1: the beat and, for a frame's first, its header without the lengths.
        if self.s1_free.val() {
            self.s1_valid.d.next = self.take_in.val();
            self.s1_data.d.next = self.s_axis.tdata.val();
            self.s1_keep.d.next = self.s_axis.tkeep.val();
            self.s1_last.d.next = self.s_axis.tlast.val();
            self.s1_first.d.next = !self.in_frame.q.val();
            self.s1_header.d.next = self.header_now.val();
        }

        // Stage 2: the payload length, the beat's bytes (tkeep is contiguous from lane 0) and the
        // IPv4 header's fixed words (the total length and checksum bytes are zero) plus 50.
        self.remaining.next = ((bit_cast::<16, 8>(self.s1_header.q.val().get_bits::<8>(312)) << 8)
            | bit_cast::<16, 8>(self.s1_header.q.val().get_bits::<8>(320)))
            - (bit_cast::<16, 8>(self.s1_header.q.val().get_bits::<8>(328)) << 10);
        self.payload_len.next = 1.into();
        if self.s1_header.q.val().get_bit(272) {
            self.payload_len.next = self.remaining.val();
            if self.remaining.val() > self.max_payload.val() {
                self.payload_len.next = self.max_payload.val();
            }
        }
        self.beat_bytes.next = 0.into();
        for i in 0..64 {
            if self.s1_keep.q.val().get_bit(i) {
                self.beat_bytes.next = (i + 1).to_bits();
            }
        }
        self.ip_sum.next = ((((bit_cast::<20, 8>(self.s1_header.q.val().get_bits::<8>(112)) << 8)
            | bit_cast::<20, 8>(self.s1_header.q.val().get_bits::<8>(120)))
            + self.header_len.val())
            + (((bit_cast::<20, 8>(self.s1_header.q.val().get_bits::<8>(144)) << 8)
                | bit_cast::<20, 8>(self.s1_header.q.val().get_bits::<8>(152)))
                + ((bit_cast::<20, 8>(self.s1_header.q.val().get_bits::<8>(160)) << 8)
                    | bit_cast::<20, 8>(self.s1_header.q.val().get_bits::<8>(168)))))
            + ((((bit_cast::<20, 8>(self.s1_header.q.val().get_bits::<8>(176)) << 8)
                | bit_cast::<20, 8>(self.s1_header.q.val().get_bits::<8>(184)))
                + ((bit_cast::<20, 8>(self.s1_header.q.val().get_bits::<8>(208)) << 8)
                    | bit_cast::<20, 8>(self.s1_header.q.val().get_bits::<8>(216))))
                + ((((bit_cast::<20, 8>(self.s1_header.q.val().get_bits::<8>(224)) << 8)
                    | bit_cast::<20, 8>(self.s1_header.q.val().get_bits::<8>(232)))
                    + ((bit_cast::<20, 8>(self.s1_header.q.val().get_bits::<8>(240)) << 8)
                        | bit_cast::<20, 8>(self.s1_header.q.val().get_bits::<8>(248))))
                    + ((bit_cast::<20, 8>(self.s1_header.q.val().get_bits::<8>(256)) << 8)
                        | bit_cast::<20, 8>(self.s1_header.q.val().get_bits::<8>(264)))));
        if self.s2_free.val() {
            self.s2_valid.d.next = self.s1_valid.q.val();
            self.s2_data.d.next = self.s1_data.q.val();
            self.s2_keep.d.next = self.s1_keep.q.val();
            self.s2_last.d.next = self.s1_last.q.val();
            self.s2_first.d.next = self.s1_first.q.val();
            self.s2_header.d.next = self.s1_header.q.val();
            self.s2_payload_len.d.next = self.payload_len.val();
            self.s2_sum.d.next = self.ip_sum.val();
            self.s2_bytes.d.next = self.beat_bytes.val();
        }

        // Stage 3: the total length and the checksum (one's complement of the folded sum) into
        // bytes 16–17 and 24–25, big-endian.
        self.total_len.next = self.s2_payload_len.q.val() + 50;
        self.fold1.next = bit_cast::<17, 16>(self.s2_sum.q.val().get_bits::<16>(0))
            + (bit_cast::<17, 4>(self.s2_sum.q.val().get_bits::<4>(16)) + bit_cast::<17, 16>(self.s2_payload_len.q.val()));
        self.fold2.next = self.fold1.val().get_bits::<16>(0) + bit_cast::<16, 1>(self.fold1.val().get_bits::<1>(16));
        self.checksum.next = !self.fold2.val();
        if self.s3_free.val() {
            self.s3_valid.d.next = self.s2_valid.q.val();
            self.s3_data.d.next = self.s2_data.q.val();
            self.s3_keep.d.next = self.s2_keep.q.val();
            self.s3_last.d.next = self.s2_last.q.val();
            self.s3_first.d.next = self.s2_first.q.val();
            self.s3_header.d.next = ((self.s2_header.q.val() | (bit_cast::<512, 8>(self.total_len.val().get_bits::<8>(8)) << 128))
                | (bit_cast::<512, 8>(self.total_len.val().get_bits::<8>(0)) << 136))
                | ((bit_cast::<512, 8>(self.checksum.val().get_bits::<8>(8)) << 192)
                    | (bit_cast::<512, 8>(self.checksum.val().get_bits::<8>(0)) << 200));
            self.s3_payload_len.d.next = self.s2_payload_len.q.val();
            self.s3_bytes.d.next = self.s2_bytes.q.val();
            self.s3_empty.d.next = self.s2_last.q.val() & (!self.s2_keep.q.val().any());
        }

        // ---- Payload bytes per frame against the length written into its header.
        self.frame_payload_len.next = self.out_payload_len.q.val();
        if self.s3_first.q.val() {
            self.frame_payload_len.next = self.s3_payload_len.q.val();
        }
        self.bytes_now.next = self.sent_bytes.q.val() + bit_cast::<16, 7>(self.s3_bytes.q.val());
        if self.s3_first.q.val() {
            self.bytes_now.next = bit_cast::<16, 7>(self.s3_bytes.q.val());
        }
        self.frame_done.next = self.beat_out.val() & self.s3_last.q.val();
        if self.beat_out.val() {
            self.sent_bytes.d.next = self.bytes_now.val();
            self.out_payload_len.d.next = self.frame_payload_len.val();
        }
        self.frame_ended.d.next = self.frame_done.val();
        self.ended_bytes.d.next = self.bytes_now.val();
        self.ended_payload_len.d.next = self.frame_payload_len.val();
        if self.frame_ended.q.val() {
            self.frames.increment.next = true;
            if self.ended_bytes.q.val() != self.ended_payload_len.q.val() {
                self.mismatches.increment.next = true;
            }
        }

        if self.reset.val() {
            self.in_frame.d.next = false;
            self.s1_valid.d.next = false;
            self.s2_valid.d.next = false;
            self.s3_valid.d.next = false;
            self.header_sent.d.next = false;
            self.frame_ended.d.next = false;
        }
    }
}
