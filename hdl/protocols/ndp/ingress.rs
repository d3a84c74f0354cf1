//! NDP ingress pipeline (thesis §3.3.4, Algorithm 5) for 2^IW messages (16 or 128): the [`Parser`], a
//! match-action stage that dispatches on the transport flags, the GetRxMsgInfo call, the credit
//! register (an ifElseRAW [`RegisterExtern`]) and the events, in front of the reassembly.
//!
//! # What it does per packet (Algorithm 5)
//! The match-action stage ([`MatchTable`] loaded with [`ndp_ingress_program`]) picks one action
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
//!   packet (`dlv_*`, bitmap bit `pkt_offset`); NACK → CreditTxEvent with that packet marked for
//!   retransmission; PULL → CreditTxEvent, raise-only, credit = `pull_offset`. NACK and PULL in
//!   one packet make one CreditTxEvent. Offsets ≥ 64 have no bitmap bit (`offset_range_count`).
//!   The packet itself is dropped. Events for unknown messages are counted stale by the
//!   transmit path.
//! * anything else (e.g. CHOP without DATA): dropped, `no_action_count`.
//!
//! The reply goes to the packet generator as one CtrlPktEvent (`ev_*`): `ev_ctrl_flags` ACK or
//! NACK, `ev_pull` with `ev_credit`, `ev_msg_id` = the receive slot (PULLs coalesce per slot),
//! addressed to the sender (`remote_ip` = its IPv4 source, `remote_port` = its src_context,
//! `local_port` = the packet's dst_context), `tx_msg_id` echoed.
//!
//! # Pipeline
//! ```text
//!  cycle 0..7  frame beats 0–7 into the parser (64-byte header)
//!  cycle 8     P   first payload beat + header fields out of the parser → match stage;
//!                  the beat enters the payload FIFO
//!  cycle 9     P+1 action: GetRxMsgInfo request; control packets raise dlv_*/ctx_* here
//!  cycle 10    P+2 GetRxMsgInfo response → decision FIFO; credit register request
//!  cycle 11    P+3 credit response → CtrlPktEvent (ev_*) to the packet generator
//!  cycle 12    P+4 decision at the FIFO head: the first beat leaves on m_axis with its metadata
//! ```
//! **Latency: first frame beat in → first beat out to the reassembly = 12 cycles** (measured by
//! the NIC top's latency report), against Table 3.1's 16 for NDP. The physical floor at 64 bits
//! is 8 cycles (the parser must see byte 63 before any field is valid); the other 4 are the
//! match stage (1), GetRxMsgInfo (1) and the two first-word-fall-through FIFOs that let the
//! payload wait for its decision without stalling the fixed-latency stages (2).
//!
//! # Throughput and backpressure
//! One beat per cycle. The parser emits at most one packet per 8 cycles, so the stages (one
//! packet per cycle each) never conflict. The payload (32 beats) and decision (8 entries) FIFOs
//! absorb a stalled `m_axis_tready`; when they are nearly full `s_axis_tready` goes low, so
//! backpressure reaches the MAC side and nothing is lost. Dropped packets are consumed at one
//! beat per cycle without waiting for the reassembly.
//!
//! # Ports
//! | group | ports |
//! |---|---|
//! | control | `clock`, `reset` (synchronous: FIFOs emptied, counters zero), `rtt_pkts` 16 |
//! | MAC RX | `s_axis_tdata` 64, `s_axis_tkeep` 8, `s_axis_tlast`, `s_axis_tvalid`, `s_axis_tready` (frames without FCS) |
//! | GetRxMsgInfo | `req_*` out, `resp_*` in (the reassembly's table, 1-cycle response) |
//! | to the reassembly | `m_axis_tdata/tkeep/tlast/tvalid/tready`, `m_axis_meta_*` (Listing 3.1: remote_ip, remote_port, msg_len, pkt_offset, local_port, rx_msg_id, tx_msg_id, is_last_pkt), valid with the first beat |
//! | to the transmit path | `dlv_valid`, `dlv_tx_msg_id`, `dlv_ack_bitmap` 64; `ctx_valid`, `ctx_tx_msg_id`, `ctx_rtx_flag`, `ctx_rtx_bitmap` 64, `ctx_credit_flag`, `ctx_new_credit`, `ctx_allow_tx`, `ctx_raise_only` |
//! | to the packet generator | `ev_valid`, `ev_msg_id` 4, `ev_ctrl_flags` 8, `ev_pull`, `ev_credit` 16, `ev_remote_ip`, `ev_remote_port`, `ev_local_port`, `ev_msg_len`, `ev_pkt_offset`, `ev_tx_msg_id`, `ev_rank` |
//! | counters (32, wrapping) | the parser's six (`frame_count`, `not_ipv4_count`, `wrong_protocol_count`, `too_short_count`, `bad_checksum_count`, `bad_flags_count`); `data_count`, `chop_count`, `control_count`, `no_action_count`, `bad_length_count`, `rx_fail_count`, `duplicate_data_count`, `forwarded_count`, `offset_range_count` |

