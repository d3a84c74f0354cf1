//! Packet generator (thesis §3.2.1): turns `CtrlPktEvent`s from the ingress pipeline into
//! control packets (ACK / NACK / PULL, one dummy payload byte), paces the PULLs with a token
//! bucket, and never stalls its producer.
//!
//! # Events
//! One event per cycle (`ev.valid`; there is no ready: the generator always takes it). An event
//! carries the egress metadata of Listing 3.2 for the reply (`ev.remote_ip`, `ev.remote_port`,
//! `ev.local_port`, `ev.msg_len`, `ev.pkt_offset`, `ev.tx_msg_id`, `ev.rank`, `ev.credit`), the
//! flags of an **immediate** control packet (`ev.ctrl_flags`, e.g. ACK or NACK; 0 for none), and
//! `ev.pull`: a **paced** PULL carrying `ev.credit` is wanted for the message in receive slot
//! `ev.msg_id` whose generation is `ev.msg_gen` (the message's rx_msg_id is
//! `{ev_msg_gen, ev_msg_id}`, see [`crate::nic::get_rx_msg_info`]).
//! - Immediate packets go to a FIFO of `2^QA` entries (straight to the output register when the
//!   FIFO is empty and the output is free). If the FIFO is full the packet is dropped and counted
//!   in `dropped_count`.
//! - A paced PULL is merged into the immediate packet (flags | PULL) when a token is there, no
//!   PULL is pending for the message and the immediate packet has room (`merged_count`).
//!   Otherwise it waits in the pending-PULL table: one entry per receive slot, so the table
//!   cannot overflow. A PULL for a message that already has one pending (same slot, same
//!   generation) **coalesces** into it: the higher credit wins (`pull_coalesced_count`), the
//!   metadata is the latest event's. A PULL whose slot holds a pending PULL of **another**
//!   generation — the slot's previous message, released since, and the slot reused — **replaces**
//!   it: credit and metadata are the new message's (`pull_replaced_count`); the stale PULL is
//!   not sent, so a message never inherits its slot predecessor's credit. (While a stale PULL
//!   is pending, the new message's PULL is not merged into its immediate packet — the merge is
//!   decided in the event's cycle, before the table's generation is read — it goes through the
//!   table instead and replaces the stale one there.)
//! - Pending PULLs are sent round-robin (a scan pointer visits one message per cycle) whenever
//!   a token is there and the output is free; immediate packets go first.
//!
//! # Pacer
//! A token bucket: one token every `cfg_pace_cycles` cycles (default for the NIC: the MTU
//! transmission time, 1088 bytes / 8 bytes per cycle = 136 cycles), at most `cfg_bucket_max`
//! tokens (full after reset). `cfg_pace_cycles` = 0 turns pacing off (every PULL may go at once).
//!
//! # Output
//! A one-beat payload stream (`m_axis.tdata` = 0, `tkeep` = 0x01, `tlast`) with the egress
//! metadata of the control packet beside it (`m_axis.remote_ip` … `m_axis.flags`; `is_new_msg`, `is_rtx` 0), ready to feed the
//! [`crate::pisa::deparser::Deparser`] (which writes a 65-byte frame).
//!
//! # Ports
//! `clock`, `reset` (synchronous: queues and the pending table emptied, counters zeroed, bucket
//! full), `cfg_pace_cycles` 16, `cfg_bucket_max` 8, the `ev` inputs above (`ev.msg_id` IW
//! bits, `ev.msg_gen` 8), `m_axis` (a [`NicPacketSource`]), counters `ctrl_sent_count` (packets out),
//! `pull_sent_count` (paced PULLs sent from the table), `merged_count`, `pull_coalesced_count`,
//! `pull_replaced_count` (stale pending PULLs replaced by their slot's next message's),
//! `dropped_count`. Every PULL event ends merged, coalesced, replaced (its pending PULL dropped
//! for a newer message of its slot) or sent: `merged + coalesced + replaced + sent` = PULL events
//! once the table is empty.
//!
//! # Latency and throughput
//! An immediate packet is on `m_axis` **1 cycle** after its event when the FIFO is empty and the
//! output free; otherwise it waits behind the queued packets (an entry takes at least 3 cycles
//! from event to output through the FIFO). A paced PULL enters
//! the table 2 cycles after its event and leaves when the scan pointer reaches it (at most `N`
//! further cycles) and a token is there. Events: one per cycle; packets out: one per cycle
//! (each is a one-beat payload; the deparser makes 9 beats of it).

