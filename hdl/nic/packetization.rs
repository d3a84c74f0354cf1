//! Packetization core (thesis §3.2.4, Algorithms 2–4) for `N = 2^IW` messages: per-message
//! transmit state, the three events, and the choice of the next packet to send. One
//! implementation for every size (16 and 128 messages in the named configurations): the
//! per-slot state lives in one RAM, read-modify-written by a three-stage pipeline.
//!
//! # State
//! * `slot_ram` (N × 337 bit, synchronous read, read-before-write), one word per slot:
//!   `deliveredBitmap` 64 @0, `txBitmap` 64 @64, `rtxPending` 64 @128 (packets a timeout ordered
//!   out, sent regardless of credit, as Algorithm 4's `Emit`), `credit` 16 @192, `allowTx` 1 @208,
//!   packet count 8 @209, `maxTxPktOffset + 1` 8 @217 (0 = nothing sent yet), `timeoutCnt` 8 @225,
//!   the slot's current tx_msg_id 16 @233 (its low `IW` bits are ignored: the slot supplies
//!   them), remote_ip 32 @249, remote_port 16 @281, local_port 16 @297, msg_len 16 @313, rank 8
//!   @329.
//! * Flip-flops: `active` (N bits, a message is installed), `sendable` (N bits, the slot had
//!   an eligible packet after its last operation) and `id_known` (N bits, the slot's word was
//!   written since power-up), each changed through the one-hot mask of the slot written back
//!   ([`crate::common::one_hot::OneHot`]) — the round robin's mask of the slots above the last one chosen, the
//!   pipeline registers, a 3-entry descriptor queue, the counters.
//!
//! **Credit is an exclusive bound**: offsets strictly below `credit` may be sent. The thesis words
//! it inclusively ("the largest pkt_offset allowed"); we follow the authors' prototype deliberately
//! (and Algorithm 3's `OnesUntil(credit)`, which is exclusive). Credit never exceeds the packet
//! count: a larger value is clamped (counted when it comes from a CreditTxEvent).
//!
//! **tx_msg_id** = `{generation, slot}`: the slot index in the low `IW` bits, a generation in the
//! other `16 − IW`; the generation advances when the slot is freed. Every event and every timer
//! expiry is checked against the slot's current ID; a mismatch (unknown, finished or reused
//! message) is counted as stale and changes nothing. The ID lives in the RAM and is not reset:
//! after `reset` a slot continues from its previous generation, so an event that predates a reset
//! cannot match a message written after it either. From power-up slot `i`'s first ID is `i`: one
//! flip-flop per slot (`id_known`, not reset) says whether its RAM word was ever written, and a
//! word never written reads as generation 0 — the RAM's power-up contents are not relied on
//! (they are unknown in a 4-state simulator and in memories without initial contents).
//!
//! # The pipeline (one operation per cycle)
//! ```text
//!  S0  arbitrate: DeliveredEvent queue > CreditTxEvent queue > timeout > message install > packet
//!      choice, holding an event on the slot now in S1 (and a timeout on the slot in S1 or S2)
//!      and never choosing a packet of the slots in S1 or S2; the winner's slot addresses slot_ram
//!  S1  word = slot_ram data, or the word S2 wrote in the previous cycle when it is the same slot
//!      (forwarding: the RAM reads before it writes); apply the operation (Algorithms 2–4, the
//!      install) in the sub-block SlotUpdate; the completion and the install's ID leave here
//!  S2  optionally choose a packet from the updated word in the sub-block PacketChoice; write the
//!      word back, update active/sendable, emit the descriptor; the timer schedule/cancel leaves
//!      here (registered)
//! ```
//! The two sub-blocks are combinational and hold what one operation does to one slot's word:
//! [`SlotUpdate`] (S1) and [`PacketChoice`] (S2), with a reference-model test of the two on one
//! slot, directed cases of the choice and a lockstep test each. This block keeps what concerns several slots: the arbitration, the hazards
//! and forwarding between operations, the per-slot flags, the round robin and the queues.
//! Operations are applied one at a time in the order they win S0, each seeing every earlier one,
//! so there is no same-cycle order to define. The word of the slot in S1 is written back only at
//! the end of the next cycle, so an operation on that slot waits one cycle in S0 (the others go
//! ahead in priority order) and then reads S2's word through the forwarding register. The update
//! (an event's compare, Algorithms 2–4) and the choice (eligibility, a 64-bit find-first-set)
//! are thus in different cycles: the loop through the RAM is two cycles long, which halves the
//! logic depth of the one-stage loop it replaced. The packet choice skips the slots in S1 and S2
//! (one-hot masks on the round robin's bitmap), so it needs no forwarding and always sees the
//! slot's refreshed `sendable`; the cost is one descriptor every 3 cycles from a single message
//! (three or more sendable messages still give one per cycle).
//!
//! * **Packet choice**: round robin over `sendable` in ascending slot order (the first sendable
//!   slot above the last one chosen, else the first one; the slots in S1 and S2 are skipped), two N-bit
//!   find-first-set; with `k` messages eligible each gets one packet in every `k` consecutive
//!   choices. It is issued only when the descriptor queue is sure to have room, not counting a
//!   descriptor taken in the same cycle (so the stream's `tready` stays out of the choice). In S2 the smallest
//!   eligible offset of the updated word is sent: eligible = `((txBitmap & OnesUntil(credit) if
//!   allowTx) | rtxPending) & ~deliveredBitmap`; sending clears the packet's `txBitmap` and
//!   `rtxPending` bits and raises `maxTxPktOffset`. `sendable` of a slot chosen in cycle t is
//!   refreshed at the end of t+2 and the slot is skipped until then, so a choice never finds a
//!   message with nothing left (only an event in between can empty it, then nothing is emitted).
//!   `rank` is carried in the metadata for the egress pipeline; it does not change the order here.
//! * **Install** (message write): the word is initialised (`txBitmap` = OnesUntil(packets),
//!   credit = min(descriptor credit or `default_credit`, packets), `allowTx` = 1), the timer is
//!   scheduled with metadata `{tx_msg_id, 0}` ("nothing sent yet"), the ID is returned on
//!   `new_id_valid`/`new_id`, and — when the descriptor queue has room — the first packet is
//!   chosen in the same operation (this keeps the transmit path's latency at 9 cycles). A write to
//!   an active slot changes nothing and is counted (`write_busy_count`).
//! * **DeliveredEvent** (Algorithm 2): `deliveredBitmap |= ackBitmap`; the packets leave
//!   `txBitmap`/`rtxPending`; when every packet is delivered the slot is freed, its timer
//!   cancelled and a completion (delivered) reported. ackBitmap bits at or beyond the packet count
//!   are ignored and counted (`ack_beyond_count`).
//! * **CreditTxEvent** (Algorithm 3): `rtxFlag` → `txBitmap |= rtxBitmap` (bits beyond the packet
//!   count ignored and counted, `rtx_beyond_count`); `creditUpdateFlag` → credit = `newCredit`
//!   (mode **overwrite**) or `max(credit, newCredit)` (mode **raise-only**, so a late PULL/GRANT
//!   never lowers it; a value beyond the packet count is clamped and counted,
//!   `credit_beyond_count`); `allowTxFlag = 0` withholds the message's credit-governed packets
//!   until a later CreditTxEvent allows them.
//! * **TimeoutEvent** (Algorithm 4) from the timer, whose metadata is the tx_msg_id and
//!   `maxTxPktOffset + 1` as of scheduling (`rtx_offset + 1`, 0 = nothing sent yet): `timeoutCnt`
//!   is reset to 0 if `maxTxPktOffset` advanced since the timer was set (progress), else
//!   incremented (saturating at 255); if the **updated** count is `> timeout_threshold` the message
//!   is abandoned (freed, completion "abandoned", counted). Otherwise every non-delivered packet
//!   with offset **≤ rtx_offset** (inclusive: a single-packet message is retransmitted) moves from
//!   `txBitmap` to `rtxPending`, and the timer is scheduled again with the current
//!   `maxTxPktOffset + 1`. **First recovery takes two RTOs** (Algorithm 4 taken literally): the
//!   install schedules the timer with "nothing sent yet", so the first expiry retransmits nothing
//!   (it counts as progress when packets went out) and a lost packet is first retransmitted at the
//!   second expiry; a message none of whose packets is acknowledged is retransmitted at expiries
//!   2 … `threshold + 1` and abandoned at expiry `threshold + 2` after the install.
//!   **Option `rtx_first_expiry`** (configuration register 0x38 bit 0, default off = the
//!   thesis): an expiry whose timer was set with "nothing sent yet" retransmits every
//!   non-delivered packet sent so far (`< maxTxPktOffset + 1` now), so a lost packet is resent
//!   one RTO after the install, as the ns-3 model does; progress and abandonment are unchanged.
//!   **Option `probe_idle_timeout`** (register 0x38 bit 1, default off = the thesis): an expiry
//!   that is not an abandonment and finds the message idle (every packet sent so far delivered,
//!   every credited packet sent, credit > 0) resends its highest credited packet, offset
//!   `credit − 1`, marking it not delivered, so the receiver sees a duplicate and answers again
//!   (Homa with its option: the message's current GRANT, recovering a lost GRANT; NDP: ACK +
//!   PULL). The answer's cumulative ack marks the packet delivered again.
//!
//! # Events are never lost below the stated rate
//! `dlv` and `ctx` have no ready: each is pushed into its own 16-entry FIFO
//! ([`StreamFifo`]; an entry is at the head 2 cycles after its push) and the queues have the
//! highest priority in S0, DeliveredEvents first, so together they are served at one event per
//! cycle. Either kind alone at one per cycle is never lost; with both kinds, the excess over one
//! per cycle accumulates in the CreditTxEvent queue, and an event is dropped only when its queue
//! already holds 16 entries — dropped and counted in `event_overflow_count` (a defined outcome,
//! never silent). Measured (tx_path test `event_bursts_are_never_lost_silently`, both sizes): 16
//! cycles with both events in every cycle lose nothing; 200 such cycles overflow 184
//! CreditTxEvents, every event processed or counted. While events keep arriving every cycle,
//! timeouts, installs and packet choices wait (valid/ready, nothing lost); the ingress delivers at
//! most two events per received packet, and a packet is at least 8 cycles on a 64-bit datapath.
//!
//! # Ports
//! | group | ports | meaning |
//! |---|---|---|
//! | config | `default_credit` 16, `timeout_threshold` 8 | initial credit (BDP in packets, `rtt_pkts`) when the descriptor gives none; abandon threshold |
//! | install | `new_valid`, `new_ready` (taken this cycle), `new_slot` IW, `new_remote_ip` 32, `new_remote_port` 16, `new_local_port` 16, `new_msg_len` 16, `new_credit_valid`, `new_credit` 16, `new_rank` 8; `new_id_valid`/`new_id` 16 (out: a pulse in the operation's S1 cycle, only for a successful install) | install a message in a free slot |
//! | delivered | `dlv.valid`, `dlv.tx_msg_id` 16, `dlv.ack_bitmap` 64 | Algorithm 2 |
//! | credit | `ctx.valid`, `ctx.tx_msg_id` 16, `ctx.rtx_flag`, `ctx.rtx_bitmap` 64, `ctx.credit_flag`, `ctx.new_credit` 16, `ctx.allow_tx`, `ctx.raise_only` | Algorithm 3 |
//! | timeout in | `to_valid`, `to_ready`, `to_slot` IW, `to_meta` 24 | from the timer: meta = {tx_msg_id 16, maxTxPktOffset+1 8} |
//! | timer out | `sched_valid`, `sched_slot` IW, `sched_meta` 24, `cancel_valid`, `cancel_slot` IW | to the timer |
//! | packet out | `pkt` ([`PacketDescriptorSource`]): `valid`, `ready`, `slot` IW, Listing 3.2: `remote_ip` 32, `remote_port` 16, `msg_len` 16, `offset` 8, `local_port` 16, `tx_msg_id` 16, `credit` 16, `rank` 8, `flags` 8 (DATA), `is_new_msg`, `is_rtx`; `pkt_q1_valid`/`pkt_q1_slot`, `pkt_q2_valid`/`pkt_q2_slot` (the second and third queued descriptors: the transmit path keeps their buffers out of the free list) | one packet descriptor, valid/ready |
//! | completion | `done_valid`, `done_tx_msg_id` 16 (slot = its low IW bits), `done_abandoned` | one-cycle pulse when a slot is freed |
//! | status | `active` N, 16-bit saturating counters: `stale_delivered_count`, `stale_credit_count`, `stale_timeout_count`, `ack_beyond_count`, `rtx_beyond_count`, `credit_beyond_count`, `write_busy_count`, `delivered_msg_count`, `abandoned_msg_count`, `event_overflow_count` | |
//!
//! # Latency and throughput
//! Install taken in S0 in cycle t → its ID in t + 1, its timer schedule in t + 2, its first descriptor valid
//! in cycle t + 3. An event pushed in cycle t is at the head of its queue in t + 2, applied in S1
//! in t + 3 (if it wins S0), seen by a packet choice of its slot issued in t + 5 (a choice of
//! another slot is not held). Throughput: one operation per cycle; one packet descriptor per
//! cycle while the consumer takes one per cycle and three or more messages are sendable, one
//! every 3 cycles from a single message (the slots in S1 and S2 are skipped). The same at every N (the
//! round-robin find-first-set grows with log N in depth).
//!
//! Logic depth (Yosys, the block alone, its sub-blocks synthesised as separate modules): 10
//! levels at 16 and at 128 messages (28 and 31 with one stage for S1 and S2). S1's longest path
//! runs from the per-slot `id_known` flag through the slot's ID and an event's ID compare to a
//! counter; S2's from the credit through the eligibility, the 64-bit find-first-set and the
//! cleared bit to the word written back.
//!
//! # Reset
//! One cycle of `reset`: every slot inactive, queues empty, counters zero (IDs kept).