use crate::common::stream_fifo::StreamFifo;
use crate::pisa::match_action::{MatchEntry, MatchTable};
use crate::pisa::parser::Parser;
use crate::pisa::register_extern::RegisterExtern;
use crate::pisa::wire::{FLAG_ACK, FLAG_CHOP, FLAG_DATA, FLAG_NACK, FLAG_PULL, NDP_IP_PROTOCOL};
use rust_hdl::prelude::*;

/// Action selectors of [`ndp_ingress_program`].
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

// Header fields carried beside the key through the match stage (bit offsets in `Bits<144>`).
// src_ip 0, src_context 32, dst_context 48, msg_len 64, pkt_offset 80, pull_offset 88,
// tx_msg_id 104, ip_total_len 120, flags 136.

#[derive(LogicBlock)]
pub struct NdpIngress<const IW: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub rtt_pkts: Signal<In, Bits<16>>,
    // MAC RX
    pub s_axis_tdata: Signal<In, Bits<64>>,
    pub s_axis_tkeep: Signal<In, Bits<8>>,
    pub s_axis_tlast: Signal<In, Bit>,
    pub s_axis_tvalid: Signal<In, Bit>,
    pub s_axis_tready: Signal<Out, Bit>,
    // GetRxMsgInfo
    pub req_valid: Signal<Out, Bit>,
    pub req_ready: Signal<In, Bit>,
    pub req_mark_received: Signal<Out, Bit>,
    pub req_src_ip: Signal<Out, Bits<32>>,
    pub req_src_port: Signal<Out, Bits<16>>,
    pub req_tx_msg_id: Signal<Out, Bits<16>>,
    pub req_msg_len: Signal<Out, Bits<16>>,
    pub req_pkt_offset: Signal<Out, Bits<8>>,
    pub resp_valid: Signal<In, Bit>,
    pub resp_fail: Signal<In, Bit>,
    pub resp_rx_msg_id: Signal<In, Bits<16>>,
    pub resp_is_new_msg: Signal<In, Bit>,
    pub resp_is_new_pkt: Signal<In, Bit>,
    pub resp_is_last_pkt: Signal<In, Bit>,
    // to the reassembly
    pub m_axis_tdata: Signal<Out, Bits<64>>,
    pub m_axis_tkeep: Signal<Out, Bits<8>>,
    pub m_axis_tlast: Signal<Out, Bit>,
    pub m_axis_tvalid: Signal<Out, Bit>,
    pub m_axis_tready: Signal<In, Bit>,
    pub m_axis_meta_remote_ip: Signal<Out, Bits<32>>,
    pub m_axis_meta_remote_port: Signal<Out, Bits<16>>,
    pub m_axis_meta_msg_len: Signal<Out, Bits<16>>,
    pub m_axis_meta_pkt_offset: Signal<Out, Bits<8>>,
    pub m_axis_meta_local_port: Signal<Out, Bits<16>>,
    pub m_axis_meta_rx_msg_id: Signal<Out, Bits<16>>,
    pub m_axis_meta_tx_msg_id: Signal<Out, Bits<16>>,
    pub m_axis_meta_is_last_pkt: Signal<Out, Bit>,
    // DeliveredEvent / CreditTxEvent
    pub dlv_valid: Signal<Out, Bit>,
    pub dlv_tx_msg_id: Signal<Out, Bits<16>>,
    pub dlv_ack_bitmap: Signal<Out, Bits<64>>,
    pub ctx_valid: Signal<Out, Bit>,
    pub ctx_tx_msg_id: Signal<Out, Bits<16>>,
    pub ctx_rtx_flag: Signal<Out, Bit>,
    pub ctx_rtx_bitmap: Signal<Out, Bits<64>>,
    pub ctx_credit_flag: Signal<Out, Bit>,
    pub ctx_new_credit: Signal<Out, Bits<16>>,
    pub ctx_allow_tx: Signal<Out, Bit>,
    pub ctx_raise_only: Signal<Out, Bit>,
    // CtrlPktEvent
    pub ev_valid: Signal<Out, Bit>,
    pub ev_msg_id: Signal<Out, Bits<IW>>,
    pub ev_ctrl_flags: Signal<Out, Bits<8>>,
    pub ev_pull: Signal<Out, Bit>,
    pub ev_credit: Signal<Out, Bits<16>>,
    pub ev_remote_ip: Signal<Out, Bits<32>>,
    pub ev_remote_port: Signal<Out, Bits<16>>,
    pub ev_local_port: Signal<Out, Bits<16>>,
    pub ev_msg_len: Signal<Out, Bits<16>>,
    pub ev_pkt_offset: Signal<Out, Bits<8>>,
    pub ev_tx_msg_id: Signal<Out, Bits<16>>,
    pub ev_rank: Signal<Out, Bits<8>>,
    // counters
    pub frame_count: Signal<Out, Bits<32>>,
    pub not_ipv4_count: Signal<Out, Bits<32>>,
    pub wrong_protocol_count: Signal<Out, Bits<32>>,
    pub too_short_count: Signal<Out, Bits<32>>,
    pub bad_checksum_count: Signal<Out, Bits<32>>,
    pub bad_flags_count: Signal<Out, Bits<32>>,
    pub data_count: Signal<Out, Bits<32>>,
    pub chop_count: Signal<Out, Bits<32>>,
    pub control_count: Signal<Out, Bits<32>>,
    pub no_action_count: Signal<Out, Bits<32>>,
    pub bad_length_count: Signal<Out, Bits<32>>,
    pub rx_fail_count: Signal<Out, Bits<32>>,
    pub duplicate_data_count: Signal<Out, Bits<32>>,
    pub forwarded_count: Signal<Out, Bits<32>>,
    pub offset_range_count: Signal<Out, Bits<32>>,

    parser: Parser,
    dispatch: MatchTable<Bits<144>>,
    credit: RegisterExtern<16, IW>,
    slot_mask: Constant<Bits<16>>,
    payload: StreamFifo<Bits<74>, 5>,
    decisions: StreamFifo<Bits<128>, 3>,

    // stage 2 (GetRxMsgInfo response cycle)
    s2_valid: DFF<Bit>,
    s2_action: DFF<Bits<4>>,
    s2_issued: DFF<Bit>,
    s2_meta: DFF<Bits<144>>,
    // stage 3 (credit response cycle)
    s3_event: DFF<Bit>,
    s3_flags: DFF<Bits<8>>,
    s3_pull: DFF<Bit>,
    s3_slot: DFF<Bits<IW>>,
    s3_meta: DFF<Bits<144>>,
    // output
    out_forward: DFF<Bit>,
    // counters
    n_data: DFF<Bits<32>>,
    n_chop: DFF<Bits<32>>,
    n_control: DFF<Bits<32>>,
    n_no_action: DFF<Bits<32>>,
    n_bad_length: DFF<Bits<32>>,
    n_rx_fail: DFF<Bits<32>>,
    n_duplicate: DFF<Bits<32>>,
    n_forwarded: DFF<Bits<32>>,
    n_offset_range: DFF<Bits<32>>,

    // stage 1 locals
    m1: Signal<Local, Bits<144>>,
    m1_flags: Signal<Local, Bits<8>>,
    m1_offset: Signal<Local, Bits<8>>,
    m1_offset_bit: Signal<Local, Bits<64>>,
    m1_start: Signal<Local, Bits<24>>,
    m1_len: Signal<Local, Bits<24>>,
    m1_rest: Signal<Local, Bits<24>>,
    m1_expected: Signal<Local, Bits<24>>,
    m1_carried: Signal<Local, Bits<24>>,
    m1_length_ok: Signal<Local, Bit>,
    m1_is_data: Signal<Local, Bit>,
    m1_is_chop: Signal<Local, Bit>,
    m1_is_control: Signal<Local, Bit>,
    m1_request: Signal<Local, Bit>,
    rq_meta: Signal<Local, Bits<144>>,
    rq_action: Signal<Local, Bits<4>>,
    resp_done: Signal<Local, Bit>,
    slot: Signal<Local, Bits<IW>>,
    // stage 2 locals
    s2_ok: Signal<Local, Bit>,
    s2_live: Signal<Local, Bit>,
    s2_forward: Signal<Local, Bit>,
    s2_credit_op: Signal<Local, Bit>,
    s2_reply: Signal<Local, Bit>,
    s2_is_data: Signal<Local, Bit>,
    s2_is_chop: Signal<Local, Bit>,
    // output locals
    head: Signal<Local, Bits<74>>,
    dec: Signal<Local, Bits<128>>,
    at_first: Signal<Local, Bit>,
    can_go: Signal<Local, Bit>,
    forward_now: Signal<Local, Bit>,
    take: Signal<Local, Bit>,
    parser_take: Signal<Local, Bit>,
}

