//! The protocol-independent front of an ingress pipeline (thesis §3.2.1, §3.2.3): the
//! [`Parser`], a match-action stage on the transport flags loaded with the protocol's program,
//! the GetRxMsgInfo call, and the payload path to the reassembly with its per-packet decision.
//! The NIC shell owns one front, loaded with its protocol's match table; the protocol's ingress
//! program (e.g. [`crate::protocols::ndp::ingress`]) sees only the two result ports `act` and
//! `done` and drives its own externs and events from them.
//!
//! # Actions (4-bit selectors chosen by the protocol's match program)
//! * 0 (the default): drop (`no_action_count`).
//! * 1, **DATA**: the IPv4 length must equal what the packet should carry,
//!   `min(1024, msg_len − 1024 · pkt_offset)` (else dropped, `bad_length_count`, no GetRxMsgInfo;
//!   an offset beyond the message is left to GetRxMsgInfo, fail reason 3). GetRxMsgInfo marks
//!   the packet received once the frame is validated (below). A new packet of a live message
//!   (`done.forward`) goes to the reassembly; a duplicate or a late copy of a delivered message
//!   (no live entry) is dropped (`duplicate_data_count`); a failure is dropped (`rx_fail_count`,
//!   the table counts why).
//! * 2, **trimmed DATA** (CHOP): GetRxMsgInfo without marking received; the payload is dropped.
//! * 3–15: the protocol's own (control packets); no GetRxMsgInfo call; the payload is dropped.
//!
//! # Nothing takes effect before the last beat (frame validation)
//! The front counts the bytes of each frame as they leave the parser (the sub-block
//! [`FrameLengthCheck`], which also makes the DATA length check above): every beat but the last
//! must be full, the last one's `tkeep` contiguous from byte 0, and the frame must carry exactly
//! `IPv4 total length − 50` bytes after its 64-byte header (an FCS or other trailer left on,
//! or a frame cut short, fails). A frame that fails is dropped and counted
//! (`bad_frame_length_count`): no action, no GetRxMsgInfo mark, no `done`, so no ACK, PULL,
//! GRANT, credit or protocol state change. The payload is not stored and forwarded:
//! * a frame with at most 8 payload bytes (every control packet, a trimmed packet, the smallest
//!   DATA) has ended by the match stage, so it is validated there and handled exactly as
//!   before: one GetRxMsgInfo call, marking a DATA packet received;
//! * a longer DATA frame calls GetRxMsgInfo at once **without marking** (it looks the message up
//!   or allocates it, and says whether the packet is new), so its payload streams to the
//!   reassembly; when its last beat has validated it, a second call marks a new packet received
//!   and its answer is the frame's `done`; a bad frame gets no second call and no `done`
//!   (the reassembly drops its payload by the same rule, so it is not committed either);
//! * a longer control frame acts (`act`) in the cycle after its last beat, if it is good.
//! The one state change a bad frame can make is the allocation of a receive slot by its first
//! call when it is the first packet seen of a message; a slot that receives nothing good is
//! freed by its ingress timer (garbage collection), as for any message that never completes.
//!
//! # Result ports
//! * `act.valid` / `act.action` / `act.meta`: a validated control frame (actions 3–15), in the
//!   cycle after its first payload beat (the match stage's output) or, with more than 8 payload
//!   bytes, in the cycle after its last beat. `act.meta` holds the header fields: src_ip `[31:0]`,
//!   src_context `[47:32]`, dst_context `[63:48]`, msg_len `[79:64]`, pkt_offset `[87:80]`, pull_offset
//!   / grant_offset `[103:88]`, tx_msg_id `[119:104]`, IPv4 total length `[135:120]`, flags `[143:136]`,
//!   grant_prio `[151:144]`. Control actions act on this directly.
//! * `done.valid`: the GetRxMsgInfo answer of a validated DATA (1) or CHOP (2) frame, with its
//!   action and header fields (`done.action`, `done.meta`) and the answer: `done.ok` (no
//!   failure), `done.live` (ok and a live entry: not a late copy of a delivered message),
//!   `done.forward` (DATA, live, new packet: the payload went to the reassembly), `done.slot` (the
//!   receive slot, the low IW bits of rx_msg_id), `done.gen` (its generation, rx_msg_id bits
//!   IW+7…IW: slot and generation name one message), `done.is_new_msg`, `done.is_new_pkt`,
//!   `done.is_last_pkt`, `done.ack_no` (smallest offset not yet received).
//!
//! # Latency (P = cycle of the first payload beat out of the parser = first frame beat + 8)
//! ```text
//!  P    match stage; the beat enters the payload FIFO; L = cycle of the frame's last beat
//!  P+1  act (≤ 8 payload bytes); GetRxMsgInfo request (held while `req.ready` is low)
//!  P+4  answer: decision pushed into the decision FIFO; done if the frame has ≤ 8 payload bytes
//!  P+6  the decision at the FIFO's head (2 cycles): the first beat leaves on m_axis with its metadata
//!  L+1  frame validated; act of a longer control frame; marking call of a longer DATA frame
//!       (the table takes it from P+4, 3 cycles after the first call)
//!  L+4  done of a longer DATA frame (its first answer, at P+4, came before: max(P+4, L+1) + 3)
//! ```
//! **Latency: first frame beat in → first beat out to the reassembly = 14 cycles** at every size,
//! whatever the frame's length: 8 for the parser (the physical floor of a 64-byte header at 64
//! bits), 1 match stage, 3 GetRxMsgInfo, 2 decision FIFO.
//! One frame is handled at a time: a frame's first beat waits while the previous frame's calls
//! are outstanding (frames are ≥ 8 cycles apart and a frame's last call ends 3 cycles after its
//! last beat, so this only bites right after reset, while GetRxMsgInfo's `req.ready` is low for
//! the 4 096 cycles in which the table and its delivered set clear their buckets; frames wait
//! meanwhile, held back through `s_axis.tready`).
//!
//! # Throughput and backpressure
//! One beat per cycle. The payload (32 beats) and decision (8 entries) FIFOs absorb a stalled
//! `m_axis.tready`; when nearly full, `s_axis.tready` goes low, so backpressure reaches the MAC
//! and nothing is lost. Dropped packets are consumed at one beat per cycle. A longer DATA frame
//! costs the table two operations, one every 3 cycles: well within a 1 KB frame's 136 cycles.
//!
//! # Ports
//! | group | ports |
//! |---|---|
//! | control | `clock`, `reset` (synchronous: FIFOs emptied, counters zero) |
//! | MAC RX | `s_axis.tdata` 64, `s_axis.tkeep` 8, `s_axis.tlast`, `s_axis.tvalid`, `s_axis.tready` |
//! | GetRxMsgInfo | `req` out ([`RxMsgInfoRequestSource`]; `req.ready` in: the table takes one operation every 3 cycles), `resp` in ([`RxMsgInfoAnswerSink`]) |
//! | to the reassembly | `m_axis` ([`NicRxPacketSource`]: the payload, and Listing 3.1's metadata valid with the first beat; `m_axis$tdata`, `m_axis$remote_ip`, … in the Verilog) |
//! | results | `act`, `done` above |
//! | counters (32, wrapping) | the parser's six; `data_count`, `chop_count`, `control_count` (actions 3–15), `no_action_count`, `bad_length_count`, `rx_fail_count`, `duplicate_data_count`, `forwarded_count`, `bad_frame_length_count` |

