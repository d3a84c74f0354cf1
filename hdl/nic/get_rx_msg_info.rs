//! GetRxMsgInfo (thesis §3.2.3, Listings 3.3/3.4): the receive-side message table, for any
//! number of concurrent messages `N = 2^IW`, with ID and size-class buffer allocation and the
//! set of recently delivered messages. Used by [`crate::nic::reassembly::Reassembly`] at every size.
//!
//! # Table
//! A 2-way d-left hash table over plain RAMs that stores the **full** key
//! `{tx_msg_id, src_port, src_ip}` (64 bits): two ways of `2^BB` buckets with two entries each
//! (the geometry is the type parameter `BB`; 16 messages use `BB = 4`, 64 entries; 128 messages
//! `BB = 6`, 256 entries). A key's candidate buckets are [`hash0`] in way 0 and [`hash1`] in way
//! 1, H3 hashes ([`crate::common::key_hash`]), so keys whose source port and `tx_msg_id` rise
//! together spread like random ones; both are read at once (four RAMs of `2^BB` × 164 bits, one
//! per way and entry position: 1.3 KB at 16 messages, 5.2 KB at 128) and compared on the
//! full key, so two senders using the same `tx_msg_id` never share an entry. An entry holds the
//! key, the slot and generation, `msg_len` and the `receivedBitmap`, so a lookup, its update and
//! the response need no second memory access. On a miss the new entry goes to the less
//! occupied candidate bucket (way 0 on a tie: d-left), first free position. When both candidate
//! buckets are full the request fails with its own reason, **bucket full** (7,
//! `fail_bucket_full_count`), even if IDs remain. (A full-key CAM was measured against this
//! table at 16 messages and is not cheaper: its state is
//! 16 × 64-bit keys and bitmaps in flip-flops with wide multiplexers.)
//!
//! * `rx_msg_id` = `{generation, slot[IW-1:0]}` with a generation of `min(8, 15 − IW)` bits (bit
//!   15 stays clear: it marks NONE); every allocation of a slot increments its generation, so
//!   late packets and timeouts of a slot's previous message are recognised.
//!   [`RX_MSG_ID_NONE`] (bit 15 set) is returned when there is no entry.
//! * `ackNo` = smallest offset not yet received; `is_last_pkt` = every packet
//!   `0 … num_pkts−1` received, `num_pkts = ⌈msg_len / 1024⌉`.
//! * Buffers (§3.3.2), the sub-block [`RxBufferClasses`]: four size classes `(pages per buffer,
//!   buffers)`, constructor parameters (run-time constants), each with its own free list of `N`
//!   IDs of which the first `buffers` are used. The smallest class whose buffers are large enough
//!   *and* has a free buffer is chosen; a larger class is used when the best-fitting one is
//!   exhausted (`class_fallback_count`). Classes are laid out from page 0 of the payload memory
//!   ([`class_base_pages`]); packet `k` of a message lives at page `buffer_page + k`.
//! * Recently delivered messages: a delivered message's key enters the
//!   [`DeliveredSet`] on release and stays there for at least the horizon `H`
//!   ([`DEFAULT_HORIZON_CYCLES`] = 2^18 cycles, 82 µs at 3.2 GHz), whatever the number of messages
//!   completed meanwhile. A miss that finds its key there is a late duplicate: `fail = 0,
//!   is_new_msg = 0, is_new_pkt = 0, is_last_pkt = 1, ackNo = num_pkts, rx_msg_id = NONE`,
//!   counted in `recent_duplicate_count`. This is the receiver's half of **at-most-once
//!   delivery**: a copy arriving up to `H` cycles after its message was released is never
//!   delivered again. (The sender's half: a sender does not reuse a key within 17/16 `H` + 2^15
//!   cycles, [`crate::nic::tx_path::KEY_REUSE_CYCLES`]; and the register check
//!   [`crate::nic::register_map::check_retransmission_horizon`], applied by `--set`, keeps the
//!   time a sender may still retransmit, `rto_cycles × (timeout_threshold + 2)`, within
//!   `H − 2^15` = 229 376 cycles, leaving 2^15 for copies still in the network.)

