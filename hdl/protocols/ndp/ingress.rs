//! NDP ingress program (thesis §3.3.4, Algorithm 5) for 2^IW messages: the match table the
//! shell's [ingress front](crate::pisa::ingress_front) is loaded with, and behind the front's
//! decisions the credit register (an ifElseRAW [`RegisterExtern`]) and the events.
//!
//! # What it does per packet (Algorithm 5)
//! The match-action stage ([`MatchTable`](crate::pisa::match_action::MatchTable) loaded with [`ndp_ingress_program`]) picks one action
//! from the flags:
//! * **DATA** (not CHOP): the IPv4 length must equal what the packet should carry,
//!   `min(1024, msg_len − 1024 · pkt_offset)` (else dropped, `bad_length_count`, no GetRxMsgInfo).
//!   GetRxMsgInfo marks the packet received. A new packet of a live message goes to the
//!   reassembly and the credit register is updated by ifElseRAW(is_new_msg: WRITE rtt_pkts + 1,
//!   else ADD 1); the reply is an ACK carrying the packet's own offset plus a paced PULL carrying
//!   the new credit. A **duplicate** is ACKed again — so a lost ACK recovers — and adds no
//!   credit (`duplicate_data_count`). Its reply also carries a PULL with the *unchanged* credit
//!   (ADD 0): harmless at the sender (raise-only), and the only way a lost PULL is recovered —
//!   without it, losing an ACK merged with its PULL leaves the sender one credit short forever,
//!   since its timeout retransmits only packets the receiver already has. A late copy of a
//!   delivered message (no live entry) gets the ACK only. A GetRxMsgInfo failure drops the
//!   packet with no reply (`rx_fail_count`; the table counts the reason).
//! * **CHOP** (trimmed DATA): GetRxMsgInfo without marking received; the payload is dropped; the
//!   reply is a NACK carrying the trimmed offset plus a PULL with the credit unchanged — the
//!   credit register is read (KEEP), or initialised to `rtt_pkts` (the BDP) when the trimmed
//!   packet is the message's first (WRITE).
//! * **Control** (ACK / NACK / PULL, in any combination): ACK → DeliveredEvent for that one
//!   packet (`dlv`, bitmap bit `pkt_offset`); NACK → CreditTxEvent with that packet marked for
//!   retransmission; PULL → CreditTxEvent, raise-only, credit = `pull_offset`. NACK and PULL in
//!   one packet make one CreditTxEvent. Offsets ≥ 64 have no bitmap bit (`offset_range_count`).
//!   The packet itself is dropped. Events for unknown messages are counted stale by the
//!   transmit path.
//! * anything else (e.g. CHOP without DATA): dropped, `no_action_count`.
//!
//! The reply goes to the packet generator as one CtrlPktEvent (`ev`): `ev.ctrl_flags` ACK or
//! NACK, `ev.pull` with `ev.credit`, `ev.msg_id` = the receive slot and `ev.msg_gen` = its
//! generation (PULLs coalesce per message: a PULL of the slot's next message replaces a stale
//! one), addressed to the sender (`remote_ip` = its IPv4 source, `remote_port` = its src_context,
//! `local_port` = the packet's dst_context), `tx_msg_id` echoed.
//!
//! # Pipeline (behind the front; P = first frame beat + 8)
//! ```text
//!  P+1  act: control packets raise dlv / ctx here
//!  D    done (GetRxMsgInfo answer; D = P+4, or L+4 for a DATA frame with more than 8 payload
//!       bytes, L its last beat): credit register request (ifElseRAW)
//!  D+1  credit answer → CtrlPktEvent (ev) to the packet generator
//! ```
//! (Counted from `done`/`act`: a frame with more than 8 payload bytes gets them only after
//! its last beat has validated it — see the front — so nothing answers a frame of the wrong
//! length.)
//! **Latency: first frame beat in → first beat out to the reassembly = 14 cycles**, the front's
//! (derived in [`crate::pisa::ingress_front`]; pinned by the whole-NIC latency test), against Table
//! 3.1's 16 for NDP. The physical floor at 64 bits is 8 cycles (the parser must see byte 63
//! before any field is valid); the rest is the match stage, the GetRxMsgInfo call and the
//! first-word-fall-through FIFOs that let the payload wait for its decision without stalling the
//! fixed-latency stages.
//! Throughput and backpressure: those of the front (one beat per cycle).
//!
//! # Ports
//! In: the front's decisions `act` and `done` ([`crate::pisa::ingress_front`]), `rtt_pkts`
//! 16 (the shell's program interface also brings Homa's configuration and the receive-slot
//! release, which NDP does not read). Out:
//! | group | ports |
//! |---|---|
//! | to the transmit path | `dlv.valid`, `dlv.tx_msg_id`, `dlv.ack_bitmap` 64; `ctx.valid`, `ctx.tx_msg_id`, `ctx.rtx_flag`, `ctx.rtx_bitmap` 64, `ctx.credit_flag`, `ctx.new_credit`, `ctx.allow_tx`, `ctx.raise_only` |
//! | to the packet generator | `ev.valid`, `ev.msg_id` IW, `ev.msg_gen` 8, `ev.ctrl_flags` 8, `ev.pull`, `ev.credit` 16, `ev.remote_ip`, `ev.remote_port`, `ev.local_port`, `ev.msg_len`, `ev.pkt_offset`, `ev.tx_msg_id`, `ev.rank` |
//! | counters | `counters` ([`ProgramCountersSource`]): `offset_range_count` (ACK/NACK for an offset without a bitmap bit); the others 0 |

