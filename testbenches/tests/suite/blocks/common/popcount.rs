//! Unit tests of the block in `hdl/common/popcount.rs`, on the natively stepped block.

use nanotransport_hdl::common::popcount::*;
use rust_hdl::prelude::*;

#[test]
fn counts_match_count_ones() {
    let mut uut = Popcount::<64, 7>::default();
    uut.connect_all();
    let mut value = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..500 {
        value = value.rotate_left(7).wrapping_mul(0x2545_f491_4f6c_dd1d) ^ (value >> 3);
        for probe in [value, 0, u64::MAX, value & (value >> 1)] {
            uut.bitmap.next = probe.into();
            assert!(simulate(&mut uut, 100));
            assert_eq!(uut.count.val().to_u64(), probe.count_ones() as u64, "bitmap {probe:#x}");
        }
    }
}
