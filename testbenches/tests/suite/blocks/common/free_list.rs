//! Unit tests of the block in `hdl/common/free_list.rs`, on the natively stepped block.

use nanotransport_hdl::common::free_list::*;
use rust_hdl::prelude::*;

struct Bench {
    uut: FreeList<16, 4>,
}

impl Bench {
    fn new() -> Self {
        let mut uut = FreeList::<16, 4>::default();
        uut.connect_all();
        assert!(simulate(&mut uut, 100));
        Bench { uut }
    }
    /// Applies inputs, returns the offered ID (if any) before the edge, then clocks.
    fn cycle(&mut self, take: bool, free: Option<u64>, reset: bool) -> Option<u64> {
        let u = &mut self.uut;
        u.alloc_ready.next = take;
        u.free_valid.next = free.is_some();
        u.free_id.next = free.unwrap_or(0).into();
        u.reset.next = reset;
        assert!(simulate(u, 100));
        let offered = u.alloc_valid.val().then(|| u.alloc_id.val().to_u64());
        u.clock.next = Clock { clk: true };
        assert!(simulate(u, 100));
        u.clock.next = Clock { clk: false };
        assert!(simulate(u, 100));
        offered
    }
}

#[test]
fn allocates_every_id_once_then_reports_empty() {
    let mut b = Bench::new();
    assert!(b.uut.full.val());
    let mut seen = Vec::new();
    for _ in 0..16 {
        seen.push(b.cycle(true, None, false).expect("an ID is free"));
    }
    seen.sort();
    assert_eq!(seen, (0..16).collect::<Vec<_>>());
    assert_eq!(b.cycle(true, None, false), None);
    assert!(b.uut.empty.val());
    // One free makes exactly that ID available the next cycle.
    b.cycle(false, Some(9), false);
    assert_eq!(b.cycle(true, None, false), Some(9));
    assert!(b.uut.empty.val());
}

#[test]
fn double_free_is_counted_and_harmless() {
    let mut b = Bench::new();
    assert_eq!(b.cycle(true, None, false), Some(0));
    b.cycle(false, Some(3), false); // 3 was never allocated
    b.cycle(false, Some(0), false);
    b.cycle(false, Some(0), false); // second free of 0
    assert_eq!(b.uut.double_free_count.val().to_u64(), 2);
    assert!(b.uut.full.val());
    // Still hands out 16 distinct IDs.
    let mut seen: Vec<u64> = (0..16).map(|_| b.cycle(true, None, false).unwrap()).collect();
    seen.sort();
    seen.dedup();
    assert_eq!(seen.len(), 16);
}

#[test]
fn alloc_and_free_in_the_same_cycle() {
    let mut b = Bench::new();
    assert_eq!(b.cycle(true, None, false), Some(0));
    // Take ID 1 while returning ID 0.
    assert_eq!(b.cycle(true, Some(0), false), Some(1));
    assert_eq!(b.cycle(true, None, false), Some(0));
    assert_eq!(b.uut.double_free_count.val().to_u64(), 0);
}

#[test]
fn reset_mid_traffic_refills_in_one_cycle() {
    let mut b = Bench::new();
    for _ in 0..10 {
        b.cycle(true, None, false);
    }
    b.cycle(false, Some(5), false);
    b.cycle(false, Some(5), false);
    assert_eq!(b.uut.double_free_count.val().to_u64(), 1);
    b.cycle(true, Some(2), true);
    assert!(b.uut.full.val());
    assert_eq!(b.uut.double_free_count.val().to_u64(), 0);
    assert_eq!(b.cycle(true, None, false), Some(0));
}
