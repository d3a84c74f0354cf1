//! `nanotransport report`: the project's measured results in one folder — the Verilog generated
//! and linted, per-stage latency and throughput of every protocol on its whole-NIC Verilator
//! model, each whole NIC's simulation speed, a fuzz run per protocol, whole-NIC Yosys synthesis
//! beside Table 3.2 (with `--synth`), the thesis' Fig. 3.2 incast (protocols × buffers) and
//! Flexplane's §4.1 bulk transfer (DropTail, RED, DCTCP) and §4.2 RPC workload (six schemes),
//! and PL2's incast (4 senders, 50–400 %), outcast (1 → 1–4 receivers) and memcached runs (0–4
//! UDP and TCP background hosts), each with and without PL2, and Bolt's Table 4.1 (PRU and SM
//! off and on, the Bolt ingress RTL in the switch) and Figs. 4.10–4.12 (arrival, completion and
//! reroute on a dumbbell).
//!
//! The folder holds `results.json` (every figure, [`crate::results::Results`]), `results.md`
//! rendered from it alone, one `incast-<protocol>-<buffer>p.json` per incast run (every message
//! and the queue trace) and the plots `incast-queue.svg`, `incast-slowdown.svg`,
//! `flexplane-bulk-queue.svg`, `flexplane-rpc.svg`, `pl2-{incast,outcast}-{goodput,queue}.svg` and
//! `pl2-rpc-{udp,tcp}-{latency,transactions}.svg` `bolt-utilisation-pru-*-sm-*-{cwnd,queue,rate}.svg` and
//! `bolt-{arrival,completion,reroute}-pru-*-sm-*-{rate,cwnd,queue}.svg`; with
//! `--readme FILE` the README's headline block is rendered too. `--from-json` re-renders the
//! pages from a saved `results.json` without running anything. Progress goes to stderr.

use crate::commands::bolt;
use crate::commands::flexplane::{bulk_plot, bulk_row, bulk_run, bulk_setup, rpc_plot, rpc_row, rpc_run, rpc_setup};
use crate::commands::hardware::generate_named;
use crate::commands::incast::{incast_row, incast_run, write_plots, IncastSetup};
use crate::commands::pl2::{self, INCAST, OUTCAST};
use crate::results::fmt_opt;
use crate::results::{
    self, AckPolicies, AckPolicyRow, BoltDumbbellSection, BoltResults, Flexplane, FuzzRow, GeneratedConfig, Incast, LatencyRow, LintRow,
    NicResources, Pl2Results, Results, SpeedRow, SynthRow, ThroughputRow, Timings, Tools,
};
use nanotransport_flow::lint;
use nanotransport_hdl::configs::Protocol;
use nanotransport_hdl::nic::register_map::{AckPolicy, CFG_ACK_POLICY};
use nanotransport_net::experiments::bolt::BoltUtilisationParams;
use nanotransport_net::experiments::bolt_dumbbell::{BoltDumbbellParams, DumbbellEvent};
use nanotransport_net::experiments::flexplane::{BulkParams, RpcParams, BULK_SCHEMES, RPC_SCHEMES};
use nanotransport_net::experiments::incast::IncastResult;
use nanotransport_net::experiments::pl2::Pl2RunParams;
use nanotransport_net::experiments::pl2_rpc::{Background, Pl2RpcParams};
use nanotransport_net::schemes::Scheme;
use nanotransport_sim::scenarios::{latency_with, throughput_with, Direction};
use nanotransport_sim::whole_nic::WholeNic;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Seed of the report's fuzz runs.
const FUZZ_SEED: u64 = 1;

/// What `report` runs.
pub struct ReportRequest<'a> {
    pub out: &'a Path,
    /// Folder the Verilog is generated into (and linted from).
    pub verilog: &'a Path,
    /// Configurations to generate and lint (empty: all).
    pub gen_configs: &'a [String],
    pub synth: bool,
    pub protocols: &'a [Protocol],
    pub buffers: &'a [usize],
    /// Smaller buffers Homa and Homa-Tr also run under each acknowledgement policy (sizes 20..38).
    pub ack_policy_buffers: &'a [usize],
    /// Back-to-back packets per throughput measurement.
    pub packets: u64,
    /// Cycles of each simulation-speed run.
    pub bench_cycles: u64,
    /// Frames of each fuzz run (on each protocol's 16-message NIC; 0: none).
    pub fuzz_frames: u64,
    pub setup: &'a IncastSetup,
    /// Simulated seconds of each Flexplane bulk run (0: none).
    pub flexplane_seconds: f64,
    /// Seconds of requests of each Flexplane RPC run (0: none).
    pub rpc_seconds: f64,
    /// README whose headline block is re-rendered.
    pub readme: Option<&'a Path>,
}