use crate::common::bundles::{CtrlPktEventSink, NicPacketSource};
use crate::common::event_counter::WrappingCounter;
use crate::common::one_hot::OneHot;
use crate::common::stream_fifo::StreamFifo;
use crate::{locals, ports, registers, status_counters, Blank};
use rust_hdl::prelude::*;

/// Default pacing interval: one MTU (1088 bytes) at 8 bytes per cycle.
pub const DEFAULT_PACE_CYCLES: u64 = 136;
/// The PULL flag (`crate::pisa::wire::FLAG_PULL`) as the generator writes it.
pub const FLAG_PULL: u64 = 0x08;

#[ports(
    in clock: Clock;
    in reset: Bit;
    in cfg_pace_cycles: Bits<16>;
    in cfg_bucket_max: Bits<8>;
    out ctrl_sent_count, pull_sent_count, merged_count, pull_coalesced_count, pull_replaced_count, dropped_count: Bits<32>;
)]
#[registers(
    pending: Bits<N>;
    // Stage 1 of a PULL insertion (its credit read under way).
    s1_ins_valid: Bit;
    s1_ins_index: Bits<IW>;
    s1_ins_gen: Bits<8>;
    s1_ins_credit: Bits<16>;
    s1_ins_meta: Bits<112>;
    // The table write of the previous cycle (not visible to reads issued then).
    fwd_valid: Bit;
    fwd_index: Bits<IW>;
    fwd_gen: Bits<8>;
    fwd_credit: Bits<16>;
    fwd_meta: Bits<112>;
    // Scan: the index whose read was issued last cycle.
    scan_ptr, s1_scan_index: Bits<IW>;
    // Pacer.
    tokens: Bits<8>;
    pace_count: Bits<16>;
    // Output register.
    out_valid: Bit;
    out_desc: Bits<136>;
)]
#[locals(
    ev_meta, scan_meta: Bits<112>;
    has_ctrl, pull_pending_now, token_ok, slot_free, fifo_empty, fifo_room, merge, bypass, insert, ins_was_pending, ins_same_msg,
    scan_ready, send_pull, take_fifo, refill: Bit;
    ctrl_flags, tokens_after_refill: Bits<8>;
    ctrl_desc: Bits<136>;
    ins_old: Bits<24>;
    ins_credit, scan_credit: Bits<16>;
    issue_index: Bits<IW>;
)]
#[derive(LogicBlock, Blank)]
pub struct PacketGenerator<const N: usize, const IW: usize, const QA: usize> {
    pub ev: CtrlPktEventSink<IW>,
    pub m_axis: NicPacketSource,
    /// Immediate packets: descriptor = meta 112 | credit 16 << 112 | flags 8 << 128.
    immediate: StreamFifo<Bits<136>, QA>,
    /// Pending PULLs: credit (two copies: one read by the event path, beside the message's
    /// generation, `gen 8 << 16 | credit 16`; one read by the scan) and meta.
    gen_credit_event_port: RAM<Bits<24>, IW>,
    credit_scan_port: RAM<Bits<16>, IW>,
    pending_meta: RAM<Bits<112>, IW>,
    fifo_depth: Constant<Bits<16>>,
    pull_flag: Constant<Bits<8>>,
    // Counters.
    sent: WrappingCounter<32>,
    pulls_sent: WrappingCounter<32>,
    merges: WrappingCounter<32>,
    coalesced: WrappingCounter<32>,
    replaced: WrappingCounter<32>,
    drops: WrappingCounter<32>,
    /// One-hot masks of the PULL sent (its pending bit clears) and the PULL inserted (sets).
    sent_mask: OneHot<N, IW>,
    inserted_mask: OneHot<N, IW>,
}

impl<const N: usize, const IW: usize, const QA: usize> Default for PacketGenerator<N, IW, QA> {
    fn default() -> Self {
        assert_eq!(1 << IW, N, "N = 2^IW");
        Self { fifo_depth: Constant::new(((1u64 << QA) as u64).into()), pull_flag: Constant::new(FLAG_PULL.into()), ..Self::blank() }
    }
}