use crate::common::bundles::{CreditTxEventSink, DeliveredEventSink, PacketDescriptorSource};
use crate::common::event_counter::SaturatingCounter;
use crate::common::find_first_set::FindFirstSet;
use crate::common::one_hot::OneHot;
use crate::common::stream_fifo::StreamFifo;
use crate::nic::packet_choice::PacketChoice;
use crate::nic::slot_update::SlotUpdate;
use crate::{locals, ports, registers, status_counters, Blank};
use rust_hdl::prelude::*;

pub use crate::nic::slot_update::SLOT_WORD_BITS;

/// Packetization core for `N = 2^IW` messages.
#[ports(
    in clock: Clock;
    in reset: Bit;
    in default_credit: Bits<16>;
    in timeout_threshold: Bits<8>;
    /// Option: the first expiry after an install retransmits what was sent (see Algorithm 4 below).
    in rtx_first_expiry: Bit;
    /// Option: an expiry with nothing to retransmit resends the highest credited packet.
    in probe_idle_timeout: Bit;
    // message install
    in new_valid, new_credit_valid: Bit;
    out new_ready, new_id_valid: Bit;
    in new_slot: Bits<IW>;
    in new_remote_ip: Bits<32>;
    in new_remote_port, new_local_port, new_msg_len, new_credit: Bits<16>;
    in new_rank: Bits<8>;
    out new_id: Bits<16>;
    // TimeoutEvent
    in to_valid: Bit;
    out to_ready: Bit;
    in to_slot: Bits<IW>;
    in to_meta: Bits<24>;
    // to the timer
    out sched_valid, cancel_valid: Bit;
    out sched_slot, cancel_slot: Bits<IW>;
    out sched_meta: Bits<24>;
    out pkt_q1_valid, pkt_q2_valid: Bit;
    out pkt_q1_slot, pkt_q2_slot: Bits<IW>;
    // completion
    out done_valid, done_abandoned: Bit;
    out done_tx_msg_id: Bits<16>;
    // status
    out active: Bits<N>;
    out stale_delivered_count, stale_credit_count, stale_timeout_count, ack_beyond_count, rtx_beyond_count, credit_beyond_count,
    write_busy_count, delivered_msg_count, abandoned_msg_count, event_overflow_count: Bits<16>;
)]
#[registers(
    // ---- state ----
    active_bits, sendable: Bits<N>;
    /// Slots whose RAM word has been written since power-up (not reset: IDs continue).
    id_known: Bits<N>;
    /// The slots above the one sent last, where the round robin looks first.
    rr_above_mask: Bits<N>;
    s1_valid, s1_rtx_flag, s1_credit_flag, s1_allow, s1_raise, s1_emit: Bit;
    s1_kind: Bits<3>;
    s1_slot: Bits<IW>;
    s1_id, s1_credit: Bits<16>;
    s1_bitmap: Bits<64>;
    s1_rtx_p1: Bits<8>;
    /// An install's `remote_ip`, `remote_port`, `local_port`, `msg_len`, `rank` (the word's layout from bit 249).
    s1_meta: Bits<88>;
    /// S1 reads the word S2 wrote in the previous cycle (the RAM reads before it writes).
    s1_fwd: Bit;
    /// One-hot of the slot in S1 / S2 (zero when the stage is empty): the packet choice skips
    /// both, so it always reads a slot's current word from the RAM and its fresh `sendable`.
    s1_onehot: Bits<N>;
    s2_onehot: Bits<N>;
    fwd_word: Bits<337>;
    // S2: the word after the operation, before the packet choice.
    s2_valid, s2_emit, s2_active: Bit;
    s2_slot: Bits<IW>;
    s2_id: Bits<16>;
    s2_word: Bits<337>;
    /// The operation's timer schedule (with its metadata) and cancel, sent from S2.
    s2_sched: Bit;
    s2_sched_meta: Bits<24>;
    s2_cancel: Bit;
    q_count: Bits<2>;
    q0, q1, q2: Bits<130>;
)]
#[locals(
    // ---- S0 locals ----
    ev_dlv, ev_ctx, g_dlv, g_ctx, g_to, g_new, g_pkt, q_pop: Bit;
    /// Queue entries kept after this cycle's pop: where this cycle's descriptor goes.
    q_fill: Bits<2>;
    room: Bit;
    /// Each source's operation is held while its slot is in S1 (see the pipeline).
    hz_dlv: Bit;
    hz_ctx, hz_to, hz_new, ok_dlv, ok_ctx, ok_to, ok_new: Bit;
    ev_slot: Bits<IW>;
    rr_candidates: Bits<N>;
    occ_after: Bits<3>;
    /// One-hot of the slot the round robin picks.
    pick_onehot: Bits<N>;
    pick_slot, s0_slot: Bits<IW>;
    dlv_head: Bits<80>;
    ctx_head: Bits<100>;
    dlv_overflow, ctx_overflow: Bit;
    // ---- S1 locals ----
    cur, n_word: Bits<337>;
    c_active, free_go, n_sendable: Bit;
    e_desc: Bits<130>;
)]
#[derive(LogicBlock, Blank)]
pub struct Packetization<const N: usize, const IW: usize> {
    // DeliveredEvent
    pub dlv: DeliveredEventSink,
    // CreditTxEvent
    pub ctx: CreditTxEventSink,
    // packet descriptor (Listing 3.2)
    /// The next packet's descriptor (`pkt$valid`, … in the Verilog).
    pub pkt: PacketDescriptorSource<IW>,