impl<const IW: usize> Default for NdpIngress<IW> {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            rtt_pkts: Default::default(),
            s_axis_tdata: Default::default(),
            s_axis_tkeep: Default::default(),
            s_axis_tlast: Default::default(),
            s_axis_tvalid: Default::default(),
            s_axis_tready: Default::default(),
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
            resp_rx_msg_id: Default::default(),
            resp_is_new_msg: Default::default(),
            resp_is_new_pkt: Default::default(),
            resp_is_last_pkt: Default::default(),
            m_axis_tdata: Default::default(),
            m_axis_tkeep: Default::default(),
            m_axis_tlast: Default::default(),
            m_axis_tvalid: Default::default(),
            m_axis_tready: Default::default(),
            m_axis_meta_remote_ip: Default::default(),
            m_axis_meta_remote_port: Default::default(),
            m_axis_meta_msg_len: Default::default(),
            m_axis_meta_pkt_offset: Default::default(),
            m_axis_meta_local_port: Default::default(),
            m_axis_meta_rx_msg_id: Default::default(),
            m_axis_meta_tx_msg_id: Default::default(),
            m_axis_meta_is_last_pkt: Default::default(),
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
            ev_valid: Default::default(),
            ev_msg_id: Default::default(),
            ev_ctrl_flags: Default::default(),
            ev_pull: Default::default(),
            ev_credit: Default::default(),
            ev_remote_ip: Default::default(),
            ev_remote_port: Default::default(),
            ev_local_port: Default::default(),
            ev_msg_len: Default::default(),
            ev_pkt_offset: Default::default(),
            ev_tx_msg_id: Default::default(),
            ev_rank: Default::default(),
            frame_count: Default::default(),
            not_ipv4_count: Default::default(),
            wrong_protocol_count: Default::default(),
            too_short_count: Default::default(),
            bad_checksum_count: Default::default(),
            bad_flags_count: Default::default(),
            data_count: Default::default(),
            chop_count: Default::default(),
            control_count: Default::default(),
            no_action_count: Default::default(),
            bad_length_count: Default::default(),
            rx_fail_count: Default::default(),
            duplicate_data_count: Default::default(),
            forwarded_count: Default::default(),
            offset_range_count: Default::default(),
            parser: Parser::new(NDP_IP_PROTOCOL),
            dispatch: MatchTable::new(&ndp_ingress_program(), NDP_ACTION_DROP),
            credit: Default::default(),
            slot_mask: Constant::new(((1u64 << IW) - 1).into()),
            payload: Default::default(),
            decisions: Default::default(),
            s2_valid: Default::default(),
            s2_action: Default::default(),
            s2_issued: Default::default(),
            s2_meta: Default::default(),
            s3_event: Default::default(),
            s3_flags: Default::default(),
            s3_pull: Default::default(),
            s3_slot: Default::default(),
            s3_meta: Default::default(),
            out_forward: Default::default(),
            n_data: Default::default(),
            n_chop: Default::default(),
            n_control: Default::default(),
            n_no_action: Default::default(),
            n_bad_length: Default::default(),
            n_rx_fail: Default::default(),
            n_duplicate: Default::default(),
            n_forwarded: Default::default(),
            n_offset_range: Default::default(),
            m1: Default::default(),
            m1_flags: Default::default(),
            m1_offset: Default::default(),
            m1_offset_bit: Default::default(),
            m1_start: Default::default(),
            m1_len: Default::default(),
            m1_rest: Default::default(),
            m1_expected: Default::default(),
            m1_carried: Default::default(),
            m1_length_ok: Default::default(),
            m1_is_data: Default::default(),
            m1_is_chop: Default::default(),
            m1_is_control: Default::default(),
            m1_request: Default::default(),
            rq_meta: Default::default(),
            rq_action: Default::default(),
            resp_done: Default::default(),
            slot: Default::default(),
            s2_ok: Default::default(),
            s2_live: Default::default(),
            s2_forward: Default::default(),
            s2_credit_op: Default::default(),
            s2_reply: Default::default(),
            s2_is_data: Default::default(),
            s2_is_chop: Default::default(),
            head: Default::default(),
            dec: Default::default(),
            at_first: Default::default(),
            can_go: Default::default(),
            forward_now: Default::default(),
            take: Default::default(),
            parser_take: Default::default(),
        }
    }
}

