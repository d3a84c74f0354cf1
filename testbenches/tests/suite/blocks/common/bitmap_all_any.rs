//! Unit tests of the block in `hdl/common/bitmap_all_any.rs`, on the natively stepped block.

use nanotransport_hdl::common::bitmap_all_any::*;
use rust_hdl::prelude::*;

#[test]
fn reductions() {
    let mut uut = BitmapAllAny::<64>::default();
    uut.connect_all();
    for (value, all, any) in [(0u64, false, false), (1, false, true), (u64::MAX, true, true), (u64::MAX >> 1, false, true)] {
        uut.bitmap.next = value.into();
        assert!(simulate(&mut uut, 100));
        assert_eq!((uut.all.val(), uut.any.val()), (all, any), "bitmap {value:#x}");
    }
}
