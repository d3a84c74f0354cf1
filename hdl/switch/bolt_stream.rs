//! Bolt switch ingress behind 64-bit AXI4-Streams: parses Ethernet / IPv4 / Bolt frames, runs
//! [`BoltIngress`] on each, forwards the frame with its flags rewritten (or drops it), and builds
//! SRC packets (thesis §4.4.1) on a stream of their own.
//!
//! # Parameter
//! `src_trailing_bytes` (N, construction argument of [`BoltStream::new`], 0..=32, asserted;
//! default [`DEFAULT_SRC_TRAILING_BYTES`] = 16, as in the configuration `bolt-ingress-64p`;
//! `bolt-ingress-64p-src32` uses 32): how many bytes after the data packet's Bolt header
//! (the host transport header that identifies the flow) an SRC carries. The SRC's IPv4 total
//! length (29 + N), its checksum, its length (`max(60, 43 + N)` bytes), its beat count and last
//! `tkeep`, the beat at which a frame's descriptor goes to the core and the latency all follow
//! from N.
//!
//! # Frames
//! Beats carry 8 bytes, the first byte of the frame in `tdata[7:0]`; `tkeep` marks valid bytes
//! (contiguous from lane 0; only the last beat of a frame may be partial);
//! frames exclude the FCS. Per-frame metadata travels with the first beat in `s_axis_tuser`:
//! bits 7–0 ingress port, 15–8 egress port (routing's choice), 47–16 the egress queue's
//! occupancy in bytes. A frame is a Bolt frame when it is Ethernet type 0x0800, IPv4 with a
//! 20-byte header (first byte 0x45), protocol [`BOLT_IP_PROTOCOL`] (153), IPv4 total length ≥ 29
//! and the frame holds the whole 9-byte Bolt header (≥ 43 bytes). Anything else is forwarded
//! untouched (counted: `not_ipv4_count`, `wrong_protocol_count`, `too_short_count`, whatever the
//! egress port), unless its egress port is out of range (dropped, counted in `bad_port_count`).
//!
//! # Packet size (demand)
//! The size a Bolt frame is charged is the Ethernet frame length without FCS as its IPv4 header
//! implies it: `max(60, 14 + IPv4 total length)` (saturating at 65 535), equal to the frame
//! length for every well-formed frame, including runts padded to 60 bytes. It is known from
//! beat 2, so the frame is not held back until its end. At the frame's last beat the wrapper
//! compares it with the frame's actual length (saturating at 65 535); a Bolt frame whose length
//! differs (bytes missing or extra, or a runt not padded to 60) is counted in
//! `length_mismatch_count` (whatever its egress port). The decision for that frame was already
//! made on the header's length and stands: the frame is forwarded (or dropped for a bad port) as
//! decided, unchanged apart from its flags.
//!
//! # SRC packets (`max(60, 43 + N)` bytes)
//! Ethernet and IPv4 addresses swapped; IPv4: version 4, IHL 5, TOS and identification copied,
//! no fragment flags, TTL 64, protocol 153, total length 29 + N, header checksum computed; Bolt
//! header: `q_size` = the occupancy seen (saturated to 24 bits), `link_rate` = the egress port's
//! rate code, flags = the data packet's with DATA cleared and SRC set, `t_data_tx` reflected;
//! then the N bytes that follow the data packet's Bolt header. Only bytes that the data packet
//! carries are copied — inside both the frame and its IPv4 packet (14 + total length), so
//! Ethernet padding is never copied; when the packet carries fewer than N bytes after its Bolt
//! header, the rest of the N bytes are zero (the SRC keeps its length and total length 29 + N).
//! An SRC shorter than 60 bytes (N < 17) is padded with zero bytes to the 60-byte Ethernet
//! minimum; its IPv4 total length counts only the IP packet. `m_src_axis_tdest` is the data
//! packet's ingress port. One SRC is buffered; an SRC decided while the previous one has not been
//! fully taken by `m_src_axis` is dropped and counted (`src_dropped_count`); data forwarding
//! never waits for the SRC stream.
//!
//! # Ports
//! `s_axis_*` (tdata 64, tkeep 8, tlast, tvalid, tready, tuser 48), `m_axis_*` (tdata, tkeep,
//! tlast, tvalid, tready), `m_src_axis_*` (tdata, tkeep, tlast, tvalid, tready, tdest 8), `now`
//! (32-bit ns), the configuration inputs of [`BoltIngress`] (`cfg_mtu`, `cfg_cc_thresh`,
//! `cfg_pru_enable`, `cfg_sm_enable`, passed to it), `clock`, `reset` (synchronous), and the counters of [`BoltIngress`] plus the
//! parser's, `length_mismatch_count`, `src_sent_count` and `src_dropped_count`.
//!
//! # Latency and throughput
//! The descriptor goes to the core when the beat holding byte 42 + N (the descriptor beat,
//! `ceil((43 + N) / 8) − 1`: 7 for N = 16, 9 for N = 32, 5 for N ≤ 5) or the frame's last beat
//! is accepted, so that the SRC material is complete; the frame waits in a 32-beat FIFO for its
//! decision. Back to back at full rate, the first beat of a frame leaves
//! [`stream_latency`]`(N)` = descriptor beat + 5 cycles after it entered (3 cycles core + 2
//! cycles decision FIFO; 12 cycles for N = 16, 14 for N = 32; shorter frames are held to the same
//! lag, so it never grows); beats then leave one per cycle. Throughput: one beat per cycle in and
//! out, i.e. a frame of `n` bytes every `ceil(n / 8)` cycles, no bubbles between frames. An SRC
//! takes `ceil(max(60, 43 + N) / 8)` beats on its own stream (8 for N = 16, 10 for N = 32).

