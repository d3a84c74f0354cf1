//! Reassembly module (thesis §3.2.3 Algorithm 1, §3.2.5, §3.3.2): the receive path's
//! fixed-function block for 16 concurrent messages. It contains the [`GetRxMsgInfo`] table
//! (served on the `req_*`/`resp_*` ports), the ingress [`Timer`], the payload memory, and the
//! in-order read-out towards the CPU.
//!
//! # What it does
//! * **Packets in** (`s_axis_*`, 64-bit AXI4-Stream): the ingress metadata of Listing 3.1
//!   (`s_axis_meta_*`) is valid with a packet's first beat. A packet is accepted when its
//!   `rx_msg_id` names a live entry of the table with the same generation, its metadata's key
//!   (`remote_ip`, `remote_port`, `tx_msg_id`) and `msg_len` match the entry, the message is not
//!   complete or aborted, `pkt_offset < num_pkts`, and the packet has not been written before.
//!   Its payload is written at word `(buffer_page + pkt_offset) · 128 + beat` of the payload
//!   memory (buffer + pkt_offset × 1024 B). Otherwise it is dropped and counted
//!   (`drop_stale_count`, `drop_bad_offset_count`, `drop_duplicate_count`).
//! * **Length check**: a packet must carry exactly 1024 bytes, or `msg_len − offset·1024` when it
//!   is the last packet (every non-final beat full, the final `tkeep` contiguous from byte 0).
//!   A packet that disagrees **aborts its message**: the message is closed, its timer cancelled
//!   and its slot, ID and buffer freed (`drop_bad_length_count`); nothing of it is delivered.
//! * **Completion** (Algorithm 1 lines 6–8): the reassembly keeps its own per-message bitmap of
//!   packets *written*; when it equals OnesUntil(num_pkts) the message is complete, its timer is
//!   cancelled in that same cycle (so garbage collection can never free a buffer being read
//!   out) and it joins the read-out queue. `is_last_pkt` from the metadata is not needed for this
//!   decision and is ignored: a protocol that marks a packet received but drops it cannot
//!   cause a message with a hole to be delivered (it is garbage-collected instead).
//! * **Read-out** (`m_axis_*`, 64-bit AXI4-Stream), one message at a time in order of
//!   completion: two header beats — bytes 0–3 `remote_ip`, 4–5 `remote_port`, 6–7 `local_port`,
//!   8–9 `msg_len`, 10–15 zero (little-endian; Algorithm 1 lines 12–16) — then the payload;
//!   the final beat's `tkeep` covers `msg_len mod 8` bytes (bytes beyond are zero). When the last
//!   word has been read from the buffer the slot is released (`release_reason` 1): the entry,
//!   the ID and the buffer are freed and the key enters the recently-completed table.
//! * **Ingress timers** (§3.2.5): GetRxMsgInfo (re)schedules a message's timer on its first
//!   packet and on every later packet of an incomplete message (`ingress_timeout` cycles);
//!   completion and abort cancel it. On expiry (`release_reason` 3, `gc_count`) all state of a
//!   live, incomplete message is freed. A timeout whose generation or state no longer matches
//!   (a message completed in between) is discarded and counted in `stale_timeout_count`.
//!
//! One slot is released per cycle: read-out end first, then a pending abort, then a timeout
//! (the timer holds a timeout while the release port is busy, or while the packet stream is
//! writing into that very message).
//!
//! # Ports
//! | group | ports |
//! |---|---|
//! | control | `clock`, `reset` (synchronous), `ingress_timeout` (32, cycles) |
//! | GetRxMsgInfo | `req_*` in, `resp_*` out: see [`GetRxMsgInfo`] |
//! | packets in | `s_axis_tdata` 64, `s_axis_tkeep` 8, `s_axis_tlast`, `s_axis_tvalid`, `s_axis_tready` (out); `s_axis_meta_remote_ip` 32, `_remote_port` 16, `_msg_len` 16, `_pkt_offset` 8, `_local_port` 16, `_rx_msg_id` 16, `_tx_msg_id` 16, `_is_last_pkt` 1 (first beat) |
//! | messages out | `m_axis_tdata` 64, `m_axis_tkeep` 8, `m_axis_tlast`, `m_axis_tvalid`, `m_axis_tready` (in) |
//! | observability | `release_valid`, `release_slot` 4, `release_reason` 2 (1 delivered, 2 aborted, 3 garbage-collected); `busy_slots` 16; `free_lists_full` 5 |
//! | counters (32, wrapping) | the table's nine, and `drop_stale_count`, `drop_bad_offset_count`, `drop_duplicate_count`, `drop_bad_length_count`, `gc_count`, `stale_timeout_count`, `delivered_count` |
//!
//! # Latency and throughput (measured on the Verilator model, testbenches/tests/reassembly.rs)
//! A single-packet message with a 16-byte payload (two beats) whose first beat enters in cycle 0:
//! ```text
//!  cycle 0  beat 0 (metadata) accepted, written
//!  cycle 1  beat 1 (tlast) accepted, written; length ok, bitmap complete -> read-out queue
//!  cycle 2  read-out starts: header beat 0 loaded into the output register
//!  cycle 3  m_axis_tvalid: header beat 0            (first beat out:         3 cycles)
//!  cycle 4  header beat 1
//!  cycle 5  payload beat 0                          (first payload byte out: 5 cycles)
//! ```
//! Throughput (measured): eight 4-packet messages of 1 KB packets streamed back to back take
//! 4096 input beats in 4096 cycles (**1.000 beats/cycle**) and leave as 4112 beats in 4112
//! cycles (**1.000 beats/cycle**, across message boundaries). Messages with a 1-byte payload,
//! one per packet: **0.333 messages/cycle** (each leaves as three beats: two header beats and
//! one payload beat; 1.000 output beats/cycle). `s_axis_tready` is low only for the cycle(s)
//! after a packet that aborted its message.

