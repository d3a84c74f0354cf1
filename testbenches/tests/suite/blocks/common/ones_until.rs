//! Unit tests of the block in `hdl/common/ones_until.rs`, on the natively stepped block.

use nanotransport_hdl::common::ones_until::*;
use rust_hdl::prelude::*;

#[test]
fn exclusive_mask_for_every_k() {
    let mut uut = OnesUntil::<64, 7>::default();
    uut.connect_all();
    for k in 0..128u64 {
        uut.k.next = k.into();
        assert!(simulate(&mut uut, 100));
        let expected = ones_until_reference(k as usize, 64) as u64;
        assert_eq!(uut.mask.val().to_u64(), expected, "k = {k}");
    }
}
