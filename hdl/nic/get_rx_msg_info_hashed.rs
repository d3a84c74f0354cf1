//! GetRxMsgInfo for 128 concurrent messages: a 2-way d-left hash table over plain RAMs that
//! stores the **full** key (thesis §3.2.3, Listings 3.3/3.4; the request/response semantics are
//! those of [`crate::nic::get_rx_msg_info`]).
//!
//! A 128-entry full-key CAM would cost about as much logic as the whole NIC of Table 3.2, so the
//! table is hashed: two ways of 64 buckets with two entries each (256 entries for 128 IDs). A
//! key's candidate buckets are `h0(key)` in way 0 and `h1(key)` in way 1 ([`hash0`],
//! [`hash1`]); both are read at once (four RAMs, one per way and entry position) and compared
//! on the full 64-bit key. An entry holds the key, the `rx_msg_id` slot and generation,
//! `msg_len` and the `receivedBitmap`, so a lookup, its update and the response need no second
//! memory access. On a miss the new entry goes to the less occupied candidate bucket (way 0 on a
//! tie: d-left), first free position. When both candidate buckets are full the request fails
//! with its own reason, **bucket full** (7, `fail_bucket_full_count`), even if IDs remain.
//!
//! Size classes (default [`DEFAULT_SIZE_CLASSES_128`]): 128 × 1 KB, 32 × 4 KB, 16 × 8 KB,
//! 16 × 38 KB = 992 KB, each with its own free list; IDs come from a 128-entry free list.
//!
//! # Operations, latency and throughput
//! One operation — a request or a release — every **2 cycles**: in cycle A the operation is
//! accepted (`req_ready` / `release_ready`, a release wins) and the RAMs are read; in cycle B
//! the entries are compared and written back, and the response is registered: `resp_valid`
//! is high in the cycle after B, **2 cycles after the request**. The next operation's reads
//! happen after B's writes, so consecutive requests for the same message see each other's
//! updates. (A 64-bit MAC delivers a minimum-size packet at most every 9 cycles, so one
//! request per 2 cycles keeps up with line rate.)
//! ```text
//!  cycle A   req_valid & req_ready: latch request, read both candidate buckets
//!  cycle B   compare 4 entries on the full key, update/allocate, write back, register response
//!  cycle A'  resp_valid (+2)        next operation accepted
//! ```
//! # Reset
//! Reset clears the recently-completed table and the counters at once, then an init sequence
//! of 64 cycles writes every bucket empty (`req_ready` and `release_ready` stay low meanwhile).
//! Generations live in a RAM and carry on across a reset.
//!
//! # Ports
//! As [`crate::nic::get_rx_msg_info::GetRxMsgInfo`] with 7-bit slots, without the per-slot
//! `slot_*` outputs, plus `req_ready`, `release_ready` and `fail_bucket_full_count`, and
//! `resp_key` (64), `resp_msg_len` (16), `resp_page` (16): the key and `msg_len` of the request
//! being answered and, with `resp_is_new_msg`, the first 1 KB page of the allocated buffer
//! (classes laid out from page 0), which the reassembly records per slot.
//! `rx_msg_id = {generation[7:0], slot[6:0]}` (bit 15 set: no entry).

use crate::common::free_list::FreeList;
use rust_hdl::prelude::*;

/// Default buffer classes of the 128-message table: (pages per buffer, buffers).
pub const DEFAULT_SIZE_CLASSES_128: [(u64, u64); 4] = [(1, 128), (4, 32), (8, 16), (38, 16)];
/// Fail reason: both candidate buckets are full.
pub const FAIL_BUCKET_FULL: u64 = 7;
/// Buckets per way.
pub const BUCKETS: usize = 64;

/// 6-bit XOR fold of 64 bits (the last slice is 4 bits wide).
pub fn fold6(x: u64) -> u64 {
    let mut h = 0;
    for k in 0..11 {
        h ^= (x >> (6 * k)) & 0x3f;
    }
    h
}

/// Bucket of `key = {tx_msg_id, src_port, src_ip}` in way 0.
pub fn hash0(key: u64) -> u64 {
    fold6(key)
}

/// Bucket of `key` in way 1: the fold of a mixed key.
pub fn hash1(key: u64) -> u64 {
    fold6((key ^ (key >> 13)) ^ ((key << 7) ^ 0x5bd1_e995))
}

