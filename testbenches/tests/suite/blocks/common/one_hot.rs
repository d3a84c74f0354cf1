//! Unit tests of the block in `hdl/common/one_hot.rs`, on the natively stepped block.

use nanotransport_hdl::common::one_hot::*;
use rust_hdl::prelude::*;

fn decode<const N: usize, const IW: usize>(index: u64, enable: bool) -> Bits<N> {
    let mut uut = OneHot::<N, IW>::default();
    uut.connect_all();
    uut.index.next = index.into();
    uut.enable.next = enable;
    assert!(simulate(&mut uut, 10));
    uut.onehot.val()
}

#[test]
fn every_index_sets_exactly_its_bit() {
    for i in 0..16u64 {
        assert_eq!(decode::<16, 4>(i, true), Bits::<16>::from(1u64 << i));
        assert_eq!(decode::<16, 4>(i, false), Bits::<16>::default());
    }
    for i in 0..128usize {
        let v = decode::<128, 7>(i as u64, true);
        for b in 0..128 {
            assert_eq!(v.get_bit(b), b == i, "index {i}, bit {b}");
        }
        assert!(!decode::<128, 7>(i as u64, false).any());
    }
}

#[test]
fn verilog_has_no_shift_wider_than_64_bits() {
    assert!(one_hot_verilog(16, 4).contains("16'd1 << index"));
    let wide = one_hot_verilog(1024, 10);
    assert!(wide.contains("64'd1 << index[5:0]"));
    assert!(wide.contains("word < 16"));
    assert!(wide.contains("index[9:6] == word[3:0]"));
}
