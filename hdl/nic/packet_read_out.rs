//! Packet read-out of the transmit path (thesis §3.2.4): turns one packet descriptor at a time
//! (Listing 3.2) into the packet's payload beats, read from the payload memory, with the
//! descriptor's metadata held for the whole packet. Part of
//! [`TxPath`](crate::nic::tx_path::TxPath), which feeds it the packetization core's descriptors
//! with the buffer base of their slot, and keeps a buffer while `busy_slot` references it.
//!
//! A packet carries `min(1024, msg_len − 1024 · offset)` bytes from word `base + 128 · offset`:
//! 128 full beats, or the short last packet's `⌈(msg_len mod 1024) / 8⌉` beats with a last
//! `tkeep` of `msg_len mod 8` bytes (all 8 when it is 0).
//!
//! # Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock`, `reset` | in | 1 | reset ends a packet and empties the output buffer |
//! | `desc` | in | [`PacketDescriptorSink`] | the descriptor: `valid`/`ready` (taken when both are high: when idle, or in the cycle the active packet's last read is issued), `slot` IW, and Listing 3.2's `remote_ip`, `remote_port`, `msg_len`, `offset`, `local_port`, `tx_msg_id`, `credit`, `rank`, `flags`, `is_new_msg`, `is_rtx` |
//! | `desc_base` | in | PW | the slot's buffer base (64-bit word), with the descriptor |
//! | `payload_address`, `payload_data` | out, in | PW, 64 | the payload memory's read port (the word addressed in one cycle arrives in the next) |
//! | `m_axis_pkt` | out | [`NicPacketSource`] | the packet stream: beats and the metadata of Listing 3.2 |
//! | `busy`, `busy_slot` | out | 1, IW | a packet is being read, and its slot |
//!
//! # Latency and throughput
//! A descriptor taken by the idle read-out issues its first read in the same cycle; the word
//! enters a two-entry output buffer the next cycle and is shown on `m_axis_pkt` the cycle after
//! (2 cycles from descriptor to first beat). One read is issued per cycle while the output
//! buffer has room, so beats leave at one per cycle while `tready` is high, and a descriptor
//! taken with the previous packet's last read follows it without a gap.

use crate::common::bundles::{NicPacketSource, PacketDescriptorSink};
use crate::{locals, ports, registers, Blank};
use rust_hdl::prelude::*;

/// Bits of the metadata held per beat (Listing 3.2, packed).
const META_BITS: usize = 138;

/// The transmit path's packet read-out for slots of `IW` bits and a payload memory of `2^PW`
/// 64-bit words.
#[ports(
    in clock: Clock;
    in reset: Bit;
    in desc_base: Bits<PW>;
    out payload_address: Bits<PW>;
    in payload_data: Bits<64>;
    out busy: Bit;
    out busy_slot: Bits<IW>;
)]
#[registers(
    // The active packet: next read address, reads left, last keep, metadata.
    rd_active: Bit;
    rd_slot: Bits<IW>;
    rd_addr: Bits<PW>;
    rd_beats, rd_last_keep: Bits<8>;
    rd_meta: Bits<META_BITS>;
    // The read issued in the previous cycle (its word arrives now).
    s1_valid, s1_last: Bit;
    s1_keep: Bits<8>;
    s1_meta: Bits<META_BITS>;
    // Two-entry output buffer: e0 is the head shown on m_axis_pkt.
    e_count: Bits<2>;
    e0_data, e1_data: Bits<64>;
    e0_keep, e1_keep: Bits<8>;
    e0_last, e1_last: Bit;
    e0_meta, e1_meta: Bits<META_BITS>;
)]
#[locals(
    pop, space, issue, issue_last, accept: Bit;
    /// A descriptor accepted by the idle read-out issues its first read in the same cycle.
    first_issue: Bit;
    d_beats, d_last_keep: Bits<8>;
    /// Whole KiB of the message left from this packet on (`msg_len / 1024 − offset`, 9 bits so
    /// an offset past the end reads as negative, hence large) and the message's last partial KiB.
    d_kib_left: Bits<9>;
    d_tail_bytes: Bits<10>;
    /// The packet is the message's short last one: fewer than 1024 bytes, `msg_len mod 1024`.
    d_short: Bit;
    d_first_word: Bits<PW>;
    d_meta, d_meta_lo, d_meta_new, d_meta_rtx: Bits<META_BITS>;
)]
#[derive(LogicBlock, Blank)]
pub struct PacketReadOut<const IW: usize, const PW: usize> {
    /// The descriptor to read out (`desc$valid`, … in the Verilog); its buffer's first word
    /// comes beside it in `desc_base`.
    pub desc: PacketDescriptorSink<IW>,
    pub m_axis_pkt: NicPacketSource,
    ones8: Constant<Bits<8>>,
    bit136: Constant<Bits<META_BITS>>,
    bit137: Constant<Bits<META_BITS>>,
}