use crate::common::bundles::{NicStreamSink, NicStreamSource};
use crate::common::event_counter::WrappingCounter;
use crate::common::stream_fifo::StreamFifo;
use crate::switch::bolt_header::BOLT_IP_PROTOCOL;
use crate::switch::bolt_ingress::{BoltIngress, BoltParams};
use crate::{locals, ports, registers, status_counters, Blank};
use rust_hdl::prelude::*;

#[ports(
    in clock: Clock;
    in reset, cfg_pru_enable, cfg_sm_enable: Bit;
    in now, cfg_cc_thresh: Bits<32>;
    in cfg_mtu: Bits<16>;
    in s_axis_tuser: Bits<48>;
    out m_src_axis_tdest: Bits<8>;
    out bad_port_count, not_bolt_count, src_count, pru_token_count, pru_grant_count, supply_grant_count, not_ipv4_count,
    wrong_protocol_count, too_short_count, src_sent_count, src_dropped_count, length_mismatch_count: Bits<32>;
)]
#[registers(
    // Input side: the frame being received.
    in_beat: Bits<4>;
    in_tuser: Bits<48>;
    in_ethertype_ok, in_protocol_ok: Bit;
    in_total_len: Bits<16>;
    in_header: Bits<640>;
    /// Bytes of the frame received before this beat (saturating at 65 535).
    in_bytes: Bits<16>;
    // SRC material (frame bytes 0–79) of the last Bolt frame sent to the core, and the SRC being
    // sent. One material register suffices: consecutive Bolt descriptors are at least 6 cycles
    // apart (a Bolt frame has ≥ 6 beats and its descriptor leaves at beat ≥ 5 or its last beat),
    // more than the core's 3-cycle latency.
    src_material, src_buffer: Bits<640>;
    src_busy: Bit;
    src_beat: Bits<4>;
    src_dest: Bits<8>;
    // Output side.
    out_beat: Bits<4>;
    /// A first beat was shown without a handshake: it stays shown (AXI4-Stream) whatever the
    /// wrapping 16-bit wait count says.
    head_shown: Bit;
    cycle_count: Bits<16>;
)]
#[locals(
    room, accept, first_beat, descriptor_fire, long_enough, ethertype_now, protocol_now, length_ok, is_bolt, can_go, drop_frame,
    pop_beat, src_take, src_done: Bit;
    tuser_now: Bits<48>;
    header_merged, m, src_eth, src_ip_a, src_ip_b, src_bolt, src_frame: Bits<640>;
    keep_mask, kept_data, head_tdata: Bits<64>;
    keep_count: Bits<4>;
    frame_bytes_sum, pkt_len_sum, ip_fold1: Bits<17>;
    frame_bytes_now, pkt_len_now, total_len_now, waited, ip_fold2, ip_checksum, src_ip_tail: Bits<16>;
    head: Bits<89>;
    head_decision: Bits<9>;
    ip_words_a, ip_words_b, ip_words_c, ip_words_d, ip_sum: Bits<20>;
    src_flags: Bits<8>;
    src_offset: Bits<10>;
    src_tail_mask: Bits<256>;
)]
#[derive(LogicBlock, Blank)]
pub struct BoltStream<const P: usize, const PW: usize> {
    /// Frames arriving at the switch (`s_axis$tdata`, … in the Verilog).
    pub s_axis: NicStreamSink,
    /// Frames leaving toward the egress port (Bolt header updated).
    pub m_axis: NicStreamSource,
    /// SRC frames back toward senders.
    pub m_src_axis: NicStreamSource,
    core: BoltIngress<P, PW>,
    data_fifo: StreamFifo<Bits<89>, 5>,
    decision_fifo: StreamFifo<Bits<9>, 6>,
    fifo_depth: Constant<Bits<16>>,
    output_lag: Constant<Bits<16>>,
    decision_room: Constant<Bits<16>>,
    bolt_protocol: Constant<Bits<8>>,
    /// Byte constants, little-endian by byte position (byte 12 = 0x08, byte 13 = 0x00, …).
    ethertype_ipv4: Constant<Bits<16>>,
    ipv4_version_ihl: Constant<Bits<8>>,
    /// The SRC's IPv4 total length, byte-swapped as it sits in the frame (bytes 16–17), and as a
    /// number for the checksum.
    src_total_len: Constant<Bits<16>>,
    src_total_len_sum: Constant<Bits<20>>,
    /// Bytes after the Bolt header copied into an SRC: ones in the lowest 8 × N bits.
    src_trailing_mask: Constant<Bits<256>>,
    /// Beat of a frame at which its descriptor goes to the core (all SRC material received).
    descriptor_beat: Constant<Bits<4>>,
    /// Last beat of an SRC and its `tkeep`.
    src_last_beat: Constant<Bits<4>>,
    src_last_keep: Constant<Bits<8>>,
    header_beats: Constant<Bits<4>>,
    ones_256: Constant<Bits<256>>,
    ttl_protocol: Constant<Bits<16>>,
    header_0800_45: Constant<Bits<24>>,
    byte_mask: Constant<Bits<8>>,
    word_mask: Constant<Bits<64>>,
    // Counters.
    not_ipv4s: WrappingCounter<32>,
    wrong_protocols: WrappingCounter<32>,
    too_shorts: WrappingCounter<32>,
    srcs_sent: WrappingCounter<32>,
    srcs_dropped: WrappingCounter<32>,
    length_mismatches: WrappingCounter<32>,
}

