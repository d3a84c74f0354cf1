//! Egress deparser: egress metadata (thesis Listing 3.2) + payload stream → a frame on the
//! 64-bit MAC TX stream, the 64-byte header (layout in [`crate::pisa::wire`]) written in front
//! of the payload, IPv4 header checksum generated.
//!
//! # Ports
//! | port | dir | width | meaning |
//! |------|-----|-------|---------|
//! | `clock`, `reset` | in | 1 | synchronous reset: back to the start of a frame, counters zeroed |
//! | `cfg_own_mac`, `cfg_peer_mac`, `cfg_own_ip` | in | 48/48/32 | source MAC, destination (next-hop) MAC, source IPv4; change only between frames |
//! | `meta_*` | in | — | Listing 3.2 egress metadata, valid with the first payload beat: `remote_ip` 32, `remote_port` 16, `msg_len` 16, `pkt_offset` 8, `local_port` 16, `tx_msg_id` 16, `credit` 16, `rank` 8, `flags` 8; and the wire fields Listing 3.2 leaves to the protocol: `grant_prio` 8, `buf_ptr` 16, `buf_size_class` 8 |
//! | `s_axis.tdata/tkeep/tlast/tvalid`, `s_axis.tready` | in/out | 64/8/1/1/1 | the payload, byte 0 in lane 0; an empty payload is one beat with `tkeep` = 0 and `tlast` |
//! | `m_axis.tdata/tkeep/tlast/tvalid`, `m_axis.tready` | out/in | 64/8/1/1/1 | frames toward the MAC, without FCS |
//! | `frame_count` | out | 32 | frames sent (a frame is in the count from the second cycle after its last beat) |
//! | `length_mismatch_count` | out | 32 | frames whose payload length differed from the one written into the IPv4 header (the frame is sent as it came; in the count from the second cycle after its last beat) |
//!
//! # Header fields
//! Destination MAC `cfg_peer_mac`, source MAC `cfg_own_mac`, EtherType 0x0800; IPv4: 0x45,
//! TOS = `rank` << 2 (DSCP = rank, priority 0 highest), total length = 50 + payload length,
//! identification 0, no fragmentation, TTL 64, protocol (constructor; NDP 155), checksum,
//! source `cfg_own_ip`, destination `remote_ip`; transport: flags, src_context = `local_port`,
//! dst_context = `remote_port`, msg_len, pkt_offset, pull_offset/grant_offset = `credit`,
//! grant_prio, tx_msg_id, buf_ptr, buf_size_class, zero padding.
//! The header is written before the payload has passed, so the payload length comes from the
//! metadata: a DATA packet carries `min(1024, msg_len − 1024 · pkt_offset)` bytes, any other
//! packet the 1-byte dummy payload of a control packet. A payload of another length is sent as it
//! is and counted in `length_mismatch_count`. Listing 3.2's `is_new_msg` and `is_rtx` are for the
//! egress program, not the wire. Frames are at least 64 bytes, so the 60-byte Ethernet minimum
//! never needs padding.
//!
//! # Latency and throughput
//! Header beat 0 (the MAC addresses and EtherType, all configuration) leaves in the cycle the
//! first payload beat and its metadata arrive (**0 cycles**, combinational, `m_axis.tvalid`
//! follows `s_axis.tvalid`); the metadata is registered then, and header beats 1–7 come from that
//! register: the payload and total lengths are worked out from it during beat 1 and registered
//! (the total length goes out in beat 2), and the checksum is summed from it in beat 2 and sent from a register in beat 3. Payload beats then pass straight
//! through (`s_axis.tready` = `m_axis.tready`). A frame of `n` payload bytes takes
//! `8 + ceil(n/8)` output cycles; the next frame's header starts in the cycle after the last
//! payload beat, so there is no idle beat between frames on `m_axis` while the input has data.
//! The input is held (not ready) for the 8 header beats of each frame.
//! ```text
//! cycle      0     1   …   7   8   9
//! s_axis     p0(m) p0      p0  p0  p1       (p0 held until the header is out)
//! m_axis     h0    h1  …   h7  p0  p1
//! ```

