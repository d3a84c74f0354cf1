//! Timer module on the Verilator model of its generated Verilog: reference-checker runs, the
//! expiry bound's worst case, and the cancel / re-schedule races.

use nanotransport_reference::timer::{TimerChecker, TimerCycle};
use nanotransport_sim::cosim::verilated::{PortId, VerilatedModel};
use nanotransport_testbenches::seed;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

struct TimerDut {
    m: VerilatedModel,
    entries: u32,
    ports: [PortId; 12],
    checker: TimerChecker,
    now: u64,
}

impl TimerDut {
    fn new(entries: u32, bound: Option<u64>) -> Self {
        let m = VerilatedModel::new(&format!("nt_blocks_{entries}_timer")).unwrap();
        let ports = [
            "reset",
            "now",
            "sched_valid",
            "sched_id",
            "sched_delay",
            "sched_meta",
            "cancel_valid",
            "cancel_id",
            "timeout_ready",
            "timeout_valid",
            "timeout_id",
            "timeout_meta",
        ]
        .map(|p| m.port_or_panic(p));
        TimerDut { m, entries, ports, checker: TimerChecker::new(entries as usize, bound), now: 1_000 }
    }

    /// One cycle; returns the timeout raised (and taken if `ready`) in it.
    fn cycle(&mut self, reset: bool, sched: Option<(u32, u32, u64)>, cancel: Option<u32>, ready: bool) -> Option<(u32, u64)> {
        let [rst, now, sv, sid, sd, sm, cv, cid, rdy, tv, tid, tm] = self.ports;
        self.m.set(rst, reset as u64);
        self.m.set(now, self.now);
        let (s_id, delay, meta) = sched.unwrap_or((0, 0, 0));
        self.m.set(sv, sched.is_some() as u64);
        self.m.set(sid, s_id as u64);
        self.m.set(sd, delay as u64);
        self.m.set(sm, meta);
        self.m.set(cv, cancel.is_some() as u64);
        self.m.set(cid, cancel.unwrap_or(0) as u64);
        self.m.set(rdy, ready as u64);
        self.m.eval();
        let timeout = (self.m.get(tv) == 1).then(|| (self.m.get(tid) as u32, self.m.get(tm)));
        let c = TimerCycle { reset, now: self.now, sched, cancel, timeout_ready: ready, timeout };
        if let Err(e) = self.checker.step(&c) {
            panic!("nt_blocks_{}_timer: {e}", self.entries);
        }
        self.m.tick();
        self.now += 1;
        timeout
    }

    fn idle(&mut self) -> Option<(u32, u64)> {
        self.cycle(false, None, None, true)
    }
}

/// Long random runs against the reference checker; with an always-ready consumer the bound
/// N + 2 is checked for every timer, with a random consumer only the safety properties.
fn random_run(entries: u32, cycles: u64, always_ready: bool, default_seed: u64) -> (u64, u64) {
    let seed = seed(&format!("timer {entries} ready={always_ready}"), default_seed);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let bound = always_ready.then_some(entries as u64 + 2);
    let mut dut = TimerDut::new(entries, bound);
    for _ in 0..cycles {
        let reset = rng.gen_bool(0.0005);
        let sched = rng.gen_bool(0.5).then(|| (rng.gen_range(0..entries), rng.gen_range(0..4 * entries), rng.gen::<u8>() as u64));
        let cancel = rng.gen_bool(0.3).then(|| rng.gen_range(0..entries));
        let ready = always_ready || rng.gen_bool(0.7);
        dut.cycle(reset, sched, cancel, ready);
    }
    let bound_note = if always_ready {
        format!("bound N + 2 = {}, checked every cycle", entries + 2)
    } else {
        "consumer ready 70% of cycles: bound not applicable, safety checked".to_string()
    };
    println!(
        "nt_blocks_{entries}_timer: {cycles} cycles, {} timeouts, max due→raised latency {} cycles ({bound_note})",
        dut.checker.fired, dut.checker.max_latency
    );
    assert!(dut.checker.fired > cycles / 20, "too few timeouts to be a meaningful run");
    (dut.checker.fired, dut.checker.max_latency)
}

#[test]
fn reference_checker_random_traffic_16() {
    let (_, latency) = random_run(16, 200_000, true, 101);
    assert!(latency <= 18);
    random_run(16, 200_000, false, 102);
}

#[test]
fn reference_checker_random_traffic_128() {
    let (_, latency) = random_run(128, 200_000, true, 103);
    assert!(latency <= 130);
    random_run(128, 200_000, false, 104);
}

