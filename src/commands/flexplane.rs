//! `flexplane bulk`: Flexplane's §4.1 bulk transfer (Tables 4.1 and 4.2) on the network testbench.

use crate::output::{print_json, with_progress, write_json};
use crate::results::{self, FlexplaneRow, RpcRow};
use nanotransport_net::experiments::flexplane::{
    run_bulk, run_rpc, BulkParams, BulkResult, RpcParams, RpcResult, BULK_SCHEMES, RPC_SCHEMES,
};
use nanotransport_net::experiments::plot;
use nanotransport_net::schemes::Scheme;
use std::path::PathBuf;

/// How every experiment chooses its switch scheme: a name with `--scheme-set` settings, or a
/// TOML file.
#[derive(clap::Args, Clone, Debug)]
pub(crate) struct SchemeArgs {
    /// Switch schemes by name, comma-separated, one run each: droptail, red, dctcp, hull, priority, drr, wdrr
    /// (default: the experiment's own — DropTail, RED and DCTCP for `flexplane bulk`, the protocol's queue disc for the incast)
    #[arg(long, value_delimiter = ',')]
    pub(crate) scheme: Vec<String>,
    /// Set a scheme parameter, KEY=VALUE (repeatable; with one scheme), e.g. k=40 for dctcp
    #[arg(long = "scheme-set", value_name = "KEY=VALUE")]
    pub(crate) scheme_set: Vec<String>,
    /// The scheme and its parameters from a TOML file (`scheme = "red"`, `min = 100`, …)
    #[arg(long, value_name = "FILE", conflicts_with_all = ["scheme", "scheme_set"])]
    pub(crate) scheme_file: Option<PathBuf>,
}

impl SchemeArgs {
    /// The schemes, resolved and checked (none: the experiment's default).
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

    /// At most one scheme (an experiment that runs one switch setup).
    pub(crate) fn one_scheme(&self) -> Result<Option<Scheme>, String> {
        let mut schemes = self.schemes()?;
        if schemes.len() > 1 {
            return Err(format!("--scheme: one scheme here ({} given)", schemes.len()));
        }
        Ok(schemes.pop())
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
    /// Fairness interval, s
    #[arg(long, default_value_t = 1.0)]
    pub(crate) interval_s: f64,
    /// How much faster the senders' links run than the switch port to the receiver, ppm
    #[arg(long, default_value_t = 100.0)]
    pub(crate) sender_ppm: f64,
    #[command(flatten)]
    pub(crate) run: RunArgs,
}

/// What every Flexplane experiment takes besides its own setup.
#[derive(clap::Args, Clone, Debug)]
pub(crate) struct RunArgs {
    /// Simulated seconds, warm-up included (rpc: seconds of requests, then a 1 s drain)
    #[arg(long, default_value_t = 11.0)]
    pub(crate) seconds: f64,
    /// Warm-up excluded from every statistic, s
    #[arg(long, default_value_t = 1.0)]
    pub(crate) warmup_s: f64,
    /// Seed (start or request times, request sizes and servers, RED's marking)
    #[arg(long, default_value_t = 1)]
    pub(crate) seed: u64,
    /// TCP minimum RTO, ms (Linux: 200)
    #[arg(long, default_value_t = 200.0)]
    pub(crate) min_rto_ms: f64,
    /// Acknowledge every segment (Linux delays ACKs)
    #[arg(long)]
    pub(crate) no_delayed_ack: bool,
    /// Print JSON instead of a table
    #[arg(long)]
    pub(crate) json: bool,
    /// Write the plot (bulk: queue over time; rpc: Fig. 4-2) and each run's JSON into DIR
    #[arg(long, value_name = "DIR")]
    pub(crate) plot: Option<PathBuf>,
}

impl RunArgs {
    /// The hosts' TCP settings these arguments change.
    fn apply(&self, tcp: &mut nanotransport_net::tcp::TcpConfig) {
        tcp.min_rto_ms = self.min_rto_ms;
        tcp.delayed_ack = !self.no_delayed_ack;
    }