fn io<T>(r: std::io::Result<T>, path: &Path) -> Result<T, String> {
    r.map_err(|e| format!("{}: {e}", path.display()))
}

fn step(name: &str) -> Instant {
    eprintln!("== {name}");
    Instant::now()
}

/// Runs every part, writes the folder; `Ok(false)` when a lint check failed or an incast run did
/// not complete (the page says which).
pub fn report(r: &ReportRequest) -> Result<bool, String> {
    let started = Instant::now();
    io(std::fs::create_dir_all(r.out), r.out)?;
    let mut timings = Timings::default();

    let t = step("generate Verilog");
    let generated = generate_named(r.gen_configs, r.verilog)?;
    for (name, modules, dir) in &generated {
        eprintln!("{name:<12} {modules} modules -> {}", dir.display());
    }
    timings.generate_s = t.elapsed().as_secs_f64();
    let t = step("lint (verilator -Wall)");
    let files: Vec<PathBuf> = generated.iter().flat_map(|(_, _, d)| lint::verilog_files_under(d)).collect();
    let lints = lint::check_files(Path::new("."), &files, false);
    timings.lint_s = t.elapsed().as_secs_f64();
    let lint_rows: Vec<LintRow> = lints
        .iter()
        .map(|l| LintRow {
            file: l.file.strip_prefix(r.verilog).unwrap_or(&l.file).display().to_string(),
            ok: l.ok(),
            verilator: l.verilator.summary.clone(),
            design_rule: l.rule.summary.clone(),
            yosys: l.yosys.as_ref().map(|y| y.summary.clone()),
        })
        .collect();

    // Latency, throughput and speed on each protocol's incast receiver NIC.
    let nic = |p: &Protocol| match &r.setup.config {
        Some(c) => crate::params::whole_nic(Some(*p), Some(c)),
        None => WholeNic::of(*p, 128),
    };
    let t = step("per-stage latency (Table 3.1)");
    let mut latency = Vec::new();
    for p in r.protocols {
        let config = nic(p)?;
        eprintln!("{p} on {config}");
        let l = latency_with(&config, &[])?;
        latency.push(LatencyRow {
            protocol: p.clone(),
            paper_cycles: nanotransport_sim::scenarios::paper_cycles(*p),
            config: config.name().to_string(),
            cycles: [l.ingress, l.reassembly, l.packetize, l.egress],
            data_to_ack: l.data_to_ack,
        });
    }
    timings.latency_s = t.elapsed().as_secs_f64();
    let t = step("throughput");
    let mut throughput = Vec::new();
    for p in r.protocols {
        let config = nic(p)?;
        for d in Direction::ALL {
            eprintln!("{p} on {config}, {d}");
            let x = throughput_with(&config, d, (65, r.packets), &[])?;
            throughput.push(ThroughputRow {
                protocol: *p,
                config: config.name().to_string(),
                direction: d,
                packets: x.packets,
                cycles: x.cycles,
                beats_per_cycle: x.beats_per_cycle,
                gbps_at_3_2ghz: x.gbps_at_3_2ghz,
            });
        }
    }
    timings.throughput_s = t.elapsed().as_secs_f64();
    let t = step("simulation speed (bench nic)");
    let mut simulation_speed = Vec::new();
    for p in r.protocols {
        let b = nanotransport_sim::bench::bench_nic(&nic(p)?, r.bench_cycles, 1)?;
        eprintln!("{}: {:.0} cycles per CPU second", b.config, b.cycles as f64 / b.cpu_s);
        simulation_speed.push(SpeedRow {
            config: b.config,
            cycles: b.cycles,
            cycles_per_cpu_s: b.cycles as f64 / b.cpu_s,
            messages_delivered: b.messages_delivered,
            messages_intact: b.messages_intact,
        });
    }
    timings.simulation_speed_s = t.elapsed().as_secs_f64();
    let t = step("fuzz");
    let mut fuzz = Vec::new();
    for p in r.protocols.iter().filter(|_| r.fuzz_frames > 0) {
        let opts = nanotransport_sim::fuzz::FuzzOptions::new(&WholeNic::of(*p, 16)?, r.fuzz_frames, FUZZ_SEED);
        let f = nanotransport_sim::fuzz::fuzz(&opts, &mut |_| {})?;
        eprintln!("{}: {} frames, {} mismatches", opts.nic, f.frames_in, f.check.mismatches.len());
        fuzz.push(FuzzRow {
            config: opts.nic.name().to_string(),
            seed: FUZZ_SEED,
            frames_in: f.frames_in,
            frames_out: f.frames_out,
            delivered: f.check.delivered,
            completed: f.check.completed,
            abandoned: f.check.abandoned,
            mismatches: f.check.mismatches.len(),
            skipped_checks: f.check.skipped.len(),
            cycles: f.cycles,
            wall_s: f.wall_s,
        });
    }
    timings.fuzz_s = t.elapsed().as_secs_f64();
    let t = step("whole-NIC synthesis (Table 3.2)");
    let synthesis = if r.synth { synthesise_nics(r.verilog, &generated)? } else { Vec::new() };
    let block_ram = block_ram(&generated)?;
    timings.synthesis_s = t.elapsed().as_secs_f64();

    let t = step("Fig. 3.2 incast");
    let mut runs: Vec<IncastResult> = Vec::new();
    for p in r.protocols {
        for b in r.buffers {
            let params = r.setup.params(*p, *b)?;
            let (res, _) = incast_run(&params, false)?;
            let path = r.out.join(format!("incast-{}-{}p.json", params.protocol, params.buffer_pkts));
            io(std::fs::write(&path, serde_json::to_string_pretty(&res).map_err(|e| e.to_string())?), &path)?;
            eprintln!(
                "{p} {b} pkts: median {} p90 {}, wall {:.1} s",
                fmt_opt(res.median_slowdown, 2),
                fmt_opt(res.p90_slowdown, 2),
                res.wall_s
            );
            runs.push(res);
        }
    }
    write_plots(&runs, r.out)?;
    timings.incast_s = t.elapsed().as_secs_f64();
    let incast = Incast { setup: runs.first().map(|x| x.params.clone()), runs: runs.iter().map(incast_row).collect() };

    let t = step("Homa's acknowledgement policies");
    let ack_policies = ack_policy_runs(r)?;
    timings.ack_policies_s = t.elapsed().as_secs_f64();

    let t = step("Flexplane §4.1 bulk transfer");
    let mut bulk = Vec::new();
    if r.flexplane_seconds > 0.0 {
        for name in BULK_SCHEMES {
            let mut p = BulkParams::defaults(Scheme::named(name)?);
            p.seconds = r.flexplane_seconds;
            let res = bulk_run(&p)?;
            eprintln!(
                "{name}: queue {:.0} packets, fairness {:.3}, {:.2} Gb/s",
                res.queue_median_pkts, res.fairness_median, res.goodput_gbps
            );
            bulk.push(res);
        }
        bulk_plot(&bulk, &r.out.join("flexplane-bulk-queue.svg"), 10)?;
    }
    let mut rpc = Vec::new();
    if r.rpc_seconds > 0.0 {
        for name in RPC_SCHEMES {
            let mut p = RpcParams::defaults(Scheme::named(name)?);
            // A short run (the report's test) keeps a quarter of it as warm-up.
            (p.seconds, p.warmup_s) = (r.rpc_seconds, p.warmup_s.min(r.rpc_seconds / 4.0));
            let res = rpc_run(&p)?;
            eprintln!("{name} rpc: short {} µs, long {} µs", fmt_opt(res.short.mean_us, 1), fmt_opt(res.long.mean_us, 0));
            rpc.push(res);
        }
        rpc_plot(&rpc, &r.out.join("flexplane-rpc.svg"))?;
    }
    let flexplane = Flexplane {
        setup: bulk.first().map(|b| bulk_setup(&b.params)).unwrap_or_default(),
        runs: bulk.iter().map(bulk_row).collect(),
        rpc_setup: rpc.first().map(|x| rpc_setup(&x.params)).unwrap_or_default(),
        rpc: rpc.iter().map(rpc_row).collect(),
    };
    timings.flexplane_s = t.elapsed().as_secs_f64();

    let t = step("PL2 incast, outcast and memcached");
    let defaults = |senders, receivers, load, with_pl2| Pl2RunParams { receivers, ..Pl2RunParams::defaults(senders, load, with_pl2) };
    let incast_runs = pl2::sweep_runs(&[50.0, 100.0, 200.0, 400.0].map(|l| (4, 1, l)), defaults)?;
    let outcast_runs = pl2::sweep_runs(&[1, 2, 3, 4].map(|n| (1, n, 200.0)), defaults)?;
    pl2::plots(&INCAST, &incast_runs, r.out)?;
    pl2::plots(&OUTCAST, &outcast_runs, r.out)?;
    let mut rpc = Vec::new();
    for background in [Background::Udp, Background::Tcp] {
        let runs = pl2::rpc_runs(&[0, 1, 2, 3, 4], |senders, with_pl2| Pl2RpcParams::defaults(background, senders, with_pl2))?;
        pl2::rpc_plots(&runs, r.out)?;
        rpc.extend(runs);
    }
    let pl2 = Pl2Results {
        incast_setup: pl2::pl2_setup(&incast_runs[0].params),
        incast: incast_runs,
        outcast_setup: pl2::pl2_setup(&outcast_runs[0].params),
        outcast: outcast_runs,
        rpc_setup: pl2::pl2_rpc_setup(&rpc[0].params),
        rpc,
    };
    timings.pl2_s = t.elapsed().as_secs_f64();

    let t = step("Bolt utilisation");
    let mut bolt_runs = bolt::utilisation_runs(BoltUtilisationParams::defaults)?;
    bolt::utilisation_plots(&bolt_runs, r.out)?;
    let bolt_setup = bolt::utilisation_setup(&bolt_runs[0].params);
    for run in &mut bolt_runs {
        // The traces are in the plots; the results keep the figures.
        (run.cwnd, run.queue, run.rate) = (Vec::new(), Vec::new(), Vec::new());
    }
    let mut dumbbell = Vec::new();
    for event in [DumbbellEvent::Arrival, DumbbellEvent::Completion, DumbbellEvent::Reroute] {
        let mut runs = bolt::dumbbell_runs(&bolt::dumbbell_rows(event), |e, pru, sm| BoltDumbbellParams {
            event: e,
            ..BoltDumbbellParams::defaults(event, pru, sm)
        })?;
        bolt::dumbbell_plots(&runs, r.out)?;
        for run in &mut runs {
            (run.rate, run.queue, run.cwnd) = Default::default();
        }
        dumbbell.push(BoltDumbbellSection { event, runs });
    }
    let bolt = BoltResults { setup: bolt_setup, runs: bolt_runs, dumbbell };
    timings.bolt_s = t.elapsed().as_secs_f64();
    timings.total_s = started.elapsed().as_secs_f64();

    let all_ok = lint_rows.iter().all(|l| l.ok)
        && incast.runs.iter().all(|x| x.complete)
        && fuzz.iter().all(|f| f.mismatches == 0 && f.skipped_checks == 0);
    let results = Results {
        schema_version: results::SCHEMA_VERSION,
        tools: {
            let (verilator, yosys) = nanotransport_sim::cosim::build::tool_versions()?;
            Tools { verilator, yosys }
        },
        verilog: generated.iter().map(|(config, modules, _)| GeneratedConfig { config: config.clone(), modules: *modules }).collect(),
        lint: lint_rows,
        latency,
        throughput,
        simulation_speed,
        fuzz,
        synthesis,
        block_ram,
        incast,
        flexplane,
        pl2,
        bolt,
        ack_policies,
        timings,
    };
    let json_path = r.out.join("results.json");
    io(std::fs::write(&json_path, serde_json::to_string_pretty(&results).map_err(|e| e.to_string())? + "\n"), &json_path)?;
    write_pages(&results, r.out, r.readme)?;
    Ok(all_ok)
}

