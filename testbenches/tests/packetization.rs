//! Packetization core (hdl/nic/packetization.rs) on the Verilator model of its generated
//! Verilog, against the reference model (sim/model/packetization.rs): directed cases for every
//! event, the same-cycle orders and the bad inputs, a long differential run of random traffic,
//! a leak check, and the native-vs-Verilator lockstep.

use nanotransport_sim::cosim::lockstep::run_lockstep;
use nanotransport_sim::cosim::stimulus::{Drive, Stimulus};
use nanotransport_sim::cosim::tx::VerilatedPacketization;
use nanotransport_sim::model::packetization::{
    CoreInputs, CoreOutputs, CreditTx, NewMessage, PacketDesc, PacketizationModel,
};
use nanotransport_hdl::nic::packetization::Packetization16;
use nanotransport_testbenches::seed;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::HashMap;

const MODEL: &str = "nt_nic_16_packetization";

/// The Verilator model and the reference model in step; every output compared every cycle.
struct Both {
    dut: VerilatedPacketization,
    model: PacketizationModel,
    cycle: u64,
    threshold: u8,
    default_credit: u16,
}

impl Both {
    fn new() -> Self {
        let mut b = Both {
            dut: VerilatedPacketization::new(MODEL),
            model: PacketizationModel::new(16),
            cycle: 0,
            threshold: 2,
            default_credit: 12,
        };
        b.step(CoreInputs { reset: true, ..b.idle() });
        b
    }

    fn idle(&self) -> CoreInputs {
        CoreInputs {
            default_credit: self.default_credit,
            timeout_threshold: self.threshold,
            pkt_ready: true,
            ..Default::default()
        }
    }

    fn step(&mut self, i: CoreInputs) -> CoreOutputs {
        let d = self.dut.cycle(&i);
        let m = self.model.cycle(&i);
        assert_eq!(d, m, "cycle {}: RTL (left) and reference model (right) differ; inputs {i:?}", self.cycle);
        self.cycle += 1;
        d
    }

    /// Writes a message into `slot`; returns its tx_msg_id.
    fn write(&mut self, slot: u32, msg_len: u16, credit: Option<u16>) -> u16 {
        let new = NewMessage { slot, remote_ip: 0x0a00_0001 + slot, remote_port: 1000 + slot as u16, local_port: 7, msg_len, credit, rank: 3 };
        let o = self.step(CoreInputs { new: Some(new), ..self.idle() });
        assert!(o.new_ready);
        o.new_tx_msg_id
    }

    /// Idles `n` cycles, collecting packets handed out.
    fn collect(&mut self, n: usize) -> Vec<PacketDesc> {
        (0..n).filter_map(|_| self.step(self.idle()).packet).collect()
    }

    fn with(&mut self, f: impl FnOnce(&mut CoreInputs)) -> CoreOutputs {
        let mut i = self.idle();
        f(&mut i);
        self.step(i)
    }
}

fn offsets(p: &[PacketDesc]) -> Vec<(u16, u8, bool)> {
    p.iter().map(|p| (p.tx_msg_id, p.pkt_offset, p.is_rtx)).collect()
}

