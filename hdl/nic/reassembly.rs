//! Reassembly module (thesis §3.2.3 Algorithm 1, §3.2.5, §3.3.2): the receive path's
//! fixed-function block for `N = 2^IW` concurrent messages (16 and 128 in the NIC presets). It
//! contains the [`GetRxMsgInfo`] table (served on the `req` and `resp` bundles), the ingress
//! [`Timer`], the payload memory and the in-order [`MessageReadOut`] towards the CPU.
//!
//! # What it does
//! * **Packets in** (`s_axis`, a 64-bit [`NicRxPacketSink`]): the ingress metadata of
//!   Listing 3.1 is valid with a packet's first beat. A packet is accepted when its
//!   `rx_msg_id` names a live slot with the same generation, its key (`remote_ip`,
//!   `remote_port`, `tx_msg_id`) and `msg_len` match the slot's, the message is not complete,
//!   `pkt_offset < num_pkts`, and the packet has not been written before. Its
//!   payload is written at word `(buffer_page + pkt_offset) · 128 + beat`. Otherwise it is
//!   dropped and counted (`drop_stale_count`, `drop_bad_offset_count`, `drop_duplicate_count`).
//! * **Length check**: a packet must carry exactly 1024 bytes, or `msg_len − offset·1024` when it
//!   is the last packet (every non-final beat full, the final `tkeep` contiguous from byte 0).
//!   A packet that disagrees is **dropped whole** (`drop_bad_length_count`): it is not marked
//!   written, so its message goes on and completes when a good copy arrives (its words may
//!   have been written into the buffer; the good copy overwrites them). The ingress front
//!   ([`crate::pisa::ingress_front`]) applies the same rule before anything acknowledges the
//!   packet, so a frame dropped here was never marked received or acknowledged.
//! * **Completion** (Algorithm 1 lines 6–8): the module keeps its own bitmap of packets
//!   *written*; when it equals OnesUntil(num_pkts) the message is complete, its timer is
//!   cancelled in that same cycle and it joins the read-out queue. `is_last_pkt` from the
//!   metadata is ignored: a message with a hole is never delivered (it is garbage-collected).
//! * **Read-out** (`m_axis_*`, the sub-block [`MessageReadOut`]), one message at a time in order
//!   of completion: two header
//!   beats — bytes 0–3 `remote_ip`, 4–5 `remote_port`, 6–7 `local_port`, 8–9 `msg_len`, 10–15
//!   zero (little-endian; Algorithm 1 lines 12–16) — then the payload; the final beat's `tkeep`
//!   covers `msg_len mod 8` bytes (bytes beyond are zero). After the last word the slot is
//!   released (`release_reason` 1): entry, ID and buffer freed, the key enters the
//!   delivered set (remembered for the horizon: at-most-once delivery).
//! * **Ingress timers** (§3.2.5): GetRxMsgInfo (re)schedules a message's timer on its first
//!   packet and on every later packet of an incomplete message (`ingress_timeout` cycles);
//!   completion cancels it (one cycle later, from a register: the completion is decided late in
//!   its cycle, and the cancel masks a pending timeout within the cycle it reaches the timer; a
//!   timeout of the completing slot is not taken meanwhile, since the slot is busy in that
//!   cycle and closed from the next). On expiry (`release_reason` 3, `gc_count`) all state of a
//!   live, incomplete message is freed. Every allocation re-schedules the slot's timer, so a
//!   pending timeout always belongs to the slot's current message; a timeout of a slot that is
//!   not live or is closed is discarded and counted (`stale_timeout_count`).
//!
//! # Per-message state (RAMs, one word per slot)
//! * `slot_ram` (101 bit): `{buffer page (13 bits), msg_len, key, generation}`, written when the table
//!   answers a request with `is_new_msg` (from its `resp_key`/`resp_msg_len`/`resp_page`).
//! * `written_ram` (64 bit): packets written (Algorithm 1 line 6). Instead of clearing a word on
//!   release, a `fresh` flag per slot (set on allocation, cleared by the first write) makes the
//!   lookup read it as empty.
//! * `fifo_ram` (103 bit): the read-out queue, `{page, msg_len, remote_port, remote_ip,
//!   local_port, slot}` per completed message.
//! * Flip-flops only for one bit per slot (`live`, `closed`, `fresh`), each changed through
//!   one-hot masks ([`crate::common::one_hot::OneHot`], `next = (q | set) & !clear`) rather than
//!   a runtime-indexed write.
//!
//! The RAMs are read synchronously, so the packet input has a **lookup stage**: a packet's
//! first beat addresses `slot_ram` and `written_ram` with its `rx_msg_id` (stage 0), and every
//! beat is checked and written one cycle later (stage 1). A word written at the clock edge
//! before a lookup reaches it is forwarded from a register.
//!
//! # Releases
//! Releases go through the table's release port, which takes one operation every 3 cycles
//! (`release_ready`): the end of a read-out waits in a pending register until the port takes
//! it; a timeout is taken from the timer when no packet past its lookup stage belongs to that
//! slot and no earlier timeout waits (a packet whose first beat is looked up in the cycle its
//! slot is closed finds the slot closed in stage 1 and is dropped as stale), and a live, incomplete message's timeout closes the slot (later
//! packets for it are stale) and waits in a second pending register (the read-out's goes
//! first). Neither the timer's answer nor the packet path reaches the port within a cycle.
//! `release_valid` marks the cycle the table takes a release.
//!
//! # Ports
//! | group | ports |
//! |---|---|
//! | control | `clock`, `reset` (synchronous), `ingress_timeout` (32, cycles) |
//! | GetRxMsgInfo | `req` in ([`RxMsgInfoRequestSink`]; `ready` out: one operation every 3 cycles, none while a release is offered), `resp` out ([`RxMsgInfoAnswerSource`]) 3 cycles after the request is taken, `resp_fail_reason` beside it: see [`GetRxMsgInfo`]; `resp.is_new_msg` is the table's `resp_announce_new_msg` (the first answer for a message that was not a peek) |
//! | packets in | `s_axis` ([`NicRxPacketSink`]): `tdata` 64, `tkeep` 8, `tlast`, `tvalid`, `tready` (out); `remote_ip` 32, `remote_port` 16, `msg_len` 16, `pkt_offset` 8, `local_port` 16, `rx_msg_id` 16, `tx_msg_id` 16, `is_last_pkt` 1 (first beat); `s_axis$tdata`, … in the Verilog |
//! | messages out | `m_axis.tdata` 64, `m_axis.tkeep` 8, `m_axis.tlast`, `m_axis.tvalid`, `m_axis.tready` (in) |
//! | observability | `release_valid`, `release_slot` IW, `release_reason` 2 (1 delivered, 3 garbage-collected); `busy_slots` N; `free_lists_full` 5 |
//! | counters (32, wrapping) | the table's eleven in `table_counters` ([`RxMsgInfoCountersSource`]), and `drop_stale_count`, `drop_bad_offset_count`, `drop_duplicate_count`, `drop_bad_length_count`, `gc_count`, `stale_timeout_count`, `delivered_count` |
//!
//! # Payload memory and size classes
//! Addressed with `PW` bits: 2^17 words (1 MiB, [`PAYLOAD_WORD_BITS`]) up to 128 messages,
//! doubling with the message count above (8 MiB at 1024, [`crate::configs::COMPILED_SIZES`]).
//! The memory holds exactly the classes' pages ([`SizedRam`], [`WORDS_PER_PAGE`] words each):
//! 816 KiB at 16 messages, 992 KiB at 128. The classes are constructor
//! parameters ([`rx_classes_for`]): at 16 messages 16 × 1, 4, 8 and 38 KB (every ID can hold a
//! 38-packet message), at 128 messages 128 × 1 KB, 32 × 4 KB, 16 × 8 KB, 16 × 38 KB. Table 3.2
//! gives the prototype 1.2 MB (16 messages) and 8.4 MB (128) for both directions, about 0.6 and
//! 4.2 MB per direction; here each direction has at most 1 MB up to 128 messages: at 16 all 16 messages
//! can be maximum-size, at 128 it holds 128 single-packet messages or 16 maximum-size ones at a
//! time. Above 128 messages the classes scale with the size
//! ([`rx_classes_for`]).
//!
//! # Latency and throughput (measured on the Verilator model, testbenches/tests/reassembly.rs)
//! A single-packet message with a 16-byte payload whose first beat enters in cycle 0:
//! ```text
//!  cycle 0  beat 0 (metadata) accepted; slot_ram / written_ram read
//!  cycle 1  stage 1: beat 0 checked and written; beat 1 (tlast) accepted
//!  cycle 2  stage 1: beat 1 written; length ok, bitmap complete; read-out starts (queue bypass)
//!  cycle 3  m_axis.tvalid: header beat 0            (first beat out:         3 cycles)
//!  cycle 4  header beat 1
//!  cycle 5  payload beat 0                          (first payload byte out: 5 cycles)
//! ```
//! Throughput: 1 KB packets stream in and out at **1.000 beats/cycle**. Messages with a 1-byte
//! payload, one per packet: **0.167 messages/cycle** — each costs the table one request and one
//! release at one operation every 3 cycles; the read-out of a message starts once the previous
//! message's release has been taken. (A MAC delivers such a packet at most every 9 cycles.)
//! `s_axis.tready` is always high: the module never holds the ingress back.

