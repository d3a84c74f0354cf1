//! Register names, ranges and checks of `--set` (`sim/registers.rs`).

use nanotransport_hdl::clock::NicClock;
use nanotransport_hdl::nic::register_map::*;
use nanotransport_sim::registers::*;

const THESIS: NicClock = NicClock::THESIS;

/// An NDP preset's parameters at `clock`.
fn nic(clock: NicClock) -> nanotransport_hdl::configs::NicParams {
    nanotransport_hdl::configs::NicParams::preset_at("ndp-16", nanotransport_hdl::presets::Protocol::Ndp, 16, clock)
}

#[test]
fn names_and_ranges() {
    assert_eq!(parse_set("rtt_pkts=12", THESIS).unwrap(), vec![RegisterWrite { addr: 0x14, value: 12 }]);
    assert_eq!(parse_set("rto_cycles=0x4B00", THESIS).unwrap(), vec![RegisterWrite { addr: 0x18, value: 19_200 }]);
    assert_eq!(
        parse_set("peer_mac=02:00:00:00:00:0a", THESIS).unwrap(),
        vec![RegisterWrite { addr: 0x08, value: 0x0000_000a }, RegisterWrite { addr: 0x0C, value: 0x0200 }]
    );
    assert_eq!(parse_set("own_ip=10.0.0.7", THESIS).unwrap(), vec![RegisterWrite { addr: 0x10, value: 0x0A00_0007 }]);
    let e = parse_set("rtt_pkts=65", THESIS).unwrap_err();
    assert!(e.contains("0..=64") && !e.contains('\n'), "{e}");
    assert!(parse_set("rto_cycles=0", THESIS).unwrap_err().contains("1..=4294967295"));
    assert!(parse_set("nonsense=1", THESIS).unwrap_err().contains("unknown register"));
    assert!(parse_set("rtt_pkts", THESIS).unwrap_err().contains("NAME=VALUE"));
    assert!(parse_set("own_mac=02:00", THESIS).unwrap_err().contains("MAC address"));
    assert!(parse_set("rtt_pkts=twelve", THESIS).unwrap_err().contains("not a number"));
    let w = parse_sets(&["rtt_pkts=3".into(), "rtt_pkts=5".into()], &nic(THESIS)).unwrap();
    assert_eq!(value_written(&w, CFG_RTT_PKTS), Some(5));
}

/// The acknowledgement policy by name or number; 3 is undefined: refused with the valid range
/// (the hardware reads it as 0, `ack_policies_answer_new_duplicate_and_late_packets`).
#[test]
fn ack_policy_by_name_or_number() {
    for p in AckPolicy::ALL {
        let by_name = parse_set(&format!("ack_policy={}", p.name()), THESIS).unwrap();
        assert_eq!(by_name, vec![RegisterWrite { addr: 0x3C, value: p.value() }]);
        assert_eq!(parse_set(&format!("ack_policy={}", p.value()), THESIS).unwrap(), by_name);
        assert_eq!(AckPolicy::of_value(p.value()), p);
    }
    assert_eq!(AckPolicy::of_value(3), AckPolicy::Prototype);
    let e = parse_set("ack_policy=3", THESIS).unwrap_err();
    assert!(e.contains("0..=2") && e.contains("duplicate-acks") && !e.contains('\n'), "{e}");
    assert!(parse_set("ack_policy=silent", THESIS).unwrap_err().contains("not a number"));
}

#[test]
fn a_retransmission_horizon_beyond_the_delivered_set_is_refused() {
    // Defaults: 7 × 20 000 = 140 000 cycles, within 229 376.
    assert!(parse_sets(&["rto_cycles=32768".into()], &nic(THESIS)).is_ok());
    let e = parse_sets(&["rto_cycles=32769".into()], &nic(THESIS)).unwrap_err();
    assert!(e.contains("229376") && e.contains("rto_cycles ≤ 32768") && !e.contains('\n'), "{e}");
    let e = parse_sets(&["timeout_threshold=20".into()], &nic(THESIS)).unwrap_err();
    assert!(e.contains("440000"), "{e}");
    assert!(parse_sets(&["timeout_threshold=20".into(), "rto_cycles=10000".into()], &nic(THESIS)).is_ok());
}

#[test]
fn every_register_index_is_distinct_and_in_the_configuration_space() {
    let mut seen = std::collections::HashSet::new();
    for r in CONFIG_REGISTERS {
        assert!(seen.insert(r.index), "{} shares its index", r.name);
        assert!(r.index < 16 && r.min <= r.max, "{}", r.name);
    }
}

