//! Transmit path for 128 messages (thesis §3.2.4–3.2.5, §3.3.2): the ports, CPU message format,
//! completions, events, packet stream and counters of the 16-message
//! [`crate::nic::tx_path::TxPath16`], around the RAM-based [`Packetization128`] core, a
//! 128-entry egress [`Timer`] and four size classes of buffers in a 1 MiB payload memory.
//!
//! ```text
//!  s_axis_msg ─▶ message writer ──▶ payload RAM (1 MiB) ──▶ read-out ─▶ 2-entry buffer ─▶ m_axis_pkt
//!   (64-bit)      │ 4 size-class free lists  ▲                ▲ (descriptor: Listing 3.2)
//!                 └─ install ─▶ Packetization128 ─────────────┘
//!  dlv_* / ctx_* ─▶ event FIFOs ─▶ │ ▲ sched/cancel/timeout
//!                                  ▼ │
//!                          egress Timer<128> (metadata {tx_msg_id, maxTxPktOffset+1})
//! ```
//!
//! # Differences from the 16-message path (everything else is as documented there)
//! * `msg_id`, `done_tx_msg_id`, `m_axis_pkt_tx_msg_id`: tx_msg_id = `{generation[8:0],
//!   slot[6:0]}`; `active` is 128 bits wide.
//! * **Size classes** (the buffer index is the message slot; smallest class with a free buffer that
//!   fits, else a larger one, else `s_axis_msg_tready` low): **64 × 1 KiB** (slots 0–63),
//!   **32 × 4 KiB** (64–95), **16 × 8 KiB** (96–111), **16 × 38 KiB** (38 packets = 38 912 B,
//!   the largest message, 112–127): 928 KiB of buffers in a 2^17 × 64-bit (1 MiB) payload memory,
//!   the layout of the 128-message reassembly memory. At most 16 messages above 8 KiB are held at
//!   once (the prototype's 128 × 32 KB would need 4 MiB). Larger messages are rejected as before
//!   (`msg_len` 0 or above 38 912 → `rejected_msg_count`).
//! * `msg_id_valid`/`msg_id` pulse when the core installs the message (one cycle after the
//!   16-message path would, see below).
//! * Completions queue in a 128-entry FIFO (one per freed slot, so it never overflows) and are
//!   offered on `done_*` in the order the slots were freed.
//! * Events take effect 3 cycles after they arrive: they enter 16-entry FIFOs in the core, served
//!   at one event per cycle in total (see [`Packetization128`]: either kind alone at one per cycle
//!   is never lost; an event that finds its FIFO full is dropped and counted in the extra output
//!   **`event_overflow_count`**, the only port that TxPath16 does not have).
//! * The timer scans 128 entries, so an expiry is raised up to N + 2 = 130 cycles after it is due.
//!
//! # Latency and throughput (measured on the Verilator model, testbenches/tests/tx_path_128.rs)
//! 16-byte message, first word accepted in cycle 0: words 1–3 in cycles 1–3, the install waits in
//! the writer's commit register in cycle 4 and wins the core's S0, S1 in cycle 5 installs it
//! (`msg_id_valid`) and chooses its first packet, the descriptor is accepted by the read-out in
//! cycle 6, the payload read is issued in cycle 7, the memory returns the word in cycle 8 and the
//! output buffer shows the first beat in cycle 9: **9 cycles**, as the 16-message path
//! (`sixteen_byte_message_latency`). Throughput: one payload beat per cycle (a 38-packet message:
//! 4864 beats in 4864 cycles); the core gives one descriptor per cycle, so 100 queued 1-byte
//! messages leave as 100 one-beat packets in 100 cycles; 1-byte messages with ACKs fed back as
//! DeliveredEvents: one 9-beat frame every 9.000 cycles, no idle wire cycle (line rate). The CPU
//! side takes one word per cycle, plus one cycle per message for the install (as the 16-message
//! path).
//!
//! Retransmission timing (RTO 1000 cycles, threshold 2, a 1-byte message never acknowledged;
//! `lost_single_packet_message_retransmission_and_abandon_timing`): sent 4 cycles after
//! `msg_id_valid`, retransmitted at 2053 and 3077, abandoned at 4097 (the 16-message path:
//! 2021, 3029, 4033 relative to its `msg_id_valid`; the difference is the 128-entry timer scan).
//!
//! # Reset
//! One cycle of `reset`: every buffer and slot free, timers cancelled, queues empty, counters
//! zero (slot generations continue, see [`Packetization128`]).

use crate::common::find_first_set::FindFirstSet;
use crate::common::free_list::FreeList;
use crate::common::stream_fifo::StreamFifo;
use crate::nic::packetization_128::Packetization128;
use crate::nic::timer::Timer;
use rust_hdl::prelude::*;

/// Largest message: 38 packets of 1024 bytes.
pub const TX128_MAX_MSG_BYTES: u64 = 38 * 1024;
/// Payload words per size class buffer.
pub const TX128_CLASS_WORDS: [u64; 4] = [128, 512, 1024, 4864];
/// Buffers per size class.
pub const TX128_CLASS_BUFFERS: [u64; 4] = [64, 32, 16, 16];