#[test]
fn credit_is_exclusive_and_raising_it_releases_packets() {
    let mut b = Both::new();
    let id = b.write(5, 3 * 1024, Some(2));
    let p = b.collect(6);
    assert_eq!(offsets(&p), vec![(id, 0, false), (id, 1, false)], "credit 2: offsets 0 and 1 only");
    assert!(p[0].is_new_msg && !p[1].is_new_msg);
    assert_eq!((p[0].remote_ip, p[0].remote_port, p[0].local_port, p[0].msg_len, p[0].rank, p[0].flags), (0x0a00_0006, 1005, 7, 3072, 3, 1));
    assert_eq!(p[0].credit, 2);
    b.with(|i| i.credit = Some(CreditTx { tx_msg_id: id, new_credit: Some(3), allow_tx: true, ..Default::default() }));
    let p = b.collect(4);
    assert_eq!(offsets(&p), vec![(id, 2, false)]);
    // Credit 0: nothing at all.
    let id0 = b.write(6, 100, Some(0));
    assert!(b.collect(5).is_empty());
    b.with(|i| i.credit = Some(CreditTx { tx_msg_id: id0, new_credit: Some(1), allow_tx: true, ..Default::default() }));
    assert_eq!(offsets(&b.collect(3)), vec![(id0, 0, false)]);
    // All delivered: freed, timer cancelled, completion reported.
    let o = b.with(|i| i.delivered = Some((id, 0b111)));
    assert_eq!(o.cancel, Some(5));
    let done = o.done.expect("completion");
    assert_eq!((done.slot, done.tx_msg_id, done.abandoned), (5, id, false));
    let o = b.step(b.idle());
    assert_eq!(o.active, 1 << 6);
    assert_eq!(o.counters.delivered_msgs, 1);
}

#[test]
fn round_robin_shares_the_wire() {
    let mut b = Both::new();
    // Three messages written on consecutive cycles, packets collected from the first cycle on.
    let mut ids = vec![];
    let mut p = vec![];
    for slot in [1u32, 2, 9] {
        let new = NewMessage { slot, msg_len: 4 * 1024, ..Default::default() };
        let o = b.with(|i| i.new = Some(new));
        ids.push(o.new_tx_msg_id);
        p.extend(o.packet);
    }
    p.extend(b.collect(16));
    assert_eq!(p.len(), 12);
    let order: Vec<u16> = p.iter().map(|p| p.tx_msg_id).collect();
    println!("round robin order: {order:?}");
    // Slot 1 is alone for one choice, then slot 2 joins; from then on, while all three have
    // packets, every three consecutive packets name the three messages (descending slot order).
    assert_eq!(&order[0..2], &[ids[0], ids[1]]);
    for w in order[2..11].chunks(3) {
        let mut s = w.to_vec();
        s.sort();
        let mut e = ids.clone();
        e.sort();
        assert_eq!(s, e, "each message once per turn: {order:?}");
    }
}

#[test]
fn timeout_retransmits_up_to_and_including_rtx_offset() {
    let mut b = Both::new();
    let id = b.write(0, 10, None);
    let o = b.collect(3);
    assert_eq!(offsets(&o), vec![(id, 0, false)]);
    // The timer returns the metadata scheduled at the write: maxTxPktOffset+1 = 0 (nothing sent).
    // A single-packet message must still be retransmitted once a packet was sent: meta p1 = 1.
    let o = b.with(|i| i.timeout = Some((0, ((id as u32) << 8) | 1)));
    assert!(o.to_ready);
    let o = b.step(b.idle()); // processed in this cycle: rescheduled with maxTxPktOffset+1 = 1
    assert_eq!(o.sched, Some((0, ((id as u32) << 8) | 1)));
    assert!(!o.new_ready, "a write waits while a timeout uses the timer port");
    let p = b.collect(3);
    assert_eq!(offsets(&p), vec![(id, 0, true)], "offset 0 retransmitted with is_rtx");
    // Timeout whose metadata says nothing was sent: nothing to retransmit.
    b.with(|i| i.timeout = Some((0, (id as u32) << 8)));
    assert!(b.collect(4).is_empty());
}

#[test]
fn timeout_retransmission_ignores_credit_and_skips_delivered() {
    let mut b = Both::new();
    let id = b.write(3, 5 * 1024, Some(5));
    assert_eq!(b.collect(8).len(), 5);
    b.with(|i| i.delivered = Some((id, 0b00101)));
    // Window closed (overwrite to 0), then timeout with rtx_offset = 3 (p1 = 4).
    b.with(|i| i.credit = Some(CreditTx { tx_msg_id: id, new_credit: Some(0), allow_tx: true, ..Default::default() }));
    b.with(|i| i.timeout = Some((3, ((id as u32) << 8) | 4)));
    let p = b.collect(6);
    assert_eq!(offsets(&p), vec![(id, 1, true), (id, 3, true)], "non-delivered offsets ≤ 3, credit ignored");
}

