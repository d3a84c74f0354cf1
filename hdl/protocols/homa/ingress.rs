//! Homa ingress program (thesis §3.3.4, Algorithm 6) for 2^IW messages, and Homa-Tr (§3.4.2):
//! the match table of the shell's [ingress front](crate::pisa::ingress_front) and, behind the
//! front's decisions, a received-packet
//! counter per message (an ifElseRAW [`RegisterExtern`]), the [`PriorityScheduler`] extern that
//! picks the message to GRANT in SRPT order, and a message-information memory that addresses a
//! GRANT to the granted message's sender (written by arriving DATA, read by the scheduler's
//! decision: Algorithm 6's `msgState`).
//!
//! # Receiver (DATA)
//! * A new packet of a live message: its count is updated (new message: 1, else + 1), its
//!   message's addressing and cumulative ack (smallest offset not yet received) are stored, and
//!   the scheduler gets an ARRIVE (rank = packets not yet received; the message starts with
//!   `min(total, rtt_pkts)` packets granted: the unscheduled ones). The scheduler may choose
//!   another message. The GRANT if the scheduler grants any message, otherwise (by the
//!   [acknowledgement policy](crate::nic::register_map::AckPolicy), register 0x3C) an ACK — the
//!   prototype's rule, the default — or nothing (the ns-3 model's Homa); a packet that **completes
//!   its message is always ACKed**, also when it triggers a GRANT for another one (then two
//!   control packets, ACK first).
//! * GRANT (to the granted message's sender): `pkt_offset` = that message's cumulative ack,
//!   `grant_offset` = its new credit (exclusive), `grant_prio` = U + its position among the
//!   messages being granted (0 = fewest remaining). ACK: `pkt_offset` = the arriving message's
//!   cumulative ack. Control packets themselves travel at priority 0 (the highest).
//! * A duplicate (or a late copy of a delivered message) is dropped: silently under the
//!   prototype's and the model's policies, ACKed with the cumulative ack under policy 2
//!   (`duplicate-acks`), so that a sender whose last ACK was lost completes after its
//!   retransmission instead of abandoning the message.
//!   **Lost GRANTs**: the thesis' Homa sends a GRANT only when a DATA packet arrives, so if the
//!   GRANT that raises a message to its full credit is lost and none of its packets is in
//!   flight, the message stalls until its sender abandons it. That stays the default (the
//!   Fig. 3.2 incast results depend on timeouts).
//!   **Option `cfg_dup_grant`** (register 0x38 bit 1, default off = the thesis): a duplicate of a
//!   live, incomplete message that has had a GRANT is answered with that message's current GRANT
//!   instead (its last grant offset and priority, kept per slot in `grant_state`, cumulative ack
//!   in `pkt_offset`), one cycle later than the ACK. With the sender's idle-timeout probe (same
//!   bit) this recovers a lost GRANT within the thesis' architecture, without a RESEND packet:
//!   the sender resends its highest credited packet, the receiver answers with the GRANT that
//!   was lost.
//! * Every message that leaves the receive path (delivered or garbage-collected:
//!   `rel_valid` / `rel_slot` from the reassembly) is REMOVEd from the scheduler, so a waiting
//!   FIFO entry of a collected message never enters.
//!
//! # Sender (control packets)
//! GRANT → its priority into the shared priority memory (`prio_wr`, read by the egress for the
//! message's scheduled packets), CreditTxEvent in raise-only mode with `grant_offset`, and a
//! cumulative DeliveredEvent (every packet below `pkt_offset`); ACK → cumulative DeliveredEvent.
//! Known limit: the priority memory is indexed by the transmit slot alone (not its generation),
//! so a late GRANT for a slot's previous message overwrites the priority of the slot's current
//! message until that message's own next GRANT (the CreditTxEvent and DeliveredEvent of such a
//! GRANT are stale and counted by the transmit path).
//!
//! # Homa-Tr (`trimming`)
//! Adds NDP's trimming response: a CHOP packet (trimmed DATA) gets a NACK carrying its offset at
//! once (GetRxMsgInfo without marking received), a DATA or trimmed packet whose GetRxMsgInfo
//! fails is NACKed too, and a received NACK is a CreditTxEvent marking that packet for
//! retransmission. NACKing a failure means that a receiver out of IDs or buffers makes the
//! sender retransmit at once, repeatedly, until a slot frees (NDP drops such packets silently
//! instead). A message whose first packet arrives trimmed starts its packet count at 0 (the
//! trimmed packet already allocated the slot). A trimmed late copy of a delivered message gets
//! nothing.
//! Everything else is Homa's: the same block, two more match entries and the NACK paths.
//!
//! # Pipeline (P = first frame beat + 8)
//! ```text
//!  P+1  act: GRANT / ACK / NACK received → events, priority write
//!  D    done (GetRxMsgInfo answer; D = P+4, or L+4 for a DATA frame with more than 8 payload
//!       bytes, L its last beat): count request, message information write;
//!       duplicate → ACK (policy 2), CHOP → NACK (Homa-Tr) to the packet generator
//!  D+1  count answer → the scheduler's op (ARRIVE, or a release's REMOVE), registered
//!  D+2  the op in the scheduler (its two decision stages at D+3 and D+4)
//!  D+5  scheduler decision: ACK (no grant and the policy ACKs, or the message completed);
//!       information read
//!  D+6  GRANT to the packet generator
//! ```
//! (Counted from `done`/`act`: a frame with more than 8 payload bytes gets them only after
//! its last beat has validated it — see the front — so nothing answers a frame of the wrong
//! length.)
//! Latency to the reassembly is the front's (14 cycles; Table 3.1: 20 for Homa); a data packet's
//! GRANT leaves the ingress at D+6. Frames are ≥ 8 cycles apart and the front allows one GetRxMsgInfo
//! call at a time, so the event outputs (one per cycle) never collide.
//!
//! # Ports
//! In: the front's decisions `act` and `done` ([`crate::pisa::ingress_front`]), `rtt_pkts` 16, `cfg_overcommit` 5,
//! `cfg_unsched_prios` 4 (U), `cfg_dup_grant` 1, `cfg_ack_policy` 2, `rel_valid`, `rel_slot`; out `dlv`, `ctx` (to the transmit
//! path), `prio_wr` (to the priority memory), `ev` (CtrlPktEvent; `ev.rank` carries the
//! GRANT's priority, `ev.credit` its offset; no paced PULLs, so `ev.msg_gen` is 0), `counters`
//! ([`ProgramCountersSource`]): `grant_sent_count`, `ack_sent_count`, `nack_sent_count`, the scheduler's `sched_*` (`sched_levels`: entries in use in bits 4–0,
//! FIFO records in bits 23–8, registered: a cycle old), and `offset_range_count` = 0 (NDP's, part of the shell's interface).

