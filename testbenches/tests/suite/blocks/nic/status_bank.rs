//! Unit tests of the block in `hdl/nic/status_bank.rs`, on the natively stepped block.

use nanotransport_hdl::nic::status_bank::*;
use rust_hdl::prelude::*;

#[test]
fn map_is_ordered_unique_and_fits() {
    for w in STATUS_MAP.windows(2) {
        assert!(w[0].0 < w[1].0, "{} and {} out of order", w[0].1, w[1].1);
    }
    assert!(STATUS_MAP.last().unwrap().0 < STATUS_WINDOW);
    let mut names: Vec<&str> = STATUS_MAP.iter().map(|r| r.1).collect();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), STATUS_MAP.len());
    assert!(STATUS_MAP.iter().all(|r| r.2 >= 1 && r.2 <= 32));
}

#[test]
fn reads_each_register_and_zero_elsewhere() {
    let mut bank = StatusBank::default();
    bank.connect_all();
    // Set registers read their value; unset and unmapped indices read 0.
    bank.frame_count.next = 17.into();
    bank.rx_busy_any.next = true.into();
    bank.sched_levels.next = 0x1234.into();
    let probe = |bank: &mut StatusBank, index: u64| {
        bank.index.next = index.into();
        assert!(simulate(bank, 100));
        bank.value.val().to_u64()
    };
    assert_eq!(probe(&mut bank, 16), 17);
    assert_eq!(probe(&mut bank, 66), 1);
    assert_eq!(probe(&mut bank, 40), 0x1234);
    assert_eq!(probe(&mut bank, 17), 0);
    assert_eq!(probe(&mut bank, 200), 0);
}