/// The whole NICs `--synth` synthesises: NDP at Table 3.2's two sizes, and each protocol's incast
/// receiver.
const SYNTH_CONFIGS: [&str; 4] = ["ndp-16", "ndp-128", "homa-128", "homa-tr-128"];

/// Thesis Table 3.2 (NDP prototype, 32 KB messages, Virtex UltraScale+): messages → (LUTs,
/// flip-flops).
const TABLE_3_2: [(usize, u64, u64); 2] = [(16, 6_999, 5_043), (128, 23_578, 8_941)];

/// The memories of each [`SYNTH_CONFIGS`] NIC that was generated, from its Verilog, with what its
/// parameter set can use of the large ones.
fn block_ram(generated: &[(String, usize, PathBuf)]) -> Result<Vec<results::BlockRamRow>, String> {
    use nanotransport_flow::memory::{by_shape, memories_by_module, Memory};
    use nanotransport_hdl::nic::delivered_set::{
        DEFAULT_HORIZON_CYCLES, DELIVERED_SET_BUCKET_BITS, EPOCHS_PER_HORIZON, MIN_CYCLES_PER_MESSAGE, SET_ENTRY_BITS,
    };
    let kib = |bits: u64| bits as f64 / 8.0 / 1024.0;
    let mut rows = Vec::new();
    for (config, _, dir) in generated.iter().filter(|g| SYNTH_CONFIGS.contains(&g.0.as_str())) {
        let params = nanotransport_hdl::configs::find_config(config)?.params();
        let path = dir.join(format!("nt_{}_nic.v", config.replace('-', "_")));
        let verilog = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let (rx, tx) = params.memory_bytes();
        // Keys alive at once at the most: one completion per minimum-size packet for 17/16 of the horizon.
        let keys = (17 * DEFAULT_HORIZON_CYCLES / EPOCHS_PER_HORIZON).div_ceil(MIN_CYCLES_PER_MESSAGE);
        let mut row = results::BlockRamRow { config: config.clone(), memories: Vec::new(), small_kib: 0.0 };
        // The payload memories, each one module of power-of-two banks, as one row each.
        let all = memories_by_module(&verilog);
        for (suffix, what, used) in [("$reassembly$payload", "payload, receive", rx), ("$tx$payload", "payload, transmit", tx)] {
            let banks: Vec<_> = all.iter().filter(|(module, _)| module.ends_with(suffix)).map(|(_, m)| *m).collect();
            if banks.is_empty() {
                continue;
            }
            let bits: u64 = banks.iter().map(|m| m.bits()).sum();
            row.memories.push(results::MemoryRow {
                what: format!("{what} ({} bank{})", banks.len(), if banks.len() == 1 { "" } else { "s" }),
                depth: banks.iter().map(|m| m.depth).sum(),
                width: banks[0].width,
                copies: 1,
                provisioned_kib: kib(bits),
                usable_kib: Some(kib(used * 8)),
                bram36: banks.iter().filter_map(|m| m.bram36()).sum(),
            });
        }
        let payload = |module: &str| module.ends_with("$reassembly$payload") || module.ends_with("$tx$payload");
        let others: Vec<Memory> = all.iter().filter(|(module, _)| !payload(module)).map(|(_, m)| *m).collect();
        for (m, copies) in by_shape(&others) {
            let Some(tiles) = m.bram36() else {
                row.small_kib += kib(m.bits() * copies);
                continue;
            };
            let (what, usable) = match (m.depth, m.width as usize) {
                (d, SET_ENTRY_BITS) if d == 1 << DELIVERED_SET_BUCKET_BITS => {
                    ("delivered set (2 ways × 8 positions)", Some(kib(keys * SET_ENTRY_BITS as u64)))
                }
                _ => ("other", None),
            };
            row.memories.push(results::MemoryRow {
                what: what.to_string(),
                depth: m.depth,
                width: m.width,
                copies,
                provisioned_kib: kib(m.bits() * copies),
                usable_kib: usable,
                bram36: tiles * copies,
            });
        }
        rows.push(row);
    }
    Ok(rows)
}

