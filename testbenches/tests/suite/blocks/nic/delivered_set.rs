//! Unit tests of the block in `hdl/nic/delivered_set.rs`, on the natively stepped block.

use nanotransport_hdl::common::key_hash::{hash0, hash1};
use nanotransport_hdl::nic::delivered_set::*;
use rust_hdl::prelude::*;
use std::collections::HashMap;

const SB: usize = 3;
const E: u64 = 4;
const H: u64 = EPOCHS_PER_HORIZON * E;

/// A small set on the native simulator, counting cycles from the end of reset.
struct Bench {
    u: DeliveredSet<SB>,
    cycle: u64,
}

impl Bench {
    fn new() -> Self {
        let mut u = DeliveredSet::<SB>::new(H);
        u.connect_all();
        let mut b = Bench { u, cycle: 0 };
        b.u.reset.next = true;
        b.clock();
        b.u.reset.next = false;
        b.cycle = 0;
        b
    }

    fn settle(&mut self) {
        assert!(simulate(&mut self.u, 5000));
    }

    fn clock(&mut self) {
        self.settle();
        self.u.clock.next = Clock { clk: true };
        self.settle();
        self.u.clock.next = Clock { clk: false };
        self.settle();
        self.cycle += 1;
    }

    fn wait_ready(&mut self) -> u64 {
        let mut waited = 0;
        loop {
            self.settle();
            if self.u.ready.val() {
                return waited;
            }
            self.clock();
            waited += 1;
            assert!(waited < 100_000, "the set never became ready");
        }
    }

    /// One operation at the next ready cycle; the lookup's answer.
    fn op(&mut self, key: u64, insert: bool) -> bool {
        self.wait_ready();
        self.u.lookup_valid.next = !insert;
        self.u.insert_valid.next = insert;
        self.u.lookup_key.next = key.to_bits();
        self.u.insert_key.next = key.to_bits();
        self.clock();
        self.u.lookup_valid.next = false;
        self.u.insert_valid.next = false;
        self.settle();
        let found = self.u.found.val();
        found
    }

    fn idle(&mut self, cycles: u64) {
        for _ in 0..cycles {
            self.clock();
        }
    }
}

/// Keys whose candidate buckets are the same in both ways as those of `0`.
fn colliding_keys(count: usize) -> Vec<u64> {
    let target = (hash0(0, SB), hash1(0, SB));
    (0u64..).filter(|k| (hash0(*k, SB), hash1(*k, SB)) == target).take(count).collect()
}

#[test]
fn init_sweeps_every_bucket() {
    let mut b = Bench::new();
    assert_eq!(b.wait_ready(), 1 << SB);
}

#[test]
fn a_key_is_found_for_at_least_the_horizon_and_less_than_17_epochs() {
    let mut b = Bench::new();
    b.wait_ready();
    assert!(!b.op(42, false), "empty set");
    b.op(42, true);
    let inserted = b.cycle; // the insert's decision (write) cycle is the one just ended
    let mut last_found = 0;
    while b.cycle < inserted + 2 * H {
        if b.op(42, false) {
            last_found = b.cycle;
        }
    }
    let lifetime = last_found - inserted;
    println!("delivered set (E = {E}, H = {H}): key found for {lifetime} cycles after its insert");
    assert!(lifetime >= H && lifetime < H + E + 2, "lifetime {lifetime}, horizon {H}");
    assert!(!b.op(43, false), "another key");
}

#[test]
fn a_full_bucket_pair_makes_the_insert_wait_until_an_entry_dies() {
    let keys = colliding_keys(17);
    let mut b = Bench::new();
    b.wait_ready();
    for k in &keys[..16] {
        b.op(*k, true);
    }
    assert_eq!(b.u.full_wait_count.val().to_u64(), 0, "16 positions in two buckets");
    let start = b.cycle;
    b.op(keys[16], true);
    let waited = b.wait_ready();
    assert_eq!(b.u.full_wait_count.val().to_u64(), 1, "the 17th waited, counted once");
    println!("delivered set: the 17th colliding key waited {waited} cycles (horizon {H})");
    assert!(b.cycle - start >= H - 16 * 3, "it waits until the oldest entry dies");
    assert!(b.op(keys[16], false), "the waiting key went in");
}

#[test]
fn random_inserts_and_lookups_match_a_reference_over_many_epoch_wraps() {
    let seed = 0x5E7_0001u64;
    println!("delivered set random test, seed {seed:#x}");
    let mut rng = seed;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let mut b = Bench::new();
    b.wait_ready();
    // key -> cycle of its insert decision (reference: found iff the entry's epoch is at most
    // 16 behind the lookup's answer cycle).
    let mut inserted: HashMap<u64, u64> = HashMap::new();
    // The epoch counter runs from the end of reset, through the init sweep.
    let epoch = |c: u64| c / E;
    let mut lookups = 0;
    let mut hits = 0;
    while b.cycle < 40 * 32 * E {
        let key = next() % 40;
        let alive = |c: u64, ins: &HashMap<u64, u64>| ins.get(&key).is_some_and(|d| epoch(c) - epoch(*d) <= 16);
        if next() % 3 == 0 {
            b.wait_ready();
            if !alive(b.cycle + 1, &inserted) {
                b.op(key, true);
                inserted.insert(key, b.cycle);
            }
        } else {
            b.wait_ready();
            let found = b.op(key, false);
            assert_eq!(found, alive(b.cycle, &inserted), "cycle {}: key {key}", b.cycle);
            lookups += 1;
            hits += found as u64;
        }
        b.idle(next() % 5);
    }
    assert_eq!(b.u.full_wait_count.val().to_u64(), 0, "40 keys fit");
    assert!(hits > 100 && hits < lookups - 100, "both outcomes exercised: {hits} of {lookups}");
    // (Without the scrubber an entry would look alive again 32 epochs after its insert, and
    // lookups after the first wrap would disagree with the reference.)
}

#[test]
fn parameters_are_checked() {
    assert!(delivered_set_parameter_error(12, DEFAULT_HORIZON_CYCLES).is_ok());
    assert!(delivered_set_parameter_error(12, 1000).unwrap_err().contains("multiple of 16"));
    assert!(delivered_set_parameter_error(12, 1024).unwrap_err().contains("too short"));
    assert!(delivered_set_parameter_error(2, 1024).unwrap_err().contains("bucket bits"));
    assert_eq!(max_alive_keys(DEFAULT_HORIZON_CYCLES), 30948);
    assert_eq!(set_entries(DELIVERED_SET_BUCKET_BITS), 65536);
    for sb in 3..=16 {
        assert!(delivered_set_parameter_error(sb, shortest_horizon(sb)).is_ok(), "{sb}");
        assert!(delivered_set_parameter_error(sb, shortest_horizon(sb) - 16).is_err(), "{sb}");
    }
}