use crate::common::bundles::{
    ControlActionSink, CreditTxEventSource, CtrlPktEventSource, DataAnswerSink, DeliveredEventSource, PriorityWriteSource,
    ProgramCountersSource,
};
use crate::common::event_counter::WrappingCounter;
use crate::nic::empty_egress::EmptyEgress;
use crate::nic::shell::{IngressProgram, ProgramBlock, ShellParams};
use crate::pisa::match_action::MatchEntry;
use crate::pisa::register_extern::RegisterExtern;
use crate::pisa::wire::{FLAG_ACK, FLAG_CHOP, FLAG_DATA, FLAG_NACK, FLAG_PULL};
use crate::{locals, ports, registers, status_counters};
use rust_hdl::prelude::*;

/// Action selectors of [`ndp_ingress_program`] (1 and 2 are the front's DATA and trimmed DATA).
pub const NDP_ACTION_DROP: u8 = 0;
pub const NDP_ACTION_DATA: u8 = 1;
pub const NDP_ACTION_CHOP: u8 = 2;
pub const NDP_ACTION_CONTROL: u8 = 3;

/// NDP's ingress match-action program on the flags (key bits 7–0): trimmed DATA, DATA, and
/// any of ACK / NACK / PULL; everything else is dropped (the default action).
pub fn ndp_ingress_program() -> Vec<MatchEntry> {
    let data_chop = (FLAG_DATA | FLAG_CHOP) as u16;
    vec![
        MatchEntry { value: data_chop, mask: data_chop, action: NDP_ACTION_CHOP },
        MatchEntry { value: FLAG_DATA as u16, mask: data_chop, action: NDP_ACTION_DATA },
        MatchEntry { value: FLAG_ACK as u16, mask: FLAG_ACK as u16, action: NDP_ACTION_CONTROL },
        MatchEntry { value: FLAG_NACK as u16, mask: FLAG_NACK as u16, action: NDP_ACTION_CONTROL },
        MatchEntry { value: FLAG_PULL as u16, mask: FLAG_PULL as u16, action: NDP_ACTION_CONTROL },
    ]
}

