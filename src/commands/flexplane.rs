//! `flexplane bulk`: Flexplane's §4.1 bulk transfer (Tables 4.1 and 4.2) on the network testbench.

use crate::output::print_json;
use nanotransport_net::experiments::flexplane::{run_bulk, BulkParams, BulkResult};
use nanotransport_net::experiments::plot;
use nanotransport_net::schemes::Scheme;
use std::path::PathBuf;

/// How every experiment chooses its switch scheme: a name with `--scheme-set` settings, or a
/// TOML file.
#[derive(clap::Args, Clone, Debug)]
pub(crate) struct SchemeArgs {
    /// Switch schemes, comma-separated: droptail, red, dctcp, hull, priority, drr, wdrr (one run each)
    #[arg(long, value_delimiter = ',', default_value = "droptail,red,dctcp")]
    pub(crate) scheme: Vec<String>,
    /// Set a scheme parameter, KEY=VALUE (repeatable; with one scheme), e.g. k=40 for dctcp
    #[arg(long = "scheme-set", value_name = "KEY=VALUE")]
    pub(crate) scheme_set: Vec<String>,
    /// The scheme and its parameters from a TOML file (`scheme = "red"`, `min = 100`, …)
    #[arg(long, value_name = "FILE", conflicts_with_all = ["scheme", "scheme_set"])]
    pub(crate) scheme_file: Option<PathBuf>,
}

impl SchemeArgs {
    /// The schemes, resolved and checked.
    pub(crate) fn schemes(&self) -> Result<Vec<Scheme>, String> {
        if let Some(f) = &self.scheme_file {
            let text = std::fs::read_to_string(f).map_err(|e| format!("{}: {e}", f.display()))?;
            return Ok(vec![Scheme::from_toml(&text).map_err(|e| format!("{}: {e}", f.display()))?]);
        }
        if !self.scheme_set.is_empty() && self.scheme.len() != 1 {
            return Err(format!("--scheme-set needs exactly one --scheme ({} given)", self.scheme.len()));
        }
        self.scheme.iter().map(|s| Scheme::from_sets(s.trim(), &self.scheme_set)).collect()
    }
}

/// `flexplane bulk`'s arguments.
#[derive(clap::Args, Clone, Debug)]
pub(crate) struct BulkArgs {
    #[command(flatten)]
    pub(crate) scheme: SchemeArgs,
    /// Senders into the receiver's port
    #[arg(long, default_value_t = 5)]
    pub(crate) senders: usize,
    /// Link rate, Gb/s
    #[arg(long, default_value_t = 10.0)]
    pub(crate) gbps: f64,
    /// Propagation delay per link, ns (7000: an unloaded RTT of about 30 µs)
    #[arg(long, default_value_t = 7000.0)]
    pub(crate) link_ns: f64,
    /// Simulated seconds, warm-up included
    #[arg(long, default_value_t = 11.0)]
    pub(crate) seconds: f64,
    /// Warm-up excluded from every statistic, s
    #[arg(long, default_value_t = 1.0)]
    pub(crate) warmup_s: f64,
    /// Fairness interval, s
    #[arg(long, default_value_t = 1.0)]
    pub(crate) interval_s: f64,
    /// Seed (senders' start times, RED's marking)
    #[arg(long, default_value_t = 1)]
    pub(crate) seed: u64,
    /// How much faster the senders' links run than the switch port to the receiver, ppm
    #[arg(long, default_value_t = 100.0)]
    pub(crate) sender_ppm: f64,
    /// TCP minimum RTO, ms (Linux: 200)
    #[arg(long, default_value_t = 200.0)]
    pub(crate) min_rto_ms: f64,
    /// Acknowledge every segment (Linux delays ACKs)
    #[arg(long)]
    pub(crate) no_delayed_ack: bool,
    /// Print JSON instead of a table
    #[arg(long)]
    pub(crate) json: bool,
    /// Write the queue-over-time SVG (and each run's JSON) into DIR
    #[arg(long, value_name = "DIR")]
    pub(crate) plot: Option<PathBuf>,
}

fn progress_bar(prefix: String, total_s: f64) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::new((total_s * 1000.0) as u64);
    bar.set_style(indicatif::ProgressStyle::with_template("{prefix} [{bar:30}] {msg} ({elapsed})").unwrap().progress_chars("=> "));
    bar.set_prefix(prefix);
    bar
}