impl<const IW: usize> Logic for NdpIngress<IW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, s2_valid, s2_action, s2_issued, s2_meta, s3_event, s3_flags, s3_pull, s3_slot,
            s3_meta, out_forward, n_data, n_chop, n_control, n_no_action, n_bad_length,
            n_rx_fail, n_duplicate, n_forwarded, n_offset_range
        );
        clock!(self, clock, parser, dispatch, credit, payload, decisions);
        self.parser.reset.next = self.reset.val();
        self.dispatch.reset.next = self.reset.val();
        self.credit.reset.next = self.reset.val();
        self.payload.reset.next = self.reset.val();
        self.decisions.reset.next = self.reset.val();

        // ---------------- parser; payload beats into the payload FIFO ----------------
        self.parser.s_axis_tdata.next = self.s_axis_tdata.val();
        self.parser.s_axis_tkeep.next = self.s_axis_tkeep.val();
        self.parser.s_axis_tlast.next = self.s_axis_tlast.val();
        self.parser.s_axis_tvalid.next = self.s_axis_tvalid.val();
        self.s_axis_tready.next = self.parser.s_axis_tready.val();
        // Room for one more beat, and for the decision of a frame already in the stages.
        // A frame's first beat also waits until the previous frame's GetRxMsgInfo call is done
        // (one call in flight; the 128-message table may be busy for a while after reset).
        self.parser.m_axis_tready.next = ((self.payload.level.val() < 30) & (self.decisions.level.val() < 6))
            & ((!self.parser.m_axis_tfirst.val()) | (!(self.s2_valid.q.val() | self.dispatch.out_valid.val())));
        self.parser_take.next = self.parser.m_axis_tvalid.val() & self.parser.m_axis_tready.val();
        self.payload.push.next = self.parser_take.val();
        self.payload.push_data.next = ((bit_cast::<74, 64>(self.parser.m_axis_tdata.val())
            | (bit_cast::<74, 8>(self.parser.m_axis_tkeep.val()) << 64))
            | (bit_cast::<74, 1>(self.parser.m_axis_tlast.val().into()) << 72))
            | (bit_cast::<74, 1>(self.parser.m_axis_tfirst.val().into()) << 73);
        self.frame_count.next = self.parser.frame_count.val();
        self.not_ipv4_count.next = self.parser.not_ipv4_count.val();
        self.wrong_protocol_count.next = self.parser.wrong_protocol_count.val();
        self.too_short_count.next = self.parser.too_short_count.val();
        self.bad_checksum_count.next = self.parser.bad_checksum_count.val();
        self.bad_flags_count.next = self.parser.bad_flags_count.val();

        // ---------------- stage 0: match on the flags ----------------
        self.dispatch.in_valid.next = self.parser_take.val() & self.parser.m_axis_tfirst.val();
        self.dispatch.in_key.next = bit_cast::<16, 8>(self.parser.hdr_flags.val());
        self.dispatch.in_meta.next = (((((((bit_cast::<144, 32>(self.parser.hdr_src_ip.val())
            | (bit_cast::<144, 16>(self.parser.hdr_src_context.val()) << 32))
            | (bit_cast::<144, 16>(self.parser.hdr_dst_context.val()) << 48))
            | (bit_cast::<144, 16>(self.parser.hdr_msg_len.val()) << 64))
            | (bit_cast::<144, 8>(self.parser.hdr_pkt_offset.val()) << 80))
            | (bit_cast::<144, 16>(self.parser.hdr_pull_offset.val()) << 88))
            | (bit_cast::<144, 16>(self.parser.hdr_tx_msg_id.val()) << 104))
            | (bit_cast::<144, 16>(self.parser.hdr_ip_total_len.val()) << 120))
            | (bit_cast::<144, 8>(self.parser.hdr_flags.val()) << 136);
        self.dispatch.cfg_write_valid.next = false;
        self.dispatch.cfg_write_index.next = 0.into();
        self.dispatch.cfg_write_enable.next = false;
        self.dispatch.cfg_write_key.next = 0.into();
        self.dispatch.cfg_write_mask.next = 0.into();
        self.dispatch.cfg_write_action.next = 0.into();

        // ---------------- stage 1: action → GetRxMsgInfo, DeliveredEvent, CreditTxEvent ----------------
        self.m1.next = self.dispatch.out_meta.val();
        self.m1_flags.next = self.m1.val().get_bits::<8>(136);
        self.m1_offset.next = self.m1.val().get_bits::<8>(80);
        self.m1_offset_bit.next = 0.into();
        if self.m1_offset.val() < 64 {
            self.m1_offset_bit.next = bits::<64>(1) << bit_cast::<64, 6>(self.m1_offset.val().get_bits::<6>(0));
        }
        self.m1_is_data.next = self.dispatch.out_valid.val() & (self.dispatch.out_action.val() == 1);
        self.m1_is_chop.next = self.dispatch.out_valid.val() & (self.dispatch.out_action.val() == 2);
        self.m1_is_control.next = self.dispatch.out_valid.val() & (self.dispatch.out_action.val() == 3);
        // A DATA packet must carry min(1024, msg_len − 1024·offset) bytes; an offset beyond the
        // message is left to GetRxMsgInfo (fail reason 3).
        self.m1_start.next = bit_cast::<24, 8>(self.m1_offset.val()) << 10;
        self.m1_len.next = bit_cast::<24, 16>(self.m1.val().get_bits::<16>(64));
        self.m1_rest.next = self.m1_len.val() - self.m1_start.val();
        self.m1_expected.next = self.m1_rest.val();
        if self.m1_rest.val() > 1024 {
            self.m1_expected.next = 1024.into();
        }
        self.m1_carried.next = bit_cast::<24, 16>(self.m1.val().get_bits::<16>(120) - 50);
        self.m1_length_ok.next = (self.m1_start.val() >= self.m1_len.val())
            | (self.m1_carried.val() == self.m1_expected.val());
        self.m1_request.next = (self.m1_is_data.val() & self.m1_length_ok.val()) | self.m1_is_chop.val();
        // The request goes out in the match cycle (P+1) if the table is ready, else it is held.
        self.rq_meta.next = self.m1.val();
        self.rq_action.next = self.dispatch.out_action.val();
        if self.s2_valid.q.val() {
            self.rq_meta.next = self.s2_meta.q.val();
            self.rq_action.next = self.s2_action.q.val();
        }
        self.req_valid.next = (self.m1_request.val() & (!self.s2_valid.q.val())) | (self.s2_valid.q.val() & (!self.s2_issued.q.val()));
        self.req_mark_received.next = self.rq_action.val() == 1;
        self.req_src_ip.next = self.rq_meta.val().get_bits::<32>(0);
        self.req_src_port.next = self.rq_meta.val().get_bits::<16>(32);
        self.req_tx_msg_id.next = self.rq_meta.val().get_bits::<16>(104);
        self.req_msg_len.next = self.rq_meta.val().get_bits::<16>(64);
        self.req_pkt_offset.next = self.rq_meta.val().get_bits::<8>(80);

        self.dlv_valid.next = self.m1_is_control.val() & ((self.m1_flags.val() & 0x02) != 0);
        self.dlv_tx_msg_id.next = self.m1.val().get_bits::<16>(104);
        self.dlv_ack_bitmap.next = self.m1_offset_bit.val();
        self.ctx_valid.next = self.m1_is_control.val() & ((self.m1_flags.val() & 0x0C) != 0);
        self.ctx_tx_msg_id.next = self.m1.val().get_bits::<16>(104);
        self.ctx_rtx_flag.next = (self.m1_flags.val() & 0x04) != 0;
        self.ctx_rtx_bitmap.next = self.m1_offset_bit.val();
        self.ctx_credit_flag.next = (self.m1_flags.val() & 0x08) != 0;
        self.ctx_new_credit.next = self.m1.val().get_bits::<16>(88);
        self.ctx_allow_tx.next = true;
        self.ctx_raise_only.next = true;

        if self.m1_request.val() {
            self.s2_valid.d.next = true;
            self.s2_action.d.next = self.dispatch.out_action.val();
            self.s2_meta.d.next = self.m1.val();
            self.s2_issued.d.next = self.req_ready.val();
        } else if self.s2_valid.q.val() & (!self.s2_issued.q.val()) & self.req_ready.val() {
            self.s2_issued.d.next = true;
        }
        if self.m1_is_data.val() {
            self.n_data.d.next = self.n_data.q.val() + 1;
        }
        if self.m1_is_chop.val() {
            self.n_chop.d.next = self.n_chop.q.val() + 1;
        }
        if self.m1_is_control.val() {
            self.n_control.d.next = self.n_control.q.val() + 1;
        }
        if self.dispatch.out_valid.val() & (self.dispatch.out_action.val() == 0) {
            self.n_no_action.d.next = self.n_no_action.q.val() + 1;
        }
        if self.m1_is_data.val() & (!self.m1_length_ok.val()) {
            self.n_bad_length.d.next = self.n_bad_length.q.val() + 1;
        }
        if (self.m1_is_control.val() | self.m1_is_chop.val()) & (self.m1_offset.val() >= 64) {
            self.n_offset_range.d.next = self.n_offset_range.q.val() + 1;
        }

        // ---------------- stage 2: GetRxMsgInfo response → decision, credit register ----------------
        self.resp_done.next = (self.s2_valid.q.val() & self.s2_issued.q.val()) & self.resp_valid.val();
        if self.resp_done.val() {
            self.s2_valid.d.next = false;
        }
        self.s2_is_data.next = self.resp_done.val() & (self.s2_action.q.val() == 1);
        self.s2_is_chop.next = self.resp_done.val() & (self.s2_action.q.val() == 2);
        self.s2_ok.next = self.resp_done.val() & (!self.resp_fail.val());
        self.slot.next = bit_cast::<IW, 16>(self.resp_rx_msg_id.val() & self.slot_mask.val());
        // A live entry (not a late copy of a delivered message, which has no rx_msg_id).
        self.s2_live.next = self.s2_ok.val() & (!self.resp_rx_msg_id.val().get_bit(15));
        self.s2_forward.next = (self.s2_is_data.val() & self.s2_live.val()) & self.resp_is_new_pkt.val();
        self.s2_credit_op.next = (self.s2_is_data.val() | self.s2_is_chop.val()) & self.s2_live.val();
        self.s2_reply.next = (self.s2_is_data.val() & self.s2_ok.val()) | (self.s2_is_chop.val() & self.s2_live.val());

        // One decision per frame, in frame order: at once for a frame without a GetRxMsgInfo call,
        // else with its response.
        self.decisions.push.next = (self.dispatch.out_valid.val() & (!self.m1_request.val())) | self.resp_done.val();
        self.decisions.push_data.next = (((((((bit_cast::<128, 1>(self.s2_forward.val().into())
            | (bit_cast::<128, 16>(self.resp_rx_msg_id.val()) << 1))
            | (bit_cast::<128, 1>(self.resp_is_last_pkt.val().into()) << 17))
            | (bit_cast::<128, 32>(self.s2_meta.q.val().get_bits::<32>(0)) << 18))
            | (bit_cast::<128, 16>(self.s2_meta.q.val().get_bits::<16>(32)) << 50))
            | (bit_cast::<128, 16>(self.s2_meta.q.val().get_bits::<16>(48)) << 66))
            | (bit_cast::<128, 16>(self.s2_meta.q.val().get_bits::<16>(64)) << 82))
            | (bit_cast::<128, 8>(self.s2_meta.q.val().get_bits::<8>(80)) << 98))
            | (bit_cast::<128, 16>(self.s2_meta.q.val().get_bits::<16>(104)) << 106);

        // ifElseRAW on the message's credit: DATA (new packet): new message ? WRITE rtt+1 : ADD 1;
        // CHOP: new message ? WRITE rtt : KEEP.
        self.credit.req_valid.next = self.s2_credit_op.val();
        self.credit.req_index.next = self.slot.val();
        self.credit.req_pred.next = self.resp_is_new_msg.val();
        self.credit.req_op_true.next = 2.into();
        self.credit.req_value_true.next = self.rtt_pkts.val();
        self.credit.req_op_false.next = 0.into();
        self.credit.req_value_false.next = 0.into();
        if self.s2_is_data.val() {
            self.credit.req_value_true.next = self.rtt_pkts.val() + 1;
            // A duplicate adds 0: its PULL repeats the current credit.
            self.credit.req_op_false.next = 1.into();
            self.credit.req_value_false.next = bit_cast::<16, 1>(self.resp_is_new_pkt.val().into());
        }

        self.s3_event.d.next = self.s2_reply.val();
        self.s3_flags.d.next = 0x04.into();
        if self.s2_is_data.val() {
            self.s3_flags.d.next = 0x02.into();
        }
        self.s3_pull.d.next = self.s2_credit_op.val();
        self.s3_slot.d.next = self.slot.val();
        self.s3_meta.d.next = self.s2_meta.q.val();
        if self.s2_is_data.val() & (!self.s2_ok.val()) {
            self.n_rx_fail.d.next = self.n_rx_fail.q.val() + 1;
        }
        if self.s2_is_chop.val() & (!self.s2_ok.val()) {
            self.n_rx_fail.d.next = self.n_rx_fail.q.val() + 1;
        }
        if (self.s2_is_data.val() & self.s2_ok.val()) & (!self.s2_forward.val()) {
            self.n_duplicate.d.next = self.n_duplicate.q.val() + 1;
        }

        // ---------------- stage 3: credit response → CtrlPktEvent ----------------
        self.ev_valid.next = self.s3_event.q.val();
        self.ev_msg_id.next = self.s3_slot.q.val();
        self.ev_ctrl_flags.next = self.s3_flags.q.val();
        self.ev_pull.next = self.s3_pull.q.val();
        self.ev_credit.next = self.credit.resp_new.val();
        self.ev_remote_ip.next = self.s3_meta.q.val().get_bits::<32>(0);
        self.ev_remote_port.next = self.s3_meta.q.val().get_bits::<16>(32);
        self.ev_local_port.next = self.s3_meta.q.val().get_bits::<16>(48);
        self.ev_msg_len.next = self.s3_meta.q.val().get_bits::<16>(64);
        self.ev_pkt_offset.next = self.s3_meta.q.val().get_bits::<8>(80);
        self.ev_tx_msg_id.next = self.s3_meta.q.val().get_bits::<16>(104);
        self.ev_rank.next = 0.into();

        // ---------------- output: payload FIFO head, forwarded or consumed per its decision ----------------
        self.head.next = self.payload.head_data.val();
        self.dec.next = self.decisions.head_data.val();
        self.at_first.next = self.payload.head_valid.val() & self.head.val().get_bit(73);
        self.can_go.next = self.payload.head_valid.val() & ((!self.at_first.val()) | self.decisions.head_valid.val());
        self.forward_now.next = self.out_forward.q.val();
        if self.at_first.val() {
            self.forward_now.next = self.dec.val().get_bit(0);
        }
        self.m_axis_tvalid.next = self.can_go.val() & self.forward_now.val();
        self.m_axis_tdata.next = self.head.val().get_bits::<64>(0);
        self.m_axis_tkeep.next = self.head.val().get_bits::<8>(64);
        self.m_axis_tlast.next = self.head.val().get_bit(72);
        self.m_axis_meta_rx_msg_id.next = self.dec.val().get_bits::<16>(1);
        self.m_axis_meta_is_last_pkt.next = self.dec.val().get_bit(17);
        self.m_axis_meta_remote_ip.next = self.dec.val().get_bits::<32>(18);
        self.m_axis_meta_remote_port.next = self.dec.val().get_bits::<16>(50);
        self.m_axis_meta_local_port.next = self.dec.val().get_bits::<16>(66);
        self.m_axis_meta_msg_len.next = self.dec.val().get_bits::<16>(82);
        self.m_axis_meta_pkt_offset.next = self.dec.val().get_bits::<8>(98);
        self.m_axis_meta_tx_msg_id.next = self.dec.val().get_bits::<16>(106);
        self.take.next = self.can_go.val() & ((!self.forward_now.val()) | self.m_axis_tready.val());
        self.payload.pop.next = self.take.val();
        self.decisions.pop.next = self.take.val() & self.at_first.val();
        if self.take.val() & self.at_first.val() {
            self.out_forward.d.next = self.forward_now.val();
            if self.forward_now.val() {
                self.n_forwarded.d.next = self.n_forwarded.q.val() + 1;
            }
        }

        self.data_count.next = self.n_data.q.val();
        self.chop_count.next = self.n_chop.q.val();
        self.control_count.next = self.n_control.q.val();
        self.no_action_count.next = self.n_no_action.q.val();
        self.bad_length_count.next = self.n_bad_length.q.val();
        self.rx_fail_count.next = self.n_rx_fail.q.val();
        self.duplicate_data_count.next = self.n_duplicate.q.val();
        self.forwarded_count.next = self.n_forwarded.q.val();
        self.offset_range_count.next = self.n_offset_range.q.val();

        if self.reset.val() {
            self.s2_valid.d.next = false;
            self.s2_issued.d.next = false;
            self.s3_event.d.next = false;
            self.out_forward.d.next = false;
            self.n_data.d.next = 0.into();
            self.n_chop.d.next = 0.into();
            self.n_control.d.next = 0.into();
            self.n_no_action.d.next = 0.into();
            self.n_bad_length.d.next = 0.into();
            self.n_rx_fail.d.next = 0.into();
            self.n_duplicate.d.next = 0.into();
            self.n_forwarded.d.next = 0.into();
            self.n_offset_range.d.next = 0.into();
        }
    }
}

/// The ingress for 16 messages (GetRxMsgInfo answers in 1 cycle).
pub type NdpIngress16 = NdpIngress<4>;
/// The ingress for 128 messages (the hashed GetRxMsgInfo: one request per 2 cycles, answer in 2).
pub type NdpIngress128 = NdpIngress<7>;
