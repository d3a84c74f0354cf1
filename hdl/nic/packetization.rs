//! Packetization core (thesis §3.2.4, Algorithms 2–4): per-message transmit state, the three
//! events, and the choice of the next packet to send.
//!
//! Each of the `N` message slots holds, in flip-flops (flat `Bits`, one 64-bit slice per slot):
//! `deliveredBitmap`, `txBitmap`, `rtxPending` (packets a timeout ordered out, sent regardless of
//! credit, as Algorithm 4's `Emit`), the effective credit mask (`OnesUntil(credit)`, or zero while
//! a CreditTxEvent withheld transmission with `allowTxFlag = 0`), `credit`, the packet count,
//! `maxTxPktOffset + 1` (0 = nothing sent yet), `timeoutCnt`, the current `tx_msg_id`, and the
//! message's addressing metadata (remote_ip, remote_port, local_port, msg_len, rank).
//!
//! Slot slices of the 1024-bit state words are read by masking with the slot's mask (decoded
//! one-hot, widened by doubling) and folding the 16 slices onto one, and written by replicating
//! the new 64-bit value into every slice and masking: constant shifts only, no barrel shifters.
//! (These steps are written for 16 slots; 128 slots need a memory-based state.)
//!
//! **Credit is an exclusive bound**: offsets strictly below `credit` may be sent. The thesis words
//! it inclusively ("the largest pkt_offset allowed"); we follow the authors' prototype deliberately
//! (and Algorithm 3's `OnesUntil(credit)`, which is exclusive). Credit never exceeds the packet
//! count: a larger value is clamped (counted when it comes from a CreditTxEvent).
//!
//! **tx_msg_id** = slot index in the low `IW` bits, a generation in the rest; the generation
//! advances each time the slot is freed. Every event and every timer expiry is checked against
//! the slot's current ID; a mismatch (unknown, finished or reused message) is counted as stale
//! and changes nothing.
//!
//! # Choosing a packet (fair share of the wire)
//! A packet of slot `m` may go when it is not delivered and either (its `txBitmap` bit is set and
//! its offset is below the effective credit) or (its `rtxPending` bit is set). Messages with such a
//! packet are served **round robin**, one packet per turn, in descending slot order: the highest
//! eligible slot below the last one served, else (wrapping) the highest eligible slot. With `k`
//! messages eligible, each gets one packet in every `k` consecutive choices. Within a message the
//! smallest offset goes first. Sending clears the packet's `txBitmap` and
//! `rtxPending` bits and raises `maxTxPktOffset`. `rank` is the protocol's value from the message
//! descriptor, carried in the metadata for the egress pipeline; it does not change the order here.
//!
//! # Events (each its own interface, one of each per cycle, always accepted)
//! - **DeliveredEvent** (Algorithm 2): `deliveredBitmap |= ackBitmap`; the packets leave
//!   `txBitmap`/`rtxPending`; when every packet is delivered the slot is freed, its timer cancelled
//!   and a completion (delivered) reported. ackBitmap bits at or beyond the packet count are
//!   ignored and counted.
//! - **CreditTxEvent** (Algorithm 3): `rtxFlag` → `txBitmap |= rtxBitmap` (bits beyond the packet
//!   count ignored and counted); `creditUpdateFlag` → credit = `newCredit` (mode **overwrite**) or
//!   `max(credit, newCredit)` (mode **raise-only**, so a late PULL/GRANT never lowers it);
//!   `allowTxFlag = 0` withholds the message's credit-governed packets until a later CreditTxEvent
//!   allows them (Algorithm 3 emits only when `allowTxFlag`).
//! - **TimeoutEvent** (Algorithm 4) from the timer, whose metadata is the tx_msg_id and
//!   `maxTxPktOffset + 1` as of scheduling (`rtx_offset` + 1, 0 = nothing sent yet): first
//!   `timeoutCnt` is updated — reset to 0 if `maxTxPktOffset` advanced since the timer was set
//!   (progress), else incremented (saturating at 255) — and then, if the **updated** count is
//!   `> threshold`, the message is abandoned (freed, completion "abandoned" reported, counted).
//!   So a message that made progress since the timer was set is never abandoned at that expiry,
//!   and one that makes none is abandoned at the `threshold + 1`-th consecutive expiry without
//!   progress. (Progress for the abandon decision is judged from the state at the start of the
//!   expiry's cycle, because the packet choice in that cycle already excludes an abandoned slot;
//!   a packet of the message chosen in that same cycle still resets the kept count.) Otherwise
//!   every non-delivered packet with offset **≤ rtx_offset** (inclusive: a single-packet message
//!   is retransmitted) moves from `txBitmap` to `rtxPending`, and the timer is scheduled again
//!   with the current `maxTxPktOffset`.
//!
//!   **First recovery takes two RTOs** (Algorithm 4 taken literally: `rtx_offset` is the highest
//!   offset sent *as of the time the timer is scheduled*). The write schedules the timer with
//!   metadata 0 ("nothing sent yet"), so the first expiry after the write retransmits nothing;
//!   because packets went out meanwhile it counts as progress (count reset) and reschedules with
//!   the current `maxTxPktOffset + 1`. A lost packet sent before the first expiry is therefore
//!   first retransmitted at the **second** expiry, about 2 × RTO after the write. A message
//!   whose packets are all lost retransmits them at expiries 2, 3, …, `threshold + 1` (count 1 …
//!   `threshold`) and is abandoned at expiry **`threshold + 2`** after the write (count
//!   `threshold + 1`). Measured through tx_path's real timer (RTO 1000 cycles, threshold 2, one
//!   1-byte message never acknowledged): sent 5 cycles after the commit, retransmitted at 2021
//!   and 3029, abandoned at 4033 (test `lost_single_packet_message_retransmission_and_abandon_timing`).
//!
//! # Order within a cycle (defined, tested)
//! Packet choice (from the state at the start of the cycle) → DeliveredEvent → CreditTxEvent →
//! TimeoutEvent → free → message write. Consequences: a packet chosen in the cycle its ACK arrives
//! still goes out (a harmless duplicate); a CreditTxEvent for a message a DeliveredEvent completes
//! in the same cycle is stale; no packet is chosen from a slot freed in that cycle. A timeout is
//! held (not processed) in a cycle where a DeliveredEvent completes a message, so at most one
//! slot is freed per cycle,
//! and a message write waits in a cycle where a timeout is processed (one timer schedule port).
//! Events on consecutive cycles each see the previous cycle's result.
//!
//! # Ports
//! | group | ports | meaning |
//! |---|---|---|
//! | config | `default_credit` 16, `timeout_threshold` 8 | initial credit (BDP in packets, `rtt_pkts`) when the descriptor gives none; abandon threshold |
//! | write | `new_valid`, `new_ready`, `new_slot` IW, `new_remote_ip` 32, `new_remote_port` 16, `new_local_port` 16, `new_msg_len` 16, `new_credit_valid`, `new_credit` 16, `new_rank` 8, `new_tx_msg_id` 16 (out) | install a message in a free slot; its ID is `new_tx_msg_id` |
//! | delivered | `dlv_valid`, `dlv_tx_msg_id` 16, `dlv_ack_bitmap` 64 | Algorithm 2 |
//! | credit | `ctx_valid`, `ctx_tx_msg_id` 16, `ctx_rtx_flag`, `ctx_rtx_bitmap` 64, `ctx_credit_flag`, `ctx_new_credit` 16, `ctx_allow_tx`, `ctx_raise_only` | Algorithm 3 |
//! | timeout in | `to_valid`, `to_ready`, `to_slot` IW, `to_meta` 24 | from the timer: meta = {tx_msg_id 16, maxTxPktOffset+1 8} |
//! | timer out | `sched_valid`, `sched_slot`, `sched_meta` 24, `cancel_valid`, `cancel_slot` | to the timer |
//! | packet out | `pkt_valid`, `pkt_ready`, `pkt_slot`, Listing 3.2: `pkt_remote_ip` 32, `pkt_remote_port` 16, `pkt_msg_len` 16, `pkt_offset` 8, `pkt_local_port` 16, `pkt_tx_msg_id` 16, `pkt_credit` 16, `pkt_rank` 8, `pkt_flags` 8 (DATA), `pkt_is_new_msg`, `pkt_is_rtx` | one packet descriptor, valid/ready |
//! | completion | `done_valid`, `done_slot`, `done_tx_msg_id` 16, `done_abandoned` | one-cycle pulse when a slot is freed |
//! | status | `active` N, 16-bit saturating counters: `stale_delivered_count`, `stale_credit_count`, `stale_timeout_count`, `ack_beyond_count`, `rtx_beyond_count`, `credit_beyond_count`, `write_busy_count`, `delivered_msg_count`, `abandoned_msg_count` | |
//!
//! # Latency and throughput
//! Message write at edge `t` → its first packet descriptor valid after edge `t+1` (one cycle to
//! choose). An event at edge `t` is reflected in the choice made in cycle `t+1`. A timeout is taken
//! into a holding register (1 cycle) and processed in the next cycle in which no DeliveredEvent
//! completes a message (completions need ACKs for every packet of a message and new messages
//! need at least three CPU words, so the wait is short).
//! Throughput: one packet descriptor per cycle.
//!
//! # Reset
//! One cycle of `reset`: every slot free, slot `i`'s first ID is `i`, counters zero.

use rust_hdl::prelude::*;

/// Timer metadata width: tx_msg_id (16) and maxTxPktOffset + 1 (8).
pub const PACKETIZATION_TIMER_META_BITS: usize = 24;
/// Packet flag DATA (DESIGN.md wire format).
pub const FLAG_DATA: u64 = 0x01;

/// Packetization core for `N = 2^IW` messages of at most 64 packets. The flat state widths are
/// `BM = 64·N`, `S8 = 8·N`, `S16 = 16·N`, `S32 = 32·N` (const generics cannot be computed).
#[derive(LogicBlock)]
pub struct Packetization<
    const N: usize,
    const IW: usize,
    const BM: usize,
    const S8: usize,
    const S16: usize,
    const S32: usize,
> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub default_credit: Signal<In, Bits<16>>,
    pub timeout_threshold: Signal<In, Bits<8>>,
    // message write
    pub new_valid: Signal<In, Bit>,
    pub new_ready: Signal<Out, Bit>,
    pub new_slot: Signal<In, Bits<IW>>,
    pub new_remote_ip: Signal<In, Bits<32>>,
    pub new_remote_port: Signal<In, Bits<16>>,
    pub new_local_port: Signal<In, Bits<16>>,
    pub new_msg_len: Signal<In, Bits<16>>,
    pub new_credit_valid: Signal<In, Bit>,
    pub new_credit: Signal<In, Bits<16>>,
    pub new_rank: Signal<In, Bits<8>>,
    pub new_tx_msg_id: Signal<Out, Bits<16>>,
    // DeliveredEvent
    pub dlv_valid: Signal<In, Bit>,
    pub dlv_tx_msg_id: Signal<In, Bits<16>>,
    pub dlv_ack_bitmap: Signal<In, Bits<64>>,
    // CreditTxEvent
    pub ctx_valid: Signal<In, Bit>,
    pub ctx_tx_msg_id: Signal<In, Bits<16>>,
    pub ctx_rtx_flag: Signal<In, Bit>,
    pub ctx_rtx_bitmap: Signal<In, Bits<64>>,
    pub ctx_credit_flag: Signal<In, Bit>,
    pub ctx_new_credit: Signal<In, Bits<16>>,
    pub ctx_allow_tx: Signal<In, Bit>,
    pub ctx_raise_only: Signal<In, Bit>,
    // TimeoutEvent (from the timer)
    pub to_valid: Signal<In, Bit>,
    pub to_ready: Signal<Out, Bit>,
    pub to_slot: Signal<In, Bits<IW>>,
    pub to_meta: Signal<In, Bits<24>>,
    // to the timer
    pub sched_valid: Signal<Out, Bit>,
    pub sched_slot: Signal<Out, Bits<IW>>,
    pub sched_meta: Signal<Out, Bits<24>>,
    pub cancel_valid: Signal<Out, Bit>,
    pub cancel_slot: Signal<Out, Bits<IW>>,
    // packet descriptor (Listing 3.2)
    pub pkt_valid: Signal<Out, Bit>,
    pub pkt_ready: Signal<In, Bit>,
    pub pkt_slot: Signal<Out, Bits<IW>>,
    pub pkt_remote_ip: Signal<Out, Bits<32>>,
    pub pkt_remote_port: Signal<Out, Bits<16>>,
    pub pkt_msg_len: Signal<Out, Bits<16>>,
    pub pkt_offset: Signal<Out, Bits<8>>,
    pub pkt_local_port: Signal<Out, Bits<16>>,
    pub pkt_tx_msg_id: Signal<Out, Bits<16>>,
    pub pkt_credit: Signal<Out, Bits<16>>,
    pub pkt_rank: Signal<Out, Bits<8>>,
    pub pkt_flags: Signal<Out, Bits<8>>,
    pub pkt_is_new_msg: Signal<Out, Bit>,
    pub pkt_is_rtx: Signal<Out, Bit>,
    // completion
    pub done_valid: Signal<Out, Bit>,
    pub done_slot: Signal<Out, Bits<IW>>,
    pub done_tx_msg_id: Signal<Out, Bits<16>>,
    pub done_abandoned: Signal<Out, Bit>,
    // status
    pub active: Signal<Out, Bits<N>>,
    pub stale_delivered_count: Signal<Out, Bits<16>>,
    pub stale_credit_count: Signal<Out, Bits<16>>,
    pub stale_timeout_count: Signal<Out, Bits<16>>,
    pub ack_beyond_count: Signal<Out, Bits<16>>,
    pub rtx_beyond_count: Signal<Out, Bits<16>>,
    pub credit_beyond_count: Signal<Out, Bits<16>>,
    pub write_busy_count: Signal<Out, Bits<16>>,
    pub delivered_msg_count: Signal<Out, Bits<16>>,
    pub abandoned_msg_count: Signal<Out, Bits<16>>,

    // ---- state ----
    valid: DFF<Bits<N>>,
    delivered: DFF<Bits<BM>>,
    tx: DFF<Bits<BM>>,
    rtx_pending: DFF<Bits<BM>>,
    credit_mask: DFF<Bits<BM>>,
    credit: DFF<Bits<S16>>,
    npkts: DFF<Bits<S8>>,
    max_tx_p1: DFF<Bits<S8>>,
    timeout_cnt: DFF<Bits<S8>>,
    ids: DFF<Bits<S16>>,
    remote_ip: DFF<Bits<S32>>,
    remote_port: DFF<Bits<S16>>,
    local_port: DFF<Bits<S16>>,
    msg_len: DFF<Bits<S16>>,
    rank: DFF<Bits<S8>>,
    rr_next: DFF<Bits<IW>>,
    t_pending: DFF<Bit>,
    t_slot: DFF<Bits<IW>>,
    t_meta: DFF<Bits<24>>,
    out_valid: DFF<Bit>,
    out_slot: DFF<Bits<IW>>,
    out_remote_ip: DFF<Bits<32>>,
    out_remote_port: DFF<Bits<16>>,
    out_msg_len: DFF<Bits<16>>,
    out_offset: DFF<Bits<8>>,
    out_local_port: DFF<Bits<16>>,
    out_tx_msg_id: DFF<Bits<16>>,
    out_credit: DFF<Bits<16>>,
    out_rank: DFF<Bits<8>>,
    out_is_new_msg: DFF<Bit>,
    out_is_rtx: DFF<Bit>,
    cnt_stale_dlv: DFF<Bits<16>>,
    cnt_stale_ctx: DFF<Bits<16>>,
    cnt_stale_to: DFF<Bits<16>>,
    cnt_ack_beyond: DFF<Bits<16>>,
    cnt_rtx_beyond: DFF<Bits<16>>,
    cnt_credit_beyond: DFF<Bits<16>>,
    cnt_write_busy: DFF<Bits<16>>,
    cnt_delivered: DFF<Bits<16>>,
    cnt_abandoned: DFF<Bits<16>>,

    // ---- combinational helpers ----
    ones8: Constant<Bits<S8>>,
    ones16: Constant<Bits<S16>>,
    ones32: Constant<Bits<S32>>,
    all_ones_n: Constant<Bits<N>>,
    all_zero_n: Constant<Bits<N>>,
    id_step: Constant<Bits<16>>,
    initial_ids: Constant<Bits<S16>>,
    ones64: Constant<Bits<64>>,
    one_flat: Constant<Bits<BM>>,
    sel_index: Signal<Local, Bits<6>>,
    d_pkt_mask: Signal<Local, Bits<64>>,
    c_pkt_mask: Signal<Local, Bits<64>>,
    c_credit_mask: Signal<Local, Bits<64>>,
    t_rtx_mask: Signal<Local, Bits<64>>,
    w_pkt_mask: Signal<Local, Bits<64>>,
    w_credit_mask: Signal<Local, Bits<64>>,

    // select
    eligible: Signal<Local, Bits<BM>>,
    freed_now: Signal<Local, Bits<N>>,
    below_rr: Signal<Local, Bits<N>>,
    found_any: Signal<Local, Bit>,
    found_below: Signal<Local, Bit>,
    slot_any: Signal<Local, Bits<IW>>,
    slot_below: Signal<Local, Bits<IW>>,
    do_select: Signal<Local, Bit>,
    sel_slot: Signal<Local, Bits<IW>>,
    sel_slice: Signal<Local, Bits<64>>,
    sel_onehot: Signal<Local, Bits<64>>,
    sel_offset: Signal<Local, Bits<8>>,
    sel_offset_p1: Signal<Local, Bits<8>>,
    sel_max_p1: Signal<Local, Bits<8>>,
    sel_clear: Signal<Local, Bits<BM>>,
    tx_s: Signal<Local, Bits<BM>>,
    rtx_s: Signal<Local, Bits<BM>>,
    max_s: Signal<Local, Bits<S8>>,
    // delivered
    d_slot: Signal<Local, Bits<IW>>,
    d_hit: Signal<Local, Bit>,
    d_ack_ok: Signal<Local, Bits<64>>,
    d_ack_flat: Signal<Local, Bits<BM>>,
    d_new_slice: Signal<Local, Bits<64>>,
    d_complete: Signal<Local, Bit>,
    del_d: Signal<Local, Bits<BM>>,
    tx_d: Signal<Local, Bits<BM>>,
    rtx_d: Signal<Local, Bits<BM>>,
    // credit
    c_slot: Signal<Local, Bits<IW>>,
    c_hit: Signal<Local, Bit>,
    c_npkts: Signal<Local, Bits<16>>,
    c_rtx_ok: Signal<Local, Bits<64>>,
    c_req_beyond: Signal<Local, Bit>,
    c_req: Signal<Local, Bits<16>>,
    c_cur: Signal<Local, Bits<16>>,
    c_new_credit: Signal<Local, Bits<16>>,
    c_new_mask: Signal<Local, Bits<64>>,
    tx_c: Signal<Local, Bits<BM>>,
    credit_c: Signal<Local, Bits<S16>>,
    mask_c: Signal<Local, Bits<BM>>,
    // timeout
    t_go: Signal<Local, Bit>,
    t_hit: Signal<Local, Bit>,
    t_cnt: Signal<Local, Bits<8>>,
    t_abandon: Signal<Local, Bit>,
    t_max_start: Signal<Local, Bits<8>>,
    t_progress_start: Signal<Local, Bit>,
    t_cnt_updated: Signal<Local, Bits<8>>,
    t_retx: Signal<Local, Bit>,
    t_progress: Signal<Local, Bit>,
    t_rtx_pkts: Signal<Local, Bits<64>>,
    t_rtx_flat: Signal<Local, Bits<BM>>,
    t_cnt_next: Signal<Local, Bits<8>>,
    tx_t: Signal<Local, Bits<BM>>,
    rtx_t: Signal<Local, Bits<BM>>,
    cnt_t: Signal<Local, Bits<S8>>,
    // free
    f_valid: Signal<Local, Bit>,
    f_slot: Signal<Local, Bits<IW>>,
    f_clear: Signal<Local, Bits<BM>>,
    f_next_id: Signal<Local, Bits<16>>,
    tx_f: Signal<Local, Bits<BM>>,
    rtx_f: Signal<Local, Bits<BM>>,
    valid_f: Signal<Local, Bits<N>>,
    // write
    w_go: Signal<Local, Bit>,
    w_busy: Signal<Local, Bit>,
    w_ok: Signal<Local, Bit>,
    w_npkts: Signal<Local, Bits<16>>,
    w_credit_req: Signal<Local, Bits<16>>,
    w_credit: Signal<Local, Bits<16>>,
    w_slice_clear: Signal<Local, Bits<BM>>,
    // slot-decoded slice reads and writes
    d_sb: Signal<Local, Bits<10>>,
    d_oh: Signal<Local, Bits<BM>>,
    d_m0: Signal<Local, Bits<BM>>,
    d_m1: Signal<Local, Bits<BM>>,
    d_m2: Signal<Local, Bits<BM>>,
    d_m3: Signal<Local, Bits<BM>>,
    d_m4: Signal<Local, Bits<BM>>,
    d_mask: Signal<Local, Bits<BM>>,
    wr26_d_r0: Signal<Local, Bits<BM>>,
    wr26_d_r1: Signal<Local, Bits<BM>>,
    wr26_d_r2: Signal<Local, Bits<BM>>,
    wr26_d_r3: Signal<Local, Bits<BM>>,
    rd3_d_a: Signal<Local, Bits<BM>>,
    rd3_d_f1: Signal<Local, Bits<512>>,
    rd3_d_f2: Signal<Local, Bits<256>>,
    rd3_d_f3: Signal<Local, Bits<128>>,
    sel_sb: Signal<Local, Bits<10>>,
    sel_oh: Signal<Local, Bits<BM>>,
    sel_m0: Signal<Local, Bits<BM>>,
    sel_m1: Signal<Local, Bits<BM>>,
    sel_m2: Signal<Local, Bits<BM>>,
    sel_m3: Signal<Local, Bits<BM>>,
    sel_m4: Signal<Local, Bits<BM>>,
    sel_mask: Signal<Local, Bits<BM>>,
    rd6_sel_a: Signal<Local, Bits<BM>>,
    rd6_sel_f1: Signal<Local, Bits<512>>,
    rd6_sel_f2: Signal<Local, Bits<256>>,
    rd6_sel_f3: Signal<Local, Bits<128>>,
    wr27_sel_r0: Signal<Local, Bits<BM>>,
    wr27_sel_r1: Signal<Local, Bits<BM>>,
    wr27_sel_r2: Signal<Local, Bits<BM>>,
    wr27_sel_r3: Signal<Local, Bits<BM>>,
    c_sb: Signal<Local, Bits<10>>,
    c_oh: Signal<Local, Bits<BM>>,
    c_m0: Signal<Local, Bits<BM>>,
    c_m1: Signal<Local, Bits<BM>>,
    c_m2: Signal<Local, Bits<BM>>,
    c_m3: Signal<Local, Bits<BM>>,
    c_m4: Signal<Local, Bits<BM>>,
    c_mask: Signal<Local, Bits<BM>>,
    rd17_c_a: Signal<Local, Bits<BM>>,
    rd17_c_f1: Signal<Local, Bits<512>>,
    rd17_c_f2: Signal<Local, Bits<256>>,
    rd17_c_f3: Signal<Local, Bits<128>>,
    wr30_c_r0: Signal<Local, Bits<BM>>,
    wr30_c_r1: Signal<Local, Bits<BM>>,
    wr30_c_r2: Signal<Local, Bits<BM>>,
    wr30_c_r3: Signal<Local, Bits<BM>>,
    wr34_c_r0: Signal<Local, Bits<BM>>,
    wr34_c_r1: Signal<Local, Bits<BM>>,
    wr34_c_r2: Signal<Local, Bits<BM>>,
    wr34_c_r3: Signal<Local, Bits<BM>>,
    t_sb: Signal<Local, Bits<10>>,
    t_oh: Signal<Local, Bits<BM>>,
    t_m0: Signal<Local, Bits<BM>>,
    t_m1: Signal<Local, Bits<BM>>,
    t_m2: Signal<Local, Bits<BM>>,
    t_m3: Signal<Local, Bits<BM>>,
    t_m4: Signal<Local, Bits<BM>>,
    t_mask: Signal<Local, Bits<BM>>,
    rd20_t_a: Signal<Local, Bits<BM>>,
    rd20_t_f1: Signal<Local, Bits<512>>,
    rd20_t_f2: Signal<Local, Bits<256>>,
    rd20_t_f3: Signal<Local, Bits<128>>,
    wr35_t_r0: Signal<Local, Bits<BM>>,
    wr35_t_r1: Signal<Local, Bits<BM>>,
    wr35_t_r2: Signal<Local, Bits<BM>>,
    wr35_t_r3: Signal<Local, Bits<BM>>,
    f_sb: Signal<Local, Bits<10>>,
    f_oh: Signal<Local, Bits<BM>>,
    f_m0: Signal<Local, Bits<BM>>,
    f_m1: Signal<Local, Bits<BM>>,
    f_m2: Signal<Local, Bits<BM>>,
    f_m3: Signal<Local, Bits<BM>>,
    f_m4: Signal<Local, Bits<BM>>,
    f_mask: Signal<Local, Bits<BM>>,
    w_sb: Signal<Local, Bits<10>>,
    w_oh: Signal<Local, Bits<BM>>,
    w_m0: Signal<Local, Bits<BM>>,
    w_m1: Signal<Local, Bits<BM>>,
    w_m2: Signal<Local, Bits<BM>>,
    w_m3: Signal<Local, Bits<BM>>,
    w_m4: Signal<Local, Bits<BM>>,
    w_mask: Signal<Local, Bits<BM>>,
    wr42_w_r0: Signal<Local, Bits<BM>>,
    wr42_w_r1: Signal<Local, Bits<BM>>,
    wr42_w_r2: Signal<Local, Bits<BM>>,
    wr42_w_r3: Signal<Local, Bits<BM>>,
    wr43_w_r0: Signal<Local, Bits<BM>>,
    wr43_w_r1: Signal<Local, Bits<BM>>,
    wr43_w_r2: Signal<Local, Bits<BM>>,
    wr43_w_r3: Signal<Local, Bits<BM>>,
    rd1_d: Signal<Local, Bits<16>>,
    rd2_d: Signal<Local, Bits<8>>,
    rd3_d: Signal<Local, Bits<64>>,
    rd4_t: Signal<Local, Bits<16>>,
    rd5_t: Signal<Local, Bits<8>>,
    rd6_sel: Signal<Local, Bits<64>>,
    rd7_sel: Signal<Local, Bits<8>>,
    rd8_sel: Signal<Local, Bits<32>>,
    rd9_sel: Signal<Local, Bits<16>>,
    rd10_sel: Signal<Local, Bits<16>>,
    rd11_sel: Signal<Local, Bits<16>>,
    rd12_sel: Signal<Local, Bits<16>>,
    rd13_sel: Signal<Local, Bits<16>>,
    rd14_sel: Signal<Local, Bits<8>>,
    rd15_c: Signal<Local, Bits<16>>,
    rd16_c: Signal<Local, Bits<8>>,
    rd17_c: Signal<Local, Bits<64>>,
    rd18_c: Signal<Local, Bits<16>>,
    rd19_t: Signal<Local, Bits<8>>,
    rd20_t: Signal<Local, Bits<64>>,
    rd21_f: Signal<Local, Bits<16>>,
    rd22_f: Signal<Local, Bits<16>>,
    rd23_w: Signal<Local, Bits<16>>,
    rd24_t: Signal<Local, Bits<8>>,
    rd25_w: Signal<Local, Bits<16>>,
    wr26_d: Signal<Local, Bits<BM>>,
    wr27_sel: Signal<Local, Bits<BM>>,
    wr28_sel: Signal<Local, Bits<S8>>,
    wr29_sel: Signal<Local, Bits<S8>>,
    wr30_c: Signal<Local, Bits<BM>>,
    wr31_c: Signal<Local, Bits<S16>>,
    wr32_c: Signal<Local, Bits<S16>>,
    wr33_c: Signal<Local, Bits<BM>>,
    wr34_c: Signal<Local, Bits<BM>>,
    wr35_t: Signal<Local, Bits<BM>>,
    wr36_t: Signal<Local, Bits<S8>>,
    wr37_t: Signal<Local, Bits<S8>>,
    wr38_f: Signal<Local, Bits<BM>>,
    wr39_f: Signal<Local, Bits<S16>>,
    wr40_f: Signal<Local, Bits<S16>>,
    wr41_w: Signal<Local, Bits<BM>>,
    wr42_w: Signal<Local, Bits<BM>>,
    wr43_w: Signal<Local, Bits<BM>>,
    wr44_w: Signal<Local, Bits<S16>>,
    wr45_w: Signal<Local, Bits<S16>>,
    wr46_w: Signal<Local, Bits<S8>>,
    wr47_w: Signal<Local, Bits<S8>>,
    wr48_w: Signal<Local, Bits<S8>>,
    wr49_w: Signal<Local, Bits<S8>>,
    wr50_w: Signal<Local, Bits<S32>>,
    wr51_w: Signal<Local, Bits<S32>>,
    wr52_w: Signal<Local, Bits<S16>>,
    wr53_w: Signal<Local, Bits<S16>>,
    wr54_w: Signal<Local, Bits<S16>>,
    wr55_w: Signal<Local, Bits<S16>>,
    wr56_w: Signal<Local, Bits<S16>>,
    wr57_w: Signal<Local, Bits<S16>>,
    wr58_w: Signal<Local, Bits<S8>>,
    wr59_w: Signal<Local, Bits<S8>>,
}