/// The 128-message transmit path.
#[derive(LogicBlock)]
pub struct TxPath128 {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub default_credit: Signal<In, Bits<16>>,
    pub timeout_threshold: Signal<In, Bits<8>>,
    pub rto_cycles: Signal<In, Bits<32>>,
    // CPU message stream
    pub s_axis_msg_tdata: Signal<In, Bits<64>>,
    pub s_axis_msg_tkeep: Signal<In, Bits<8>>,
    pub s_axis_msg_tlast: Signal<In, Bit>,
    pub s_axis_msg_tvalid: Signal<In, Bit>,
    pub s_axis_msg_tready: Signal<Out, Bit>,
    pub msg_id_valid: Signal<Out, Bit>,
    pub msg_id: Signal<Out, Bits<16>>,
    // completion records
    pub done_valid: Signal<Out, Bit>,
    pub done_ready: Signal<In, Bit>,
    pub done_tx_msg_id: Signal<Out, Bits<16>>,
    pub done_abandoned: Signal<Out, Bit>,
    // events
    pub dlv_valid: Signal<In, Bit>,
    pub dlv_tx_msg_id: Signal<In, Bits<16>>,
    pub dlv_ack_bitmap: Signal<In, Bits<64>>,
    pub ctx_valid: Signal<In, Bit>,
    pub ctx_tx_msg_id: Signal<In, Bits<16>>,
    pub ctx_rtx_flag: Signal<In, Bit>,
    pub ctx_rtx_bitmap: Signal<In, Bits<64>>,
    pub ctx_credit_flag: Signal<In, Bit>,
    pub ctx_new_credit: Signal<In, Bits<16>>,
    pub ctx_allow_tx: Signal<In, Bit>,
    pub ctx_raise_only: Signal<In, Bit>,
    // packet stream
    pub m_axis_pkt_tdata: Signal<Out, Bits<64>>,
    pub m_axis_pkt_tkeep: Signal<Out, Bits<8>>,
    pub m_axis_pkt_tlast: Signal<Out, Bit>,
    pub m_axis_pkt_tvalid: Signal<Out, Bit>,
    pub m_axis_pkt_tready: Signal<In, Bit>,
    pub m_axis_pkt_remote_ip: Signal<Out, Bits<32>>,
    pub m_axis_pkt_remote_port: Signal<Out, Bits<16>>,
    pub m_axis_pkt_msg_len: Signal<Out, Bits<16>>,
    pub m_axis_pkt_pkt_offset: Signal<Out, Bits<8>>,
    pub m_axis_pkt_local_port: Signal<Out, Bits<16>>,
    pub m_axis_pkt_tx_msg_id: Signal<Out, Bits<16>>,
    pub m_axis_pkt_credit: Signal<Out, Bits<16>>,
    pub m_axis_pkt_rank: Signal<Out, Bits<8>>,
    pub m_axis_pkt_flags: Signal<Out, Bits<8>>,
    pub m_axis_pkt_is_new_msg: Signal<Out, Bit>,
    pub m_axis_pkt_is_rtx: Signal<Out, Bit>,
    // status and counters
    pub active: Signal<Out, Bits<128>>,
    pub buffers_all_free: Signal<Out, Bit>,
    pub rejected_msg_count: Signal<Out, Bits<16>>,
    pub framing_error_count: Signal<Out, Bits<16>>,
    pub stale_delivered_count: Signal<Out, Bits<16>>,
    pub stale_credit_count: Signal<Out, Bits<16>>,
    pub stale_timeout_count: Signal<Out, Bits<16>>,
    pub ack_beyond_count: Signal<Out, Bits<16>>,
    pub rtx_beyond_count: Signal<Out, Bits<16>>,
    pub credit_beyond_count: Signal<Out, Bits<16>>,
    pub delivered_msg_count: Signal<Out, Bits<16>>,
    pub abandoned_msg_count: Signal<Out, Bits<16>>,
    pub write_busy_count: Signal<Out, Bits<16>>,
    pub buffer_double_free_count: Signal<Out, Bits<16>>,
    pub buffers_exhausted: Signal<Out, Bit>,
    pub event_overflow_count: Signal<Out, Bits<16>>,


    core: Packetization128,
    timer: Timer<128, 7, 24>,
    class0: FreeList<64, 6>,
    class1: FreeList<32, 5>,
    class2: FreeList<16, 4>,
    class3: FreeList<16, 4>,
    payload: RAM<Bits<64>, 17>,
    comp_q: StreamFifo<Bits<17>, 7>,
    ret_ffs: FindFirstSet<128, 7>,
    now: DFF<Bits<64>>,
    // message writer
    w_state: DFF<Bits<2>>,
    w_slot: DFF<Bits<7>>,
    w_len: DFF<Bits<16>>,
    w_credit: DFF<Bits<16>>,
    w_credit_valid: DFF<Bit>,
    w_rank: DFF<Bits<8>>,
    w_ip: DFF<Bits<32>>,
    w_rport: DFF<Bits<16>>,
    w_lport: DFF<Bits<16>>,
    w_word: DFF<Bits<16>>,
    w_commit: DFF<Bit>,
    cnt_rejected: DFF<Bits<16>>,
    cnt_framing: DFF<Bits<16>>,
    // buffer return
    returning: DFF<Bits<128>>,
    // read-out
    rd_active: DFF<Bit>,
    rd_slot: DFF<Bits<7>>,
    rd_addr: DFF<Bits<17>>,
    rd_beats: DFF<Bits<8>>,
    rd_last_keep: DFF<Bits<8>>,
    rd_meta: DFF<Bits<138>>,
    s1_valid: DFF<Bit>,
    s1_keep: DFF<Bits<8>>,
    s1_last: DFF<Bit>,
    s1_meta: DFF<Bits<138>>,
    e_count: DFF<Bits<2>>,
    e0_data: DFF<Bits<64>>,
    e0_keep: DFF<Bits<8>>,
    e0_last: DFF<Bit>,
    e0_meta: DFF<Bits<138>>,
    e1_data: DFF<Bits<64>>,
    e1_keep: DFF<Bits<8>>,
    e1_last: DFF<Bit>,
    e1_meta: DFF<Bits<138>>,