/// The abandon decision uses the count after this expiry's update: with threshold 2, two
/// expiries without progress (count 1, 2), then progress, then an expiry → count reset, not
/// abandoned; then expiries without progress abandon it exactly at the third (count 3 > 2).
#[test]
fn abandon_decision_uses_the_updated_timeout_count() {
    let mut b = Both::new();
    b.threshold = 2;
    let id = b.write(7, 3 * 1024, Some(1));
    assert_eq!(offsets(&b.collect(4)), vec![(id, 0, false)], "credit 1: offset 0 only");
    let meta_p1 = |p1: u32| ((id as u32) << 8) | p1;
    // Expiry with metadata p1 = 1 and maxTxPktOffset+1 still 1: no progress.
    let expire = |b: &mut Both, p1: u32| {
        b.with(|i| i.timeout = Some((7, meta_p1(p1))));
        let o = b.step(b.idle());
        let p = b.collect(4);
        (o, p)
    };
    for k in 1..=2 {
        let (o, p) = expire(&mut b, 1);
        assert!(o.done.is_none(), "expiry {k} without progress (count {k} ≤ 2) keeps the message");
        assert_eq!(o.sched, Some((7, meta_p1(1))));
        assert_eq!(offsets(&p), vec![(id, 0, true)]);
    }
    // Progress: credit 2 lets offset 1 out (maxTxPktOffset+1 = 2).
    b.with(|i| i.credit = Some(CreditTx { tx_msg_id: id, new_credit: Some(2), allow_tx: true, ..Default::default() }));
    assert_eq!(offsets(&b.collect(4)), vec![(id, 1, false)]);
    // The timer was set with p1 = 1; the count before this expiry is 2. The old rule (compare
    // before updating) would abandon only at count 3, so check both sides: this expiry must not
    // abandon, and must reset the count so that three more no-progress expiries are needed.
    let (o, _) = expire(&mut b, 1);
    assert!(o.done.is_none(), "progress since the timer was set: never abandoned at this expiry");
    assert_eq!(o.sched, Some((7, meta_p1(2))));
    for k in 1..=3 {
        let (o, _) = expire(&mut b, 2);
        if k < 3 {
            assert!(o.done.is_none() && o.sched == Some((7, meta_p1(2))), "no-progress expiry {k}: count {k} ≤ 2");
        } else {
            assert_eq!(o.sched, None);
            let done = o.done.expect("abandoned at the third no-progress expiry (count 3 > 2)");
            assert!(done.abandoned && done.tx_msg_id == id);
        }
    }
    let o = b.step(b.idle());
    assert_eq!((o.active, o.counters.abandoned_msgs), (0, 1));
}

/// Threshold 0: an expiry after progress keeps the message; the first expiry without progress abandons it.
#[test]
fn progress_at_an_expiry_saves_a_message_at_the_threshold() {
    let mut b = Both::new();
    b.threshold = 0;
    let id = b.write(2, 2 * 1024, Some(1));
    b.collect(4);
    // One no-progress expiry would abandon at threshold 0 (count 1 > 0); instead progress first.
    b.with(|i| i.credit = Some(CreditTx { tx_msg_id: id, new_credit: Some(2), allow_tx: true, ..Default::default() }));
    assert_eq!(offsets(&b.collect(4)), vec![(id, 1, false)]);
    b.with(|i| i.timeout = Some((2, ((id as u32) << 8) | 1)));
    let o = b.step(b.idle());
    assert!(o.done.is_none(), "progress: not abandoned");
    assert_eq!(o.sched, Some((2, ((id as u32) << 8) | 2)));
    b.collect(4);
    b.with(|i| i.timeout = Some((2, ((id as u32) << 8) | 2)));
    let o = b.step(b.idle());
    assert!(o.done.expect("no progress at threshold 0: abandoned at the first such expiry").abandoned);
}

