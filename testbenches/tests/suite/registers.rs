//! Register names, ranges and checks of `--set` (`sim/registers.rs`).

use nanotransport_hdl::nic::register_map::*;
use nanotransport_sim::registers::*;

#[test]
fn names_and_ranges() {
    assert_eq!(parse_set("rtt_pkts=12").unwrap(), vec![RegisterWrite { addr: 0x14, value: 12 }]);
    assert_eq!(parse_set("rto_cycles=0x4B00").unwrap(), vec![RegisterWrite { addr: 0x18, value: 19_200 }]);
    assert_eq!(
        parse_set("peer_mac=02:00:00:00:00:0a").unwrap(),
        vec![RegisterWrite { addr: 0x08, value: 0x0000_000a }, RegisterWrite { addr: 0x0C, value: 0x0200 }]
    );
    assert_eq!(parse_set("own_ip=10.0.0.7").unwrap(), vec![RegisterWrite { addr: 0x10, value: 0x0A00_0007 }]);
    let e = parse_set("rtt_pkts=65").unwrap_err();
    assert!(e.contains("0..=64") && !e.contains('\n'), "{e}");
    assert!(parse_set("rto_cycles=0").unwrap_err().contains("1..=4294967295"));
    assert!(parse_set("nonsense=1").unwrap_err().contains("unknown register"));
    assert!(parse_set("rtt_pkts").unwrap_err().contains("NAME=VALUE"));
    assert!(parse_set("own_mac=02:00").unwrap_err().contains("MAC address"));
    assert!(parse_set("rtt_pkts=twelve").unwrap_err().contains("not a number"));
    let w = parse_sets(&["rtt_pkts=3".into(), "rtt_pkts=5".into()]).unwrap();
    assert_eq!(value_written(&w, CFG_RTT_PKTS), Some(5));
}

/// The acknowledgement policy by name or number; 3 is undefined: refused with the valid range
/// (the hardware reads it as 0, `ack_policies_answer_new_duplicate_and_late_packets`).
#[test]
fn ack_policy_by_name_or_number() {
    for p in AckPolicy::ALL {
        let by_name = parse_set(&format!("ack_policy={}", p.name())).unwrap();
        assert_eq!(by_name, vec![RegisterWrite { addr: 0x3C, value: p.value() }]);
        assert_eq!(parse_set(&format!("ack_policy={}", p.value())).unwrap(), by_name);
        assert_eq!(AckPolicy::of_value(p.value()), p);
    }
    assert_eq!(AckPolicy::of_value(3), AckPolicy::Prototype);
    let e = parse_set("ack_policy=3").unwrap_err();
    assert!(e.contains("0..=2") && e.contains("duplicate-acks") && !e.contains('\n'), "{e}");
    assert!(parse_set("ack_policy=silent").unwrap_err().contains("not a number"));
}

#[test]
fn a_retransmission_horizon_beyond_the_delivered_set_is_refused() {
    // Defaults: 7 × 20 000 = 140 000 cycles, within 229 376.
    assert!(parse_sets(&["rto_cycles=32768".into()]).is_ok());
    let e = parse_sets(&["rto_cycles=32769".into()]).unwrap_err();
    assert!(e.contains("229376") && e.contains("rto_cycles ≤ 32768") && !e.contains('\n'), "{e}");
    let e = parse_sets(&["timeout_threshold=20".into()]).unwrap_err();
    assert!(e.contains("440000"), "{e}");
    assert!(parse_sets(&["timeout_threshold=20".into(), "rto_cycles=10000".into()]).is_ok());
}

#[test]
fn every_register_index_is_distinct_and_in_the_configuration_space() {
    let mut seen = std::collections::HashSet::new();
    for r in CONFIG_REGISTERS {
        assert!(seen.insert(r.index), "{} shares its index", r.name);
        assert!(r.index < 16 && r.min <= r.max, "{}", r.name);
    }
}