use crate::common::bundles::{
    ControlActionSource, DataAnswerSource, NicRxPacketSource, NicStreamSink, RxMsgInfoAnswerSink, RxMsgInfoRequestSource,
};
use crate::common::event_counter::WrappingCounter;
use crate::common::stream_fifo::StreamFifo;
use crate::pisa::frame_length_check::FrameLengthCheck;
use crate::pisa::match_action::{MatchEntry, MatchTable, ACTION_DROP};
use crate::pisa::parser::Parser;
use crate::{locals, ports, registers, status_counters, Blank};
use rust_hdl::prelude::*;

#[ports(
    in clock: Clock;
    in reset: Bit;
    out frame_count, not_ipv4_count, wrong_protocol_count, too_short_count, bad_checksum_count, bad_flags_count, data_count,
    chop_count, control_count, no_action_count, bad_length_count, rx_fail_count, duplicate_data_count, forwarded_count,
    bad_frame_length_count: Bits<32>;
)]
#[registers(
    hold_valid, hold_issued, hold_table, hold_final, hold_mark, hold_mark_op, hold_answered, vd_seen, vd_good, ans_fail, ans_new_pkt,
    ans_last: Bit;
    hold_action: Bits<4>;
    hold_meta: Bits<152>;
    ans_rx_msg_id: Bits<16>;
    ans_ack_no: Bits<9>;
    out_forward: Bit;
)]
#[locals(
    m1_is_ctrl, m1_wants_table, m1_known, m1_bad_now, m1_enter, m1_ctrl_now, hold_is_data, vd_arrive, v_known, v_good, resolve_ctrl,
    first_answer, final_answer, store, have_ans, a_fail, a_new_pkt, a_last, a_live, a_fwd, resolve, resolve_mark, from_ans, pending_op,
    rq_mark, m1_is_data, m1_is_chop, m1_request, resp_done, d_is_data, d_ok, d_live, d_forward, at_first, can_go, forward_now, take,
    parser_take: Bit;
    a_id: Bits<16>;
    a_ack: Bits<9>;
    m1, rq_meta: Bits<152>;
    head: Bits<74>;
    dec: Bits<128>;
)]
#[derive(LogicBlock, Blank)]
pub struct IngressFront<const IW: usize> {
    /// Frames from the MAC (`s_axis$tdata`, … in the Verilog).
    pub s_axis: NicStreamSink,
    pub req: RxMsgInfoRequestSource,
    pub resp: RxMsgInfoAnswerSink,
    pub m_axis: NicRxPacketSource,
    pub act: ControlActionSource,
    pub done: DataAnswerSource<IW>,
    parser: Parser,
    dispatch: MatchTable<Bits<152>>,
    payload: StreamFifo<Bits<74>, 5>,
    decisions: StreamFifo<Bits<128>, 3>,
    slot_mask: Constant<Bits<16>>,
    slot_shift: Constant<Bits<4>>,
    /// The frame's and a DATA packet's length checks.
    lengths: FrameLengthCheck,
    n_data: WrappingCounter<32>,
    n_chop: WrappingCounter<32>,
    n_control: WrappingCounter<32>,
    n_no_action: WrappingCounter<32>,
    n_bad_length: WrappingCounter<32>,
    n_rx_fail: WrappingCounter<32>,
    n_duplicate: WrappingCounter<32>,
    n_forwarded: WrappingCounter<32>,
    n_frame_length: WrappingCounter<32>,
}