impl<const IW: usize, const PW: usize> Default for PacketReadOut<IW, PW> {
    fn default() -> Self {
        Self {
            ones8: Constant::new(0xFFu64.into()),
            bit136: Constant::new(Bits::<META_BITS>::default().replace_bit(136, true)),
            bit137: Constant::new(Bits::<META_BITS>::default().replace_bit(137, true)),
            ..Self::blank()
        }
    }
}

impl<const IW: usize, const PW: usize> Logic for PacketReadOut<IW, PW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            rd_active,
            rd_slot,
            rd_addr,
            rd_beats,
            rd_last_keep,
            rd_meta,
            s1_valid,
            s1_keep,
            s1_last,
            s1_meta,
            e_count,
            e0_data,
            e0_keep,
            e0_last,
            e0_meta,
            e1_data,
            e1_keep,
            e1_last,
            e1_meta
        );
        self.busy.next = self.rd_active.q.val();
        self.busy_slot.next = self.rd_slot.q.val();
        self.pop.next = (self.e_count.q.val() != 0) & self.m_axis_pkt.tready.val();
        // Room for a beat read now (arriving next cycle): occupancy after this cycle < 2.
        self.space.next = ((self.e_count.q.val() == 0) | ((self.e_count.q.val() == 1) & ((!self.s1_valid.q.val()) | self.pop.val())))
            | (((self.e_count.q.val() == 2) & self.pop.val()) & (!self.s1_valid.q.val()));
        self.issue.next = self.rd_active.q.val() & self.space.val();
        self.issue_last.next = self.issue.val() & (self.rd_beats.q.val() == 1);
        self.desc.ready.next = (!self.rd_active.q.val()) | self.issue_last.val();
        self.accept.next = self.desc.valid.val() & ((!self.rd_active.q.val()) | self.issue_last.val());
        // Descriptor → first word address, beats and the last beat's keep.
        // The packet carries min(1024, msg_len − 1024·offset) bytes. The low 10 bits of
        // 1024·offset are zero, so only the KiB part is subtracted (6 bits), and the short last
        // packet's beats and keep come from `msg_len mod 1024` alone, beside the subtraction.
        self.d_kib_left.next = bit_cast::<9, 16>(self.desc.msg_len.val() >> 10) - bit_cast::<9, 8>(self.desc.offset.val());
        self.d_tail_bytes.next = self.desc.msg_len.val().get_bits::<10>(0);
        self.d_short.next = self.d_kib_left.val() == 0;
        self.d_beats.next = 128.into();
        self.d_last_keep.next = 0xFF.into();
        if self.d_short.val() {
            self.d_beats.next = bit_cast::<8, 7>(self.d_tail_bytes.val().get_bits::<7>(3))
                + bit_cast::<8, 1>((self.d_tail_bytes.val().get_bits::<3>(0) != 0).into());
            if self.d_tail_bytes.val().get_bits::<3>(0) != 0 {
                self.d_last_keep.next = !(self.ones8.val() << bit_cast::<8, 3>(self.d_tail_bytes.val().get_bits::<3>(0)));
            }
        }
        self.d_first_word.next = self.desc_base.val() + (bit_cast::<PW, 8>(self.desc.offset.val()) << 7);
        self.d_meta_lo.next = bit_cast::<META_BITS, 32>(self.desc.remote_ip.val())
            | (bit_cast::<META_BITS, 16>(self.desc.remote_port.val()) << 32)
            | (bit_cast::<META_BITS, 16>(self.desc.msg_len.val()) << 48)
            | (bit_cast::<META_BITS, 8>(self.desc.offset.val()) << 64)
            | (bit_cast::<META_BITS, 16>(self.desc.local_port.val()) << 72)
            | (bit_cast::<META_BITS, 16>(self.desc.tx_msg_id.val()) << 88)
            | (bit_cast::<META_BITS, 16>(self.desc.credit.val()) << 104)
            | (bit_cast::<META_BITS, 8>(self.desc.rank.val()) << 120)
            | (bit_cast::<META_BITS, 8>(self.desc.flags.val()) << 128);
        self.d_meta_new.next = 0.into();
        if self.desc.is_new_msg.val() {
            self.d_meta_new.next = self.bit136.val();
        }
        self.d_meta_rtx.next = 0.into();
        if self.desc.is_rtx.val() {
            self.d_meta_rtx.next = self.bit137.val();
        }
        self.d_meta.next = (self.d_meta_lo.val() | self.d_meta_new.val()) | self.d_meta_rtx.val();

        // One payload read per cycle: the active packet's next beat, or the first beat of a
        // descriptor the idle read-out accepts now (this keeps the transmit latency at 9 cycles
        // with the core's three stages).
        self.first_issue.next = (self.accept.val() & (!self.rd_active.q.val())) & self.space.val();
        self.payload_address.next = self.rd_addr.q.val();
        if self.first_issue.val() {
            self.payload_address.next = self.d_first_word.val();
        }
        self.s1_valid.d.next = self.issue.val() | self.first_issue.val();
        self.s1_keep.d.next = 0xFF.into();
        if self.issue_last.val() {
            self.s1_keep.d.next = self.rd_last_keep.q.val();
        }
        if self.first_issue.val() & (self.d_beats.val() == 1) {
            self.s1_keep.d.next = self.d_last_keep.val();
        }
        self.s1_last.d.next = self.issue_last.val() | (self.first_issue.val() & (self.d_beats.val() == 1));
        self.s1_meta.d.next = self.rd_meta.q.val();
        if self.first_issue.val() {
            self.s1_meta.d.next = self.d_meta.val();
        }
        if self.issue.val() {
            self.rd_addr.d.next = self.rd_addr.q.val() + 1;
            self.rd_beats.d.next = self.rd_beats.q.val() - 1;
        }
        if self.issue_last.val() {
            self.rd_active.d.next = false;
        }
        if self.accept.val() {
            self.rd_active.d.next = true;
            self.rd_slot.d.next = self.desc.slot.val();
            self.rd_addr.d.next = self.d_first_word.val();
            self.rd_beats.d.next = self.d_beats.val();
            self.rd_last_keep.d.next = self.d_last_keep.val();
            self.rd_meta.d.next = self.d_meta.val();
            if self.first_issue.val() {
                self.rd_active.d.next = self.d_beats.val() != 1;
                self.rd_addr.d.next = self.d_first_word.val() + 1;
                self.rd_beats.d.next = self.d_beats.val() - 1;
            }
        }
        // Two-entry output buffer: e0 is the head shown on m_axis_pkt.
        if self.e_count.q.val() == 0 {
            if self.s1_valid.q.val() {
                self.e0_data.d.next = self.payload_data.val();
                self.e0_keep.d.next = self.s1_keep.q.val();
                self.e0_last.d.next = self.s1_last.q.val();
                self.e0_meta.d.next = self.s1_meta.q.val();
                self.e_count.d.next = 1.into();
            }
        } else if self.e_count.q.val() == 1 {
            if self.pop.val() & self.s1_valid.q.val() {
                self.e0_data.d.next = self.payload_data.val();
                self.e0_keep.d.next = self.s1_keep.q.val();
                self.e0_last.d.next = self.s1_last.q.val();
                self.e0_meta.d.next = self.s1_meta.q.val();
            } else if self.pop.val() {
                self.e_count.d.next = 0.into();
            } else if self.s1_valid.q.val() {
                self.e1_data.d.next = self.payload_data.val();
                self.e1_keep.d.next = self.s1_keep.q.val();
                self.e1_last.d.next = self.s1_last.q.val();
                self.e1_meta.d.next = self.s1_meta.q.val();
                self.e_count.d.next = 2.into();
            }
        } else if self.pop.val() {
            self.e0_data.d.next = self.e1_data.q.val();
            self.e0_keep.d.next = self.e1_keep.q.val();
            self.e0_last.d.next = self.e1_last.q.val();
            self.e0_meta.d.next = self.e1_meta.q.val();
            self.e_count.d.next = 1.into();
            if self.s1_valid.q.val() {
                self.e1_data.d.next = self.payload_data.val();
                self.e1_keep.d.next = self.s1_keep.q.val();
                self.e1_last.d.next = self.s1_last.q.val();
                self.e1_meta.d.next = self.s1_meta.q.val();
                self.e_count.d.next = 2.into();
            }
        }
        self.m_axis_pkt.tvalid.next = self.e_count.q.val() != 0;
        self.m_axis_pkt.tdata.next = self.e0_data.q.val();
        self.m_axis_pkt.tkeep.next = self.e0_keep.q.val();
        self.m_axis_pkt.tlast.next = self.e0_last.q.val();
        self.m_axis_pkt.remote_ip.next = self.e0_meta.q.val().get_bits::<32>(0);
        self.m_axis_pkt.remote_port.next = self.e0_meta.q.val().get_bits::<16>(32);
        self.m_axis_pkt.msg_len.next = self.e0_meta.q.val().get_bits::<16>(48);
        self.m_axis_pkt.pkt_offset.next = self.e0_meta.q.val().get_bits::<8>(64);
        self.m_axis_pkt.local_port.next = self.e0_meta.q.val().get_bits::<16>(72);
        self.m_axis_pkt.tx_msg_id.next = self.e0_meta.q.val().get_bits::<16>(88);
        self.m_axis_pkt.credit.next = self.e0_meta.q.val().get_bits::<16>(104);
        self.m_axis_pkt.rank.next = self.e0_meta.q.val().get_bits::<8>(120);
        self.m_axis_pkt.flags.next = self.e0_meta.q.val().get_bits::<8>(128);
        self.m_axis_pkt.is_new_msg.next = self.e0_meta.q.val().get_bit(136);
        self.m_axis_pkt.is_rtx.next = self.e0_meta.q.val().get_bit(137);
        if self.reset.val() {
            self.rd_active.d.next = false;
            self.s1_valid.d.next = false;
            self.e_count.d.next = 0.into();
        }
    }
}
