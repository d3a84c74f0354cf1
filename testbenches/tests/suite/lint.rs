//! Every generated file is `verilator --lint-only -Wall` clean (with the waivers in
//! fpga/verilator_waivers.vlt); the smallest configuration synthesises with Yosys for xcup.
//! The full set goes through `nanotransport lint`.

use nanotransport_flow::lint::{check_files, synthesise_files, verilog_files_under, wide_runtime_shifts};
use nanotransport_testbenches::repo_root;

#[test]
fn verilator_lint_every_generated_file() {
    let root = repo_root();
    let files = verilog_files_under(&root.join("verilog-out"));
    assert!(files.len() >= 12, "expected generated Verilog, found {}", files.len());
    let reports = check_files(&root, &files, false);
    for r in &reports {
        println!("{}  verilator: {}  rule: {}", r.file.display(), r.verilator.summary, r.rule.summary);
    }
    let failed: Vec<_> = reports.iter().filter(|r| !r.ok()).map(|r| r.file.display().to_string()).collect();
    assert!(failed.is_empty(), "lint failed: {failed:?}");
}

#[test]
fn yosys_synthesises_the_smallest_configuration() {
    let root = repo_root();
    // The receive path has a test of its own below (minutes of Yosys, so it runs beside the
    // others); the transmit-path blocks and the scheduler take gigabytes (wide per-slot state):
    // `nanotransport lint` and `synth` synthesise them.
    let files: Vec<_> = verilog_files_under(&root.join("verilog-out/blocks-16"))
        .into_iter()
        .filter(|f| !RECEIVE_PATH.iter().chain(TRANSMIT_PATH.iter()).chain(SCHEDULER.iter()).any(|b| f.to_string_lossy().ends_with(b)))
        .collect();
    assert_eq!(files.len(), 42, "expected the forty-two smaller blocks-16 blocks");
    for (file, y) in synthesise_files(&files) {
        println!("{}  yosys: {}", file.display(), y.summary);
        assert!(y.ok, "{}: {}", file.display(), y.summary);
    }
}

/// The receive-path blocks: about four minutes of Yosys on two cores (flat 16-entry tables and
/// their 1024-bit multiplexers).
const RECEIVE_PATH: [&str; 2] = ["_get_rx_msg_info.v", "_reassembly.v"];
const TRANSMIT_PATH: [&str; 2] = ["_packetization.v", "_tx_path.v"];
/// The priority scheduler (16×16 parallel rank comparisons) also takes minutes of Yosys.
const SCHEDULER: [&str; 1] = ["_priority_scheduler.v"];

#[test]
fn yosys_synthesises_the_receive_path() {
    let root = repo_root();
    let files: Vec<_> = RECEIVE_PATH.iter().map(|block| root.join(format!("verilog-out/blocks-16/nt_blocks_16{block}"))).collect();
    for (file, y) in synthesise_files(&files) {
        println!("{}  yosys: {}", file.display(), y.summary);
        assert!(y.ok, "{}: {}", file.display(), y.summary);
    }
}

#[test]
fn lint_reports_a_real_warning() {
    // A file with an unused input must not pass: the waivers are narrow.
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let file = dir.join("nt_lint_probe.v");
    std::fs::write(&file, "module nt_lint_probe(input wire a, input wire b, output wire y);\n  assign y = a;\nendmodule\n").unwrap();
    let reports = check_files(&repo_root(), &[file], false);
    assert!(!reports[0].ok(), "an unused input went unreported");
}

