//! One operation applied to one message's slot word (thesis §3.2.4: Algorithm 2's
//! DeliveredEvent, Algorithm 3's CreditTxEvent, Algorithm 4's TimeoutEvent, and the message
//! install): stage S1 of [`Packetization`](crate::nic::packetization::Packetization), whose
//! rustdoc states each operation's rules (the exclusive credit bound, raise-only credit, the
//! abandon test, `rtx_first_expiry`, `probe_idle_timeout`). Combinational.
//!
//! The word has the layout of the core's `slot_ram` ([`SLOT_WORD_BITS`] bits): `deliveredBitmap`
//! 64 @0, `txBitmap` 64 @64, `rtxPending` 64 @128, `credit` 16 @192, `allowTx` 1 @208, packet
//! count 8 @209, `maxTxPktOffset + 1` 8 @217, `timeoutCnt` 8 @225, the ID base 16 @233, and the
//! install metadata 88 @249 (`remote_ip` 32, `remote_port` 16, `local_port` 16, `msg_len` 16,
//! `rank` 8, in that order from bit 249).
//!
//! An event (kinds 1–3) applies only when the slot is active and the event's ID is the slot's
//! current one (`{generation, slot}`, generation 0 for a word never written); otherwise it
//! changes nothing and raises its `stale_*` output. An install applies only to an inactive slot
//! (`write_busy` otherwise). A completion or an abandonment frees the slot: inactive, `txBitmap`
//! and `rtxPending` cleared, the ID advanced by 2^IW (the next generation).
//!
//! # Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `word` | in | 337 | the slot's word as read |
//! | `slot`, `id_known`, `active` | in | IW, 1, 1 | the slot's index, whether its word was ever written, whether it holds a message |
//! | `kind` | in | 3 | 0 no operation (the stage is empty, or holds a packet choice only), 1 DeliveredEvent, 2 CreditTxEvent, 3 TimeoutEvent, 4 install; the core's S1 kind is 0 whenever S1 is empty, so the block needs no separate valid |
//! | `event_id`, `bitmap` | in | 16, 64 | an event's tx_msg_id; `ackBitmap` (1) or `rtxBitmap` (2) |
//! | `rtx_flag`, `credit_flag`, `credit`, `allow`, `raise_only` | in | 1, 1, 16, 1, 1 | a CreditTxEvent's fields; `credit_flag`/`credit` are also an install's optional credit |
//! | `rtx_p1` | in | 8 | a timeout's `maxTxPktOffset + 1` as of scheduling |
//! | `install_meta` | in | 88 | an install's `remote_ip`, `remote_port`, `local_port`, `msg_len`, `rank` (the word's layout from bit 249) |
//! | `default_credit`, `timeout_threshold`, `rtx_first_expiry`, `probe_idle_timeout` | in | 16, 8, 1, 1 | configuration |
//! | `updated`, `updated_active` | out | 337, 1 | the word and the active flag after the operation |
//! | `id` | out | 16 | the slot's current tx_msg_id (before a free advances it) |
//! | `schedule`, `schedule_meta`, `installed` | out | 1, 24, 1 | schedule the timer with `{tx_msg_id, maxTxPktOffset + 1}`; an install succeeded |
//! | `completed`, `abandoned` | out | 1 each | every packet delivered (the timer is cancelled), or the timeout threshold passed: the slot is freed |
//! | `stale_delivered`, `stale_credit`, `stale_timeout`, `write_busy`, `ack_beyond`, `rtx_beyond`, `credit_beyond` | out | 1 each | the core's counter events |
//!
//! # Latency and depth
//! Combinational. In the core its longest path runs from the per-slot `id_known` flag through
//! the slot's ID and an event's ID compare to a counter event (the core's rustdoc gives the
//! depth).

use crate::common::ones_until::OnesUntil;
use crate::{locals, ports, Blank};
use rust_hdl::prelude::*;

/// Width of a slot word (the packetization core's `slot_ram` word).
pub const SLOT_WORD_BITS: usize = 337;