/// Bytes after the Bolt header copied into an SRC by default (the and `bolt-ingress-64p`'s).
pub const DEFAULT_SRC_TRAILING_BYTES: usize = 16;
/// Most bytes after the Bolt header an SRC can carry (the wrapper keeps frame bytes 0–79).
pub const MAX_SRC_TRAILING_BYTES: usize = 32;
/// Ethernet minimum frame length without FCS; shorter SRCs are padded with zeros to it, and a
/// Bolt frame's demand is never below it.
pub const MIN_FRAME_BYTES: usize = 60;
/// Bytes before the data that follows the Bolt header (Ethernet 14 + IPv4 20 + Bolt 9).
const BOLT_END: usize = 43;

/// Length in bytes of the SRCs built with `src_trailing_bytes`: `max(60, 43 + src_trailing_bytes)`.
pub fn src_frame_bytes(src_trailing_bytes: usize) -> usize {
    (BOLT_END + src_trailing_bytes).max(MIN_FRAME_BYTES)
}

/// Beat (0-based) of a frame at which the wrapper hands its descriptor to the core:
/// the beat holding byte `42 + src_trailing_bytes` (or the frame's last beat, if earlier).
pub fn descriptor_beat(src_trailing_bytes: usize) -> usize {
    (BOLT_END + src_trailing_bytes).div_ceil(8) - 1
}

/// Cycles from a frame's first beat in to its first beat out, back to back with ready sinks:
/// the descriptor beat + 3 cycles core + 2 cycles decision FIFO.
pub fn stream_latency(src_trailing_bytes: usize) -> usize {
    descriptor_beat(src_trailing_bytes) + 5
}

impl<const P: usize, const PW: usize> Default for BoltStream<P, PW> {
    fn default() -> Self {
        Self::new(BoltParams::defaults(P), DEFAULT_SRC_TRAILING_BYTES)
    }
}

