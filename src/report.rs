//! `nanotransport report`: a first look at the project in one folder — the Verilog generated and
//! linted (Yosys synthesis with `--synth`), per-stage latency and throughput of every protocol
//! on its whole-NIC Verilator model, and the thesis' Fig. 3.2 incast (protocols × buffers).
//!
//! The folder holds `report.md` (the tables, the SVG plots linked in), `report.json` (the same
//! figures for scripts), one `incast-<protocol>-<buffer>p.json` per incast run and the plots
//! `incast-queue.svg` and `incast-slowdown.svg`. Progress goes to stderr.

use crate::{fmt_opt, generate_named, incast_run, incast_table, lint, write_plots, IncastSetup};
use nanotransport_sim::experiments::incast::IncastResult;
use nanotransport_sim::scenarios::{latency_with, throughput_with, Protocol, CLOCK_GHZ};
use serde_json::json;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// What `report` runs.
pub struct ReportRequest<'a> {
    pub out: &'a Path,
    /// Folder the Verilog is generated into (and linted from).
    pub verilog: &'a Path,
    /// Configurations to generate and lint (empty: all).
    pub gen_configs: &'a [String],
    pub synth: bool,
    pub protocols: &'a [String],
    pub buffers: &'a [usize],
    /// Back-to-back packets per throughput measurement.
    pub packets: u64,
    pub setup: &'a IncastSetup,
}

fn io<T>(r: std::io::Result<T>, path: &Path) -> Result<T, String> {
    r.map_err(|e| format!("{}: {e}", path.display()))
}

fn step(name: &str) -> Instant {
    eprintln!("== {name}");
    Instant::now()
}