#[test]
fn abandon_after_threshold_timeouts_without_progress() {
    let mut b = Both::new();
    b.threshold = 1;
    let id = b.write(4, 2 * 1024, None);
    b.collect(4);
    let meta = ((id as u32) << 8) | 2;
    // timeoutCnt 0 → 1 (no progress: maxTxPktOffset+1 stays 2); the second makes it 2 > 1.
    for k in 0..1 {
        b.with(|i| i.timeout = Some((4, meta)));
        let o = b.step(b.idle());
        assert!(o.sched.is_some(), "timeout {k} reschedules");
        b.collect(4);
    }
    b.with(|i| i.timeout = Some((4, meta)));
    let o = b.step(b.idle());
    assert_eq!(o.sched, None);
    let done = o.done.expect("abandoned");
    assert!(done.abandoned && done.tx_msg_id == id);
    let o = b.step(b.idle());
    assert_eq!((o.active, o.counters.abandoned_msgs), (0, 1));
    // Late events for the abandoned message are stale.
    b.with(|i| i.delivered = Some((id, 1)));
    b.with(|i| i.timeout = Some((4, meta)));
    b.step(b.idle());
    let o = b.step(b.idle());
    assert_eq!((o.counters.stale_delivered, o.counters.stale_timeout), (1, 1));
}

#[test]
fn raise_only_never_lowers_credit_overwrite_does() {
    let mut b = Both::new();
    let id = b.write(2, 8 * 1024, Some(4));
    b.collect(6);
    b.with(|i| i.credit = Some(CreditTx { tx_msg_id: id, new_credit: Some(2), allow_tx: true, raise_only: true, ..Default::default() }));
    b.with(|i| i.credit = Some(CreditTx { tx_msg_id: id, rtx: Some(0b1), allow_tx: true, ..Default::default() }));
    let p = b.collect(3);
    assert_eq!(p[0].credit, 4, "a late, lower credit did not lower it");
    b.with(|i| i.credit = Some(CreditTx { tx_msg_id: id, new_credit: Some(1), allow_tx: true, ..Default::default() }));
    b.with(|i| i.credit = Some(CreditTx { tx_msg_id: id, rtx: Some(0b110), allow_tx: true, ..Default::default() }));
    assert!(b.collect(4).is_empty(), "overwrite lowered credit to 1: offsets 1 and 2 wait");
    // allowTxFlag = 0 withholds; a later event with it set releases.
    b.with(|i| i.credit = Some(CreditTx { tx_msg_id: id, new_credit: Some(8), allow_tx: false, ..Default::default() }));
    assert!(b.collect(4).is_empty());
    b.with(|i| i.credit = Some(CreditTx { tx_msg_id: id, allow_tx: true, ..Default::default() }));
    let p = b.collect(10);
    assert_eq!(p.iter().map(|p| p.pkt_offset).collect::<Vec<_>>(), vec![1, 2, 4, 5, 6, 7]);
}