impl<const P: usize, const PW: usize> BoltStream<P, PW> {
    /// `src_trailing_bytes`: how many bytes after the data packet's Bolt header an SRC carries,
    /// 0..=[`MAX_SRC_TRAILING_BYTES`] (asserted).
    pub fn new(params: BoltParams, src_trailing_bytes: usize) -> Self {
        assert!(
            src_trailing_bytes <= MAX_SRC_TRAILING_BYTES,
            "SRC trailing bytes {src_trailing_bytes} out of range 0..={MAX_SRC_TRAILING_BYTES}"
        );
        let n = src_trailing_bytes;
        let src_ip_total = (BOLT_END - 14 + n) as u64;
        let src_len = src_frame_bytes(n);
        let src_last_lanes = src_len - 8 * (src_len.div_ceil(8) - 1);
        let trailing_mask: Bits<256> = if n == 0 { Bits::default() } else { Bits::<256>::mask() >> ((256 - 8 * n) as u64) };
        Self {
            core: BoltIngress::new(params),
            fifo_depth: Constant::new(32u64.into()),
            decision_room: Constant::new(60u64.into()),
            bolt_protocol: Constant::new((BOLT_IP_PROTOCOL as u64).into()),
            output_lag: Constant::new((stream_latency(n) as u64).into()),
            ethertype_ipv4: Constant::new(0x0008u64.into()),
            ipv4_version_ihl: Constant::new(0x45u64.into()),
            src_total_len: Constant::new(((src_ip_total as u16).swap_bytes() as u64).into()),
            src_total_len_sum: Constant::new(src_ip_total.into()),
            src_trailing_mask: Constant::new(trailing_mask),
            descriptor_beat: Constant::new((descriptor_beat(n) as u64).into()),
            src_last_beat: Constant::new(((src_len.div_ceil(8) - 1) as u64).into()),
            src_last_keep: Constant::new(((1u64 << src_last_lanes) - 1).into()),
            header_beats: Constant::new(10u64.into()),
            ones_256: Constant::new(Bits::<256>::mask()),
            ttl_protocol: Constant::new(0x9940u64.into()),
            header_0800_45: Constant::new(0x450008u64.into()),
            byte_mask: Constant::new(0xffu64.into()),
            word_mask: Constant::new(u64::MAX.into()),
            ..Self::blank()
        }
    }
}