use crate::common::bundles::{
    ControlActionSink, CreditTxEventSource, CtrlPktEventSource, DataAnswerSink, DeliveredEventSource, PriorityWriteSource,
    ProgramCountersSource,
};
use crate::common::event_counter::WrappingCounter;
use crate::nic::shell::{IngressProgram, ProgramBlock, ShellParams};
use crate::pisa::match_action::MatchEntry;
use crate::pisa::priority_scheduler::PriorityScheduler;
use crate::pisa::register_extern::RegisterExtern;
use crate::pisa::wire::{FLAG_ACK, FLAG_CHOP, FLAG_DATA, FLAG_NACK, FLAG_PULL};
use crate::protocols::homa::egress::HomaEgress;
use crate::{locals, ports, registers, status_counters, Blank};
use rust_hdl::prelude::*;

/// Action selectors of [`homa_ingress_program`] (1 and 2 are the front's DATA and trimmed DATA).
pub const HOMA_ACTION_GRANT: u8 = 3;
pub const HOMA_ACTION_ACK: u8 = 4;
pub const HOMA_ACTION_NACK: u8 = 5;

/// Homa's match program on the flags: DATA, GRANT (the PULL/GRANT bit), ACK; Homa-Tr
/// (`trimming`) adds trimmed DATA and NACK. Anything else is dropped.
pub fn homa_ingress_program(trimming: bool) -> Vec<MatchEntry> {
    let data_chop = (FLAG_DATA | FLAG_CHOP) as u16;
    let mut p = Vec::new();
    if trimming {
        p.push(MatchEntry { value: data_chop, mask: data_chop, action: 2 });
    }
    p.push(MatchEntry { value: FLAG_DATA as u16, mask: data_chop, action: 1 });
    p.push(MatchEntry { value: FLAG_PULL as u16, mask: FLAG_PULL as u16, action: HOMA_ACTION_GRANT });
    p.push(MatchEntry { value: FLAG_ACK as u16, mask: FLAG_ACK as u16, action: HOMA_ACTION_ACK });
    if trimming {
        p.push(MatchEntry { value: FLAG_NACK as u16, mask: FLAG_NACK as u16, action: HOMA_ACTION_NACK });
    }
    p
}