impl<const IW: usize> Default for IngressFront<IW> {
    /// A front for NDP's IP protocol with an empty match program: every frame that passes the
    /// parser takes the default action (drop). Protocols build theirs with [`IngressFront::new`].
    fn default() -> Self {
        Self::new(crate::pisa::wire::NDP_IP_PROTOCOL, &[])
    }
}

impl<const IW: usize> IngressFront<IW> {
    /// A front end for IP protocol `ip_protocol` whose match stage is loaded with `program`
    /// (action 0, the default, drops; 1 is DATA; 2 is trimmed DATA; 3–15 are the protocol's).
    pub fn new(ip_protocol: u8, program: &[MatchEntry]) -> Self {
        Self {
            parser: Parser::new(ip_protocol),
            dispatch: MatchTable::new(program, ACTION_DROP),
            slot_mask: Constant::new(((1u64 << IW) - 1).into()),
            slot_shift: Constant::new((IW as u64).to_bits()),
            ..Self::blank()
        }
    }
}

impl<const IW: usize> Logic for IngressFront<IW> {
    #[status_counters]
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            hold_valid,
            hold_action,
            hold_issued,
            hold_meta,
            out_forward,
            hold_table,
            hold_final,
            hold_mark,
            hold_mark_op,
            hold_answered,
            vd_seen,
            vd_good,
            ans_fail,
            ans_rx_msg_id,
            ans_new_pkt,
            ans_last,
            ans_ack_no
        );
        status_counters!(
            self,
            clock,
            reset,
            n_bad_length => bad_length_count,
            n_chop => chop_count,
            n_control => control_count,
            n_data => data_count,
            n_duplicate => duplicate_data_count,
            n_forwarded => forwarded_count,
            n_frame_length => bad_frame_length_count,
            n_no_action => no_action_count,
            n_rx_fail => rx_fail_count,
        );
        clock!(self, clock, parser, dispatch, payload, decisions, lengths);
        self.parser.reset.next = self.reset.val();
        self.lengths.reset.next = self.reset.val();
        self.dispatch.reset.next = self.reset.val();
        self.payload.reset.next = self.reset.val();
        self.decisions.reset.next = self.reset.val();

        // ---------------- parser; payload beats into the payload FIFO ----------------
        NicStreamSink::link(&mut self.s_axis, &mut self.parser.s_axis);
        // Room for one more beat and for the decision of a frame already in the stages; a
        // frame's first beat also waits while a GetRxMsgInfo call is outstanding.
        self.parser.m_axis.tready.next = ((self.payload.level.val() < 30) & (self.decisions.level.val() < 6))
            & ((!self.parser.m_axis_tfirst.val()) | (!(self.hold_valid.q.val() | self.dispatch.out_valid.val())));
        self.parser_take.next = self.parser.m_axis.tvalid.val() & self.parser.m_axis.tready.val();
        self.payload.push.next = self.parser_take.val();
        self.payload.push_data.next = ((bit_cast::<74, 64>(self.parser.m_axis.tdata.val())
            | (bit_cast::<74, 8>(self.parser.m_axis.tkeep.val()) << 64))
            | (bit_cast::<74, 1>(self.parser.m_axis.tlast.val().into()) << 72))
            | (bit_cast::<74, 1>(self.parser.m_axis_tfirst.val().into()) << 73);
        self.frame_count.next = self.parser.frame_count.val();
        self.not_ipv4_count.next = self.parser.not_ipv4_count.val();
        self.wrong_protocol_count.next = self.parser.wrong_protocol_count.val();
        self.too_short_count.next = self.parser.too_short_count.val();
        self.bad_checksum_count.next = self.parser.bad_checksum_count.val();
        self.bad_flags_count.next = self.parser.bad_flags_count.val();

        // ---------------- P: match on the flags ----------------
        self.dispatch.in_valid.next = self.parser_take.val() & self.parser.m_axis_tfirst.val();
        self.dispatch.in_key.next = bit_cast::<16, 8>(self.parser.hdr_flags.val());
        self.dispatch.in_meta.next = ((((((((bit_cast::<152, 32>(self.parser.hdr_src_ip.val())
            | (bit_cast::<152, 16>(self.parser.hdr_src_context.val()) << 32))
            | (bit_cast::<152, 16>(self.parser.hdr_dst_context.val()) << 48))
            | (bit_cast::<152, 16>(self.parser.hdr_msg_len.val()) << 64))
            | (bit_cast::<152, 8>(self.parser.hdr_pkt_offset.val()) << 80))
            | (bit_cast::<152, 16>(self.parser.hdr_pull_offset.val()) << 88))
            | (bit_cast::<152, 16>(self.parser.hdr_tx_msg_id.val()) << 104))
            | (bit_cast::<152, 16>(self.parser.hdr_ip_total_len.val()) << 120))
            | (bit_cast::<152, 8>(self.parser.hdr_flags.val()) << 136))
            | (bit_cast::<152, 8>(self.parser.hdr_grant_prio.val()) << 144);
        self.dispatch.cfg_write_valid.next = false;
        self.dispatch.cfg_write_index.next = 0.into();
        self.dispatch.cfg_write_enable.next = false;
        self.dispatch.cfg_write_key.next = 0.into();
        self.dispatch.cfg_write_mask.next = 0.into();
        self.dispatch.cfg_write_action.next = 0.into();

        // ---------------- lengths: the frame's on its payload beats, a DATA packet's at P ----------------
        // The DATA check is registered beside the match (whose latency is one cycle), so the
        // request at P+1 does not wait for it.
        self.lengths.beat.next = self.parser_take.val();
        self.lengths.first.next = self.parser.m_axis_tfirst.val();
        self.lengths.last.next = self.parser.m_axis.tlast.val();
        self.lengths.tkeep.next = self.parser.m_axis.tkeep.val();
        self.lengths.ip_total_len.next = self.parser.hdr_ip_total_len.val();
        self.lengths.msg_len.next = self.parser.hdr_msg_len.val();
        self.lengths.pkt_offset.next = self.parser.hdr_pkt_offset.val();

        // ---------------- P+1: action, GetRxMsgInfo request ----------------
        self.m1.next = self.dispatch.out_meta.val();
        self.m1_is_data.next = self.dispatch.out_valid.val() & (self.dispatch.out_action.val() == 1);
        self.m1_is_chop.next = self.dispatch.out_valid.val() & (self.dispatch.out_action.val() == 2);
        self.m1_is_ctrl.next = self.dispatch.out_valid.val() & (self.dispatch.out_action.val() >= 3);

        self.m1_wants_table.next = (self.m1_is_data.val() & self.lengths.data_length_ok.val()) | self.m1_is_chop.val();
        // A frame with at most one payload beat ended at P: its length verdict is here already.
        self.m1_known.next = self.lengths.verdict.val();
        self.m1_bad_now.next = ((self.m1_wants_table.val() | self.m1_is_ctrl.val()) & self.m1_known.val()) & (!self.lengths.frame_ok.val());
        // Held: a frame that calls GetRxMsgInfo, or a control frame whose last beat is still to come.
        self.m1_enter.next = (self.m1_wants_table.val() | (self.m1_is_ctrl.val() & (!self.m1_known.val()))) & (!self.m1_bad_now.val());
        self.m1_request.next = self.m1_enter.val() & self.m1_wants_table.val();
        self.m1_ctrl_now.next = (self.m1_is_ctrl.val() & self.m1_known.val()) & self.lengths.frame_ok.val();

        // ---------------- the held frame: its verdict and its GetRxMsgInfo answers ----------------
        self.hold_is_data.next = self.hold_action.q.val() == 1;
        self.vd_arrive.next = (self.hold_valid.q.val() & (!self.vd_seen.q.val())) & self.lengths.verdict.val();
        self.v_known.next = self.vd_seen.q.val() | self.vd_arrive.val();
        self.v_good.next = self.vd_good.q.val();
        if !self.vd_seen.q.val() {
            self.v_good.next = self.lengths.frame_ok.val();
        }
        self.resolve_ctrl.next = (self.hold_valid.q.val() & (!self.hold_table.q.val())) & self.vd_arrive.val();
        self.resp_done.next =
            ((self.hold_valid.q.val() & self.hold_issued.q.val()) & (!self.hold_answered.q.val())) & self.resp.valid.val();
        self.first_answer.next = self.resp_done.val() & (!self.hold_mark_op.q.val());
        self.final_answer.next = self.resp_done.val() & self.hold_final.q.val();
        self.store.next = self.resp_done.val() & (!self.hold_final.q.val());
        self.have_ans.next = self.store.val() | self.hold_answered.q.val();
        self.a_fail.next = self.ans_fail.q.val();
        self.a_id.next = self.ans_rx_msg_id.q.val();
        self.a_new_pkt.next = self.ans_new_pkt.q.val();
        self.a_last.next = self.ans_last.q.val();
        self.a_ack.next = self.ans_ack_no.q.val();
        if self.store.val() {
            self.a_fail.next = self.resp.fail.val();
            self.a_id.next = self.resp.rx_msg_id.val();
            self.a_new_pkt.next = self.resp.is_new_pkt.val();
            self.a_last.next = self.resp.is_last_pkt.val();
            self.a_ack.next = self.resp.ack_no.val();
        }
        self.a_live.next = (!self.a_fail.val()) & (!self.a_id.val().get_bit(15));
        self.a_fwd.next = (self.hold_is_data.val() & self.a_live.val()) & self.a_new_pkt.val();
        // Once both the first answer and the verdict are in: a bad frame is dropped; a new packet
        // of a good frame is marked received by a second call; anything else is answered as is.
        self.resolve.next =
            ((self.hold_valid.q.val() & self.hold_table.q.val()) & (!self.hold_final.q.val())) & (self.have_ans.val() & self.v_known.val());
        self.resolve_mark.next = (self.resolve.val() & self.v_good.val()) & self.a_fwd.val();
        self.from_ans.next = (self.resolve.val() & self.v_good.val()) & (!self.a_fwd.val());

        // The request goes out in this cycle if the table is ready, else it is held.
        self.pending_op.next =
            (self.hold_valid.q.val() & self.hold_table.q.val()) & ((!self.hold_issued.q.val()) & (!self.hold_answered.q.val()));
        self.rq_meta.next = self.m1.val();
        self.rq_mark.next = self.m1_is_data.val() & self.m1_known.val();
        if self.hold_valid.q.val() {
            self.rq_meta.next = self.hold_meta.q.val();
            self.rq_mark.next = self.hold_mark.q.val() | self.resolve_mark.val();
        }
        self.req.valid.next = ((self.m1_request.val() & (!self.hold_valid.q.val())) | self.pending_op.val()) | self.resolve_mark.val();
        self.req.mark_received.next = self.rq_mark.val();
        self.req.peek.next = !self.m1_known.val();
        if self.hold_valid.q.val() {
            self.req.peek.next = !(self.hold_final.q.val() | self.resolve_mark.val());
        }
        self.req.src_ip.next = self.rq_meta.val().get_bits::<32>(0);
        self.req.src_port.next = self.rq_meta.val().get_bits::<16>(32);
        self.req.tx_msg_id.next = self.rq_meta.val().get_bits::<16>(104);
        self.req.msg_len.next = self.rq_meta.val().get_bits::<16>(64);
        self.req.pkt_offset.next = self.rq_meta.val().get_bits::<8>(80);

        // Hold registers (later assignments win).
        if self.vd_arrive.val() {
            self.vd_seen.d.next = true;
            self.vd_good.d.next = self.lengths.frame_ok.val();
        }
        if self.pending_op.val() & self.req.ready.val() {
            self.hold_issued.d.next = true;
        }
        if self.store.val() {
            self.hold_answered.d.next = true;
            self.ans_fail.d.next = self.resp.fail.val();
            self.ans_rx_msg_id.d.next = self.resp.rx_msg_id.val();
            self.ans_new_pkt.d.next = self.resp.is_new_pkt.val();
            self.ans_last.d.next = self.resp.is_last_pkt.val();
            self.ans_ack_no.d.next = self.resp.ack_no.val();
        }
        if self.resolve_mark.val() {
            self.hold_final.d.next = true;
            self.hold_mark.d.next = true;
            self.hold_mark_op.d.next = true;
            self.hold_answered.d.next = false;
            self.hold_issued.d.next = self.req.ready.val();
        }
        if (self.final_answer.val() | (self.resolve.val() & (!self.resolve_mark.val()))) | self.resolve_ctrl.val() {
            self.hold_valid.d.next = false;
        }
        if self.m1_enter.val() {
            self.hold_valid.d.next = true;
            self.hold_action.d.next = self.dispatch.out_action.val();
            self.hold_meta.d.next = self.m1.val();
            self.hold_table.d.next = self.m1_wants_table.val();
            self.hold_issued.d.next = self.req.ready.val();
            self.hold_final.d.next = self.m1_known.val();
            self.hold_mark.d.next = self.m1_is_data.val() & self.m1_known.val();
            self.hold_mark_op.d.next = false;
            self.hold_answered.d.next = false;
            self.vd_seen.d.next = self.m1_known.val();
            self.vd_good.d.next = self.lengths.frame_ok.val();
        }

        // Control frames act once their length is validated.
        self.act.valid.next = self.m1_ctrl_now.val() | (self.resolve_ctrl.val() & self.lengths.frame_ok.val());
        self.act.action.next = self.dispatch.out_action.val();
        self.act.meta.next = self.m1.val();
        if self.resolve_ctrl.val() {
            self.act.action.next = self.hold_action.q.val();
            self.act.meta.next = self.hold_meta.q.val();
        }
        if self.m1_is_data.val() {
            self.n_data.increment.next = true;
        }
        if self.m1_is_chop.val() {
            self.n_chop.increment.next = true;
        }
        if self.m1_is_ctrl.val() {
            self.n_control.increment.next = true;
        }
        if self.dispatch.out_valid.val() & (self.dispatch.out_action.val() == 0) {
            self.n_no_action.increment.next = true;
        }
        if self.m1_is_data.val() & (!self.lengths.data_length_ok.val()) {
            self.n_bad_length.increment.next = true;
        }
        if (self.m1_bad_now.val() | (self.resolve.val() & (!self.v_good.val())))
            | (self.resolve_ctrl.val() & (!self.lengths.frame_ok.val()))
        {
            self.n_frame_length.increment.next = true;
        }

        // ---------------- the frame's result: from the answer now, or from the stored one ----------------
        self.d_is_data.next = self.resp_done.val() & self.hold_is_data.val();
        self.d_ok.next = self.resp_done.val() & (!self.resp.fail.val());
        // A live entry (not a late copy of a delivered message, which has no rx_msg_id).
        self.d_live.next = self.d_ok.val() & (!self.resp.rx_msg_id.val().get_bit(15));
        self.d_forward.next = (self.d_is_data.val() & self.d_live.val()) & self.resp.is_new_pkt.val();
        self.done.valid.next = self.final_answer.val() | self.from_ans.val();
        self.done.action.next = self.hold_action.q.val();
        self.done.meta.next = self.hold_meta.q.val();
        self.done.ok.next = self.d_ok.val();
        self.done.live.next = self.d_live.val();
        self.done.forward.next = self.d_forward.val();
        self.done.slot.next = bit_cast::<IW, 16>(self.resp.rx_msg_id.val() & self.slot_mask.val());
        self.done.gen.next = bit_cast::<8, 16>(self.resp.rx_msg_id.val() >> self.slot_shift.val());
        self.done.is_new_msg.next = self.resp.is_new_msg.val();
        self.done.is_new_pkt.next = self.resp.is_new_pkt.val();
        self.done.is_last_pkt.next = self.resp.is_last_pkt.val();
        self.done.ack_no.next = self.resp.ack_no.val();
        if self.from_ans.val() {
            self.done.ok.next = !self.a_fail.val();
            self.done.live.next = self.a_live.val();
            self.done.forward.next = false;
            self.done.slot.next = bit_cast::<IW, 16>(self.a_id.val() & self.slot_mask.val());
            self.done.gen.next = bit_cast::<8, 16>(self.a_id.val() >> self.slot_shift.val());
            self.done.is_new_msg.next = false;
            self.done.is_new_pkt.next = self.a_new_pkt.val();
            self.done.is_last_pkt.next = self.a_last.val();
            self.done.ack_no.next = self.a_ack.val();
        }
        if self.done.valid.val() & (!self.done.ok.val()) {
            self.n_rx_fail.increment.next = true;
        }
        if ((self.done.valid.val() & self.hold_is_data.val()) & self.done.ok.val()) & (!self.done.forward.val()) {
            self.n_duplicate.increment.next = true;
        }
        // One decision per frame, in frame order: at once for a frame without a GetRxMsgInfo
        // call, else with its first answer (the payload goes on while the frame is validated).
        self.decisions.push.next = (self.dispatch.out_valid.val() & (!self.m1_request.val())) | self.first_answer.val();
        self.decisions.push_data.next = (((((((bit_cast::<128, 1>(self.d_forward.val().into())
            | (bit_cast::<128, 16>(self.resp.rx_msg_id.val()) << 1))
            | (bit_cast::<128, 1>(self.resp.is_last_pkt.val().into()) << 17))
            | (bit_cast::<128, 32>(self.hold_meta.q.val().get_bits::<32>(0)) << 18))
            | (bit_cast::<128, 16>(self.hold_meta.q.val().get_bits::<16>(32)) << 50))
            | (bit_cast::<128, 16>(self.hold_meta.q.val().get_bits::<16>(48)) << 66))
            | (bit_cast::<128, 16>(self.hold_meta.q.val().get_bits::<16>(64)) << 82))
            | (bit_cast::<128, 8>(self.hold_meta.q.val().get_bits::<8>(80)) << 98))
            | (bit_cast::<128, 16>(self.hold_meta.q.val().get_bits::<16>(104)) << 106);

        // ---------------- output: payload FIFO head, forwarded or consumed per its decision ----------------
        self.head.next = self.payload.head_data.val();
        self.dec.next = self.decisions.head_data.val();
        self.at_first.next = self.payload.head_valid.val() & self.head.val().get_bit(73);
        self.can_go.next = self.payload.head_valid.val() & ((!self.at_first.val()) | self.decisions.head_valid.val());
        self.forward_now.next = self.out_forward.q.val();
        if self.at_first.val() {
            self.forward_now.next = self.dec.val().get_bit(0);
        }
        self.m_axis.tvalid.next = self.can_go.val() & self.forward_now.val();
        self.m_axis.tdata.next = self.head.val().get_bits::<64>(0);
        self.m_axis.tkeep.next = self.head.val().get_bits::<8>(64);
        self.m_axis.tlast.next = self.head.val().get_bit(72);
        self.m_axis.rx_msg_id.next = self.dec.val().get_bits::<16>(1);
        self.m_axis.is_last_pkt.next = self.dec.val().get_bit(17);
        self.m_axis.remote_ip.next = self.dec.val().get_bits::<32>(18);
        self.m_axis.remote_port.next = self.dec.val().get_bits::<16>(50);
        self.m_axis.local_port.next = self.dec.val().get_bits::<16>(66);
        self.m_axis.msg_len.next = self.dec.val().get_bits::<16>(82);
        self.m_axis.pkt_offset.next = self.dec.val().get_bits::<8>(98);
        self.m_axis.tx_msg_id.next = self.dec.val().get_bits::<16>(106);
        self.take.next = self.can_go.val() & ((!self.forward_now.val()) | self.m_axis.tready.val());
        self.payload.pop.next = self.take.val();
        self.decisions.pop.next = self.take.val() & self.at_first.val();
        if self.take.val() & self.at_first.val() {
            self.out_forward.d.next = self.forward_now.val();
            if self.forward_now.val() {
                self.n_forwarded.increment.next = true;
            }
        }

        if self.reset.val() {
            self.hold_valid.d.next = false;
            self.hold_issued.d.next = false;
            self.hold_answered.d.next = false;
            self.out_forward.d.next = false;
        }
    }
}