/// The time registers by nanoseconds, converted with the NIC's clock and rounded to the nearest
/// cycle; a time that rounds out of the register's range is refused with the range in ns.
#[test]
fn time_registers_take_nanoseconds_at_the_nics_clock() {
    let cmac = NicClock::CMAC_USER;
    assert_eq!(parse_set("rto_ns=6250", THESIS).unwrap(), parse_set("rto_cycles=20000", THESIS).unwrap());
    assert_eq!(parse_set("rto_ns=6250", cmac).unwrap(), vec![RegisterWrite { addr: 0x18, value: 2014 }]);
    assert_eq!(parse_set("gc_timeout_ns=62_500", cmac).unwrap(), vec![RegisterWrite { addr: 0x20, value: 20_142 }]);
    // One 1 088-byte packet at 100 Gb/s: 87.04 ns = 28.05 cycles at 322.265625 MHz.
    assert_eq!(parse_set("pace_ns=87.04", cmac).unwrap(), vec![RegisterWrite { addr: 0x24, value: 28 }]);
    assert_eq!(parse_set("pace_ns=0", cmac).unwrap(), vec![RegisterWrite { addr: 0x24, value: 0 }]);
    // A time that rounds to no cycle would turn pacing off: refused.
    let e = parse_set("pace_ns=1", cmac).unwrap_err();
    assert!(e.contains("rounds to 0 cycles") && !e.contains('\n'), "{e}");
    let e = parse_set("rto_ns=1", cmac).unwrap_err();
    assert!(e.contains("(0 cycles)") && e.contains("322.265625 MHz") && !e.contains('\n'), "{e}");
    let e = parse_set("pace_ns=300000", cmac).unwrap_err();
    assert!(e.contains("0..=65535 cycles"), "{e}");
    assert!(parse_set("pace_ns=-5", THESIS).unwrap_err().contains("out of range"));
    assert!(parse_set("gc_timeout_ns=soon", THESIS).unwrap_err().contains("not a number"));
    // The horizon is checked against the NIC's own defaults where a register is not written.
    let mut slow = nic(THESIS);
    slow.config_defaults[CFG_RTO_CYCLES] = 40_000;
    assert!(parse_sets(&["timeout_threshold=4".into()], &slow).unwrap_err().contains("240000"));
    // The horizon is in cycles: 6.25 µs × 20 timeouts is beyond it at 3.2 GHz, within it at 322 MHz.
    assert!(parse_sets(&["timeout_threshold=20".into()], &nic(THESIS)).is_err());
    assert!(parse_sets(&["timeout_threshold=20".into()], &nic(cmac)).is_ok());
}

/// The presets' time registers keep their time at any clock: at 3.2 GHz they are the thesis'
/// cycle counts, at the MAC's 322.265625 MHz the same microseconds; pacing (one packet at the
/// datapath's 8 bytes a cycle) stays 136 cycles.
#[test]
fn preset_time_defaults_follow_the_clock() {
    use nanotransport_hdl::presets::{Protocol, NDP_CONFIG_DEFAULTS};
    assert_eq!(
        (NDP_CONFIG_DEFAULTS[CFG_RTO_CYCLES], NDP_CONFIG_DEFAULTS[CFG_GC_TIMEOUT], NDP_CONFIG_DEFAULTS[CFG_PACE_CYCLES]),
        (20_000, 200_000, 136)
    );
    let d = Protocol::Ndp.config_defaults(NicClock::CMAC_USER);
    assert_eq!((d[CFG_RTO_CYCLES], d[CFG_GC_TIMEOUT], d[CFG_PACE_CYCLES]), (2_014, 20_142, 136));
    let h = Protocol::HomaTr.config_defaults(NicClock::CMAC_USER);
    assert_eq!((h[CFG_RTO_CYCLES], h[CFG_PACE_CYCLES]), (2_014, 0));
    for clock in [THESIS, NicClock::CMAC_USER, NicClock::from_mhz(250.0).unwrap()] {
        let d = Protocol::Ndp.config_defaults(clock);
        assert!((clock.ns_of_cycles(d[CFG_RTO_CYCLES] as u64) - 6_250.0).abs() <= clock.ns_of_cycles(1) / 2.0, "{clock}");
    }
}

/// A clock is a whole number of hertz in 1 MHz ..= 4 GHz; anything else is one line naming the range.
#[test]
fn clocks_outside_the_range_or_not_whole_hertz_are_refused() {
    assert_eq!(NicClock::from_mhz(322.265625).unwrap(), NicClock::CMAC_USER);
    assert_eq!(NicClock::from_mhz(3200.0).unwrap(), THESIS);
    for bad in [0.0, 0.5, 4000.5, -3.0, f64::NAN, f64::INFINITY, 1e30] {
        let e = NicClock::from_mhz(bad).unwrap_err();
        assert!(!e.contains('\n') && e.contains("1..=4000 MHz"), "{bad}: {e}");
    }
    assert!(NicClock::from_mhz(100.0000001).unwrap_err().contains("whole number of hertz"));
    assert_eq!((NicClock::THESIS.whole_ns_cycles(), NicClock::CMAC_USER.whole_ns_cycles()), (16, 165));
    assert_eq!(NicClock::CMAC_USER.cycles_from(20_000, THESIS), 2_014);
    assert_eq!(THESIS.cycles_from(u32::MAX, NicClock::CMAC_USER), u32::MAX, "saturates");
    assert_eq!(THESIS.cycles_of_ns(f64::INFINITY), 0);
}