use crate::common::bundles::{NicRxPacketSink, NicStreamSource, RxMsgInfoAnswerSource, RxMsgInfoCountersSource, RxMsgInfoRequestSink};
use crate::common::event_counter::WrappingCounter;
use crate::common::one_hot::OneHot;
use crate::common::sized_ram::SizedRam;
use crate::nic::get_rx_msg_info::{rx_classes_for, GetRxMsgInfo};
use crate::nic::message_read_out::MessageReadOut;
use crate::nic::timer::Timer;
use crate::{locals, ports, registers, status_counters, Blank};
use rust_hdl::prelude::*;

/// Address bits of the presets' payload memory up to 128 messages (64-bit words): 2^17 × 8 B =
/// 1 MiB. The memory is `2^PW` words, a type parameter; pages (1 KiB) are numbered in 13 bits,
/// so `PW ≤ 20` (8 MiB).
pub const PAYLOAD_WORD_BITS: usize = 17;
pub use crate::nic::get_rx_msg_info::MAX_PAYLOAD_WORD_BITS;
/// 64-bit words of a 1 KiB receive page.
pub const WORDS_PER_PAGE: u64 = 128;

/// The reassembly module for `N = 2^IW` messages (GetRxMsgInfo with `2^BB` buckets per way) and
/// a payload memory of `2^PW` 64-bit words.
#[ports(
    in clock: Clock;
    in reset: Bit;
    in ingress_timeout: Bits<32>;
    out resp_fail_reason: Bits<3>;
    out release_valid: Bit;
    out release_slot: Bits<IW>;
    out release_reason: Bits<2>;
    out busy_slots: Bits<N>;
    out free_lists_full: Bits<5>;
    out drop_stale_count, drop_bad_offset_count, drop_duplicate_count, drop_bad_length_count, gc_count, stale_timeout_count,
    delivered_count: Bits<32>;
)]
#[registers(
    now: Bits<64>;
    live, closed, fresh: Bits<N>;
    /// A garbage collection waiting for the table's release port: its slot is closed.
    gc_pending: Bit;
    gc_slot: Bits<IW>;
    /// The completion's timer cancel, one cycle late.
    cancel_valid: Bit;
    cancel_slot, fwd_slot_addr, fwd_written_addr: Bits<IW>;
    fwd_slot_valid, fwd_written_valid, rx_busy, s1_valid, s1_first, s1_last: Bit;
    fwd_slot_data: Bits<101>;
    fwd_written_data, s1_data, s1_key: Bits<64>;
    s1_keep: Bits<8>;
    s1_rx_msg_id, s1_len: Bits<16>;
    /// The packet count of the metadata's `msg_len`, worked out in stage 0 (a slot matches
    /// only with the same length, so stage 1 needs no adder behind the RAM read).
    s1_pkts: Bits<7>;
    s1_off, in_beat: Bits<8>;
    s1_local_port, fifo_count, fifo_usable: Bits<16>;
    in_busy, in_ok, in_len_bad, ro_rel_pending, fifo_wrote: Bit;
    in_slot, ro_rel_slot, fifo_head, fifo_tail: Bits<IW>;
    in_off6: Bits<6>;
    in_pkts: Bits<7>;
    in_expected: Bits<11>;
    in_base: Bits<PW>;
    in_bitmap: Bits<64>;
    in_header: Bits<103>;
)]
#[locals(
    h_entry, f_header, c_header: Bits<103>;
    can_start, start_fifo, start_bypass, start, fifo_write, beat, first, touching_timeout, timeout_take, gc_legit, rel_request,
    rel_taken, alloc_write, f_live, f_offset_ok, f_dup, f_ok, c_ok, c_bad_before, keep_contig, beat_bad, len_ok, end_ok, complete,
    bad_end: Bit;
    m_slot, t_slot, rel_slot, alloc_slot, s1_slot, c_slot: Bits<IW>;
    rel_reason: Bits<2>;
    f_entry: Bits<101>;
    f_bitmap, c_bitmap, written_after: Bits<64>;
    f_gen, c_beat: Bits<8>;
    f_len: Bits<16>;
    f_page: Bits<13>;
    f_pkts, c_pkts: Bits<7>;
    f_off6, c_off6: Bits<6>;
    f_expected, c_expected, total_len: Bits<11>;
    f_base, c_base: Bits<PW>;
    last_bytes: Bits<4>;
    live_set, closed_set, fresh_set: Bits<N>;
    alloc_gen, s1_gen: Bits<8>;
)]
#[derive(LogicBlock, Blank)]
pub struct Reassembly<const N: usize, const IW: usize, const BB: usize, const PW: usize> {
    pub req: RxMsgInfoRequestSink,
    pub resp: RxMsgInfoAnswerSource,
    pub s_axis: NicRxPacketSink,
    /// Complete messages toward the CPU (`m_axis$tdata`, … in the Verilog).
    pub m_axis: NicStreamSource,
    /// GetRxMsgInfo's counters, passed up (`table_counters$fail_zero_len_count`, … in the Verilog).
    pub table_counters: RxMsgInfoCountersSource,
    msg_table: GetRxMsgInfo<N, IW, BB>,
    timer: Timer<N, IW, 8>,
    /// Exactly the words the size classes use ([`SizedRam`]).
    payload: SizedRam<Bits<64>, PW>,
    slot_ram: RAM<Bits<101>, IW>,
    written_ram: RAM<Bits<64>, IW>,
    fifo_ram: RAM<Bits<103>, IW>,
    /// The read-out of complete messages towards the CPU.
    read_out: MessageReadOut<IW, PW>,
    c_stale: WrappingCounter<32>,
    c_bad_offset: WrappingCounter<32>,
    c_duplicate: WrappingCounter<32>,
    c_bad_length: WrappingCounter<32>,
    c_gc: WrappingCounter<32>,
    c_stale_timeout: WrappingCounter<32>,
    c_delivered: WrappingCounter<32>,
    all_ones64: Constant<Bits<64>>,
    /// One-hot masks of the slot allocated, the slot of the packet completing, the slot released.
    alloc_mask: OneHot<N, IW>,
    completed_mask: OneHot<N, IW>,
    gc_mask: OneHot<N, IW>,
    release_mask: OneHot<N, IW>,
    slot_shift: Constant<Bits<4>>,
}