//! # Peeks
//! The ingress front looks a longer DATA frame up before its last beat has arrived
//! (`req.peek` = 1, without `req.mark_received`), so the payload can stream into its buffer,
//! and calls again with the mark once the frame is validated. A peek allocates and answers like
//! any request, but the entry keeps one more bit, *announced*, set by the first request that is
//! not a peek: `resp_announce_new_msg` is high for that request. So an ingress program hears of
//! a new message exactly once, with its first validated packet, even when a bad frame's peek
//! allocated the entry.
//!
//! # Fail reasons (`resp_fail_reason`, each with its own counter)
//! Checked in this order. For a hit: 4 `msg_len` differs from the entry's, 3 `pkt_offset` ≥
//! `num_pkts`. For a miss: 1 `msg_len = 0`, 2 `msg_len` larger than the largest class, 3
//! `pkt_offset` ≥ `num_pkts`, 5 no free `rx_msg_id`, 7 both candidate buckets full, 6 no free
//! buffer in any class that fits. A failed request changes no state. A hit that finds the bit
//! already set is a duplicate (`is_new_pkt = 0`, `duplicate_count`).
//!
//! # Operations, latency and throughput
//! One operation — a request or a release — every **3 cycles**: in cycle A the operation is
//! accepted (`req.ready` / `release_ready`; a release wins) and the RAMs are read; in cycle B
//! the entries are compared and the decision and a provisional response are registered; in
//! cycle C the decision is applied (RAM writes, the free lists' take, the live set, the
//! counters) and the response is registered again; `resp_valid` is high **3 cycles after the
//! request**, with every response port from a flip-flop. The delivered set's answer arrives late
//! in cycle B and only says whether a miss is a late duplicate: it is registered as it is and
//! meets the decision in cycle C, where it withholds the allocation and turns the provisional
//! response into a late duplicate's. A release frees its ID and buffer and inserts its key into
//! the delivered set in cycle B. The next operation's reads happen after C's writes, so
//! consecutive requests for the same message see each other's updates. (A 64-bit MAC delivers a
//! minimum-size packet at most every 9 cycles, so one request per 3 cycles keeps up, also with a
//! longer DATA frame's two calls.)
//! ```text
//!  cycle A   req_valid & req_ready: latch request, read both candidate buckets
//!  cycle B   compare 4 entries on the full key, decide, register the decision and response
//!  cycle C   write back, allocate (unless a late duplicate), register the response
//!  cycle A'  resp_valid (+3); next operation accepted
//! ```
//! A release of a slot that holds no message changes nothing.
//!
//! # Reset
//! Reset clears the counters and refills the free lists at once; then an init sequence writes
//! every bucket of the table (`2^BB` cycles) and of the delivered set (`2^12` cycles, at the same
//! time) empty: `req.ready` and `release_ready` stay low for **4 096 cycles**. The delivered set
//! forgets everything at reset. Generations live in a RAM and carry on across a reset;
//! one flip-flop per slot (`gen_known`, not reset) says whether the slot's generation was ever
//! written, and a slot never allocated since power-up starts from generation 0 whatever its RAM
//! word holds (RAM contents are unknown at power-up in a 4-state simulator and in memories
//! without initial contents).
//!
//! # Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `req` ([`RxMsgInfoRequestSink`]): `valid`, `ready`, `mark_received`, `src_ip`, `src_port`, `tx_msg_id`, `msg_len`, `pkt_offset` | in (ready out) | 1,1,1,32,16,16,16,8 | Listing 3.3 |
//! | `req.peek` | in | 1 | the request is for a frame not yet validated (see *Peeks*) |
//! | `resp_valid`, `resp_fail`, `resp_fail_reason`, `resp_rx_msg_id`, `resp_is_new_msg`, `resp_is_new_pkt`, `resp_is_last_pkt`, `resp_ack_no` | out | 1,1,3,16,1,1,1,9 | Listing 3.4 (+ reason); `resp_is_new_msg`: this request allocated the entry |
//! | `resp_announce_new_msg` | out | 1 | the first request for this message that was not a peek: the "new message" an ingress program acts on |
//! | `resp_key`, `resp_msg_len`, `resp_page` | out | 64,16,16 | key, `msg_len` and (with `resp_is_new_msg`) first buffer page of the request answered: the reassembly records them per slot |
//! | `sched_valid`, `sched_slot`, `sched_gen` | out | 1,IW,8 | (re)schedule the message's ingress timer: on allocation and on every hit whose bitmap was not yet complete |
//! | `release_valid`, `release_ready`, `release_slot`, `release_delivered` | in (ready out) | 1,1,IW,1 | free an entry, its ID and buffer |
//! | `free_lists_full` | out | 5 | bit 0: every ID free; bits 1–4: every buffer of class 0–3 free |
//! | `counters` ([`RxMsgInfoCountersSource`]: `*_count`) | out | 32 each | counters (wrapping): `fail_zero_len`, `fail_too_long`, `fail_bad_offset`, `fail_len_mismatch`, `fail_no_id`, `fail_no_buffer`, `fail_bucket_full`, `duplicate`, `recent_duplicate`, `class_fallback`; `full_wait` (releases whose key found both candidate buckets of the delivered set full and waited: the receive path stalls meanwhile, nothing is forgotten early) |

use crate::common::bundles::RxMsgInfoCountersSource;
use crate::common::bundles::RxMsgInfoRequestSink;
use crate::common::event_counter::WrappingCounter;
use crate::common::find_first_set::FindFirstSet;
use crate::common::free_list::FreeList;
use crate::common::key_hash::KeyHash;
pub use crate::common::key_hash::{hash0, hash1};
use crate::common::one_hot::OneHot;
use crate::nic::delivered_set::{DeliveredSet, DEFAULT_HORIZON_CYCLES, DELIVERED_SET_BUCKET_BITS};
use crate::nic::rx_buffer_classes::RxBufferClasses;
pub use crate::nic::rx_buffer_classes::{class_base_pages, rx_classes_for};
use crate::{locals, ports, registers, status_counters, Blank};
use rust_hdl::prelude::*;

/// Bits of a slot's generation inside `rx_msg_id`.
pub const RX_GEN_BITS: usize = 8;
/// `rx_msg_id` of "no entry" (failed requests, recent duplicates).
pub const RX_MSG_ID_NONE: u64 = 0x8000;
/// Payload bytes per packet (one page of the payload memory).
pub const PAGE_BYTES: u64 = 1024;
/// Pages (1 KiB, 128 words) of a payload memory of `2^pw` 64-bit words.
pub fn payload_pages(pw: usize) -> u64 {
    1 << (pw - 7)
}
/// Widest slot number a table supports (`IW ≤ 10`: up to 1024 messages).
pub const MAX_SLOT_BITS: usize = 10;
/// Widest bucket number (`BB ≤ 10`).
pub const MAX_BUCKET_BITS: usize = 10;

/// Widest payload memory address (64-bit words) a table can page: 13-bit page numbers of 128
/// words, 8 MiB.
pub const MAX_PAYLOAD_WORD_BITS: usize = 20;

/// Fail reasons of `resp_fail_reason`.
pub mod fail_reason {
    pub const NONE: u64 = 0;
    pub const ZERO_LEN: u64 = 1;
    pub const TOO_LONG: u64 = 2;
    pub const BAD_OFFSET: u64 = 3;
    pub const LEN_MISMATCH: u64 = 4;
    pub const NO_ID: u64 = 5;
    pub const NO_BUFFER: u64 = 6;
    pub const BUCKET_FULL: u64 = 7;
}

/// Checks a table's parameters; panics with a one-line message naming the parameter.
pub fn check_parameters(iw: usize, n: usize, bb: usize, pw: usize, classes: &[(u64, u64); 4]) {
    if let Err(e) = rx_parameter_error(iw, n, bb, pw, classes) {
        panic!("{e}");
    }
}