#[test]
fn same_cycle_and_back_to_back_events_follow_the_documented_order() {
    let mut b = Both::new();
    // Delivered completes the message and CreditTx names it in the same cycle: CreditTx is stale.
    let id = b.write(7, 1024, None);
    b.collect(3);
    let o = b.with(|i| {
        i.delivered = Some((id, 1));
        i.credit = Some(CreditTx { tx_msg_id: id, rtx: Some(1), allow_tx: true, ..Default::default() });
    });
    assert!(o.done.is_some());
    let o = b.step(b.idle());
    assert_eq!(o.counters.stale_credit, 1);
    // Timeout and Delivered for the same message in the same cycle: the timeout is processed
    // after the ACK and retransmits only what is still undelivered.
    let id = b.write(8, 3 * 1024, None);
    b.collect(5);
    b.with(|i| i.timeout = Some((8, ((id as u32) << 8) | 3)));
    let o = b.with(|i| i.delivered = Some((id, 0b011)));
    assert_eq!(o.sched, Some((8, ((id as u32) << 8) | 3)), "processed in the same cycle, after the ACK");
    assert_eq!(offsets(&b.collect(3)), vec![(id, 2, true)], "only the undelivered packet");
    // A DeliveredEvent that completes another message holds a pending timeout for one cycle
    // (one slot freed per cycle).
    let other = b.write(10, 100, None);
    b.collect(3);
    b.with(|i| i.timeout = Some((8, ((id as u32) << 8) | 3)));
    let o = b.with(|i| i.delivered = Some((other, 1)));
    assert!(o.done.is_some() && o.sched.is_none() && o.new_ready, "timeout held while a message completes");
    let o = b.step(b.idle());
    assert_eq!(o.sched, Some((8, ((id as u32) << 8) | 3)));
    assert_eq!(offsets(&b.collect(3)), vec![(id, 2, true)]);
    // The last ACK completes the message; a NACK for it on the next cycle is stale.
    let o = b.with(|i| i.delivered = Some((id, 0b100)));
    assert!(o.done.is_some());
    let o = b.with(|i| i.credit = Some(CreditTx { tx_msg_id: id, rtx: Some(0b100), allow_tx: true, ..Default::default() }));
    assert!(o.packet.is_none());
    let o = b.step(b.idle());
    assert!(o.packet.is_none());
    assert_eq!((o.counters.delivered_msgs, o.counters.stale_credit), (3, 2));
    // A packet chosen in the cycle its ACK arrives still goes out once (harmless duplicate).
    let id = b.write(9, 2 * 1024, Some(0));
    b.step(b.idle());
    b.with(|i| i.credit = Some(CreditTx { tx_msg_id: id, new_credit: Some(2), allow_tx: true, ..Default::default() }));
    let o = b.with(|i| i.delivered = Some((id, 0b01)));
    assert!(o.packet.is_none());
    let p = b.collect(3);
    assert_eq!(offsets(&p), vec![(id, 0, false), (id, 1, false)]);
}

#[test]
fn generation_protects_a_reused_slot_and_bad_input_is_counted() {
    let mut b = Both::new();
    let old = b.write(3, 1024, None);
    b.collect(3);
    b.with(|i| i.delivered = Some((old, 1)));
    let new = b.write(3, 2 * 1024, None);
    assert_eq!(new & 0xf, old & 0xf);
    assert_ne!(new, old);
    b.collect(4);
    // Late ACK, NACK and timeout for the old message: counted, the new one untouched.
    b.with(|i| i.delivered = Some((old, 0b11)));
    b.with(|i| i.credit = Some(CreditTx { tx_msg_id: old, new_credit: Some(0), allow_tx: true, ..Default::default() }));
    b.with(|i| i.timeout = Some((3, ((old as u32) << 8) | 1)));
    b.step(b.idle());
    b.with(|i| i.delivered = Some((0x7777, 1))); // never issued
    // Bits beyond the packet count, credit beyond the message.
    b.with(|i| i.delivered = Some((new, 0b1101)));
    b.with(|i| i.credit = Some(CreditTx { tx_msg_id: new, rtx: Some(0b1010), new_credit: Some(9), allow_tx: true, ..Default::default() }));
    let p = b.collect(3);
    assert_eq!(offsets(&p), vec![(new, 1, true)], "only the in-range retransmission");
    assert_eq!(p[0].credit, 2, "credit clamped to the packet count");
    // Write into a busy slot: refused and counted.
    let o = b.with(|i| i.new = Some(NewMessage { slot: 3, msg_len: 5, ..Default::default() }));
    assert_eq!(o.sched, None);
    let o = b.step(b.idle());
    let c = o.counters;
    println!("bad-input counters: {c:?}");
    assert_eq!((c.stale_delivered, c.stale_credit, c.stale_timeout), (2, 1, 1));
    assert_eq!((c.ack_beyond, c.rtx_beyond, c.credit_beyond, c.write_busy), (1, 1, 1, 1));
    b.with(|i| i.delivered = Some((new, 0b11)));
    let o = b.step(b.idle());
    assert_eq!(o.active, 0);
}