impl<const P: usize, const PW: usize> Logic for BoltStream<P, PW> {
    #[status_counters]
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            in_beat,
            in_tuser,
            in_ethertype_ok,
            in_protocol_ok,
            in_total_len,
            in_header,
            in_bytes,
            src_material,
            src_buffer,
            src_busy,
            src_beat,
            src_dest,
            out_beat,
            head_shown,
            cycle_count
        );
        status_counters!(
            self,
            clock,
            reset,
            length_mismatches => length_mismatch_count,
            not_ipv4s => not_ipv4_count,
            srcs_dropped => src_dropped_count,
            srcs_sent => src_sent_count,
            too_shorts => too_short_count,
            wrong_protocols => wrong_protocol_count,
        );
        clock!(self, clock, core, data_fifo, decision_fifo);
        self.core.reset.next = self.reset.val();
        self.data_fifo.reset.next = self.reset.val();
        self.decision_fifo.reset.next = self.reset.val();
        self.core.now.next = self.now.val();
        self.core.cfg_mtu.next = self.cfg_mtu.val();
        self.core.cfg_cc_thresh.next = self.cfg_cc_thresh.val();
        self.core.cfg_pru_enable.next = self.cfg_pru_enable.val();
        self.core.cfg_sm_enable.next = self.cfg_sm_enable.val();

        // ---- Input: one beat per cycle into the data FIFO while it has room.
        // The decision FIFO (64) cannot fill: frames awaiting a decision have a beat in the data
        // FIFO (32) or are in the core (3); its level is checked all the same.
        self.room.next = (self.data_fifo.level.val() < self.fifo_depth.val()) & (self.decision_fifo.level.val() < self.decision_room.val());
        self.s_axis.tready.next = self.room.val();
        self.accept.next = self.s_axis.tvalid.val() & self.room.val();
        self.data_fifo.push.next = self.accept.val();
        // Each beat carries the cycle it arrived in (16 bits, wrapping) for the output's fixed lag.
        self.data_fifo.push_data.next = (((bit_cast::<89, 16>(self.cycle_count.q.val()) << 73)
            | (bit_cast::<89, 1>(self.s_axis.tlast.val().into()) << 72))
            | (bit_cast::<89, 8>(self.s_axis.tkeep.val()) << 64))
            | bit_cast::<89, 64>(self.s_axis.tdata.val());
        self.cycle_count.d.next = self.cycle_count.q.val() + 1;
        self.first_beat.next = !self.in_beat.q.val().any();
        self.tuser_now.next = self.in_tuser.q.val();
        if self.first_beat.val() {
            self.tuser_now.next = self.s_axis_tuser.val();
        }
        // Header bytes 0–79: beat b goes to bytes 8b…8b+7; a new frame starts from zeros.
        // Bytes beyond tkeep (contiguous from lane 0) are kept out of the header: the highest kept
        // lane sets the mask.
        self.keep_mask.next = 0.into();
        self.keep_count.next = 0.into();
        if self.s_axis.tkeep.val().get_bit(0) {
            self.keep_mask.next = self.word_mask.val() >> 56;
            self.keep_count.next = 1.into();
        }
        if self.s_axis.tkeep.val().get_bit(1) {
            self.keep_mask.next = self.word_mask.val() >> 48;
            self.keep_count.next = 2.into();
        }
        if self.s_axis.tkeep.val().get_bit(2) {
            self.keep_mask.next = self.word_mask.val() >> 40;
            self.keep_count.next = 3.into();
        }
        if self.s_axis.tkeep.val().get_bit(3) {
            self.keep_mask.next = self.word_mask.val() >> 32;
            self.keep_count.next = 4.into();
        }
        if self.s_axis.tkeep.val().get_bit(4) {
            self.keep_mask.next = self.word_mask.val() >> 24;
            self.keep_count.next = 5.into();
        }
        if self.s_axis.tkeep.val().get_bit(5) {
            self.keep_mask.next = self.word_mask.val() >> 16;
            self.keep_count.next = 6.into();
        }
        if self.s_axis.tkeep.val().get_bit(6) {
            self.keep_mask.next = self.word_mask.val() >> 8;
            self.keep_count.next = 7.into();
        }
        if self.s_axis.tkeep.val().get_bit(7) {
            self.keep_mask.next = self.word_mask.val();
            self.keep_count.next = 8.into();
        }
        self.kept_data.next = self.s_axis.tdata.val() & self.keep_mask.val();
        // Beat b replaces bits 64b..64b+63: a fixed field selected by the beat counter, not a
        // shift by a runtime amount (the conventions in `hdl/lib.rs`).
        self.header_merged.next = self.in_header.q.val();
        if self.in_beat.q.val() < self.header_beats.val() {
            for b in 0..10 {
                if self.in_beat.q.val() == b {
                    self.header_merged.next = (self.in_header.q.val() & (!(bit_cast::<640, 64>(self.word_mask.val()) << (b * 64))))
                        | (bit_cast::<640, 64>(self.kept_data.val()) << (b * 64));
                }
            }
        }
        if self.first_beat.val() {
            self.header_merged.next = bit_cast::<640, 64>(self.kept_data.val());
        }
        // Header checks, including the beat arriving now (a frame may end on beat 1 or 2).
        self.ethertype_now.next = self.in_ethertype_ok.q.val();
        self.protocol_now.next = self.in_protocol_ok.q.val();
        self.total_len_now.next = self.in_total_len.q.val();
        if self.in_beat.q.val() == 1 {
            // Bytes 12–13 EtherType 0x0800, byte 14 version 4 / IHL 5.
            self.ethertype_now.next =
                (self.s_axis.tdata.val().get_bits::<24>(32) == self.header_0800_45.val()) & self.s_axis.tkeep.val().get_bit(6);
        }
        if self.in_beat.q.val() == 2 {
            // Bytes 16–17 IPv4 total length (big-endian), byte 23 protocol.
            self.protocol_now.next =
                (self.s_axis.tdata.val().get_bits::<8>(56) == self.bolt_protocol.val()) & self.s_axis.tkeep.val().get_bit(7);
            self.total_len_now.next = (bit_cast::<16, 8>(self.s_axis.tdata.val().get_bits::<8>(0)) << 8)
                | bit_cast::<16, 8>(self.s_axis.tdata.val().get_bits::<8>(8));
        }
        // The frame holds the whole Bolt header (bytes 34–42): beat 5 with lane 2, or beyond.
        self.long_enough.next = (self.in_beat.q.val() > 5) | ((self.in_beat.q.val() == 5) & self.s_axis.tkeep.val().get_bit(2));
        self.length_ok.next = self.total_len_now.val() >= 29;
        self.is_bolt.next = ((self.ethertype_now.val() & self.protocol_now.val()) & self.length_ok.val()) & self.long_enough.val();
        self.descriptor_fire.next = self.accept.val()
            & ((self.in_beat.q.val() == self.descriptor_beat.val())
                | (self.s_axis.tlast.val() & (self.in_beat.q.val() < self.descriptor_beat.val())));
        // Frame length so far, including this beat (saturating at 65 535).
        self.frame_bytes_sum.next = bit_cast::<17, 16>(self.in_bytes.q.val()) + bit_cast::<17, 4>(self.keep_count.val());
        if self.first_beat.val() {
            self.frame_bytes_sum.next = bit_cast::<17, 4>(self.keep_count.val());
        }
        self.frame_bytes_now.next = self.frame_bytes_sum.val().get_bits::<16>(0);
        if self.frame_bytes_sum.val().get_bit(16) {
            self.frame_bytes_now.next = 0xffff.into();
        }
        // Demand: the Ethernet frame length without FCS that the IPv4 header implies,
        // max(60, 14 + total length), saturating at 65 535.
        self.pkt_len_sum.next = bit_cast::<17, 16>(self.total_len_now.val()) + 14;
        self.pkt_len_now.next = self.pkt_len_sum.val().get_bits::<16>(0);
        if self.pkt_len_sum.val().get_bit(16) {
            self.pkt_len_now.next = 0xffff.into();
        }
        if self.pkt_len_sum.val() < 60 {
            self.pkt_len_now.next = 60.into();
        }
        // At its last beat a Bolt frame's length is checked against its demand; the decision
        // made on the demand stands, the disagreement is counted.
        if ((self.accept.val() & self.s_axis.tlast.val()) & self.is_bolt.val()) & (self.frame_bytes_now.val() != self.pkt_len_now.val()) {
            self.length_mismatches.increment.next = true;
        }
        if self.accept.val() {
            self.in_header.d.next = self.header_merged.val();
            self.in_bytes.d.next = self.frame_bytes_now.val();
            self.in_ethertype_ok.d.next = self.ethertype_now.val();
            self.in_protocol_ok.d.next = self.protocol_now.val();
            self.in_total_len.d.next = self.total_len_now.val();
            if self.first_beat.val() {
                self.in_tuser.d.next = self.s_axis_tuser.val();
            }
            if self.s_axis.tlast.val() {
                self.in_beat.d.next = 0.into();
                self.in_ethertype_ok.d.next = false;
                self.in_protocol_ok.d.next = false;
                self.in_total_len.d.next = 0.into();
            } else if !self.in_beat.q.val().all() {
                self.in_beat.d.next = self.in_beat.q.val() + 1;
            }
        }
        // ---- Descriptor to the core.
        self.core.in_valid.next = self.descriptor_fire.val();
        self.core.in_bolt.next = self.is_bolt.val();
        self.core.in_flags.next = self.header_merged.val().get_bits::<8>(304);
        self.core.in_pkt_len.next = self.pkt_len_now.val();
        self.core.in_ingress_port.next = self.tuser_now.val().get_bits::<8>(0);
        self.core.in_egress_port.next = self.tuser_now.val().get_bits::<8>(8);
        self.core.in_queue_bytes.next = self.tuser_now.val().get_bits::<32>(16);
        if self.descriptor_fire.val() & self.is_bolt.val() {
            self.src_material.d.next = self.header_merged.val();
        }
        if self.descriptor_fire.val() & (!self.is_bolt.val()) {
            if !(self.ethertype_now.val()) {
                self.not_ipv4s.increment.next = true;
            } else if !(self.protocol_now.val()) {
                self.wrong_protocols.increment.next = true;
            } else {
                self.too_shorts.increment.next = true;
            }
        }

        // ---- Decisions, in frame order.
        self.decision_fifo.push.next = self.core.out_valid.val();
        self.decision_fifo.push_data.next =
            (bit_cast::<9, 1>(self.core.out_drop.val().into()) << 8) | bit_cast::<9, 8>(self.core.out_flags.val());

        // ---- Output: a frame leaves once its decision is at the head of the decision FIFO.
        self.head.next = self.data_fifo.head_data.val();
        self.head_decision.next = self.decision_fifo.head_data.val();
        // A frame starts no earlier than `output_lag` cycles after its first beat arrived: the
        // longest wait for a decision (descriptor beat + 3 cycles core + 2 cycles FIFO; 12 for
        // N = 16), so the output lag
        // is the same for every frame and back-to-back frames leave without bubbles.
        self.waited.next = self.cycle_count.q.val() - self.head.val().get_bits::<16>(73);
        self.can_go.next = (self.data_fifo.head_valid.val() & self.decision_fifo.head_valid.val())
            & (((self.out_beat.q.val().any()) | (self.waited.val() >= self.output_lag.val())) | self.head_shown.q.val());
        self.drop_frame.next = self.head_decision.val().get_bit(8);
        self.pop_beat.next = self.can_go.val() & (self.drop_frame.val() | self.m_axis.tready.val());
        self.data_fifo.pop.next = self.pop_beat.val();
        self.decision_fifo.pop.next = self.pop_beat.val() & self.head.val().get_bit(72);
        self.head_tdata.next = self.head.val().get_bits::<64>(0);
        self.m_axis.tdata.next = self.head_tdata.val();
        if self.out_beat.q.val() == 4 {
            // Byte 38 (beat 4, lane 6): the Bolt flags as decided.
            self.m_axis.tdata.next = (self.head_tdata.val() & (!(bit_cast::<64, 8>(self.byte_mask.val()) << 48)))
                | (bit_cast::<64, 8>(self.head_decision.val().get_bits::<8>(0)) << 48);
        }
        self.m_axis.tkeep.next = self.head.val().get_bits::<8>(64);
        self.m_axis.tlast.next = self.head.val().get_bit(72);
        self.m_axis.tvalid.next = self.can_go.val() & (!self.drop_frame.val());
        self.head_shown.d.next = self.m_axis.tvalid.val() & (!self.pop_beat.val());
        if self.pop_beat.val() {
            if self.head.val().get_bit(72) {
                self.out_beat.d.next = 0.into();
            } else if !self.out_beat.q.val().all() {
                self.out_beat.d.next = self.out_beat.q.val() + 1;
            }
        }

        // ---- SRC packet from the material of the frame just decided.
        self.m.next = self.src_material.q.val();
        // Bytes after the Bolt header: at most N (the parameter), and only those inside the IPv4
        // packet (14 + total length); bytes beyond the frame are zero in the material already.
        // IPv4 total length (bytes 16–17) − 29 = the packet's bytes after its Bolt header.
        self.src_ip_tail.next =
            ((bit_cast::<16, 8>(self.m.val().get_bits::<8>(128)) << 8) | bit_cast::<16, 8>(self.m.val().get_bits::<8>(136))) - 29;
        // The tail's bytes below 32: one fixed mask per length (no runtime shift of 256 bits).
        self.src_tail_mask.next = self.src_trailing_mask.val();
        for k in 0..32 {
            if self.src_ip_tail.val().get_bits::<5>(0) == k {
                self.src_tail_mask.next = self.src_trailing_mask.val() & (!(self.ones_256.val() << (k * 8)));
            }
        }
        if self.src_ip_tail.val() >= 32 {
            self.src_tail_mask.next = self.src_trailing_mask.val();
        }
        self.src_flags.next = (self.m.val().get_bits::<8>(304) & 0x7f) | 0x20;
        // IPv4 header checksum: 0x4500|TOS, 29 + N, ID, 0, TTL 64|153, 0, source (old destination),
        // destination (old source); one's complement sum folded twice.
        self.ip_words_a.next = ((bit_cast::<20, 8>(self.m.val().get_bits::<8>(120)) + 0x4500) + self.src_total_len_sum.val()) + 0x4099;
        self.ip_words_b.next =
            (bit_cast::<20, 8>(self.m.val().get_bits::<8>(144)) << 8) + bit_cast::<20, 8>(self.m.val().get_bits::<8>(152));
        self.ip_words_c.next = ((bit_cast::<20, 8>(self.m.val().get_bits::<8>(208)) << 8)
            + bit_cast::<20, 8>(self.m.val().get_bits::<8>(216)))
            + ((bit_cast::<20, 8>(self.m.val().get_bits::<8>(224)) << 8) + bit_cast::<20, 8>(self.m.val().get_bits::<8>(232)));
        self.ip_words_d.next = ((bit_cast::<20, 8>(self.m.val().get_bits::<8>(240)) << 8)
            + bit_cast::<20, 8>(self.m.val().get_bits::<8>(248)))
            + ((bit_cast::<20, 8>(self.m.val().get_bits::<8>(256)) << 8) + bit_cast::<20, 8>(self.m.val().get_bits::<8>(264)));
        self.ip_sum.next = (self.ip_words_a.val() + self.ip_words_b.val()) + (self.ip_words_c.val() + self.ip_words_d.val());
        self.ip_fold1.next =
            bit_cast::<17, 16>(self.ip_sum.val().get_bits::<16>(0)) + bit_cast::<17, 4>(self.ip_sum.val().get_bits::<4>(16));
        self.ip_fold2.next = self.ip_fold1.val().get_bits::<16>(0) + bit_cast::<16, 1>(self.ip_fold1.val().get_bits::<1>(16));
        self.ip_checksum.next = !self.ip_fold2.val();
        // Bytes: 0–5 old source MAC, 6–11 old destination MAC, 12–13 0x0800, 14 0x45, 15 TOS,
        // 16–17 29 + N, 18–19 ID, 20–21 0, 22 TTL 64, 23 protocol, 24–25 checksum, 26–29 old
        // destination IP, 30–33 old source IP, 34–36 q_size, 37 link rate, 38 flags, 39–42
        // t_data_tx, 43–(42 + N) the N bytes after the data packet's Bolt header, then zeros
        // up to the 60-byte minimum.
        self.src_eth.next = (bit_cast::<640, 48>(self.m.val().get_bits::<48>(48))
            | (bit_cast::<640, 48>(self.m.val().get_bits::<48>(0)) << 48))
            | (bit_cast::<640, 16>(self.ethertype_ipv4.val()) << 96);
        self.src_ip_a.next = ((bit_cast::<640, 8>(self.ipv4_version_ihl.val()) << 112)
            | (bit_cast::<640, 8>(self.m.val().get_bits::<8>(120)) << 120))
            | ((bit_cast::<640, 16>(self.src_total_len.val()) << 128) | (bit_cast::<640, 16>(self.m.val().get_bits::<16>(144)) << 144));
        self.src_ip_b.next = ((bit_cast::<640, 16>(self.ttl_protocol.val()) << 176)
            | (bit_cast::<640, 8>(self.ip_checksum.val().get_bits::<8>(8)) << 192))
            | ((bit_cast::<640, 8>(self.ip_checksum.val().get_bits::<8>(0)) << 200)
                | ((bit_cast::<640, 32>(self.m.val().get_bits::<32>(240)) << 208)
                    | (bit_cast::<640, 32>(self.m.val().get_bits::<32>(208)) << 240)));
        self.src_bolt.next = ((bit_cast::<640, 8>(self.core.out_q_size.val().get_bits::<8>(16)) << 272)
            | (bit_cast::<640, 8>(self.core.out_q_size.val().get_bits::<8>(8)) << 280))
            | (((bit_cast::<640, 8>(self.core.out_q_size.val().get_bits::<8>(0)) << 288)
                | (bit_cast::<640, 8>(self.core.out_link_rate.val()) << 296))
                | ((bit_cast::<640, 8>(self.src_flags.val()) << 304)
                    | ((bit_cast::<640, 32>(self.m.val().get_bits::<32>(312)) << 312)
                        | (bit_cast::<640, 256>(self.m.val().get_bits::<256>(344) & self.src_tail_mask.val()) << 344))));
        self.src_frame.next = (self.src_eth.val() | self.src_ip_a.val()) | (self.src_ip_b.val() | self.src_bolt.val());
        self.src_take.next = self.m_src_axis.tready.val() & self.src_busy.q.val();
        self.src_done.next = self.src_take.val() & (self.src_beat.q.val() == self.src_last_beat.val());
        if self.src_take.val() {
            self.src_beat.d.next = self.src_beat.q.val() + 1;
        }
        if self.src_done.val() {
            self.src_busy.d.next = false;
            self.srcs_sent.increment.next = true;
        }
        if self.core.out_valid.val() & self.core.out_src.val() {
            if self.src_busy.q.val() & (!self.src_done.val()) {
                self.srcs_dropped.increment.next = true;
            } else {
                self.src_busy.d.next = true;
                self.src_beat.d.next = 0.into();
                self.src_buffer.d.next = self.src_frame.val();
                self.src_dest.d.next = self.core.out_ingress_port.val();
            }
        }
        // The offset gets its own 9-bit signal: Verilog sizes an index expression by its operands.
        self.src_offset.next = bit_cast::<10, 4>(self.src_beat.q.val()) << 6;
        self.m_src_axis.tdata.next = self.src_buffer.q.val().get_bits::<64>(self.src_offset.val().index());
        self.m_src_axis.tkeep.next = 0xff.into();
        if self.src_beat.q.val() == self.src_last_beat.val() {
            self.m_src_axis.tkeep.next = self.src_last_keep.val();
        }
        self.m_src_axis.tlast.next = self.src_beat.q.val() == self.src_last_beat.val();
        self.m_src_axis.tvalid.next = self.src_busy.q.val();
        self.m_src_axis_tdest.next = self.src_dest.q.val();

        // ---- Counters.
        self.bad_port_count.next = self.core.bad_port_count.val();
        self.not_bolt_count.next = self.core.not_bolt_count.val();
        self.src_count.next = self.core.src_count.val();
        self.pru_token_count.next = self.core.pru_token_count.val();
        self.pru_grant_count.next = self.core.pru_grant_count.val();
        self.supply_grant_count.next = self.core.supply_grant_count.val();

        if self.reset.val() {
            self.in_beat.d.next = 0.into();
            self.in_ethertype_ok.d.next = false;
            self.in_protocol_ok.d.next = false;
            self.in_total_len.d.next = 0.into();
            self.src_busy.d.next = false;
            self.src_beat.d.next = 0.into();
            self.out_beat.d.next = 0.into();
            self.head_shown.d.next = false;
            self.in_bytes.d.next = 0.into();
        }
    }
}
