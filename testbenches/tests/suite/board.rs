//! The VCU118 board constraints (`constraints/vcu118.xdc`), checked without Vivado: the board
//! top's ports each on one pin, I/O standards where they belong, clocks only on the board clock
//! and the transceiver reference clock, every slow asynchronous port cut from timing.

use nanotransport_flow::xdc::{parse, PortClock};
use nanotransport_testbenches::repo_root;

fn vcu118() -> String {
    std::fs::read_to_string(repo_root().join("constraints/vcu118.xdc")).unwrap()
}

#[test]
fn vcu118_constraints_pass_the_board_checks() {
    let c = parse(&vcu118()).unwrap();
    c.check_board().unwrap();
    let mut ports: Vec<&str> = c.ports.iter().map(|p| p.port.as_str()).collect();
    ports.sort();
    let mut expected: Vec<String> = ["clk_125mhz_p", "clk_125mhz_n", "reset", "qsfp1_mgt_refclk_0_p", "qsfp1_mgt_refclk_0_n"]
        .iter()
        .chain(&["qsfp1_modsell", "qsfp1_resetl", "qsfp1_lpmode", "qsfp1_modprsl", "qsfp1_intl"])
        .map(|s| s.to_string())
        .chain((0..4).flat_map(|k| ["rx_p", "rx_n", "tx_p", "tx_n"].map(|s| format!("qsfp1_{s}[{k}]"))))
        .chain((0..8).map(|k| format!("led[{k}]")))
        .collect();
    expected.sort();
    assert_eq!(ports, expected);
    assert_eq!(
        c.clocks,
        vec![
            PortClock { name: "clk_125mhz".into(), period_ns: 8.0, port: "clk_125mhz_p".into() },
            PortClock { name: "qsfp1_mgt_refclk_0".into(), period_ns: 6.4, port: "qsfp1_mgt_refclk_0_p".into() },
        ]
    );
}

#[test]
fn the_board_checks_find_a_wrong_file() {
    let good = vcu118();
    let cases = [
        // A pin given twice.
        (good.replace("PACKAGE_PIN AV34", "PACKAGE_PIN AT32"), "pin AT32 given to"),
        // An LED without an I/O standard.
        (good.replace("PACKAGE_PIN BA37 IOSTANDARD LVCMOS12", "PACKAGE_PIN BA37"), "led[7]: no IOSTANDARD"),
        // A transceiver pin with one.
        (
            good.replace("set_property PACKAGE_PIN Y2 ", "set_property -dict {PACKAGE_PIN Y2 IOSTANDARD LVDS} "),
            "a transceiver pin with IOSTANDARD",
        ),
        // The button no longer cut from timing.
        (good.replace("set_false_path -from [get_ports reset]\n", ""), "reset: an asynchronous port without set_false_path"),
        // A constraint on a port that has no pin.
        (
            good.replace("set_output_delay 0 [get_ports {led[*]}]", "set_output_delay 0 [get_ports {leds[*]}]"),
            "leds[*]: named in a constraint but has no pin",
        ),
    ];
    for (text, finding) in cases {
        let err = parse(&text).unwrap().check_board().unwrap_err();
        assert!(err.contains(finding), "expected '{finding}' in:\n{err}");
    }
    // A command the checks do not know is refused, not skipped.
    let err = parse(&format!("{good}\nset_max_delay 2 -from [get_ports reset]\n")).unwrap_err();
    assert!(err.contains("set_max_delay is not one the checks know"), "{err}");
}
