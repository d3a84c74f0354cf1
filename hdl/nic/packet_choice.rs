//! The next packet of one message (thesis §3.2.4: the packetization core's choice of "the
//! smallest eligible offset"; Algorithm 3's `OnesUntil(credit)`): stage S2 of
//! [`Packetization`](crate::nic::packetization::Packetization), applied to the slot word after
//! its operation. Combinational.
//!
//! Eligible = `((txBitmap & OnesUntil(credit) if allowTx) | rtxPending) & ~deliveredBitmap`
//! (credit is an exclusive bound). When `choose` is high and a packet is eligible, the smallest
//! eligible offset is sent: its `txBitmap` and `rtxPending` bits are cleared and, unless it is a
//! retransmission (below `maxTxPktOffset + 1`), `maxTxPktOffset + 1` becomes `offset + 1`.
//!
//! # Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `choose` | in | 1 | send a packet of this message if one is eligible |
//! | `delivered`, `tx`, `rtx` | in | 64 each | `deliveredBitmap`, `txBitmap`, `rtxPending` |
//! | `credit`, `allow` | in | 7, 1 | the credit (at most the packet count, 64) and `allowTx` |
//! | `max` | in | 8 | `maxTxPktOffset + 1` (0 = nothing sent yet) |
//! | `send`, `offset` | out | 1, 8 | a packet is sent, its offset (the smallest eligible one) |
//! | `tx_after`, `rtx_after`, `max_after` | out | 64, 64, 8 | the three fields after the choice (unchanged without `send`) |
//! | `more` | out | 1 | a packet is still eligible after the choice |
//! | `is_new`, `is_rtx` | out | 1 each | the descriptor's flags: nothing was sent before; the offset was sent before |
//!
//! # Latency and depth
//! Combinational. Its longest path, from the credit through the eligibility and the 64-bit
//! find-first-set to the cleared bit, is the core's S2 path; the core's rustdoc gives the depth
//! of the two together (there is no separate figure for this block).

use crate::common::find_first_set::FindFirstSet;
use crate::common::ones_until::OnesUntil;
use crate::{locals, ports};
use rust_hdl::prelude::*;

/// The next packet of one message.
#[ports(
    in choose, allow: Bit;
    in delivered, tx, rtx: Bits<64>;
    in credit: Bits<7>;
    in max: Bits<8>;
    out send, more, is_new, is_rtx: Bit;
    out offset, max_after: Bits<8>;
    out tx_after, rtx_after: Bits<64>;
)]
#[locals(
    credit_mask, eligible, sent_bit: Bits<64>;
)]
#[derive(LogicBlock, Default)]
pub struct PacketChoice {
    below_credit: OnesUntil<64, 7>,
    below_sent: OnesUntil<64, 7>,
    off_ffs: FindFirstSet<64, 6>,
}

impl Logic for PacketChoice {
    #[hdl_gen]
    fn update(&mut self) {
        // Packets below the credit and packets already sent once. Both values are at most the
        // packet count, 64, so 7 bits hold them.
        self.below_credit.k.next = self.credit.val();
        self.below_sent.k.next = self.max.val().get_bits::<7>(0);
        self.credit_mask.next = 0.into();
        if self.allow.val() {
            self.credit_mask.next = self.below_credit.mask.val();
        }
        self.eligible.next = ((self.tx.val() & self.credit_mask.val()) | self.rtx.val()) & (!self.delivered.val());
        self.off_ffs.bitmap.next = self.eligible.val();
        self.send.next = self.choose.val() & self.off_ffs.found.val();
        // The sent packet's bit (none when nothing is chosen: the one-hot is then empty).
        self.sent_bit.next = 0.into();
        if self.choose.val() {
            self.sent_bit.next = self.off_ffs.onehot.val();
        }
        self.offset.next = bit_cast::<8, 6>(self.off_ffs.index.val());
        self.tx_after.next = self.tx.val() & (!self.sent_bit.val());
        self.rtx_after.next = self.rtx.val() & (!self.sent_bit.val());
        // Eligible after the choice: without its lowest bit when a packet is chosen.
        self.more.next = self.eligible.val().any();
        if self.choose.val() {
            self.more.next = (self.eligible.val() & (self.eligible.val() - 1)).any();
        }
        self.is_new.next = self.max.val() == 0;
        // The smallest eligible offset is below maxTxPktOffset + 1 iff some eligible one is.
        self.is_rtx.next = (self.eligible.val() & self.below_sent.mask.val()).any();
        self.max_after.next = self.max.val();
        if self.send.val() & (!self.is_rtx.val()) {
            self.max_after.next = self.offset.val() + 1;
        }
    }
}