use crate::common::bundles::{NicStreamSink, NicStreamSource};
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
    /// Output beat of the frame: 0 header beat 0 (nothing latched yet), 1–7 header, 8 payload.
    out_beat: Bits<4>;
    /// Stage 1 (latched with header beat 0): the 64 header bytes, checksum bytes zero.
    s1_header: Bits<512>;
    /// The payload is the empty beat: it goes with header beat 7.
    s1_empty: Bit;
    /// Payload length and IPv4 total length of the latched header, registered from it (valid from
    /// header beat 2 on), and bytes sent so far.
    s1_payload_len: Bits<16>;
    s1_total_len: Bits<16>;
    /// The IPv4 checksum, summed from the latched header and total length in beat 2 and sent
    /// from this register in beat 3.
    s1_checksum: Bits<16>;
    sent_bytes: Bits<16>;
    /// A frame ended in the previous cycle, with this many payload bytes: its length is checked
    /// and the counters add it a cycle later, so the byte count, the compare and the counters
    /// are not in series (the latched lengths change two cycles after a frame ends at the
    /// earliest, with the next frame's beat 1).
    frame_ended: Bit;
    frame_bytes: Bits<16>;
)]
#[locals(
    frame_mismatched, take, frame_done: Bit;
    remaining, payload_len, total_len, fold2, checksum, keep_bytes, bytes_now: Bits<16>;
    header_now: Bits<512>;
    ip_sum: Bits<20>;
    fold1: Bits<17>;
    beat_offset: Bits<9>;
    header_beat: Bits<64>;
)]
#[derive(LogicBlock, Blank)]
pub struct Deparser {
    /// The payload (`s_axis$tdata`, … in the Verilog).
    pub s_axis: NicStreamSink,
    /// Frames toward the MAC.
    pub m_axis: NicStreamSource,
    builder: HeaderBuilder,
    max_payload: Constant<Bits<16>>,
    header_len: Constant<Bits<16>>,
    frames: WrappingCounter<32>,
    mismatches: WrappingCounter<32>,
}

impl Default for Deparser {
    fn default() -> Self {
        Self::new(NDP_IP_PROTOCOL)
    }
}

impl Deparser {
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

impl Logic for Deparser {
    #[status_counters]
    #[forwards]
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            out_beat,
            s1_header,
            s1_empty,
            s1_payload_len,
            s1_total_len,
            s1_checksum,
            sent_bytes,
            frame_ended,
            frame_bytes
        );
        status_counters!(self, clock, reset, frames => frame_count, mismatches => length_mismatch_count);

        // ---- The header of the frame whose first payload beat is at the input, without its total
        // length and checksum (bytes 16–17 and 24–25 stay zero in the latched header).
        // ---- The lengths, from the latched header's flags, msg_len and pkt_offset fields.
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
        self.total_len.next = self.payload_len.val() + self.header_len.val();
        self.s1_payload_len.d.next = self.payload_len.val();
        self.s1_total_len.d.next = self.total_len.val();
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

        // ---- IPv4 header checksum from the latched header (its checksum bytes are zero).
        self.ip_sum.next = (((((bit_cast::<20, 8>(self.s1_header.q.val().get_bits::<8>(112)) << 8)
            | bit_cast::<20, 8>(self.s1_header.q.val().get_bits::<8>(120)))
            + bit_cast::<20, 16>(self.s1_total_len.q.val()))
            + (((bit_cast::<20, 8>(self.s1_header.q.val().get_bits::<8>(144)) << 8)
                | bit_cast::<20, 8>(self.s1_header.q.val().get_bits::<8>(152)))
                + ((bit_cast::<20, 8>(self.s1_header.q.val().get_bits::<8>(160)) << 8)
                    | bit_cast::<20, 8>(self.s1_header.q.val().get_bits::<8>(168)))))
            + ((((bit_cast::<20, 8>(self.s1_header.q.val().get_bits::<8>(176)) << 8)
                | bit_cast::<20, 8>(self.s1_header.q.val().get_bits::<8>(184)))
                + ((bit_cast::<20, 8>(self.s1_header.q.val().get_bits::<8>(208)) << 8)
                    | bit_cast::<20, 8>(self.s1_header.q.val().get_bits::<8>(216))))
                + (((bit_cast::<20, 8>(self.s1_header.q.val().get_bits::<8>(224)) << 8)
                    | bit_cast::<20, 8>(self.s1_header.q.val().get_bits::<8>(232)))
                    + ((bit_cast::<20, 8>(self.s1_header.q.val().get_bits::<8>(240)) << 8)
                        | bit_cast::<20, 8>(self.s1_header.q.val().get_bits::<8>(248))))))
            + ((bit_cast::<20, 8>(self.s1_header.q.val().get_bits::<8>(256)) << 8)
                | bit_cast::<20, 8>(self.s1_header.q.val().get_bits::<8>(264)));
        self.fold1.next = bit_cast::<17, 16>(self.ip_sum.val().get_bits::<16>(0)) + bit_cast::<17, 4>(self.ip_sum.val().get_bits::<4>(16));
        self.fold2.next = self.fold1.val().get_bits::<16>(0) + bit_cast::<16, 1>(self.fold1.val().get_bits::<1>(16));
        self.checksum.next = !self.fold2.val();
        self.s1_checksum.d.next = self.checksum.val();

