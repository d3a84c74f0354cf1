//! Unit tests of the block in `hdl/nic/timer.rs`, on the natively stepped block.

use nanotransport_hdl::nic::timer::*;
use rust_hdl::prelude::*;

/// Steps the 16-entry timer natively; `now` advances by one per cycle.
struct Bench {
    uut: Timer<16, 4, 8>,
    now: u64,
}

impl Bench {
    fn new() -> Self {
        let mut uut = Timer::<16, 4, 8>::default();
        uut.connect_all();
        assert!(simulate(&mut uut, 1000));
        Bench { uut, now: 100 }
    }

    /// Applies the inputs, returns the timeout visible before the edge, then clocks.
    fn cycle(&mut self, sched: Option<(u64, u64, u64)>, cancel: Option<u64>, ready: bool, reset: bool) -> Option<(u64, u64)> {
        let u = &mut self.uut;
        u.reset.next = reset;
        u.now.next = self.now.into();
        u.sched_valid.next = sched.is_some();
        let (id, delay, meta) = sched.unwrap_or((0, 0, 0));
        u.sched_id.next = id.into();
        u.sched_delay.next = delay.into();
        u.sched_meta.next = meta.into();
        u.cancel_valid.next = cancel.is_some();
        u.cancel_id.next = cancel.unwrap_or(0).into();
        u.timeout_ready.next = ready;
        assert!(simulate(u, 1000));
        // The unmasked offer differs from `timeout_valid` only by this cycle's schedule or
        // cancel of the offered ID.
        let hit = (sched.is_some() && id == u.timeout_id.val().to_u64()) || cancel == Some(u.timeout_id.val().to_u64());
        assert_eq!(u.timeout_valid.val(), u.timeout_offered.val() && !hit, "timeout_offered vs timeout_valid");
        let out = u.timeout_valid.val().then(|| (u.timeout_id.val().to_u64(), u.timeout_meta.val().to_u64()));
        u.clock.next = Clock { clk: true };
        assert!(simulate(u, 1000));
        u.clock.next = Clock { clk: false };
        assert!(simulate(u, 1000));
        self.now += 1;
        out
    }

    fn idle(&mut self) -> Option<(u64, u64)> {
        self.cycle(None, None, true, false)
    }
}

#[test]
fn fires_once_after_expiry_within_the_bound() {
    let mut b = Bench::new();
    b.cycle(None, None, true, true);
    let scheduled_at = b.now;
    b.cycle(Some((9, 30, 0xab)), None, true, false);
    let mut fired = Vec::new();
    for _ in 0..100 {
        if let Some(t) = b.idle() {
            fired.push((t, b.now - 1));
        }
    }
    assert_eq!(fired.len(), 1, "exactly one timeout: {fired:?}");
    let ((id, meta), at) = fired[0];
    assert_eq!((id, meta), (9, 0xab));
    let due = scheduled_at + 30;
    assert!(at >= due && at <= due + 18, "raised at {at}, due {due}, bound 18");
}

#[test]
fn cancel_while_pending_masks_the_output_in_the_same_cycle() {
    let mut b = Bench::new();
    b.cycle(None, None, true, true);
    b.cycle(Some((1, 0, 5)), None, false, false);
    let mut pending = false;
    for _ in 0..40 {
        if b.cycle(None, None, false, false).is_some() {
            pending = true;
            break;
        }
    }
    assert!(pending);
    assert_eq!(b.cycle(None, Some(1), true, false), None);
    for _ in 0..60 {
        assert_eq!(b.idle(), None);
    }
}

#[test]
fn cancel_wins_and_reset_clears() {
    let mut b = Bench::new();
    b.cycle(Some((2, 0, 1)), Some(2), true, false);
    b.cycle(Some((3, 0, 1)), None, true, false);
    b.cycle(None, None, true, true);
    for _ in 0..60 {
        assert_eq!(b.idle(), None);
    }
}