/// [`SYNTH_CONFIGS`] that were generated, each with its hierarchy kept and flattened,
/// synthesised two at a time (Yosys runs on one core).
fn synthesise_nics(verilog: &Path, generated: &[(String, usize, PathBuf)]) -> Result<Vec<SynthRow>, String> {
    use nanotransport_flow::synth::{self, Hierarchy};
    let configs: Vec<&str> = SYNTH_CONFIGS.iter().copied().filter(|c| generated.iter().any(|g| g.0 == *c)).collect();
    let one = |(config, hierarchy): (&str, Hierarchy)| -> Result<synth::SynthReport, String> {
        let top = format!("nt_{}_nic", config.replace('-', "_"));
        let scratch = synth::scratch_dir(&top);
        let report = synth::synthesise(&verilog.join(config).join(format!("{top}.v")), &top, &scratch, hierarchy);
        let _ = std::fs::remove_dir_all(&scratch);
        let report = report?;
        eprintln!(
            "{config} ({hierarchy:?}): {} LUT, {} FF, {} levels ({:.0} s)",
            report.total.lut, report.total.ff, report.depth.levels, report.yosys_seconds
        );
        Ok(report)
    };
    let jobs: Vec<(&str, Hierarchy)> =
        [Hierarchy::Kept, Hierarchy::Flattened].iter().flat_map(|h| configs.iter().map(move |c| (*c, *h))).collect();
    let mut reports = Vec::new();
    for pair in jobs.chunks(2) {
        let results: Vec<Result<synth::SynthReport, String>> = std::thread::scope(|s| {
            let handles: Vec<_> = pair.iter().map(|job| s.spawn(move || one(*job))).collect();
            handles.into_iter().map(|h| h.join().unwrap_or_else(|_| Err("synthesis thread panicked".into()))).collect()
        });
        for (job, r) in pair.iter().zip(results) {
            reports.push((job.0, job.1, r?));
        }
    }
    let rows = configs
        .iter()
        .filter_map(|config| {
            let of = |h: Hierarchy| reports.iter().find(|r| r.0 == *config && r.1 == h).map(|r| &r.2);
            let kept = of(Hierarchy::Kept)?;
            let messages = nanotransport_hdl::configs::find_config(config).map(|c| c.messages).unwrap_or(0);
            let paper = TABLE_3_2.iter().find(|t| t.0 == messages && config.starts_with("ndp")).map(|t| (t.1, t.2));
            Some(SynthRow {
                config: config.to_string(),
                per_module: NicResources::of(kept),
                paper_lut_ff: paper,
                flattened: of(Hierarchy::Flattened).map(NicResources::of),
            })
        })
        .collect();
    Ok(rows)
}