        // ---- Output.
        self.beat_offset.next = bit_cast::<9, 4>(self.out_beat.q.val()) << 6;
        self.header_beat.next = self.s1_header.q.val().get_bits::<64>(self.beat_offset.val().index());
        self.m_axis.tkeep.next = 0xff.into();
        self.m_axis.tlast.next = false;
        self.m_axis.tvalid.next = true;
        self.s_axis.tready.next = false;
        if self.out_beat.q.val() == 0 {
            self.m_axis.tdata.next = self.header_now.val().get_bits::<64>(0);
            self.m_axis.tvalid.next = self.s_axis.tvalid.val();
        } else if self.out_beat.q.val() == 2 {
            // Bytes 16–17: the total length, big-endian.
            self.m_axis.tdata.next = (self.header_beat.val() | bit_cast::<64, 8>(self.s1_total_len.q.val().get_bits::<8>(8)))
                | (bit_cast::<64, 8>(self.s1_total_len.q.val().get_bits::<8>(0)) << 8);
        } else if self.out_beat.q.val() == 3 {
            // Bytes 24–25: the checksum, big-endian.
            self.m_axis.tdata.next = (self.header_beat.val() | bit_cast::<64, 8>(self.s1_checksum.q.val().get_bits::<8>(8)))
                | (bit_cast::<64, 8>(self.s1_checksum.q.val().get_bits::<8>(0)) << 8);
        } else if self.out_beat.q.val() == 7 {
            self.m_axis.tdata.next = self.header_beat.val();
            self.m_axis.tlast.next = self.s1_empty.q.val();
            // The empty payload beat is taken with the last header beat.
            self.s_axis.tready.next = self.m_axis.tready.val() & self.s1_empty.q.val();
        } else if self.out_beat.q.val() == 8 {
            self.m_axis.tdata.next = self.s_axis.tdata.val();
            self.m_axis.tkeep.next = self.s_axis.tkeep.val();
            self.m_axis.tlast.next = self.s_axis.tlast.val();
            self.m_axis.tvalid.next = self.s_axis.tvalid.val();
            self.s_axis.tready.next = self.m_axis.tready.val();
        } else {
            self.m_axis.tdata.next = self.header_beat.val();
        }
        self.take.next = self.m_axis.tvalid.val() & self.m_axis.tready.val();

        // ---- Payload bytes counted (tkeep is contiguous from lane 0).
        self.keep_bytes.next = ((bit_cast::<16, 1>(self.s_axis.tkeep.val().get_bits::<1>(0))
            + bit_cast::<16, 1>(self.s_axis.tkeep.val().get_bits::<1>(1)))
            + (bit_cast::<16, 1>(self.s_axis.tkeep.val().get_bits::<1>(2)) + bit_cast::<16, 1>(self.s_axis.tkeep.val().get_bits::<1>(3))))
            + ((bit_cast::<16, 1>(self.s_axis.tkeep.val().get_bits::<1>(4)) + bit_cast::<16, 1>(self.s_axis.tkeep.val().get_bits::<1>(5)))
                + (bit_cast::<16, 1>(self.s_axis.tkeep.val().get_bits::<1>(6))
                    + bit_cast::<16, 1>(self.s_axis.tkeep.val().get_bits::<1>(7))));
        self.bytes_now.next = self.sent_bytes.q.val() + self.keep_bytes.val();
        self.frame_done.next = false;
        if self.take.val() {
            if self.out_beat.q.val() == 0 {
                self.s1_header.d.next = self.header_now.val();
                self.s1_empty.d.next = self.s_axis.tlast.val() & (!self.s_axis.tkeep.val().any());
                self.sent_bytes.d.next = 0.into();
                self.out_beat.d.next = 1.into();
            } else if self.out_beat.q.val() == 7 {
                if self.s1_empty.q.val() {
                    self.out_beat.d.next = 0.into();
                    self.frame_done.next = true;
                } else {
                    self.out_beat.d.next = 8.into();
                }
            } else if self.out_beat.q.val() == 8 {
                self.sent_bytes.d.next = self.bytes_now.val();
                if self.s_axis.tlast.val() {
                    self.out_beat.d.next = 0.into();
                    self.frame_done.next = true;
                }
            } else {
                self.out_beat.d.next = self.out_beat.q.val() + 1;
            }
        }
        self.frame_ended.d.next = self.frame_done.val();
        self.frame_bytes.d.next = self.bytes_now.val();
        self.frame_mismatched.next = self.frame_ended.q.val()
            & ((self.s1_empty.q.val() & self.s1_payload_len.q.val().any())
                | ((!self.s1_empty.q.val()) & (self.frame_bytes.q.val() != self.s1_payload_len.q.val())));
        if self.frame_ended.q.val() {
            self.frames.increment.next = true;
        }
        if self.frame_mismatched.val() {
            self.mismatches.increment.next = true;
        }

        if self.reset.val() {
            self.out_beat.d.next = 0.into();
            self.frame_ended.d.next = false;
        }
    }
}