    // writer locals
    w0_len: Signal<Local, Bits<16>>,
    w0_reject: Signal<Local, Bit>,
    w0_fits0: Signal<Local, Bit>,
    w0_fits1: Signal<Local, Bit>,
    w0_fits2: Signal<Local, Bit>,
    w0_use0: Signal<Local, Bit>,
    w0_use1: Signal<Local, Bit>,
    w0_use2: Signal<Local, Bit>,
    w0_use3: Signal<Local, Bit>,
    w0_slot: Signal<Local, Bits<7>>,
    w_ready: Signal<Local, Bit>,
    w_take: Signal<Local, Bit>,
    w_words_total: Signal<Local, Bits<16>>,
    w_last_keep: Signal<Local, Bits<8>>,
    w_expect_last: Signal<Local, Bit>,
    w_framing_free: Signal<Local, Bit>,
    w_framing_word0: Signal<Local, Bit>,
    w_base: Signal<Local, Bits<17>>,
    // completion / return locals
    comp_take: Signal<Local, Bit>,
    comp_slot: Signal<Local, Bits<7>>,
    ret_go: Signal<Local, Bit>,
    busy_mask: Signal<Local, Bits<128>>,
    busy_core0: Signal<Local, Bits<128>>,
    busy_core1: Signal<Local, Bits<128>>,
    busy_rd: Signal<Local, Bits<128>>,
    free_go: Signal<Local, Bit>,
    free_slot: Signal<Local, Bits<7>>,
    ret_after_take: Signal<Local, Bits<128>>,
    // read-out locals
    pop: Signal<Local, Bit>,
    space: Signal<Local, Bit>,
    issue: Signal<Local, Bit>,
    issue_last: Signal<Local, Bit>,
    accept: Signal<Local, Bit>,
    d_remaining: Signal<Local, Bits<17>>,
    d_bytes: Signal<Local, Bits<17>>,
    d_base: Signal<Local, Bits<17>>,
    d_meta: Signal<Local, Bits<138>>,
    d_meta_lo: Signal<Local, Bits<138>>,
    d_meta_new: Signal<Local, Bits<138>>,
    d_meta_rtx: Signal<Local, Bits<138>>,
    w_slot_base: Signal<Local, Bits<17>>,
    w_k3: Signal<Local, Bits<17>>,
    d_slot_base: Signal<Local, Bits<17>>,
    d_k3: Signal<Local, Bits<17>>,
    ones8: Constant<Bits<8>>,
    zero128: Constant<Bits<128>>,
    bit136: Constant<Bits<138>>,
    bit137: Constant<Bits<138>>,
}