/// One operation on the word of a slot of `IW` bits.
#[ports(
    in word: Bits<SLOT_WORD_BITS>;
    in slot: Bits<IW>;
    in id_known, active, rtx_flag, credit_flag, allow, raise_only, rtx_first_expiry, probe_idle_timeout: Bit;
    in kind: Bits<3>;
    in event_id, credit, default_credit: Bits<16>;
    in bitmap: Bits<64>;
    in rtx_p1, timeout_threshold: Bits<8>;
    in install_meta: Bits<88>;
    out updated: Bits<SLOT_WORD_BITS>;
    out updated_active, schedule, installed, completed, abandoned, stale_delivered, stale_credit, stale_timeout, write_busy,
    ack_beyond, rtx_beyond, credit_beyond: Bit;
    out id: Bits<16>;
    out schedule_meta: Bits<24>;
)]
#[locals(
    c_del, c_tx, c_rtx, c_pk, d_ack, d_del, x_rtx, t_rtx, t_probe, t_unacked, u_del, u_tx, u_rtx: Bits<64>;
    c_credit, c_id_base, x_credit, i_credit_req, i_credit, u_credit, u_id_base: Bits<16>;
    c_npkts, c_max, c_tcnt, t_cnt_inc, u_npkts, u_max, u_tcnt: Bits<8>;
    hit, k_dlv, k_ctx, k_to, k_new, d_complete, x_beyond, t_progress, t_abandon, u_allow: Bit;
    t_bound: Bits<7>;
    t_probe_off: Bits<6>;
    i_npkts: Bits<17>;
    u_meta: Bits<88>;
)]
#[derive(LogicBlock, Blank)]
pub struct SlotUpdate<const IW: usize> {
    pk_mask: OnesUntil<64, 7>,
    rtx_mask: OnesUntil<64, 7>,
    sent_mask: OnesUntil<64, 7>,
    install_mask: OnesUntil<64, 7>,
    id_high_mask: Constant<Bits<16>>,
    slot_count: Constant<Bits<16>>,
}

impl<const IW: usize> SlotUpdate<IW> {
    /// The update of a core of `2^IW` slots.
    pub fn new() -> Self {
        assert!((2..=16).contains(&IW), "tx_msg_id is 16 bits: the slot index needs 2..=16 of them");
        Self {
            id_high_mask: Constant::new((0xFFFFu64 & !((1u64 << IW) - 1)).into()),
            slot_count: Constant::new((1u64 << IW).into()),
            ..Self::blank()
        }
    }
}