/// The 128-message hashed GetRxMsgInfo table.
#[derive(LogicBlock)]
pub struct GetRxMsgInfoHashed {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub req_valid: Signal<In, Bit>,
    pub req_ready: Signal<Out, Bit>,
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
    /// Key, `msg_len` and buffer page of the request answered in this cycle (valid with
    /// `resp_valid`; the page only when `resp_is_new_msg`): the reassembly records them per slot.
    pub resp_key: Signal<Out, Bits<64>>,
    pub resp_msg_len: Signal<Out, Bits<16>>,
    pub resp_page: Signal<Out, Bits<16>>,
    pub sched_valid: Signal<Out, Bit>,
    pub sched_slot: Signal<Out, Bits<7>>,
    pub sched_gen: Signal<Out, Bits<8>>,
    pub release_valid: Signal<In, Bit>,
    pub release_ready: Signal<Out, Bit>,
    pub release_slot: Signal<In, Bits<7>>,
    pub release_delivered: Signal<In, Bit>,
    pub free_lists_full: Signal<Out, Bits<5>>,
    pub fail_zero_len_count: Signal<Out, Bits<32>>,
    pub fail_too_long_count: Signal<Out, Bits<32>>,
    pub fail_bad_offset_count: Signal<Out, Bits<32>>,
    pub fail_len_mismatch_count: Signal<Out, Bits<32>>,
    pub fail_no_id_count: Signal<Out, Bits<32>>,
    pub fail_no_buffer_count: Signal<Out, Bits<32>>,
    pub fail_bucket_full_count: Signal<Out, Bits<32>>,
    pub duplicate_count: Signal<Out, Bits<32>>,
    pub recent_duplicate_count: Signal<Out, Bits<32>>,
    pub class_fallback_count: Signal<Out, Bits<32>>,
    // Entry RAMs: way × position; entry = {bitmap 64, msg_len 16, gen 8, slot 7, key 64, valid}.
    e00: RAM<Bits<160>, 6>,
    e01: RAM<Bits<160>, 6>,
    e10: RAM<Bits<160>, 6>,
    e11: RAM<Bits<160>, 6>,
    // Per slot: {index 7, class 2, location 8 = {way, bucket 6, position}, key 64}.
    slot_info: RAM<Bits<81>, 7>,
    slot_gen: RAM<Bits<8>, 7>,
    ids: FreeList<128, 7>,
    class0: FreeList<128, 7>,
    class1: FreeList<32, 5>,
    class2: FreeList<16, 4>,
    class3: FreeList<16, 4>,
    live: DFF<Bits<128>>,
    init_done: DFF<Bit>,
    init_ptr: DFF<Bits<6>>,
    phase_b: DFF<Bit>,
    op_release: DFF<Bit>,
    s_mark: DFF<Bit>,
    s_key: DFF<Bits<64>>,
    s_len: DFF<Bits<16>>,
    s_off: DFF<Bits<8>>,
    s_h0: DFF<Bits<6>>,
    s_h1: DFF<Bits<6>>,
    s_rel_slot: DFF<Bits<7>>,
    s_rel_delivered: DFF<Bit>,
    recent_keys: DFF<Bits<1024>>,
    recent_valid: DFF<Bits<16>>,
    recent_ptr: DFF<Bits<4>>,
    r_valid: DFF<Bit>,
    r_fail: DFF<Bit>,
    r_reason: DFF<Bits<3>>,
    r_rx_msg_id: DFF<Bits<16>>,
    r_new_msg: DFF<Bit>,
    r_new_pkt: DFF<Bit>,
    r_last: DFF<Bit>,
    r_ack: DFF<Bits<9>>,
    r_page: DFF<Bits<16>>,
    r_sched: DFF<Bit>,
    r_sched_slot: DFF<Bits<7>>,
    r_sched_gen: DFF<Bits<8>>,
    c_zero_len: DFF<Bits<32>>,
    c_too_long: DFF<Bits<32>>,
    c_bad_offset: DFF<Bits<32>>,
    c_len_mismatch: DFF<Bits<32>>,
    c_no_id: DFF<Bits<32>>,
    c_no_buffer: DFF<Bits<32>>,
    c_bucket_full: DFF<Bits<32>>,
    c_duplicate: DFF<Bits<32>>,
    c_recent: DFF<Bits<32>>,
    c_fallback: DFF<Bits<32>>,
    class0_pages: Constant<Bits<16>>,
    class1_pages: Constant<Bits<16>>,
    class2_pages: Constant<Bits<16>>,
    class3_pages: Constant<Bits<16>>,
    class1_base: Constant<Bits<16>>,
    class2_base: Constant<Bits<16>>,
    class3_base: Constant<Bits<16>>,
    max_msg_len: Constant<Bits<17>>,
    lane64: Constant<Bits<1024>>,
    bitmap_lane: Constant<Bits<160>>,
    all_ones64: Constant<Bits<64>>,
    mix: Constant<Bits<64>>,
    // Temporaries.
    take_release: Signal<Local, Bit>,
    take_request: Signal<Local, Bit>,
    req_key: Signal<Local, Bits<64>>,
    mixed: Signal<Local, Bits<64>>,
    h0: Signal<Local, Bits<6>>,
    h1: Signal<Local, Bits<6>>,
    do_request: Signal<Local, Bit>,
    do_release: Signal<Local, Bit>,
    hit_found: Signal<Local, Bit>,
    hit_entry: Signal<Local, Bits<160>>,
    hit_way: Signal<Local, Bit>,
    hit_pos: Signal<Local, Bit>,
    hit_slot: Signal<Local, Bits<7>>,
    hit_gen: Signal<Local, Bits<8>>,
    hit_len: Signal<Local, Bits<16>>,
    hit_pkts: Signal<Local, Bits<17>>,
    recent_found: Signal<Local, Bit>,
    is_recent: Signal<Local, Bit>,
    req_pkts: Signal<Local, Bits<17>>,
    sel_pkts: Signal<Local, Bits<7>>,
    sel_bitmap: Signal<Local, Bits<64>>,
    off6: Signal<Local, Bits<6>>,
    bitmap_after: Signal<Local, Bits<64>>,
    pkt_mask: Signal<Local, Bits<64>>,
    missing: Signal<Local, Bits<64>>,
    missing_lowest: Signal<Local, Bits<64>>,
    first_missing: Signal<Local, Bits<6>>,
    was_complete: Signal<Local, Bit>,
    used0: Signal<Local, Bits<2>>,
    used1: Signal<Local, Bits<2>>,
    new_way: Signal<Local, Bit>,
    new_pos: Signal<Local, Bit>,
    bucket_full: Signal<Local, Bit>,
    fits: Signal<Local, Bits<4>>,
    avail: Signal<Local, Bits<4>>,
    chosen: Signal<Local, Bits<2>>,
    best: Signal<Local, Bits<2>>,
    chosen_index: Signal<Local, Bits<7>>,
    chosen_page: Signal<Local, Bits<16>>,
    reason: Signal<Local, Bits<3>>,
    do_update: Signal<Local, Bit>,
    do_alloc: Signal<Local, Bit>,
    new_slot: Signal<Local, Bits<7>>,
    new_gen: Signal<Local, Bits<8>>,
    new_entry: Signal<Local, Bits<160>>,
    upd_entry: Signal<Local, Bits<160>>,
    wr_way: Signal<Local, Bit>,
    wr_pos: Signal<Local, Bit>,
    wr_bucket: Signal<Local, Bits<6>>,
    wr_data: Signal<Local, Bits<160>>,
    wr_enable: Signal<Local, Bit>,
    rel_info: Signal<Local, Bits<81>>,
    rel_class: Signal<Local, Bits<2>>,
    rel_index: Signal<Local, Bits<7>>,
    recent_x64: Signal<Local, Bits<10>>,
}