impl<const N: usize, const IW: usize, const BM: usize, const S8: usize, const S16: usize, const S32: usize> Default
    for Packetization<N, IW, BM, S8, S16, S32>
{
    fn default() -> Self {
        assert_eq!(N, 1 << IW, "N = 2^IW slots");
        assert_eq!(N, 16, "the slice fold and replicate steps (512/256/128/64-bit shifts) are written for 16 slots");
        assert!(N >= 2 && IW <= 8);
        assert_eq!(BM, 64 * N);
        assert_eq!(S8, 8 * N);
        assert_eq!(S16, 16 * N);
        assert_eq!(S32, 32 * N);
        let mut initial_ids = Bits::<S16>::default();
        for i in 0..N {
            for b in 0..16 {
                if (i >> b) & 1 == 1 {
                    initial_ids = initial_ids.replace_bit(16 * i + b, true);
                }
            }
        }
        Self {
            clock: Default::default(),
            reset: Default::default(),
            default_credit: Default::default(),
            timeout_threshold: Default::default(),
            new_valid: Default::default(),
            new_ready: Default::default(),
            new_slot: Default::default(),
            new_remote_ip: Default::default(),
            new_remote_port: Default::default(),
            new_local_port: Default::default(),
            new_msg_len: Default::default(),
            new_credit_valid: Default::default(),
            new_credit: Default::default(),
            new_rank: Default::default(),
            new_tx_msg_id: Default::default(),
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
            to_valid: Default::default(),
            to_ready: Default::default(),
            to_slot: Default::default(),
            to_meta: Default::default(),
            sched_valid: Default::default(),
            sched_slot: Default::default(),
            sched_meta: Default::default(),
            cancel_valid: Default::default(),
            cancel_slot: Default::default(),
            pkt_valid: Default::default(),
            pkt_ready: Default::default(),
            pkt_slot: Default::default(),
            pkt_remote_ip: Default::default(),
            pkt_remote_port: Default::default(),
            pkt_msg_len: Default::default(),
            pkt_offset: Default::default(),
            pkt_local_port: Default::default(),
            pkt_tx_msg_id: Default::default(),
            pkt_credit: Default::default(),
            pkt_rank: Default::default(),
            pkt_flags: Default::default(),
            pkt_is_new_msg: Default::default(),
            pkt_is_rtx: Default::default(),
            done_valid: Default::default(),
            done_slot: Default::default(),
            done_tx_msg_id: Default::default(),
            done_abandoned: Default::default(),
            active: Default::default(),
            stale_delivered_count: Default::default(),
            stale_credit_count: Default::default(),
            stale_timeout_count: Default::default(),
            ack_beyond_count: Default::default(),
            rtx_beyond_count: Default::default(),
            credit_beyond_count: Default::default(),
            write_busy_count: Default::default(),
            delivered_msg_count: Default::default(),
            abandoned_msg_count: Default::default(),
            valid: Default::default(),
            delivered: Default::default(),
            tx: Default::default(),
            rtx_pending: Default::default(),
            credit_mask: Default::default(),
            credit: Default::default(),
            npkts: Default::default(),
            max_tx_p1: Default::default(),
            timeout_cnt: Default::default(),
            ids: Default::default(),
            remote_ip: Default::default(),
            remote_port: Default::default(),
            local_port: Default::default(),
            msg_len: Default::default(),
            rank: Default::default(),
            rr_next: Default::default(),
            t_pending: Default::default(),
            t_slot: Default::default(),
            t_meta: Default::default(),
            out_valid: Default::default(),
            out_slot: Default::default(),
            out_remote_ip: Default::default(),
            out_remote_port: Default::default(),
            out_msg_len: Default::default(),
            out_offset: Default::default(),
            out_local_port: Default::default(),
            out_tx_msg_id: Default::default(),
            out_credit: Default::default(),
            out_rank: Default::default(),
            out_is_new_msg: Default::default(),
            out_is_rtx: Default::default(),
            cnt_stale_dlv: Default::default(),
            cnt_stale_ctx: Default::default(),
            cnt_stale_to: Default::default(),
            cnt_ack_beyond: Default::default(),
            cnt_rtx_beyond: Default::default(),
            cnt_credit_beyond: Default::default(),
            cnt_write_busy: Default::default(),
            cnt_delivered: Default::default(),
            cnt_abandoned: Default::default(),
            ones8: Constant::new(0xFFu64.into()),
            ones16: Constant::new(0xFFFFu64.into()),
            ones32: Constant::new(0xFFFF_FFFFu64.into()),
            all_ones_n: Constant::new(Bits::<N>::mask()),
            all_zero_n: Constant::new(Bits::<N>::default()),
            id_step: Constant::new((N as u64).into()),
            initial_ids: Constant::new(initial_ids),
            ones64: Constant::new(Bits::<64>::mask()),
            one_flat: Constant::new(Bits::<BM>::default().replace_bit(0, true)),
            sel_index: Default::default(),
            d_pkt_mask: Default::default(),
            c_pkt_mask: Default::default(),
            c_credit_mask: Default::default(),
            t_rtx_mask: Default::default(),
            w_pkt_mask: Default::default(),
            w_credit_mask: Default::default(),
            eligible: Default::default(),
            freed_now: Default::default(),
            below_rr: Default::default(),
            found_any: Default::default(),
            found_below: Default::default(),
            slot_any: Default::default(),
            slot_below: Default::default(),
            do_select: Default::default(),
            sel_slot: Default::default(),
            sel_slice: Default::default(),
            sel_onehot: Default::default(),
            sel_offset: Default::default(),
            sel_offset_p1: Default::default(),
            sel_max_p1: Default::default(),
            sel_clear: Default::default(),
            tx_s: Default::default(),
            rtx_s: Default::default(),
            max_s: Default::default(),
            d_slot: Default::default(),
            d_hit: Default::default(),
            d_ack_ok: Default::default(),
            d_ack_flat: Default::default(),
            d_new_slice: Default::default(),
            d_complete: Default::default(),
            del_d: Default::default(),
            tx_d: Default::default(),
            rtx_d: Default::default(),
            c_slot: Default::default(),
            c_hit: Default::default(),
            c_npkts: Default::default(),
            c_rtx_ok: Default::default(),
            c_req_beyond: Default::default(),
            c_req: Default::default(),
            c_cur: Default::default(),
            c_new_credit: Default::default(),
            c_new_mask: Default::default(),
            tx_c: Default::default(),
            credit_c: Default::default(),
            mask_c: Default::default(),
            t_go: Default::default(),
            t_hit: Default::default(),
            t_cnt: Default::default(),
            t_abandon: Default::default(),
            t_max_start: Default::default(),
            t_progress_start: Default::default(),
            t_cnt_updated: Default::default(),
            t_retx: Default::default(),
            t_progress: Default::default(),
            t_rtx_pkts: Default::default(),
            t_rtx_flat: Default::default(),
            t_cnt_next: Default::default(),
            tx_t: Default::default(),
            rtx_t: Default::default(),
            cnt_t: Default::default(),
            f_valid: Default::default(),
            f_slot: Default::default(),
            f_clear: Default::default(),
            f_next_id: Default::default(),
            tx_f: Default::default(),
            rtx_f: Default::default(),
            valid_f: Default::default(),
            w_go: Default::default(),
            w_busy: Default::default(),
            w_ok: Default::default(),
            w_npkts: Default::default(),
            w_credit_req: Default::default(),
            w_credit: Default::default(),
            w_slice_clear: Default::default(),
            d_sb: Default::default(),
            d_oh: Default::default(),
            d_m0: Default::default(),
            d_m1: Default::default(),
            d_m2: Default::default(),
            d_m3: Default::default(),
            d_m4: Default::default(),
            d_mask: Default::default(),
            wr26_d_r0: Default::default(),
            wr26_d_r1: Default::default(),
            wr26_d_r2: Default::default(),
            wr26_d_r3: Default::default(),
            rd3_d_a: Default::default(),
            rd3_d_f1: Default::default(),
            rd3_d_f2: Default::default(),
            rd3_d_f3: Default::default(),
            sel_sb: Default::default(),
            sel_oh: Default::default(),
            sel_m0: Default::default(),
            sel_m1: Default::default(),
            sel_m2: Default::default(),
            sel_m3: Default::default(),
            sel_m4: Default::default(),
            sel_mask: Default::default(),
            rd6_sel_a: Default::default(),
            rd6_sel_f1: Default::default(),
            rd6_sel_f2: Default::default(),
            rd6_sel_f3: Default::default(),
            wr27_sel_r0: Default::default(),
            wr27_sel_r1: Default::default(),
            wr27_sel_r2: Default::default(),
            wr27_sel_r3: Default::default(),
            c_sb: Default::default(),
            c_oh: Default::default(),
            c_m0: Default::default(),
            c_m1: Default::default(),
            c_m2: Default::default(),
            c_m3: Default::default(),
            c_m4: Default::default(),
            c_mask: Default::default(),
            rd17_c_a: Default::default(),
            rd17_c_f1: Default::default(),
            rd17_c_f2: Default::default(),
            rd17_c_f3: Default::default(),
            wr30_c_r0: Default::default(),
            wr30_c_r1: Default::default(),
            wr30_c_r2: Default::default(),
            wr30_c_r3: Default::default(),
            wr34_c_r0: Default::default(),
            wr34_c_r1: Default::default(),
            wr34_c_r2: Default::default(),
            wr34_c_r3: Default::default(),
            t_sb: Default::default(),
            t_oh: Default::default(),
            t_m0: Default::default(),
            t_m1: Default::default(),
            t_m2: Default::default(),
            t_m3: Default::default(),
            t_m4: Default::default(),
            t_mask: Default::default(),
            rd20_t_a: Default::default(),
            rd20_t_f1: Default::default(),
            rd20_t_f2: Default::default(),
            rd20_t_f3: Default::default(),
            wr35_t_r0: Default::default(),
            wr35_t_r1: Default::default(),
            wr35_t_r2: Default::default(),
            wr35_t_r3: Default::default(),
            f_sb: Default::default(),
            f_oh: Default::default(),
            f_m0: Default::default(),
            f_m1: Default::default(),
            f_m2: Default::default(),
            f_m3: Default::default(),
            f_m4: Default::default(),
            f_mask: Default::default(),
            w_sb: Default::default(),
            w_oh: Default::default(),
            w_m0: Default::default(),
            w_m1: Default::default(),
            w_m2: Default::default(),
            w_m3: Default::default(),
            w_m4: Default::default(),
            w_mask: Default::default(),
            wr42_w_r0: Default::default(),
            wr42_w_r1: Default::default(),
            wr42_w_r2: Default::default(),
            wr42_w_r3: Default::default(),
            wr43_w_r0: Default::default(),
            wr43_w_r1: Default::default(),
            wr43_w_r2: Default::default(),
            wr43_w_r3: Default::default(),
            rd1_d: Default::default(),
            rd2_d: Default::default(),
            rd3_d: Default::default(),
            rd4_t: Default::default(),
            rd5_t: Default::default(),
            rd6_sel: Default::default(),
            rd7_sel: Default::default(),
            rd8_sel: Default::default(),
            rd9_sel: Default::default(),
            rd10_sel: Default::default(),
            rd11_sel: Default::default(),
            rd12_sel: Default::default(),
            rd13_sel: Default::default(),
            rd14_sel: Default::default(),
            rd15_c: Default::default(),
            rd16_c: Default::default(),
            rd17_c: Default::default(),
            rd18_c: Default::default(),
            rd19_t: Default::default(),
            rd20_t: Default::default(),
            rd21_f: Default::default(),
            rd22_f: Default::default(),
            rd23_w: Default::default(),
            rd24_t: Default::default(),
            rd25_w: Default::default(),
            wr26_d: Default::default(),
            wr27_sel: Default::default(),
            wr28_sel: Default::default(),
            wr29_sel: Default::default(),
            wr30_c: Default::default(),
            wr31_c: Default::default(),
            wr32_c: Default::default(),
            wr33_c: Default::default(),
            wr34_c: Default::default(),
            wr35_t: Default::default(),
            wr36_t: Default::default(),
            wr37_t: Default::default(),
            wr38_f: Default::default(),
            wr39_f: Default::default(),
            wr40_f: Default::default(),
            wr41_w: Default::default(),
            wr42_w: Default::default(),
            wr43_w: Default::default(),
            wr44_w: Default::default(),
            wr45_w: Default::default(),
            wr46_w: Default::default(),
            wr47_w: Default::default(),
            wr48_w: Default::default(),
            wr49_w: Default::default(),
            wr50_w: Default::default(),
            wr51_w: Default::default(),
            wr52_w: Default::default(),
            wr53_w: Default::default(),
            wr54_w: Default::default(),
            wr55_w: Default::default(),
            wr56_w: Default::default(),
            wr57_w: Default::default(),
            wr58_w: Default::default(),
            wr59_w: Default::default(),
        }
    }
}