/// The one-line reason a table's parameters are invalid, if they are (`pw`: the payload memory
/// has `2^pw` 64-bit words).
pub fn rx_parameter_error(iw: usize, n: usize, bb: usize, pw: usize, classes: &[(u64, u64); 4]) -> Result<(), String> {
    if !(17..=MAX_PAYLOAD_WORD_BITS).contains(&pw) {
        return Err(format!("payload memory 2^{pw} words: 2^17..=2^{MAX_PAYLOAD_WORD_BITS} (page numbers are 13 bits)"));
    }
    if iw > MAX_SLOT_BITS {
        return Err(format!("IW = {iw}: at most {MAX_SLOT_BITS} slot bits"));
    }
    if n != 1 << iw {
        return Err(format!("N = {n} must be 2^IW = {}", 1u64 << iw));
    }
    if !(3..=MAX_BUCKET_BITS).contains(&bb) {
        return Err(format!("BB = {bb}: bucket bits must be 3..={MAX_BUCKET_BITS}"));
    }
    for w in classes.windows(2) {
        if w[0].0 >= w[1].0 {
            return Err(format!("receive size classes must grow: {classes:?}"));
        }
    }
    for c in classes {
        if !(1..=n as u64).contains(&c.1) {
            return Err(format!("receive size class {c:?}: 1..={n} buffers"));
        }
    }
    if classes[0].0 == 0 || classes[3].0 > 64 {
        return Err(format!("receive size class {:?}: a message has 1..=64 packets (bitmap width)", classes[3]));
    }
    let base = class_base_pages(classes);
    let pages = base[3] + classes[3].0 * classes[3].1;
    if pages > payload_pages(pw) {
        return Err(format!("receive size classes {classes:?} need {pages} pages, the payload memory has {}", payload_pages(pw)));
    }
    Ok(())
}

/// The GetRxMsgInfo table for `N = 2^IW` messages with two ways of `2^BB` two-entry buckets.
#[ports(
    in clock: Clock;
    in reset, release_valid, release_delivered: Bit;
    out resp_valid, resp_fail, resp_is_new_msg, resp_announce_new_msg, resp_is_new_pkt, resp_is_last_pkt, sched_valid,
    release_ready: Bit;
    out resp_fail_reason: Bits<3>;
    out resp_rx_msg_id, resp_msg_len, resp_page: Bits<16>;
    out resp_ack_no: Bits<9>;
    out resp_key: Bits<64>;
    out sched_slot: Bits<IW>;
    out sched_gen: Bits<8>;
    in release_slot: Bits<IW>;
    out free_lists_full: Bits<5>;
)]
#[registers(
    live: Bits<N>;
    /// Slots whose generation was written since power-up (not reset: generations carry on).
    gen_known: Bits<N>;
    init_done, phase_b: Bit;
    init_ptr: Bits<BB>;
    /// Cycle C of an operation: its decision (registered in cycle B) is applied.
    phase_c: Bit;
    op_release, s_mark, s_peek: Bit;
    s_key: Bits<64>;
    s_len: Bits<16>;
    s_off: Bits<8>;
    /// The request's packet count and "offset beyond it", worked out in cycle A from the
    /// request's fields, so cycle B's decision has no adder or compare in front of it.
    s_pkts: Bits<17>;
    s_off_beyond: Bit;
    /// Per size class, whether its buffers hold the request's `msg_len` (cycle A).
    s_fits: Bits<4>;
    s_h0, s_h1: Bits<BB>;
    s_rel_slot: Bits<IW>;
    s_rel_delivered, r_valid, r_fail, r_new_msg, r_announce, r_new_pkt, r_last: Bit;
    r_reason: Bits<3>;
    r_rx_msg_id: Bits<16>;
    r_ack: Bits<9>;
    /// The response's missing packets: `resp_ack_no` is their first, found from this register
    /// in cycle C (the find-first-set is not in series with the key compare).
    r_missing: Bits<64>;
    r_ack_missing, r_sched: Bit;
    r_page: Bits<16>;
    r_sched_slot: Bits<IW>;
    r_sched_gen: Bits<8>;
    /// The ID free list's offer, registered like the classes' (the list changes only at the end
    /// of cycles B and C, so cycle C takes exactly the ID registered in cycle A).
    id_offer_valid: Bit;
    id_offer: Bits<IW>;
    /// Whether the slot a release names holds a message, read in cycle A (`live` changes only at
    /// the end of cycles B and C).
    s_rel_live: Bit;
    /// Cycle B's decision, registered and applied in cycle C. The delivered set's answer
    /// (`found`, late in cycle B) goes straight into `ap_found`, so no decision waits for it.
    ap_found: Bit;
    /// The request missed (a late duplicate if `ap_found`).
    ap_miss: Bit;
    /// The request allocates unless it is a late duplicate.
    ap_alloc: Bit;
    /// The allocation's size class, one-hot.
    ap_class: Bits<4>;
    /// An update or a release writes the entry RAM.
    ap_write: Bit;
    ap_wr_way, ap_wr_pos, ap_duplicate, ap_fallback: Bit;
    ap_wr_bucket: Bits<BB>;
    ap_wr_data: Bits<164>;
    ap_slot: Bits<IW>;
    ap_gen: Bits<8>;
    ap_info: Bits<88>;
    /// The response as it leaves (registered in cycle C from the `r_*` registers).
    o_valid: Bit;
    o_fail, o_new_msg, o_announce, o_new_pkt, o_last, o_sched: Bit;
    o_reason: Bits<3>;
    o_rx_msg_id, o_page: Bits<16>;
    o_ack: Bits<9>;
    o_sched_slot: Bits<IW>;
    o_sched_gen: Bits<8>;
)]
#[locals(
    op_ready, take_release, take_request, do_request, do_release, hit_found, hit_way, hit_pos, hit_len_ok: Bit;
    req_key: Bits<64>;
    h0, h1: Bits<BB>;
    hit_entry: Bits<164>;
    hit_slot: Bits<IW>;
    hit_gen: Bits<8>;
    req_pkts: Bits<17>;
    /// The packet count of the request at the input (cycle A).
    a_pkts: Bits<17>;
    sel_pkts: Bits<7>;
    sel_bitmap, bitmap_after, pkt_mask, missing: Bits<64>;
    off6: Bits<6>;
    was_complete, new_way, new_pos, bucket_full: Bit;
    used0, used1: Bits<2>;
    /// A late duplicate is being answered (cycle C).
    late_duplicate: Bit;
    reason: Bits<3>;
    /// A miss's fail reason, decided without the delivered set's answer (which only says
    /// whether a miss is a late duplicate), so the answer meets the decision at its end.
    miss_reason: Bits<3>;
    do_update: Bit;
    /// The request allocates unless the delivered set finds its key (cycle B).
    alloc_ok: Bit;
    /// The allocation happens (cycle C).
    do_alloc: Bit;
    new_slot, rel_index: Bits<IW>;
    new_gen: Bits<8>;
    new_entry, upd_entry, wr_data: Bits<164>;
    wr_way, wr_pos, wr_enable: Bit;
    wr_bucket: Bits<BB>;
    rel_info: Bits<88>;
    rel_class: Bits<2>;
    live_set: Bits<N>;
)]
#[derive(LogicBlock, Blank)]
pub struct GetRxMsgInfo<const N: usize, const IW: usize, const BB: usize> {
    pub req: RxMsgInfoRequestSink,
    /// The status counters (`counters$fail_zero_len_count`, … in the Verilog).
    pub counters: RxMsgInfoCountersSource,
    // Entry RAMs, way × position; entry = {bitmap 64, msg_len 16, gen 8, slot 10, key 64, valid}.
    e00: RAM<Bits<164>, BB>,
    e01: RAM<Bits<164>, BB>,
    e10: RAM<Bits<164>, BB>,
    e11: RAM<Bits<164>, BB>,
    // Per slot: {index 10, class 2, location 12 = {way, bucket 10, position}, key 64}.
    slot_info: RAM<Bits<88>, IW>,
    slot_gen: RAM<Bits<8>, IW>,
    hash: KeyHash<BB>,
    /// Keys of the messages delivered within the horizon.
    delivered: DeliveredSet<DELIVERED_SET_BUCKET_BITS>,
    ids: FreeList<N, IW>,
    /// The size-class buffers: what fits, the class chosen, its buffer and page.
    buffers: RxBufferClasses<N, IW>,
    c_zero_len: WrappingCounter<32>,
    c_too_long: WrappingCounter<32>,
    c_bad_offset: WrappingCounter<32>,
    c_len_mismatch: WrappingCounter<32>,
    c_no_id: WrappingCounter<32>,
    c_no_buffer: WrappingCounter<32>,
    c_bucket_full: WrappingCounter<32>,
    c_duplicate: WrappingCounter<32>,
    c_recent: WrappingCounter<32>,
    c_fallback: WrappingCounter<32>,
    max_msg_len: Constant<Bits<17>>,
    last_bucket: Constant<Bits<BB>>,
    slot_shift: Constant<Bits<4>>,
    /// Generations wrap within `min(8, 15 − IW)` bits, so `rx_msg_id` never reaches bit 15 (NONE).
    gen_mask: Constant<Bits<8>>,
    bitmap_lane: Constant<Bits<164>>,
    all_ones64: Constant<Bits<64>>,
    /// The first packet not received: the ack number of a partial message.
    missing_ffs: FindFirstSet<64, 6>,
    /// One-hot masks of the slot allocated and the slot released.
    alloc_mask: OneHot<N, IW>,
    release_mask: OneHot<N, IW>,
}