impl Default for TxPath128 {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            default_credit: Default::default(),
            timeout_threshold: Default::default(),
            rto_cycles: Default::default(),
            s_axis_msg_tdata: Default::default(),
            s_axis_msg_tkeep: Default::default(),
            s_axis_msg_tlast: Default::default(),
            s_axis_msg_tvalid: Default::default(),
            s_axis_msg_tready: Default::default(),
            msg_id_valid: Default::default(),
            msg_id: Default::default(),
            done_valid: Default::default(),
            done_ready: Default::default(),
            done_tx_msg_id: Default::default(),
            done_abandoned: Default::default(),
            dlv_valid: Default::default(),
            dlv_tx_msg_id: Default::default(),
            dlv_ack_bitmap: Default::default(),
            ctx_valid: Default::default(),
            ctx_tx_msg_id: Default::default(),
            ctx_rtx_flag: Default::default(),
            ctx_rtx_bitmap: Default::default(),
            ctx_credit_flag: Default::default(),
            ctx_new_credit: Default::default(),
            ctx_allow_tx: Default::default(),
            ctx_raise_only: Default::default(),
            m_axis_pkt_tdata: Default::default(),
            m_axis_pkt_tkeep: Default::default(),
            m_axis_pkt_tlast: Default::default(),
            m_axis_pkt_tvalid: Default::default(),
            m_axis_pkt_tready: Default::default(),
            m_axis_pkt_remote_ip: Default::default(),
            m_axis_pkt_remote_port: Default::default(),
            m_axis_pkt_msg_len: Default::default(),
            m_axis_pkt_pkt_offset: Default::default(),
            m_axis_pkt_local_port: Default::default(),
            m_axis_pkt_tx_msg_id: Default::default(),
            m_axis_pkt_credit: Default::default(),
            m_axis_pkt_rank: Default::default(),
            m_axis_pkt_flags: Default::default(),
            m_axis_pkt_is_new_msg: Default::default(),
            m_axis_pkt_is_rtx: Default::default(),
            active: Default::default(),
            buffers_all_free: Default::default(),
            rejected_msg_count: Default::default(),
            framing_error_count: Default::default(),
            stale_delivered_count: Default::default(),
            stale_credit_count: Default::default(),
            stale_timeout_count: Default::default(),
            ack_beyond_count: Default::default(),
            rtx_beyond_count: Default::default(),
            credit_beyond_count: Default::default(),
            delivered_msg_count: Default::default(),
            abandoned_msg_count: Default::default(),
            write_busy_count: Default::default(),
            buffer_double_free_count: Default::default(),
            buffers_exhausted: Default::default(),
            event_overflow_count: Default::default(),
            core: Default::default(),
            timer: Default::default(),
            class0: Default::default(),
            class1: Default::default(),
            class2: Default::default(),
            class3: Default::default(),
            payload: Default::default(),
            comp_q: Default::default(),
            ret_ffs: Default::default(),
            now: Default::default(),
            w_state: Default::default(),
            w_slot: Default::default(),
            w_len: Default::default(),
            w_credit: Default::default(),
            w_credit_valid: Default::default(),
            w_rank: Default::default(),
            w_ip: Default::default(),
            w_rport: Default::default(),
            w_lport: Default::default(),
            w_word: Default::default(),
            w_commit: Default::default(),
            cnt_rejected: Default::default(),
            cnt_framing: Default::default(),
            returning: Default::default(),
            rd_active: Default::default(),
            rd_slot: Default::default(),
            rd_addr: Default::default(),
            rd_beats: Default::default(),
            rd_last_keep: Default::default(),
            rd_meta: Default::default(),
            s1_valid: Default::default(),
            s1_keep: Default::default(),
            s1_last: Default::default(),
            s1_meta: Default::default(),
            e_count: Default::default(),
            e0_data: Default::default(),
            e0_keep: Default::default(),
            e0_last: Default::default(),
            e0_meta: Default::default(),
            e1_data: Default::default(),
            e1_keep: Default::default(),
            e1_last: Default::default(),
            e1_meta: Default::default(),
            w0_len: Default::default(),
            w0_reject: Default::default(),
            w0_fits0: Default::default(),
            w0_fits1: Default::default(),
            w0_fits2: Default::default(),
            w0_use0: Default::default(),
            w0_use1: Default::default(),
            w0_use2: Default::default(),
            w0_use3: Default::default(),
            w0_slot: Default::default(),
            w_ready: Default::default(),
            w_take: Default::default(),
            w_words_total: Default::default(),
            w_last_keep: Default::default(),
            w_expect_last: Default::default(),
            w_framing_free: Default::default(),
            w_framing_word0: Default::default(),
            w_base: Default::default(),
            comp_take: Default::default(),
            comp_slot: Default::default(),
            ret_go: Default::default(),
            busy_mask: Default::default(),
            busy_core0: Default::default(),
            busy_core1: Default::default(),
            busy_rd: Default::default(),
            free_go: Default::default(),
            free_slot: Default::default(),
            ret_after_take: Default::default(),
            pop: Default::default(),
            space: Default::default(),
            issue: Default::default(),
            issue_last: Default::default(),
            accept: Default::default(),
            d_remaining: Default::default(),
            d_bytes: Default::default(),
            d_base: Default::default(),
            d_meta: Default::default(),
            d_meta_lo: Default::default(),
            d_meta_new: Default::default(),
            d_meta_rtx: Default::default(),
            w_slot_base: Default::default(),
            w_k3: Default::default(),
            d_slot_base: Default::default(),
            d_k3: Default::default(),
            ones8: Constant::new(0xFFu64.into()),
            zero128: Constant::new(Bits::<128>::default()),
            bit136: Constant::new(Bits::<138>::default().replace_bit(136, true)),
            bit137: Constant::new(Bits::<138>::default().replace_bit(137, true)),
        }
    }
}