impl Default for GetRxMsgInfoHashed {
    fn default() -> Self {
        Self::new(DEFAULT_SIZE_CLASSES_128)
    }
}

impl GetRxMsgInfoHashed {
    /// A table with the given size classes (the counts must be 128, 32, 16, 16).
    pub fn new(classes: [(u64, u64); 4]) -> Self {
        let counts: Vec<u64> = classes.iter().map(|c| c.1).collect();
        assert_eq!(counts, vec![128, 32, 16, 16], "class buffer counts are fixed by the free list types");
        for w in classes.windows(2) {
            assert!(w[0].0 < w[1].0, "size classes must grow");
        }
        assert!(classes[3].0 <= 64, "a message has at most 64 packets (bitmap width)");
        let base = crate::nic::get_rx_msg_info::class_base_pages(&classes);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            req_valid: Default::default(),
            req_ready: Default::default(),
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
            resp_key: Default::default(),
            resp_msg_len: Default::default(),
            resp_page: Default::default(),
            sched_valid: Default::default(),
            sched_slot: Default::default(),
            sched_gen: Default::default(),
            release_valid: Default::default(),
            release_ready: Default::default(),
            release_slot: Default::default(),
            release_delivered: Default::default(),
            free_lists_full: Default::default(),
            fail_zero_len_count: Default::default(),
            fail_too_long_count: Default::default(),
            fail_bad_offset_count: Default::default(),
            fail_len_mismatch_count: Default::default(),
            fail_no_id_count: Default::default(),
            fail_no_buffer_count: Default::default(),
            fail_bucket_full_count: Default::default(),
            duplicate_count: Default::default(),
            recent_duplicate_count: Default::default(),
            class_fallback_count: Default::default(),
            e00: Default::default(),
            e01: Default::default(),
            e10: Default::default(),
            e11: Default::default(),
            slot_info: Default::default(),
            slot_gen: Default::default(),
            ids: Default::default(),
            class0: Default::default(),
            class1: Default::default(),
            class2: Default::default(),
            class3: Default::default(),
            live: Default::default(),
            init_done: Default::default(),
            init_ptr: Default::default(),
            phase_b: Default::default(),
            op_release: Default::default(),
            s_mark: Default::default(),
            s_key: Default::default(),
            s_len: Default::default(),
            s_off: Default::default(),
            s_h0: Default::default(),
            s_h1: Default::default(),
            s_rel_slot: Default::default(),
            s_rel_delivered: Default::default(),
            recent_keys: Default::default(),
            recent_valid: Default::default(),
            recent_ptr: Default::default(),
            r_valid: Default::default(),
            r_fail: Default::default(),
            r_reason: Default::default(),
            r_rx_msg_id: Default::default(),
            r_new_msg: Default::default(),
            r_new_pkt: Default::default(),
            r_last: Default::default(),
            r_ack: Default::default(),
            r_page: Default::default(),
            r_sched: Default::default(),
            r_sched_slot: Default::default(),
            r_sched_gen: Default::default(),
            c_zero_len: Default::default(),
            c_too_long: Default::default(),
            c_bad_offset: Default::default(),
            c_len_mismatch: Default::default(),
            c_no_id: Default::default(),
            c_no_buffer: Default::default(),
            c_bucket_full: Default::default(),
            c_duplicate: Default::default(),
            c_recent: Default::default(),
            c_fallback: Default::default(),
            class0_pages: Constant::new(classes[0].0.to_bits()),
            class1_pages: Constant::new(classes[1].0.to_bits()),
            class2_pages: Constant::new(classes[2].0.to_bits()),
            class3_pages: Constant::new(classes[3].0.to_bits()),
            class1_base: Constant::new(base[1].to_bits()),
            class2_base: Constant::new(base[2].to_bits()),
            class3_base: Constant::new(base[3].to_bits()),
            max_msg_len: Constant::new((classes[3].0 * crate::nic::get_rx_msg_info::PAGE_BYTES).to_bits()),
            lane64: Constant::new(u64::MAX.to_bits()),
            bitmap_lane: Constant::new((u64::MAX as u128).to_bits::<160>() << 96),
            all_ones64: Constant::new(Bits::<64>::mask()),
            mix: Constant::new(0x5bd1_e995u64.to_bits()),
            take_release: Default::default(),
            take_request: Default::default(),
            req_key: Default::default(),
            mixed: Default::default(),
            h0: Default::default(),
            h1: Default::default(),
            do_request: Default::default(),
            do_release: Default::default(),
            hit_found: Default::default(),
            hit_entry: Default::default(),
            hit_way: Default::default(),
            hit_pos: Default::default(),
            hit_slot: Default::default(),
            hit_gen: Default::default(),
            hit_len: Default::default(),
            hit_pkts: Default::default(),
            recent_found: Default::default(),
            is_recent: Default::default(),
            req_pkts: Default::default(),
            sel_pkts: Default::default(),
            sel_bitmap: Default::default(),
            off6: Default::default(),
            bitmap_after: Default::default(),
            pkt_mask: Default::default(),
            missing: Default::default(),
            missing_lowest: Default::default(),
            first_missing: Default::default(),
            was_complete: Default::default(),
            used0: Default::default(),
            used1: Default::default(),
            new_way: Default::default(),
            new_pos: Default::default(),
            bucket_full: Default::default(),
            fits: Default::default(),
            avail: Default::default(),
            chosen: Default::default(),
            best: Default::default(),
            chosen_index: Default::default(),
            chosen_page: Default::default(),
            reason: Default::default(),
            do_update: Default::default(),
            do_alloc: Default::default(),
            new_slot: Default::default(),
            new_gen: Default::default(),
            new_entry: Default::default(),
            upd_entry: Default::default(),
            wr_way: Default::default(),
            wr_pos: Default::default(),
            wr_bucket: Default::default(),
            wr_data: Default::default(),
            wr_enable: Default::default(),
            rel_info: Default::default(),
            rel_class: Default::default(),
            rel_index: Default::default(),
            recent_x64: Default::default(),
        }
    }
}

