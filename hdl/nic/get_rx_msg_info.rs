//! GetRxMsgInfo (thesis §3.2.3, Listings 3.3/3.4): the receive-side message table for 16
//! concurrent messages, with ID and size-class buffer allocation and the recently-completed table.
//!
//! A request (Listing 3.3) is matched against the **full** key (`src_ip`, `src_port`,
//! `tx_msg_id`) of every live entry at once (a 16-entry CAM in flip-flops); two senders using the
//! same `tx_msg_id` never share an entry. On a hit the entry's `receivedBitmap` is read and, if
//! `mark_received`, bit `pkt_offset` is set; on a miss an `rx_msg_id` and a message buffer are
//! allocated. The response (Listing 3.4) follows one cycle later.
//!
//! * `rx_msg_id` = `{generation[7:0], slot[3:0]}` (bits 15..12 zero). Every allocation of a
//!   slot increments its generation, so late packets and timeouts of a slot's previous message
//!   are recognised. [`RX_MSG_ID_NONE`] (bit 15 set) is returned when there is no entry.
//! * `ackNo` = smallest offset not yet received (a find-first-set over the inverted bitmap).
//! * `is_last_pkt` = every packet `0 … num_pkts−1` received, `num_pkts = ⌈msg_len / 1024⌉`.
//! * Buffers (§3.3.2): four size classes, each with its own [`FreeList`]. The smallest class
//!   whose buffers are large enough *and* has a free buffer is chosen; a larger class is used when
//!   the best-fitting one is exhausted (counted in `class_fallback_count`). A buffer is a run of
//!   1 KB pages; packet `k` of a message lives at page `buffer_page + k` of the payload memory.
//! * Recently completed messages: when a delivered message's entry is released its key goes into
//!   a ring of [`RECENT_DEPTH`] keys. A miss that matches this ring is a late retransmission of a
//!   delivered message: the response is `fail = 0, is_new_msg = 0, is_new_pkt = 0,
//!   is_last_pkt = 1, ackNo = num_pkts, rx_msg_id = RX_MSG_ID_NONE` (the protocol may re-ACK; the
//!   reassembly drops the packet) and `recent_duplicate_count` counts it.
//!
//! # Fail reasons (`resp_fail_reason`, each with its own counter)
//! Checked in this order. For a hit: 4 `msg_len` differs from the entry's, 3 `pkt_offset` ≥
//! `num_pkts`. For a miss: 1 `msg_len = 0`, 2 `msg_len` larger than the largest size class,
//! 3 `pkt_offset` ≥ `num_pkts`, 5 no free `rx_msg_id`, 6 no free buffer in any class that fits.
//! A failed request changes no state. A hit that finds the bit already set is a duplicate
//! (`is_new_pkt = 0`, `duplicate_count`).
//!
//! # Release
//! `release_valid` frees slot `release_slot`: its entry, its ID and its buffer. With
//! `release_delivered` its key enters the recently-completed ring. A request in the same cycle
//! sees the slot as already released (a hit on it is a miss, or a recent duplicate when
//! `release_delivered`); the freed ID and buffer can be allocated from the next cycle.
//!
//! # Reset
//! One cycle with `reset` high empties the table (valid bits, generations, recently-completed
//! ring, counters) and refills the ID and buffer free lists; requests are served from the next
//! cycle.
//!
//! # Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `req_valid`, `req_mark_received`, `req_src_ip`, `req_src_port`, `req_tx_msg_id`, `req_msg_len`, `req_pkt_offset` | in | 1,1,32,16,16,16,8 | Listing 3.3 |
//! | `resp_valid`, `resp_fail`, `resp_fail_reason`, `resp_rx_msg_id`, `resp_is_new_msg`, `resp_is_new_pkt`, `resp_is_last_pkt`, `resp_ack_no` | out | 1,1,3,16,1,1,1,9 | Listing 3.4 (+ reason) |
//! | `sched_valid`, `sched_slot`, `sched_gen` | out | 1,4,8 | (re)schedule the message's ingress timer: on allocation and on every hit whose bitmap was not yet complete |
//! | `release_valid`, `release_slot`, `release_delivered` | in | 1,4,1 | free an entry |
//! | `slot_valid`, `slot_gen`, `slot_msg_len`, `slot_page`, `slot_key` | out | 16, 16×8, 16×16, 16×16, 16×64 | per-slot state, flat (slot `i` at bits `i·w …`), read by the reassembly |
//! | `free_lists_full` | out | 5 | bit 0: every ID free; bits 1–4: every buffer of class 0–3 free |
//! | `*_count` | out | 32 | counters (wrapping): `fail_zero_len`, `fail_too_long`, `fail_bad_offset`, `fail_len_mismatch`, `fail_no_id`, `fail_no_buffer`, `duplicate`, `recent_duplicate`, `class_fallback` |
//!
//! # Latency and throughput
//! One request per cycle, response **1 cycle** after the request (registered). The table is
//! updated at the same clock edge, so a request in the next cycle — for the same message or
//! not — sees the update (back-to-back requests are coherent without forwarding).
//! ```text
//!  cycle t    req_valid, key … ─▶ CAM compare ─▶ bitmap read/modify ─▶ registers
//!  cycle t+1  resp_valid, resp_* ; sched_valid        (a request in t+1 sees t's update)
//! ```

