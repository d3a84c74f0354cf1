//! Unit tests of the block in `hdl/switch/supply_unit.rs`, on the natively stepped block.

use nanotransport_hdl::switch::supply_unit::*;
use rust_hdl::prelude::*;

#[test]
fn supply_rounds_down_to_whole_bytes() {
    // 100 Gb/s = 12.5 B/ns = 3200 / 256.
    assert_eq!(supply_bytes(1, 3200), 12);
    assert_eq!(supply_bytes(87, 3200), 1087);
    assert_eq!(supply_bytes(65_535, 3200), 819_187);
    let hex = supply_table_hex(3200);
    assert_eq!(hex.lines().count(), 65_536);
    assert_eq!(hex.lines().nth(87), Some("00043f"));
}

#[test]
fn both_modes_register_the_same_supply() {
    for mode in [SupplyMode::Multiply, SupplyMode::LookupTable { rate_q8: 3200, file: "t.hex".into() }] {
        let mut u = SupplyUnit::new(mode);
        u.connect_all();
        for ia in [0u64, 1, 87, 4000, 65_535] {
            u.inter_arrival.next = ia.into();
            u.rate_q8.next = 3200u64.into();
            u.clock.next = Clock { clk: false };
            assert!(simulate(&mut u, 100));
            u.clock.next = Clock { clk: true };
            assert!(simulate(&mut u, 100));
            assert_eq!(u.supply.val().to_u64(), (ia * 3200) >> 8);
        }
    }
}