impl<const N: usize, const IW: usize, const BB: usize> GetRxMsgInfo<N, IW, BB> {
    /// A table with the given size classes `(pages per buffer, buffers)`; panics with a
    /// one-line message when a parameter is out of range ([`check_parameters`]).
    pub fn new(classes: [(u64, u64); 4]) -> Self {
        check_parameters(IW, N, BB, MAX_PAYLOAD_WORD_BITS, &classes);
        Self {
            delivered: DeliveredSet::new(DEFAULT_HORIZON_CYCLES),
            buffers: RxBufferClasses::new(classes),
            max_msg_len: Constant::new((classes[3].0 * PAGE_BYTES).to_bits()),
            last_bucket: Constant::new(((1u64 << BB) - 1).to_bits()),
            slot_shift: Constant::new((IW as u64).to_bits()),
            gen_mask: Constant::new(((1u64 << RX_GEN_BITS.min(15 - IW)) - 1).to_bits()),
            bitmap_lane: Constant::new((u64::MAX as u128).to_bits::<164>() << 99),
            all_ones64: Constant::new(Bits::<64>::mask()),
            ..Self::blank()
        }
    }
}

impl<const N: usize, const IW: usize, const BB: usize> Logic for GetRxMsgInfo<N, IW, BB> {
    #[status_counters]
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            id_offer_valid,
            id_offer,
            s_rel_live,
            live,
            gen_known,
            init_done,
            init_ptr,
            phase_b,
            phase_c,
            op_release,
            s_mark,
            s_peek,
            s_key,
            s_len,
            s_off,
            s_pkts,
            s_off_beyond,
            s_fits,
            s_h0,
            s_h1,
            s_rel_slot,
            s_rel_delivered,
            r_valid,
            r_fail,
            r_reason,
            r_rx_msg_id,
            r_new_msg,
            r_announce,
            r_new_pkt,
            r_last,
            r_ack,
            r_missing,
            r_ack_missing,
            r_page,
            r_sched,
            r_sched_slot,
            r_sched_gen,
            ap_found,
            ap_miss,
            ap_alloc,
            ap_class,
            ap_write,
            ap_wr_way,
            ap_wr_pos,
            ap_wr_bucket,
            ap_wr_data,
            ap_slot,
            ap_gen,
            ap_info,
            ap_duplicate,
            ap_fallback,
            o_valid,
            o_fail,
            o_reason,
            o_rx_msg_id,
            o_new_msg,
            o_announce,
            o_new_pkt,
            o_last,
            o_ack,
            o_page,
            o_sched,
            o_sched_slot,
            o_sched_gen
        );
        status_counters!(
            self,
            clock,
            reset,
            c_bad_offset => counters.fail_bad_offset_count,
            c_bucket_full => counters.fail_bucket_full_count,
            c_duplicate => counters.duplicate_count,
            c_fallback => counters.class_fallback_count,
            c_len_mismatch => counters.fail_len_mismatch_count,
            c_no_buffer => counters.fail_no_buffer_count,
            c_no_id => counters.fail_no_id_count,
            c_recent => counters.recent_duplicate_count,
            c_too_long => counters.fail_too_long_count,
            c_zero_len => counters.fail_zero_len_count,
        );
        clock!(self, clock, ids, buffers, delivered);
        self.delivered.reset.next = self.reset.val();
        self.counters.full_wait_count.next = self.delivered.full_wait_count.val();
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
        self.buffers.reset.next = self.reset.val();

        // The response registered in cycle B assumes the request is not a late duplicate; in
        // cycle C the registered answer of the delivered set turns it into one, and the answer
        // is registered again, so every response port comes from a flip-flop.
        self.late_duplicate.next = self.ap_miss.q.val() & self.ap_found.q.val();
        self.o_valid.d.next = self.r_valid.q.val();
        self.o_fail.d.next = self.r_fail.q.val() & (!self.late_duplicate.val());
        self.o_reason.d.next = self.r_reason.q.val();
        self.o_rx_msg_id.d.next = self.r_rx_msg_id.q.val();
        if self.late_duplicate.val() {
            self.o_reason.d.next = 0.into();
            self.o_rx_msg_id.d.next = 0x8000.into();
        }
        self.o_new_msg.d.next = self.r_new_msg.q.val() & (!self.late_duplicate.val());
        self.o_announce.d.next = self.r_announce.q.val() & (!self.late_duplicate.val());
        self.o_new_pkt.d.next = self.r_new_pkt.q.val() & (!self.late_duplicate.val());
        self.o_last.d.next = self.r_last.q.val() | self.late_duplicate.val();
        self.missing_ffs.bitmap.next = self.r_missing.q.val();
        self.o_ack.d.next = 0.into();
        if self.late_duplicate.val() {
            self.o_ack.d.next = self.r_ack.q.val();
        } else if self.r_ack_missing.q.val() {
            self.o_ack.d.next = bit_cast::<9, 6>(self.missing_ffs.index.val());
        }
        self.o_page.d.next = self.r_page.q.val();
        self.o_sched.d.next = self.r_sched.q.val() & (!self.late_duplicate.val());
        self.o_sched_slot.d.next = self.r_sched_slot.q.val();
        self.o_sched_gen.d.next = self.r_sched_gen.q.val();
        self.resp_valid.next = self.o_valid.q.val();
        self.resp_fail.next = self.o_fail.q.val();
        self.resp_fail_reason.next = self.o_reason.q.val();
        self.resp_rx_msg_id.next = self.o_rx_msg_id.q.val();
        self.resp_is_new_msg.next = self.o_new_msg.q.val();
        self.resp_announce_new_msg.next = self.o_announce.q.val();
        self.resp_is_new_pkt.next = self.o_new_pkt.q.val();
        self.resp_is_last_pkt.next = self.o_last.q.val();
        self.resp_ack_no.next = self.o_ack.q.val();
        self.resp_key.next = self.s_key.q.val();
        self.resp_msg_len.next = self.s_len.q.val();
        self.resp_page.next = self.o_page.q.val();
        self.sched_valid.next = self.o_sched.q.val();
        self.sched_slot.next = self.o_sched_slot.q.val();
        self.sched_gen.next = self.o_sched_gen.q.val();
        self.free_lists_full.next = bit_cast::<5, 1>(self.ids.full.val().into()) | (bit_cast::<5, 4>(self.buffers.full.val()) << 1);

        // ---- Cycle A: accept an operation, read the RAMs.
        self.req_key.next = ((bit_cast::<64, 16>(self.req.tx_msg_id.val()) << 48) | (bit_cast::<64, 16>(self.req.src_port.val()) << 32))
            | bit_cast::<64, 32>(self.req.src_ip.val());
        self.hash.key.next = self.req_key.val();
        self.h0.next = self.hash.h0.val();
        self.h1.next = self.hash.h1.val();
        // The delivered set takes part in every operation, so it must be ready too.
        self.op_ready.next = ((self.init_done.q.val() & (!self.phase_b.q.val())) & (!self.phase_c.q.val())) & self.delivered.ready.val();
        self.take_release.next = self.op_ready.val() & self.release_valid.val();
        self.take_request.next = (self.op_ready.val() & self.req.valid.val()) & (!self.release_valid.val());
        self.release_ready.next = self.op_ready.val();
        self.req.ready.next = self.op_ready.val() & (!self.release_valid.val());
        self.delivered.lookup_valid.next = self.take_request.val();
        self.delivered.lookup_key.next = self.req_key.val();
        self.phase_b.d.next = self.take_release.val() | self.take_request.val();
        self.phase_c.d.next = self.phase_b.q.val();
        self.a_pkts.next = (bit_cast::<17, 16>(self.req.msg_len.val()) + 1023) >> 10;
        self.buffers.msg_len.next = self.req.msg_len.val();
        if self.take_release.val() | self.take_request.val() {
            self.op_release.d.next = self.take_release.val();
            self.s_mark.d.next = self.req.mark_received.val();
            self.s_peek.d.next = self.req.peek.val();
            self.s_key.d.next = self.req_key.val();
            self.s_len.d.next = self.req.msg_len.val();
            self.s_off.d.next = self.req.pkt_offset.val();
            self.s_pkts.d.next = self.a_pkts.val();
            self.s_off_beyond.d.next = bit_cast::<17, 8>(self.req.pkt_offset.val()) >= self.a_pkts.val();
            self.s_fits.d.next = self.buffers.fits.val();
            self.s_h0.d.next = self.h0.val();
            self.s_h1.d.next = self.h1.val();
            self.s_rel_slot.d.next = self.release_slot.val();
            self.s_rel_delivered.d.next = self.release_delivered.val();
            self.s_rel_live.d.next = self.live.q.val().get_bit(self.release_slot.val().index());
        }
        self.e00.read_address.next = self.h0.val();
        self.e01.read_address.next = self.h0.val();
        self.e10.read_address.next = self.h1.val();
        self.e11.read_address.next = self.h1.val();
        self.slot_info.read_address.next = self.release_slot.val();
        self.slot_gen.read_address.next = self.ids.alloc_id.val();
        self.id_offer_valid.d.next = self.ids.alloc_valid.val();
        self.id_offer.d.next = self.ids.alloc_id.val();

        // ---- Cycle B: compare the four candidates on the full key.
        self.do_request.next = self.phase_b.q.val() & (!self.op_release.q.val());
        self.do_release.next = (self.phase_b.q.val() & self.op_release.q.val()) & self.s_rel_live.q.val();
        self.hit_found.next = false;
        self.hit_entry.next = self.e00.read_data.val();
        self.hit_way.next = false;
        self.hit_pos.next = false;
        // The hit's length check is made on every entry beside its key compare, not after the
        // hit's selection.
        self.hit_len_ok.next = false;
        if self.e00.read_data.val().get_bit(0) & (self.e00.read_data.val().get_bits::<64>(1) == self.s_key.q.val()) {
            self.hit_found.next = true;
            self.hit_len_ok.next = self.e00.read_data.val().get_bits::<16>(83) == self.s_len.q.val();
        }
        if self.e01.read_data.val().get_bit(0) & (self.e01.read_data.val().get_bits::<64>(1) == self.s_key.q.val()) {
            self.hit_found.next = true;
            self.hit_entry.next = self.e01.read_data.val();
            self.hit_len_ok.next = self.e01.read_data.val().get_bits::<16>(83) == self.s_len.q.val();
            self.hit_pos.next = true;
        }
        if self.e10.read_data.val().get_bit(0) & (self.e10.read_data.val().get_bits::<64>(1) == self.s_key.q.val()) {
            self.hit_found.next = true;
            self.hit_entry.next = self.e10.read_data.val();
            self.hit_len_ok.next = self.e10.read_data.val().get_bits::<16>(83) == self.s_len.q.val();
            self.hit_way.next = true;
        }
        if self.e11.read_data.val().get_bit(0) & (self.e11.read_data.val().get_bits::<64>(1) == self.s_key.q.val()) {
            self.hit_found.next = true;
            self.hit_entry.next = self.e11.read_data.val();
            self.hit_len_ok.next = self.e11.read_data.val().get_bits::<16>(83) == self.s_len.q.val();
            self.hit_way.next = true;
            self.hit_pos.next = true;
        }
        self.hit_slot.next = self.hit_entry.val().get_bits::<IW>(65);
        self.hit_gen.next = self.hit_entry.val().get_bits::<8>(75);
        self.req_pkts.next = self.s_pkts.q.val();
        // The delivered set's answer only says whether a miss is a late duplicate: registered
        // as it is, it meets the decision in cycle C.
        self.ap_found.d.next = self.delivered.found.val();
        self.ap_miss.d.next = self.do_request.val() & (!self.hit_found.val());
        // The request's packet count serves a hit too: an update needs equal lengths.
        self.sel_pkts.next = bit_cast::<7, 17>(self.req_pkts.val());
        self.sel_bitmap.next = 0.into();
        if self.hit_found.val() {
            self.sel_bitmap.next = self.hit_entry.val().get_bits::<64>(99);
        }
        self.off6.next = self.s_off.q.val().get_bits::<6>(0);
        self.bitmap_after.next = self.sel_bitmap.val();
        if self.s_mark.q.val() {
            self.bitmap_after.next = self.sel_bitmap.val().replace_bit(self.off6.val().index(), true);
        }
        self.pkt_mask.next = !(self.all_ones64.val() << self.sel_pkts.val());
        self.missing.next = !self.bitmap_after.val();
        self.was_complete.next = self.sel_bitmap.val() == self.pkt_mask.val();

        // d-left placement: the less occupied candidate bucket, way 0 on a tie.
        self.used0.next =
            bit_cast::<2, 1>(self.e00.read_data.val().get_bit(0).into()) + bit_cast::<2, 1>(self.e01.read_data.val().get_bit(0).into());
        self.used1.next =
            bit_cast::<2, 1>(self.e10.read_data.val().get_bit(0).into()) + bit_cast::<2, 1>(self.e11.read_data.val().get_bit(0).into());
        self.new_way.next = self.used1.val() < self.used0.val();
        self.new_pos.next = self.e00.read_data.val().get_bit(0);
        if self.new_way.val() {
            self.new_pos.next = self.e10.read_data.val().get_bit(0);
        }
        self.bucket_full.next = (self.used0.val() == 2) & (self.used1.val() == 2);

        // Size class: the smallest that fits and has a free buffer.
        self.buffers.request_fits.next = self.s_fits.q.val();
        // Decision.
        self.miss_reason.next = 0.into();
        if self.s_len.q.val() == 0 {
            self.miss_reason.next = 1.into();
        } else if bit_cast::<17, 16>(self.s_len.q.val()) > self.max_msg_len.val() {
            self.miss_reason.next = 2.into();
        } else if self.s_off_beyond.q.val() {
            self.miss_reason.next = 3.into();
        } else if !self.id_offer_valid.q.val() {
            self.miss_reason.next = 5.into();
        } else if self.bucket_full.val() {
            self.miss_reason.next = 7.into();
        } else if self.buffers.exhausted.val() {
            self.miss_reason.next = 6.into();
        }
        self.reason.next = 0.into();
        if self.hit_found.val() {
            // With equal lengths the hit's packet count is the request's.
            if !self.hit_len_ok.val() {
                self.reason.next = 4.into();
            } else if self.s_off_beyond.q.val() {
                self.reason.next = 3.into();
            }
        } else {
            self.reason.next = self.miss_reason.val();
        }
        self.do_update.next = (self.do_request.val() & self.hit_found.val()) & (self.reason.val() == 0);
        // Allocates in cycle C unless the delivered set found the key.
        self.alloc_ok.next = (self.do_request.val() & (!self.hit_found.val())) & (self.miss_reason.val() == 0);
        self.ap_alloc.d.next = self.alloc_ok.val();
        self.ap_class.d.next = bit_cast::<4, 1>(true.into()) << bit_cast::<4, 2>(self.buffers.chosen.val());
        self.ap_fallback.d.next = self.alloc_ok.val() & self.buffers.fallback.val();
        self.ap_duplicate.d.next = self.do_update.val() & self.sel_bitmap.val().get_bit(self.off6.val().index());
        self.new_slot.next = self.id_offer.q.val();
        // A slot whose generation was never written starts from 0 (its RAM word is not relied on).
        self.new_gen.next = 1.into();
        if self.gen_known.q.val().get_bit(self.new_slot.val().index()) {
            self.new_gen.next = (self.slot_gen.read_data.val() + 1) & self.gen_mask.val();
        }
        self.new_entry.next = (((((bit_cast::<164, 64>(self.bitmap_after.val()) << 99)
            | (bit_cast::<164, 16>(self.s_len.q.val()) << 83))
            | (bit_cast::<164, 8>(self.new_gen.val()) << 75))
            | (bit_cast::<164, IW>(self.new_slot.val()) << 65))
            | ((bit_cast::<164, 64>(self.s_key.q.val()) << 1) | 1))
            | (bit_cast::<164, 1>((!self.s_peek.q.val()).into()) << 163);
        self.upd_entry.next = ((self.hit_entry.val() & (!self.bitmap_lane.val())) | (bit_cast::<164, 64>(self.bitmap_after.val()) << 99))
            | (bit_cast::<164, 1>((!self.s_peek.q.val()).into()) << 163);

        // Release: slot info read in cycle A; the entry is cleared, ID and buffer freed.
        self.rel_info.next = self.slot_info.read_data.val();
        self.rel_class.next = self.rel_info.val().get_bits::<2>(76);
        self.rel_index.next = self.rel_info.val().get_bits::<IW>(78);
        self.ids.free_valid.next = self.do_release.val();
        self.ids.free_id.next = self.s_rel_slot.q.val();
        self.buffers.free_valid.next = self.do_release.val();
        self.buffers.free_class.next = self.rel_class.val();
        self.buffers.free_index.next = self.rel_index.val();
        // A delivered message's key enters the delivered set (the set holds the next cycle).
        self.delivered.insert_valid.next = self.do_release.val() & self.s_rel_delivered.q.val();
        self.delivered.insert_key.next = self.rel_info.val().get_bits::<64>(0);

        // Entry RAM write place and data (cycle B): update, allocation or release (clear).
        self.wr_way.next = self.hit_way.val();
        self.wr_pos.next = self.hit_pos.val();
        self.wr_bucket.next = self.s_h0.q.val();
        if self.hit_way.val() {
            self.wr_bucket.next = self.s_h1.q.val();
        }
        self.wr_data.next = self.upd_entry.val();
        // A request that misses writes only when it allocates, at the place the miss chose.
        if !self.hit_found.val() {
            self.wr_way.next = self.new_way.val();
            self.wr_pos.next = self.new_pos.val();
            self.wr_bucket.next = self.s_h0.q.val();
            if self.new_way.val() {
                self.wr_bucket.next = self.s_h1.q.val();
            }
            self.wr_data.next = self.new_entry.val();
        }
        if self.do_release.val() {
            self.wr_way.next = self.rel_info.val().get_bit(75);
            self.wr_pos.next = self.rel_info.val().get_bit(64);
            self.wr_bucket.next = self.rel_info.val().get_bits::<BB>(65);
            self.wr_data.next = 0.into();
        }
        self.ap_write.d.next = self.do_update.val() | self.do_release.val();
        self.ap_wr_way.d.next = self.wr_way.val();
        self.ap_wr_pos.d.next = self.wr_pos.val();
        self.ap_wr_bucket.d.next = self.wr_bucket.val();
        self.ap_wr_data.d.next = self.wr_data.val();
        // Slot state written on allocation: {index, class, location, key}; generation.
        self.ap_slot.d.next = self.new_slot.val();
        self.ap_gen.d.next = self.new_gen.val();
        self.ap_info.d.next = (((bit_cast::<88, IW>(self.buffers.chosen_index.val()) << 78)
            | (bit_cast::<88, 2>(self.buffers.chosen.val()) << 76))
            | (((bit_cast::<88, 1>(self.new_way.val().into()) << 75) | (bit_cast::<88, BB>(self.wr_bucket.val()) << 65))
                | (bit_cast::<88, 1>(self.new_pos.val().into()) << 64)))
            | bit_cast::<88, 64>(self.s_key.q.val());

        // Response (registered: valid the cycle after B), as if the request were not a late
        // duplicate; the outputs turn it into one in cycle C.
        self.r_valid.d.next = self.do_request.val();
        self.r_fail.d.next = self.reason.val() != 0;
        self.r_reason.d.next = self.reason.val();
        self.r_rx_msg_id.d.next = 0x8000.into();
        if self.do_update.val() {
            self.r_rx_msg_id.d.next =
                (bit_cast::<16, 8>(self.hit_gen.val()) << self.slot_shift.val()) | bit_cast::<16, IW>(self.hit_slot.val());
        }
        if self.alloc_ok.val() {
            self.r_rx_msg_id.d.next =
                (bit_cast::<16, 8>(self.new_gen.val()) << self.slot_shift.val()) | bit_cast::<16, IW>(self.new_slot.val());
        }
        self.r_new_msg.d.next = self.alloc_ok.val();
        // The first request for this message that is not a peek announces it.
        self.r_announce.d.next =
            (!self.s_peek.q.val()) & (self.alloc_ok.val() | (self.do_update.val() & (!self.hit_entry.val().get_bit(163))));
        self.r_page.d.next = self.buffers.chosen_page.val();
        self.r_new_pkt.d.next = (self.do_update.val() | self.alloc_ok.val()) & (!self.sel_bitmap.val().get_bit(self.off6.val().index()));
        self.r_last.d.next = (self.do_update.val() | self.alloc_ok.val()) & (self.bitmap_after.val() == self.pkt_mask.val());
        // A late duplicate's ack number: the request's packet count.
        self.r_ack.d.next = bit_cast::<9, 17>(self.req_pkts.val());
        self.r_missing.d.next = self.missing.val();
        self.r_ack_missing.d.next = self.do_update.val() | self.alloc_ok.val();
        self.r_sched.d.next = self.alloc_ok.val() | (self.do_update.val() & (!self.was_complete.val()));
        self.r_sched_slot.d.next = self.hit_slot.val();
        self.r_sched_gen.d.next = self.hit_gen.val();
        if self.alloc_ok.val() {
            self.r_sched_slot.d.next = self.new_slot.val();
            self.r_sched_gen.d.next = self.new_gen.val();
        }

        // ---- Cycle C: apply the decision registered in cycle B. Only an allocation waits for
        // the delivered set's answer.
        self.do_alloc.next = self.ap_alloc.q.val() & (!self.ap_found.q.val());
        self.ids.alloc_ready.next = self.do_alloc.val();
        self.buffers.take.next = self.do_alloc.val();
        self.buffers.take_class.next = self.ap_class.q.val();
        // Entry RAM write: update, allocation, release (clear) or init sweep.
        self.wr_enable.next = self.ap_write.q.val() | self.do_alloc.val();
        self.e00.write_address.next = self.ap_wr_bucket.q.val();
        self.e01.write_address.next = self.ap_wr_bucket.q.val();
        self.e10.write_address.next = self.ap_wr_bucket.q.val();
        self.e11.write_address.next = self.ap_wr_bucket.q.val();
        self.e00.write_data.next = self.ap_wr_data.q.val();
        self.e01.write_data.next = self.ap_wr_data.q.val();
        self.e10.write_data.next = self.ap_wr_data.q.val();
        self.e11.write_data.next = self.ap_wr_data.q.val();
        self.e00.write_enable.next = (self.wr_enable.val() & (!self.ap_wr_way.q.val())) & (!self.ap_wr_pos.q.val());
        self.e01.write_enable.next = (self.wr_enable.val() & (!self.ap_wr_way.q.val())) & self.ap_wr_pos.q.val();
        self.e10.write_enable.next = (self.wr_enable.val() & self.ap_wr_way.q.val()) & (!self.ap_wr_pos.q.val());
        self.e11.write_enable.next = (self.wr_enable.val() & self.ap_wr_way.q.val()) & self.ap_wr_pos.q.val();
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
            if self.init_ptr.q.val() == self.last_bucket.val() {
                self.init_done.d.next = true;
            }
        }
        self.slot_info.write_address.next = self.ap_slot.q.val();
        self.slot_info.write_data.next = self.ap_info.q.val();
        self.slot_info.write_enable.next = self.do_alloc.val();
        self.slot_gen.write_address.next = self.ap_slot.q.val();
        self.slot_gen.write_data.next = self.ap_gen.q.val();
        self.slot_gen.write_enable.next = self.do_alloc.val();
        // Live slots: an allocation (cycle C) sets, a release (cycle B) clears, as one-hot masks
        // (no runtime-indexed update of the vector).
        self.alloc_mask.index.next = self.ap_slot.q.val();
        self.alloc_mask.enable.next = self.do_alloc.val();
        self.release_mask.index.next = self.s_rel_slot.q.val();
        self.release_mask.enable.next = self.do_release.val();
        self.live_set.next = self.live.q.val() | self.alloc_mask.onehot.val();
        self.gen_known.d.next = self.gen_known.q.val() | self.alloc_mask.onehot.val();
        self.live.d.next = self.live_set.val() & (!self.release_mask.onehot.val());

        // Counters, from the response registered in cycle B and the delivered set's answer.
        if self.r_valid.q.val() & (!self.late_duplicate.val()) {
            if self.r_reason.q.val() == 1 {
                self.c_zero_len.increment.next = true;
            }
            if self.r_reason.q.val() == 2 {
                self.c_too_long.increment.next = true;
            }
            if self.r_reason.q.val() == 3 {
                self.c_bad_offset.increment.next = true;
            }
            if self.r_reason.q.val() == 4 {
                self.c_len_mismatch.increment.next = true;
            }
            if self.r_reason.q.val() == 5 {
                self.c_no_id.increment.next = true;
            }
            if self.r_reason.q.val() == 6 {
                self.c_no_buffer.increment.next = true;
            }
            if self.r_reason.q.val() == 7 {
                self.c_bucket_full.increment.next = true;
            }
        }
        if self.ap_duplicate.q.val() {
            self.c_duplicate.increment.next = true;
        }
        if self.late_duplicate.val() {
            self.c_recent.increment.next = true;
        }
        if self.ap_fallback.q.val() & (!self.ap_found.q.val()) {
            self.c_fallback.increment.next = true;
        }

        if self.reset.val() {
            self.live.d.next = 0.into();
            self.init_done.d.next = false;
            self.init_ptr.d.next = 0.into();
            self.phase_b.d.next = false;
            self.phase_c.d.next = false;
            self.ap_miss.d.next = false;
            self.ap_alloc.d.next = false;
            self.ap_write.d.next = false;
            self.ap_duplicate.d.next = false;
            self.ap_fallback.d.next = false;
            self.r_valid.d.next = false;
            self.r_sched.d.next = false;
            self.o_valid.d.next = false;
            self.o_sched.d.next = false;
            self.ids.alloc_ready.next = false;
            self.ids.free_valid.next = false;
            self.slot_info.write_enable.next = false;
            self.slot_gen.write_enable.next = false;
            self.gen_known.d.next = self.gen_known.q.val();
        }
    }
}

impl<const N: usize, const IW: usize, const BB: usize> Default for GetRxMsgInfo<N, IW, BB> {
    /// The preset size classes of this size ([`rx_classes_for`]).
    fn default() -> Self {
        Self::new(rx_classes_for(N))
    }
}