    /// Writes each run's JSON as `<prefix>-<scheme>.json` into the plot folder (made here).
    fn write_runs<T: serde::Serialize>(&self, prefix: &str, runs: &[(String, T)]) -> Result<Option<&PathBuf>, String> {
        let Some(dir) = &self.plot else { return Ok(None) };
        for (scheme, r) in runs {
            write_json(&dir.join(format!("{prefix}-{scheme}.json")), r)?;
        }
        Ok(Some(dir))
    }
}

/// The setup of a set of bulk runs, in words, beside the paper's.
pub(crate) fn bulk_setup(p: &BulkParams) -> String {
    format!(
        "{} TCP senders → 1 receiver, {} Gb/s, {} µs per link (senders' links +{} ppm), {} s simulated with {} s warm-up, \
         fairness over {} s, queue sampled every {} ms, seed {}. Paper: 5 senders, 10 Gb/s, Linux 3.18 (CUBIC; DCTCP with DCTCP), 5 minutes.",
        p.senders,
        p.gbps,
        p.link_ns / 1000.0,
        p.sender_ppm,
        p.seconds,
        p.warmup_s,
        p.interval_s,
        p.sample_ms,
        p.seed
    )
}

/// A run's row of the results.
pub(crate) fn bulk_row(r: &BulkResult) -> FlexplaneRow {
    FlexplaneRow {
        scheme: r.params.scheme.name().to_string(),
        congestion_control: cc_name(r.params.tcp.cc),
        queue_median_pkts: r.queue_median_pkts,
        queue_sigma_pkts: r.queue_sigma_pkts,
        fairness_median: r.fairness_median,
        fairness_sigma: r.fairness_sigma,
        goodput_gbps: r.goodput_gbps,
        dropped: r.dropped,
        timeouts: r.timeouts,
        simulated_s_per_wall_s: r.simulated_s_per_wall_s,
        paper: r.paper,
    }
}

/// Runs `p` with a progress bar on stderr.
pub(crate) fn bulk_run(p: &BulkParams) -> Result<BulkResult, String> {
    with_progress(p.scheme.name().to_string(), p.seconds, "s", |progress| run_bulk(p, progress))
}

/// The queue-over-time plot of `results` (every `every`-th sample) into `path`.
pub(crate) fn bulk_plot(results: &[BulkResult], path: &std::path::Path, every: usize) -> Result<(), String> {
    let series: Vec<(String, Vec<(f64, f64)>)> = results
        .iter()
        .map(|r| (r.params.scheme.name().to_string(), r.queue.iter().step_by(every.max(1)).map(|(t, n)| (*t, *n as f64)).collect()))
        .collect();
    plot::lines_svg(path, "Bottleneck queue, TCP senders → 1 receiver", ("time (ms)", "queue (packets)"), &series)
}

pub(crate) fn bulk_cmd(a: &BulkArgs) -> Result<bool, String> {
    let mut schemes = a.scheme.schemes()?;
    if schemes.is_empty() {
        schemes = BULK_SCHEMES.iter().map(|n| Scheme::named(n)).collect::<Result<_, _>>()?;
    }
    let mut results = Vec::new();
    for scheme in schemes {
        let mut p = BulkParams::defaults(scheme);
        p.senders = a.senders;
        p.gbps = a.gbps;
        p.link_ns = a.link_ns;
        (p.seconds, p.warmup_s, p.seed) = (a.run.seconds, a.run.warmup_s, a.run.seed);
        p.interval_s = a.interval_s;
        p.sender_ppm = a.sender_ppm;
        a.run.apply(&mut p.tcp);
        p.validate()?;
        results.push(bulk_run(&p)?);
    }
    let named: Vec<(String, &BulkResult)> = results.iter().map(|r| (r.params.scheme.name().to_string(), r)).collect();
    if let Some(dir) = a.run.write_runs("flexplane-bulk", &named)? {
        bulk_plot(&results, &dir.join("flexplane-bulk-queue.svg"), 1)?;
    }
    if a.run.json {
        print_json(serde_json::json!({ "runs": results }));
    } else {
        println!("{}\n", bulk_setup(&results[0].params));
        print!("{}", results::flexplane_table(&results.iter().map(bulk_row).collect::<Vec<_>>()));
        println!("\nqueue: packets at the bottleneck port every 1 ms (Table 4.2); fairness: Jain's index per interval (Table 4.1); goodput: payload (the hardware's 9.4 Gb/s is on the wire)");
    }
    Ok(true)
}

/// `flexplane rpc`'s arguments.
#[derive(clap::Args, Clone, Debug)]
pub(crate) struct RpcArgs {
    #[command(flatten)]
    pub(crate) scheme: SchemeArgs,
    /// Clients
    #[arg(long, default_value_t = 4)]
    pub(crate) clients: usize,
    /// Servers
    #[arg(long, default_value_t = 32)]
    pub(crate) servers: usize,
    /// Load of each client's link from responses (Poisson requests)
    #[arg(long, default_value_t = 0.6)]
    pub(crate) load: f64,
    #[command(flatten)]
    pub(crate) run: RunArgs,
}

/// The setup of a set of RPC runs, in words, beside the paper's.
pub(crate) fn rpc_setup(p: &RpcParams) -> String {
    format!(
        "{} clients, {} servers, {} Gb/s, {} µs per link; responses {} B ({:.0} %, DSCP 0) and {} B (DSCP 1), Poisson at {:.0} % of a client link; \
         {} s of requests ({} s warm-up, 1 s drain), seed {}. Paper: 4 clients, 32 servers, 1.5 KB (80 %) / 10 MB, ~60 %, 5 minutes.",
        p.clients,
        p.servers,
        p.gbps,
        p.link_ns / 1000.0,
        p.short_bytes,
        p.short_fraction * 100.0,
        p.long_bytes,
        p.load * 100.0,
        p.seconds,
        p.warmup_s,
        p.seed
    )
}

/// A run's row of the results.
pub(crate) fn rpc_row(r: &RpcResult) -> RpcRow {
    RpcRow {
        scheme: r.params.scheme.name().to_string(),
        congestion_control: cc_name(r.params.tcp.cc),
        short_requests: r.short.requests,
        short_mean_us: r.short.mean_us,
        short_p99_us: r.short.p99_us,
        long_requests: r.long.requests,
        long_mean_us: r.long.mean_us,
        long_p99_us: r.long.p99_us,
        unanswered: r.unanswered,
        client_link_load: r.client_link_load,
        dropped: r.dropped,
        timeouts: r.timeouts,
        simulated_s_per_wall_s: r.simulated_s_per_wall_s,
    }
}

fn cc_name(cc: nanotransport_net::tcp::CongestionControl) -> String {
    serde_json::to_value(cc).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
}

/// Runs `p` with a progress bar on stderr.
pub(crate) fn rpc_run(p: &RpcParams) -> Result<RpcResult, String> {
    with_progress(format!("{} rpc", p.scheme.name()), p.seconds + 1.0, "s", |progress| run_rpc(p, progress))
}

/// Fig. 4-2: each scheme's mean completion time of short vs long requests, with its per-second
/// means faded.
pub(crate) fn rpc_plot(results: &[RpcResult], path: &std::path::Path) -> Result<(), String> {
    let series: Vec<(String, (f64, f64), Vec<(f64, f64)>)> = results
        .iter()
        .filter_map(|r| {
            let mean = (r.short.mean_us?, r.long.mean_us? / 1000.0);
            let faded = r
                .short
                .per_second_mean_us
                .iter()
                .zip(&r.long.per_second_mean_us)
                .filter_map(|(s, l)| Some(((*s)?, (*l)? / 1000.0)))
                .collect();
            Some((r.params.scheme.name().to_string(), mean, faded))
        })
        .collect();
    plot::points_svg(
        path,
        "Short vs long requests (Fig. 4-2)",
        ("short request, mean completion (µs)", "long request, mean completion (ms)"),
        &series,
    )
}

pub(crate) fn rpc_cmd(a: &RpcArgs) -> Result<bool, String> {
    let mut schemes = a.scheme.schemes()?;
    if schemes.is_empty() {
        schemes = RPC_SCHEMES.iter().map(|n| Scheme::named(n)).collect::<Result<_, _>>()?;
    }
    let mut results: Vec<RpcResult> = Vec::new();
    for scheme in schemes {
        let mut p = RpcParams::defaults(scheme);
        (p.clients, p.servers, p.load) = (a.clients, a.servers, a.load);
        (p.seconds, p.warmup_s, p.seed) = (a.run.seconds, a.run.warmup_s, a.run.seed);
        a.run.apply(&mut p.tcp);
        p.validate()?;
        results.push(rpc_run(&p)?);
    }
    let named: Vec<(String, &RpcResult)> = results.iter().map(|r| (r.params.scheme.name().to_string(), r)).collect();
    if let Some(dir) = a.run.write_runs("flexplane-rpc", &named)? {
        rpc_plot(&results, &dir.join("flexplane-rpc.svg"))?;
    }
    if a.run.json {
        print_json(serde_json::json!({ "runs": results }));
        return Ok(true);
    }
    println!("Flexplane §4.2 RPC: {}\n", rpc_setup(&results[0].params));
    print!("{}", results::rpc_table(&results.iter().map(rpc_row).collect::<Vec<_>>()));
    Ok(true)
}