use crate::common::free_list::FreeList;
use rust_hdl::prelude::*;

/// Concurrent receive messages of this table.
pub const RX_MESSAGES: usize = 16;
/// Bits of a slot number.
pub const RX_SLOT_BITS: usize = 4;
/// Bits of a slot's generation inside `rx_msg_id`.
pub const RX_GEN_BITS: usize = 8;
/// `rx_msg_id` of "no entry" (failed requests, recent duplicates).
pub const RX_MSG_ID_NONE: u64 = 0x8000;
/// Depth of the recently-completed table.
pub const RECENT_DEPTH: usize = 16;
/// Payload bytes per packet (one page of the payload memory).
pub const PAGE_BYTES: u64 = 1024;
/// Pages of the payload memory (256 KB).
pub const PAYLOAD_PAGES: u64 = 256;

/// Buffer size classes: (pages per buffer, number of buffers). The number of buffers of each
/// class is fixed by the free list types of [`GetRxMsgInfo`] (16, 8, 4, 4); the pages per
/// buffer are parameters. Default: 16 × 1 KB, 8 × 4 KB, 4 × 8 KB, 4 × 38 KB = 232 KB
/// (single-packet messages never compete with large ones; four maximum-size messages of
/// 38 packets fit at once).
pub const DEFAULT_SIZE_CLASSES: [(u64, u64); 4] = [(1, 16), (4, 8), (8, 4), (38, 4)];

/// Fail reasons of `resp_fail_reason`.
pub mod fail_reason {
    pub const NONE: u64 = 0;
    pub const ZERO_LEN: u64 = 1;
    pub const TOO_LONG: u64 = 2;
    pub const BAD_OFFSET: u64 = 3;
    pub const LEN_MISMATCH: u64 = 4;
    pub const NO_ID: u64 = 5;
    pub const NO_BUFFER: u64 = 6;
}

/// First page of each class: classes are laid out one after another from page 0.
pub fn class_base_pages(classes: &[(u64, u64); 4]) -> [u64; 4] {
    let mut base = [0; 4];
    for c in 1..4 {
        base[c] = base[c - 1] + classes[c - 1].0 * classes[c - 1].1;
    }
    base
}