impl<const N: usize, const IW: usize, const BM: usize, const S8: usize, const S16: usize, const S32: usize> Logic
    for Packetization<N, IW, BM, S8, S16, S32>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, valid, delivered, tx, rtx_pending, credit_mask, credit, npkts, max_tx_p1, timeout_cnt, ids,
            remote_ip, remote_port, local_port, msg_len, rank, rr_next, t_pending, t_slot, t_meta, out_valid, out_slot,
            out_remote_ip, out_remote_port, out_msg_len, out_offset, out_local_port, out_tx_msg_id, out_credit,
            out_rank, out_is_new_msg, out_is_rtx, cnt_stale_dlv, cnt_stale_ctx, cnt_stale_to, cnt_ack_beyond,
            cnt_rtx_beyond, cnt_credit_beyond, cnt_write_busy, cnt_delivered, cnt_abandoned
        );

        // ---------------- DeliveredEvent (Algorithm 2) ----------------
        self.d_slot.next = self.dlv_tx_msg_id.val().get_bits::<IW>(0);
        self.rd1_d.next = 0.into();
        for i in 0..N {
            if self.d_slot.val() == i.to_bits() {
                self.rd1_d.next = self.ids.q.val().get_bits::<16>(i * 16);
            }
        }
        self.d_hit.next = (self.dlv_valid.val() & self.valid.q.val().get_bit(self.d_slot.val().index()))
            & (self.rd1_d.val() == self.dlv_tx_msg_id.val());
        self.rd2_d.next = 0.into();
        for i in 0..N {
            if self.d_slot.val() == i.to_bits() {
                self.rd2_d.next = self.npkts.q.val().get_bits::<8>(i * 8);
            }
        }
        self.d_pkt_mask.next = !(self.ones64.val() << bit_cast::<7, 8>(self.rd2_d.val()));
        self.d_ack_ok.next = self.dlv_ack_bitmap.val() & self.d_pkt_mask.val();
        // Slot mask of `d`: ones over the slot's 64-bit slice (decode, then widen by doubling).
        self.d_sb.next = bit_cast::<10, IW>(self.d_slot.val()) << 6;
        self.d_oh.next = self.one_flat.val() << self.d_sb.val();
        self.d_m0.next = self.d_oh.val() | (self.d_oh.val() << 1);
        self.d_m1.next = self.d_m0.val() | (self.d_m0.val() << 2);
        self.d_m2.next = self.d_m1.val() | (self.d_m1.val() << 4);
        self.d_m3.next = self.d_m2.val() | (self.d_m2.val() << 8);
        self.d_m4.next = self.d_m3.val() | (self.d_m3.val() << 16);
        self.d_mask.next = self.d_m4.val() | (self.d_m4.val() << 32);
        // Write slice: replicate the value into every slice, keep the slot's.
        self.wr26_d_r0.next = bit_cast::<BM, 64>(self.d_ack_ok.val());
        self.wr26_d_r1.next = self.wr26_d_r0.val() | (self.wr26_d_r0.val() << 64);
        self.wr26_d_r2.next = self.wr26_d_r1.val() | (self.wr26_d_r1.val() << 128);
        self.wr26_d_r3.next = self.wr26_d_r2.val() | (self.wr26_d_r2.val() << 256);
        self.wr26_d.next = (self.wr26_d_r3.val() | (self.wr26_d_r3.val() << 512)) & self.d_mask.val();
        self.d_ack_flat.next = self.wr26_d.val();
        // Read slice: keep the slot's slice, fold the 16 slices onto the lowest one.
        self.rd3_d_a.next = self.delivered.q.val() & self.d_mask.val();
        self.rd3_d_f1.next = self.rd3_d_a.val().get_bits::<512>(0) | self.rd3_d_a.val().get_bits::<512>(512);
        self.rd3_d_f2.next = self.rd3_d_f1.val().get_bits::<256>(0) | self.rd3_d_f1.val().get_bits::<256>(256);
        self.rd3_d_f3.next = self.rd3_d_f2.val().get_bits::<128>(0) | self.rd3_d_f2.val().get_bits::<128>(128);
        self.rd3_d.next = self.rd3_d_f3.val().get_bits::<64>(0) | self.rd3_d_f3.val().get_bits::<64>(64);
        self.d_new_slice.next =
            self.rd3_d.val() | self.d_ack_ok.val();
        self.d_complete.next = self.d_hit.val() & (self.d_new_slice.val() == self.d_pkt_mask.val());

        // ---------------- TimeoutEvent go / hit (needed by the packet choice) ----------------
        self.t_go.next = self.t_pending.q.val() & (!self.d_complete.val());
        self.rd4_t.next = 0.into();
        for i in 0..N {
            if self.t_slot.q.val() == i.to_bits() {
                self.rd4_t.next = self.ids.q.val().get_bits::<16>(i * 16);
            }
        }
        self.t_hit.next = (self.t_go.val() & self.valid.q.val().get_bit(self.t_slot.q.val().index()))
            & (self.rd4_t.val() == self.t_meta.q.val().get_bits::<16>(8));
        self.rd5_t.next = 0.into();
        for i in 0..N {
            if self.t_slot.q.val() == i.to_bits() {
                self.rd5_t.next = self.timeout_cnt.q.val().get_bits::<8>(i * 8);
            }
        }
        self.t_cnt.next = self.rd5_t.val();
        // Abandon on the updated count: progress (maxTxPktOffset at the start of the cycle beyond
        // the timer's metadata) resets it, so such a message is never abandoned at this expiry;
        // otherwise the count is incremented (saturating) and compared with the threshold.
        self.t_max_start.next = 0.into();
        for i in 0..N {
            if self.t_slot.q.val() == i.to_bits() {
                self.t_max_start.next = self.max_tx_p1.q.val().get_bits::<8>(i * 8);
            }
        }
        self.t_progress_start.next = self.t_max_start.val() > self.t_meta.q.val().get_bits::<8>(0);
        self.t_cnt_updated.next = self.t_cnt.val();
        if self.t_cnt.val() != 0xFF {
            self.t_cnt_updated.next = self.t_cnt.val() + 1;
        }
        self.t_abandon.next = (self.t_hit.val() & (!self.t_progress_start.val()))
            & (self.t_cnt_updated.val() > self.timeout_threshold.val());
        self.t_retx.next = self.t_hit.val() & (!self.t_abandon.val());

        // ---------------- packet choice (state at the start of the cycle) ----------------
        self.eligible.next = ((self.tx.q.val() & self.credit_mask.q.val()) | self.rtx_pending.q.val())
            & (!self.delivered.q.val());
        // At most one slot is freed per cycle (a timeout is held while a DeliveredEvent completes).
        self.freed_now.next = 0.into();
        if self.d_complete.val() {
            self.freed_now.next = self.all_zero_n.val().replace_bit(self.d_slot.val().index(), true);
        }
        if self.t_abandon.val() {
            self.freed_now.next = self.all_zero_n.val().replace_bit(self.t_slot.q.val().index(), true);
        }
        // Round robin, descending: the highest eligible slot below the last one served, else the
        // highest eligible slot. The loop writes without reading, so the last (highest) wins.
        self.below_rr.next = !(self.all_ones_n.val() << self.rr_next.q.val());
        self.found_any.next = false;
        self.found_below.next = false;
        self.slot_any.next = 0.into();
        self.slot_below.next = 0.into();
        for i in 0..N {
            if self.eligible.val().get_bits::<64>(i * 64).any() & (!self.freed_now.val().get_bit(i)) {
                self.found_any.next = true;
                self.slot_any.next = i.to_bits();
                if self.below_rr.val().get_bit(i) {
                    self.found_below.next = true;
                    self.slot_below.next = i.to_bits();
                }
            }
        }
        self.sel_slot.next = self.slot_any.val();
        if self.found_below.val() {
            self.sel_slot.next = self.slot_below.val();
        }
        self.do_select.next = self.found_any.val() & ((!self.out_valid.q.val()) | self.pkt_ready.val());
        // Slot mask of `sel`: ones over the slot's 64-bit slice (decode, then widen by doubling).
        self.sel_sb.next = bit_cast::<10, IW>(self.sel_slot.val()) << 6;
        self.sel_oh.next = self.one_flat.val() << self.sel_sb.val();
        self.sel_m0.next = self.sel_oh.val() | (self.sel_oh.val() << 1);
        self.sel_m1.next = self.sel_m0.val() | (self.sel_m0.val() << 2);
        self.sel_m2.next = self.sel_m1.val() | (self.sel_m1.val() << 4);
        self.sel_m3.next = self.sel_m2.val() | (self.sel_m2.val() << 8);
        self.sel_m4.next = self.sel_m3.val() | (self.sel_m3.val() << 16);
        self.sel_mask.next = self.sel_m4.val() | (self.sel_m4.val() << 32);
        // Read slice: keep the slot's slice, fold the 16 slices onto the lowest one.
        self.rd6_sel_a.next = self.eligible.val() & self.sel_mask.val();
        self.rd6_sel_f1.next = self.rd6_sel_a.val().get_bits::<512>(0) | self.rd6_sel_a.val().get_bits::<512>(512);
        self.rd6_sel_f2.next = self.rd6_sel_f1.val().get_bits::<256>(0) | self.rd6_sel_f1.val().get_bits::<256>(256);
        self.rd6_sel_f3.next = self.rd6_sel_f2.val().get_bits::<128>(0) | self.rd6_sel_f2.val().get_bits::<128>(128);
        self.rd6_sel.next = self.rd6_sel_f3.val().get_bits::<64>(0) | self.rd6_sel_f3.val().get_bits::<64>(64);
        self.sel_slice.next = self.rd6_sel.val();
        // Smallest offset: isolate the lowest set bit, then encode it (one bit set: order free).
        self.sel_onehot.next = self.sel_slice.val() & ((!self.sel_slice.val()) + 1);
        self.sel_index.next = 0.into();
        for i in 0..64 {
            if self.sel_onehot.val().get_bit(i) {
                self.sel_index.next = i.to_bits();
            }
        }
        self.sel_offset.next = bit_cast::<8, 6>(self.sel_index.val());
        self.sel_offset_p1.next = bit_cast::<8, 6>(self.sel_index.val()) + 1;
        self.rd7_sel.next = 0.into();
        for i in 0..N {
            if self.sel_slot.val() == i.to_bits() {
                self.rd7_sel.next = self.max_tx_p1.q.val().get_bits::<8>(i * 8);
            }
        }
        self.sel_max_p1.next = self.rd7_sel.val();
        self.sel_clear.next = 0.into();
        // Write slice: replicate the value into every slice, keep the slot's.
        self.wr27_sel_r0.next = bit_cast::<BM, 64>(self.sel_onehot.val());
        self.wr27_sel_r1.next = self.wr27_sel_r0.val() | (self.wr27_sel_r0.val() << 64);
        self.wr27_sel_r2.next = self.wr27_sel_r1.val() | (self.wr27_sel_r1.val() << 128);
        self.wr27_sel_r3.next = self.wr27_sel_r2.val() | (self.wr27_sel_r2.val() << 256);
        self.wr27_sel.next = (self.wr27_sel_r3.val() | (self.wr27_sel_r3.val() << 512)) & self.sel_mask.val();
        if self.do_select.val() {
            self.sel_clear.next = self.wr27_sel.val();
        }
        self.tx_s.next = self.tx.q.val() & (!self.sel_clear.val());
        self.rtx_s.next = self.rtx_pending.q.val() & (!self.sel_clear.val());
        self.max_s.next = self.max_tx_p1.q.val();
        self.wr28_sel.next = 0.into();
        for i in 0..N {
            if self.sel_slot.val() == i.to_bits() {
                self.wr28_sel.next = self.ones8.val() << (i * 8).to_bits::<16>();
            }
        }
        self.wr29_sel.next = 0.into();
        for i in 0..N {
            if self.sel_slot.val() == i.to_bits() {
                self.wr29_sel.next = bit_cast::<S8, 8>(self.sel_offset_p1.val()) << (i * 8).to_bits::<16>();
            }
        }
        if self.do_select.val() & (self.sel_offset_p1.val() > self.sel_max_p1.val()) {
            self.max_s.next = (self.max_tx_p1.q.val() & (!(self.wr28_sel.val())))
                | (self.wr29_sel.val());
        }
        self.rd8_sel.next = 0.into();
        for i in 0..N {
            if self.sel_slot.val() == i.to_bits() {
                self.rd8_sel.next = self.remote_ip.q.val().get_bits::<32>(i * 32);
            }
        }
        self.rd9_sel.next = 0.into();
        for i in 0..N {
            if self.sel_slot.val() == i.to_bits() {
                self.rd9_sel.next = self.remote_port.q.val().get_bits::<16>(i * 16);
            }
        }
        self.rd10_sel.next = 0.into();
        for i in 0..N {
            if self.sel_slot.val() == i.to_bits() {
                self.rd10_sel.next = self.msg_len.q.val().get_bits::<16>(i * 16);
            }
        }
        self.rd11_sel.next = 0.into();
        for i in 0..N {
            if self.sel_slot.val() == i.to_bits() {
                self.rd11_sel.next = self.local_port.q.val().get_bits::<16>(i * 16);
            }
        }
        self.rd12_sel.next = 0.into();
        for i in 0..N {
            if self.sel_slot.val() == i.to_bits() {
                self.rd12_sel.next = self.ids.q.val().get_bits::<16>(i * 16);
            }
        }
        self.rd13_sel.next = 0.into();
        for i in 0..N {
            if self.sel_slot.val() == i.to_bits() {
                self.rd13_sel.next = self.credit.q.val().get_bits::<16>(i * 16);
            }
        }
        self.rd14_sel.next = 0.into();
        for i in 0..N {
            if self.sel_slot.val() == i.to_bits() {
                self.rd14_sel.next = self.rank.q.val().get_bits::<8>(i * 8);
            }
        }
        if self.do_select.val() {
            self.rr_next.d.next = self.sel_slot.val();
            self.out_valid.d.next = true;
            self.out_slot.d.next = self.sel_slot.val();
            self.out_remote_ip.d.next = self.rd8_sel.val();
            self.out_remote_port.d.next = self.rd9_sel.val();
            self.out_msg_len.d.next = self.rd10_sel.val();
            self.out_offset.d.next = self.sel_offset.val();
            self.out_local_port.d.next = self.rd11_sel.val();
            self.out_tx_msg_id.d.next = self.rd12_sel.val();
            self.out_credit.d.next = self.rd13_sel.val();
            self.out_rank.d.next = self.rd14_sel.val();
            self.out_is_new_msg.d.next = self.sel_max_p1.val() == 0;
            self.out_is_rtx.d.next = self.sel_offset.val() < self.sel_max_p1.val();
        } else if self.pkt_ready.val() {
            self.out_valid.d.next = false;
        }
        self.pkt_valid.next = self.out_valid.q.val();
        self.pkt_slot.next = self.out_slot.q.val();
        self.pkt_remote_ip.next = self.out_remote_ip.q.val();
        self.pkt_remote_port.next = self.out_remote_port.q.val();
        self.pkt_msg_len.next = self.out_msg_len.q.val();
        self.pkt_offset.next = self.out_offset.q.val();
        self.pkt_local_port.next = self.out_local_port.q.val();
        self.pkt_tx_msg_id.next = self.out_tx_msg_id.q.val();
        self.pkt_credit.next = self.out_credit.q.val();
        self.pkt_rank.next = self.out_rank.q.val();
        self.pkt_flags.next = 1.into();
        self.pkt_is_new_msg.next = self.out_is_new_msg.q.val();
        self.pkt_is_rtx.next = self.out_is_rtx.q.val();

        // ---------------- DeliveredEvent state update ----------------
        self.del_d.next = self.delivered.q.val();
        self.tx_d.next = self.tx_s.val();
        self.rtx_d.next = self.rtx_s.val();
        if self.d_hit.val() {
            self.del_d.next = self.delivered.q.val() | self.d_ack_flat.val();
            self.tx_d.next = self.tx_s.val() & (!self.d_ack_flat.val());
            self.rtx_d.next = self.rtx_s.val() & (!self.d_ack_flat.val());
        }

        // ---------------- CreditTxEvent (Algorithm 3) ----------------
        self.c_slot.next = self.ctx_tx_msg_id.val().get_bits::<IW>(0);
        self.rd15_c.next = 0.into();
        for i in 0..N {
            if self.c_slot.val() == i.to_bits() {
                self.rd15_c.next = self.ids.q.val().get_bits::<16>(i * 16);
            }
        }
        self.c_hit.next = ((self.ctx_valid.val() & self.valid.q.val().get_bit(self.c_slot.val().index()))
            & (self.rd15_c.val() == self.ctx_tx_msg_id.val()))
            & (!(self.d_complete.val() & (self.d_slot.val() == self.c_slot.val())));
        self.rd16_c.next = 0.into();
        for i in 0..N {
            if self.c_slot.val() == i.to_bits() {
                self.rd16_c.next = self.npkts.q.val().get_bits::<8>(i * 8);
            }
        }
        self.c_npkts.next = bit_cast::<16, 8>(self.rd16_c.val());
        self.c_pkt_mask.next = !(self.ones64.val() << bit_cast::<7, 16>(self.c_npkts.val()));
        // Slot mask of `c`: ones over the slot's 64-bit slice (decode, then widen by doubling).
        self.c_sb.next = bit_cast::<10, IW>(self.c_slot.val()) << 6;
        self.c_oh.next = self.one_flat.val() << self.c_sb.val();
        self.c_m0.next = self.c_oh.val() | (self.c_oh.val() << 1);
        self.c_m1.next = self.c_m0.val() | (self.c_m0.val() << 2);
        self.c_m2.next = self.c_m1.val() | (self.c_m1.val() << 4);
        self.c_m3.next = self.c_m2.val() | (self.c_m2.val() << 8);
        self.c_m4.next = self.c_m3.val() | (self.c_m3.val() << 16);
        self.c_mask.next = self.c_m4.val() | (self.c_m4.val() << 32);
        // Read slice: keep the slot's slice, fold the 16 slices onto the lowest one.
        self.rd17_c_a.next = self.del_d.val() & self.c_mask.val();
        self.rd17_c_f1.next = self.rd17_c_a.val().get_bits::<512>(0) | self.rd17_c_a.val().get_bits::<512>(512);
        self.rd17_c_f2.next = self.rd17_c_f1.val().get_bits::<256>(0) | self.rd17_c_f1.val().get_bits::<256>(256);
        self.rd17_c_f3.next = self.rd17_c_f2.val().get_bits::<128>(0) | self.rd17_c_f2.val().get_bits::<128>(128);
        self.rd17_c.next = self.rd17_c_f3.val().get_bits::<64>(0) | self.rd17_c_f3.val().get_bits::<64>(64);
        self.c_rtx_ok.next = (self.ctx_rtx_bitmap.val() & self.c_pkt_mask.val())
            & (!self.rd17_c.val());
        self.tx_c.next = self.tx_d.val();
        // Write slice: replicate the value into every slice, keep the slot's.
        self.wr30_c_r0.next = bit_cast::<BM, 64>(self.c_rtx_ok.val());
        self.wr30_c_r1.next = self.wr30_c_r0.val() | (self.wr30_c_r0.val() << 64);
        self.wr30_c_r2.next = self.wr30_c_r1.val() | (self.wr30_c_r1.val() << 128);
        self.wr30_c_r3.next = self.wr30_c_r2.val() | (self.wr30_c_r2.val() << 256);
        self.wr30_c.next = (self.wr30_c_r3.val() | (self.wr30_c_r3.val() << 512)) & self.c_mask.val();
        if self.c_hit.val() & self.ctx_rtx_flag.val() {
            self.tx_c.next = self.tx_d.val() | (self.wr30_c.val());
        }
        self.c_req_beyond.next = self.ctx_new_credit.val() > self.c_npkts.val();
        self.c_req.next = self.ctx_new_credit.val();
        if self.c_req_beyond.val() {
            self.c_req.next = self.c_npkts.val();
        }
        self.rd18_c.next = 0.into();
        for i in 0..N {
            if self.c_slot.val() == i.to_bits() {
                self.rd18_c.next = self.credit.q.val().get_bits::<16>(i * 16);
            }
        }
        self.c_cur.next = self.rd18_c.val();
        self.c_new_credit.next = self.c_cur.val();
        if self.ctx_credit_flag.val() {
            if self.ctx_raise_only.val() {
                if self.c_req.val() > self.c_cur.val() {
                    self.c_new_credit.next = self.c_req.val();
                }
            } else {
                self.c_new_credit.next = self.c_req.val();
            }
        }
        self.c_credit_mask.next = !(self.ones64.val() << bit_cast::<7, 16>(self.c_new_credit.val()));
        self.c_new_mask.next = 0.into();
        if self.ctx_allow_tx.val() {
            self.c_new_mask.next = self.c_credit_mask.val();
        }
        self.credit_c.next = self.credit.q.val();
        self.mask_c.next = self.credit_mask.q.val();
        self.wr31_c.next = 0.into();
        for i in 0..N {
            if self.c_slot.val() == i.to_bits() {
                self.wr31_c.next = self.ones16.val() << (i * 16).to_bits::<16>();
            }
        }
        self.wr32_c.next = 0.into();
        for i in 0..N {
            if self.c_slot.val() == i.to_bits() {
                self.wr32_c.next = bit_cast::<S16, 16>(self.c_new_credit.val()) << (i * 16).to_bits::<16>();
            }
        }
        self.wr33_c.next = self.c_mask.val();
        // Write slice: replicate the value into every slice, keep the slot's.
        self.wr34_c_r0.next = bit_cast::<BM, 64>(self.c_new_mask.val());
        self.wr34_c_r1.next = self.wr34_c_r0.val() | (self.wr34_c_r0.val() << 64);
        self.wr34_c_r2.next = self.wr34_c_r1.val() | (self.wr34_c_r1.val() << 128);
        self.wr34_c_r3.next = self.wr34_c_r2.val() | (self.wr34_c_r2.val() << 256);
        self.wr34_c.next = (self.wr34_c_r3.val() | (self.wr34_c_r3.val() << 512)) & self.c_mask.val();
        if self.c_hit.val() {
            self.credit_c.next = (self.credit.q.val() & (!(self.wr31_c.val())))
                | (self.wr32_c.val());
            self.mask_c.next = (self.credit_mask.q.val() & (!(self.wr33_c.val())))
                | (self.wr34_c.val());
        }

        // ---------------- TimeoutEvent (Algorithm 4) ----------------
        self.rd19_t.next = 0.into();
        for i in 0..N {
            if self.t_slot.q.val() == i.to_bits() {
                self.rd19_t.next = self.max_s.val().get_bits::<8>(i * 8);
            }
        }
        self.t_progress.next = self.rd19_t.val()
            > self.t_meta.q.val().get_bits::<8>(0);
        self.t_rtx_mask.next = !(self.ones64.val() << bit_cast::<7, 8>(self.t_meta.q.val().get_bits::<8>(0)));
        // Slot mask of `t`: ones over the slot's 64-bit slice (decode, then widen by doubling).
        self.t_sb.next = bit_cast::<10, IW>(self.t_slot.q.val()) << 6;
        self.t_oh.next = self.one_flat.val() << self.t_sb.val();
        self.t_m0.next = self.t_oh.val() | (self.t_oh.val() << 1);
        self.t_m1.next = self.t_m0.val() | (self.t_m0.val() << 2);
        self.t_m2.next = self.t_m1.val() | (self.t_m1.val() << 4);
        self.t_m3.next = self.t_m2.val() | (self.t_m2.val() << 8);
        self.t_m4.next = self.t_m3.val() | (self.t_m3.val() << 16);
        self.t_mask.next = self.t_m4.val() | (self.t_m4.val() << 32);
        // Read slice: keep the slot's slice, fold the 16 slices onto the lowest one.
        self.rd20_t_a.next = self.del_d.val() & self.t_mask.val();
        self.rd20_t_f1.next = self.rd20_t_a.val().get_bits::<512>(0) | self.rd20_t_a.val().get_bits::<512>(512);
        self.rd20_t_f2.next = self.rd20_t_f1.val().get_bits::<256>(0) | self.rd20_t_f1.val().get_bits::<256>(256);
        self.rd20_t_f3.next = self.rd20_t_f2.val().get_bits::<128>(0) | self.rd20_t_f2.val().get_bits::<128>(128);
        self.rd20_t.next = self.rd20_t_f3.val().get_bits::<64>(0) | self.rd20_t_f3.val().get_bits::<64>(64);
        self.t_rtx_pkts.next =
            self.t_rtx_mask.val() & (!self.rd20_t.val());
        // Write slice: replicate the value into every slice, keep the slot's.
        self.wr35_t_r0.next = bit_cast::<BM, 64>(self.t_rtx_pkts.val());
        self.wr35_t_r1.next = self.wr35_t_r0.val() | (self.wr35_t_r0.val() << 64);
        self.wr35_t_r2.next = self.wr35_t_r1.val() | (self.wr35_t_r1.val() << 128);
        self.wr35_t_r3.next = self.wr35_t_r2.val() | (self.wr35_t_r2.val() << 256);
        self.wr35_t.next = (self.wr35_t_r3.val() | (self.wr35_t_r3.val() << 512)) & self.t_mask.val();
        self.t_rtx_flat.next = self.wr35_t.val();
        self.t_cnt_next.next = 0.into();
        if !self.t_progress.val() {
            self.t_cnt_next.next = self.t_cnt.val();
            if self.t_cnt.val() != 0xFF {
                self.t_cnt_next.next = self.t_cnt.val() + 1;
            }
        }
        self.tx_t.next = self.tx_c.val();
        self.rtx_t.next = self.rtx_d.val();
        self.cnt_t.next = self.timeout_cnt.q.val();
        self.wr36_t.next = 0.into();
        for i in 0..N {
            if self.t_slot.q.val() == i.to_bits() {
                self.wr36_t.next = self.ones8.val() << (i * 8).to_bits::<16>();
            }
        }
        self.wr37_t.next = 0.into();
        for i in 0..N {
            if self.t_slot.q.val() == i.to_bits() {
                self.wr37_t.next = bit_cast::<S8, 8>(self.t_cnt_next.val()) << (i * 8).to_bits::<16>();
            }
        }
        if self.t_retx.val() {
            self.tx_t.next = self.tx_c.val() & (!self.t_rtx_flat.val());
            self.rtx_t.next = self.rtx_d.val() | self.t_rtx_flat.val();
            self.cnt_t.next = (self.timeout_cnt.q.val() & (!(self.wr36_t.val())))
                | (self.wr37_t.val());
        }
        // Holding register: taken when empty; processed in a cycle without a DeliveredEvent.
        self.to_ready.next = !self.t_pending.q.val();
        if self.t_go.val() {
            self.t_pending.d.next = false;
        }
        if self.to_valid.val() & (!self.t_pending.q.val()) {
            self.t_pending.d.next = true;
            self.t_slot.d.next = self.to_slot.val();
            self.t_meta.d.next = self.to_meta.val();
        }

        // ---------------- free (delivered or abandoned; never both in one cycle) ----------------
        self.f_valid.next = self.d_complete.val() | self.t_abandon.val();
        self.f_slot.next = self.t_slot.q.val();
        if self.d_complete.val() {
            self.f_slot.next = self.d_slot.val();
        }
        self.rd21_f.next = 0.into();
        for i in 0..N {
            if self.f_slot.val() == i.to_bits() {
                self.rd21_f.next = self.ids.q.val().get_bits::<16>(i * 16);
            }
        }
        self.f_next_id.next = self.rd21_f.val() + self.id_step.val();
        self.f_clear.next = 0.into();
        // Slot mask of `f`: ones over the slot's 64-bit slice (decode, then widen by doubling).
        self.f_sb.next = bit_cast::<10, IW>(self.f_slot.val()) << 6;
        self.f_oh.next = self.one_flat.val() << self.f_sb.val();
        self.f_m0.next = self.f_oh.val() | (self.f_oh.val() << 1);
        self.f_m1.next = self.f_m0.val() | (self.f_m0.val() << 2);
        self.f_m2.next = self.f_m1.val() | (self.f_m1.val() << 4);
        self.f_m3.next = self.f_m2.val() | (self.f_m2.val() << 8);
        self.f_m4.next = self.f_m3.val() | (self.f_m3.val() << 16);
        self.f_mask.next = self.f_m4.val() | (self.f_m4.val() << 32);
        self.wr38_f.next = self.f_mask.val();
        if self.f_valid.val() {
            self.f_clear.next = self.wr38_f.val();
        }
        self.tx_f.next = self.tx_t.val() & (!self.f_clear.val());
        self.rtx_f.next = self.rtx_t.val() & (!self.f_clear.val());
        self.valid_f.next = self.valid.q.val();
        self.ids.d.next = self.ids.q.val();
        self.wr39_f.next = 0.into();
        for i in 0..N {
            if self.f_slot.val() == i.to_bits() {
                self.wr39_f.next = self.ones16.val() << (i * 16).to_bits::<16>();
            }
        }
        self.wr40_f.next = 0.into();
        for i in 0..N {
            if self.f_slot.val() == i.to_bits() {
                self.wr40_f.next = bit_cast::<S16, 16>(self.f_next_id.val()) << (i * 16).to_bits::<16>();
            }
        }
        if self.f_valid.val() {
            self.valid_f.next = self.valid.q.val().replace_bit(self.f_slot.val().index(), false);
            self.ids.d.next = (self.ids.q.val() & (!(self.wr39_f.val())))
                | (self.wr40_f.val());
        }
        self.done_valid.next = self.f_valid.val();
        self.done_slot.next = self.f_slot.val();
        self.rd22_f.next = 0.into();
        for i in 0..N {
            if self.f_slot.val() == i.to_bits() {
                self.rd22_f.next = self.ids.q.val().get_bits::<16>(i * 16);
            }
        }
        self.done_tx_msg_id.next = self.rd22_f.val();
        self.done_abandoned.next = !self.d_complete.val();
        self.cancel_valid.next = self.d_complete.val();
        self.cancel_slot.next = self.d_slot.val();

        // ---------------- message write ----------------
        self.new_ready.next = !self.t_go.val();
        self.w_go.next = self.new_valid.val() & (!self.t_go.val());
        self.w_busy.next = self.valid.q.val().get_bit(self.new_slot.val().index());
        self.w_ok.next = self.w_go.val() & (!self.w_busy.val());
        self.rd23_w.next = 0.into();
        for i in 0..N {
            if self.new_slot.val() == i.to_bits() {
                self.rd23_w.next = self.ids.q.val().get_bits::<16>(i * 16);
            }
        }
        self.new_tx_msg_id.next = self.rd23_w.val();
        // Packets = ceil(msg_len / 1024), on 17 bits so 65535 does not wrap.
        self.w_npkts.next =
            bit_cast::<16, 17>((bit_cast::<17, 16>(self.new_msg_len.val()) + 1023) >> 10);
        self.w_pkt_mask.next = !(self.ones64.val() << bit_cast::<7, 16>(self.w_npkts.val()));
        self.w_credit_req.next = self.default_credit.val();
        if self.new_credit_valid.val() {
            self.w_credit_req.next = self.new_credit.val();
        }
        self.w_credit.next = self.w_credit_req.val();
        if self.w_credit_req.val() > self.w_npkts.val() {
            self.w_credit.next = self.w_npkts.val();
        }
        self.w_credit_mask.next = !(self.ones64.val() << bit_cast::<7, 16>(self.w_credit.val()));
        // Slot mask of `w`: ones over the slot's 64-bit slice (decode, then widen by doubling).
        self.w_sb.next = bit_cast::<10, IW>(self.new_slot.val()) << 6;
        self.w_oh.next = self.one_flat.val() << self.w_sb.val();
        self.w_m0.next = self.w_oh.val() | (self.w_oh.val() << 1);
        self.w_m1.next = self.w_m0.val() | (self.w_m0.val() << 2);
        self.w_m2.next = self.w_m1.val() | (self.w_m1.val() << 4);
        self.w_m3.next = self.w_m2.val() | (self.w_m2.val() << 8);
        self.w_m4.next = self.w_m3.val() | (self.w_m3.val() << 16);
        self.w_mask.next = self.w_m4.val() | (self.w_m4.val() << 32);
        self.wr41_w.next = self.w_mask.val();
        self.w_slice_clear.next = self.wr41_w.val();

        self.valid.d.next = self.valid_f.val();
        self.delivered.d.next = self.del_d.val();
        self.tx.d.next = self.tx_f.val();
        self.rtx_pending.d.next = self.rtx_f.val();
        self.credit_mask.d.next = self.mask_c.val();
        self.credit.d.next = self.credit_c.val();
        self.max_tx_p1.d.next = self.max_s.val();
        self.timeout_cnt.d.next = self.cnt_t.val();
        self.sched_valid.next = self.t_retx.val();
        self.sched_slot.next = self.t_slot.q.val();
        self.rd24_t.next = 0.into();
        for i in 0..N {
            if self.t_slot.q.val() == i.to_bits() {
                self.rd24_t.next = self.max_s.val().get_bits::<8>(i * 8);
            }
        }
        self.sched_meta.next = (bit_cast::<24, 16>(self.t_meta.q.val().get_bits::<16>(8)) << 8)
            | bit_cast::<24, 8>(self.rd24_t.val());
        self.rd25_w.next = 0.into();
        for i in 0..N {
            if self.new_slot.val() == i.to_bits() {
                self.rd25_w.next = self.ids.q.val().get_bits::<16>(i * 16);
            }
        }
        // Write slice: replicate the value into every slice, keep the slot's.
        self.wr42_w_r0.next = bit_cast::<BM, 64>(self.w_pkt_mask.val());
        self.wr42_w_r1.next = self.wr42_w_r0.val() | (self.wr42_w_r0.val() << 64);
        self.wr42_w_r2.next = self.wr42_w_r1.val() | (self.wr42_w_r1.val() << 128);
        self.wr42_w_r3.next = self.wr42_w_r2.val() | (self.wr42_w_r2.val() << 256);
        self.wr42_w.next = (self.wr42_w_r3.val() | (self.wr42_w_r3.val() << 512)) & self.w_mask.val();
        // Write slice: replicate the value into every slice, keep the slot's.
        self.wr43_w_r0.next = bit_cast::<BM, 64>(self.w_credit_mask.val());
        self.wr43_w_r1.next = self.wr43_w_r0.val() | (self.wr43_w_r0.val() << 64);
        self.wr43_w_r2.next = self.wr43_w_r1.val() | (self.wr43_w_r1.val() << 128);
        self.wr43_w_r3.next = self.wr43_w_r2.val() | (self.wr43_w_r2.val() << 256);
        self.wr43_w.next = (self.wr43_w_r3.val() | (self.wr43_w_r3.val() << 512)) & self.w_mask.val();
        self.wr44_w.next = 0.into();
        for i in 0..N {
            if self.new_slot.val() == i.to_bits() {
                self.wr44_w.next = self.ones16.val() << (i * 16).to_bits::<16>();
            }
        }
        self.wr45_w.next = 0.into();
        for i in 0..N {
            if self.new_slot.val() == i.to_bits() {
                self.wr45_w.next = bit_cast::<S16, 16>(self.w_credit.val()) << (i * 16).to_bits::<16>();
            }
        }
        self.wr46_w.next = 0.into();
        for i in 0..N {
            if self.new_slot.val() == i.to_bits() {
                self.wr46_w.next = self.ones8.val() << (i * 8).to_bits::<16>();
            }
        }
        self.wr47_w.next = 0.into();
        for i in 0..N {
            if self.new_slot.val() == i.to_bits() {
                self.wr47_w.next = bit_cast::<S8, 16>(self.w_npkts.val()) << (i * 8).to_bits::<16>();
            }
        }
        self.wr48_w.next = 0.into();
        for i in 0..N {
            if self.new_slot.val() == i.to_bits() {
                self.wr48_w.next = self.ones8.val() << (i * 8).to_bits::<16>();
            }
        }
        self.wr49_w.next = 0.into();
        for i in 0..N {
            if self.new_slot.val() == i.to_bits() {
                self.wr49_w.next = self.ones8.val() << (i * 8).to_bits::<16>();
            }
        }
        self.wr50_w.next = 0.into();
        for i in 0..N {
            if self.new_slot.val() == i.to_bits() {
                self.wr50_w.next = self.ones32.val() << (i * 32).to_bits::<16>();
            }
        }
        self.wr51_w.next = 0.into();
        for i in 0..N {
            if self.new_slot.val() == i.to_bits() {
                self.wr51_w.next = bit_cast::<S32, 32>(self.new_remote_ip.val()) << (i * 32).to_bits::<16>();
            }
        }
        self.wr52_w.next = 0.into();
        for i in 0..N {
            if self.new_slot.val() == i.to_bits() {
                self.wr52_w.next = self.ones16.val() << (i * 16).to_bits::<16>();
            }
        }
        self.wr53_w.next = 0.into();
        for i in 0..N {
            if self.new_slot.val() == i.to_bits() {
                self.wr53_w.next = bit_cast::<S16, 16>(self.new_remote_port.val()) << (i * 16).to_bits::<16>();
            }
        }
        self.wr54_w.next = 0.into();
        for i in 0..N {
            if self.new_slot.val() == i.to_bits() {
                self.wr54_w.next = self.ones16.val() << (i * 16).to_bits::<16>();
            }
        }
        self.wr55_w.next = 0.into();
        for i in 0..N {
            if self.new_slot.val() == i.to_bits() {
                self.wr55_w.next = bit_cast::<S16, 16>(self.new_local_port.val()) << (i * 16).to_bits::<16>();
            }
        }
        self.wr56_w.next = 0.into();
        for i in 0..N {
            if self.new_slot.val() == i.to_bits() {
                self.wr56_w.next = self.ones16.val() << (i * 16).to_bits::<16>();
            }
        }
        self.wr57_w.next = 0.into();
        for i in 0..N {
            if self.new_slot.val() == i.to_bits() {
                self.wr57_w.next = bit_cast::<S16, 16>(self.new_msg_len.val()) << (i * 16).to_bits::<16>();
            }
        }
        self.wr58_w.next = 0.into();
        for i in 0..N {
            if self.new_slot.val() == i.to_bits() {
                self.wr58_w.next = self.ones8.val() << (i * 8).to_bits::<16>();
            }
        }
        self.wr59_w.next = 0.into();
        for i in 0..N {
            if self.new_slot.val() == i.to_bits() {
                self.wr59_w.next = bit_cast::<S8, 8>(self.new_rank.val()) << (i * 8).to_bits::<16>();
            }
        }
        if self.w_ok.val() {
            self.valid.d.next = self.valid_f.val().replace_bit(self.new_slot.val().index(), true);
            self.delivered.d.next = self.del_d.val() & (!self.w_slice_clear.val());
            self.tx.d.next = (self.tx_f.val() & (!self.w_slice_clear.val()))
                | (self.wr42_w.val());
            self.rtx_pending.d.next = self.rtx_f.val() & (!self.w_slice_clear.val());
            self.credit_mask.d.next = (self.mask_c.val() & (!self.w_slice_clear.val()))
                | (self.wr43_w.val());
            self.credit.d.next = (self.credit_c.val() & (!(self.wr44_w.val())))
                | (self.wr45_w.val());
            self.npkts.d.next = (self.npkts.q.val() & (!(self.wr46_w.val())))
                | (self.wr47_w.val());
            self.max_tx_p1.d.next = self.max_s.val() & (!(self.wr48_w.val()));
            self.timeout_cnt.d.next = self.cnt_t.val() & (!(self.wr49_w.val()));
            self.remote_ip.d.next = (self.remote_ip.q.val() & (!(self.wr50_w.val())))
                | (self.wr51_w.val());
            self.remote_port.d.next = (self.remote_port.q.val() & (!(self.wr52_w.val())))
                | (self.wr53_w.val());
            self.local_port.d.next = (self.local_port.q.val() & (!(self.wr54_w.val())))
                | (self.wr55_w.val());
            self.msg_len.d.next = (self.msg_len.q.val() & (!(self.wr56_w.val())))
                | (self.wr57_w.val());
            self.rank.d.next = (self.rank.q.val() & (!(self.wr58_w.val())))
                | (self.wr59_w.val());
            self.sched_valid.next = true;
            self.sched_slot.next = self.new_slot.val();
            self.sched_meta.next =
                bit_cast::<24, 16>(self.rd25_w.val()) << 8;
        }

        // ---------------- counters (saturating) ----------------
        if (self.dlv_valid.val() & (!self.d_hit.val())) & (self.cnt_stale_dlv.q.val() != 0xFFFF) {
            self.cnt_stale_dlv.d.next = self.cnt_stale_dlv.q.val() + 1;
        }
        if (self.ctx_valid.val() & (!self.c_hit.val())) & (self.cnt_stale_ctx.q.val() != 0xFFFF) {
            self.cnt_stale_ctx.d.next = self.cnt_stale_ctx.q.val() + 1;
        }
        if (self.t_go.val() & (!self.t_hit.val())) & (self.cnt_stale_to.q.val() != 0xFFFF) {
            self.cnt_stale_to.d.next = self.cnt_stale_to.q.val() + 1;
        }
        if (self.d_hit.val() & (self.dlv_ack_bitmap.val() & (!self.d_pkt_mask.val())).any())
            & (self.cnt_ack_beyond.q.val() != 0xFFFF)
        {
            self.cnt_ack_beyond.d.next = self.cnt_ack_beyond.q.val() + 1;
        }
        if ((self.c_hit.val() & self.ctx_rtx_flag.val())
            & (self.ctx_rtx_bitmap.val() & (!self.c_pkt_mask.val())).any())
            & (self.cnt_rtx_beyond.q.val() != 0xFFFF)
        {
            self.cnt_rtx_beyond.d.next = self.cnt_rtx_beyond.q.val() + 1;
        }
        if ((self.c_hit.val() & self.ctx_credit_flag.val()) & self.c_req_beyond.val())
            & (self.cnt_credit_beyond.q.val() != 0xFFFF)
        {
            self.cnt_credit_beyond.d.next = self.cnt_credit_beyond.q.val() + 1;
        }
        if (self.w_go.val() & self.w_busy.val()) & (self.cnt_write_busy.q.val() != 0xFFFF) {
            self.cnt_write_busy.d.next = self.cnt_write_busy.q.val() + 1;
        }
        if self.d_complete.val() & (self.cnt_delivered.q.val() != 0xFFFF) {
            self.cnt_delivered.d.next = self.cnt_delivered.q.val() + 1;
        }
        if self.t_abandon.val() & (self.cnt_abandoned.q.val() != 0xFFFF) {
            self.cnt_abandoned.d.next = self.cnt_abandoned.q.val() + 1;
        }
        self.active.next = self.valid.q.val();
        self.stale_delivered_count.next = self.cnt_stale_dlv.q.val();
        self.stale_credit_count.next = self.cnt_stale_ctx.q.val();
        self.stale_timeout_count.next = self.cnt_stale_to.q.val();
        self.ack_beyond_count.next = self.cnt_ack_beyond.q.val();
        self.rtx_beyond_count.next = self.cnt_rtx_beyond.q.val();
        self.credit_beyond_count.next = self.cnt_credit_beyond.q.val();
        self.write_busy_count.next = self.cnt_write_busy.q.val();
        self.delivered_msg_count.next = self.cnt_delivered.q.val();
        self.abandoned_msg_count.next = self.cnt_abandoned.q.val();

        if self.reset.val() {
            self.valid.d.next = 0.into();
            self.tx.d.next = 0.into();
            self.rtx_pending.d.next = 0.into();
            self.ids.d.next = self.initial_ids.val();
            self.rr_next.d.next = 0.into();
            self.t_pending.d.next = false;
            self.out_valid.d.next = false;
            self.cnt_stale_dlv.d.next = 0.into();
            self.cnt_stale_ctx.d.next = 0.into();
            self.cnt_stale_to.d.next = 0.into();
            self.cnt_ack_beyond.d.next = 0.into();
            self.cnt_rtx_beyond.d.next = 0.into();
            self.cnt_credit_beyond.d.next = 0.into();
            self.cnt_write_busy.d.next = 0.into();
            self.cnt_delivered.d.next = 0.into();
            self.cnt_abandoned.d.next = 0.into();
        }
    }
}