#[ports(
    in clock: Clock;
    in reset, cfg_dup_grant: Bit;
    in rtt_pkts: Bits<16>;
    in cfg_overcommit: Bits<5>;
    in cfg_unsched_prios: Bits<4>;
    /// The acknowledgement policy ([`AckPolicy`](crate::nic::register_map::AckPolicy)'s register value; 3 acts as 0).
    in cfg_ack_policy: Bits<2>;
    in rel_valid: Bit;
    in rel_slot: Bits<IW>;
)]
#[registers(
    dg_valid: Bit;
    dg_meta: Bits<152>;
    dg_ack_no: Bits<9>;
    dg_slot: Bits<IW>;
    /// The scheduler's levels, registered for the status bank (a status value a cycle old).
    levels: Bits<32>;
    s3_valid, s3_last, r_valid, r_ack: Bit;
    s3_slot, r_slot: Bits<IW>;
    s3_total, r_total: Bits<8>;
    s3_meta, r_meta: Bits<152>;
    s3_ack_no, r_ack_no: Bits<9>;
    /// `r_valid` delayed while the scheduler decides (its result comes 3 cycles after the op).
    r_wait1: Bit;
    r_wait2: Bit;
    /// The decision's cycle.
    r_decided: Bit;
    /// The scheduler's op, registered: the scheduler's decision then starts at a register
    /// instead of after the release and count logic of this cycle (logic depth).
    o_valid: Bit;
    o_code: Bits<2>;
    o_id, g_id, rm_slot: Bits<IW>;
    o_remaining, o_received, o_total, o_granted, g_offset, g_prio: Bits<8>;
    g_valid, rm_pending: Bit;
)]
#[locals(
    d_dup_grant, dg_granted: Bit;
    m1, d_meta: Bits<152>;
    m1_offset, d_total: Bits<8>;
    m1_offset_bit, m1_ack_bits: Bits<64>;
    m1_is_grant, m1_is_ack, m1_is_nack, d_is_data, d_is_chop, d_new, d_nack: Bit;
    /// A DATA packet already received (of a live message or, from the delivered set, of a
    /// delivered one).
    d_dup: Bit;
    /// The policy: ACK a new packet that completes nothing and gets no GRANT; ACK a duplicate.
    ack_new: Bit;
    ack_dup, arrive_now, rm_now: Bit;
    s3_received: Bits<8>;
    rm_index: Bits<IW>;
    info: Bits<128>;
    ev_kind: Bits<3>;
)]
#[derive(LogicBlock, Blank)]
pub struct HomaIngress<const N: usize, const IW: usize> {
    pub act: ControlActionSink,
    pub done: DataAnswerSink<IW>,
    pub dlv: DeliveredEventSource,
    pub ctx: CreditTxEventSource,
    pub prio_wr: PriorityWriteSource<IW>,
    pub ev: CtrlPktEventSource<IW>,
    /// The program's status counters (`counters$ack_sent_count`, … in the Verilog).
    pub counters: ProgramCountersSource,
    received: RegisterExtern<16, IW>,
    scheduler: PriorityScheduler<N, IW>,
    msg_info: RAM<Bits<128>, IW>,
    /// Per slot: {has had a GRANT 16, its priority 15:8, its grant offset 7:0}.
    grant_state: RAM<Bits<17>, IW>,
    trimming: Constant<Bit>,
    slot_mask: Constant<Bits<16>>,
    n_grant: WrappingCounter<32>,
    n_ack: WrappingCounter<32>,
    n_nack: WrappingCounter<32>,
}