impl Logic for GetRxMsgInfoHashed {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, live, init_done, init_ptr, phase_b, op_release, s_mark, s_key, s_len, s_off, s_h0, s_h1, s_rel_slot,
            s_rel_delivered, recent_keys, recent_valid, recent_ptr, r_valid, r_fail, r_reason, r_rx_msg_id, r_new_msg, r_new_pkt,
            r_last, r_ack, r_page, r_sched, r_sched_slot, r_sched_gen, c_zero_len, c_too_long, c_bad_offset, c_len_mismatch, c_no_id,
            c_no_buffer, c_bucket_full, c_duplicate, c_recent, c_fallback);
        clock!(self, clock, ids, class0, class1, class2, class3);
        self.e00.read_clock.next = self.clock.val();
        self.e00.write_clock.next = self.clock.val();
        self.e01.read_clock.next = self.clock.val();
        self.e01.write_clock.next = self.clock.val();
        self.e10.read_clock.next = self.clock.val();
        self.e10.write_clock.next = self.clock.val();
        self.e11.read_clock.next = self.clock.val();
        self.e11.write_clock.next = self.clock.val();
        self.slot_info.read_clock.next = self.clock.val();
        self.slot_info.write_clock.next = self.clock.val();
        self.slot_gen.read_clock.next = self.clock.val();
        self.slot_gen.write_clock.next = self.clock.val();
        self.ids.reset.next = self.reset.val();
        self.class0.reset.next = self.reset.val();
        self.class1.reset.next = self.reset.val();
        self.class2.reset.next = self.reset.val();
        self.class3.reset.next = self.reset.val();

        self.resp_valid.next = self.r_valid.q.val();
        self.resp_fail.next = self.r_fail.q.val();
        self.resp_fail_reason.next = self.r_reason.q.val();
        self.resp_rx_msg_id.next = self.r_rx_msg_id.q.val();
        self.resp_is_new_msg.next = self.r_new_msg.q.val();
        self.resp_is_new_pkt.next = self.r_new_pkt.q.val();
        self.resp_is_last_pkt.next = self.r_last.q.val();
        self.resp_ack_no.next = self.r_ack.q.val();
        self.resp_key.next = self.s_key.q.val();
        self.resp_msg_len.next = self.s_len.q.val();
        self.resp_page.next = self.r_page.q.val();
        self.sched_valid.next = self.r_sched.q.val();
        self.sched_slot.next = self.r_sched_slot.q.val();
        self.sched_gen.next = self.r_sched_gen.q.val();
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
        self.fail_bucket_full_count.next = self.c_bucket_full.q.val();
        self.duplicate_count.next = self.c_duplicate.q.val();
        self.recent_duplicate_count.next = self.c_recent.q.val();
        self.class_fallback_count.next = self.c_fallback.q.val();

        // ---- Cycle A: accept an operation, read the RAMs.
        self.req_key.next = ((bit_cast::<64, 16>(self.req_tx_msg_id.val()) << 48)
            | (bit_cast::<64, 16>(self.req_src_port.val()) << 32))
            | bit_cast::<64, 32>(self.req_src_ip.val());
        self.mixed.next = ((self.req_key.val() ^ (self.req_key.val() >> 13)) ^ (self.req_key.val() << 7)) ^ self.mix.val();
        self.h0.next = (((((((((self.req_key.val().get_bits::<6>(0) ^ self.req_key.val().get_bits::<6>(6))
            ^ self.req_key.val().get_bits::<6>(12))
            ^ self.req_key.val().get_bits::<6>(18))
            ^ self.req_key.val().get_bits::<6>(24))
            ^ self.req_key.val().get_bits::<6>(30))
            ^ self.req_key.val().get_bits::<6>(36))
            ^ self.req_key.val().get_bits::<6>(42))
            ^ self.req_key.val().get_bits::<6>(48))
            ^ self.req_key.val().get_bits::<6>(54))
            ^ bit_cast::<6, 4>(self.req_key.val().get_bits::<4>(60));
        self.h1.next = (((((((((self.mixed.val().get_bits::<6>(0) ^ self.mixed.val().get_bits::<6>(6))
            ^ self.mixed.val().get_bits::<6>(12))
            ^ self.mixed.val().get_bits::<6>(18))
            ^ self.mixed.val().get_bits::<6>(24))
            ^ self.mixed.val().get_bits::<6>(30))
            ^ self.mixed.val().get_bits::<6>(36))
            ^ self.mixed.val().get_bits::<6>(42))
            ^ self.mixed.val().get_bits::<6>(48))
            ^ self.mixed.val().get_bits::<6>(54))
            ^ bit_cast::<6, 4>(self.mixed.val().get_bits::<4>(60));
        self.take_release.next = (self.init_done.q.val() & (!self.phase_b.q.val())) & self.release_valid.val();
        self.take_request.next = ((self.init_done.q.val() & (!self.phase_b.q.val())) & self.req_valid.val()) & (!self.release_valid.val());
        self.release_ready.next = self.init_done.q.val() & (!self.phase_b.q.val());
        self.req_ready.next = (self.init_done.q.val() & (!self.phase_b.q.val())) & (!self.release_valid.val());
        self.phase_b.d.next = self.take_release.val() | self.take_request.val();
        if self.take_release.val() | self.take_request.val() {
            self.op_release.d.next = self.take_release.val();
            self.s_mark.d.next = self.req_mark_received.val();
            self.s_key.d.next = self.req_key.val();
            self.s_len.d.next = self.req_msg_len.val();
            self.s_off.d.next = self.req_pkt_offset.val();
            self.s_h0.d.next = self.h0.val();
            self.s_h1.d.next = self.h1.val();
            self.s_rel_slot.d.next = self.release_slot.val();
            self.s_rel_delivered.d.next = self.release_delivered.val();
        }
        self.e00.read_address.next = self.h0.val();
        self.e01.read_address.next = self.h0.val();
        self.e10.read_address.next = self.h1.val();
        self.e11.read_address.next = self.h1.val();
        self.slot_info.read_address.next = self.release_slot.val();
        self.slot_gen.read_address.next = self.ids.alloc_id.val();

        // ---- Cycle B: compare the four candidates on the full key.
        self.do_request.next = self.phase_b.q.val() & (!self.op_release.q.val());
        // A release of a slot that holds no message changes nothing.
        self.do_release.next = (self.phase_b.q.val() & self.op_release.q.val()) & self.live.q.val().get_bit(self.s_rel_slot.q.val().index());
        self.hit_found.next = false;
        self.hit_entry.next = self.e00.read_data.val();
        self.hit_way.next = false;
        self.hit_pos.next = false;
        if self.e00.read_data.val().get_bit(0) & (self.e00.read_data.val().get_bits::<64>(1) == self.s_key.q.val()) {
            self.hit_found.next = true;
        }
        if self.e01.read_data.val().get_bit(0) & (self.e01.read_data.val().get_bits::<64>(1) == self.s_key.q.val()) {
            self.hit_found.next = true;
            self.hit_entry.next = self.e01.read_data.val();
            self.hit_pos.next = true;
        }
        if self.e10.read_data.val().get_bit(0) & (self.e10.read_data.val().get_bits::<64>(1) == self.s_key.q.val()) {
            self.hit_found.next = true;
            self.hit_entry.next = self.e10.read_data.val();
            self.hit_way.next = true;
        }
        if self.e11.read_data.val().get_bit(0) & (self.e11.read_data.val().get_bits::<64>(1) == self.s_key.q.val()) {
            self.hit_found.next = true;
            self.hit_entry.next = self.e11.read_data.val();
            self.hit_way.next = true;
            self.hit_pos.next = true;
        }
        self.hit_slot.next = self.hit_entry.val().get_bits::<7>(65);
        self.hit_gen.next = self.hit_entry.val().get_bits::<8>(72);
        self.hit_len.next = self.hit_entry.val().get_bits::<16>(80);
        self.hit_pkts.next = (bit_cast::<17, 16>(self.hit_len.val()) + 1023) >> 10;
        self.req_pkts.next = (bit_cast::<17, 16>(self.s_len.q.val()) + 1023) >> 10;
        self.recent_found.next = false;
        for i in 0..16 {
            if self.recent_valid.q.val().get_bit(i) & (self.recent_keys.q.val().get_bits::<64>(i * 64) == self.s_key.q.val()) {
                self.recent_found.next = true;
            }
        }
        self.is_recent.next = (!self.hit_found.val()) & self.recent_found.val();
        if self.hit_found.val() {
            self.sel_pkts.next = bit_cast::<7, 17>(self.hit_pkts.val());
            self.sel_bitmap.next = self.hit_entry.val().get_bits::<64>(96);
        } else {
            self.sel_pkts.next = bit_cast::<7, 17>(self.req_pkts.val());
            self.sel_bitmap.next = 0.into();
        }
        self.off6.next = self.s_off.q.val().get_bits::<6>(0);
        self.bitmap_after.next = self.sel_bitmap.val();
        if self.s_mark.q.val() {
            self.bitmap_after.next = self.sel_bitmap.val().replace_bit(self.off6.val().index(), true);
        }
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

        // d-left placement: the less occupied candidate bucket, way 0 on a tie.
        self.used0.next = bit_cast::<2, 1>(self.e00.read_data.val().get_bit(0).into()) + bit_cast::<2, 1>(self.e01.read_data.val().get_bit(0).into());
        self.used1.next = bit_cast::<2, 1>(self.e10.read_data.val().get_bit(0).into()) + bit_cast::<2, 1>(self.e11.read_data.val().get_bit(0).into());
        self.new_way.next = self.used1.val() < self.used0.val();
        self.new_pos.next = self.e00.read_data.val().get_bit(0);
        if self.new_way.val() {
            self.new_pos.next = self.e10.read_data.val().get_bit(0);
        }
        self.bucket_full.next = (self.used0.val() == 2) & (self.used1.val() == 2);

        // Size class (as in the 16-message table).
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
        self.chosen_index.next = self.class0.alloc_id.val();
        if self.chosen.val() == 1 {
            self.chosen_index.next = bit_cast::<7, 5>(self.class1.alloc_id.val());
        }
        if self.chosen.val() == 2 {
            self.chosen_index.next = bit_cast::<7, 4>(self.class2.alloc_id.val());
        }
        if self.chosen.val() == 3 {
            self.chosen_index.next = bit_cast::<7, 4>(self.class3.alloc_id.val());
        }
        self.chosen_page.next = bit_cast::<16, 32>(bit_cast::<16, 7>(self.chosen_index.val()) * self.class0_pages.val());
        if self.chosen.val() == 1 {
            self.chosen_page.next = self.class1_base.val() + bit_cast::<16, 32>(bit_cast::<16, 7>(self.chosen_index.val()) * self.class1_pages.val());
        }
        if self.chosen.val() == 2 {
            self.chosen_page.next = self.class2_base.val() + bit_cast::<16, 32>(bit_cast::<16, 7>(self.chosen_index.val()) * self.class2_pages.val());
        }
        if self.chosen.val() == 3 {
            self.chosen_page.next = self.class3_base.val() + bit_cast::<16, 32>(bit_cast::<16, 7>(self.chosen_index.val()) * self.class3_pages.val());
        }
        // Decision (same order as the 16-message table; bucket full after no free ID).
        self.reason.next = 0.into();
        if self.hit_found.val() {
            if self.s_len.q.val() != self.hit_len.val() {
                self.reason.next = 4.into();
            } else if bit_cast::<17, 8>(self.s_off.q.val()) >= self.hit_pkts.val() {
                self.reason.next = 3.into();
            }
        } else if !self.is_recent.val() {
            if self.s_len.q.val() == 0 {
                self.reason.next = 1.into();
            } else if bit_cast::<17, 16>(self.s_len.q.val()) > self.max_msg_len.val() {
                self.reason.next = 2.into();
            } else if bit_cast::<17, 8>(self.s_off.q.val()) >= self.req_pkts.val() {
                self.reason.next = 3.into();
            } else if !self.ids.alloc_valid.val() {
                self.reason.next = 5.into();
            } else if self.bucket_full.val() {
                self.reason.next = 7.into();
            } else if !self.avail.val().any() {
                self.reason.next = 6.into();
            }
        }
        self.do_update.next = (self.do_request.val() & self.hit_found.val()) & (self.reason.val() == 0);
        self.do_alloc.next = ((self.do_request.val() & (!self.hit_found.val())) & (!self.is_recent.val())) & (self.reason.val() == 0);
        self.new_slot.next = self.ids.alloc_id.val();
        self.new_gen.next = self.slot_gen.read_data.val() + 1;
        self.ids.alloc_ready.next = self.do_alloc.val();
        self.class0.alloc_ready.next = self.do_alloc.val() & (self.chosen.val() == 0);
        self.class1.alloc_ready.next = self.do_alloc.val() & (self.chosen.val() == 1);
        self.class2.alloc_ready.next = self.do_alloc.val() & (self.chosen.val() == 2);
        self.class3.alloc_ready.next = self.do_alloc.val() & (self.chosen.val() == 3);
        self.new_entry.next = ((((bit_cast::<160, 64>(self.bitmap_after.val()) << 96)
            | (bit_cast::<160, 16>(self.s_len.q.val()) << 80))
            | (bit_cast::<160, 8>(self.new_gen.val()) << 72))
            | (bit_cast::<160, 7>(self.new_slot.val()) << 65))
            | ((bit_cast::<160, 64>(self.s_key.q.val()) << 1) | 1);
        self.upd_entry.next = (self.hit_entry.val() & (!self.bitmap_lane.val())) | (bit_cast::<160, 64>(self.bitmap_after.val()) << 96);

        // Release: slot info read in cycle A; the entry is cleared, ID and buffer freed.
        self.rel_info.next = self.slot_info.read_data.val();
        self.rel_class.next = self.rel_info.val().get_bits::<2>(72);
        self.rel_index.next = self.rel_info.val().get_bits::<7>(74);
        self.ids.free_valid.next = self.do_release.val();
        self.ids.free_id.next = self.s_rel_slot.q.val();
        self.class0.free_valid.next = self.do_release.val() & (self.rel_class.val() == 0);
        self.class1.free_valid.next = self.do_release.val() & (self.rel_class.val() == 1);
        self.class2.free_valid.next = self.do_release.val() & (self.rel_class.val() == 2);
        self.class3.free_valid.next = self.do_release.val() & (self.rel_class.val() == 3);
        self.class0.free_id.next = self.rel_index.val();
        self.class1.free_id.next = self.rel_index.val().get_bits::<5>(0);
        self.class2.free_id.next = self.rel_index.val().get_bits::<4>(0);
        self.class3.free_id.next = self.rel_index.val().get_bits::<4>(0);
        self.recent_x64.next = bit_cast::<10, 4>(self.recent_ptr.q.val()) << 6;
        if self.do_release.val() & self.s_rel_delivered.q.val() {
            self.recent_keys.d.next = (self.recent_keys.q.val() & (!(self.lane64.val() << self.recent_x64.val())))
                | (bit_cast::<1024, 64>(self.rel_info.val().get_bits::<64>(0)) << self.recent_x64.val());
            self.recent_valid.d.next = self.recent_valid.q.val().replace_bit(self.recent_ptr.q.val().index(), true);
            self.recent_ptr.d.next = self.recent_ptr.q.val() + 1;
        }

        // Entry RAM write: update, allocation, release (clear) or init sweep.
        self.wr_enable.next = (self.do_update.val() | self.do_alloc.val()) | self.do_release.val();
        self.wr_way.next = self.hit_way.val();
        self.wr_pos.next = self.hit_pos.val();
        self.wr_bucket.next = self.s_h0.q.val();
        if self.hit_way.val() {
            self.wr_bucket.next = self.s_h1.q.val();
        }
        self.wr_data.next = self.upd_entry.val();
        if self.do_alloc.val() {
            self.wr_way.next = self.new_way.val();
            self.wr_pos.next = self.new_pos.val();
            self.wr_bucket.next = self.s_h0.q.val();
            if self.new_way.val() {
                self.wr_bucket.next = self.s_h1.q.val();
            }
            self.wr_data.next = self.new_entry.val();
        }
        if self.do_release.val() {
            self.wr_way.next = self.rel_info.val().get_bit(71);
            self.wr_pos.next = self.rel_info.val().get_bit(64);
            self.wr_bucket.next = self.rel_info.val().get_bits::<6>(65);
            self.wr_data.next = 0.into();
        }
        self.e00.write_address.next = self.wr_bucket.val();
        self.e01.write_address.next = self.wr_bucket.val();
        self.e10.write_address.next = self.wr_bucket.val();
        self.e11.write_address.next = self.wr_bucket.val();
        self.e00.write_data.next = self.wr_data.val();
        self.e01.write_data.next = self.wr_data.val();
        self.e10.write_data.next = self.wr_data.val();
        self.e11.write_data.next = self.wr_data.val();
        self.e00.write_enable.next = (self.wr_enable.val() & (!self.wr_way.val())) & (!self.wr_pos.val());
        self.e01.write_enable.next = (self.wr_enable.val() & (!self.wr_way.val())) & self.wr_pos.val();
        self.e10.write_enable.next = (self.wr_enable.val() & self.wr_way.val()) & (!self.wr_pos.val());
        self.e11.write_enable.next = (self.wr_enable.val() & self.wr_way.val()) & self.wr_pos.val();
        if !self.init_done.q.val() {
            self.e00.write_address.next = self.init_ptr.q.val();
            self.e01.write_address.next = self.init_ptr.q.val();
            self.e10.write_address.next = self.init_ptr.q.val();
            self.e11.write_address.next = self.init_ptr.q.val();
            self.e00.write_data.next = 0.into();
            self.e01.write_data.next = 0.into();
            self.e10.write_data.next = 0.into();
            self.e11.write_data.next = 0.into();
            self.e00.write_enable.next = true;
            self.e01.write_enable.next = true;
            self.e10.write_enable.next = true;
            self.e11.write_enable.next = true;
            self.init_ptr.d.next = self.init_ptr.q.val() + 1;
            if self.init_ptr.q.val() == 63 {
                self.init_done.d.next = true;
            }
        }
        // Slot state written on allocation: {index, class, location, key}; generation.
        self.slot_info.write_address.next = self.new_slot.val();
        self.slot_info.write_data.next = (((bit_cast::<81, 7>(self.chosen_index.val()) << 74)
            | (bit_cast::<81, 2>(self.chosen.val()) << 72))
            | (((bit_cast::<81, 1>(self.new_way.val().into()) << 71) | (bit_cast::<81, 6>(self.wr_bucket.val()) << 65))
                | (bit_cast::<81, 1>(self.new_pos.val().into()) << 64)))
            | bit_cast::<81, 64>(self.s_key.q.val());
        self.slot_info.write_enable.next = self.do_alloc.val();
        self.slot_gen.write_address.next = self.new_slot.val();
        self.slot_gen.write_data.next = self.new_gen.val();
        self.slot_gen.write_enable.next = self.do_alloc.val();
        self.live.d.next = self.live.q.val();
        if self.do_alloc.val() {
            self.live.d.next = self.live.q.val().replace_bit(self.new_slot.val().index(), true);
        }
        if self.do_release.val() {
            self.live.d.next = self.live.q.val().replace_bit(self.s_rel_slot.q.val().index(), false);
        }

        // Response (registered: valid the cycle after B).
        self.r_valid.d.next = self.do_request.val();
        self.r_fail.d.next = self.reason.val() != 0;
        self.r_reason.d.next = self.reason.val();
        self.r_rx_msg_id.d.next = 0x8000.into();
        if self.do_update.val() {
            self.r_rx_msg_id.d.next = (bit_cast::<16, 8>(self.hit_gen.val()) << 7) | bit_cast::<16, 7>(self.hit_slot.val());
        }
        if self.do_alloc.val() {
            self.r_rx_msg_id.d.next = (bit_cast::<16, 8>(self.new_gen.val()) << 7) | bit_cast::<16, 7>(self.new_slot.val());
        }
        self.r_new_msg.d.next = self.do_alloc.val();
        self.r_page.d.next = self.chosen_page.val();
        self.r_new_pkt.d.next = (self.do_update.val() | self.do_alloc.val()) & (!self.sel_bitmap.val().get_bit(self.off6.val().index()));
        self.r_last.d.next = (self.do_request.val() & self.is_recent.val())
            | ((self.do_update.val() | self.do_alloc.val()) & (self.bitmap_after.val() == self.pkt_mask.val()));
        self.r_ack.d.next = 0.into();
        if self.do_update.val() | self.do_alloc.val() {
            self.r_ack.d.next = bit_cast::<9, 6>(self.first_missing.val());
        }
        if self.do_request.val() & self.is_recent.val() {
            self.r_ack.d.next = bit_cast::<9, 17>(self.req_pkts.val());
        }
        self.r_sched.d.next = self.do_alloc.val() | (self.do_update.val() & (!self.was_complete.val()));
        self.r_sched_slot.d.next = self.hit_slot.val();
        self.r_sched_gen.d.next = self.hit_gen.val();
        if self.do_alloc.val() {
            self.r_sched_slot.d.next = self.new_slot.val();
            self.r_sched_gen.d.next = self.new_gen.val();
        }

        if self.do_request.val() {
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
            if self.reason.val() == 7 {
                self.c_bucket_full.d.next = self.c_bucket_full.q.val() + 1;
            }
            if self.do_update.val() & self.sel_bitmap.val().get_bit(self.off6.val().index()) {
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
            self.live.d.next = 0.into();
            self.init_done.d.next = false;
            self.init_ptr.d.next = 0.into();
            self.phase_b.d.next = false;
            self.recent_valid.d.next = 0.into();
            self.recent_ptr.d.next = 0.into();
            self.r_valid.d.next = false;
            self.r_sched.d.next = false;
            self.c_zero_len.d.next = 0.into();
            self.c_too_long.d.next = 0.into();
            self.c_bad_offset.d.next = 0.into();
            self.c_len_mismatch.d.next = 0.into();
            self.c_no_id.d.next = 0.into();
            self.c_no_buffer.d.next = 0.into();
            self.c_bucket_full.d.next = 0.into();
            self.c_duplicate.d.next = 0.into();
            self.c_recent.d.next = 0.into();
            self.c_fallback.d.next = 0.into();
            self.ids.alloc_ready.next = false;
            self.class0.alloc_ready.next = false;
            self.class1.alloc_ready.next = false;
            self.class2.alloc_ready.next = false;
            self.class3.alloc_ready.next = false;
            self.ids.free_valid.next = false;
            self.class0.free_valid.next = false;
            self.class1.free_valid.next = false;
            self.class2.free_valid.next = false;
            self.class3.free_valid.next = false;
            self.slot_info.write_enable.next = false;
            self.slot_gen.write_enable.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clock(u: &mut GetRxMsgInfoHashed) {
        assert!(simulate(u, 2000));
        u.clock.next = Clock { clk: true };
        assert!(simulate(u, 2000));
        u.clock.next = Clock { clk: false };
        assert!(simulate(u, 2000));
    }

    #[test]
    fn init_then_allocate_and_hit_natively() {
        let mut u = GetRxMsgInfoHashed::default();
        u.connect_all();
        u.reset.next = true;
        clock(&mut u);
        u.reset.next = false;
        let mut init_cycles = 0;
        loop {
            assert!(simulate(&mut u, 2000));
            if u.req_ready.val() {
                break;
            }
            clock(&mut u);
            init_cycles += 1;
        }
        assert_eq!(init_cycles, 64, "the init sequence writes 64 buckets");
        u.req_mark_received.next = true;
        u.req_src_ip.next = 5.into();
        u.req_msg_len.next = 3000.into();
        let mut responses = Vec::new();
        for (offset, valid) in [(1u64, true), (0, false), (0, true), (0, false), (0, false)] {
            u.req_valid.next = valid;
            u.req_pkt_offset.next = offset.to_bits();
            assert!(simulate(&mut u, 2000));
            if u.resp_valid.val() {
                responses.push((u.resp_rx_msg_id.val().to_u64(), u.resp_is_new_msg.val(), u.resp_ack_no.val().to_u64()));
            }
            clock(&mut u);
        }
        assert_eq!(responses, vec![(0x80, true, 0), (0x80, false, 2)], "slot 0, generation 1; two cycles per request");
    }
}
