//! Unit and reference-model tests of the blocks in `hdl/nic/slot_update.rs` and
//! `hdl/nic/packet_choice.rs`: one slot's word carried from operation to operation by the test,
//! as the packetization core's RAM carries it, against the transaction-level model of the core
//! (`reference/packetization.rs`) used on that one slot.

use nanotransport_hdl::nic::packet_choice::PacketChoice;
use nanotransport_hdl::nic::slot_update::{SlotUpdate, SLOT_WORD_BITS};
use nanotransport_reference::packetization::{Completion, CoreCounters, CreditTx, NewMessage, OpEffects, PacketizationModel};
use rand::{Rng, SeedableRng};
use rust_hdl::prelude::*;

const IW: usize = 4;
const SLOT: u32 = 5;

/// The two blocks with the slot's state between operations, and the counters their events add.
struct Slot {
    update: SlotUpdate<IW>,
    choice: PacketChoice,
    word: Bits<SLOT_WORD_BITS>,
    id_known: bool,
    active: bool,
    counters: CoreCounters,
}

/// One operation's inputs beyond the word (zero where the operation has none).
#[derive(Default)]
struct Operation {
    kind: u64,
    event_id: u16,
    bitmap: u64,
    rtx_flag: bool,
    credit: Option<u16>,
    allow: bool,
    raise_only: bool,
    rtx_p1: u8,
    install_meta: u128,
}

fn bump(c: &mut u16, event: bool) {
    if event {
        *c = c.saturating_add(1);
    }
}

impl Slot {
    fn new(default_credit: u16, timeout_threshold: u8) -> Self {
        let mut update = SlotUpdate::<IW>::new();
        update.connect_all();
        update.default_credit.next = (default_credit as u64).into();
        update.timeout_threshold.next = (timeout_threshold as u64).into();
        update.rtx_first_expiry.next = false;
        update.probe_idle_timeout.next = false;
        let mut choice = PacketChoice::default();
        choice.connect_all();
        Slot { update, choice, word: Bits::default(), id_known: false, active: false, counters: CoreCounters::default() }
    }

    /// Applies one operation; returns what the core would report, in the model's terms, and the
    /// ID an install returned.
    fn apply(&mut self, op: &Operation) -> (Option<u16>, OpEffects) {
        let u = &mut self.update;
        u.word.next = self.word;
        u.slot.next = (SLOT as u64).into();
        u.id_known.next = self.id_known;
        u.active.next = self.active;
        u.kind.next = op.kind.into();
        u.event_id.next = (op.event_id as u64).into();
        u.bitmap.next = op.bitmap.into();
        u.rtx_flag.next = op.rtx_flag;
        u.credit_flag.next = op.credit.is_some();
        u.credit.next = (op.credit.unwrap_or(0) as u64).into();
        u.allow.next = op.allow;
        u.raise_only.next = op.raise_only;
        u.rtx_p1.next = (op.rtx_p1 as u64).into();
        u.install_meta.next = op.install_meta.to_bits();
        assert!(simulate(u, 1_000));
        let id = u.id.val().to_u64() as u16;
        let mut effects = OpEffects::default();
        if u.completed.val() || u.abandoned.val() {
            effects.done = Some(Completion { slot: SLOT, tx_msg_id: id, abandoned: u.abandoned.val() });
        }
        if u.completed.val() {
            effects.cancel = Some(SLOT);
        }
        if u.schedule.val() {
            effects.sched = Some((SLOT, u.schedule_meta.val().to_u64() as u32));
        }
        let c = &mut self.counters;
        bump(&mut c.stale_delivered, u.stale_delivered.val());
        bump(&mut c.stale_credit, u.stale_credit.val());
        bump(&mut c.stale_timeout, u.stale_timeout.val());
        bump(&mut c.ack_beyond, u.ack_beyond.val());
        bump(&mut c.rtx_beyond, u.rtx_beyond.val());
        bump(&mut c.credit_beyond, u.credit_beyond.val());
        bump(&mut c.write_busy, u.write_busy.val());
        bump(&mut c.delivered_msgs, u.completed.val());
        bump(&mut c.abandoned_msgs, u.abandoned.val());
        let installed = u.installed.val().then_some(id);
        self.word = u.updated.val();
        self.active = u.updated_active.val();
        self.id_known = true;
        (installed, effects)
    }

