//! Unit tests of the block in `hdl/common/find_first_set.rs`, on the natively stepped block.

use nanotransport_hdl::common::find_first_set::*;
use rust_hdl::prelude::*;

fn eval(uut: &mut FindFirstSet<64, 6>, value: u64) -> (bool, u64) {
    uut.bitmap.next = value.into();
    assert!(simulate(uut, 100));
    (uut.found.val(), uut.index.val().to_u64())
}

#[test]
fn smallest_set_index_for_every_single_bit_and_pairs() {
    let mut uut = FindFirstSet::<64, 6>::default();
    uut.connect_all();
    assert_eq!(eval(&mut uut, 0), (false, 0));
    for i in 0..64 {
        assert_eq!(eval(&mut uut, 1 << i), (true, i as u64));
        assert_eq!(eval(&mut uut, (1u64 << 63) | (1 << i)), (true, i as u64));
        assert_eq!(eval(&mut uut, u64::MAX << i), (true, i as u64));
    }
}
