//! Unit tests of the block in `hdl/common/stream_fifo.rs`, on the natively stepped block.

use nanotransport_hdl::common::stream_fifo::*;
use rust_hdl::prelude::*;

#[test]
fn fall_through_order_and_two_cycle_latency() {
    let mut f = StreamFifo::<Bits<8>, 2>::default();
    f.connect_all();
    let cycle = |f: &mut StreamFifo<Bits<8>, 2>, push: Option<u64>, pop: bool| -> Option<u64> {
        f.reset.next = false;
        f.push.next = push.is_some();
        f.push_data.next = push.unwrap_or(0).into();
        f.pop.next = pop;
        assert!(simulate(f, 100));
        let head = f.head_valid.val().then(|| f.head_data.val().to_u64());
        f.clock.next = Clock { clk: true };
        assert!(simulate(f, 100));
        f.clock.next = Clock { clk: false };
        assert!(simulate(f, 100));
        head
    };
    f.reset.next = true;
    f.clock.next = Clock { clk: true };
    assert!(simulate(&mut f, 100));
    f.clock.next = Clock { clk: false };
    assert!(simulate(&mut f, 100));
    assert_eq!(cycle(&mut f, Some(1), true), None);
    assert_eq!(cycle(&mut f, Some(2), true), None);
    // Pushed two cycles ago: at the head now, popped; one per cycle from here.
    assert_eq!(cycle(&mut f, Some(3), true), Some(1));
    assert_eq!(cycle(&mut f, Some(4), true), Some(2));
    assert_eq!(cycle(&mut f, Some(5), false), Some(3));
    assert_eq!(cycle(&mut f, Some(6), false), Some(3));
    assert_eq!(cycle(&mut f, Some(7), false), Some(3), "full: the push of 7 is ignored");
    assert_eq!(f.level.val().to_u64(), 4);
    let drained: Vec<_> = (0..6).map(|_| cycle(&mut f, None, true)).collect();
    assert_eq!(drained, vec![Some(3), Some(4), Some(5), Some(6), None, None]);
}
