//! Formal proofs of small blocks with Yosys' formal front end (`read_verilog -formal`: immediate
//! `assert` / `assume`) and its SAT-based k-induction (`sat -tempinduct`), on the shipped Verilog
//! of `verilog-out/blocks-16` and `verilog-out/blocks-128`:
//!
//! * **free list**: an ID is never handed out while its holder still has it, and a double free
//!   changes nothing (the set of IDs in use is exactly the set the consumer holds);
//! * **timer**: only a scheduled, live timer raises a timeout — never one cancelled (or
//!   re-scheduled) before it is raised, never one cancelled or re-scheduled in the very cycle, and
//!   each schedule fires at most once;
//! * **AXI4-Stream outputs** of the egress arbiter (control/data merge) and of the deparser (the
//!   NIC's MAC TX stream): once `tvalid` is shown, `tvalid`, `tdata`, `tkeep`, `tlast` (and the
//!   arbiter's metadata) stay unchanged until `tready` takes the beat — assuming the block's
//!   inputs follow the same rule and the deparser's configuration does not change.
//!
//! # Method
//! Each proof copies the block's top module and adds its properties inside it (the shipped file
//! is not changed), so they can name the block's state registers. A consumer model in the
//! properties (the IDs the consumer holds, the timers that are armed) states the requirement
//! independently of the design; auxiliary assertions tie the design's state to it, which makes the
//! property inductive. A proof is **k-induction**: a bounded model check of k cycles from power-up
//! (every flip-flop at its power-up value 0, memories included; reset high in the first cycle) and
//! an induction step of k cycles from *any* state that satisfies the assertions (memories and
//! registers arbitrary). Together they prove the assertions in every reachable state for all input
//! sequences, unbounded. Every proof here closes at k = 1 and the four take under a minute.
//!
//! Why Yosys' own solver and not `yosys-smtbmc`: with Z3 4.8.12 (Debian 12) the arbiter's very
//! first BMC step did not finish in 10 minutes (4 GB), while `sat -tempinduct` proves it in a
//! second; it also needs no solver beyond Yosys, which the set-up script already installs.
//!
//! Every proof has a **mutant**: a one-line change of the block that breaks the property (an
//! allocation that does not mark its ID, a timeout stage that ignores a same-cycle cancel, an
//! arbiter that re-grants mid-packet, a deparser that advances while stalled). On it the solver
//! must find a counterexample from power-up (a real trace, not merely a failed induction step):
//! this shows the assumptions leave room for the bug, so the proof is not vacuous.
//!
//! `NANOTRANSPORT_FORMAL_KEEP=1` keeps each harness (Verilog and Yosys script) in the temporary directory.
//!
//! The blocks are proven at the sizes the NICs use (16 and 128 IDs; the mutants at 16). Larger blocks (the
//! reassembly behind the CPU's receive stream, the transmit path) are beyond a quick proof; their
//! stream outputs are covered by the lockstep and 4-state tests.

use nanotransport_flow::verdicts;
use nanotransport_testbenches::repo_root;
use std::path::Path;
use std::process::Command;

/// One proof: a block file, the properties added inside its top module, and a mutant.
struct Proof {
    name: &'static str,
    /// `verilog-out/<config>/<file>.v`; its top module is the file stem.
    config: &'static str,
    block: &'static str,
    properties: String,
    /// A line of the block and its replacement that breaks the property.
    mutant: (&'static str, &'static str),
}

/// Outcome of one k-induction run.
#[derive(Debug, PartialEq)]
enum Verdict {
    /// Base case and induction step hold at this length.
    Proven { length: u32 },
    /// The base case failed: a trace from power-up violates an assertion at this length.
    Counterexample { length: u32 },
    /// Neither, up to the largest length (the induction step keeps failing).
    Unproven,
}

/// Largest induction length tried.
const MAX_LENGTH: u32 = 8;

fn top_of(proof: &Proof) -> String {
    format!("nt_{}_{}", proof.config.replace('-', "_"), proof.block)
}