    /// Whether the slot has a packet to send: the choice with `choose` low, as the core asks it
    /// after every operation that sends nothing; the word is not changed.
    fn sendable(&mut self) -> bool {
        let word = self.word;
        let (sent, more) = self.choose_if(false);
        assert_eq!(sent, None, "nothing is sent without `choose`");
        assert_eq!(self.word, word, "the word is unchanged without `choose`");
        more
    }

    /// The packet choice on the slot's word: `(offset, is_new, is_rtx)` of the packet sent, and
    /// whether the slot still has a packet to send after it.
    fn choose(&mut self) -> (Option<(u8, bool, bool)>, bool) {
        self.choose_if(self.active)
    }

    fn choose_if(&mut self, choose: bool) -> (Option<(u8, bool, bool)>, bool) {
        let c = &mut self.choice;
        c.choose.next = choose;
        c.delivered.next = self.word.get_bits::<64>(0);
        c.tx.next = self.word.get_bits::<64>(64);
        c.rtx.next = self.word.get_bits::<64>(128);
        c.credit.next = self.word.get_bits::<7>(192);
        c.allow.next = self.word.get_bit(208);
        c.max.next = self.word.get_bits::<8>(217);
        assert!(simulate(c, 1_000));
        let sent = c.send.val().then(|| (c.offset.val().to_u64() as u8, c.is_new.val(), c.is_rtx.val()));
        self.word.set_bits::<64>(64, c.tx_after.val());
        self.word.set_bits::<64>(128, c.rtx_after.val());
        self.word.set_bits::<8>(217, c.max_after.val());
        (sent, self.active && c.more.val())
    }
}

fn install_meta(m: &NewMessage) -> u128 {
    m.remote_ip as u128 | (m.remote_port as u128) << 32 | (m.local_port as u128) << 48 | (m.msg_len as u128) << 64 | (m.rank as u128) << 80
}

/// Random operations on one slot (installs, delivered, credit and timeout events with the
/// current or a stale ID, packet choices), the blocks against the model: every install's ID,
/// completion, timer schedule and cancel, every packet's offset and flags, the counters, and
/// whether the slot still has a packet to send.
#[test]
fn one_slot_agrees_with_the_reference_model() {
    let seed = nanotransport_testbenches::seed("slot_update_reference", 17);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    for run in 0..20 {
        let default_credit = rng.gen_range(0..12u16);
        let threshold = rng.gen_range(0..4u8);
        let mut model = PacketizationModel::new(1 << IW);
        model.default_credit = default_credit;
        model.timeout_threshold = threshold;
        let mut slot = Slot::new(default_credit, threshold);
        // The ID and timer metadata the core's user would hold.
        let mut id = SLOT as u16;
        let mut timer_meta = 0u32;
        let mut packets = 0usize;
        for step in 0..400 {
            let stale = rng.gen_bool(0.1);
            let event_id = if stale { id.wrapping_add(16 * rng.gen_range(1..4u16)) } else { id };
            let what = rng.gen_range(0..10);
            let (installed, effects, expected) = match what {
                0 => {
                    let m = NewMessage {
                        slot: SLOT,
                        remote_ip: rng.gen(),
                        remote_port: rng.gen(),
                        local_port: rng.gen(),
                        msg_len: if rng.gen_bool(0.5) { rng.gen_range(1..8 * 1024) } else { rng.gen() },
                        credit: rng.gen_bool(0.5).then(|| rng.gen_range(0..80)),
                        rank: rng.gen(),
                    };
                    let op = Operation { kind: 4, credit: m.credit, install_meta: install_meta(&m), ..Default::default() };
                    let (got_id, got) = slot.apply(&op);
                    let (want_id, want) = model.install(&m);
                    assert_eq!(got_id, want_id, "run {run} step {step}: install");
                    if let Some(i) = want_id {
                        id = i;
                    }
                    (got_id, got, want)
                }
                1..=3 => {
                    let ack = if rng.gen_bool(0.8) { 1u64 << rng.gen_range(0..64) } else { rng.gen() };
                    let got = slot.apply(&Operation { kind: 1, event_id, bitmap: ack, ..Default::default() });
                    (got.0, got.1, model.delivered(event_id, ack))
                }
                4 | 5 => {
                    let c = CreditTx {
                        tx_msg_id: event_id,
                        rtx: rng.gen_bool(0.3).then(|| 1u64 << rng.gen_range(0..70u32).min(63)),
                        new_credit: rng.gen_bool(0.7).then(|| rng.gen_range(0..80)),
                        allow_tx: rng.gen_bool(0.9),
                        raise_only: rng.gen_bool(0.5),
                    };
                    let op = Operation {
                        kind: 2,
                        event_id,
                        bitmap: c.rtx.unwrap_or(0),
                        rtx_flag: c.rtx.is_some(),
                        credit: c.new_credit,
                        allow: c.allow_tx,
                        raise_only: c.raise_only,
                        ..Default::default()
                    };
                    let got = slot.apply(&op);
                    model.credit(&c);
                    (got.0, got.1, OpEffects::default())
                }
                6 => {
                    let meta = if stale { (event_id as u32) << 8 } else { timer_meta };
                    let op = Operation { kind: 3, event_id: (meta >> 8) as u16, rtx_p1: meta as u8, ..Default::default() };
                    let got = slot.apply(&op);
                    (got.0, got.1, model.timeout(SLOT, meta))
                }
                _ => {
                    let (got, more) = slot.choose();
                    let want = model.next_packet().map(|p| (p.pkt_offset, p.is_new_msg, p.is_rtx));
                    assert_eq!(got, want, "run {run} step {step}: packet choice");
                    assert_eq!(more, model.clone().next_packet().is_some(), "run {run} step {step}: more to send");
                    packets += got.is_some() as usize;
                    continue;
                }
            };
            assert_eq!(effects, expected, "run {run} step {step}: operation {what}");
            assert_eq!(installed.is_some(), what == 0 && expected.sched.is_some());
            if let Some((_, meta)) = effects.sched {
                timer_meta = meta;
            }
            if let Some(done) = effects.done {
                id = done.tx_msg_id.wrapping_add(1 << IW);
            }
            assert_eq!(slot.counters, model.counters(), "run {run} step {step}: counters");
            assert_eq!(slot.active, model.active()[SLOT as usize], "run {run} step {step}: active");
            assert_eq!(slot.sendable(), model.clone().next_packet().is_some(), "run {run} step {step}: sendable");
        }
        println!("run {run}: {packets} packets, counters {:?}", slot.counters);
    }
}