fn print_bulk(results: &[BulkResult]) {
    let p = &results[0].params;
    println!(
        "Flexplane §4.1 bulk: {} TCP senders → 1 receiver, {} Gb/s, {} µs per link, {} s simulated ({} s warm-up), seed {}",
        p.senders,
        p.gbps,
        p.link_ns / 1000.0,
        p.seconds,
        p.warmup_s,
        p.seed
    );
    println!("paper: 5 senders, 10 Gb/s, Linux 3.18 (CUBIC; DCTCP for DCTCP), 5 minutes; hardware switch (Flexplane in brackets)");
    println!(
        "{:<9} {:>6} {:>15} {:>15} {:>17} {:>17} {:>8} {:>8} {:>7} {:>9} {:>9}",
        "scheme", "cc", "queue median", "queue σ", "fairness median", "fairness σ", "goodput", "dropped", "CE", "timeouts", "sim s/s"
    );
    for r in results {
        let paper = |v: f64, h: Option<(f64, f64)>, digits: usize| match h {
            Some((hw, fx)) => format!("{v:.digits$} ({hw}/{fx})"),
            None => format!("{v:.digits$}"),
        };
        let pp = r.paper;
        println!(
            "{:<9} {:>6} {:>15} {:>15} {:>17} {:>17} {:>8.2} {:>8} {:>7} {:>9} {:>9.2}",
            r.params.scheme.name(),
            format!("{:?}", r.params.tcp.cc).to_lowercase(),
            paper(r.queue_median_pkts, pp.map(|p| (p.queue_hardware.0, p.queue_flexplane.0)), 0),
            paper(r.queue_sigma_pkts, pp.map(|p| (p.queue_hardware.1, p.queue_flexplane.1)), 1),
            paper(r.fairness_median, pp.map(|p| (p.fairness_hardware.0, p.fairness_flexplane.0)), 3),
            paper(r.fairness_sigma, pp.map(|p| (p.fairness_hardware.1, p.fairness_flexplane.1)), 3),
            r.goodput_gbps,
            r.dropped,
            r.ce_marked,
            r.timeouts,
            r.simulated_s_per_wall_s
        );
    }
    println!("queue in packets (hardware/Flexplane in brackets: Table 4.2); fairness: Jain's index over 1 s (Table 4.1); goodput: payload Gb/s (hardware 9.4 on the wire)");
}

pub(crate) fn bulk_cmd(a: &BulkArgs) -> Result<bool, String> {
    let mut results = Vec::new();
    for scheme in a.scheme.schemes()? {
        let mut p = BulkParams::defaults(scheme);
        p.senders = a.senders;
        p.gbps = a.gbps;
        p.link_ns = a.link_ns;
        p.seconds = a.seconds;
        p.warmup_s = a.warmup_s;
        p.interval_s = a.interval_s;
        p.seed = a.seed;
        p.sender_ppm = a.sender_ppm;
        p.tcp.min_rto_ms = a.min_rto_ms;
        p.tcp.delayed_ack = !a.no_delayed_ack;
        p.validate()?;
        let bar = progress_bar(p.scheme.name().to_string(), p.seconds);
        let r = run_bulk(&p, &mut |s| {
            bar.set_position((s * 1000.0) as u64);
            bar.set_message(format!("{s:.2} s simulated"));
        })?;
        bar.finish_and_clear();
        results.push(r);
    }
    if let Some(dir) = &a.plot {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let series: Vec<(String, Vec<(f64, f64)>)> =
            results.iter().map(|r| (r.params.scheme.name().to_string(), r.queue.iter().map(|(t, n)| (*t, *n as f64)).collect())).collect();
        plot::lines_svg(
            &dir.join("flexplane-bulk-queue.svg"),
            "Bottleneck queue, 5 TCP senders → 1",
            ("time (ms)", "queue (packets)"),
            &series,
        )?;
        for r in &results {
            let path = dir.join(format!("flexplane-bulk-{}.json", r.params.scheme.name()));
            std::fs::write(&path, serde_json::to_string_pretty(r).map_err(|e| e.to_string())?)
                .map_err(|e| format!("{}: {e}", path.display()))?;
        }
    }
    if a.json {
        print_json(serde_json::json!({ "runs": results }));
    } else {
        print_bulk(&results);
    }
    Ok(true)
}