/// The 16-message packetization core.
pub type Packetization16 = Packetization<16, 4, 1024, 128, 256, 512>;

#[cfg(test)]
mod tests {
    use super::*;

    fn clock(u: &mut Packetization16) {
        assert!(simulate(u, 1000));
        u.clock.next = Clock { clk: true };
        assert!(simulate(u, 1000));
        u.clock.next = Clock { clk: false };
        assert!(simulate(u, 1000));
    }

    #[test]
    fn writes_a_message_and_sends_its_packets_in_order_within_credit() {
        let mut u = Packetization16::default();
        u.connect_all();
        u.pkt_ready.next = true;
        u.default_credit.next = 2.into();
        u.timeout_threshold.next = 3.into();
        u.reset.next = true;
        clock(&mut u);
        u.reset.next = false;
        u.new_valid.next = true;
        u.new_slot.next = 4.into();
        u.new_msg_len.next = 3000.into();
        assert!(simulate(&mut u, 1000));
        assert!(u.new_ready.val());
        assert_eq!(u.new_tx_msg_id.val().to_u64(), 4, "first generation of slot 4");
        assert!(u.sched_valid.val(), "the write schedules the egress timer");
        clock(&mut u);
        u.new_valid.next = false;
        let mut sent = vec![];
        for _ in 0..5 {
            assert!(simulate(&mut u, 1000));
            if u.pkt_valid.val() {
                sent.push((u.pkt_offset.val().to_u64(), u.pkt_is_new_msg.val(), u.pkt_is_rtx.val()));
            }
            clock(&mut u);
        }
        // 3000 bytes = 3 packets; default credit 2 (exclusive): offsets 0 and 1.
        assert_eq!(sent, vec![(0, true, false), (1, false, false)]);
        assert_eq!(u.active.val().to_u64(), 1 << 4);
    }
}
