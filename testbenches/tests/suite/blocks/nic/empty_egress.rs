//! Unit tests of the block in `hdl/nic/empty_egress.rs`, on the natively stepped block.

use nanotransport_hdl::nic::empty_egress::*;
use rust_hdl::prelude::*;

#[test]
fn passes_packets_and_backpressure_through() {
    let mut stage = EmptyEgress::<16, 4>::default();
    stage.connect_all();
    stage.s_axis_pkt.tdata.next = 0x1234_5678_9abc_def0u64.into();
    stage.s_axis_pkt.tvalid.next = true;
    stage.s_axis_pkt.rank.next = 5.into();
    stage.m_axis_pkt.tready.next = false;
    assert!(simulate(&mut stage, 100));
    assert_eq!(stage.m_axis_pkt.tdata.val().to_u64(), 0x1234_5678_9abc_def0);
    assert!(stage.m_axis_pkt.tvalid.val());
    assert_eq!(stage.m_axis_pkt.rank.val().to_u64(), 5);
    assert!(!stage.s_axis_pkt.tready.val());
    stage.m_axis_pkt.tready.next = true;
    assert!(simulate(&mut stage, 100));
    assert!(stage.s_axis_pkt.tready.val());
}