#[ports(
    in clock: Clock;
    in reset: Bit;
    in rtt_pkts: Bits<16>;
    // The shell's program interface has Homa's scheduler ports; NDP has no scheduler and no
    // priority memory: the inputs are not read, the outputs are 0.
    in cfg_overcommit: Bits<5>;
    in cfg_unsched_prios: Bits<4>;
    /// Homa's duplicate-GRANT option (part of the shell's program interface); NDP answers a
    /// duplicate with ACK + PULL anyway.
    in cfg_dup_grant: Bit;
    /// Homa's acknowledgement policy (part of the shell's program interface); NDP ACKs every
    /// DATA packet, duplicates included, whatever it says.
    in cfg_ack_policy: Bits<2>;
    in rel_valid: Bit;
    in rel_slot: Bits<IW>;
)]
#[registers(
    s3_event, s3_pull: Bit;
    s3_flags, s3_gen: Bits<8>;
    s3_slot: Bits<IW>;
    s3_meta: Bits<152>;
)]
#[locals(
    m1: Bits<152>;
    m1_flags, m1_offset: Bits<8>;
    m1_offset_bit: Bits<64>;
    m1_is_control, d_is_data, d_is_chop, d_credit_op, d_reply: Bit;
)]
#[derive(LogicBlock, Default)]
pub struct NdpIngress<const N: usize, const IW: usize> {
    pub act: ControlActionSink,
    pub done: DataAnswerSink<IW>,
    pub dlv: DeliveredEventSource,
    pub ctx: CreditTxEventSource,
    pub ev: CtrlPktEventSource<IW>,
    /// The program's status counters (`counters$ack_sent_count`, … in the Verilog).
    pub counters: ProgramCountersSource,
    pub prio_wr: PriorityWriteSource<IW>,
    credit: RegisterExtern<16, IW>,
    n_offset_range: WrappingCounter<32>,
}