impl<const N: usize, const IW: usize, const BB: usize, const PW: usize> Reassembly<N, IW, BB, PW> {
    /// A reassembly module whose table has the given size classes `(pages per buffer,
    /// buffers)` (checked by [`crate::nic::get_rx_msg_info::check_parameters`]).
    pub fn new(classes: [(u64, u64); 4]) -> Self {
        crate::nic::get_rx_msg_info::check_parameters(IW, N, BB, PW, &classes);
        Self {
            msg_table: GetRxMsgInfo::new(classes),
            payload: SizedRam::new(classes.iter().map(|(pages, buffers)| pages * buffers).sum::<u64>() * WORDS_PER_PAGE),
            all_ones64: Constant::new(Bits::<64>::mask()),
            slot_shift: Constant::new((IW as u64).to_bits()),
            ..Self::blank()
        }
    }
}

impl<const N: usize, const IW: usize, const BB: usize, const PW: usize> Logic for Reassembly<N, IW, BB, PW> {
    #[status_counters]
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            now,
            live,
            closed,
            fresh,
            gc_pending,
            gc_slot,
            cancel_valid,
            cancel_slot,
            fwd_slot_valid,
            fwd_slot_addr,
            fwd_slot_data,
            fwd_written_valid,
            fwd_written_addr,
            fwd_written_data,
            rx_busy,
            s1_valid,
            s1_first,
            s1_last,
            s1_data,
            s1_keep,
            s1_rx_msg_id,
            s1_key,
            s1_len,
            s1_pkts,
            s1_off,
            s1_local_port,
            in_busy,
            in_ok,
            in_slot,
            in_off6,
            in_pkts,
            in_expected,
            in_base,
            in_bitmap,
            in_header,
            in_beat,
            in_len_bad,
            ro_rel_pending,
            ro_rel_slot,
            fifo_head,
            fifo_tail,
            fifo_count,
            fifo_usable,
            fifo_wrote
        );
        status_counters!(
            self,
            clock,
            reset,
            c_bad_length => drop_bad_length_count,
            c_bad_offset => drop_bad_offset_count,
            c_delivered => delivered_count,
            c_duplicate => drop_duplicate_count,
            c_gc => gc_count,
            c_stale => drop_stale_count,
            c_stale_timeout => stale_timeout_count,
        );
        clock!(self, clock, msg_table, timer, read_out);
        self.read_out.reset.next = self.reset.val();
        self.payload.clock.next = self.clock.val();
        self.slot_ram.read_clock.next = self.clock.val();
        self.slot_ram.write_clock.next = self.clock.val();
        self.written_ram.read_clock.next = self.clock.val();
        self.written_ram.write_clock.next = self.clock.val();
        self.fifo_ram.read_clock.next = self.clock.val();
        self.fifo_ram.write_clock.next = self.clock.val();
        self.msg_table.reset.next = self.reset.val();
        self.timer.reset.next = self.reset.val();
        self.now.d.next = self.now.q.val() + 1;

        // GetRxMsgInfo ports.
        RxMsgInfoRequestSink::link(&mut self.req, &mut self.msg_table.req);
        self.resp.valid.next = self.msg_table.resp_valid.val();
        self.resp.fail.next = self.msg_table.resp_fail.val();
        self.resp_fail_reason.next = self.msg_table.resp_fail_reason.val();
        self.resp.rx_msg_id.next = self.msg_table.resp_rx_msg_id.val();
        // What an ingress program needs: the first answer for a message that was not a peek
        // (the same as "allocated now" when no request peeks).
        self.resp.is_new_msg.next = self.msg_table.resp_announce_new_msg.val();
        self.resp.is_new_pkt.next = self.msg_table.resp_is_new_pkt.val();
        self.resp.is_last_pkt.next = self.msg_table.resp_is_last_pkt.val();
        self.resp.ack_no.next = self.msg_table.resp_ack_no.val();
        self.busy_slots.next = self.live.q.val();
        self.free_lists_full.next = self.msg_table.free_lists_full.val();
        RxMsgInfoCountersSource::link(&mut self.table_counters, &mut self.msg_table.counters);

        // ---- A new message: record {page, msg_len, key, generation} of its slot.
        self.alloc_write.next = self.msg_table.resp_valid.val() & self.msg_table.resp_is_new_msg.val();
        self.alloc_slot.next = self.msg_table.resp_rx_msg_id.val().get_bits::<IW>(0);
        self.alloc_gen.next = bit_cast::<8, 16>(self.msg_table.resp_rx_msg_id.val() >> self.slot_shift.val());
        self.slot_ram.write_enable.next = self.alloc_write.val();
        self.slot_ram.write_address.next = self.alloc_slot.val();
        self.slot_ram.write_data.next = (((bit_cast::<101, 13>(self.msg_table.resp_page.val().get_bits::<13>(0)) << 88)
            | (bit_cast::<101, 16>(self.msg_table.resp_msg_len.val()) << 72))
            | (bit_cast::<101, 64>(self.msg_table.resp_key.val()) << 8))
            | bit_cast::<101, 8>(self.alloc_gen.val());
        // A RAM read in the cycle of a write returns the old word: the written word is kept
        // for one cycle and forwarded to the lookup.
        self.fwd_slot_valid.d.next = self.alloc_write.val();
        self.fwd_slot_addr.d.next = self.alloc_slot.val();
        self.fwd_slot_data.d.next = self.slot_ram.write_data.val();

        // ---- Stage 1: first-beat checks against the slot's record and written bitmap.
        self.s1_slot.next = self.s1_rx_msg_id.q.val().get_bits::<IW>(0);
        self.s1_gen.next = bit_cast::<8, 16>(self.s1_rx_msg_id.q.val() >> self.slot_shift.val());
        self.f_entry.next = self.slot_ram.read_data.val();
        if self.fwd_slot_valid.q.val() & (self.fwd_slot_addr.q.val() == self.s1_slot.val()) {
            self.f_entry.next = self.fwd_slot_data.q.val();
        }
        self.f_bitmap.next = self.written_ram.read_data.val();
        if self.fwd_written_valid.q.val() & (self.fwd_written_addr.q.val() == self.s1_slot.val()) {
            self.f_bitmap.next = self.fwd_written_data.q.val();
        }
        // A slot allocated since its bitmap word was last written starts empty.
        if self.fresh.q.val().get_bit(self.s1_slot.val().index()) {
            self.f_bitmap.next = 0.into();
        }
        self.f_gen.next = self.f_entry.val().get_bits::<8>(0);
        self.f_len.next = self.f_entry.val().get_bits::<16>(72);
        self.f_page.next = self.f_entry.val().get_bits::<13>(88);
        self.f_live.next = (((((!self.s1_rx_msg_id.q.val().get_bit(15)) & self.live.q.val().get_bit(self.s1_slot.val().index()))
            & (self.f_gen.val() == self.s1_gen.val()))
            & (!self.closed.q.val().get_bit(self.s1_slot.val().index())))
            & (self.f_entry.val().get_bits::<64>(8) == self.s1_key.q.val()))
            & (self.f_len.val() == self.s1_len.q.val());
        // A packet counts only when its slot matches with the same length (`f_live`), so the
        // length, packet count and expected size come from the packet's registered metadata.
        self.f_pkts.next = self.s1_pkts.q.val();
        self.f_off6.next = self.s1_off.q.val().get_bits::<6>(0);
        self.f_offset_ok.next = self.s1_off.q.val() < bit_cast::<8, 7>(self.f_pkts.val());
        self.f_dup.next = self.f_bitmap.val().get_bit(self.f_off6.val().index());
        self.f_ok.next = (self.f_live.val() & self.f_offset_ok.val()) & (!self.f_dup.val());
        self.f_expected.next = 1024.into();
        if (bit_cast::<7, 6>(self.f_off6.val()) + 1) == self.f_pkts.val() {
            self.f_expected.next = bit_cast::<11, 16>(self.s1_len.q.val() - (bit_cast::<16, 6>(self.f_off6.val()) << 10));
        }
        self.f_base.next = bit_cast::<PW, 13>(self.f_page.val() + bit_cast::<13, 6>(self.f_off6.val())) << 7;
        // Read-out queue entry: {page, msg_len, remote_port, remote_ip, local_port, slot}.
        self.f_header.next = ((((bit_cast::<103, 13>(self.f_page.val()) << 90) | (bit_cast::<103, 16>(self.s1_len.q.val()) << 74))
            | (bit_cast::<103, 48>(self.s1_key.q.val().get_bits::<48>(0)) << 26))
            | (bit_cast::<103, 16>(self.s1_local_port.q.val()) << 10))
            | bit_cast::<103, IW>(self.s1_slot.val());

        // The current beat's packet: from the first-beat checks, or from the packet registers.
        self.c_ok.next = self.in_ok.q.val();
        self.c_slot.next = self.in_slot.q.val();
        self.c_off6.next = self.in_off6.q.val();
        self.c_pkts.next = self.in_pkts.q.val();
        self.c_expected.next = self.in_expected.q.val();
        self.c_base.next = self.in_base.q.val();
        self.c_bitmap.next = self.in_bitmap.q.val();
        self.c_header.next = self.in_header.q.val();
        self.c_beat.next = self.in_beat.q.val();
        self.c_bad_before.next = self.in_len_bad.q.val();
        if self.s1_first.q.val() {
            self.c_ok.next = self.f_ok.val();
            self.c_slot.next = self.s1_slot.val();
            self.c_off6.next = self.f_off6.val();
            self.c_pkts.next = self.f_pkts.val();
            self.c_expected.next = self.f_expected.val();
            self.c_base.next = self.f_base.val();
            self.c_bitmap.next = self.f_bitmap.val();
            self.c_header.next = self.f_header.val();
            self.c_beat.next = 0.into();
            self.c_bad_before.next = false;
        }
        self.payload.write_enable.next = (self.s1_valid.q.val() & self.c_ok.val()) & (self.c_beat.val() < 128);
        self.payload.write_address.next = self.c_base.val() + bit_cast::<PW, 8>(self.c_beat.val());
        self.payload.write_data.next = self.s1_data.q.val();

        // Length: every non-final beat full; the final tkeep contiguous from byte 0.
        self.last_bytes.next = 0.into();
        for i in 0..8 {
            if self.s1_keep.q.val().get_bit(i) {
                self.last_bytes.next = (i + 1).to_bits();
            }
        }
        self.keep_contig.next = (self.s1_keep.q.val() & (self.s1_keep.q.val() + 1)) == 0;
        self.beat_bad.next = self.s1_keep.q.val() != 0xFF;
        if self.s1_last.q.val() {
            self.beat_bad.next = !self.keep_contig.val();
        }
        self.total_len.next = (bit_cast::<11, 8>(self.c_beat.val()) << 3) + bit_cast::<11, 4>(self.last_bytes.val());
        self.len_ok.next = (((!self.c_bad_before.val()) & (!self.beat_bad.val())) & (self.c_beat.val() < 128))
            & (self.total_len.val() == self.c_expected.val());
        self.end_ok.next = (self.s1_valid.q.val() & self.s1_last.q.val()) & self.c_ok.val();
        self.written_after.next = self.c_bitmap.val().replace_bit(self.c_off6.val().index(), true);
        self.complete.next =
            (self.end_ok.val() & self.len_ok.val()) & (self.written_after.val() == (!(self.all_ones64.val() << self.c_pkts.val())));
        // A packet of the wrong length is dropped whole: nothing of it is committed (its words
        // may have been written; a later good copy overwrites them), and its message goes on.
        self.bad_end.next = self.end_ok.val() & (!self.len_ok.val());

        // Written bitmap: one RAM word per slot, written when a packet ends well.
        self.written_ram.write_enable.next = self.end_ok.val() & self.len_ok.val();
        self.written_ram.write_address.next = self.c_slot.val();
        self.written_ram.write_data.next = self.written_after.val();
        self.fwd_written_valid.d.next = self.end_ok.val() & self.len_ok.val();
        self.fwd_written_addr.d.next = self.c_slot.val();
        self.fwd_written_data.d.next = self.written_after.val();

        // ---- Releases through the table's release port: read-out end first, then a timeout
        // (taken from the timer only when the port accepts it at once).
        self.s_axis.tready.next = true;
        self.beat.next = self.s_axis.tvalid.val();
        self.first.next = self.beat.val() & (!self.rx_busy.q.val());
        self.m_slot.next = self.s_axis.rx_msg_id.val().get_bits::<IW>(0);
        self.t_slot.next = self.timer.timeout_id.val();
        // A packet in stage 1 or past it holds its slot's timeout back. A first beat in stage 0
        // does not: if its slot is closed in this cycle, stage 1 finds it closed and drops it.
        self.touching_timeout.next = (self.in_busy.q.val() & (self.in_slot.q.val() == self.t_slot.val()))
            | (self.s1_valid.q.val() & (self.c_slot.val() == self.t_slot.val()));
        self.timer.timeout_ready.next = (!self.gc_pending.q.val()) & (!self.touching_timeout.val());
        self.timeout_take.next = self.timer.timeout_valid.val() & self.timer.timeout_ready.val();
        self.gc_legit.next = (self.timeout_take.val() & self.live.q.val().get_bit(self.t_slot.val().index()))
            & (!self.closed.q.val().get_bit(self.t_slot.val().index()));
        self.rel_request.next = self.ro_rel_pending.q.val() | self.gc_pending.q.val();
        self.rel_taken.next = self.rel_request.val() & self.msg_table.release_ready.val();
        self.rel_slot.next = self.gc_slot.q.val();
        self.rel_reason.next = 3.into();
        if self.ro_rel_pending.q.val() {
            self.rel_slot.next = self.ro_rel_slot.q.val();
            self.rel_reason.next = 1.into();
        }
        self.msg_table.release_valid.next = self.rel_request.val();
        self.msg_table.release_slot.next = self.rel_slot.val();
        self.msg_table.release_delivered.next = self.ro_rel_pending.q.val();
        self.release_valid.next = self.rel_taken.val();
        self.release_slot.next = self.rel_slot.val();
        self.release_reason.next = 0.into();
        if self.rel_taken.val() {
            self.release_reason.next = self.rel_reason.val();
        }
        if self.rel_taken.val() & self.ro_rel_pending.q.val() {
            self.ro_rel_pending.d.next = false;
        }
        if self.rel_taken.val() & (!self.ro_rel_pending.q.val()) {
            self.gc_pending.d.next = false;
        }
        if self.gc_legit.val() {
            self.gc_pending.d.next = true;
            self.gc_slot.d.next = self.t_slot.val();
        }

        // ---- Read-out (registered AXI4-Stream output).
        NicStreamSource::link(&mut self.m_axis, &mut self.read_out.m_axis);
        // Start from the queue head, or straight from the packet that completed a message
        // when nothing is queued (bypass).
        self.can_start.next = self.read_out.ready.val() & ((!self.ro_rel_pending.q.val()) | self.rel_taken.val());
        self.start_fifo.next = self.can_start.val() & (self.fifo_usable.q.val() != 0);
        self.start_bypass.next = (self.can_start.val() & (self.fifo_count.q.val() == 0)) & self.complete.val();
        self.start.next = self.start_fifo.val() | self.start_bypass.val();
        self.h_entry.next = self.fifo_ram.read_data.val();
        if self.start_bypass.val() {
            self.h_entry.next = self.c_header.val();
        }
        self.read_out.start.next = self.start.val();
        self.read_out.header.next = self.h_entry.val();
        self.payload.read_address.next = self.read_out.payload_address.val();
        self.read_out.payload_data.next = self.payload.read_data.val();
        if self.read_out.done.val() {
            self.ro_rel_pending.d.next = true;
            self.ro_rel_slot.d.next = self.read_out.done_slot.val();
        }

        // ---- Packet input, stage 0: register the beat; the first beat's rx_msg_id addresses
        // the per-slot RAMs (read in this cycle, data in stage 1).
        self.slot_ram.read_address.next = self.m_slot.val();
        self.written_ram.read_address.next = self.m_slot.val();
        if self.beat.val() {
            self.rx_busy.d.next = !self.s_axis.tlast.val();
        }
        self.s1_valid.d.next = self.beat.val();
        self.s1_first.d.next = self.first.val();
        self.s1_last.d.next = self.s_axis.tlast.val();
        self.s1_data.d.next = self.s_axis.tdata.val();
        self.s1_keep.d.next = self.s_axis.tkeep.val();
        if self.first.val() {
            self.s1_rx_msg_id.d.next = self.s_axis.rx_msg_id.val();
            self.s1_key.d.next = ((bit_cast::<64, 16>(self.s_axis.tx_msg_id.val()) << 48)
                | (bit_cast::<64, 16>(self.s_axis.remote_port.val()) << 32))
                | bit_cast::<64, 32>(self.s_axis.remote_ip.val());
            self.s1_len.d.next = self.s_axis.msg_len.val();
            self.s1_pkts.d.next = bit_cast::<7, 17>((bit_cast::<17, 16>(self.s_axis.msg_len.val()) + 1023) >> 10);
            self.s1_off.d.next = self.s_axis.pkt_offset.val();
            self.s1_local_port.d.next = self.s_axis.local_port.val();
        }

        // Per-slot flags: live (allocated, not released), closed (complete), fresh. Sets first,
        // then clears, each as a one-hot mask over the whole vector (no runtime-indexed update).
        self.alloc_mask.index.next = self.alloc_slot.val();
        self.alloc_mask.enable.next = self.alloc_write.val();
        self.completed_mask.index.next = self.c_slot.val();
        self.completed_mask.enable.next = true;
        self.release_mask.index.next = self.rel_slot.val();
        self.release_mask.enable.next = self.rel_taken.val();
        self.live_set.next = self.live.q.val() | self.alloc_mask.onehot.val();
        self.fresh_set.next = self.fresh.q.val() | self.alloc_mask.onehot.val();
        self.gc_mask.index.next = self.t_slot.val();
        self.gc_mask.enable.next = self.gc_legit.val();
        self.closed_set.next = self.closed.q.val() | self.gc_mask.onehot.val();
        if self.complete.val() {
            self.closed_set.next = (self.closed.q.val() | self.gc_mask.onehot.val()) | self.completed_mask.onehot.val();
        }
        self.live.d.next = self.live_set.val() & (!self.release_mask.onehot.val());
        self.closed.d.next = self.closed_set.val() & (!self.release_mask.onehot.val());
        self.fresh.d.next = self.fresh_set.val();
        if self.end_ok.val() & self.len_ok.val() {
            self.fresh.d.next = self.fresh_set.val() & (!self.completed_mask.onehot.val());
        }

        // Timer: (re)scheduled by GetRxMsgInfo, cancelled on completion.
        self.timer.now.next = self.now.q.val();
        self.timer.sched_valid.next = self.msg_table.sched_valid.val();
        self.timer.sched_id.next = self.msg_table.sched_slot.val();
        self.timer.sched_meta.next = self.msg_table.sched_gen.val();
        self.timer.sched_delay.next = self.ingress_timeout.val();
        self.cancel_valid.d.next = self.complete.val();
        self.cancel_slot.d.next = self.c_slot.val();
        self.timer.cancel_valid.next = self.cancel_valid.q.val();
        self.timer.cancel_id.next = self.cancel_slot.q.val();

        // Read-out queue (RAM): a queued entry can be read two cycles after it was written.
        self.fifo_write.next = self.complete.val() & (!self.start_bypass.val());
        self.fifo_ram.write_enable.next = self.fifo_write.val();
        self.fifo_ram.write_address.next = self.fifo_tail.q.val();
        self.fifo_ram.write_data.next = self.c_header.val();
        self.fifo_ram.read_address.next = self.fifo_head.q.val();
        self.fifo_wrote.d.next = self.fifo_write.val();
        if self.fifo_write.val() {
            self.fifo_tail.d.next = self.fifo_tail.q.val() + 1;
        }
        if self.start_fifo.val() {
            self.fifo_head.d.next = self.fifo_head.q.val() + 1;
        }
        if self.fifo_write.val() & (!self.start_fifo.val()) {
            self.fifo_count.d.next = self.fifo_count.q.val() + 1;
        }
        if self.start_fifo.val() & (!self.fifo_write.val()) {
            self.fifo_count.d.next = self.fifo_count.q.val() - 1;
        }
        if self.fifo_wrote.q.val() & (!self.start_fifo.val()) {
            self.fifo_usable.d.next = self.fifo_usable.q.val() + 1;
        }
        if self.start_fifo.val() & (!self.fifo_wrote.q.val()) {
            self.fifo_usable.d.next = self.fifo_usable.q.val() - 1;
        }

        // Packet registers.
        if self.s1_valid.q.val() {
            self.in_busy.d.next = !self.s1_last.q.val();
            self.in_len_bad.d.next = self.c_bad_before.val() | self.beat_bad.val();
            if self.c_beat.val() < 128 {
                self.in_beat.d.next = self.c_beat.val() + 1;
            } else {
                self.in_beat.d.next = self.c_beat.val();
            }
        }
        if self.s1_valid.q.val() & self.s1_first.q.val() {
            self.in_ok.d.next = self.f_ok.val();
            self.in_slot.d.next = self.s1_slot.val();
            self.in_off6.d.next = self.f_off6.val();
            self.in_pkts.d.next = self.f_pkts.val();
            self.in_expected.d.next = self.f_expected.val();
            self.in_base.d.next = self.f_base.val();
            self.in_bitmap.d.next = self.f_bitmap.val();
            self.in_header.d.next = self.f_header.val();
        }

        // Counters.
        if (self.s1_valid.q.val() & self.s1_first.q.val()) & (!self.f_live.val()) {
            self.c_stale.increment.next = true;
        }
        if ((self.s1_valid.q.val() & self.s1_first.q.val()) & self.f_live.val()) & (!self.f_offset_ok.val()) {
            self.c_bad_offset.increment.next = true;
        }
        if (((self.s1_valid.q.val() & self.s1_first.q.val()) & self.f_live.val()) & self.f_offset_ok.val()) & self.f_dup.val() {
            self.c_duplicate.increment.next = true;
        }
        if self.bad_end.val() {
            self.c_bad_length.increment.next = true;
        }
        if self.gc_legit.val() {
            self.c_gc.increment.next = true;
        }
        if self.timeout_take.val() & (!self.gc_legit.val()) {
            self.c_stale_timeout.increment.next = true;
        }
        if self.rel_taken.val() & self.ro_rel_pending.q.val() {
            self.c_delivered.increment.next = true;
        }

        if self.reset.val() {
            self.now.d.next = 0.into();
            self.live.d.next = 0.into();
            self.closed.d.next = 0.into();
            self.fresh.d.next = 0.into();
            self.cancel_valid.d.next = false;
            self.fwd_slot_valid.d.next = false;
            self.fwd_written_valid.d.next = false;
            self.rx_busy.d.next = false;
            self.s1_valid.d.next = false;
            self.in_busy.d.next = false;
            self.ro_rel_pending.d.next = false;
            self.gc_pending.d.next = false;
            self.fifo_head.d.next = 0.into();
            self.fifo_tail.d.next = 0.into();
            self.fifo_count.d.next = 0.into();
            self.fifo_usable.d.next = 0.into();
            self.fifo_wrote.d.next = false;
            self.slot_ram.write_enable.next = false;
            self.written_ram.write_enable.next = false;
            self.fifo_ram.write_enable.next = false;
            self.payload.write_enable.next = false;
        }
    }
}

impl<const N: usize, const IW: usize, const BB: usize, const PW: usize> Default for Reassembly<N, IW, BB, PW> {
    /// The preset size classes of this size ([`rx_classes_for`]).
    fn default() -> Self {
        Self::new(rx_classes_for(N))
    }
}