/// Runs every part and writes the folder; `Ok(false)` when a lint check failed or an incast run
/// did not complete (the page says which).
pub fn report(r: &ReportRequest) -> Result<bool, String> {
    let started = Instant::now();
    io(std::fs::create_dir_all(r.out), r.out)?;
    let mut page = String::from("# nanotransport: first look\n\n");
    let mut all_ok = true;

    // Verilog: generate, then lint (and synthesise on request).
    let t = step("generate Verilog");
    let generated = generate_named(r.gen_configs, r.verilog)?;
    for (name, modules, dir) in &generated {
        eprintln!("{name:<12} {modules} modules -> {}", dir.display());
    }
    let gen_s = t.elapsed().as_secs_f64();
    let t = step(if r.synth { "lint (verilator -Wall) and synthesis (yosys synth_xilinx -family xcup)" } else { "lint (verilator -Wall)" });
    let files: Vec<PathBuf> = generated.iter().flat_map(|(_, _, d)| lint::verilog_files_under(d)).collect();
    let lints = lint::check_files(Path::new("."), &files, r.synth);
    let lint_failed = lints.iter().filter(|l| !l.ok()).count();
    all_ok &= lint_failed == 0;
    let _ = writeln!(page, "## Verilog\n\nGenerated into `{}` in {gen_s:.1} s; linted{} in {:.1} s: {} files, {} failed.\n", r.verilog.display(),
        if r.synth { " and synthesised" } else { "" }, t.elapsed().as_secs_f64(), lints.len(), lint_failed);
    page.push_str("| configuration | modules | folder |\n|---|---|---|\n");
    for (name, n, dir) in &generated {
        let _ = writeln!(page, "| `{name}` | {n} | `{}` |", dir.display());
    }
    page.push_str(if r.synth { "\n| file | verilator | design rule | yosys |\n|---|---|---|---|\n" } else { "\n| file | verilator | design rule |\n|---|---|---|\n" });
    for l in &lints {
        let mark = if l.ok() { "" } else { " **FAIL**" };
        let yosys = l.yosys.as_ref().map(|y| format!(" {} |", y.summary)).unwrap_or_default();
        let _ = writeln!(page, "| `{}`{mark} | {} | {} |{yosys}", l.file.display(), l.verilator.summary, l.rule.summary);
    }

    // Per-stage latency and throughput, on each protocol's incast NIC.
    let nic = |p: &str| r.setup.config.clone().unwrap_or_else(|| format!("{p}-128"));
    let t = step("per-stage latency (Table 3.1)");
    page.push_str("\n## Per-stage latency (thesis Table 3.1)\n\nOne 16-byte message each way; cycles first byte in → first byte out, paper's in brackets.\n\n");
    page.push_str("| protocol | config | RX ingress | RX reassembly | TX packetize | TX egress | RX total | TX total | total | total ns @ 3.2 GHz |\n|---|---|---|---|---|---|---|---|---|---|\n");
    let mut latencies = Vec::new();
    for p in r.protocols {
        let config = nic(p);
        eprintln!("{p} on {config}");
        let l = latency_with(&config, &[])?;
        let ours = [l.ingress, l.reassembly, l.packetize, l.egress];
        let paper = Protocol::of_config(&config).paper_cycles();
        let totals = |v: [u64; 4]| [v[0] + v[1], v[2] + v[3], v.iter().sum::<u64>()];
        let (ot, pt) = (totals(ours), totals(paper));
        let cells: Vec<String> = ours.iter().chain(&ot).zip(paper.iter().chain(&pt)).map(|(o, q)| format!("{o} ({q})")).collect();
        let _ = writeln!(page, "| {p} | `{config}` | {} | {:.2} |", cells.join(" | "), ot[2] as f64 / CLOCK_GHZ);
        latencies.push(json!({"protocol": p, "config": config, "cycles": ours, "paper_cycles": paper, "total": ot[2], "paper_total": pt[2]}));
    }
    let latency_s = t.elapsed().as_secs_f64();
    let t = step("throughput");
    let _ = writeln!(page, "\n({latency_s:.1} s)\n\n## Throughput\n\n{} back-to-back full packets into MAC RX (rx) or from the CPU (tx).\n", r.packets);
    page.push_str("| protocol | config | direction | packets | cycles | beats per cycle | Gb/s @ 3.2 GHz |\n|---|---|---|---|---|---|---|\n");
    let mut throughputs = Vec::new();
    for p in r.protocols {
        let config = nic(p);
        for d in ["rx", "tx"] {
            eprintln!("{p} on {config}, {d}");
            let x = throughput_with(&config, d, r.packets, &[])?;
            let _ = writeln!(page, "| {p} | `{config}` | {d} | {} | {} | {:.4} | {:.1} |", x.packets, x.cycles, x.beats_per_cycle, x.gbps_at_3_2ghz);
            throughputs.push(json!({"protocol": p, "config": config, "direction": d, "packets": x.packets, "cycles": x.cycles,
                "beats_per_cycle": x.beats_per_cycle, "gbps_at_3_2ghz": x.gbps_at_3_2ghz}));
        }
    }
    let _ = writeln!(page, "\n({:.1} s)", t.elapsed().as_secs_f64());

    // The Fig. 3.2 incast.
    let t = step("Fig. 3.2 incast");
    let mut results: Vec<IncastResult> = Vec::new();
    for p in r.protocols {
        for b in r.buffers {
            let params = r.setup.params(p, *b)?;
            let (res, _) = incast_run(&params, false)?;
            let path = r.out.join(format!("incast-{}-{}p.json", params.protocol, params.buffer_pkts));
            io(std::fs::write(&path, serde_json::to_string_pretty(&res).map_err(|e| e.to_string())?), &path)?;
            eprintln!("{p} {b} pkts: median {} p90 {}, wall {:.1} s", fmt_opt(res.median_slowdown, 2), fmt_opt(res.p90_slowdown, 2), res.wall_s);
            results.push(res);
        }
    }
    write_plots(&results, r.out)?;
    let p0 = results.first().map(|r| r.params.clone());
    page.push_str("\n## Fig. 3.2 incast\n\n");
    if let Some(p) = &p0 {
        let senders_on = p.sender_config.as_deref().unwrap_or(&p.config);
        let _ = writeln!(page, "{} senders → 1 receiver through one switch, {} Gb/s, {} ns per link, message sizes {}..{} packets, rtt_pkts {}, RTO {} µs; \
            the receiver on `{}`, the senders on `{senders_on}`. \
            Slowdown median and p90 beside the authors' ns-3 model (ratio = ours / model; only for its default setup).\n",
            p.senders, p.link_gbps, p.link_ns, p.sizes.0, p.sizes.1, p.rtt_pkts, p.rto_us, p.config);
    }
    page.push_str(&incast_table(&results));
    for res in results.iter().filter(|x| !x.complete) {
        all_ok = false;
        let which: Vec<String> = res.messages.iter().filter_map(|m| m.incomplete.as_ref().map(|w| format!("sender {} ({} packets): {w}", m.sender, m.packets))).collect();
        let _ = writeln!(page, "\n**{} at {} packets incomplete**: {}", res.protocol, res.buffer_pkts, which.join("; "));
    }
    let _ = writeln!(page, "\n![bottleneck queue over time (Fig. 3.2a)](incast-queue.svg)\n\n![slowdown per message (Fig. 3.2b)](incast-slowdown.svg)\n\n({:.1} s)", t.elapsed().as_secs_f64());
    let total_s = started.elapsed().as_secs_f64();
    let _ = writeln!(page, "\nWhole report: {total_s:.1} s wall.");

    let page_path = r.out.join("report.md");
    io(std::fs::write(&page_path, &page), &page_path)?;
    let summary = json!({
        "verilog": generated.iter().map(|(n, m, d)| json!({"config": n, "modules": m, "dir": d})).collect::<Vec<_>>(),
        "lint": lints.iter().map(|l| json!({"file": l.file, "ok": l.ok(), "verilator": l.verilator.summary,
            "yosys": l.yosys.as_ref().map(|y| y.summary.clone())})).collect::<Vec<_>>(),
        "latency": latencies,
        "throughput": throughputs,
        "incast": results.iter().map(|x| json!({"protocol": x.protocol, "config": x.config, "buffer_pkts": x.buffer_pkts, "buffer_kb": x.buffer_kb,
            "median_slowdown": x.median_slowdown, "p90_slowdown": x.p90_slowdown,
            "median_arrived_slowdown": x.median_arrived_slowdown, "p90_arrived_slowdown": x.p90_arrived_slowdown, "complete": x.complete,
            "wall_s": x.wall_s, "nic_cycles_per_s": x.nic_cycles_per_s})).collect::<Vec<_>>(),
        "wall_s": total_s,
    });
    let json_path = r.out.join("report.json");
    io(std::fs::write(&json_path, serde_json::to_string_pretty(&summary).map_err(|e| e.to_string())?), &json_path)?;
    eprintln!("report: {} ({total_s:.0} s)", page_path.display());
    Ok(all_ok)
}