/// Homa and Homa-Tr (those of the request's protocols) under each acknowledgement policy: the
/// incast at the request's buffers, then at its smaller ones with the thesis' sizes 20..38.
fn ack_policy_runs(r: &ReportRequest) -> Result<AckPolicies, String> {
    let mut out = AckPolicies::default();
    let protocols = r.protocols.iter().filter(|p| **p != Protocol::Ndp);
    for protocol in protocols {
        let buffers = r.buffers.iter().map(|b| (*b, None)).chain(r.ack_policy_buffers.iter().map(|b| (*b, Some((20, 38)))));
        for (buffer, sizes) in buffers {
            for policy in AckPolicy::ALL {
                let mut params = r.setup.params(*protocol, buffer)?;
                params.sizes = sizes.unwrap_or(params.sizes);
                params.sets.push((4 * CFG_ACK_POLICY as u64, policy.value()));
                let (res, _) = incast_run(&params, false)?;
                let row = AckPolicyRow::of(policy, incast_row(&res), &res);
                eprintln!(
                    "{protocol} {policy} {buffer} pkts: median {} p90 {}, {} abandoned, wall {:.1} s",
                    fmt_opt(row.incast.median_slowdown, 2),
                    fmt_opt(row.incast.p90_slowdown, 2),
                    row.abandoned,
                    row.incast.wall_s
                );
                out.setup.get_or_insert(params);
                out.runs.push(row);
            }
        }
    }
    Ok(out)
}