/// The block's Verilog with the properties inside its top module, optionally mutated.
fn harness(proof: &Proof, mutated: bool) -> String {
    let file = repo_root().join("verilog-out").join(proof.config).join(format!("{}.v", top_of(proof)));
    let mut src = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    if mutated {
        assert_eq!(src.matches(proof.mutant.0).count(), 1, "{}: the mutant's line must occur once", proof.name);
        src = src.replacen(proof.mutant.0, proof.mutant.1, 1);
    }
    let end = format!("endmodule // {}\n", top_of(proof));
    assert!(src.contains(&end), "{}: no `{}`", proof.name, end.trim());
    src.replacen(&end, &format!("`ifdef FORMAL\n{}\n`endif\n{end}", proof.properties), 1)
}

/// k-induction of `proof` with Yosys' `sat -tempinduct`, on the shipped or the mutated block
/// (Yosys' log kept as a verdict of the same harness and script, [`verdicts`]).
fn prove(proof: &Proof, mutated: bool) -> Verdict {
    let harness_text = harness(proof, mutated);
    // Memories become flip-flops so the solver sees them; the base case starts every
    // flip-flop at its power-up value 0 (rust-hdl's, and an FPGA's), the induction step anywhere.
    let script = |harness: &Path| {
        format!(
            "read_verilog -formal {}\nprep -top {} -flatten\nmemory_map\nopt_clean\nasync2sync\ndffunmap\n\
             sat -tempinduct -prove-asserts -set-assumes -set-init-zero -maxsteps {MAX_LENGTH}\n",
            harness.display(),
            top_of(proof)
        )
    };
    let run = || {
        let tmp = tempfile::Builder::new()
            .prefix(&format!("nt-formal-{}-{}{}-", proof.config, proof.name, if mutated { "-mutant" } else { "" }))
            .tempdir()
            .unwrap();
        let dir = tmp.path();
        let v = dir.join("harness.v");
        std::fs::write(&v, &harness_text).unwrap();
        std::fs::write(dir.join("prove.ys"), script(&v)).unwrap();
        let out = Command::new("yosys").arg("-s").arg(dir.join("prove.ys")).output().expect("yosys not found: run scripts/setup-tools.sh");
        let log = String::from_utf8_lossy(&out.stdout).into_owned();
        if std::env::var_os("NANOTRANSPORT_FORMAL_KEEP").is_some() {
            println!("{}: kept {}", proof.name, tmp.keep().display());
        }
        if out.status.success() {
            Ok(log)
        } else {
            Err(format!("{log}\n(Yosys: {})", out.status))
        }
    };
    let log = verdicts::cached("formal", &[&harness_text, &script(Path::new("HARNESS"))], run).unwrap_or_else(|log| log);
    let length = |marker: &str| -> u32 {
        let at = log.rfind(marker).unwrap_or_else(|| panic!("{}: no `{marker}` in Yosys' log", proof.name));
        log[..at]
            .rsplit("induction with length ")
            .next()
            .and_then(|t| t.split_whitespace().next())
            .and_then(|n| n.parse().ok())
            .unwrap_or(0)
    };
    if log.contains("Induction step proven: SUCCESS!") {
        Verdict::Proven { length: length("Induction step proven") }
    } else if log.contains("model found for base case: FAIL!") {
        Verdict::Counterexample { length: length("model found for base case") }
    } else if log.contains("Reached maximum number of time steps") {
        Verdict::Unproven
    } else {
        let tail: Vec<&str> = log.lines().rev().take(20).collect();
        panic!("{}: Yosys did not finish the proof:\n{}", proof.name, tail.into_iter().rev().collect::<Vec<_>>().join("\n"));
    }
}

/// Properties shared by every proof: reset is high in the first cycle; `started` is high after.
const POWER_UP: &str = "
    reg started = 1'b0;
    always @(posedge clock) started <= 1'b1;
    always @(*) if (!started) assume(reset);
";