/// Worst case of the bound: every entry, every scan phase, every delay around the scan period,
/// with schedule + cancel traffic to other entries on every cycle. The bound must hold and be
/// reached (it is tight: scheduled in the cycle the scan reads the entry, due at once).
fn worst_case(entries: u32, ids: &[u32]) -> u64 {
    let mut worst = 0;
    for &id in ids {
        let other = (id + 1) % entries;
        for phase in 0..entries {
            for delay in [0, 1, 2, entries - 1, entries, entries + 1] {
                let mut dut = TimerDut::new(entries, Some(entries as u64 + 2));
                dut.cycle(true, None, None, true);
                for _ in 0..phase {
                    dut.cycle(false, Some((other, 1_000_000, 0)), Some(other), true);
                }
                let start = dut.now;
                dut.cycle(false, Some((id, delay, 0x5a)), Some(other), true);
                let due = start + delay as u64;
                let mut raised = None;
                for _ in 0..(3 * entries + 10) {
                    let sched_other = Some((other, 1_000_000, 0));
                    if let Some((tid, meta)) = dut.cycle(false, sched_other, Some(other), true) {
                        assert_eq!((tid, meta), (id, 0x5a));
                        raised = Some(dut.now - 1);
                        break;
                    }
                }
                let raised = raised.unwrap_or_else(|| panic!("entry {id} phase {phase} delay {delay}: never raised"));
                assert!(raised >= due, "raised before expiry");
                let latency = raised - due.max(start);
                assert!(latency <= entries as u64 + 2, "entry {id} phase {phase} delay {delay}: {latency} cycles");
                worst = worst.max(latency);
            }
        }
    }
    worst
}

#[test]
fn expiry_bound_worst_case_16() {
    let worst = worst_case(16, &(0..16).collect::<Vec<_>>());
    println!("nt_blocks_16_timer: worst due→raised latency {worst} cycles (bound N + 2 = 18)");
    assert_eq!(worst, 18, "the bound is tight");
}

#[test]
fn expiry_bound_worst_case_128() {
    let worst = worst_case(128, &[0, 1, 63, 127]);
    println!("nt_blocks_128_timer: worst due→raised latency {worst} cycles (bound N + 2 = 130)");
    assert_eq!(worst, 130, "the bound is tight");
}

/// Runs until `id` is pending at the output with the consumer not ready; returns the DUT.
fn pending(id: u32) -> TimerDut {
    let mut dut = TimerDut::new(16, None);
    dut.cycle(true, None, None, true);
    dut.cycle(false, Some((id, 0, 7)), None, false);
    for _ in 0..40 {
        if dut.cycle(false, None, None, false).is_some() {
            return dut;
        }
    }
    panic!("entry {id} never became pending");
}

#[test]
fn cancel_in_the_cycle_of_the_timeout_suppresses_it() {
    let mut dut = pending(3);
    // Cancel while the timeout is on the output: timeout_valid drops in the same cycle.
    assert_eq!(dut.cycle(false, None, Some(3), true), None);
    for _ in 0..60 {
        assert_eq!(dut.idle(), None, "a cancelled timer fired");
    }
}

#[test]
fn reschedule_while_pending_replaces_the_timeout() {
    let mut dut = pending(5);
    assert_eq!(dut.cycle(false, Some((5, 100, 9)), None, true), None);
    let start = dut.now;
    let mut raised = None;
    for _ in 0..200 {
        if let Some(t) = dut.idle() {
            raised = Some((t, dut.now - 1));
            break;
        }
    }
    let ((id, meta), at) = raised.expect("the re-scheduled timer fires");
    assert_eq!((id, meta), (5, 9), "the new schedule's metadata");
    assert!(at >= start - 1 + 100, "not before the new expiry");
}

#[test]
fn cancel_or_reschedule_in_every_cycle_around_the_scan_never_fires_stale() {
    // For every offset relative to the due moment, cancel (or re-schedule far out) the timer;
    // the checker rejects any timeout for a cancelled or superseded schedule.
    for offset in 0..40u32 {
        for reschedule in [false, true] {
            let mut dut = TimerDut::new(16, None);
            dut.cycle(true, None, None, true);
            dut.cycle(false, Some((2, 10, 1)), None, true);
            for i in 0..60 {
                let (sched, cancel) = match (i == offset, reschedule) {
                    (true, false) => (None, Some(2)),
                    (true, true) => (Some((2, 1_000_000, 2)), None),
                    _ => (None, None),
                };
                dut.cycle(false, sched, cancel, true);
            }
        }
    }
}

#[test]
fn cancel_wins_over_schedule_in_the_same_cycle() {
    let mut dut = TimerDut::new(16, None);
    dut.cycle(true, None, None, true);
    dut.cycle(false, Some((4, 0, 1)), Some(4), true);
    for _ in 0..60 {
        assert_eq!(dut.idle(), None);
    }
}

#[test]
fn reset_in_the_middle_of_traffic_cancels_everything() {
    let mut dut = TimerDut::new(16, None);
    for id in 0..16 {
        dut.cycle(false, Some((id, 5, id as u64)), None, false);
    }
    dut.cycle(true, None, None, false);
    for _ in 0..100 {
        assert_eq!(dut.idle(), None, "a timer survived reset");
    }
    // And it works normally afterwards.
    dut.cycle(false, Some((6, 0, 3)), None, true);
    assert!((0..20).any(|_| dut.idle() == Some((6, 3))));
}

#[test]
fn reset_masks_a_pending_timeout_in_its_own_cycle() {
    let mut dut = pending(7);
    assert_eq!(dut.cycle(true, None, None, true), None, "a timeout was handed out during reset");
    for _ in 0..60 {
        assert_eq!(dut.idle(), None);
    }
}