impl Logic for TxPath128 {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, now, w_state, w_slot, w_len, w_credit, w_credit_valid, w_rank, w_ip, w_rport, w_lport,
            w_word, w_commit, cnt_rejected, cnt_framing, returning, rd_active, rd_slot, rd_addr, rd_beats,
            rd_last_keep, rd_meta, s1_valid, s1_keep, s1_last, s1_meta, e_count, e0_data, e0_keep, e0_last, e0_meta,
            e1_data, e1_keep, e1_last, e1_meta
        );
        clock!(self, clock, core, timer, class0, class1, class2, class3, comp_q);
        self.payload.read_clock.next = self.clock.val();
        self.payload.write_clock.next = self.clock.val();
        self.now.d.next = self.now.q.val() + 1;
        self.core.reset.next = self.reset.val();
        self.timer.reset.next = self.reset.val();
        self.class0.reset.next = self.reset.val();
        self.class1.reset.next = self.reset.val();
        self.class2.reset.next = self.reset.val();
        self.class3.reset.next = self.reset.val();
        self.comp_q.reset.next = self.reset.val();

        // Buffer base addresses (64-bit words) of the writer's slot and of the descriptor's slot:
        // class 0 slot s: 128·s; class 1: 8192 + 512·(s−64); class 2: 24576 + 1024·(s−96);
        // class 3: 40960 + 4864·(s−112).
        self.w_k3.next = bit_cast::<17, 7>(self.w_slot.q.val() - 112);
        self.w_slot_base.next = bit_cast::<17, 7>(self.w_slot.q.val()) << 7;
        if self.w_slot.q.val() >= 64 {
            self.w_slot_base.next = (bit_cast::<17, 7>(self.w_slot.q.val() - 64) << 9) + 8192;
        }
        if self.w_slot.q.val() >= 96 {
            self.w_slot_base.next = (bit_cast::<17, 7>(self.w_slot.q.val() - 96) << 10) + 24576;
        }
        if self.w_slot.q.val() >= 112 {
            self.w_slot_base.next = (((self.w_k3.val() << 12) + (self.w_k3.val() << 9)) + (self.w_k3.val() << 8)) + 40960;
        }
        self.d_k3.next = bit_cast::<17, 7>(self.core.pkt_slot.val() - 112);
        self.d_slot_base.next = bit_cast::<17, 7>(self.core.pkt_slot.val()) << 7;
        if self.core.pkt_slot.val() >= 64 {
            self.d_slot_base.next = (bit_cast::<17, 7>(self.core.pkt_slot.val() - 64) << 9) + 8192;
        }
        if self.core.pkt_slot.val() >= 96 {
            self.d_slot_base.next = (bit_cast::<17, 7>(self.core.pkt_slot.val() - 96) << 10) + 24576;
        }
        if self.core.pkt_slot.val() >= 112 {
            self.d_slot_base.next = (((self.d_k3.val() << 12) + (self.d_k3.val() << 9)) + (self.d_k3.val() << 8)) + 40960;
        }

        // ---------------- configuration and events to the core ----------------
        self.core.default_credit.next = self.default_credit.val();
        self.core.timeout_threshold.next = self.timeout_threshold.val();
        self.core.dlv_valid.next = self.dlv_valid.val();
        self.core.dlv_tx_msg_id.next = self.dlv_tx_msg_id.val();
        self.core.dlv_ack_bitmap.next = self.dlv_ack_bitmap.val();
        self.core.ctx_valid.next = self.ctx_valid.val();
        self.core.ctx_tx_msg_id.next = self.ctx_tx_msg_id.val();
        self.core.ctx_rtx_flag.next = self.ctx_rtx_flag.val();
        self.core.ctx_rtx_bitmap.next = self.ctx_rtx_bitmap.val();
        self.core.ctx_credit_flag.next = self.ctx_credit_flag.val();
        self.core.ctx_new_credit.next = self.ctx_new_credit.val();
        self.core.ctx_allow_tx.next = self.ctx_allow_tx.val();
        self.core.ctx_raise_only.next = self.ctx_raise_only.val();

        // ---------------- egress timer ----------------
        self.timer.now.next = self.now.q.val();
        self.timer.sched_valid.next = self.core.sched_valid.val();
        self.timer.sched_id.next = self.core.sched_slot.val();
        self.timer.sched_delay.next = self.rto_cycles.val();
        self.timer.sched_meta.next = self.core.sched_meta.val();
        self.timer.cancel_valid.next = self.core.cancel_valid.val();
        self.timer.cancel_id.next = self.core.cancel_slot.val();
        self.core.to_valid.next = self.timer.timeout_valid.val();
        self.core.to_slot.next = self.timer.timeout_id.val();
        self.core.to_meta.next = self.timer.timeout_meta.val();
        self.timer.timeout_ready.next = self.core.to_ready.val();

        // ---------------- message writer ----------------
        self.w0_len.next = self.s_axis_msg_tdata.val().get_bits::<16>(0);
        self.w0_reject.next = (self.w0_len.val() == 0) | (self.w0_len.val() > 38912);
        self.w0_fits0.next = self.w0_len.val() <= 1024;
        self.w0_fits1.next = self.w0_len.val() <= 4096;
        self.w0_fits2.next = self.w0_len.val() <= 8192;
        self.w0_use0.next = self.w0_fits0.val() & self.class0.alloc_valid.val();
        self.w0_use1.next = (self.w0_fits1.val() & self.class1.alloc_valid.val()) & (!self.w0_use0.val());
        self.w0_use2.next =
            ((self.w0_fits2.val() & self.class2.alloc_valid.val()) & (!self.w0_use0.val())) & (!self.w0_use1.val());
        self.w0_use3.next = ((self.class3.alloc_valid.val() & (!self.w0_use0.val())) & (!self.w0_use1.val()))
            & (!self.w0_use2.val());
        self.w0_slot.next = bit_cast::<7, 6>(self.class0.alloc_id.val());
        if self.w0_use1.val() {
            self.w0_slot.next = bit_cast::<7, 5>(self.class1.alloc_id.val()) + 64;
        }
        if self.w0_use2.val() {
            self.w0_slot.next = bit_cast::<7, 4>(self.class2.alloc_id.val()) + 96;
        }
        if self.w0_use3.val() {
            self.w0_slot.next = bit_cast::<7, 4>(self.class3.alloc_id.val()) + 112;
        }
        self.w_ready.next = true;
        if self.w_state.q.val() == 0 {
            self.w_ready.next = (!self.w_commit.q.val())
                & ((self.w0_reject.val() | self.w0_use0.val())
                    | ((self.w0_use1.val() | self.w0_use2.val()) | self.w0_use3.val()));
        }
        self.s_axis_msg_tready.next = self.w_ready.val() & (!self.reset.val());
        self.w_take.next = (self.s_axis_msg_tvalid.val() & self.w_ready.val()) & (!self.reset.val());
        self.w_words_total.next = (self.w_len.q.val() + 7) >> 3;
        self.w_last_keep.next = !(self.ones8.val() << bit_cast::<8, 3>(self.w_len.q.val().get_bits::<3>(0)));
        if self.w_len.q.val().get_bits::<3>(0) == 0 {
            self.w_last_keep.next = 0xFF.into();
        }
        self.w_expect_last.next = (self.w_word.q.val() + 1) == self.w_words_total.val();
        self.class0.alloc_ready.next = false;
        self.class1.alloc_ready.next = false;
        self.class2.alloc_ready.next = false;
        self.class3.alloc_ready.next = false;
        self.w_framing_free.next = false;
        self.w_framing_word0.next = false;
        self.w_base.next = self.w_slot_base.val();
        self.payload.write_address.next = self.w_base.val() + bit_cast::<17, 16>(self.w_word.q.val());
        self.payload.write_data.next = self.s_axis_msg_tdata.val();
        self.payload.write_enable.next = false;
        if self.w_take.val() {
            if self.w_state.q.val() == 0 {
                if self.w0_reject.val() {
                    if self.cnt_rejected.q.val() != 0xFFFF {
                        self.cnt_rejected.d.next = self.cnt_rejected.q.val() + 1;
                    }
                    if !self.s_axis_msg_tlast.val() {
                        self.w_state.d.next = 3.into();
                    }
                } else if self.s_axis_msg_tlast.val() {
                    // A message that ends on its first word: nothing allocated.
                    self.w_framing_word0.next = true;
                } else {
                    self.class0.alloc_ready.next = self.w0_use0.val();
                    self.class1.alloc_ready.next = self.w0_use1.val();
                    self.class2.alloc_ready.next = self.w0_use2.val();
                    self.class3.alloc_ready.next = self.w0_use3.val();
                    self.w_slot.d.next = self.w0_slot.val();
                    self.w_len.d.next = self.w0_len.val();
                    self.w_credit.d.next = self.s_axis_msg_tdata.val().get_bits::<16>(16);
                    self.w_credit_valid.d.next = self.s_axis_msg_tdata.val().get_bit(32);
                    self.w_rank.d.next = self.s_axis_msg_tdata.val().get_bits::<8>(40);
                    self.w_word.d.next = 0.into();
                    self.w_state.d.next = 1.into();
                }
            } else if self.w_state.q.val() == 1 {
                self.w_ip.d.next = self.s_axis_msg_tdata.val().get_bits::<32>(0);
                self.w_rport.d.next = self.s_axis_msg_tdata.val().get_bits::<16>(32);
                self.w_lport.d.next = self.s_axis_msg_tdata.val().get_bits::<16>(48);
                self.w_state.d.next = 2.into();
                if self.s_axis_msg_tlast.val() {
                    self.w_framing_free.next = true;
                    self.w_state.d.next = 0.into();
                }
            } else if self.w_state.q.val() == 2 {
                self.payload.write_enable.next = true;
                self.w_word.d.next = self.w_word.q.val() + 1;
                if self.s_axis_msg_tlast.val() {
                    self.w_state.d.next = 0.into();
                    if self.w_expect_last.val() & (self.s_axis_msg_tkeep.val() == self.w_last_keep.val()) {
                        self.w_commit.d.next = true;
                    } else {
                        self.w_framing_free.next = true;
                    }
                } else if self.w_expect_last.val() {
                    self.w_framing_free.next = true;
                    self.w_state.d.next = 3.into();
                }
            } else if self.s_axis_msg_tlast.val() {
                self.w_state.d.next = 0.into();
            }
        }
        if (self.w_framing_free.val() | self.w_framing_word0.val()) & (self.cnt_framing.q.val() != 0xFFFF) {
            self.cnt_framing.d.next = self.cnt_framing.q.val() + 1;
        }
        // Install in the core (held until its pipeline takes it).
        self.core.new_valid.next = self.w_commit.q.val();
        self.core.new_slot.next = self.w_slot.q.val();
        self.core.new_remote_ip.next = self.w_ip.q.val();
        self.core.new_remote_port.next = self.w_rport.q.val();
        self.core.new_local_port.next = self.w_lport.q.val();
        self.core.new_msg_len.next = self.w_len.q.val();
        self.core.new_credit_valid.next = self.w_credit_valid.q.val();
        self.core.new_credit.next = self.w_credit.q.val();
        self.core.new_rank.next = self.w_rank.q.val();
        self.msg_id_valid.next = self.core.new_id_valid.val();
        self.msg_id.next = self.core.new_id.val();
        if self.w_commit.q.val() & self.core.new_ready.val() {
            self.w_commit.d.next = false;
        }

        // ---------------- completions and buffer return ----------------
        // One completion per freed slot; a slot is freed again only after its buffer came back,
        // which needs its completion taken, so at most 128 are ever queued: no overflow.
        self.comp_q.push.next = self.core.done_valid.val() & (self.comp_q.level.val() != 128);
        self.comp_q.push_data.next = bit_cast::<17, 16>(self.core.done_tx_msg_id.val())
            | (bit_cast::<17, 1>(self.core.done_abandoned.val().into()) << 16);
        self.done_valid.next = self.comp_q.head_valid.val();
        self.done_tx_msg_id.next = self.comp_q.head_data.val().get_bits::<16>(0);
        self.done_abandoned.next = self.comp_q.head_data.val().get_bit(16);
        self.comp_take.next = self.comp_q.head_valid.val() & self.done_ready.val();
        self.comp_q.pop.next = self.comp_take.val();
        self.comp_slot.next = self.comp_q.head_data.val().get_bits::<7>(0);
        // Buffers referenced by the core's descriptor queue or the read-out stay out.
        self.busy_core0.next = 0.into();
        if self.core.pkt_valid.val() {
            self.busy_core0.next = self.zero128.val().replace_bit(self.core.pkt_slot.val().index(), true);
        }
        self.busy_core1.next = 0.into();
        if self.core.pkt_q1_valid.val() {
            self.busy_core1.next = self.zero128.val().replace_bit(self.core.pkt_q1_slot.val().index(), true);
        }
        self.busy_rd.next = 0.into();
        if self.rd_active.q.val() {
            self.busy_rd.next = self.zero128.val().replace_bit(self.rd_slot.q.val().index(), true);
        }
        self.busy_mask.next = (self.busy_core0.val() | self.busy_core1.val()) | self.busy_rd.val();
        self.ret_ffs.bitmap.next = self.returning.q.val() & (!self.busy_mask.val());
        self.ret_go.next = self.ret_ffs.found.val() & (!self.w_framing_free.val());
        self.free_go.next = self.ret_go.val() | self.w_framing_free.val();
        self.free_slot.next = self.ret_ffs.index.val();
        if self.w_framing_free.val() {
            self.free_slot.next = self.w_slot.q.val();
        }
        self.ret_after_take.next = self.returning.q.val();
        if self.comp_take.val() {
            self.ret_after_take.next = self.returning.q.val().replace_bit(self.comp_slot.val().index(), true);
        }
        self.returning.d.next = self.ret_after_take.val();
        if self.ret_go.val() {
            self.returning.d.next = self.ret_after_take.val().replace_bit(self.ret_ffs.index.val().index(), false);
        }
        self.class0.free_valid.next = self.free_go.val() & (self.free_slot.val() < 64);
        self.class0.free_id.next = self.free_slot.val().get_bits::<6>(0);
        self.class1.free_valid.next =
            (self.free_go.val() & (self.free_slot.val() >= 64)) & (self.free_slot.val() < 96);
        self.class1.free_id.next = self.free_slot.val().get_bits::<5>(0);
        self.class2.free_valid.next =
            (self.free_go.val() & (self.free_slot.val() >= 96)) & (self.free_slot.val() < 112);
        self.class2.free_id.next = self.free_slot.val().get_bits::<4>(0);
        self.class3.free_valid.next = self.free_go.val() & (self.free_slot.val() >= 112);
        self.class3.free_id.next = self.free_slot.val().get_bits::<4>(0);
        // ---------------- read-out ----------------
        self.pop.next = (self.e_count.q.val() != 0) & self.m_axis_pkt_tready.val();
        // Room for a beat read now (arriving next cycle): occupancy after this cycle < 2.
        self.space.next = ((self.e_count.q.val() == 0)
            | ((self.e_count.q.val() == 1) & ((!self.s1_valid.q.val()) | self.pop.val())))
            | (((self.e_count.q.val() == 2) & self.pop.val()) & (!self.s1_valid.q.val()));
        self.issue.next = self.rd_active.q.val() & self.space.val();
        self.issue_last.next = self.issue.val() & (self.rd_beats.q.val() == 1);
        self.core.pkt_ready.next = (!self.rd_active.q.val()) | self.issue_last.val();
        self.accept.next = self.core.pkt_valid.val() & ((!self.rd_active.q.val()) | self.issue_last.val());
        self.payload.read_address.next = self.rd_addr.q.val();
        self.s1_valid.d.next = self.issue.val();
        self.s1_keep.d.next = 0xFF.into();
        if self.issue_last.val() {
            self.s1_keep.d.next = self.rd_last_keep.q.val();
        }
        self.s1_last.d.next = self.issue_last.val();
        self.s1_meta.d.next = self.rd_meta.q.val();
        if self.issue.val() {
            self.rd_addr.d.next = self.rd_addr.q.val() + 1;
            self.rd_beats.d.next = self.rd_beats.q.val() - 1;
        }
        if self.issue_last.val() {
            self.rd_active.d.next = false;
        }
        // Descriptor → first word address, beats and the last beat's keep.
        self.d_remaining.next = bit_cast::<17, 16>(self.core.pkt_msg_len.val())
            - (bit_cast::<17, 8>(self.core.pkt_offset.val()) << 10);
        self.d_bytes.next = self.d_remaining.val();
        if self.d_remaining.val() > 1024 {
            self.d_bytes.next = 1024.into();
        }
        self.d_base.next = self.d_slot_base.val() + (bit_cast::<17, 8>(self.core.pkt_offset.val()) << 7);
        self.d_meta_lo.next = bit_cast::<138, 32>(self.core.pkt_remote_ip.val())
            | (bit_cast::<138, 16>(self.core.pkt_remote_port.val()) << 32)
            | (bit_cast::<138, 16>(self.core.pkt_msg_len.val()) << 48)
            | (bit_cast::<138, 8>(self.core.pkt_offset.val()) << 64)
            | (bit_cast::<138, 16>(self.core.pkt_local_port.val()) << 72)
            | (bit_cast::<138, 16>(self.core.pkt_tx_msg_id.val()) << 88)
            | (bit_cast::<138, 16>(self.core.pkt_credit.val()) << 104)
            | (bit_cast::<138, 8>(self.core.pkt_rank.val()) << 120)
            | (bit_cast::<138, 8>(self.core.pkt_flags.val()) << 128);
        self.d_meta_new.next = 0.into();
        if self.core.pkt_is_new_msg.val() {
            self.d_meta_new.next = self.bit136.val();
        }
        self.d_meta_rtx.next = 0.into();
        if self.core.pkt_is_rtx.val() {
            self.d_meta_rtx.next = self.bit137.val();
        }
        self.d_meta.next = (self.d_meta_lo.val() | self.d_meta_new.val()) | self.d_meta_rtx.val();
        if self.accept.val() {
            self.rd_active.d.next = true;
            self.rd_slot.d.next = self.core.pkt_slot.val();
            self.rd_addr.d.next = self.d_base.val();
            self.rd_beats.d.next = bit_cast::<8, 17>((self.d_bytes.val() + 7) >> 3);
            self.rd_last_keep.d.next = !(self.ones8.val() << bit_cast::<8, 3>(self.d_bytes.val().get_bits::<3>(0)));
            if self.d_bytes.val().get_bits::<3>(0) == 0 {
                self.rd_last_keep.d.next = 0xFF.into();
            }
            self.rd_meta.d.next = self.d_meta.val();
        }
        // Two-entry output buffer: e0 is the head shown on m_axis_pkt.
        if self.e_count.q.val() == 0 {
            if self.s1_valid.q.val() {
                self.e0_data.d.next = self.payload.read_data.val();
                self.e0_keep.d.next = self.s1_keep.q.val();
                self.e0_last.d.next = self.s1_last.q.val();
                self.e0_meta.d.next = self.s1_meta.q.val();
                self.e_count.d.next = 1.into();
            }
        } else if self.e_count.q.val() == 1 {
            if self.pop.val() & self.s1_valid.q.val() {
                self.e0_data.d.next = self.payload.read_data.val();
                self.e0_keep.d.next = self.s1_keep.q.val();
                self.e0_last.d.next = self.s1_last.q.val();
                self.e0_meta.d.next = self.s1_meta.q.val();
            } else if self.pop.val() {
                self.e_count.d.next = 0.into();
            } else if self.s1_valid.q.val() {
                self.e1_data.d.next = self.payload.read_data.val();
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
                self.e1_data.d.next = self.payload.read_data.val();
                self.e1_keep.d.next = self.s1_keep.q.val();
                self.e1_last.d.next = self.s1_last.q.val();
                self.e1_meta.d.next = self.s1_meta.q.val();
                self.e_count.d.next = 2.into();
            }
        }
        self.m_axis_pkt_tvalid.next = self.e_count.q.val() != 0;
        self.m_axis_pkt_tdata.next = self.e0_data.q.val();
        self.m_axis_pkt_tkeep.next = self.e0_keep.q.val();
        self.m_axis_pkt_tlast.next = self.e0_last.q.val();
        self.m_axis_pkt_remote_ip.next = self.e0_meta.q.val().get_bits::<32>(0);
        self.m_axis_pkt_remote_port.next = self.e0_meta.q.val().get_bits::<16>(32);
        self.m_axis_pkt_msg_len.next = self.e0_meta.q.val().get_bits::<16>(48);
        self.m_axis_pkt_pkt_offset.next = self.e0_meta.q.val().get_bits::<8>(64);
        self.m_axis_pkt_local_port.next = self.e0_meta.q.val().get_bits::<16>(72);
        self.m_axis_pkt_tx_msg_id.next = self.e0_meta.q.val().get_bits::<16>(88);
        self.m_axis_pkt_credit.next = self.e0_meta.q.val().get_bits::<16>(104);
        self.m_axis_pkt_rank.next = self.e0_meta.q.val().get_bits::<8>(120);
        self.m_axis_pkt_flags.next = self.e0_meta.q.val().get_bits::<8>(128);
        self.m_axis_pkt_is_new_msg.next = self.e0_meta.q.val().get_bit(136);
        self.m_axis_pkt_is_rtx.next = self.e0_meta.q.val().get_bit(137);

        // ---------------- status ----------------
        self.active.next = self.core.active.val();
        self.buffers_all_free.next = ((self.class0.full.val() & self.class1.full.val()) & self.class2.full.val())
            & self.class3.full.val();
        self.rejected_msg_count.next = self.cnt_rejected.q.val();
        self.framing_error_count.next = self.cnt_framing.q.val();
        self.stale_delivered_count.next = self.core.stale_delivered_count.val();
        self.stale_credit_count.next = self.core.stale_credit_count.val();
        self.stale_timeout_count.next = self.core.stale_timeout_count.val();
        self.ack_beyond_count.next = self.core.ack_beyond_count.val();
        self.rtx_beyond_count.next = self.core.rtx_beyond_count.val();
        self.credit_beyond_count.next = self.core.credit_beyond_count.val();
        self.delivered_msg_count.next = self.core.delivered_msg_count.val();
        self.abandoned_msg_count.next = self.core.abandoned_msg_count.val();
        self.write_busy_count.next = self.core.write_busy_count.val();
        self.event_overflow_count.next = self.core.event_overflow_count.val();
        self.buffer_double_free_count.next = (self.class0.double_free_count.val()
            + self.class1.double_free_count.val())
            + (self.class2.double_free_count.val() + self.class3.double_free_count.val());
        self.buffers_exhausted.next = ((self.class0.empty.val() & self.class1.empty.val()) & self.class2.empty.val())
            & self.class3.empty.val();

        if self.reset.val() {
            self.w_state.d.next = 0.into();
            self.w_commit.d.next = false;
            self.cnt_rejected.d.next = 0.into();
            self.cnt_framing.d.next = 0.into();
            self.returning.d.next = 0.into();
            self.rd_active.d.next = false;
            self.s1_valid.d.next = false;
            self.e_count.d.next = 0.into();
        }
    }
}