fn free_list(config: &'static str, ids: usize) -> Proof {
    let properties = format!(
        "{POWER_UP}
    // The consumer: the IDs it holds. It may free any ID, held or not (a double free).
    reg [{top}:0] held = {ids}'h0;
    wire alloc_taken = alloc_valid & alloc_ready;
    wire returned = free_valid & held[free_id];
    always @(posedge clock)
        if (reset) held <= {ids}'h0;
        else held <= (held | (alloc_taken ? ({ids}'h1 << alloc_id) : {ids}'h0)) & ~(returned ? ({ids}'h1 << free_id) : {ids}'h0);
    always @(*) if (started && !reset) begin
        // Never hands out an ID that is held.
        if (alloc_taken) assert(!held[alloc_id]);
        // The list's state is the consumer's view (auxiliary: makes the property inductive).
        assert((in_use$q | pending$q) == held);
        assert(alloc_valid == (held != {{{ids}{{1'b1}}}}));
    end
",
        top = ids - 1
    );
    Proof {
        name: "free_list",
        config,
        block: "free_list",
        properties,
        mutant: ("        in_use$d = occupied & (~freed$onehot);\n", "        in_use$d = in_use$q & (~freed$onehot);\n"),
    }
}

fn timer(config: &'static str, ids: usize) -> Proof {
    let properties = format!(
        "{POWER_UP}
    // The requirement: a timer is armed by a schedule and disarmed by a cancel (which wins over a
    // schedule of the same ID in the same cycle), by its timeout being taken, and by reset.
    reg [{top}:0] armed = {ids}'h0;
    wire taken = timeout_valid & timeout_ready;
    reg [{top}:0] armed_next;
    always @(*) begin
        armed_next = armed;
        if (taken) armed_next = armed_next & ~({ids}'h1 << timeout_id);
        if (sched_valid) armed_next = armed_next | ({ids}'h1 << sched_id);
        if (cancel_valid) armed_next = armed_next & ~({ids}'h1 << cancel_id);
    end
    always @(posedge clock) armed <= reset ? {ids}'h0 : armed_next;
    always @(*) if (started && !reset) begin
        if (timeout_valid) begin
            assert(armed[timeout_id]);
            assert(!(cancel_valid && cancel_id == timeout_id));
            assert(!(sched_valid && sched_id == timeout_id));
        end
        // Auxiliary: the valid bits are the armed set, and a pending timeout's entry is valid.
        assert(valid_bits$q == armed);
        if (out_pending$q) assert(valid_bits$q[out_id$q]);
    end
",
        top = ids - 1
    );
    Proof {
        name: "timer",
        config,
        block: "timer",
        properties,
        mutant: ("& (~sched_hits_s1)) & (~cancel_hits_s1)) &", "& (~sched_hits_s1))) &"),
    }
}

/// A register `<sig>_was` holding `sig`'s value of the previous cycle, and `kind` (assert or
/// assume) that `sig` still has it whenever `when` holds.
fn unchanged(kind: &str, sig: &str, when: &str) -> String {
    format!(
        "    reg [$bits({sig})-1:0] {sig}_was;\n    always @(posedge clock) {sig}_was <= {sig};\n    always @(*) if ({when}) {kind}({sig} == {sig}_was);\n"
    )
}

/// `tvalid && !tready` in the previous cycle ⇒ `tvalid` and the listed signals are unchanged now.
fn held_while_stalled(prefix: &str, signals: &[&str], assume: bool) -> String {
    let kind = if assume { "assume" } else { "assert" };
    let when = format!("started && !reset && {prefix}stalled");
    let mut s = format!(
        "    reg {prefix}stalled = 1'b0;\n    always @(posedge clock) {prefix}stalled <= {prefix}tvalid & !{prefix}tready & !reset;\n"
    );
    s += &format!("    always @(*) if ({when}) {kind}({prefix}tvalid);\n");
    for sig in signals {
        s += &unchanged(kind, &format!("{prefix}{sig}"), &when);
    }
    s
}

const ARBITER_FIELDS: [&str; 14] = [
    "tdata",
    "tkeep",
    "tlast",
    "remote_ip",
    "remote_port",
    "msg_len",
    "pkt_offset",
    "local_port",
    "tx_msg_id",
    "credit",
    "rank",
    "flags",
    "is_new_msg",
    "is_rtx",
];

fn arbiter(config: &'static str) -> Proof {
    let mut properties = POWER_UP.to_string();
    properties += &held_while_stalled("s_axis_ctrl$", &ARBITER_FIELDS, true);
    properties += &held_while_stalled("s_axis_data$", &ARBITER_FIELDS, true);
    properties += &held_while_stalled("m_axis$", &ARBITER_FIELDS, false);
    // Auxiliary: a stalled output beat keeps its source granted.
    properties += "
    reg used_data = 1'b0;
    always @(posedge clock) used_data <= use_data;
    always @(*) if (started && !reset && m_axis$stalled) begin
        assert(in_packet$q);
        assert(from_data$q == used_data);
    end
";
    Proof {
        name: "arbiter",
        config,
        block: "arbiter",
        properties,
        mutant: ("            use_data = from_data$q;\n", "            use_data = pick_data;\n"),
    }
}

fn deparser(config: &'static str) -> Proof {
    let mut properties = POWER_UP.to_string();
    properties += &held_while_stalled("s_axis$", &["tdata", "tkeep", "tlast"], true);
    properties += &held_while_stalled("m_axis$", &["tdata", "tkeep", "tlast"], false);
    // The metadata comes with the first payload beat and is held with it; the configuration is
    // constant (the deparser's documentation: it changes only between frames).
    let meta = [
        "meta_remote_ip",
        "meta_remote_port",
        "meta_msg_len",
        "meta_pkt_offset",
        "meta_local_port",
        "meta_tx_msg_id",
        "meta_credit",
        "meta_rank",
        "meta_flags",
        "meta_grant_prio",
        "meta_buf_ptr",
        "meta_buf_size_class",
    ];
    for m in meta {
        properties += &unchanged("assume", m, "started && !reset && s_axis$stalled");
    }
    for c in ["cfg_own_mac", "cfg_peer_mac", "cfg_own_ip"] {
        properties += &unchanged("assume", c, "started");
    }
    Proof {
        name: "deparser",
        config,
        block: "deparser",
        properties,
        mutant: ("        if (take) begin\n", "        if (m_axis$tvalid) begin\n"),
    }
}

/// Proves `proof`; with `mutant`, also checks that its mutant has a counterexample from power-up.
fn check(proof: Proof, mutant: bool) {
    let start = std::time::Instant::now();
    let verdict = prove(&proof, false);
    println!("{} ({}): {:?} in {:.1} s", proof.name, proof.config, verdict, start.elapsed().as_secs_f64());
    assert!(matches!(verdict, Verdict::Proven { .. }), "{} ({}): {verdict:?}", proof.name, proof.config);
    if mutant {
        let start = std::time::Instant::now();
        let verdict = prove(&proof, true);
        println!("{} ({}) mutant: {:?} in {:.1} s", proof.name, proof.config, verdict, start.elapsed().as_secs_f64());
        assert!(
            matches!(verdict, Verdict::Counterexample { .. }),
            "{} ({}): the mutant must have a counterexample, or the properties prove nothing: {verdict:?}",
            proof.name,
            proof.config
        );
    }
}

#[test]
fn free_list_never_hands_out_a_held_id() {
    check(free_list("blocks-16", 16), true);
    check(free_list("blocks-128", 128), false);
}

#[test]
fn cancelled_timer_never_fires() {
    check(timer("blocks-16", 16), true);
    check(timer("blocks-128", 128), false);
}

#[test]
fn arbiter_output_holds_while_stalled() {
    check(arbiter("blocks-16"), true);
    check(arbiter("blocks-128"), false);
}

#[test]
fn deparser_output_holds_while_stalled() {
    check(deparser("blocks-16"), true);
}
