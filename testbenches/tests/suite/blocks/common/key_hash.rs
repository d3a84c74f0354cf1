//! Unit tests of the block in `hdl/common/key_hash.rs`, on the natively stepped block.

use nanotransport_hdl::common::key_hash::*;
use rust_hdl::prelude::*;

fn hashes<const B: usize>(key: u64) -> (u64, u64) {
    let mut u = KeyHash::<B>::default();
    u.connect_all();
    u.key.next = key.to_bits();
    assert!(simulate(&mut u, 100));
    (u.h0.val().to_u64(), u.h1.val().to_u64())
}

#[test]
fn hardware_matches_the_functions() {
    for key in [0u64, 1, 0x1234_5678_9abc_def0, u64::MAX, 0x0a00_0001_1f90_0007] {
        assert_eq!(hashes::<4>(key), (hash0(key, 4), hash1(key, 4)), "{key:#x}");
        assert_eq!(hashes::<6>(key), (hash0(key, 6), hash1(key, 6)), "{key:#x}");
        assert_eq!(hashes::<12>(key), (hash0(key, 12), hash1(key, 12)), "{key:#x}");
    }
}

#[test]
fn masks_are_distinct_and_dense() {
    let masks: Vec<u64> = (0..2).flat_map(|w| (0..MAX_HASH_BITS).map(move |j| hash_mask(w, j))).collect();
    let distinct: std::collections::HashSet<_> = masks.iter().collect();
    assert_eq!(distinct.len(), masks.len());
    assert!(masks.iter().all(|m| (20..=44).contains(&m.count_ones())), "{masks:x?}");
}

/// Keys whose port and tx_msg_id rise together (the pattern that defeated the XOR fold)
/// spread over the buckets: no bucket of a 2^12 way gets more than 3x its share.
#[test]
fn structured_keys_spread_evenly() {
    let mut count = vec![0u32; 1 << 12];
    for i in 0..32_768u64 {
        let key = (i << 48) | ((7000 + i % 64) << 32) | 0x0a00_0002;
        count[hash0(key, 12) as usize] += 1;
    }
    let max = *count.iter().max().unwrap();
    assert!(max <= 24, "fullest bucket {max} (mean 8)");
}