// ------------------------------------------------------------------------------------------
// Random differential run.

#[derive(Clone, Copy, Debug)]
struct Live {
    id: u16,
    npkts: u32,
    sent: u64,
}

/// Random traffic generator: it plays the CPU, the ingress pipeline (ACKs out of order, NACK
/// bursts, credit up and down, stale and out-of-range events) and the timer.
struct Traffic {
    rng: ChaCha8Rng,
    live: HashMap<u32, Live>,
    old_ids: Vec<u16>,
    pending_write: Option<NewMessage>,
    timers: [Option<(u64, u32)>; 16],
    offered_timeout: Option<(u32, u32)>,
    now: u64,
    writing: bool,
    drain: bool,
    events: u64,
    packets: u64,
    rtx_packets: u64,
    writes: u64,
    completions: u64,
    abandoned: u64,
}

impl Traffic {
    fn new(seed: u64) -> Self {
        Traffic {
            rng: ChaCha8Rng::seed_from_u64(seed),
            live: HashMap::new(),
            old_ids: vec![],
            pending_write: None,
            timers: [None; 16],
            offered_timeout: None,
            now: 0,
            writing: true,
            drain: false,
            events: 0,
            packets: 0,
            rtx_packets: 0,
            writes: 0,
            completions: 0,
            abandoned: 0,
        }
    }

    fn pick_live(&mut self) -> Option<(u32, Live)> {
        if self.live.is_empty() {
            return None;
        }
        let mut keys: Vec<u32> = self.live.keys().copied().collect();
        keys.sort();
        let k = keys[self.rng.gen_range(0..keys.len())];
        Some((k, self.live[&k]))
    }

    fn stale_id(&mut self) -> u16 {
        if !self.old_ids.is_empty() && self.rng.gen_bool(0.8) {
            self.old_ids[self.rng.gen_range(0..self.old_ids.len())]
        } else {
            self.rng.gen()
        }
    }

    fn random_subset(&mut self, bits: u64) -> u64 {
        let r: u64 = self.rng.gen::<u64>() | self.rng.gen::<u64>();
        bits & r
    }