use crate::nic::get_rx_msg_info::GetRxMsgInfo;
use crate::nic::timer::Timer;
use rust_hdl::prelude::*;

/// Address bits of the payload memory (64-bit words): 2^15 × 8 B = 256 KB.
pub const PAYLOAD_WORD_BITS: usize = 15;

/// The 16-message reassembly module.
#[derive(LogicBlock)]
pub struct Reassembly {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub ingress_timeout: Signal<In, Bits<32>>,
    pub req_valid: Signal<In, Bit>,
    pub req_mark_received: Signal<In, Bit>,
    pub req_src_ip: Signal<In, Bits<32>>,
    pub req_src_port: Signal<In, Bits<16>>,
    pub req_tx_msg_id: Signal<In, Bits<16>>,
    pub req_msg_len: Signal<In, Bits<16>>,
    pub req_pkt_offset: Signal<In, Bits<8>>,
    pub resp_valid: Signal<Out, Bit>,
    pub resp_fail: Signal<Out, Bit>,
    pub resp_fail_reason: Signal<Out, Bits<3>>,
    pub resp_rx_msg_id: Signal<Out, Bits<16>>,
    pub resp_is_new_msg: Signal<Out, Bit>,
    pub resp_is_new_pkt: Signal<Out, Bit>,
    pub resp_is_last_pkt: Signal<Out, Bit>,
    pub resp_ack_no: Signal<Out, Bits<9>>,
    pub s_axis_tdata: Signal<In, Bits<64>>,
    pub s_axis_tkeep: Signal<In, Bits<8>>,
    pub s_axis_tlast: Signal<In, Bit>,
    pub s_axis_tvalid: Signal<In, Bit>,
    pub s_axis_tready: Signal<Out, Bit>,
    pub s_axis_meta_remote_ip: Signal<In, Bits<32>>,
    pub s_axis_meta_remote_port: Signal<In, Bits<16>>,
    pub s_axis_meta_msg_len: Signal<In, Bits<16>>,
    pub s_axis_meta_pkt_offset: Signal<In, Bits<8>>,
    pub s_axis_meta_local_port: Signal<In, Bits<16>>,
    pub s_axis_meta_rx_msg_id: Signal<In, Bits<16>>,
    pub s_axis_meta_tx_msg_id: Signal<In, Bits<16>>,
    pub s_axis_meta_is_last_pkt: Signal<In, Bit>,
    pub m_axis_tdata: Signal<Out, Bits<64>>,
    pub m_axis_tkeep: Signal<Out, Bits<8>>,
    pub m_axis_tlast: Signal<Out, Bit>,
    pub m_axis_tvalid: Signal<Out, Bit>,
    pub m_axis_tready: Signal<In, Bit>,
    pub release_valid: Signal<Out, Bit>,
    pub release_slot: Signal<Out, Bits<4>>,
    pub release_reason: Signal<Out, Bits<2>>,
    pub busy_slots: Signal<Out, Bits<16>>,
    pub free_lists_full: Signal<Out, Bits<5>>,
    pub fail_zero_len_count: Signal<Out, Bits<32>>,
    pub fail_too_long_count: Signal<Out, Bits<32>>,
    pub fail_bad_offset_count: Signal<Out, Bits<32>>,
    pub fail_len_mismatch_count: Signal<Out, Bits<32>>,
    pub fail_no_id_count: Signal<Out, Bits<32>>,
    pub fail_no_buffer_count: Signal<Out, Bits<32>>,
    pub duplicate_count: Signal<Out, Bits<32>>,
    pub recent_duplicate_count: Signal<Out, Bits<32>>,
    pub class_fallback_count: Signal<Out, Bits<32>>,
    pub drop_stale_count: Signal<Out, Bits<32>>,
    pub drop_bad_offset_count: Signal<Out, Bits<32>>,
    pub drop_duplicate_count: Signal<Out, Bits<32>>,
    pub drop_bad_length_count: Signal<Out, Bits<32>>,
    pub gc_count: Signal<Out, Bits<32>>,
    pub stale_timeout_count: Signal<Out, Bits<32>>,
    pub delivered_count: Signal<Out, Bits<32>>,
    msg_table: GetRxMsgInfo,
    timer: Timer<16, 4, 8>,
    payload: RAM<Bits<64>, PAYLOAD_WORD_BITS>,
    now: DFF<Bits<64>>,
    written: DFF<Bits<1024>>,
    closed: DFF<Bits<16>>,
    // Packet input stage (state of the packet being received).
    in_busy: DFF<Bit>,
    in_ok: DFF<Bit>,
    in_slot: DFF<Bits<4>>,
    in_off6: DFF<Bits<6>>,
    in_pkts: DFF<Bits<7>>,
    in_expected: DFF<Bits<11>>,
    in_base: DFF<Bits<15>>,
    in_local_port: DFF<Bits<16>>,
    in_beat: DFF<Bits<8>>,
    in_len_bad: DFF<Bit>,
    abort_pending: DFF<Bit>,
    abort_slot: DFF<Bits<4>>,
    // Read-out queue: slot in bits 3..0, local_port in bits 31..16 of each 32-bit entry.
    fifo: DFF<Bits<512>>,
    fifo_head: DFF<Bits<4>>,
    fifo_tail: DFF<Bits<4>>,
    fifo_count: DFF<Bits<5>>,
    // Read-out engine: 0 idle, 1 header beat 1 next, 2 payload.
    ro_state: DFF<Bits<2>>,
    ro_slot: DFF<Bits<4>>,
    ro_ptr: DFF<Bits<15>>,
    ro_words_left: DFF<Bits<13>>,
    ro_msg_len: DFF<Bits<16>>,
    out_valid: DFF<Bit>,
    out_data: DFF<Bits<64>>,
    out_keep: DFF<Bits<8>>,
    out_last: DFF<Bit>,
    c_stale: DFF<Bits<32>>,
    c_bad_offset: DFF<Bits<32>>,
    c_duplicate: DFF<Bits<32>>,
    c_bad_length: DFF<Bits<32>>,
    c_gc: DFF<Bits<32>>,
    c_stale_timeout: DFF<Bits<32>>,
    c_delivered: DFF<Bits<32>>,
    lane64: Constant<Bits<1024>>,
    lane32: Constant<Bits<512>>,
    all_ones64: Constant<Bits<64>>,
    // Read-out temporaries.
    out_free: Signal<Local, Bit>,
    head_x32: Signal<Local, Bits<9>>,
    head_port_x: Signal<Local, Bits<9>>,
    h_local_port: Signal<Local, Bits<16>>,
    h_slot: Signal<Local, Bits<4>>,
    h_x16: Signal<Local, Bits<8>>,
    h_x64: Signal<Local, Bits<10>>,
    h_len: Signal<Local, Bits<16>>,
    h_word: Signal<Local, Bits<15>>,
    h_key: Signal<Local, Bits<48>>,
    start: Signal<Local, Bit>,
    load_hdr1: Signal<Local, Bit>,
    load_data: Signal<Local, Bit>,
    ro_release: Signal<Local, Bit>,
    ro_ptr_next: Signal<Local, Bits<15>>,
    last_rem: Signal<Local, Bits<3>>,
    last_rem_bits: Signal<Local, Bits<6>>,
    last_keep: Signal<Local, Bits<8>>,
    last_mask: Signal<Local, Bits<64>>,
    // Release temporaries.
    abort_release: Signal<Local, Bit>,
    beat: Signal<Local, Bit>,
    first: Signal<Local, Bit>,
    m_slot: Signal<Local, Bits<4>>,
    t_slot: Signal<Local, Bits<4>>,
    t_x8: Signal<Local, Bits<7>>,
    touching_timeout: Signal<Local, Bit>,
    timeout_take: Signal<Local, Bit>,
    gc_legit: Signal<Local, Bit>,
    rel_valid: Signal<Local, Bit>,
    rel_slot: Signal<Local, Bits<4>>,
    rel_x64: Signal<Local, Bits<10>>,
    // Input temporaries.
    m_gen: Signal<Local, Bits<8>>,
    m_x64: Signal<Local, Bits<10>>,
    m_x16: Signal<Local, Bits<8>>,
    m_x8: Signal<Local, Bits<7>>,
    m_len: Signal<Local, Bits<16>>,
    m_key: Signal<Local, Bits<64>>,
    meta_key: Signal<Local, Bits<64>>,
    f_live: Signal<Local, Bit>,
    f_pkts: Signal<Local, Bits<7>>,
    f_off6: Signal<Local, Bits<6>>,
    f_offset_ok: Signal<Local, Bit>,
    f_bit: Signal<Local, Bits<10>>,
    f_dup: Signal<Local, Bit>,
    f_ok: Signal<Local, Bit>,
    f_expected: Signal<Local, Bits<11>>,
    f_base: Signal<Local, Bits<15>>,
    c_ok: Signal<Local, Bit>,
    c_slot: Signal<Local, Bits<4>>,
    c_off6: Signal<Local, Bits<6>>,
    c_pkts: Signal<Local, Bits<7>>,
    c_expected: Signal<Local, Bits<11>>,
    c_base: Signal<Local, Bits<15>>,
    c_local_port: Signal<Local, Bits<16>>,
    c_beat: Signal<Local, Bits<8>>,
    c_bad_before: Signal<Local, Bit>,
    last_bytes: Signal<Local, Bits<4>>,
    keep_contig: Signal<Local, Bit>,
    beat_bad: Signal<Local, Bit>,
    total_len: Signal<Local, Bits<11>>,
    len_ok: Signal<Local, Bit>,
    end_ok: Signal<Local, Bit>,
    c_x64: Signal<Local, Bits<10>>,
    c_bit: Signal<Local, Bits<10>>,
    written_after: Signal<Local, Bits<64>>,
    complete: Signal<Local, Bit>,
    abort: Signal<Local, Bit>,
    written_set: Signal<Local, Bits<1024>>,
    closed_set: Signal<Local, Bits<16>>,
    tail_x32: Signal<Local, Bits<9>>,
}

