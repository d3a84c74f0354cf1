//! `fpga board`: the VCU118 folder and the checks that need no Vivado (the folder's own check,
//! the Tcl dry run, Verilator lint and Yosys synthesis of the board top with stand-ins for the
//! vendor cores), and one-line errors for bad input. The board NIC inside it runs end to end in
//! `testbenches/tests/suite/board.rs`.

use super::synth::dry_run;
use super::{assert_one_line_error, nanotransport};
use nanotransport_flow::board::check_folder;
use std::path::Path;
use std::process::Command;

const CORE: &str = "nt_ndp_16_board_nic";

fn repo(rel: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel).to_string_lossy().into_owned()
}

#[test]
fn fpga_board_writes_a_vcu118_folder_that_passes_every_check_without_vivado() {
    let tmp = super::temp_dir();
    let out = tmp.path().join("vcu118");
    let o = nanotransport(&["fpga", "board", "--board", "vcu118", "--config", "ndp-16", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for f in ["build.tcl", "settings.tcl", "README.md", "verilog/vcu118_top.v", &format!("verilog/{CORE}.v")] {
        assert!(out.join(f).is_file(), "{f}");
    }
    for f in ["constraints/vcu118.xdc", "ip/cmac_usplus_0.tcl", "ip/jtag_axi_0.tcl"] {
        assert!(out.join(f).is_file(), "{f}");
    }
    check_folder(&out).unwrap();
    let readme = std::fs::read_to_string(out.join("README.md")).unwrap();
    assert!(readme.contains("vivado -mode batch -source build.tcl") && readme.contains("has not been run"), "{readme}");
    // The preset's time registers keep their time at the MAC's clock: 6.25 µs and 62.5 µs.
    assert!(readme.contains("retransmission timeout 2014 cycles") && readme.contains("garbage collection 20142 cycles"), "{readme}");
    let core = std::fs::read_to_string(out.join(format!("verilog/{CORE}.v"))).unwrap();
    assert!(core.contains("00004eae00000005000007de"), "the register file's reset values are at 322.265625 MHz");

    // The build script under tclsh, with stand-ins for Vivado's commands.
    let o = dry_run(&out.join("build.tcl"));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{text}{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        text.contains("dry run ok: top vcu118_top, part xcvu9p-flga2104-2L-e, 2 Verilog file(s), 1 XDC file(s), 2 vendor core(s)"),
        "{text}"
    );
    assert!(text.contains("steps: synth_design opt_design place_design route_design write_bitstream"), "{text}");
    assert!(text.contains("vcu118_top.bit"), "{text}");

    // Verilator lint of the top with its core and stand-ins for the vendor cores and primitives.
    let v = |f: &str| out.join("verilog").join(f).to_string_lossy().into_owned();
    let o = Command::new("verilator")
        .args(["--lint-only", "-Wall", "--top-module", "vcu118_top"])
        .args([repo("fpga/verilator_waivers.vlt"), v("vcu118_top.v"), v(&format!("{CORE}.v"))])
        .args([repo("fpga/vcu118/vendor_stubs.v"), repo("fpga/vcu118/primitive_stubs.v")])
        .output()
        .expect("verilator on PATH");
    assert!(o.status.success() && o.stderr.is_empty(), "{}", String::from_utf8_lossy(&o.stderr));

    // Yosys synthesises the top, the core and the vendor cores as black boxes (the core itself
    // is synthesised by `nanotransport synth`; minutes).
    let stat = tmp.path().join("stat.txt");
    let script = format!(
        "read_verilog -lib {stubs}; read_verilog -lib {core}; read_verilog {top}; synth_xilinx -family xcup -top vcu118_top; check -assert; tee -q -o {stat} stat",
        stat = stat.display(),
        stubs = repo("fpga/vcu118/vendor_stubs.v"),
        core = v(&format!("{CORE}.v")),
        top = v("vcu118_top.v"),
    );
    let o = Command::new("yosys").args(["-q", "-p", &script]).output().expect("yosys on PATH");
    assert!(o.status.success(), "{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&stat).unwrap();
    for cell in ["cmac_usplus_0", "jtag_axi_0", CORE, "IBUFDS"] {
        assert!(text.lines().any(|l| l.split_whitespace().next() == Some(cell)), "no {cell} cell in:\n{text}");
    }
}

#[test]
fn fpga_board_takes_a_parameter_set() {
    let tmp = super::temp_dir();
    let out = tmp.path().join("vcu118-set");
    let o = nanotransport(&[
        "fpga",
        "board",
        "--board",
        "vcu118",
        "--protocol",
        "homa-tr",
        "--messages",
        "32",
        "--name",
        "homa-tr-32-board",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    check_folder(&out).unwrap();
    let top = std::fs::read_to_string(out.join("verilog/vcu118_top.v")).unwrap();
    assert!(top.contains("    nt_homa_tr_32_board_board_nic core ("), "the top instantiates the set's board NIC");
    assert!(out.join("verilog/nt_homa_tr_32_board_board_nic.v").is_file());
}

#[test]
fn the_folder_check_finds_a_broken_folder() {
    let tmp = super::temp_dir();
    let out = tmp.path().join("vcu118");
    let o = nanotransport(&["fpga", "board", "--board", "vcu118", "--config", "ndp-16", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let xdc_path = out.join("constraints/vcu118.xdc");
    let top_path = out.join("verilog/vcu118_top.v");
    let (xdc, top) = (std::fs::read_to_string(&xdc_path).unwrap(), std::fs::read_to_string(&top_path).unwrap());
    let cases = [
        // An LED without a pin.
        (
            xdc.replace("set_property -dict {PACKAGE_PIN BA37 IOSTANDARD LVCMOS12 SLEW SLOW DRIVE 8} [get_ports {led[7]}]\n", ""),
            top.clone(),
            "port led[7] has no pin",
        ),
        // A top port the constraints do not know.
        (
            xdc.clone(),
            top.replace("    output wire [7:0] led\n", "    output wire [7:0] led,\n    output wire       fan\n"),
            "port fan has no pin",
        ),
        // The MAC core made by the Tcl but not instantiated.
        (
            xdc.clone(),
            top.replace("    cmac_usplus_0 qsfp1_cmac (", "    cmac_usplus_1 qsfp1_cmac ("),
            "does not instantiate cmac_usplus_0",
        ),
    ];
    for (x, t, finding) in cases {
        std::fs::write(&xdc_path, &x).unwrap();
        std::fs::write(&top_path, &t).unwrap();
        let err = check_folder(&out).unwrap_err();
        assert!(err.contains(finding), "expected '{finding}' in:\n{err}");
    }
    std::fs::write(&xdc_path, &xdc).unwrap();
    std::fs::write(&top_path, &top).unwrap();
    std::fs::remove_file(out.join("ip/jtag_axi_0.tcl")).unwrap();
    assert!(check_folder(&out).unwrap_err().contains("ip/jtag_axi_0.tcl: read by the build, missing"));
}

#[test]
fn fpga_board_bad_input_is_a_one_line_error_listing_the_choices_and_writes_nothing() {
    let tmp = super::temp_dir();
    let out = tmp.path().join("board-bad");
    let o = out.to_str().unwrap();
    let cases: [(Vec<&str>, Vec<&str>); 8] = [
        (vec!["--board", "zcu102", "--config", "ndp-16"], vec!["zcu102", "vcu118"]),
        (vec!["--board", "vcu118", "--config", "blocks-16"], vec!["blocks-16", "ndp-16", "homa-128"]),
        (vec!["--board", "vcu118", "--config", "ndp-9"], vec!["ndp-9", "ndp-16", "homa-128"]),
        (vec!["--board", "vcu118"], vec!["--config", "--params"]),
        (vec!["--board", "vcu118", "--config", "ndp-16", "--protocol", "ndp", "--messages", "16"], vec!["not both"]),
        (vec!["--board", "vcu118", "--protocol", "ndp", "--messages", "24"], vec!["24", "16", "1024"]),
        // A clock the board's MAC does not make, and one no NIC runs at.
        (vec!["--board", "vcu118", "--protocol", "ndp", "--messages", "16", "--clock-mhz", "250"], vec!["250 MHz", "322.265625"]),
        (vec!["--board", "vcu118", "--protocol", "ndp", "--messages", "16", "--clock-mhz", "5000"], vec!["1..=4000 MHz", "322.265625"]),
    ];
    for (args, mentions) in cases {
        let mut all = vec!["fpga", "board", "--out", o];
        all.extend(args);
        assert_one_line_error(&nanotransport(&all), &mentions);
        assert!(!out.exists(), "{all:?} wrote {o}");
    }
}