/// The 16-message GetRxMsgInfo table.
#[derive(LogicBlock)]
pub struct GetRxMsgInfo {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
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
    pub sched_valid: Signal<Out, Bit>,
    pub sched_slot: Signal<Out, Bits<4>>,
    pub sched_gen: Signal<Out, Bits<8>>,
    pub release_valid: Signal<In, Bit>,
    pub release_slot: Signal<In, Bits<4>>,
    pub release_delivered: Signal<In, Bit>,
    pub slot_valid: Signal<Out, Bits<16>>,
    pub slot_gen: Signal<Out, Bits<128>>,
    pub slot_msg_len: Signal<Out, Bits<256>>,
    pub slot_page: Signal<Out, Bits<256>>,
    pub slot_key: Signal<Out, Bits<1024>>,
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
    // Table state (flat vectors: slot i at bits i·w … i·w+w−1).
    valid: DFF<Bits<16>>,
    keys: DFF<Bits<1024>>,
    bitmaps: DFF<Bits<1024>>,
    msg_lens: DFF<Bits<256>>,
    pages: DFF<Bits<256>>,
    gens: DFF<Bits<128>>,
    buf_class: DFF<Bits<32>>,
    buf_index: DFF<Bits<64>>,
    recent_keys: DFF<Bits<1024>>,
    recent_valid: DFF<Bits<16>>,
    recent_ptr: DFF<Bits<4>>,
    // Response stage.
    s1_valid: DFF<Bit>,
    s1_fail: DFF<Bit>,
    s1_reason: DFF<Bits<3>>,
    s1_rx_msg_id: DFF<Bits<16>>,
    s1_new_msg: DFF<Bit>,
    s1_new_pkt: DFF<Bit>,
    s1_last: DFF<Bit>,
    s1_ack: DFF<Bits<9>>,
    s1_sched: DFF<Bit>,
    s1_sched_slot: DFF<Bits<4>>,
    s1_sched_gen: DFF<Bits<8>>,
    // Counters.
    c_zero_len: DFF<Bits<32>>,
    c_too_long: DFF<Bits<32>>,
    c_bad_offset: DFF<Bits<32>>,
    c_len_mismatch: DFF<Bits<32>>,
    c_no_id: DFF<Bits<32>>,
    c_no_buffer: DFF<Bits<32>>,
    c_duplicate: DFF<Bits<32>>,
    c_recent: DFF<Bits<32>>,
    c_fallback: DFF<Bits<32>>,
    // Allocators and bitmap logic.
    ids: FreeList<16, 4>,
    class0: FreeList<16, 4>,
    class1: FreeList<8, 3>,
    class2: FreeList<4, 2>,
    class3: FreeList<4, 2>,
    // Parameters.
    class0_pages: Constant<Bits<16>>,
    class1_pages: Constant<Bits<16>>,
    class2_pages: Constant<Bits<16>>,
    class3_pages: Constant<Bits<16>>,
    class0_base: Constant<Bits<16>>,
    class1_base: Constant<Bits<16>>,
    class2_base: Constant<Bits<16>>,
    class3_base: Constant<Bits<16>>,
    max_msg_len: Constant<Bits<17>>,
    lane64: Constant<Bits<1024>>,
    all_ones64: Constant<Bits<64>>,
    lane16: Constant<Bits<256>>,
    lane8: Constant<Bits<128>>,
    lane4: Constant<Bits<64>>,
    lane2: Constant<Bits<32>>,
    // Combinational temporaries.
    req_key: Signal<Local, Bits<64>>,
    req_pkts: Signal<Local, Bits<17>>,
    hit_found: Signal<Local, Bit>,
    hit_slot: Signal<Local, Bits<4>>,
    released_hit: Signal<Local, Bit>,
    hit_live: Signal<Local, Bit>,
    recent_found: Signal<Local, Bit>,
    is_recent: Signal<Local, Bit>,
    hit_x64: Signal<Local, Bits<10>>,
    hit_x16: Signal<Local, Bits<8>>,
    hit_len: Signal<Local, Bits<16>>,
    hit_x8: Signal<Local, Bits<7>>,
    hit_gen: Signal<Local, Bits<8>>,
    hit_pkts: Signal<Local, Bits<17>>,
    sel_pkts: Signal<Local, Bits<7>>,
    sel_bitmap: Signal<Local, Bits<64>>,
    offset6: Signal<Local, Bits<6>>,
    bitmap_after: Signal<Local, Bits<64>>,
    was_complete: Signal<Local, Bit>,
    pkt_mask: Signal<Local, Bits<64>>,
    missing: Signal<Local, Bits<64>>,
    missing_lowest: Signal<Local, Bits<64>>,
    first_missing: Signal<Local, Bits<6>>,
    fits: Signal<Local, Bits<4>>,
    avail: Signal<Local, Bits<4>>,
    chosen: Signal<Local, Bits<2>>,
    best: Signal<Local, Bits<2>>,
    chosen_index: Signal<Local, Bits<4>>,
    chosen_page: Signal<Local, Bits<16>>,
    reason: Signal<Local, Bits<3>>,
    do_alloc: Signal<Local, Bit>,
    do_update: Signal<Local, Bit>,
    new_slot: Signal<Local, Bits<4>>,
    new_gen: Signal<Local, Bits<8>>,
    upd_slot: Signal<Local, Bits<4>>,
    upd_x64: Signal<Local, Bits<10>>,
    new_x16: Signal<Local, Bits<8>>,
    new_x8: Signal<Local, Bits<7>>,
    new_x4: Signal<Local, Bits<6>>,
    new_x2: Signal<Local, Bits<5>>,
    rel_ok: Signal<Local, Bit>,
    rel_x64: Signal<Local, Bits<10>>,
    rel_x4: Signal<Local, Bits<6>>,
    rel_x2: Signal<Local, Bits<5>>,
    rel_class: Signal<Local, Bits<2>>,
    rel_index: Signal<Local, Bits<4>>,
    recent_x64: Signal<Local, Bits<10>>,
    valid_after_alloc: Signal<Local, Bits<16>>,
}

impl Default for GetRxMsgInfo {
    fn default() -> Self {
        Self::new(DEFAULT_SIZE_CLASSES)
    }
}