impl<const N: usize, const IW: usize> Logic for NdpIngress<N, IW> {
    #[status_counters]
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, s3_event, s3_flags, s3_pull, s3_slot, s3_gen, s3_meta);
        status_counters!(self, clock, reset, n_offset_range => counters.offset_range_count);
        clock!(self, clock, credit);
        self.credit.reset.next = self.reset.val();

        // ---------------- P+1: control packets → DeliveredEvent, CreditTxEvent ----------------
        self.m1.next = self.act.meta.val();
        self.m1_flags.next = self.m1.val().get_bits::<8>(136);
        self.m1_offset.next = self.m1.val().get_bits::<8>(80);
        self.m1_offset_bit.next = 0.into();
        if self.m1_offset.val() < 64 {
            self.m1_offset_bit.next = bits::<64>(1) << bit_cast::<64, 6>(self.m1_offset.val().get_bits::<6>(0));
        }
        self.m1_is_control.next = self.act.valid.val() & (self.act.action.val() == 3);
        self.dlv.valid.next = self.m1_is_control.val() & ((self.m1_flags.val() & 0x02) != 0);
        self.dlv.tx_msg_id.next = self.m1.val().get_bits::<16>(104);
        self.dlv.ack_bitmap.next = self.m1_offset_bit.val();
        self.ctx.valid.next = self.m1_is_control.val() & ((self.m1_flags.val() & 0x0C) != 0);
        self.ctx.tx_msg_id.next = self.m1.val().get_bits::<16>(104);
        self.ctx.rtx_flag.next = (self.m1_flags.val() & 0x04) != 0;
        self.ctx.rtx_bitmap.next = self.m1_offset_bit.val();
        self.ctx.credit_flag.next = (self.m1_flags.val() & 0x08) != 0;
        self.ctx.new_credit.next = self.m1.val().get_bits::<16>(88);
        self.ctx.allow_tx.next = true;
        self.ctx.raise_only.next = true;
        if self.m1_is_control.val() & (self.m1_offset.val() >= 64) {
            self.n_offset_range.increment.next = true;
        }

        // ---------------- P+2: GetRxMsgInfo answer → credit register (ifElseRAW) ----------------
        self.d_is_data.next = self.done.valid.val() & (self.done.action.val() == 1);
        self.d_is_chop.next = self.done.valid.val() & (self.done.action.val() == 2);
        self.d_credit_op.next = (self.d_is_data.val() | self.d_is_chop.val()) & self.done.live.val();
        self.d_reply.next = (self.d_is_data.val() & self.done.ok.val()) | (self.d_is_chop.val() & self.done.live.val());
        // DATA: new message ? WRITE rtt+1 : ADD 1 (ADD 0 for a duplicate: its PULL repeats the
        // current credit); CHOP: new message ? WRITE rtt : KEEP.
        self.credit.req_valid.next = self.d_credit_op.val();
        self.credit.req_index.next = self.done.slot.val();
        self.credit.req_pred.next = self.done.is_new_msg.val();
        self.credit.req_op_true.next = 2.into();
        self.credit.req_value_true.next = self.rtt_pkts.val();
        self.credit.req_op_false.next = 0.into();
        self.credit.req_value_false.next = 0.into();
        if self.d_is_data.val() {
            self.credit.req_value_true.next = self.rtt_pkts.val() + 1;
            self.credit.req_op_false.next = 1.into();
            self.credit.req_value_false.next = bit_cast::<16, 1>(self.done.is_new_pkt.val().into());
        }
        self.s3_event.d.next = self.d_reply.val();
        self.s3_flags.d.next = 0x04.into();
        if self.d_is_data.val() {
            self.s3_flags.d.next = 0x02.into();
        }
        self.s3_pull.d.next = self.d_credit_op.val();
        self.s3_slot.d.next = self.done.slot.val();
        self.s3_gen.d.next = self.done.gen.val();
        self.s3_meta.d.next = self.done.meta.val();

        // ---------------- P+3: credit answer → CtrlPktEvent ----------------
        self.ev.valid.next = self.s3_event.q.val();
        self.ev.msg_id.next = self.s3_slot.q.val();
        self.ev.msg_gen.next = self.s3_gen.q.val();
        self.ev.ctrl_flags.next = self.s3_flags.q.val();
        self.ev.pull.next = self.s3_pull.q.val();
        self.ev.credit.next = self.credit.resp_new.val();
        self.ev.remote_ip.next = self.s3_meta.q.val().get_bits::<32>(0);
        self.ev.remote_port.next = self.s3_meta.q.val().get_bits::<16>(32);
        self.ev.local_port.next = self.s3_meta.q.val().get_bits::<16>(48);
        self.ev.msg_len.next = self.s3_meta.q.val().get_bits::<16>(64);
        self.ev.pkt_offset.next = self.s3_meta.q.val().get_bits::<8>(80);
        self.ev.tx_msg_id.next = self.s3_meta.q.val().get_bits::<16>(104);
        self.ev.rank.next = 0.into();
        self.prio_wr.valid.next = false;
        self.prio_wr.index.next = 0.into();
        self.prio_wr.value.next = 0.into();
        self.counters.grant_sent_count.next = 0.into();
        self.counters.ack_sent_count.next = 0.into();
        self.counters.nack_sent_count.next = 0.into();
        self.counters.sched_inserts_count.next = 0.into();
        self.counters.sched_removes_count.next = 0.into();
        self.counters.sched_unknown_removes_count.next = 0.into();
        self.counters.sched_fifo_enters_count.next = 0.into();
        self.counters.sched_levels.next = 0.into();

        if self.reset.val() {
            self.s3_event.d.next = false;
        }
    }
}

impl<const N: usize, const IW: usize> ProgramBlock for NdpIngress<N, IW> {
    fn for_params(_params: &ShellParams) -> Self {
        Self::default()
    }
}

impl<const N: usize, const IW: usize> IngressProgram for NdpIngress<N, IW> {
    fn match_program(_params: &ShellParams) -> Vec<MatchEntry> {
        ndp_ingress_program()
    }
}

crate::nic_shell!(
    /// The NDP NIC: the [NIC shell](crate::nic::shell) with NDP's ingress program and no
    /// egress stage (DATA packets keep the rank their message was given).
    NdpNic, NdpIngress, EmptyEgress, crate::presets::Protocol::Ndp
);