impl Default for Reassembly {
    fn default() -> Self {
        Self::with_table(GetRxMsgInfo::default())
    }
}

impl Reassembly {
    /// A reassembly module around a given table (e.g. other size classes).
    pub fn with_table(table: GetRxMsgInfo) -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            ingress_timeout: Default::default(),
            req_valid: Default::default(),
            req_mark_received: Default::default(),
            req_src_ip: Default::default(),
            req_src_port: Default::default(),
            req_tx_msg_id: Default::default(),
            req_msg_len: Default::default(),
            req_pkt_offset: Default::default(),
            resp_valid: Default::default(),
            resp_fail: Default::default(),
            resp_fail_reason: Default::default(),
            resp_rx_msg_id: Default::default(),
            resp_is_new_msg: Default::default(),
            resp_is_new_pkt: Default::default(),
            resp_is_last_pkt: Default::default(),
            resp_ack_no: Default::default(),
            s_axis_tdata: Default::default(),
            s_axis_tkeep: Default::default(),
            s_axis_tlast: Default::default(),
            s_axis_tvalid: Default::default(),
            s_axis_tready: Default::default(),
            s_axis_meta_remote_ip: Default::default(),
            s_axis_meta_remote_port: Default::default(),
            s_axis_meta_msg_len: Default::default(),
            s_axis_meta_pkt_offset: Default::default(),
            s_axis_meta_local_port: Default::default(),
            s_axis_meta_rx_msg_id: Default::default(),
            s_axis_meta_tx_msg_id: Default::default(),
            s_axis_meta_is_last_pkt: Default::default(),
            m_axis_tdata: Default::default(),
            m_axis_tkeep: Default::default(),
            m_axis_tlast: Default::default(),
            m_axis_tvalid: Default::default(),
            m_axis_tready: Default::default(),
            release_valid: Default::default(),
            release_slot: Default::default(),
            release_reason: Default::default(),
            busy_slots: Default::default(),
            free_lists_full: Default::default(),
            fail_zero_len_count: Default::default(),
            fail_too_long_count: Default::default(),
            fail_bad_offset_count: Default::default(),
            fail_len_mismatch_count: Default::default(),
            fail_no_id_count: Default::default(),
            fail_no_buffer_count: Default::default(),
            duplicate_count: Default::default(),
            recent_duplicate_count: Default::default(),
            class_fallback_count: Default::default(),
            drop_stale_count: Default::default(),
            drop_bad_offset_count: Default::default(),
            drop_duplicate_count: Default::default(),
            drop_bad_length_count: Default::default(),
            gc_count: Default::default(),
            stale_timeout_count: Default::default(),
            delivered_count: Default::default(),
            msg_table: table,
            timer: Default::default(),
            payload: Default::default(),
            now: Default::default(),
            written: Default::default(),
            closed: Default::default(),
            in_busy: Default::default(),
            in_ok: Default::default(),
            in_slot: Default::default(),
            in_off6: Default::default(),
            in_pkts: Default::default(),
            in_expected: Default::default(),
            in_base: Default::default(),
            in_local_port: Default::default(),
            in_beat: Default::default(),
            in_len_bad: Default::default(),
            abort_pending: Default::default(),
            abort_slot: Default::default(),
            fifo: Default::default(),
            fifo_head: Default::default(),
            fifo_tail: Default::default(),
            fifo_count: Default::default(),
            ro_state: Default::default(),
            ro_slot: Default::default(),
            ro_ptr: Default::default(),
            ro_words_left: Default::default(),
            ro_msg_len: Default::default(),
            out_valid: Default::default(),
            out_data: Default::default(),
            out_keep: Default::default(),
            out_last: Default::default(),
            c_stale: Default::default(),
            c_bad_offset: Default::default(),
            c_duplicate: Default::default(),
            c_bad_length: Default::default(),
            c_gc: Default::default(),
            c_stale_timeout: Default::default(),
            c_delivered: Default::default(),
            lane64: Constant::new(u64::MAX.to_bits()),
            lane32: Constant::new((u32::MAX as u64).to_bits()),
            all_ones64: Constant::new(Bits::<64>::mask()),
            out_free: Default::default(),
            head_x32: Default::default(),
            head_port_x: Default::default(),
            h_local_port: Default::default(),
            h_slot: Default::default(),
            h_x16: Default::default(),
            h_x64: Default::default(),
            h_len: Default::default(),
            h_word: Default::default(),
            h_key: Default::default(),
            start: Default::default(),
            load_hdr1: Default::default(),
            load_data: Default::default(),
            ro_release: Default::default(),
            ro_ptr_next: Default::default(),
            last_rem: Default::default(),
            last_rem_bits: Default::default(),
            last_keep: Default::default(),
            last_mask: Default::default(),
            abort_release: Default::default(),
            beat: Default::default(),
            first: Default::default(),
            m_slot: Default::default(),
            t_slot: Default::default(),
            t_x8: Default::default(),
            touching_timeout: Default::default(),
            timeout_take: Default::default(),
            gc_legit: Default::default(),
            rel_valid: Default::default(),
            rel_slot: Default::default(),
            rel_x64: Default::default(),
            m_gen: Default::default(),
            m_x64: Default::default(),
            m_x16: Default::default(),
            m_x8: Default::default(),
            m_len: Default::default(),
            m_key: Default::default(),
            meta_key: Default::default(),
            f_live: Default::default(),
            f_pkts: Default::default(),
            f_off6: Default::default(),
            f_offset_ok: Default::default(),
            f_bit: Default::default(),
            f_dup: Default::default(),
            f_ok: Default::default(),
            f_expected: Default::default(),
            f_base: Default::default(),
            c_ok: Default::default(),
            c_slot: Default::default(),
            c_off6: Default::default(),
            c_pkts: Default::default(),
            c_expected: Default::default(),
            c_base: Default::default(),
            c_local_port: Default::default(),
            c_beat: Default::default(),
            c_bad_before: Default::default(),
            last_bytes: Default::default(),
            keep_contig: Default::default(),
            beat_bad: Default::default(),
            total_len: Default::default(),
            len_ok: Default::default(),
            end_ok: Default::default(),
            c_x64: Default::default(),
            c_bit: Default::default(),
            written_after: Default::default(),
            complete: Default::default(),
            abort: Default::default(),
            written_set: Default::default(),
            closed_set: Default::default(),
            tail_x32: Default::default(),
        }
    }
}

