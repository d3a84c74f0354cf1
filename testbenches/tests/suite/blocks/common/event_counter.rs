//! Unit tests of the block in `hdl/common/event_counter.rs`, on the natively stepped block.

use nanotransport_hdl::common::event_counter::*;
use rust_hdl::prelude::*;

/// Steps a 4-bit counter through `events` (one per cycle, `true` = an event) after a reset and
/// returns `count` after each cycle.
fn counts<const SATURATE: bool>(events: &[bool], reset_at: Option<usize>) -> Vec<u64> {
    let mut u = EventCounter::<4, SATURATE>::default();
    u.connect_all();
    let cycle = |u: &mut EventCounter<4, SATURATE>| {
        u.clock.next = Clock { clk: true };
        assert!(simulate(u, 100));
        u.clock.next = Clock { clk: false };
        assert!(simulate(u, 100));
    };
    u.reset.next = true;
    u.increment.next = true;
    cycle(&mut u);
    assert_eq!(u.count.val().to_u64(), 0, "reset wins over an event");
    let mut seen = Vec::new();
    for (i, &event) in events.iter().enumerate() {
        u.reset.next = reset_at == Some(i);
        u.increment.next = event;
        cycle(&mut u);
        seen.push(u.count.val().to_u64());
    }
    seen
}

#[test]
fn wrapping_counter_counts_modulo_its_width() {
    let seen = counts::<false>(&[true; 18], None);
    let expected: Vec<u64> = (1..=18).map(|n| n % 16).collect();
    assert_eq!(seen, expected);
}

#[test]
fn saturating_counter_stops_at_all_ones() {
    let seen = counts::<true>(&[true; 18], None);
    let expected: Vec<u64> = (1..=18).map(|n: u64| n.min(15)).collect();
    assert_eq!(seen, expected);
}

#[test]
fn only_event_cycles_count_and_reset_clears() {
    let events = [true, false, true, true, false, true, true];
    assert_eq!(counts::<false>(&events, None), vec![1, 1, 2, 3, 3, 4, 5]);
    assert_eq!(counts::<true>(&events, Some(3)), vec![1, 1, 2, 0, 0, 1, 2]);
}