    // ---- blocks ----
    slot_ram: RAM<Bits<337>, IW>,
    dlv_q: StreamFifo<Bits<80>, 4>,
    ctx_q: StreamFifo<Bits<100>, 4>,
    rr_above: FindFirstSet<N, IW>,
    rr_any: FindFirstSet<N, IW>,
    /// S1: the operation applied to the slot's word (Algorithms 2–4, the install).
    slot_update: SlotUpdate<IW>,
    /// S2: the packet chosen from the updated word.
    choice: PacketChoice,

    cnt_stale_dlv: SaturatingCounter<16>,
    cnt_stale_ctx: SaturatingCounter<16>,
    cnt_stale_to: SaturatingCounter<16>,
    cnt_ack_beyond: SaturatingCounter<16>,
    cnt_rtx_beyond: SaturatingCounter<16>,
    cnt_credit_beyond: SaturatingCounter<16>,
    cnt_write_busy: SaturatingCounter<16>,
    cnt_delivered: SaturatingCounter<16>,
    cnt_abandoned: SaturatingCounter<16>,
    cnt_overflow: SaturatingCounter<16>,

    // ---- constants ----
    slot0_onehot: Constant<Bits<N>>,

    /// One-hot of an event's (or install's) slot.
    ev_mask: OneHot<N, IW>,
    /// One-hot of the slot whose state is written back this cycle.
    written_mask: OneHot<N, IW>,
}