impl Logic for Reassembly {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, now, written, closed, in_busy, in_ok, in_slot, in_off6, in_pkts, in_expected, in_base, in_local_port,
            in_beat, in_len_bad, abort_pending, abort_slot, fifo, fifo_head, fifo_tail, fifo_count, ro_state, ro_slot, ro_ptr,
            ro_words_left, ro_msg_len, out_valid, out_data, out_keep, out_last, c_stale, c_bad_offset, c_duplicate, c_bad_length,
            c_gc, c_stale_timeout, c_delivered);
        clock!(self, clock, msg_table, timer);
        self.payload.read_clock.next = self.clock.val();
        self.payload.write_clock.next = self.clock.val();
        self.msg_table.reset.next = self.reset.val();
        self.timer.reset.next = self.reset.val();
        self.now.d.next = self.now.q.val() + 1;

        // GetRxMsgInfo ports.
        self.msg_table.req_valid.next = self.req_valid.val();
        self.msg_table.req_mark_received.next = self.req_mark_received.val();
        self.msg_table.req_src_ip.next = self.req_src_ip.val();
        self.msg_table.req_src_port.next = self.req_src_port.val();
        self.msg_table.req_tx_msg_id.next = self.req_tx_msg_id.val();
        self.msg_table.req_msg_len.next = self.req_msg_len.val();
        self.msg_table.req_pkt_offset.next = self.req_pkt_offset.val();
        self.resp_valid.next = self.msg_table.resp_valid.val();
        self.resp_fail.next = self.msg_table.resp_fail.val();
        self.resp_fail_reason.next = self.msg_table.resp_fail_reason.val();
        self.resp_rx_msg_id.next = self.msg_table.resp_rx_msg_id.val();
        self.resp_is_new_msg.next = self.msg_table.resp_is_new_msg.val();
        self.resp_is_new_pkt.next = self.msg_table.resp_is_new_pkt.val();
        self.resp_is_last_pkt.next = self.msg_table.resp_is_last_pkt.val();
        self.resp_ack_no.next = self.msg_table.resp_ack_no.val();
        self.busy_slots.next = self.msg_table.slot_valid.val();
        self.free_lists_full.next = self.msg_table.free_lists_full.val();
        self.fail_zero_len_count.next = self.msg_table.fail_zero_len_count.val();
        self.fail_too_long_count.next = self.msg_table.fail_too_long_count.val();
        self.fail_bad_offset_count.next = self.msg_table.fail_bad_offset_count.val();
        self.fail_len_mismatch_count.next = self.msg_table.fail_len_mismatch_count.val();
        self.fail_no_id_count.next = self.msg_table.fail_no_id_count.val();
        self.fail_no_buffer_count.next = self.msg_table.fail_no_buffer_count.val();
        self.duplicate_count.next = self.msg_table.duplicate_count.val();
        self.recent_duplicate_count.next = self.msg_table.recent_duplicate_count.val();
        self.class_fallback_count.next = self.msg_table.class_fallback_count.val();
        self.drop_stale_count.next = self.c_stale.q.val();
        self.drop_bad_offset_count.next = self.c_bad_offset.q.val();
        self.drop_duplicate_count.next = self.c_duplicate.q.val();
        self.drop_bad_length_count.next = self.c_bad_length.q.val();
        self.gc_count.next = self.c_gc.q.val();
        self.stale_timeout_count.next = self.c_stale_timeout.q.val();
        self.delivered_count.next = self.c_delivered.q.val();

        // ---- Read-out engine (registered AXI4-Stream output).
        self.m_axis_tvalid.next = self.out_valid.q.val();
        self.m_axis_tdata.next = self.out_data.q.val();
        self.m_axis_tkeep.next = self.out_keep.q.val();
        self.m_axis_tlast.next = self.out_last.q.val();
        self.out_free.next = (!self.out_valid.q.val()) | self.m_axis_tready.val();
        self.head_x32.next = bit_cast::<9, 4>(self.fifo_head.q.val()) << 5;
        self.head_port_x.next = self.head_x32.val() + 16;
        self.h_slot.next = self.fifo.q.val().get_bits::<4>(self.head_x32.val().index());
        self.h_local_port.next = self.fifo.q.val().get_bits::<16>(self.head_port_x.val().index());
        self.h_x16.next = bit_cast::<8, 4>(self.h_slot.val()) << 4;
        self.h_x64.next = bit_cast::<10, 4>(self.h_slot.val()) << 6;
        self.h_len.next = self.msg_table.slot_msg_len.val().get_bits::<16>(self.h_x16.val().index());
        self.h_word.next = bit_cast::<15, 16>(self.msg_table.slot_page.val().get_bits::<16>(self.h_x16.val().index())) << 7;
        self.h_key.next = self.msg_table.slot_key.val().get_bits::<48>(self.h_x64.val().index());
        self.start.next = ((self.ro_state.q.val() == 0) & (self.fifo_count.q.val() != 0)) & self.out_free.val();
        self.load_hdr1.next = (self.ro_state.q.val() == 1) & self.out_free.val();
        self.load_data.next = (self.ro_state.q.val() == 2) & self.out_free.val();
        self.ro_release.next = self.load_data.val() & (self.ro_words_left.q.val() == 1);
        self.ro_ptr_next.next = self.ro_ptr.q.val();
        if self.start.val() {
            self.ro_ptr_next.next = self.h_word.val();
        }
        if self.load_data.val() {
            self.ro_ptr_next.next = self.ro_ptr.q.val() + 1;
        }
        self.ro_ptr.d.next = self.ro_ptr_next.val();
        self.payload.read_address.next = self.ro_ptr_next.val();
        self.last_rem.next = self.ro_msg_len.q.val().get_bits::<3>(0);
        self.last_rem_bits.next = bit_cast::<6, 3>(self.last_rem.val()) << 3;
        self.last_keep.next = 0xFF.into();
        self.last_mask.next = self.all_ones64.val();
        if self.last_rem.val() != 0 {
            self.last_keep.next = (bits::<8>(1) << self.last_rem.val()) - 1;
            self.last_mask.next = (bits::<64>(1) << self.last_rem_bits.val()) - 1;
        }
        if self.start.val() {
            self.out_valid.d.next = true;
            self.out_data.d.next = bit_cast::<64, 48>(self.h_key.val())
                | (bit_cast::<64, 16>(self.h_local_port.val()) << 48);
            self.out_keep.d.next = 0xFF.into();
            self.out_last.d.next = false;
            self.ro_state.d.next = 1.into();
            self.ro_slot.d.next = self.h_slot.val();
            self.ro_msg_len.d.next = self.h_len.val();
            self.ro_words_left.d.next = bit_cast::<13, 17>((bit_cast::<17, 16>(self.h_len.val()) + 7) >> 3);
            self.fifo_head.d.next = self.fifo_head.q.val() + 1;
        } else if self.load_hdr1.val() {
            self.out_valid.d.next = true;
            self.out_data.d.next = bit_cast::<64, 16>(self.ro_msg_len.q.val());
            self.out_keep.d.next = 0xFF.into();
            self.out_last.d.next = false;
            self.ro_state.d.next = 2.into();
        } else if self.load_data.val() {
            self.out_valid.d.next = true;
            self.out_data.d.next = self.payload.read_data.val();
            self.out_keep.d.next = 0xFF.into();
            self.out_last.d.next = false;
            self.ro_words_left.d.next = self.ro_words_left.q.val() - 1;
            if self.ro_release.val() {
                self.out_data.d.next = self.payload.read_data.val() & self.last_mask.val();
                self.out_keep.d.next = self.last_keep.val();
                self.out_last.d.next = true;
                self.ro_state.d.next = 0.into();
            }
        } else if self.m_axis_tready.val() {
            self.out_valid.d.next = false;
        }

        // ---- Releases: read-out end, then a pending abort, then a timeout.
        self.abort_release.next = self.abort_pending.q.val() & (!self.ro_release.val());
        self.s_axis_tready.next = !self.abort_pending.q.val();
        self.beat.next = self.s_axis_tvalid.val() & (!self.abort_pending.q.val());
        self.first.next = self.beat.val() & (!self.in_busy.q.val());
        self.m_slot.next = self.s_axis_meta_rx_msg_id.val().get_bits::<4>(0);
        self.t_slot.next = self.timer.timeout_id.val();
        self.t_x8.next = bit_cast::<7, 4>(self.t_slot.val()) << 3;
        self.touching_timeout.next = (self.in_busy.q.val() & (self.in_slot.q.val() == self.t_slot.val()))
            | (self.first.val() & (self.m_slot.val() == self.t_slot.val()));
        self.timer.timeout_ready.next =
            ((!self.ro_release.val()) & (!self.abort_pending.q.val())) & (!self.touching_timeout.val());
        self.timeout_take.next = self.timer.timeout_valid.val() & self.timer.timeout_ready.val();
        self.gc_legit.next = ((self.timeout_take.val() & self.msg_table.slot_valid.val().get_bit(self.t_slot.val().index()))
            & (self.msg_table.slot_gen.val().get_bits::<8>(self.t_x8.val().index()) == self.timer.timeout_meta.val()))
            & (!self.closed.q.val().get_bit(self.t_slot.val().index()));
        self.rel_valid.next = (self.ro_release.val() | self.abort_release.val()) | self.gc_legit.val();
        self.rel_slot.next = self.t_slot.val();
        self.release_reason.next = 0.into();
        if self.gc_legit.val() {
            self.release_reason.next = 3.into();
        }
        if self.abort_release.val() {
            self.rel_slot.next = self.abort_slot.q.val();
            self.release_reason.next = 2.into();
        }
        if self.ro_release.val() {
            self.rel_slot.next = self.ro_slot.q.val();
            self.release_reason.next = 1.into();
        }
        self.rel_x64.next = bit_cast::<10, 4>(self.rel_slot.val()) << 6;
        self.release_valid.next = self.rel_valid.val();
        self.release_slot.next = self.rel_slot.val();
        self.msg_table.release_valid.next = self.rel_valid.val();
        self.msg_table.release_slot.next = self.rel_slot.val();
        self.msg_table.release_delivered.next = self.ro_release.val();
        if self.abort_release.val() {
            self.abort_pending.d.next = false;
        }

        // ---- Packet input: first-beat checks against the table and the written bitmap.
        self.m_gen.next = self.s_axis_meta_rx_msg_id.val().get_bits::<8>(4);
        self.m_x64.next = bit_cast::<10, 4>(self.m_slot.val()) << 6;
        self.m_x16.next = bit_cast::<8, 4>(self.m_slot.val()) << 4;
        self.m_x8.next = bit_cast::<7, 4>(self.m_slot.val()) << 3;
        self.m_len.next = self.msg_table.slot_msg_len.val().get_bits::<16>(self.m_x16.val().index());
        self.m_key.next = self.msg_table.slot_key.val().get_bits::<64>(self.m_x64.val().index());
        self.meta_key.next = ((bit_cast::<64, 16>(self.s_axis_meta_tx_msg_id.val()) << 48)
            | (bit_cast::<64, 16>(self.s_axis_meta_remote_port.val()) << 32))
            | bit_cast::<64, 32>(self.s_axis_meta_remote_ip.val());
        self.f_live.next = (((((self.s_axis_meta_rx_msg_id.val().get_bits::<4>(12) == 0)
            & self.msg_table.slot_valid.val().get_bit(self.m_slot.val().index()))
            & (self.msg_table.slot_gen.val().get_bits::<8>(self.m_x8.val().index()) == self.m_gen.val()))
            & (!self.closed.q.val().get_bit(self.m_slot.val().index())))
            & (self.m_key.val() == self.meta_key.val()))
            & (self.m_len.val() == self.s_axis_meta_msg_len.val());
        self.f_pkts.next = bit_cast::<7, 17>((bit_cast::<17, 16>(self.m_len.val()) + 1023) >> 10);
        self.f_off6.next = self.s_axis_meta_pkt_offset.val().get_bits::<6>(0);
        self.f_offset_ok.next = self.s_axis_meta_pkt_offset.val() < bit_cast::<8, 7>(self.f_pkts.val());
        self.f_bit.next = self.m_x64.val() + bit_cast::<10, 6>(self.f_off6.val());
        self.f_dup.next = self.written.q.val().get_bit(self.f_bit.val().index());
        self.f_ok.next = (self.f_live.val() & self.f_offset_ok.val()) & (!self.f_dup.val());
        self.f_expected.next = 1024.into();
        if (bit_cast::<7, 6>(self.f_off6.val()) + 1) == self.f_pkts.val() {
            self.f_expected.next = bit_cast::<11, 16>(self.m_len.val() - (bit_cast::<16, 6>(self.f_off6.val()) << 10));
        }
        self.f_base.next = bit_cast::<15, 16>(
            self.msg_table.slot_page.val().get_bits::<16>(self.m_x16.val().index()) + bit_cast::<16, 6>(self.f_off6.val()),
        ) << 7;

        // The current beat's packet: from the first-beat checks, or from the input registers.
        self.c_ok.next = self.in_ok.q.val();
        self.c_slot.next = self.in_slot.q.val();
        self.c_off6.next = self.in_off6.q.val();
        self.c_pkts.next = self.in_pkts.q.val();
        self.c_expected.next = self.in_expected.q.val();
        self.c_base.next = self.in_base.q.val();
        self.c_local_port.next = self.in_local_port.q.val();
        self.c_beat.next = self.in_beat.q.val();
        self.c_bad_before.next = self.in_len_bad.q.val();
        if self.first.val() {
            self.c_ok.next = self.f_ok.val();
            self.c_slot.next = self.m_slot.val();
            self.c_off6.next = self.f_off6.val();
            self.c_pkts.next = self.f_pkts.val();
            self.c_expected.next = self.f_expected.val();
            self.c_base.next = self.f_base.val();
            self.c_local_port.next = self.s_axis_meta_local_port.val();
            self.c_beat.next = 0.into();
            self.c_bad_before.next = false;
        }
        self.payload.write_enable.next = (self.beat.val() & self.c_ok.val()) & (self.c_beat.val() < 128);
        self.payload.write_address.next = self.c_base.val() + bit_cast::<15, 8>(self.c_beat.val());
        self.payload.write_data.next = self.s_axis_tdata.val();

        // Length: every non-final beat full; the final tkeep contiguous from byte 0.
        self.last_bytes.next = 0.into();
        for i in 0..8 {
            if self.s_axis_tkeep.val().get_bit(i) {
                self.last_bytes.next = (i + 1).to_bits();
            }
        }
        self.keep_contig.next = (self.s_axis_tkeep.val() & (self.s_axis_tkeep.val() + 1)) == 0;
        self.beat_bad.next = self.s_axis_tkeep.val() != 0xFF;
        if self.s_axis_tlast.val() {
            self.beat_bad.next = !self.keep_contig.val();
        }
        self.total_len.next = (bit_cast::<11, 8>(self.c_beat.val()) << 3) + bit_cast::<11, 4>(self.last_bytes.val());
        self.len_ok.next = (((!self.c_bad_before.val()) & (!self.beat_bad.val())) & (self.c_beat.val() < 128))
            & (self.total_len.val() == self.c_expected.val());
        self.end_ok.next = (self.beat.val() & self.s_axis_tlast.val()) & self.c_ok.val();
        self.c_x64.next = bit_cast::<10, 4>(self.c_slot.val()) << 6;
        self.c_bit.next = self.c_x64.val() + bit_cast::<10, 6>(self.c_off6.val());
        self.written_after.next =
            self.written.q.val().get_bits::<64>(self.c_x64.val().index()).replace_bit(self.c_off6.val().index(), true);
        self.complete.next = (self.end_ok.val() & self.len_ok.val())
            & (self.written_after.val() == (!(self.all_ones64.val() << self.c_pkts.val())));
        self.abort.next = self.end_ok.val() & (!self.len_ok.val());

        // Per-message state: written bits, closed bits (a release clears both).
        self.written_set.next = self.written.q.val();
        if self.end_ok.val() & self.len_ok.val() {
            self.written_set.next = self.written.q.val().replace_bit(self.c_bit.val().index(), true);
        }
        self.written.d.next = self.written_set.val();
        if self.rel_valid.val() {
            self.written.d.next = self.written_set.val() & (!(self.lane64.val() << self.rel_x64.val()));
        }
        self.closed_set.next = self.closed.q.val();
        if self.complete.val() | self.abort.val() {
            self.closed_set.next = self.closed.q.val().replace_bit(self.c_slot.val().index(), true);
        }
        self.closed.d.next = self.closed_set.val();
        if self.rel_valid.val() {
            self.closed.d.next = self.closed_set.val().replace_bit(self.rel_slot.val().index(), false);
        }
        if self.abort.val() {
            self.abort_pending.d.next = true;
            self.abort_slot.d.next = self.c_slot.val();
        }

        // Timer: (re)scheduled by GetRxMsgInfo, cancelled on completion or abort.
        self.timer.now.next = self.now.q.val();
        self.timer.sched_valid.next = self.msg_table.sched_valid.val();
        self.timer.sched_id.next = self.msg_table.sched_slot.val();
        self.timer.sched_meta.next = self.msg_table.sched_gen.val();
        self.timer.sched_delay.next = self.ingress_timeout.val();
        self.timer.cancel_valid.next = self.complete.val() | self.abort.val();
        self.timer.cancel_id.next = self.c_slot.val();

        // Read-out queue.
        self.tail_x32.next = bit_cast::<9, 4>(self.fifo_tail.q.val()) << 5;
        if self.complete.val() {
            self.fifo.d.next = (self.fifo.q.val() & (!(self.lane32.val() << self.tail_x32.val())))
                | (((bit_cast::<512, 4>(self.c_slot.val())) | (bit_cast::<512, 16>(self.c_local_port.val()) << 16)) << self.tail_x32.val());
            self.fifo_tail.d.next = self.fifo_tail.q.val() + 1;
        }
        if self.complete.val() & (!self.start.val()) {
            self.fifo_count.d.next = self.fifo_count.q.val() + 1;
        }
        if self.start.val() & (!self.complete.val()) {
            self.fifo_count.d.next = self.fifo_count.q.val() - 1;
        }

        // Input registers.
        if self.beat.val() {
            self.in_busy.d.next = !self.s_axis_tlast.val();
            self.in_len_bad.d.next = self.c_bad_before.val() | self.beat_bad.val();
            if self.c_beat.val() < 128 {
                self.in_beat.d.next = self.c_beat.val() + 1;
            } else {
                self.in_beat.d.next = self.c_beat.val();
            }
        }
        if self.first.val() {
            self.in_ok.d.next = self.f_ok.val();
            self.in_slot.d.next = self.m_slot.val();
            self.in_off6.d.next = self.f_off6.val();
            self.in_pkts.d.next = self.f_pkts.val();
            self.in_expected.d.next = self.f_expected.val();
            self.in_base.d.next = self.f_base.val();
            self.in_local_port.d.next = self.s_axis_meta_local_port.val();
        }

        // Counters.
        if self.first.val() & (!self.f_live.val()) {
            self.c_stale.d.next = self.c_stale.q.val() + 1;
        }
        if (self.first.val() & self.f_live.val()) & (!self.f_offset_ok.val()) {
            self.c_bad_offset.d.next = self.c_bad_offset.q.val() + 1;
        }
        if ((self.first.val() & self.f_live.val()) & self.f_offset_ok.val()) & self.f_dup.val() {
            self.c_duplicate.d.next = self.c_duplicate.q.val() + 1;
        }
        if self.abort.val() {
            self.c_bad_length.d.next = self.c_bad_length.q.val() + 1;
        }
        if self.gc_legit.val() {
            self.c_gc.d.next = self.c_gc.q.val() + 1;
        }
        if self.timeout_take.val() & (!self.gc_legit.val()) {
            self.c_stale_timeout.d.next = self.c_stale_timeout.q.val() + 1;
        }
        if self.ro_release.val() {
            self.c_delivered.d.next = self.c_delivered.q.val() + 1;
        }

        if self.reset.val() {
            self.now.d.next = 0.into();
            self.written.d.next = 0.into();
            self.closed.d.next = 0.into();
            self.in_busy.d.next = false;
            self.abort_pending.d.next = false;
            self.fifo_head.d.next = 0.into();
            self.fifo_tail.d.next = 0.into();
            self.fifo_count.d.next = 0.into();
            self.ro_state.d.next = 0.into();
            self.out_valid.d.next = false;
            self.c_stale.d.next = 0.into();
            self.c_bad_offset.d.next = 0.into();
            self.c_duplicate.d.next = 0.into();
            self.c_bad_length.d.next = 0.into();
            self.c_gc.d.next = 0.into();
            self.c_stale_timeout.d.next = 0.into();
            self.c_delivered.d.next = 0.into();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clock(u: &mut Reassembly) {
        assert!(simulate(u, 2000));
        u.clock.next = Clock { clk: true };
        assert!(simulate(u, 2000));
        u.clock.next = Clock { clk: false };
        assert!(simulate(u, 2000));
    }

    /// One 16-byte message natively: GetRxMsgInfo, two payload beats, the read-out of two header
    /// beats and two payload beats, then the slot is free again.
    #[test]
    fn delivers_a_single_packet_message_natively() {
        let mut u = Reassembly::default();
        u.connect_all();
        u.reset.next = true;
        u.ingress_timeout.next = 1000.into();
        u.m_axis_tready.next = true;
        clock(&mut u);
        u.reset.next = false;
        u.req_valid.next = true;
        u.req_mark_received.next = true;
        u.req_src_ip.next = 0x0a000001.into();
        u.req_src_port.next = 7.into();
        u.req_tx_msg_id.next = 3.into();
        u.req_msg_len.next = 16.into();
        clock(&mut u);
        u.req_valid.next = false;
        assert!(simulate(&mut u, 2000));
        assert!(u.resp_valid.val() && u.resp_is_new_msg.val() && u.resp_is_last_pkt.val());
        let rx_msg_id = u.resp_rx_msg_id.val();
        clock(&mut u);
        u.s_axis_meta_remote_ip.next = 0x0a000001.into();
        u.s_axis_meta_remote_port.next = 7.into();
        u.s_axis_meta_tx_msg_id.next = 3.into();
        u.s_axis_meta_msg_len.next = 16.into();
        u.s_axis_meta_local_port.next = 80.into();
        u.s_axis_meta_rx_msg_id.next = rx_msg_id;
        u.s_axis_tkeep.next = 0xFF.into();
        let mut out = Vec::new();
        for beat in 0..12u64 {
            u.s_axis_tvalid.next = beat < 2;
            u.s_axis_tlast.next = beat == 1;
            u.s_axis_tdata.next = (0x1111_1111_1111_1111u64 * (beat + 1)).into();
            assert!(simulate(&mut u, 2000));
            if u.m_axis_tvalid.val() {
                out.push((u.m_axis_tdata.val().to_u64(), u.m_axis_tlast.val()));
            }
            clock(&mut u);
        }
        assert_eq!(
            out,
            vec![
                (0x0050_0007_0a00_0001, false),
                (16, false),
                (0x1111_1111_1111_1111, false),
                (0x2222_2222_2222_2222, true)
            ]
        );
        assert_eq!(u.delivered_count.val().to_u64(), 1);
        assert_eq!(u.busy_slots.val().to_u64(), 0);
        assert_eq!(u.free_lists_full.val().to_u64(), 0x1f);
    }
}