impl GetRxMsgInfo {
    /// A table with the given size classes (pages per buffer; the counts must be 16, 8, 4, 4).
    pub fn new(classes: [(u64, u64); 4]) -> Self {
        let counts: Vec<u64> = classes.iter().map(|c| c.1).collect();
        assert_eq!(counts, vec![16, 8, 4, 4], "class buffer counts are fixed by the free list types");
        for w in classes.windows(2) {
            assert!(w[0].0 < w[1].0, "size classes must grow");
        }
        assert!(classes[3].0 <= 64, "a message has at most 64 packets (bitmap width)");
        let base = class_base_pages(&classes);
        assert!(base[3] + classes[3].0 * classes[3].1 <= PAYLOAD_PAGES, "size classes exceed the payload memory");
        let ones = |w: usize| -> u128 { (1u128 << w) - 1 };
        Self {
            clock: Default::default(),
            reset: Default::default(),
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
            sched_valid: Default::default(),
            sched_slot: Default::default(),
            sched_gen: Default::default(),
            release_valid: Default::default(),
            release_slot: Default::default(),
            release_delivered: Default::default(),
            slot_valid: Default::default(),
            slot_gen: Default::default(),
            slot_msg_len: Default::default(),
            slot_page: Default::default(),
            slot_key: Default::default(),
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
            valid: Default::default(),
            keys: Default::default(),
            bitmaps: Default::default(),
            msg_lens: Default::default(),
            pages: Default::default(),
            gens: Default::default(),
            buf_class: Default::default(),
            buf_index: Default::default(),
            recent_keys: Default::default(),
            recent_valid: Default::default(),
            recent_ptr: Default::default(),
            s1_valid: Default::default(),
            s1_fail: Default::default(),
            s1_reason: Default::default(),
            s1_rx_msg_id: Default::default(),
            s1_new_msg: Default::default(),
            s1_new_pkt: Default::default(),
            s1_last: Default::default(),
            s1_ack: Default::default(),
            s1_sched: Default::default(),
            s1_sched_slot: Default::default(),
            s1_sched_gen: Default::default(),
            c_zero_len: Default::default(),
            c_too_long: Default::default(),
            c_bad_offset: Default::default(),
            c_len_mismatch: Default::default(),
            c_no_id: Default::default(),
            c_no_buffer: Default::default(),
            c_duplicate: Default::default(),
            c_recent: Default::default(),
            c_fallback: Default::default(),
            ids: Default::default(),
            class0: Default::default(),
            class1: Default::default(),
            class2: Default::default(),
            class3: Default::default(),
            class0_pages: Constant::new(classes[0].0.to_bits()),
            class1_pages: Constant::new(classes[1].0.to_bits()),
            class2_pages: Constant::new(classes[2].0.to_bits()),
            class3_pages: Constant::new(classes[3].0.to_bits()),
            class0_base: Constant::new(base[0].to_bits()),
            class1_base: Constant::new(base[1].to_bits()),
            class2_base: Constant::new(base[2].to_bits()),
            class3_base: Constant::new(base[3].to_bits()),
            max_msg_len: Constant::new((classes[3].0 * PAGE_BYTES).to_bits()),
            lane64: Constant::new(ones(64).to_bits()),
            all_ones64: Constant::new(Bits::<64>::mask()),
            lane16: Constant::new(ones(16).to_bits()),
            lane8: Constant::new(ones(8).to_bits()),
            lane4: Constant::new(ones(4).to_bits()),
            lane2: Constant::new(ones(2).to_bits()),
            req_key: Default::default(),
            req_pkts: Default::default(),
            hit_found: Default::default(),
            hit_slot: Default::default(),
            released_hit: Default::default(),
            hit_live: Default::default(),
            recent_found: Default::default(),
            is_recent: Default::default(),
            hit_x64: Default::default(),
            hit_x16: Default::default(),
            hit_len: Default::default(),
            hit_x8: Default::default(),
            hit_gen: Default::default(),
            hit_pkts: Default::default(),
            sel_pkts: Default::default(),
            sel_bitmap: Default::default(),
            offset6: Default::default(),
            bitmap_after: Default::default(),
            was_complete: Default::default(),
            pkt_mask: Default::default(),
            missing: Default::default(),
            missing_lowest: Default::default(),
            first_missing: Default::default(),
            fits: Default::default(),
            avail: Default::default(),
            chosen: Default::default(),
            best: Default::default(),
            chosen_index: Default::default(),
            chosen_page: Default::default(),
            reason: Default::default(),
            do_alloc: Default::default(),
            do_update: Default::default(),
            new_slot: Default::default(),
            new_gen: Default::default(),
            upd_slot: Default::default(),
            upd_x64: Default::default(),
            new_x16: Default::default(),
            new_x8: Default::default(),
            new_x4: Default::default(),
            new_x2: Default::default(),
            rel_ok: Default::default(),
            rel_x64: Default::default(),
            rel_x4: Default::default(),
            rel_x2: Default::default(),
            rel_class: Default::default(),
            rel_index: Default::default(),
            recent_x64: Default::default(),
            valid_after_alloc: Default::default(),
        }
    }
}

