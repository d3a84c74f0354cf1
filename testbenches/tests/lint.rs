//! Every generated file is `verilator --lint-only -Wall` clean (with the waivers in
//! fpga/verilator_waivers.vlt); the smallest configuration synthesises with Yosys for xcup.
//! The full set goes through `nanotransport lint`.

use nanotransport_sim::tools::lint::{check_files, verilog_files_under};
use nanotransport_testbenches::repo_root;

#[test]
fn verilator_lint_every_generated_file() {
    let root = repo_root();
    let files = verilog_files_under(&root.join("verilog-out"));
    assert!(files.len() >= 12, "expected generated Verilog, found {}", files.len());
    let reports = check_files(&root, &files, false);
    for r in &reports {
        println!("{}  verilator: {}", r.file.display(), r.verilator.summary);
    }
    let failed: Vec<_> = reports.iter().filter(|r| !r.ok()).map(|r| r.file.display().to_string()).collect();
    assert!(failed.is_empty(), "lint failed: {failed:?}");
}

#[test]
fn yosys_synthesises_the_smallest_configuration() {
    let root = repo_root();
    let mut files = verilog_files_under(&root.join("verilog-out/nic-16"));
    // The transmit-path blocks (packetization core, tx_path) are left out of this quick check:
    // their Yosys run takes minutes and gigabytes (wide per-slot state), beyond the test budget.
    files.retain(|f| !["packetization", "tx_path"].iter().any(|b| f.to_string_lossy().contains(b)));
    assert_eq!(files.len(), 7);
    let reports = check_files(&root, &files, true);
    for r in &reports {
        let y = r.yosys.as_ref().unwrap();
        println!("{}  yosys: {}", r.file.display(), y.summary);
        assert!(y.ok, "{}: {}", r.file.display(), y.summary);
    }
}

#[test]
fn lint_reports_a_real_warning() {
    // A file with an unused input must not pass: the waivers are narrow.
    let dir = std::env::temp_dir().join(format!("nt-lint-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("nt_lint_probe.v");
    std::fs::write(&file, "module nt_lint_probe(input wire a, input wire b, output wire y);\n  assign y = a;\nendmodule\n").unwrap();
    let reports = check_files(&repo_root(), &[file], false);
    assert!(!reports[0].ok(), "an unused input went unreported");
    let _ = std::fs::remove_dir_all(&dir);
}