    fn inputs(&mut self, base: CoreInputs, active: u64) -> CoreInputs {
        let mut i = base;
        i.pkt_ready = self.rng.gen_bool(0.75);
        i.idle_slot = self.rng.gen_range(0..16);
        // CPU writes.
        if self.pending_write.is_none() && self.writing && self.rng.gen_bool(0.15) {
            let free: Vec<u32> = (0..16).filter(|s| active & (1 << s) == 0 && !self.live.contains_key(s)).collect();
            if !free.is_empty() {
                let slot = free[self.rng.gen_range(0..free.len())];
                let msg_len = match self.rng.gen_range(0..10) {
                    0 => self.rng.gen_range(1..=65535),
                    1..=4 => self.rng.gen_range(1..=1024),
                    _ => self.rng.gen_range(1..=8 * 1024),
                };
                let credit = self.rng.gen_bool(0.5).then(|| self.rng.gen_range(0..12));
                self.pending_write = Some(NewMessage {
                    slot,
                    remote_ip: self.rng.gen(),
                    remote_port: self.rng.gen(),
                    local_port: self.rng.gen(),
                    msg_len,
                    credit,
                    rank: self.rng.gen(),
                });
            }
        }
        i.new = self.pending_write;
        // DeliveredEvent: ACKs of sent packets in any order.
        let p_ack = if self.drain { 0.5 } else { 0.3 };
        if self.rng.gen_bool(p_ack) {
            if let Some((_, m)) = self.pick_live() {
                let mut ack = if self.drain { m.sent } else { self.random_subset(m.sent) };
                if self.rng.gen_bool(0.03) {
                    ack |= 1u64 << self.rng.gen_range(m.npkts.min(63)..64);
                }
                let id = if self.rng.gen_bool(0.03) { self.stale_id() } else { m.id };
                i.delivered = Some((id, ack));
            } else if self.rng.gen_bool(0.1) {
                i.delivered = Some((self.stale_id(), self.rng.gen()));
            }
        }
        // CreditTxEvent: NACK bursts, credit up and down.
        if !self.drain && self.rng.gen_bool(0.3) {
            if let Some((_, m)) = self.pick_live() {
                let all = if m.npkts >= 64 { u64::MAX } else { (1u64 << m.npkts) - 1 };
                let rtx = self.rng.gen_bool(0.4).then(|| {
                    let mut r = self.random_subset(m.sent);
                    if self.rng.gen_bool(0.03) {
                        r |= 1u64 << self.rng.gen_range(m.npkts.min(63)..64);
                    }
                    r & if self.rng.gen_bool(0.97) { all } else { u64::MAX }
                });
                let new_credit = self.rng.gen_bool(0.6).then(|| self.rng.gen_range(0..=(m.npkts as u16 + 3)));
                let id = if self.rng.gen_bool(0.03) { self.stale_id() } else { m.id };
                i.credit = Some(CreditTx {
                    tx_msg_id: id,
                    rtx,
                    new_credit,
                    allow_tx: self.rng.gen_bool(0.85),
                    raise_only: self.rng.gen_bool(0.5),
                });
            }
        } else if self.drain && self.rng.gen_bool(0.2) {
            if let Some((_, m)) = self.pick_live() {
                i.credit = Some(CreditTx { tx_msg_id: m.id, new_credit: Some(64), allow_tx: true, ..Default::default() });
            }
        }
        // Timer: offer the earliest due timer; sometimes a bogus expiry.
        if self.offered_timeout.is_none() {
            let due = (0..16u32).filter_map(|s| self.timers[s as usize].filter(|t| t.0 <= self.now).map(|t| (t.0, s, t.1))).min();
            if let Some((_, s, meta)) = due {
                self.offered_timeout = Some((s, meta));
            } else if self.rng.gen_bool(0.002) {
                self.offered_timeout = Some((self.rng.gen_range(0..16), self.rng.gen::<u32>() & 0xff_ffff));
            }
        }
        i.timeout = self.offered_timeout;
        i
    }

    fn observe(&mut self, i: &CoreInputs, o: &CoreOutputs) {
        self.events += i.delivered.is_some() as u64 + i.credit.is_some() as u64;
        if let (Some(t), true) = (i.timeout, o.to_ready) {
            self.events += 1;
            if self.timers[t.0 as usize].is_some_and(|x| x.1 == t.1) {
                self.timers[t.0 as usize] = None;
            }
            self.offered_timeout = None;
        }
        if let (Some(p), true) = (o.packet, i.pkt_ready) {
            self.packets += 1;
            self.rtx_packets += p.is_rtx as u64;
            if let Some(m) = self.live.get_mut(&p.slot) {
                if m.id == p.tx_msg_id {
                    m.sent |= 1 << p.pkt_offset;
                }
            }
        }
        if let Some(d) = o.done {
            self.live.remove(&d.slot);
            self.old_ids.push(d.tx_msg_id);
            self.completions += 1;
            self.abandoned += d.abandoned as u64;
        }
        if let (Some(w), true) = (i.new, o.new_ready) {
            self.events += 1;
            self.writes += 1;
            let npkts = (w.msg_len as u32).div_ceil(1024);
            self.live.insert(w.slot, Live { id: o.new_tx_msg_id, npkts, sent: 0 });
            self.pending_write = None;
        }
        if let Some(s) = o.cancel {
            self.timers[s as usize] = None;
        }
        if let Some((s, meta)) = o.sched {
            let delay = self.rng.gen_range(30..400);
            self.timers[s as usize] = Some((self.now + delay, meta));
        }
        self.now += 1;
    }
}