#[test]
fn yosys_synthesises_the_switch_configurations() {
    // The Bolt table configuration reads its 65 536-entry hex file with $readmemh; it must map to
    // block RAM rather than to logic. PL2's counters must be RAM (LUTRAM), not 64 × 32 flip-flops.
    let root = repo_root();
    let mut files = verilog_files_under(&root.join("verilog-out/bolt-ingress-64p"));
    files.extend(verilog_files_under(&root.join("verilog-out/bolt-ingress-64p-lut")));
    files.extend(verilog_files_under(&root.join("verilog-out/pl2-reservation-64p")));
    assert_eq!(files.len(), 5);
    for (file, y) in synthesise_files(&files) {
        println!("{}  yosys: {}", file.display(), y.summary);
        assert!(y.ok, "{}: {}", file.display(), y.summary);
        let rams: u64 = y.summary.split("RAM ").nth(1).and_then(|t| t.trim_end_matches(')').parse().ok()).unwrap_or(0);
        let name = file.to_string_lossy();
        if name.contains("-lut") {
            assert!(rams >= 32, "the supply table is not in block RAM: {}", y.summary);
        }
        if name.contains("pl2") {
            assert!(rams >= 5, "the reservation counters are not in RAM: {}", y.summary);
        }
    }
}

#[test]
fn a_1024_message_nic_keeps_the_shift_rule() {
    // The design rule (hdl conventions): per-id flags change through one-hot masks, header bytes
    // land in fixed fields selected by a counter. `verilator_lint_every_generated_file` checks it
    // on every shipped file; here on a 1024-message NIC, where a flag vector is 1024 bits wide.
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let homa_1024 = nanotransport_hdl::configs::NicParams::preset("homa-1024", nanotransport_hdl::configs::Protocol::Homa, 1024)
        .generate()
        .expect("1024 messages are compiled in");
    nanotransport_hdl::generate::write_modules(&dir, &[homa_1024]).unwrap();
    let files = verilog_files_under(&dir);
    assert_eq!(files.len(), 1);
    let shifts = wide_runtime_shifts(&files[0]).unwrap_or_else(|e| panic!("{}: {e}", files[0].display()));
    assert!(shifts.is_empty(), "runtime shifts of vectors wider than 64 bits: {shifts:#?}");
}

#[test]
fn the_shift_rule_check_finds_a_runtime_indexed_update() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let file = dir.join("nt_rule_probe.v");
    // A runtime-indexed bit set in a 128-bit vector (what `replace_bit` at a signal index
    // becomes), beside a constant shift and a 64-bit runtime shift, which the rule allows.
    std::fs::write(
        &file,
        "module nt_rule_probe(input wire [6:0] i, input wire [127:0] q, input wire [63:0] w, output reg [127:0] d, output reg [127:0] c, output reg [63:0] n);\n\
         always @(*) begin\n  d = q | (128'd1 << i);\n  c = q << 3;\n  n = w << i[5:0];\nend\nendmodule\n",
    )
    .unwrap();
    let found = wide_runtime_shifts(&file).expect("Yosys reads the probe");
    assert_eq!(found.len(), 1, "exactly the 128-bit runtime shift: {found:?}");
}

#[test]
fn a_stored_verdict_serves_only_the_same_inputs_and_only_a_success() {
    use nanotransport_flow::verdicts::cached;
    let rerun_all = std::env::var_os("NANOTRANSPORT_RERUN_TOOLS").is_some();
    // Inputs no earlier run has seen.
    let fresh = format!("{:?} {}", std::time::SystemTime::now(), std::process::id());
    let mut runs = 0;
    let mut ok = |out: &str| {
        runs += 1;
        Ok::<String, String>(out.to_string())
    };
    assert_eq!(cached("probe", &[&fresh], || ok("first")), Ok("first".into()));
    let again = cached("probe", &[&fresh], || ok("second"));
    assert_eq!(again, Ok(if rerun_all { "second" } else { "first" }.to_string()), "the same inputs take the stored verdict");
    assert_eq!(cached("probe", &[&fresh, "changed"], || ok("third")), Ok("third".into()), "other inputs run the tool");
    assert_eq!(runs, if rerun_all { 3 } else { 2 });
    let failing = format!("{fresh} failing");
    assert_eq!(cached("probe", &[&failing], || Err::<String, String>("broken".into())), Err("broken".into()));
    assert_eq!(cached("probe", &[&failing], || Ok::<String, String>("fixed".into())), Ok("fixed".into()), "a failure is never stored");
}