impl Logic for GetRxMsgInfo {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, valid, keys, bitmaps, msg_lens, pages, gens, buf_class, buf_index, recent_keys, recent_valid, recent_ptr,
            s1_valid, s1_fail, s1_reason, s1_rx_msg_id, s1_new_msg, s1_new_pkt, s1_last, s1_ack, s1_sched, s1_sched_slot, s1_sched_gen,
            c_zero_len, c_too_long, c_bad_offset, c_len_mismatch, c_no_id, c_no_buffer, c_duplicate, c_recent, c_fallback);
        clock!(self, clock, ids, class0, class1, class2, class3);
        self.ids.reset.next = self.reset.val();
        self.class0.reset.next = self.reset.val();
        self.class1.reset.next = self.reset.val();
        self.class2.reset.next = self.reset.val();
        self.class3.reset.next = self.reset.val();

        // Outputs from registers.
        self.resp_valid.next = self.s1_valid.q.val();
        self.resp_fail.next = self.s1_fail.q.val();
        self.resp_fail_reason.next = self.s1_reason.q.val();
        self.resp_rx_msg_id.next = self.s1_rx_msg_id.q.val();
        self.resp_is_new_msg.next = self.s1_new_msg.q.val();
        self.resp_is_new_pkt.next = self.s1_new_pkt.q.val();
        self.resp_is_last_pkt.next = self.s1_last.q.val();
        self.resp_ack_no.next = self.s1_ack.q.val();
        self.sched_valid.next = self.s1_sched.q.val();
        self.sched_slot.next = self.s1_sched_slot.q.val();
        self.sched_gen.next = self.s1_sched_gen.q.val();
        self.slot_valid.next = self.valid.q.val();
        self.slot_gen.next = self.gens.q.val();
        self.slot_msg_len.next = self.msg_lens.q.val();
        self.slot_page.next = self.pages.q.val();
        self.slot_key.next = self.keys.q.val();
        self.free_lists_full.next = (((bit_cast::<5, 1>(self.ids.full.val().into())
            | (bit_cast::<5, 1>(self.class0.full.val().into()) << 1))
            | (bit_cast::<5, 1>(self.class1.full.val().into()) << 2))
            | (bit_cast::<5, 1>(self.class2.full.val().into()) << 3))
            | (bit_cast::<5, 1>(self.class3.full.val().into()) << 4);
        self.fail_zero_len_count.next = self.c_zero_len.q.val();
        self.fail_too_long_count.next = self.c_too_long.q.val();
        self.fail_bad_offset_count.next = self.c_bad_offset.q.val();
        self.fail_len_mismatch_count.next = self.c_len_mismatch.q.val();
        self.fail_no_id_count.next = self.c_no_id.q.val();
        self.fail_no_buffer_count.next = self.c_no_buffer.q.val();
        self.duplicate_count.next = self.c_duplicate.q.val();
        self.recent_duplicate_count.next = self.c_recent.q.val();
        self.class_fallback_count.next = self.c_fallback.q.val();

        // Key and packet count of the request.
        self.req_key.next = ((bit_cast::<64, 16>(self.req_tx_msg_id.val()) << 48)
            | (bit_cast::<64, 16>(self.req_src_port.val()) << 32))
            | bit_cast::<64, 32>(self.req_src_ip.val());
        self.req_pkts.next = (bit_cast::<17, 16>(self.req_msg_len.val()) + 1023) >> 10;

        // Full-key CAM over the live entries; keys of live entries are unique, so at most one hits.
        self.hit_found.next = false;
        self.hit_slot.next = 0.into();
        for i in 0..16 {
            if self.valid.q.val().get_bit(i) & (self.keys.q.val().get_bits::<64>(i * 64) == self.req_key.val()) {
                self.hit_found.next = true;
                self.hit_slot.next = i.to_bits();
            }
        }
        self.recent_found.next = false;
        for i in 0..16 {
            if self.recent_valid.q.val().get_bit(i) & (self.recent_keys.q.val().get_bits::<64>(i * 64) == self.req_key.val()) {
                self.recent_found.next = true;
            }
        }
        // A slot released in this cycle is already gone for the request.
        self.released_hit.next = (self.hit_found.val() & self.release_valid.val()) & (self.release_slot.val() == self.hit_slot.val());
        self.hit_live.next = self.hit_found.val() & (!self.released_hit.val());
        self.is_recent.next = (!self.hit_live.val())
            & (self.recent_found.val() | (self.released_hit.val() & self.release_delivered.val()));

        // The hit entry.
        self.hit_x64.next = bit_cast::<10, 4>(self.hit_slot.val()) << 6;
        self.hit_x16.next = bit_cast::<8, 4>(self.hit_slot.val()) << 4;
        self.hit_x8.next = bit_cast::<7, 4>(self.hit_slot.val()) << 3;
        self.hit_gen.next = self.gens.q.val().get_bits::<8>(self.hit_x8.val().index());
        self.hit_len.next = self.msg_lens.q.val().get_bits::<16>(self.hit_x16.val().index());
        self.hit_pkts.next = (bit_cast::<17, 16>(self.hit_len.val()) + 1023) >> 10;
        if self.hit_live.val() {
            self.sel_pkts.next = bit_cast::<7, 17>(self.hit_pkts.val());
            self.sel_bitmap.next = self.bitmaps.q.val().get_bits::<64>(self.hit_x64.val().index());
        } else {
            self.sel_pkts.next = bit_cast::<7, 17>(self.req_pkts.val());
            self.sel_bitmap.next = 0.into();
        }
        self.offset6.next = self.req_pkt_offset.val().get_bits::<6>(0);
        self.bitmap_after.next = self.sel_bitmap.val();
        if self.req_mark_received.val() {
            self.bitmap_after.next = self.sel_bitmap.val().replace_bit(self.offset6.val().index(), true);
        }
        // OnesUntil(num_pkts) and find-first-set of the missing packets, inline (see
        // common::ones_until / common::find_first_set): as submodules driven and read in one
        // process they would look like a combinational loop to Verilator.
        self.pkt_mask.next = !(self.all_ones64.val() << self.sel_pkts.val());
        self.missing.next = !self.bitmap_after.val();
        self.missing_lowest.next = self.missing.val() & ((!self.missing.val()) + 1);
        self.first_missing.next = 0.into();
        for i in 0..64 {
            if self.missing_lowest.val().get_bit(i) {
                self.first_missing.next = i.to_bits();
            }
        }
        self.was_complete.next = self.sel_bitmap.val() == self.pkt_mask.val();

        // Size class: smallest class that fits (best) and smallest that fits with a free buffer.
        self.fits.next = ((bit_cast::<4, 1>((bit_cast::<17, 16>(self.class0_pages.val()) >= self.req_pkts.val()).into())
            | (bit_cast::<4, 1>((bit_cast::<17, 16>(self.class1_pages.val()) >= self.req_pkts.val()).into()) << 1))
            | (bit_cast::<4, 1>((bit_cast::<17, 16>(self.class2_pages.val()) >= self.req_pkts.val()).into()) << 2))
            | (bit_cast::<4, 1>((bit_cast::<17, 16>(self.class3_pages.val()) >= self.req_pkts.val()).into()) << 3);
        self.avail.next = self.fits.val()
            & ((((bit_cast::<4, 1>(self.class0.alloc_valid.val().into())
                | (bit_cast::<4, 1>(self.class1.alloc_valid.val().into()) << 1))
                | (bit_cast::<4, 1>(self.class2.alloc_valid.val().into()) << 2))
                | (bit_cast::<4, 1>(self.class3.alloc_valid.val().into()) << 3)));
        self.chosen.next = 0.into();
        if self.avail.val().get_bit(3) {
            self.chosen.next = 3.into();
        }
        if self.avail.val().get_bit(2) {
            self.chosen.next = 2.into();
        }
        if self.avail.val().get_bit(1) {
            self.chosen.next = 1.into();
        }
        if self.avail.val().get_bit(0) {
            self.chosen.next = 0.into();
        }
        self.best.next = 0.into();
        if self.fits.val().get_bit(3) {
            self.best.next = 3.into();
        }
        if self.fits.val().get_bit(2) {
            self.best.next = 2.into();
        }
        if self.fits.val().get_bit(1) {
            self.best.next = 1.into();
        }
        if self.fits.val().get_bit(0) {
            self.best.next = 0.into();
        }
        self.chosen_index.next = bit_cast::<4, 4>(self.class0.alloc_id.val());
        if self.chosen.val() == 1 {
            self.chosen_index.next = bit_cast::<4, 3>(self.class1.alloc_id.val());
        }
        if self.chosen.val() == 2 {
            self.chosen_index.next = bit_cast::<4, 2>(self.class2.alloc_id.val());
        }
        if self.chosen.val() == 3 {
            self.chosen_index.next = bit_cast::<4, 2>(self.class3.alloc_id.val());
        }
        self.chosen_page.next = self.class0_base.val() + bit_cast::<16, 32>(bit_cast::<16, 4>(self.chosen_index.val()) * self.class0_pages.val());
        if self.chosen.val() == 1 {
            self.chosen_page.next = self.class1_base.val() + bit_cast::<16, 32>(bit_cast::<16, 4>(self.chosen_index.val()) * self.class1_pages.val());
        }
        if self.chosen.val() == 2 {
            self.chosen_page.next = self.class2_base.val() + bit_cast::<16, 32>(bit_cast::<16, 4>(self.chosen_index.val()) * self.class2_pages.val());
        }
        if self.chosen.val() == 3 {
            self.chosen_page.next = self.class3_base.val() + bit_cast::<16, 32>(bit_cast::<16, 4>(self.chosen_index.val()) * self.class3_pages.val());
        }

        // Decision.
        self.reason.next = 0.into();
        if self.hit_live.val() {
            if self.req_msg_len.val() != self.hit_len.val() {
                self.reason.next = 4.into();
            } else if bit_cast::<17, 8>(self.req_pkt_offset.val()) >= self.hit_pkts.val() {
                self.reason.next = 3.into();
            }
        } else if !self.is_recent.val() {
            if self.req_msg_len.val() == 0 {
                self.reason.next = 1.into();
            } else if bit_cast::<17, 16>(self.req_msg_len.val()) > self.max_msg_len.val() {
                self.reason.next = 2.into();
            } else if bit_cast::<17, 8>(self.req_pkt_offset.val()) >= self.req_pkts.val() {
                self.reason.next = 3.into();
            } else if !self.ids.alloc_valid.val() {
                self.reason.next = 5.into();
            } else if !self.avail.val().any() {
                self.reason.next = 6.into();
            }
        }
        self.do_update.next = (self.req_valid.val() & self.hit_live.val()) & (self.reason.val() == 0);
        self.do_alloc.next = ((self.req_valid.val() & (!self.hit_live.val())) & (!self.is_recent.val())) & (self.reason.val() == 0);
        self.new_slot.next = self.ids.alloc_id.val();
        self.new_x16.next = bit_cast::<8, 4>(self.new_slot.val()) << 4;
        self.new_x8.next = bit_cast::<7, 4>(self.new_slot.val()) << 3;
        self.new_x4.next = bit_cast::<6, 4>(self.new_slot.val()) << 2;
        self.new_x2.next = bit_cast::<5, 4>(self.new_slot.val()) << 1;
        self.new_gen.next = self.gens.q.val().get_bits::<8>(self.new_x8.val().index()) + 1;

        // Allocators.
        self.ids.alloc_ready.next = self.do_alloc.val();
        self.class0.alloc_ready.next = self.do_alloc.val() & (self.chosen.val() == 0);
        self.class1.alloc_ready.next = self.do_alloc.val() & (self.chosen.val() == 1);
        self.class2.alloc_ready.next = self.do_alloc.val() & (self.chosen.val() == 2);
        self.class3.alloc_ready.next = self.do_alloc.val() & (self.chosen.val() == 3);

        // Release: ID, buffer, entry; a delivered message's key enters the recent ring.
        self.rel_ok.next = self.release_valid.val() & self.valid.q.val().get_bit(self.release_slot.val().index());
        self.rel_x64.next = bit_cast::<10, 4>(self.release_slot.val()) << 6;
        self.rel_x4.next = bit_cast::<6, 4>(self.release_slot.val()) << 2;
        self.rel_x2.next = bit_cast::<5, 4>(self.release_slot.val()) << 1;
        self.rel_class.next = self.buf_class.q.val().get_bits::<2>(self.rel_x2.val().index());
        self.rel_index.next = self.buf_index.q.val().get_bits::<4>(self.rel_x4.val().index());
        self.ids.free_valid.next = self.rel_ok.val();
        self.ids.free_id.next = self.release_slot.val();
        self.class0.free_valid.next = self.rel_ok.val() & (self.rel_class.val() == 0);
        self.class1.free_valid.next = self.rel_ok.val() & (self.rel_class.val() == 1);
        self.class2.free_valid.next = self.rel_ok.val() & (self.rel_class.val() == 2);
        self.class3.free_valid.next = self.rel_ok.val() & (self.rel_class.val() == 3);
        self.class0.free_id.next = self.rel_index.val();
        self.class1.free_id.next = self.rel_index.val().get_bits::<3>(0);
        self.class2.free_id.next = self.rel_index.val().get_bits::<2>(0);
        self.class3.free_id.next = self.rel_index.val().get_bits::<2>(0);
        self.recent_x64.next = bit_cast::<10, 4>(self.recent_ptr.q.val()) << 6;
        if self.rel_ok.val() & self.release_delivered.val() {
            self.recent_keys.d.next = (self.recent_keys.q.val() & (!(self.lane64.val() << self.recent_x64.val())))
                | (bit_cast::<1024, 64>(self.keys.q.val().get_bits::<64>(self.rel_x64.val().index())) << self.recent_x64.val());
            self.recent_valid.d.next = self.recent_valid.q.val().replace_bit(self.recent_ptr.q.val().index(), true);
            self.recent_ptr.d.next = self.recent_ptr.q.val() + 1;
        }

        // Entry writes (the updated or allocated slot is never the released one).
        self.upd_slot.next = self.hit_slot.val();
        if self.do_alloc.val() {
            self.upd_slot.next = self.new_slot.val();
        }
        self.upd_x64.next = bit_cast::<10, 4>(self.upd_slot.val()) << 6;
        if self.do_update.val() | self.do_alloc.val() {
            self.bitmaps.d.next = (self.bitmaps.q.val() & (!(self.lane64.val() << self.upd_x64.val())))
                | (bit_cast::<1024, 64>(self.bitmap_after.val()) << self.upd_x64.val());
        }
        self.valid_after_alloc.next = self.valid.q.val();
        if self.do_alloc.val() {
            self.valid_after_alloc.next = self.valid.q.val().replace_bit(self.new_slot.val().index(), true);
            self.keys.d.next = (self.keys.q.val() & (!(self.lane64.val() << self.upd_x64.val())))
                | (bit_cast::<1024, 64>(self.req_key.val()) << self.upd_x64.val());
            self.msg_lens.d.next = (self.msg_lens.q.val() & (!(self.lane16.val() << self.new_x16.val())))
                | (bit_cast::<256, 16>(self.req_msg_len.val()) << self.new_x16.val());
            self.pages.d.next = (self.pages.q.val() & (!(self.lane16.val() << self.new_x16.val())))
                | (bit_cast::<256, 16>(self.chosen_page.val()) << self.new_x16.val());
            self.gens.d.next = (self.gens.q.val() & (!(self.lane8.val() << self.new_x8.val())))
                | (bit_cast::<128, 8>(self.new_gen.val()) << self.new_x8.val());
            self.buf_index.d.next = (self.buf_index.q.val() & (!(self.lane4.val() << self.new_x4.val())))
                | (bit_cast::<64, 4>(self.chosen_index.val()) << self.new_x4.val());
            self.buf_class.d.next = (self.buf_class.q.val() & (!(self.lane2.val() << self.new_x2.val())))
                | (bit_cast::<32, 2>(self.chosen.val()) << self.new_x2.val());
        }
        self.valid.d.next = self.valid_after_alloc.val();
        if self.rel_ok.val() {
            self.valid.d.next = self.valid_after_alloc.val().replace_bit(self.release_slot.val().index(), false);
        }

        // Response.
        self.s1_valid.d.next = self.req_valid.val();
        self.s1_fail.d.next = self.reason.val() != 0;
        self.s1_reason.d.next = self.reason.val();
        self.s1_rx_msg_id.d.next = 0x8000.into();
        if self.do_update.val() {
            self.s1_rx_msg_id.d.next = (bit_cast::<16, 8>(self.hit_gen.val()) << 4)
                | bit_cast::<16, 4>(self.hit_slot.val());
        }
        if self.do_alloc.val() {
            self.s1_rx_msg_id.d.next = (bit_cast::<16, 8>(self.new_gen.val()) << 4) | bit_cast::<16, 4>(self.new_slot.val());
        }
        self.s1_new_msg.d.next = self.do_alloc.val();
        self.s1_new_pkt.d.next = (self.do_update.val() | self.do_alloc.val()) & (!self.sel_bitmap.val().get_bit(self.offset6.val().index()));
        self.s1_last.d.next = self.is_recent.val() | ((self.do_update.val() | self.do_alloc.val()) & (self.bitmap_after.val() == self.pkt_mask.val()));
        self.s1_ack.d.next = 0.into();
        if self.do_update.val() | self.do_alloc.val() {
            self.s1_ack.d.next = bit_cast::<9, 6>(self.first_missing.val());
        }
        if self.is_recent.val() {
            self.s1_ack.d.next = bit_cast::<9, 17>(self.req_pkts.val());
        }
        self.s1_sched.d.next = self.do_alloc.val() | (self.do_update.val() & (!self.was_complete.val()));
        self.s1_sched_slot.d.next = self.upd_slot.val();
        self.s1_sched_gen.d.next = self.new_gen.val();
        if self.do_update.val() {
            self.s1_sched_gen.d.next = self.hit_gen.val();
        }

        // Counters.
        if self.req_valid.val() {
            if self.reason.val() == 1 {
                self.c_zero_len.d.next = self.c_zero_len.q.val() + 1;
            }
            if self.reason.val() == 2 {
                self.c_too_long.d.next = self.c_too_long.q.val() + 1;
            }
            if self.reason.val() == 3 {
                self.c_bad_offset.d.next = self.c_bad_offset.q.val() + 1;
            }
            if self.reason.val() == 4 {
                self.c_len_mismatch.d.next = self.c_len_mismatch.q.val() + 1;
            }
            if self.reason.val() == 5 {
                self.c_no_id.d.next = self.c_no_id.q.val() + 1;
            }
            if self.reason.val() == 6 {
                self.c_no_buffer.d.next = self.c_no_buffer.q.val() + 1;
            }
            if self.do_update.val() & self.sel_bitmap.val().get_bit(self.offset6.val().index()) {
                self.c_duplicate.d.next = self.c_duplicate.q.val() + 1;
            }
            if self.is_recent.val() {
                self.c_recent.d.next = self.c_recent.q.val() + 1;
            }
            if self.do_alloc.val() & (self.chosen.val() != self.best.val()) {
                self.c_fallback.d.next = self.c_fallback.q.val() + 1;
            }
        }

        if self.reset.val() {
            self.valid.d.next = 0.into();
            self.gens.d.next = 0.into();
            self.recent_valid.d.next = 0.into();
            self.recent_ptr.d.next = 0.into();
            self.s1_valid.d.next = false;
            self.s1_sched.d.next = false;
            self.c_zero_len.d.next = 0.into();
            self.c_too_long.d.next = 0.into();
            self.c_bad_offset.d.next = 0.into();
            self.c_len_mismatch.d.next = 0.into();
            self.c_no_id.d.next = 0.into();
            self.c_no_buffer.d.next = 0.into();
            self.c_duplicate.d.next = 0.into();
            self.c_recent.d.next = 0.into();
            self.c_fallback.d.next = 0.into();
            self.ids.alloc_ready.next = false;
            self.class0.alloc_ready.next = false;
            self.class1.alloc_ready.next = false;
            self.class2.alloc_ready.next = false;
            self.class3.alloc_ready.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Drives one request (or none), returns (resp_valid, rx_msg_id, is_new_msg, is_new_pkt,
    /// is_last_pkt, ack_no, fail_reason) visible before the edge, then clocks.
    fn cycle(u: &mut GetRxMsgInfo, req: Option<(u64, u64, u64, u64, u64)>) -> (bool, u64, bool, bool, bool, u64, u64) {
        let (ip, tx, len, off, reset) = req.unwrap_or((0, 0, 0, 0, 0));
        u.reset.next = reset == 1;
        u.req_valid.next = req.is_some() && reset == 0;
        u.req_mark_received.next = true;
        u.req_src_ip.next = ip.to_bits();
        u.req_src_port.next = 5.into();
        u.req_tx_msg_id.next = tx.to_bits();
        u.req_msg_len.next = len.to_bits();
        u.req_pkt_offset.next = off.to_bits();
        u.release_valid.next = false;
        assert!(simulate(u, 1000));
        let out = (
            u.resp_valid.val(),
            u.resp_rx_msg_id.val().to_u64(),
            u.resp_is_new_msg.val(),
            u.resp_is_new_pkt.val(),
            u.resp_is_last_pkt.val(),
            u.resp_ack_no.val().to_u64(),
            u.resp_fail_reason.val().to_u64(),
        );
        u.clock.next = Clock { clk: true };
        assert!(simulate(u, 1000));
        u.clock.next = Clock { clk: false };
        assert!(simulate(u, 1000));
        out
    }

    #[test]
    fn allocates_marks_and_completes_natively() {
        let mut u = GetRxMsgInfo::default();
        u.connect_all();
        assert!(simulate(&mut u, 1000));
        cycle(&mut u, Some((0, 0, 0, 0, 1)));
        cycle(&mut u, Some((1, 3, 1500, 1, 0)));
        let first = cycle(&mut u, Some((2, 3, 1500, 0, 0)));
        assert_eq!(first, (true, 0x10, true, true, false, 0, 0), "slot 0, generation 1, ackNo 0");
        let other = cycle(&mut u, Some((1, 3, 1500, 0, 0)));
        assert_eq!(other, (true, 0x11, true, true, false, 1, 0), "another sender, same tx_msg_id: slot 1");
        let done = cycle(&mut u, None);
        assert_eq!(done, (true, 0x10, false, true, true, 2, 0), "both packets received");
        let failed = cycle(&mut u, Some((3, 3, 0, 0, 0)));
        assert!(!failed.0);
        assert_eq!(cycle(&mut u, None).6, fail_reason::ZERO_LEN);
    }
}