impl<const IW: usize> Default for SlotUpdate<IW> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const IW: usize> Logic for SlotUpdate<IW> {
    #[hdl_gen]
    fn update(&mut self) {
        self.c_del.next = self.word.val().get_bits::<64>(0);
        self.c_tx.next = self.word.val().get_bits::<64>(64);
        self.c_rtx.next = self.word.val().get_bits::<64>(128);
        self.c_credit.next = self.word.val().get_bits::<16>(192);
        self.c_npkts.next = self.word.val().get_bits::<8>(209);
        self.c_max.next = self.word.val().get_bits::<8>(217);
        self.c_tcnt.next = self.word.val().get_bits::<8>(225);
        // A slot whose word was never written has generation 0 (its RAM word is not relied on).
        self.c_id_base.next = 0.into();
        if self.id_known.val() {
            self.c_id_base.next = self.word.val().get_bits::<16>(233);
        }
        self.id.next = (self.c_id_base.val() & self.id_high_mask.val()) | bit_cast::<16, IW>(self.slot.val());
        self.pk_mask.k.next = self.c_npkts.val().get_bits::<7>(0);
        self.c_pk.next = self.pk_mask.mask.val();
        self.hit.next = self.active.val() & (self.id.val() == self.event_id.val());
        self.k_dlv.next = self.kind.val() == 1;
        self.k_ctx.next = self.kind.val() == 2;
        self.k_to.next = self.kind.val() == 3;
        self.k_new.next = self.kind.val() == 4;

        // Algorithm 2.
        self.d_ack.next = self.bitmap.val() & self.c_pk.val();
        self.d_del.next = self.c_del.val() | self.d_ack.val();
        self.d_complete.next = self.d_del.val() == self.c_pk.val();
        // Algorithm 3.
        self.x_rtx.next = (self.bitmap.val() & self.c_pk.val()) & (!self.c_del.val());
        self.x_beyond.next = self.credit.val() > bit_cast::<16, 8>(self.c_npkts.val());
        // max(credit, min(new, packets)) = min(max(credit, new), packets), as the credit never
        // exceeds the packet count: both compares are made side by side, not one after the other.
        self.x_credit.next = self.credit.val();
        if self.raise_only.val() & (self.c_credit.val() > self.credit.val()) {
            self.x_credit.next = self.c_credit.val();
        }
        if self.x_beyond.val() {
            self.x_credit.next = bit_cast::<16, 8>(self.c_npkts.val());
        }
        // Algorithm 4.
        self.t_progress.next = self.c_max.val() > self.rtx_p1.val();
        self.t_cnt_inc.next = self.c_tcnt.val() + 1;
        if self.c_tcnt.val() == 0xFF {
            self.t_cnt_inc.next = 0xFF.into();
        }
        self.t_abandon.next = (!self.t_progress.val()) & (self.t_cnt_inc.val() > self.timeout_threshold.val());
        self.t_bound.next = self.rtx_p1.val().get_bits::<7>(0);
        if self.rtx_first_expiry.val() & (self.rtx_p1.val() == 0) {
            self.t_bound.next = self.c_max.val().get_bits::<7>(0);
        }
        self.rtx_mask.k.next = self.t_bound.val();
        self.t_rtx.next = self.rtx_mask.mask.val() & (!self.c_del.val());
        // Idle: every packet sent so far is delivered and every credited packet was sent.
        self.sent_mask.k.next = self.c_max.val().get_bits::<7>(0);
        self.t_unacked.next = self.sent_mask.mask.val() & (!self.c_del.val());
        // credit − 1 < 64: credit never exceeds the packet count.
        self.t_probe_off.next = self.c_credit.val().get_bits::<6>(0) - 1;
        self.t_probe.next = 0.into();
        if ((self.probe_idle_timeout.val() & (self.t_unacked.val() == 0)) & (self.c_credit.val() != 0))
            & (self.c_credit.val() <= bit_cast::<16, 8>(self.c_max.val()))
        {
            self.t_probe.next = bits::<64>(1) << bit_cast::<64, 6>(self.t_probe_off.val());
        }
        // Install.
        self.i_npkts.next = (bit_cast::<17, 16>(self.install_meta.val().get_bits::<16>(64)) + 1023) >> 10;
        self.install_mask.k.next = self.i_npkts.val().get_bits::<7>(0);
        self.i_credit_req.next = self.default_credit.val();
        if self.credit_flag.val() {
            self.i_credit_req.next = self.credit.val();
        }
        self.i_credit.next = self.i_credit_req.val();
        if self.i_credit_req.val() > bit_cast::<16, 17>(self.i_npkts.val()) {
            self.i_credit.next = bit_cast::<16, 17>(self.i_npkts.val());
        }

        // Apply the operation.
        self.u_del.next = self.c_del.val();
        self.u_tx.next = self.c_tx.val();
        self.u_rtx.next = self.c_rtx.val();
        self.u_credit.next = self.c_credit.val();
        self.u_allow.next = self.word.val().get_bit(208);
        self.u_npkts.next = self.c_npkts.val();
        self.u_max.next = self.c_max.val();
        self.u_tcnt.next = self.c_tcnt.val();
        self.u_id_base.next = self.c_id_base.val();
        self.u_meta.next = self.word.val().get_bits::<88>(249);
        self.updated_active.next = self.active.val();
        self.completed.next = false;
        self.abandoned.next = false;
        self.schedule.next = false;
        self.schedule_meta.next = (bit_cast::<24, 16>(self.id.val()) << 8) | bit_cast::<24, 8>(self.c_max.val());
        self.installed.next = false;
        if self.k_dlv.val() & self.hit.val() {
            self.u_del.next = self.d_del.val();
            self.u_tx.next = self.c_tx.val() & (!self.d_ack.val());
            self.u_rtx.next = self.c_rtx.val() & (!self.d_ack.val());
            self.completed.next = self.d_complete.val();
        }
        if self.k_ctx.val() & self.hit.val() {
            if self.rtx_flag.val() {
                self.u_tx.next = self.c_tx.val() | self.x_rtx.val();
            }
            if self.credit_flag.val() {
                self.u_credit.next = self.x_credit.val();
            }
            self.u_allow.next = self.allow.val();
        }
        if self.k_to.val() & self.hit.val() {
            if self.t_abandon.val() {
                self.abandoned.next = true;
            } else {
                self.u_tcnt.next = self.t_cnt_inc.val();
                if self.t_progress.val() {
                    self.u_tcnt.next = 0.into();
                }
                self.u_tx.next = self.c_tx.val() & (!self.t_rtx.val());
                self.u_rtx.next = (self.c_rtx.val() | self.t_rtx.val()) | self.t_probe.val();
                self.u_del.next = self.c_del.val() & (!self.t_probe.val());
                self.schedule.next = true;
            }
        }
        if self.k_new.val() & (!self.active.val()) {
            self.u_del.next = 0.into();
            self.u_tx.next = self.install_mask.mask.val();
            self.u_rtx.next = 0.into();
            self.u_credit.next = self.i_credit.val();
            self.u_allow.next = true;
            self.u_npkts.next = bit_cast::<8, 17>(self.i_npkts.val());
            self.u_max.next = 0.into();
            self.u_tcnt.next = 0.into();
            self.u_meta.next = self.install_meta.val();
            self.updated_active.next = true;
            self.schedule.next = true;
            self.schedule_meta.next = bit_cast::<24, 16>(self.id.val()) << 8;
            self.installed.next = true;
        }
        if self.completed.val() | self.abandoned.val() {
            self.updated_active.next = false;
            self.u_id_base.next = self.id.val() + self.slot_count.val();
            self.u_tx.next = 0.into();
            self.u_rtx.next = 0.into();
        }
        self.updated.next = ((((bit_cast::<337, 64>(self.u_del.val()) | (bit_cast::<337, 64>(self.u_tx.val()) << 64))
            | (bit_cast::<337, 64>(self.u_rtx.val()) << 128))
            | ((bit_cast::<337, 16>(self.u_credit.val()) << 192) | (bit_cast::<337, 1>(self.u_allow.val().into()) << 208)))
            | (((bit_cast::<337, 8>(self.u_npkts.val()) << 209) | (bit_cast::<337, 8>(self.u_max.val()) << 217))
                | (bit_cast::<337, 8>(self.u_tcnt.val()) << 225)))
            | ((bit_cast::<337, 16>(self.u_id_base.val()) << 233) | (bit_cast::<337, 88>(self.u_meta.val()) << 249));

        // The counters' events.
        self.stale_delivered.next = self.k_dlv.val() & (!self.hit.val());
        self.stale_credit.next = self.k_ctx.val() & (!self.hit.val());
        self.stale_timeout.next = self.k_to.val() & (!self.hit.val());
        self.write_busy.next = self.k_new.val() & self.active.val();
        self.ack_beyond.next = (self.k_dlv.val() & self.hit.val()) & (self.bitmap.val() & (!self.c_pk.val())).any();
        self.rtx_beyond.next = ((self.k_ctx.val() & self.hit.val()) & self.rtx_flag.val()) & (self.bitmap.val() & (!self.c_pk.val())).any();
        self.credit_beyond.next = ((self.k_ctx.val() & self.hit.val()) & self.credit_flag.val()) & self.x_beyond.val();
    }
}