#[test]
fn differential_random_traffic_against_the_reference_model() {
    let seed = seed("packetization differential", 0x7041);
    let mut b = Both::new();
    b.threshold = 3;
    let mut t = Traffic::new(seed);
    let mut active = 0;
    let target_events = 100_000;
    while t.events < target_events {
        let i = t.inputs(b.idle(), active);
        let o = b.step(i);
        active = o.active;
        t.observe(&i, &o);
    }
    // Drain: no new messages; ACK everything sent, open the window; timeouts keep running.
    t.writing = false;
    t.drain = true;
    let drain_start = b.cycle;
    while (active != 0 || t.pending_write.is_some()) && b.cycle - drain_start < 200_000 {
        let i = t.inputs(b.idle(), active);
        let o = b.step(i);
        active = o.active;
        t.observe(&i, &o);
    }
    let o = b.step(b.idle());
    println!(
        "packetization differential: seed {seed}, {} cycles, {} events, {} messages written, {} packets ({} retransmissions), \
         {} completions ({} abandoned); counters {:?}",
        b.cycle, t.events, t.writes, t.packets, t.rtx_packets, t.completions, t.abandoned, o.counters
    );
    assert!(t.events >= target_events);
    assert_eq!(o.active, 0, "leak: slots still in use after the drain");
    assert_eq!(t.completions, t.writes, "every message completed (delivered or abandoned) once");
    assert_eq!(o.counters.delivered_msgs as u64 + o.counters.abandoned_msgs as u64, t.writes);
    assert!(t.rtx_packets > 100 && t.abandoned > 0 && o.counters.stale_delivered > 0 && o.counters.ack_beyond > 0);
    assert!(o.counters.rtx_beyond > 0 && o.counters.credit_beyond > 0 && o.counters.stale_timeout > 0);
}

#[test]
fn lockstep_native_against_verilator() {
    let seed = seed(MODEL, 0x7042);
    let stimulus = Stimulus::new()
        .drive("reset", Drive::Bernoulli(0.002))
        .drive("default_credit", Drive::Range(0, 20))
        .drive("timeout_threshold", Drive::Range(0, 3))
        .drive("new_valid", Drive::Bernoulli(0.2))
        .drive("new_msg_len", Drive::Range(0, 20_000))
        .drive("new_credit", Drive::Range(0, 24))
        .drive("dlv_valid", Drive::Bernoulli(0.4))
        .drive("dlv_tx_msg_id", Drive::Range(0, 47))
        .drive("dlv_ack_bitmap", Drive::Sparse(4))
        .drive("ctx_valid", Drive::Bernoulli(0.4))
        .drive("ctx_tx_msg_id", Drive::Range(0, 47))
        .drive("ctx_rtx_bitmap", Drive::Sparse(3))
        .drive("ctx_new_credit", Drive::Range(0, 24))
        .drive("to_valid", Drive::Bernoulli(0.2))
        .drive("to_meta", Drive::Range(0, 47 * 256 + 20))
        .drive("pkt_ready", Drive::Bernoulli(0.7));
    // The block holds many 1024-bit signals inline: build and step it on a thread with a large stack.
    let run = std::thread::Builder::new()
        .stack_size(512 << 20)
        .spawn(move || run_lockstep::<Packetization16>(MODEL, &stimulus, 10_000, seed).map_err(|e| e.to_string()))
        .unwrap();
    match run.join().unwrap() {
        Ok(r) => println!("{}: {} cycles, {} output comparisons, no divergence", r.model, r.cycles, r.comparisons),
        Err(e) => panic!("{e}"),
    }
}