impl<const N: usize, const IW: usize, const QA: usize> Logic for PacketGenerator<N, IW, QA> {
    #[status_counters]
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            pending,
            s1_ins_valid,
            s1_ins_index,
            s1_ins_gen,
            s1_ins_credit,
            s1_ins_meta,
            fwd_valid,
            fwd_index,
            fwd_gen,
            fwd_credit,
            fwd_meta,
            scan_ptr,
            s1_scan_index,
            tokens,
            pace_count,
            out_valid,
            out_desc
        );
        status_counters!(
            self,
            clock,
            reset,
            coalesced => pull_coalesced_count,
            drops => dropped_count,
            merges => merged_count,
            pulls_sent => pull_sent_count,
            replaced => pull_replaced_count,
            sent => ctrl_sent_count,
        );
        clock!(self, clock, immediate);
        self.immediate.reset.next = self.reset.val();
        self.gen_credit_event_port.read_clock.next = self.clock.val();
        self.gen_credit_event_port.write_clock.next = self.clock.val();
        self.credit_scan_port.read_clock.next = self.clock.val();
        self.credit_scan_port.write_clock.next = self.clock.val();
        self.pending_meta.read_clock.next = self.clock.val();
        self.pending_meta.write_clock.next = self.clock.val();

        // ---- Shared state of this cycle.
        self.slot_free.next = (!self.out_valid.q.val()) | self.m_axis.tready.val();
        self.fifo_empty.next = !self.immediate.level.val().any();
        self.fifo_room.next = self.immediate.level.val() < self.fifo_depth.val();
        self.token_ok.next = self.tokens.q.val().any() | (!self.cfg_pace_cycles.val().any());

        // ---- Event (stage 0).
        self.ev_meta.next = ((bit_cast::<112, 32>(self.ev.remote_ip.val()) | (bit_cast::<112, 16>(self.ev.remote_port.val()) << 32))
            | ((bit_cast::<112, 16>(self.ev.local_port.val()) << 48) | (bit_cast::<112, 16>(self.ev.msg_len.val()) << 64)))
            | (((bit_cast::<112, 8>(self.ev.pkt_offset.val()) << 80) | (bit_cast::<112, 16>(self.ev.tx_msg_id.val()) << 88))
                | (bit_cast::<112, 8>(self.ev.rank.val()) << 104));
        self.has_ctrl.next = self.ev.valid.val() & self.ev.ctrl_flags.val().any();
        // A PULL is pending for the message, or is being inserted right now.
        self.pull_pending_now.next = self.pending.q.val().get_bit(self.ev.msg_id.val().index())
            | (self.s1_ins_valid.q.val() & (self.s1_ins_index.q.val() == self.ev.msg_id.val()));
        self.merge.next = ((self.has_ctrl.val() & self.ev.pull.val()) & (self.token_ok.val() & (!self.pull_pending_now.val())))
            & ((self.fifo_empty.val() & self.slot_free.val()) | self.fifo_room.val());
        self.ctrl_flags.next = self.ev.ctrl_flags.val();
        if self.merge.val() {
            self.ctrl_flags.next = self.ev.ctrl_flags.val() | self.pull_flag.val();
        }
        self.ctrl_desc.next = (bit_cast::<136, 112>(self.ev_meta.val()) | (bit_cast::<136, 16>(self.ev.credit.val()) << 112))
            | (bit_cast::<136, 8>(self.ctrl_flags.val()) << 128);
        self.insert.next = (self.ev.valid.val() & self.ev.pull.val()) & (!self.merge.val());

        // ---- Pending-PULL insertion (stage 1): credit = max(pending credit, new) if a PULL of
        // the same message (same generation) is pending; a pending PULL of the slot's previous
        // message is replaced.
        self.ins_old.next = self.gen_credit_event_port.read_data.val();
        if self.fwd_valid.q.val() & (self.fwd_index.q.val() == self.s1_ins_index.q.val()) {
            self.ins_old.next = (bit_cast::<24, 8>(self.fwd_gen.q.val()) << 16) | bit_cast::<24, 16>(self.fwd_credit.q.val());
        }
        self.ins_was_pending.next = self.pending.q.val().get_bit(self.s1_ins_index.q.val().index());
        self.ins_same_msg.next = self.ins_was_pending.val() & (self.ins_old.val().get_bits::<8>(16) == self.s1_ins_gen.q.val());
        self.ins_credit.next = self.s1_ins_credit.q.val();
        if self.ins_same_msg.val() & (self.ins_old.val().get_bits::<16>(0) > self.s1_ins_credit.q.val()) {
            self.ins_credit.next = self.ins_old.val().get_bits::<16>(0);
        }

        // ---- Scan (stage 1 of the index read last cycle).
        self.scan_credit.next = self.credit_scan_port.read_data.val();
        self.scan_meta.next = self.pending_meta.read_data.val();
        if self.fwd_valid.q.val() & (self.fwd_index.q.val() == self.s1_scan_index.q.val()) {
            self.scan_credit.next = self.fwd_credit.q.val();
            self.scan_meta.next = self.fwd_meta.q.val();
        }
        self.scan_ready.next = self.pending.q.val().get_bit(self.s1_scan_index.q.val().index())
            & (!(self.s1_ins_valid.q.val() & (self.s1_ins_index.q.val() == self.s1_scan_index.q.val())));

        // ---- Output register: bypass, else the FIFO head, else a pending PULL.
        self.bypass.next = (self.has_ctrl.val() & self.fifo_empty.val()) & self.slot_free.val();
        // A readable head means a stored entry, so the FIFO is not empty and no bypass happens:
        // taking the head does not wait for this cycle's event.
        self.take_fifo.next = self.immediate.head_valid.val() & self.slot_free.val();
        self.send_pull.next = ((self.scan_ready.val() & self.token_ok.val()) & (!self.merge.val()))
            & ((self.slot_free.val() & (!self.bypass.val())) & self.fifo_empty.val());
        self.immediate.push.next = self.has_ctrl.val() & (!self.bypass.val());
        self.immediate.push_data.next = self.ctrl_desc.val();
        self.immediate.pop.next = self.take_fifo.val();
        if self.slot_free.val() {
            self.out_valid.d.next = false;
        }
        if self.bypass.val() {
            self.out_valid.d.next = true;
            self.out_desc.d.next = self.ctrl_desc.val();
        } else if self.take_fifo.val() {
            self.out_valid.d.next = true;
            self.out_desc.d.next = self.immediate.head_data.val();
        } else if self.send_pull.val() {
            self.out_valid.d.next = true;
            self.out_desc.d.next = (bit_cast::<136, 112>(self.scan_meta.val()) | (bit_cast::<136, 16>(self.scan_credit.val()) << 112))
                | (bit_cast::<136, 8>(self.pull_flag.val()) << 128);
        }
        if (self.has_ctrl.val() & (!self.bypass.val())) & (!self.fifo_room.val()) {
            self.drops.increment.next = true;
        }
        if self.out_valid.q.val() & self.m_axis.tready.val() {
            self.sent.increment.next = true;
        }
        if self.merge.val() {
            self.merges.increment.next = true;
        }
        if self.send_pull.val() {
            self.pulls_sent.increment.next = true;
        }
        if self.s1_ins_valid.q.val() & self.ins_same_msg.val() {
            self.coalesced.increment.next = true;
        }
        if (self.s1_ins_valid.q.val() & self.ins_was_pending.val()) & (!self.ins_same_msg.val()) {
            self.replaced.increment.next = true;
        }

        // ---- Table writes and the pending bitmap (an insertion wins over a send).
        self.gen_credit_event_port.read_address.next = self.ev.msg_id.val();
        self.s1_ins_valid.d.next = self.insert.val();
        self.s1_ins_index.d.next = self.ev.msg_id.val();
        self.s1_ins_gen.d.next = self.ev.msg_gen.val();
        self.s1_ins_credit.d.next = self.ev.credit.val();
        self.s1_ins_meta.d.next = self.ev_meta.val();
        self.gen_credit_event_port.write_address.next = self.s1_ins_index.q.val();
        self.gen_credit_event_port.write_data.next =
            (bit_cast::<24, 8>(self.s1_ins_gen.q.val()) << 16) | bit_cast::<24, 16>(self.ins_credit.val());
        self.gen_credit_event_port.write_enable.next = self.s1_ins_valid.q.val();
        self.credit_scan_port.write_address.next = self.s1_ins_index.q.val();
        self.credit_scan_port.write_data.next = self.ins_credit.val();
        self.credit_scan_port.write_enable.next = self.s1_ins_valid.q.val();
        self.pending_meta.write_address.next = self.s1_ins_index.q.val();
        self.pending_meta.write_data.next = self.s1_ins_meta.q.val();
        self.pending_meta.write_enable.next = self.s1_ins_valid.q.val();
        self.fwd_valid.d.next = self.s1_ins_valid.q.val();
        self.fwd_index.d.next = self.s1_ins_index.q.val();
        self.fwd_gen.d.next = self.s1_ins_gen.q.val();
        self.fwd_credit.d.next = self.ins_credit.val();
        self.fwd_meta.d.next = self.s1_ins_meta.q.val();
        self.sent_mask.index.next = self.s1_scan_index.q.val();
        self.sent_mask.enable.next = self.send_pull.val();
        self.inserted_mask.index.next = self.s1_ins_index.q.val();
        self.inserted_mask.enable.next = self.s1_ins_valid.q.val();
        self.pending.d.next = (self.pending.q.val() & (!self.sent_mask.onehot.val())) | self.inserted_mask.onehot.val();

        // ---- Scan pointer: re-read an index that is waiting for a token or the output.
        self.issue_index.next = self.scan_ptr.q.val();
        if self.scan_ready.val() & (!self.send_pull.val()) {
            self.issue_index.next = self.s1_scan_index.q.val();
        }
        self.credit_scan_port.read_address.next = self.issue_index.val();
        self.pending_meta.read_address.next = self.issue_index.val();
        self.s1_scan_index.d.next = self.issue_index.val();
        self.scan_ptr.d.next = self.issue_index.val() + 1;

        // ---- Pacer.
        self.refill.next = false;
        self.pace_count.d.next = self.pace_count.q.val() + 1;
        if (self.pace_count.q.val() + 1) >= self.cfg_pace_cycles.val() {
            self.pace_count.d.next = 0.into();
            self.refill.next = true;
        }
        self.tokens_after_refill.next = self.tokens.q.val();
        if self.refill.val() & (self.tokens.q.val() < self.cfg_bucket_max.val()) {
            self.tokens_after_refill.next = self.tokens.q.val() + 1;
        }
        self.tokens.d.next = self.tokens_after_refill.val();
        if (self.merge.val() | self.send_pull.val()) & self.cfg_pace_cycles.val().any() {
            self.tokens.d.next = self.tokens_after_refill.val() - 1;
        }

        // ---- Outputs.
        self.m_axis.tdata.next = 0.into();
        self.m_axis.tkeep.next = 1.into();
        self.m_axis.tlast.next = true;
        self.m_axis.tvalid.next = self.out_valid.q.val();
        self.m_axis.remote_ip.next = self.out_desc.q.val().get_bits::<32>(0);
        self.m_axis.remote_port.next = self.out_desc.q.val().get_bits::<16>(32);
        self.m_axis.local_port.next = self.out_desc.q.val().get_bits::<16>(48);
        self.m_axis.msg_len.next = self.out_desc.q.val().get_bits::<16>(64);
        self.m_axis.pkt_offset.next = self.out_desc.q.val().get_bits::<8>(80);
        self.m_axis.tx_msg_id.next = self.out_desc.q.val().get_bits::<16>(88);
        self.m_axis.rank.next = self.out_desc.q.val().get_bits::<8>(104);
        self.m_axis.credit.next = self.out_desc.q.val().get_bits::<16>(112);
        self.m_axis.flags.next = self.out_desc.q.val().get_bits::<8>(128);
        self.m_axis.is_new_msg.next = false;
        self.m_axis.is_rtx.next = false;

        if self.reset.val() {
            self.pending.d.next = 0.into();
            self.s1_ins_valid.d.next = false;
            self.fwd_valid.d.next = false;
            self.out_valid.d.next = false;
            self.tokens.d.next = self.cfg_bucket_max.val();
            self.pace_count.d.next = 0.into();
        }
    }
}