/// `results.md` into `out` and, given a README, its headline block (which must be there).
pub fn write_pages(results: &Results, out: &Path, readme: Option<&Path>) -> Result<(), String> {
    let page_path = out.join("results.md");
    io(std::fs::write(&page_path, results::render_page(results)), &page_path)?;
    if let Some(readme) = readme {
        let text = io(std::fs::read_to_string(readme), readme)?;
        let old = results::headline_in(&text).ok_or_else(|| {
            format!("{}: no results block between `{}` and `{}`", readme.display(), results::HEADLINE_BEGIN, results::HEADLINE_END)
        })?;
        let new_text = text.replacen(old, &results::render_headline(results), 1);
        io(std::fs::write(readme, new_text), readme)?;
        eprintln!("report: headline block of {} rendered", readme.display());
    }
    eprintln!("report: {}", page_path.display());
    Ok(())
}

/// `report --from-json`: the pages from a saved `results.json`, nothing run.
pub fn render_saved(json: &Path, out: &Path, readme: Option<&Path>) -> Result<bool, String> {
    let text = io(std::fs::read_to_string(json), json)?;
    let results: Results = serde_json::from_str(&text).map_err(|e| format!("{}: {e}", json.display()))?;
    if results.schema_version != results::SCHEMA_VERSION {
        return Err(format!("{}: schema version {}, this build reads {}", json.display(), results.schema_version, results::SCHEMA_VERSION));
    }
    io(std::fs::create_dir_all(out), out)?;
    write_pages(&results, out, readme)?;
    Ok(true)
}