impl<const N: usize, const IW: usize> Default for HomaIngress<N, IW> {
    /// Homa without trimming.
    fn default() -> Self {
        Self::new(false)
    }
}

impl<const N: usize, const IW: usize> HomaIngress<N, IW> {
    /// Homa (`trimming` false) or Homa-Tr (`trimming` true: NDP's CHOP → NACK response).
    pub fn new(trimming: bool) -> Self {
        Self { trimming: Constant::new(trimming), slot_mask: Constant::new(((1u64 << IW) - 1).into()), ..Self::blank() }
    }
}

impl<const N: usize, const IW: usize> Logic for HomaIngress<N, IW> {
    #[status_counters]
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            s3_valid,
            s3_slot,
            s3_total,
            s3_last,
            s3_meta,
            s3_ack_no,
            r_valid,
            r_ack,
            r_slot,
            r_total,
            r_meta,
            r_ack_no,
            r_wait1,
            r_wait2,
            r_decided,
            o_valid,
            o_code,
            o_id,
            o_remaining,
            o_received,
            o_total,
            o_granted,
            g_valid,
            g_offset,
            g_prio,
            g_id,
            rm_pending,
            rm_slot,
            dg_valid,
            dg_meta,
            dg_ack_no,
            dg_slot,
            levels
        );
        status_counters!(
            self,
            clock,
            reset,
            n_ack => counters.ack_sent_count,
            n_grant => counters.grant_sent_count,
            n_nack => counters.nack_sent_count,
        );
        clock!(self, clock, received, scheduler);
        self.msg_info.read_clock.next = self.clock.val();
        self.msg_info.write_clock.next = self.clock.val();
        self.grant_state.read_clock.next = self.clock.val();
        self.grant_state.write_clock.next = self.clock.val();
        self.received.reset.next = self.reset.val();
        self.scheduler.reset.next = self.reset.val();

        // The acknowledgement policy (see the module documentation); 3 is undefined and acts
        // as 0, the prototype's.
        self.ack_new.next = self.trimming.val() | (self.cfg_ack_policy.val() != 1);
        self.ack_dup.next = self.cfg_ack_policy.val() == 2;

        // ---------------- P+1: GRANT / ACK / NACK received (sender side) ----------------
        self.m1.next = self.act.meta.val();
        self.m1_offset.next = self.m1.val().get_bits::<8>(80);
        self.m1_offset_bit.next = 0.into();
        self.m1_ack_bits.next = !bits::<64>(0);
        if self.m1_offset.val() < 64 {
            self.m1_offset_bit.next = bits::<64>(1) << bit_cast::<64, 6>(self.m1_offset.val().get_bits::<6>(0));
            self.m1_ack_bits.next = self.m1_offset_bit.val() - 1;
        }
        self.m1_is_grant.next = self.act.valid.val() & (self.act.action.val() == 3);
        self.m1_is_ack.next = self.act.valid.val() & (self.act.action.val() == 4);
        self.m1_is_nack.next = self.act.valid.val() & (self.act.action.val() == 5);
        // Cumulative: every packet below pkt_offset is delivered.
        self.dlv.valid.next = (self.m1_is_grant.val() | self.m1_is_ack.val()) & (self.m1_offset.val() != 0);
        self.dlv.tx_msg_id.next = self.m1.val().get_bits::<16>(104);
        self.dlv.ack_bitmap.next = self.m1_ack_bits.val();
        self.ctx.valid.next = self.m1_is_grant.val() | self.m1_is_nack.val();
        self.ctx.tx_msg_id.next = self.m1.val().get_bits::<16>(104);
        self.ctx.rtx_flag.next = self.m1_is_nack.val();
        self.ctx.rtx_bitmap.next = self.m1_offset_bit.val();
        self.ctx.credit_flag.next = self.m1_is_grant.val();
        self.ctx.new_credit.next = self.m1.val().get_bits::<16>(88);
        self.ctx.allow_tx.next = true;
        self.ctx.raise_only.next = true;
        self.prio_wr.valid.next = self.m1_is_grant.val();
        self.prio_wr.index.next = bit_cast::<IW, 16>(self.m1.val().get_bits::<16>(104) & self.slot_mask.val());
        self.prio_wr.value.next = self.m1.val().get_bits::<8>(144);

        // ---------------- P+2: GetRxMsgInfo answer ----------------
        self.d_is_data.next = self.done.valid.val() & (self.done.action.val() == 1);
        self.d_is_chop.next = self.done.valid.val() & (self.done.action.val() == 2);
        self.d_new.next = self.d_is_data.val() & self.done.forward.val();
        self.d_meta.next = self.done.meta.val();
        self.d_total.next = bit_cast::<8, 16>((self.d_meta.val().get_bits::<16>(64) + 1023) >> 10);
        // The count starts at 1 with a message's first DATA packet, or at 0 when its first packet
        // arrives trimmed (Homa-Tr: the trimmed packet already allocated the slot, so the first
        // real DATA packet must not add to the slot's previous count).
        self.received.req_valid.next = self.d_new.val() | ((self.d_is_chop.val() & self.done.live.val()) & self.done.is_new_msg.val());
        self.received.req_index.next = self.done.slot.val();
        self.received.req_pred.next = self.done.is_new_msg.val();
        self.received.req_op_true.next = 2.into();
        self.received.req_value_true.next = bit_cast::<16, 1>(self.d_is_data.val().into());
        self.received.req_op_false.next = 1.into();
        self.received.req_value_false.next = 1.into();
        self.msg_info.write_enable.next = self.d_new.val();
        self.msg_info.write_address.next = self.done.slot.val();
        self.msg_info.write_data.next = (((bit_cast::<128, 32>(self.d_meta.val().get_bits::<32>(0))
            | (bit_cast::<128, 32>(self.d_meta.val().get_bits::<32>(32)) << 32))
            | (bit_cast::<128, 16>(self.d_meta.val().get_bits::<16>(104)) << 64))
            | (bit_cast::<128, 16>(self.d_meta.val().get_bits::<16>(64)) << 80))
            | (bit_cast::<128, 9>(self.done.ack_no.val()) << 96);
        // A slot released in this cycle (garbage collection) gets no ARRIVE: the REMOVE
        // must not be followed by an ARRIVE that re-inserts a message that no longer exists.
        self.s3_valid.d.next = self.d_new.val() & (!(self.rel_valid.val() & (self.rel_slot.val() == self.done.slot.val())));
        self.s3_slot.d.next = self.done.slot.val();
        self.s3_total.d.next = self.d_total.val();
        self.s3_last.d.next = self.done.is_last_pkt.val();
        self.s3_meta.d.next = self.d_meta.val();
        self.s3_ack_no.d.next = self.done.ack_no.val();
        self.d_dup.next = (self.d_is_data.val() & self.done.ok.val()) & (!self.done.forward.val());
        // With the option, a duplicate of a live, incomplete message waits one cycle for its
        // slot's GRANT state (read now) and is answered at P+3 instead.
        self.d_dup_grant.next = ((self.d_dup.val() & self.cfg_dup_grant.val()) & self.done.live.val()) & (!self.done.is_last_pkt.val());
        self.grant_state.read_address.next = self.done.slot.val();
        self.dg_valid.d.next = self.d_dup_grant.val();
        self.dg_meta.d.next = self.d_meta.val();
        self.dg_ack_no.d.next = self.done.ack_no.val();
        self.dg_slot.d.next = self.done.slot.val();
        self.dg_granted.next = self.grant_state.read_data.val().get_bit(16);
        // NACK: a trimmed packet of a live message, and any DATA or trimmed packet whose
        // GetRxMsgInfo failed (no free ID or buffer: the sender retries instead of waiting for its
        // timeout). A trimmed late copy of a delivered message gets nothing.
        self.d_nack.next = self.trimming.val()
            & ((self.d_is_chop.val() & self.done.live.val()) | ((self.d_is_data.val() | self.d_is_chop.val()) & (!self.done.ok.val())));

        // ---------------- P+3: count answer → scheduler ARRIVE; releases → REMOVE ----------------
        self.s3_received.next = self.received.resp_new.val().get_bits::<8>(0);
        self.scheduler.cfg_overcommit.next = self.cfg_overcommit.val();
        self.scheduler.cfg_rtt_pkts.next = self.rtt_pkts.val().get_bits::<8>(0);
        // An ARRIVE is dropped when its slot is released in the same cycle (see above).
        self.arrive_now.next = self.s3_valid.q.val() & (!(self.rel_valid.val() & (self.rel_slot.val() == self.s3_slot.q.val())));
        self.rm_now.next = (!self.arrive_now.val()) & (self.rm_pending.q.val() | self.rel_valid.val());
        self.rm_index.next = self.rel_slot.val();
        if self.rm_pending.q.val() {
            self.rm_index.next = self.rm_slot.q.val();
        }
        self.o_valid.d.next = self.arrive_now.val() | self.rm_now.val();
        self.o_code.d.next = 1.into();
        self.o_id.d.next = self.s3_slot.q.val();
        if !self.arrive_now.val() {
            self.o_code.d.next = 2.into();
            self.o_id.d.next = self.rm_index.val();
        }
        self.o_remaining.d.next = self.s3_total.q.val() - self.s3_received.val();
        self.o_received.d.next = self.s3_received.val();
        self.o_total.d.next = self.s3_total.q.val();
        self.o_granted.d.next = self.s3_total.q.val();
        if self.rtt_pkts.val() < bit_cast::<16, 8>(self.s3_total.q.val()) {
            self.o_granted.d.next = self.rtt_pkts.val().get_bits::<8>(0);
        }
        // P+4: the op reaches the scheduler (ops keep their order: ARRIVEs and REMOVEs alike
        // wait the same cycle).
        self.scheduler.op_valid.next = self.o_valid.q.val();
        self.scheduler.op_code.next = self.o_code.q.val();
        self.scheduler.op_id.next = self.o_id.q.val();
        self.scheduler.op_remaining.next = self.o_remaining.q.val();
        self.scheduler.op_received.next = self.o_received.q.val();
        self.scheduler.op_total.next = self.o_total.q.val();
        self.scheduler.op_granted.next = self.o_granted.q.val();
        // A release that meets an ARRIVE waits one cycle (ARRIVEs are ≥ 8 cycles apart).
        if self.arrive_now.val() {
            self.rm_pending.d.next = self.rel_valid.val() | self.rm_pending.q.val();
            if self.rel_valid.val() {
                self.rm_slot.d.next = self.rel_slot.val();
            }
        } else if self.rm_pending.q.val() {
            self.rm_pending.d.next = self.rel_valid.val();
            self.rm_slot.d.next = self.rel_slot.val();
        }
        // The ARRIVE's frame is kept until its decision (ARRIVEs are >= 8 cycles apart).
        self.r_valid.d.next = self.arrive_now.val();
        self.r_wait1.d.next = self.r_valid.q.val();
        self.r_wait2.d.next = self.r_wait1.q.val();
        self.r_decided.d.next = self.r_wait2.q.val();
        if self.arrive_now.val() {
            self.r_ack.d.next = self.s3_last.q.val();
            self.r_slot.d.next = self.s3_slot.q.val();
            self.r_total.d.next = self.s3_total.q.val();
            self.r_meta.d.next = self.s3_meta.q.val();
            self.r_ack_no.d.next = self.s3_ack_no.q.val();
        }
        self.counters.sched_inserts_count.next = self.scheduler.inserts_count.val();
        self.counters.sched_removes_count.next = self.scheduler.removes_count.val();
        self.counters.sched_unknown_removes_count.next = self.scheduler.unknown_removes_count.val();
        self.counters.sched_fifo_enters_count.next = self.scheduler.fifo_enters_count.val();
        self.levels.d.next = bit_cast::<32, 5>(self.scheduler.occupancy.val()) | (bit_cast::<32, 16>(self.scheduler.fifo_level.val()) << 8);
        self.counters.sched_levels.next = self.levels.q.val();
        self.counters.offset_range_count.next = 0.into();

        // ---------------- P+7: scheduler decision; P+8: GRANT ----------------
        self.msg_info.read_address.next = self.scheduler.res_id.val();
        self.g_valid.d.next = self.scheduler.res_valid.val() & self.scheduler.res_grant.val();
        self.g_offset.d.next = self.scheduler.res_grant_offset.val();
        self.g_prio.d.next = bit_cast::<8, 4>(self.cfg_unsched_prios.val()) + bit_cast::<8, 4>(self.scheduler.res_position.val());
        self.g_id.d.next = self.scheduler.res_id.val();
        self.info.next = self.msg_info.read_data.val();

        // ---------------- events, one per cycle: GRANT, else ACK at the decision, else P+2's ----------------
        // ev_kind: 0 none, 1 GRANT, 2 ACK after the decision, 3 ACK or NACK from P+2, 4 the
        // answer to a duplicate with the option (its GRANT, or an ACK if it never had one).
        self.ev_kind.next = 0.into();
        if ((self.d_dup.val() & (!self.d_dup_grant.val())) & self.ack_dup.val()) | self.d_nack.val() {
            self.ev_kind.next = 3.into();
        }
        if self.dg_valid.q.val() & (self.dg_granted.val() | self.ack_dup.val()) {
            self.ev_kind.next = 4.into();
        }
        if self.r_decided.q.val()
            & (((!(self.scheduler.res_valid.val() & self.scheduler.res_grant.val())) & self.ack_new.val()) | self.r_ack.q.val())
        {
            self.ev_kind.next = 2.into();
        }
        if self.g_valid.q.val() {
            self.ev_kind.next = 1.into();
        }
        self.ev.valid.next = self.ev_kind.val() != 0;
        self.ev.pull.next = false;
        self.ev.credit.next = 0.into();
        self.ev.rank.next = 0.into();
        self.ev.msg_id.next = self.r_slot.q.val();
        // Homa asks for no paced PULLs: the generation, which only tells the packet generator's
        // pending PULLs apart, is not needed.
        self.ev.msg_gen.next = 0.into();
        self.ev.ctrl_flags.next = 0x02.into();
        self.ev.remote_ip.next = self.r_meta.q.val().get_bits::<32>(0);
        self.ev.remote_port.next = self.r_meta.q.val().get_bits::<16>(32);
        self.ev.local_port.next = self.r_meta.q.val().get_bits::<16>(48);
        self.ev.msg_len.next = self.r_meta.q.val().get_bits::<16>(64);
        self.ev.tx_msg_id.next = self.r_meta.q.val().get_bits::<16>(104);
        self.ev.pkt_offset.next = self.r_ack_no.q.val().get_bits::<8>(0);
        if self.ev_kind.val() == 3 {
            self.ev.msg_id.next = self.done.slot.val();
            self.ev.remote_ip.next = self.d_meta.val().get_bits::<32>(0);
            self.ev.remote_port.next = self.d_meta.val().get_bits::<16>(32);
            self.ev.local_port.next = self.d_meta.val().get_bits::<16>(48);
            self.ev.msg_len.next = self.d_meta.val().get_bits::<16>(64);
            self.ev.tx_msg_id.next = self.d_meta.val().get_bits::<16>(104);
            self.ev.pkt_offset.next = self.done.ack_no.val().get_bits::<8>(0);
            if self.d_nack.val() {
                self.ev.ctrl_flags.next = 0x04.into();
                self.ev.pkt_offset.next = self.d_meta.val().get_bits::<8>(80);
            }
        }
        if self.ev_kind.val() == 4 {
            self.ev.msg_id.next = self.dg_slot.q.val();
            self.ev.remote_ip.next = self.dg_meta.q.val().get_bits::<32>(0);
            self.ev.remote_port.next = self.dg_meta.q.val().get_bits::<16>(32);
            self.ev.local_port.next = self.dg_meta.q.val().get_bits::<16>(48);
            self.ev.msg_len.next = self.dg_meta.q.val().get_bits::<16>(64);
            self.ev.tx_msg_id.next = self.dg_meta.q.val().get_bits::<16>(104);
            self.ev.pkt_offset.next = self.dg_ack_no.q.val().get_bits::<8>(0);
            if self.dg_granted.val() {
                self.ev.ctrl_flags.next = 0x08.into();
                self.ev.credit.next = bit_cast::<16, 8>(self.grant_state.read_data.val().get_bits::<8>(0));
                self.ev.rank.next = self.grant_state.read_data.val().get_bits::<8>(8);
            }
        }
        if self.ev_kind.val() == 1 {
            self.ev.msg_id.next = self.g_id.q.val();
            self.ev.ctrl_flags.next = 0x08.into();
            self.ev.credit.next = bit_cast::<16, 8>(self.g_offset.q.val());
            self.ev.rank.next = self.g_prio.q.val();
            self.ev.remote_ip.next = self.info.val().get_bits::<32>(0);
            self.ev.remote_port.next = self.info.val().get_bits::<16>(32);
            self.ev.local_port.next = self.info.val().get_bits::<16>(48);
            self.ev.tx_msg_id.next = self.info.val().get_bits::<16>(64);
            self.ev.msg_len.next = self.info.val().get_bits::<16>(80);
            self.ev.pkt_offset.next = self.info.val().get_bits::<8>(96);
        }
        if self.ev.valid.val() & (self.ev.ctrl_flags.val() == 0x08) {
            self.n_grant.increment.next = true;
        }
        // GRANT state: written with every GRANT sent from the scheduler's decision; cleared when
        // a message starts (a new message has had no GRANT).
        self.grant_state.write_enable.next =
            (self.ev_kind.val() == 1) | ((self.d_new.val() | (self.d_is_chop.val() & self.done.live.val())) & self.done.is_new_msg.val());
        self.grant_state.write_address.next = self.done.slot.val();
        self.grant_state.write_data.next = 0.into();
        if self.ev_kind.val() == 1 {
            self.grant_state.write_address.next = self.g_id.q.val();
            self.grant_state.write_data.next =
                (bits::<17>(1) << 16) | (bit_cast::<17, 8>(self.g_prio.q.val()) << 8) | bit_cast::<17, 8>(self.g_offset.q.val());
        }
        if self.ev.valid.val() & (self.ev.ctrl_flags.val() == 0x02) {
            self.n_ack.increment.next = true;
        }
        if self.ev.valid.val() & (self.ev.ctrl_flags.val() == 0x04) {
            self.n_nack.increment.next = true;
        }

        if self.reset.val() {
            self.s3_valid.d.next = false;
            self.r_valid.d.next = false;
            self.r_wait1.d.next = false;
            self.r_wait2.d.next = false;
            self.r_decided.d.next = false;
            self.o_valid.d.next = false;
            self.g_valid.d.next = false;
            self.dg_valid.d.next = false;
            self.rm_pending.d.next = false;
        }
    }
}

impl<const N: usize, const IW: usize> ProgramBlock for HomaIngress<N, IW> {
    fn for_params(params: &ShellParams) -> Self {
        Self::new(params.trimming)
    }
}

impl<const N: usize, const IW: usize> IngressProgram for HomaIngress<N, IW> {
    fn match_program(params: &ShellParams) -> Vec<MatchEntry> {
        homa_ingress_program(params.trimming)
    }
}

crate::nic_shell!(
    /// The Homa and Homa-Tr NIC: the [NIC shell](crate::nic::shell) with Homa's ingress program
    /// and its egress stage ([`HomaEgress`]: DATA packets at their message's GRANT priority).
    HomaNic, HomaIngress, HomaEgress, crate::presets::Protocol::HomaTr
);