/// Directed cases of the packet choice: credit withheld, retransmissions regardless of credit,
/// delivered packets never sent, the flags and `maxTxPktOffset + 1`.
#[test]
fn packet_choice_rules() {
    let mut c = PacketChoice::default();
    c.connect_all();
    let mut choose = |tx: u64, rtx: u64, delivered: u64, credit: u64, allow: bool, max: u64| {
        c.choose.next = true;
        c.tx.next = tx.into();
        c.rtx.next = rtx.into();
        c.delivered.next = delivered.into();
        c.credit.next = credit.into();
        c.allow.next = allow;
        c.max.next = max.into();
        assert!(simulate(&mut c, 1_000));
        (
            c.send.val().then(|| c.offset.val().to_u64()),
            c.is_new.val(),
            c.is_rtx.val(),
            c.max_after.val().to_u64(),
            c.more.val(),
            c.tx_after.val().to_u64(),
        )
    };
    // Credit 2 of 4 packets: offset 0, more eligible (offset 1), tx loses bit 0.
    assert_eq!(choose(0b1111, 0, 0, 2, true, 0), (Some(0), true, false, 1, true, 0b1110));
    // Credit is exclusive: credit 1 after offset 0 was sent leaves nothing.
    assert_eq!(choose(0b1110, 0, 0, 1, true, 1), (None, false, false, 1, false, 0b1110));
    // allowTx off withholds credited packets, not a pending retransmission.
    assert_eq!(choose(0b1110, 0b0001, 0, 4, false, 2), (Some(0), false, true, 2, false, 0b1110));
    assert_eq!(choose(0b1110, 0, 0, 4, false, 2), (None, false, false, 2, false, 0b1110));
    // A delivered packet is never sent, even when pending retransmission.
    assert_eq!(choose(0b1100, 0b0010, 0b0010, 4, true, 2), (Some(2), false, false, 3, true, 0b1000));
    // The last of 64 packets.
    assert_eq!(choose(1 << 63, 0, 0, 64, true, 63), (Some(63), false, false, 64, false, 0));
}