impl<const N: usize, const IW: usize> Packetization<N, IW> {
    /// A core for `N = 2^IW` message slots.
    pub fn new() -> Self {
        assert_eq!(N, 1 << IW, "the core holds exactly 2^IW message slots");
        assert!((2..=16).contains(&IW), "tx_msg_id is 16 bits: the slot index needs 2..=16 of them");
        Self { slot_update: SlotUpdate::new(), slot0_onehot: Constant::new(1u64.to_bits()), ..Self::blank() }
    }
}

impl<const N: usize, const IW: usize> Default for Packetization<N, IW> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize, const IW: usize> Logic for Packetization<N, IW> {
    #[status_counters]
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            active_bits,
            sendable,
            id_known,
            rr_above_mask,
            s1_valid,
            s1_kind,
            s1_slot,
            s1_id,
            s1_bitmap,
            s1_rtx_flag,
            s1_credit_flag,
            s1_credit,
            s1_allow,
            s1_raise,
            s1_rtx_p1,
            s1_emit,
            s1_meta,
            s1_fwd,
            s1_onehot,
            s2_onehot,
            fwd_word,
            s2_valid,
            s2_slot,
            s2_emit,
            s2_id,
            s2_word,
            s2_active,
            s2_sched,
            s2_sched_meta,
            s2_cancel,
            q_count,
            q0,
            q1,
            q2
        );
        status_counters!(
            self,
            clock,
            reset,
            cnt_abandoned => abandoned_msg_count,
            cnt_ack_beyond => ack_beyond_count,
            cnt_credit_beyond => credit_beyond_count,
            cnt_delivered => delivered_msg_count,
            cnt_overflow => event_overflow_count,
            cnt_rtx_beyond => rtx_beyond_count,
            cnt_stale_ctx => stale_credit_count,
            cnt_stale_dlv => stale_delivered_count,
            cnt_stale_to => stale_timeout_count,
            cnt_write_busy => write_busy_count,
        );
        clock!(self, clock, dlv_q, ctx_q);
        self.slot_ram.read_clock.next = self.clock.val();
        self.slot_ram.write_clock.next = self.clock.val();
        self.dlv_q.reset.next = self.reset.val();
        self.ctx_q.reset.next = self.reset.val();

        // ---------------- event queues ----------------
        self.dlv_overflow.next = self.dlv.valid.val() & (self.dlv_q.level.val() == 16);
        self.ctx_overflow.next = self.ctx.valid.val() & (self.ctx_q.level.val() == 16);
        self.dlv_q.push.next = self.dlv.valid.val() & (!self.reset.val());
        self.dlv_q.push_data.next = bit_cast::<80, 16>(self.dlv.tx_msg_id.val()) | (bit_cast::<80, 64>(self.dlv.ack_bitmap.val()) << 16);
        self.ctx_q.push.next = self.ctx.valid.val() & (!self.reset.val());
        self.ctx_q.push_data.next = ((((bit_cast::<100, 16>(self.ctx.tx_msg_id.val())
            | (bit_cast::<100, 1>(self.ctx.rtx_flag.val().into()) << 16))
            | (bit_cast::<100, 64>(self.ctx.rtx_bitmap.val()) << 17))
            | ((bit_cast::<100, 1>(self.ctx.credit_flag.val().into()) << 81) | (bit_cast::<100, 16>(self.ctx.new_credit.val()) << 82)))
            | (bit_cast::<100, 1>(self.ctx.allow_tx.val().into()) << 98))
            | (bit_cast::<100, 1>(self.ctx.raise_only.val().into()) << 99);
        self.dlv_head.next = self.dlv_q.head_data.val();
        self.ctx_head.next = self.ctx_q.head_data.val();

        // ---------------- descriptor queue room ----------------
        self.q_pop.next = (self.q_count.q.val() != 0) & self.pkt.ready.val();
        // Entries at the start of the next cycle, counting the S1 and S2 operations that may emit:
        // at most 2 leaves room for the descriptor of an operation issued now (3 entries). This
        // cycle's pop is not counted, so the packet stream's `tready` stays out of S0's choice;
        // an emission then waits one cycle when the queue is full, which costs no throughput as
        // a packet takes at least 9 beats to read out.
        self.occ_after.next = (bit_cast::<3, 2>(self.q_count.q.val()) + bit_cast::<3, 1>(self.s1_emit.q.val().into()))
            + bit_cast::<3, 1>(self.s2_emit.q.val().into());
        self.room.next = self.occ_after.val() <= 2;

        // ---------------- S0: arbitration ----------------
        self.ev_dlv.next = self.dlv_q.head_valid.val();
        self.ev_ctx.next = self.ctx_q.head_valid.val();
        // The slot in S1 is written back by S2 only in the next cycle: an operation on it waits a
        // cycle (then S1 reads S2's word through `fwd_word`), the others go ahead in priority order.
        self.hz_dlv.next = self.s1_valid.q.val() & (self.dlv_head.val().get_bits::<IW>(0) == self.s1_slot.q.val());
        self.hz_ctx.next = self.s1_valid.q.val() & (self.ctx_head.val().get_bits::<IW>(0) == self.s1_slot.q.val());
        // A timeout also waits while its slot is in S2: S2 sends that slot's schedule/cancel to
        // the timer this cycle, and the core takes the timer's unmasked offer.
        self.hz_to.next = (self.s1_valid.q.val() & (self.to_slot.val() == self.s1_slot.q.val()))
            | (self.s2_valid.q.val() & (self.to_slot.val() == self.s2_slot.q.val()));
        self.hz_new.next = self.s1_valid.q.val() & (self.new_slot.val() == self.s1_slot.q.val());
        self.ok_dlv.next = self.ev_dlv.val() & (!self.hz_dlv.val());
        self.ok_ctx.next = self.ev_ctx.val() & (!self.hz_ctx.val());
        self.ok_to.next = self.to_valid.val() & (!self.hz_to.val());
        self.ok_new.next = self.new_valid.val() & (!self.hz_new.val());
        self.g_dlv.next = self.ok_dlv.val() & (!self.reset.val());
        self.g_ctx.next = (self.ok_ctx.val() & (!self.ok_dlv.val())) & (!self.reset.val());
        self.g_to.next = ((self.ok_to.val() & (!self.ok_dlv.val())) & (!self.ok_ctx.val())) & (!self.reset.val());
        self.g_new.next = (((self.ok_new.val() & (!self.ok_dlv.val())) & (!self.ok_ctx.val())) & (!self.ok_to.val())) & (!self.reset.val());
        // Slots above the last one sent: every bit above its one-hot `h` is `!(h | (h - 1))`.
        self.rr_candidates.next = (self.sendable.q.val() & (!self.s1_onehot.q.val())) & (!self.s2_onehot.q.val());
        self.rr_above.bitmap.next = self.rr_candidates.val() & self.rr_above_mask.q.val();
        self.rr_any.bitmap.next = self.rr_candidates.val();
        self.pick_slot.next = self.rr_any.index.val();
        self.pick_onehot.next = self.rr_any.onehot.val();
        if self.rr_above.found.val() {
            self.pick_slot.next = self.rr_above.index.val();
            self.pick_onehot.next = self.rr_above.onehot.val();
        }
        self.g_pkt.next = ((((self.rr_any.found.val() & self.room.val()) & (!self.ok_dlv.val())) & (!self.ok_ctx.val()))
            & ((!self.ok_to.val()) & (!self.ok_new.val())))
            & (!self.reset.val());
        self.dlv_q.pop.next = self.g_dlv.val();
        self.ctx_q.pop.next = self.g_ctx.val();
        self.to_ready.next = self.g_to.val();
        self.new_ready.next = self.g_new.val();

        self.s1_valid.d.next = (self.g_dlv.val() | self.g_ctx.val()) | ((self.g_to.val() | self.g_new.val()) | self.g_pkt.val());
        self.s1_kind.d.next = 0.into();
        self.s1_emit.d.next = false;
        self.ev_slot.next = self.new_slot.val();
        self.s1_id.d.next = 0.into();
        self.s1_bitmap.d.next = 0.into();
        self.s1_rtx_flag.d.next = false;
        self.s1_credit_flag.d.next = false;
        self.s1_credit.d.next = 0.into();
        self.s1_allow.d.next = false;
        self.s1_raise.d.next = false;
        self.s1_rtx_p1.d.next = 0.into();
        self.s1_meta.d.next = (((bit_cast::<88, 32>(self.new_remote_ip.val()) | (bit_cast::<88, 16>(self.new_remote_port.val()) << 32))
            | (bit_cast::<88, 16>(self.new_local_port.val()) << 48))
            | (bit_cast::<88, 16>(self.new_msg_len.val()) << 64))
            | (bit_cast::<88, 8>(self.new_rank.val()) << 80);
        if self.g_dlv.val() {
            self.s1_kind.d.next = 1.into();
            self.s1_id.d.next = self.dlv_head.val().get_bits::<16>(0);
            self.ev_slot.next = self.dlv_head.val().get_bits::<IW>(0);
            self.s1_bitmap.d.next = self.dlv_head.val().get_bits::<64>(16);
        } else if self.g_ctx.val() {
            self.s1_kind.d.next = 2.into();
            self.s1_id.d.next = self.ctx_head.val().get_bits::<16>(0);
            self.ev_slot.next = self.ctx_head.val().get_bits::<IW>(0);
            self.s1_rtx_flag.d.next = self.ctx_head.val().get_bit(16);
            self.s1_bitmap.d.next = self.ctx_head.val().get_bits::<64>(17);
            self.s1_credit_flag.d.next = self.ctx_head.val().get_bit(81);
            self.s1_credit.d.next = self.ctx_head.val().get_bits::<16>(82);
            self.s1_allow.d.next = self.ctx_head.val().get_bit(98);
            self.s1_raise.d.next = self.ctx_head.val().get_bit(99);
        } else if self.g_to.val() {
            self.s1_kind.d.next = 3.into();
            self.ev_slot.next = self.to_slot.val();
            self.s1_id.d.next = self.to_meta.val().get_bits::<16>(8);
            self.s1_rtx_p1.d.next = self.to_meta.val().get_bits::<8>(0);
        } else if self.g_new.val() {
            self.s1_kind.d.next = 4.into();
            self.ev_slot.next = self.new_slot.val();
            self.s1_credit_flag.d.next = self.new_credit_valid.val();
            self.s1_credit.d.next = self.new_credit.val();
            self.s1_emit.d.next = self.room.val();
        } else if self.g_pkt.val() {
            self.s1_emit.d.next = true;
            // Every bit above the chosen one-hot `h` is `!(h | (h - 1))`.
            self.rr_above_mask.d.next = !(self.pick_onehot.val() | (self.pick_onehot.val() - 1));
        }
        self.s0_slot.next = self.ev_slot.val();
        if self.g_pkt.val() {
            self.s0_slot.next = self.pick_slot.val();
        }
        self.slot_ram.read_address.next = self.s0_slot.val();
        self.s1_slot.d.next = self.s0_slot.val();
        // The RAM reads before it writes: S2's write in this cycle reaches S1 through `fwd_word`.
        // The round robin never picks the slot in S2, so only an event's read is forwarded.
        self.s1_fwd.d.next = (self.s2_valid.q.val() & (self.s2_slot.q.val() == self.ev_slot.val())) & (!self.g_pkt.val());
        self.ev_mask.index.next = self.ev_slot.val();
        self.ev_mask.enable.next = (self.g_dlv.val() | self.g_ctx.val()) | (self.g_to.val() | self.g_new.val());
        self.s1_onehot.d.next = self.ev_mask.onehot.val();
        if self.g_pkt.val() {
            self.s1_onehot.d.next = self.pick_onehot.val();
        }
        self.s2_onehot.d.next = self.s1_onehot.q.val();

        // ---------------- S1: read (with forwarding), apply the operation ----------------
        self.cur.next = self.slot_ram.read_data.val();
        if self.s1_fwd.q.val() {
            self.cur.next = self.fwd_word.q.val();
        }
        self.c_active.next = self.active_bits.q.val().get_bit(self.s1_slot.q.val().index());
        self.slot_update.word.next = self.cur.val();
        self.slot_update.slot.next = self.s1_slot.q.val();
        self.slot_update.id_known.next = self.id_known.q.val().get_bit(self.s1_slot.q.val().index());
        self.slot_update.active.next = self.c_active.val();
        self.slot_update.kind.next = self.s1_kind.q.val();
        self.slot_update.event_id.next = self.s1_id.q.val();
        self.slot_update.bitmap.next = self.s1_bitmap.q.val();
        self.slot_update.rtx_flag.next = self.s1_rtx_flag.q.val();
        self.slot_update.credit_flag.next = self.s1_credit_flag.q.val();
        self.slot_update.credit.next = self.s1_credit.q.val();
        self.slot_update.allow.next = self.s1_allow.q.val();
        self.slot_update.raise_only.next = self.s1_raise.q.val();
        self.slot_update.rtx_p1.next = self.s1_rtx_p1.q.val();
        self.slot_update.install_meta.next = self.s1_meta.q.val();
        self.slot_update.default_credit.next = self.default_credit.val();
        self.slot_update.timeout_threshold.next = self.timeout_threshold.val();
        self.slot_update.rtx_first_expiry.next = self.rtx_first_expiry.val();
        self.slot_update.probe_idle_timeout.next = self.probe_idle_timeout.val();
        self.free_go.next = self.slot_update.completed.val() | self.slot_update.abandoned.val();
        self.done_abandoned.next = self.slot_update.abandoned.val();
        self.new_id_valid.next = self.slot_update.installed.val();
        self.new_id.next = self.slot_update.id.val();

        self.s2_valid.d.next = self.s1_valid.q.val();
        self.s2_slot.d.next = self.s1_slot.q.val();
        self.s2_emit.d.next = self.s1_valid.q.val() & self.s1_emit.q.val();
        self.s2_id.d.next = self.slot_update.id.val();
        self.s2_word.d.next = self.slot_update.updated.val();
        self.s2_active.d.next = self.slot_update.updated_active.val();
        self.s2_sched.d.next = self.slot_update.schedule.val();
        self.s2_sched_meta.d.next = self.slot_update.schedule_meta.val();
        // A message every packet of which is delivered no longer needs its timer.
        self.s2_cancel.d.next = self.slot_update.completed.val();

        // ---------------- S2: packet choice from the updated word, write back ----------------
        self.choice.choose.next = self.s2_emit.q.val() & self.s2_active.q.val();
        self.choice.delivered.next = self.s2_word.q.val().get_bits::<64>(0);
        self.choice.tx.next = self.s2_word.q.val().get_bits::<64>(64);
        self.choice.rtx.next = self.s2_word.q.val().get_bits::<64>(128);
        // The credit never exceeds the packet count, 64: 7 bits hold it.
        self.choice.credit.next = self.s2_word.q.val().get_bits::<7>(192);
        self.choice.allow.next = self.s2_word.q.val().get_bit(208);
        self.choice.max.next = self.s2_word.q.val().get_bits::<8>(217);
        self.e_desc.next = (((bit_cast::<130, 88>(self.s2_word.q.val().get_bits::<88>(249))
            | (bit_cast::<130, 8>(self.choice.offset.val()) << 88))
            | ((bit_cast::<130, 16>(self.s2_id.q.val()) << 96) | (bit_cast::<130, 16>(self.s2_word.q.val().get_bits::<16>(192)) << 112)))
            | (bit_cast::<130, 1>(self.choice.is_new.val().into()) << 128))
            | (bit_cast::<130, 1>(self.choice.is_rtx.val().into()) << 129);
        // The word with the chosen packet's bits and maxTxPktOffset + 1 replaced.
        self.n_word.next = (((bit_cast::<337, 64>(self.s2_word.q.val().get_bits::<64>(0))
            | (bit_cast::<337, 64>(self.choice.tx_after.val()) << 64))
            | (bit_cast::<337, 64>(self.choice.rtx_after.val()) << 128))
            | ((bit_cast::<337, 25>(self.s2_word.q.val().get_bits::<25>(192)) << 192)
                | (bit_cast::<337, 8>(self.choice.max_after.val()) << 217)))
            | (bit_cast::<337, 112>(self.s2_word.q.val().get_bits::<112>(225)) << 225);

        // Write back.
        self.slot_ram.write_address.next = self.s2_slot.q.val();
        self.slot_ram.write_data.next = self.n_word.val();
        self.slot_ram.write_enable.next = self.s2_valid.q.val();
        self.fwd_word.d.next = self.n_word.val();
        // Per-slot flags: the written slot's bits are replaced through its one-hot mask (no
        // runtime-indexed update of an N-bit vector, which costs LUTs and Verilator time).
        self.n_sendable.next = self.s2_active.q.val() & self.choice.more.val();
        self.written_mask.index.next = self.s2_slot.q.val();
        self.written_mask.enable.next = self.s2_valid.q.val();
        self.active_bits.d.next = self.active_bits.q.val() & (!self.written_mask.onehot.val());
        if self.s2_active.q.val() {
            self.active_bits.d.next = self.active_bits.q.val() | self.written_mask.onehot.val();
        }
        self.sendable.d.next = self.sendable.q.val() & (!self.written_mask.onehot.val());
        if self.n_sendable.val() {
            self.sendable.d.next = self.sendable.q.val() | self.written_mask.onehot.val();
        }
        self.id_known.d.next = self.id_known.q.val() | self.written_mask.onehot.val();
        // The operation's timer schedule/cancel leaves from S2, registered (S0 holds back a
        // timeout for the slot in S2 as for the one in S1, so none races with it).
        self.sched_valid.next = self.s2_sched.q.val();
        self.sched_slot.next = self.s2_slot.q.val();
        self.sched_meta.next = self.s2_sched_meta.q.val();
        self.cancel_valid.next = self.s2_cancel.q.val();
        self.cancel_slot.next = self.s2_slot.q.val();
        self.done_valid.next = self.free_go.val();
        self.done_tx_msg_id.next = self.slot_update.id.val();

        // ---------------- descriptor queue (3 entries, q0 at the head) ----------------
        self.q_fill.next = self.q_count.q.val() - bit_cast::<2, 1>(self.q_pop.val().into());
        if self.q_pop.val() {
            self.q0.d.next = self.q1.q.val();
            self.q1.d.next = self.q2.q.val();
        }
        if self.choice.send.val() {
            if self.q_fill.val() == 0 {
                self.q0.d.next = self.e_desc.val();
            } else if self.q_fill.val() == 1 {
                self.q1.d.next = self.e_desc.val();
            } else {
                self.q2.d.next = self.e_desc.val();
            }
        }
        self.q_count.d.next = self.q_fill.val() + bit_cast::<2, 1>(self.choice.send.val().into());
        self.pkt.valid.next = self.q_count.q.val() != 0;
        self.pkt.slot.next = self.q0.q.val().get_bits::<IW>(96);
        self.pkt.remote_ip.next = self.q0.q.val().get_bits::<32>(0);
        self.pkt.remote_port.next = self.q0.q.val().get_bits::<16>(32);
        self.pkt.local_port.next = self.q0.q.val().get_bits::<16>(48);
        self.pkt.msg_len.next = self.q0.q.val().get_bits::<16>(64);
        self.pkt.rank.next = self.q0.q.val().get_bits::<8>(80);
        self.pkt.offset.next = self.q0.q.val().get_bits::<8>(88);
        self.pkt.tx_msg_id.next = self.q0.q.val().get_bits::<16>(96);
        self.pkt.credit.next = self.q0.q.val().get_bits::<16>(112);
        self.pkt.is_new_msg.next = self.q0.q.val().get_bit(128);
        self.pkt.is_rtx.next = self.q0.q.val().get_bit(129);
        self.pkt.flags.next = 1.into();
        self.pkt_q1_valid.next = self.q_count.q.val() >= 2;
        self.pkt_q1_slot.next = self.q1.q.val().get_bits::<IW>(96);
        self.pkt_q2_valid.next = self.q_count.q.val() == 3;
        self.pkt_q2_slot.next = self.q2.q.val().get_bits::<IW>(96);

        // ---------------- counters (saturating) ----------------
        self.cnt_stale_dlv.increment.next = self.slot_update.stale_delivered.val();
        self.cnt_stale_ctx.increment.next = self.slot_update.stale_credit.val();
        self.cnt_stale_to.increment.next = self.slot_update.stale_timeout.val();
        self.cnt_ack_beyond.increment.next = self.slot_update.ack_beyond.val();
        self.cnt_rtx_beyond.increment.next = self.slot_update.rtx_beyond.val();
        self.cnt_credit_beyond.increment.next = self.slot_update.credit_beyond.val();
        self.cnt_write_busy.increment.next = self.slot_update.write_busy.val();
        self.cnt_delivered.increment.next = self.slot_update.completed.val();
        self.cnt_abandoned.increment.next = self.slot_update.abandoned.val();
        if self.dlv_overflow.val() | self.ctx_overflow.val() {
            self.cnt_overflow.increment.next = true;
        }
        self.active.next = self.active_bits.q.val();

        if self.reset.val() {
            self.active_bits.d.next = 0.into();
            self.sendable.d.next = 0.into();
            self.rr_above_mask.d.next = !self.slot0_onehot.val();
            self.s1_onehot.d.next = 0.into();
            self.s2_onehot.d.next = 0.into();
            self.s1_valid.d.next = false;
            self.s1_fwd.d.next = false;
            self.s2_valid.d.next = false;
            self.s2_emit.d.next = false;
            self.s2_sched.d.next = false;
            self.s2_cancel.d.next = false;
            self.q_count.d.next = 0.into();
        }
    }
}
