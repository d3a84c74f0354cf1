//! `pl2 incast`, `pl2 outcast` and `pl2 rpc`: PL2's incast and outcast (PL2 paper §6.4, Figs. 9
//! and 10) and its memcached runs (§6.2, Figs. 3–6) on the network testbench, with the
//! reservation block's RTL in the switch, beside the same hosts without PL2.

use crate::output::{print_json, with_progress, write_json};
use crate::results;
use nanotransport_net::experiments::pl2::{run_pl2, Pl2Run, Pl2RunParams, TARGETS};
use nanotransport_net::experiments::pl2_rpc::{run_pl2_rpc, Background, Pl2RpcParams, Pl2RpcRun, RPC_TARGETS};
use nanotransport_net::experiments::plot;
use std::path::PathBuf;

/// `pl2 incast`'s arguments.
#[derive(clap::Args, Clone, Debug)]
pub(crate) struct Pl2IncastArgs {
    /// Senders into the receiver's port
    #[arg(long, default_value_t = 4)]
    pub(crate) senders: usize,
    /// Offered loads, % of the receiver's link, comma-separated; each runs with and without PL2
    #[arg(long, value_delimiter = ',', default_values_t = [50.0, 100.0, 200.0, 400.0])]
    pub(crate) load: Vec<f64>,
    #[command(flatten)]
    pub(crate) run: Pl2Args,
}

/// `pl2 outcast`'s arguments.
#[derive(clap::Args, Clone, Debug)]
pub(crate) struct Pl2OutcastArgs {
    /// Receiver counts, comma-separated; each runs with and without PL2 (flow i goes to receiver i mod N)
    #[arg(long, value_delimiter = ',', default_values_t = [1, 2, 3, 4])]
    pub(crate) receivers: Vec<usize>,
    /// Offered load, % of the sender's link (200: the sender always has a message waiting, as the paper's persistent traffic)
    #[arg(long, default_value_t = 200.0)]
    pub(crate) load: f64,
    #[command(flatten)]
    pub(crate) run: Pl2Args,
}

/// What both PL2 experiments take besides their shape.
#[derive(clap::Args, Clone, Debug)]
pub(crate) struct Pl2Args {
    /// Flows per sender (one RSV outstanding each)
    #[arg(long, default_value_t = 12)]
    pub(crate) flows: usize,
    #[command(flatten)]
    pub(crate) pl2: Pl2BlockArgs,
    /// Never send a burst before its GRT
    #[arg(long)]
    pub(crate) no_unsolicited: bool,
    /// Microseconds of offered messages, warm-up included
    #[arg(long, default_value_t = 2000.0)]
    pub(crate) duration_us: f64,
    /// Warm-up, µs: goodput, queue, latency and message counts leave it out (drops and burst counts do not)
    #[arg(long, default_value_t = 200.0)]
    pub(crate) warmup_us: f64,
    /// Microseconds after the offer stops for queued messages to finish
    #[arg(long, default_value_t = 1000.0)]
    pub(crate) drain_us: f64,
    /// Seed of the message arrivals
    #[arg(long, default_value_t = 1)]
    pub(crate) seed: u64,
    /// Print JSON instead of a table
    #[arg(long)]
    pub(crate) json: bool,
    /// Write the plots (goodput and queue p99 against load) and each run's JSON into DIR
    #[arg(long, value_name = "DIR")]
    pub(crate) plot: Option<PathBuf>,
}

/// PL2's parameters and the switch buffer, for every PL2 experiment.
#[derive(clap::Args, Clone, Debug)]
pub(crate) struct Pl2BlockArgs {
    /// K: packets per burst
    #[arg(long, default_value_t = 4)]
    pub(crate) k: u8,
    /// t: chosen timeslots below which a burst may go unsolicited
    #[arg(long, default_value_t = 15)]
    pub(crate) t: u32,
    /// T: reserved output timeslots above which the switch drops unsolicited data
    #[arg(long, default_value_t = 64)]
    pub(crate) unsolicited_limit: u32,
    /// Switch buffer per port, bytes (both arms)
    #[arg(long, default_value_t = 200_000)]
    pub(crate) buffer_bytes: usize,
}

impl Pl2Args {
    fn params(&self, senders: usize, receivers: usize, load: f64, pl2: bool) -> Pl2RunParams {
        let mut p = Pl2RunParams::defaults(senders, load, pl2);
        p.receivers = receivers;
        (p.flows, p.k, p.t, p.unsolicited_limit, p.unsolicited) =
            (self.flows, self.pl2.k, self.pl2.t, self.pl2.unsolicited_limit, !self.no_unsolicited);
        p.buffer_bytes = self.pl2.buffer_bytes;
        (p.duration_us, p.warmup_us, p.drain_us, p.seed) = (self.duration_us, self.warmup_us, self.drain_us, self.seed);
        p
    }
}

/// The setup in words, beside the paper's.
pub(crate) fn pl2_setup(p: &Pl2RunParams) -> String {
    format!(
        "senders {} (× {} flows) → receivers {}, {} Gb/s, {} ns per link, {}-packet messages (Poisson), buffer {} B per port; \
         K = {}, t = {}, T = {}, unsolicited bursts {}; {} µs offered ({} µs warm-up, {} µs drain), seed {}. \
         Paper: incast up to 4 senders, outcast up to 4 receivers, 12 flows per sender, 100 Gb/s, 6 KiB messages, K = 4, t = 15, Tofino with < 200 KB buffer.",
        p.senders,
        p.flows,
        p.receivers,
        p.gbps,
        p.link_ns,
        p.message_packets,
        p.buffer_bytes,
        p.k,
        p.t,
        p.unsolicited_limit,
        if p.unsolicited { "on" } else { "off" },
        p.duration_us,
        p.warmup_us,
        p.drain_us,
        p.seed
    )
}

pub(crate) fn run(p: &Pl2RunParams) -> Result<Pl2Run, String> {
    let arm = if p.pl2 { "PL2" } else { "raw" };
    let prefix = format!("{}→{} at {} % {arm}", p.senders, p.receivers, p.load_percent);
    with_progress(prefix, p.duration_us + p.drain_us, "µs", |progress| run_pl2(p, progress))
}

/// The shape of one experiment: its name, the quantity it varies and how to read it off a run.
pub(crate) struct Sweep {
    name: &'static str,
    x_label: &'static str,
    x: fn(&Pl2RunParams) -> f64,
}

pub(crate) const INCAST: Sweep = Sweep { name: "incast", x_label: "offered load (% of the link)", x: |p| p.load_percent };
pub(crate) const OUTCAST: Sweep = Sweep { name: "outcast", x_label: "receivers", x: |p| p.receivers as f64 };

/// Goodput and queue p99 against the varied quantity, one line per arm.
pub(crate) fn plots(sweep: &Sweep, runs: &[Pl2Run], dir: &std::path::Path) -> Result<(), String> {
    let series = |f: fn(&Pl2Run) -> f64| -> Vec<(String, Vec<(f64, f64)>)> {
        [(true, "with PL2"), (false, "without PL2 (raw Ethernet)")]
            .iter()
            .map(|(pl2, name)| {
                (name.to_string(), runs.iter().filter(|r| r.params.pl2 == *pl2).map(|r| ((sweep.x)(&r.params), f(r))).collect())
            })
            .collect()
    };
    let file = |what: &str| dir.join(format!("pl2-{}-{what}.svg", sweep.name));
    plot::lines_svg(
        &file("goodput"),
        &format!("PL2 {}: goodput", sweep.name),
        (sweep.x_label, "goodput (Gb/s)"),
        &series(|r| r.goodput_gbps),
    )?;
    plot::lines_svg(
        &file("queue"),
        &format!("PL2 {}: receivers' switch queue, p99", sweep.name),
        (sweep.x_label, "queue p99 (KB)"),
        &series(|r| r.queue_p99_bytes / 1000.0),
    )
}

pub(crate) fn pl2_incast_cmd(a: &Pl2IncastArgs) -> Result<bool, String> {
    if a.load.is_empty() {
        return Err("--load: at least one load".into());
    }
    let shapes: Vec<(usize, usize, f64)> = a.load.iter().map(|l| (a.senders, 1, *l)).collect();
    sweep_cmd(&INCAST, &shapes, &a.run)
}

pub(crate) fn pl2_outcast_cmd(a: &Pl2OutcastArgs) -> Result<bool, String> {
    if a.receivers.is_empty() {
        return Err("--receivers: at least one count".into());
    }
    let shapes: Vec<(usize, usize, f64)> = a.receivers.iter().map(|r| (1, *r, a.load)).collect();
    sweep_cmd(&OUTCAST, &shapes, &a.run)
}

/// Runs every (senders, receivers, load) with PL2 and without, with the parameters `params`
/// makes of them.
pub(crate) fn sweep_runs(
    shapes: &[(usize, usize, f64)],
    params: impl Fn(usize, usize, f64, bool) -> Pl2RunParams,
) -> Result<Vec<Pl2Run>, String> {
    let mut runs = Vec::new();
    for &(senders, receivers, load) in shapes {
        for pl2 in [true, false] {
            let p = params(senders, receivers, load, pl2);
            p.validate()?;
            runs.push(run(&p)?);
        }
    }
    Ok(runs)
}

/// Runs every (senders, receivers, load) with and without PL2; prints or writes the results.
fn sweep_cmd(sweep: &Sweep, shapes: &[(usize, usize, f64)], a: &Pl2Args) -> Result<bool, String> {
    let runs = sweep_runs(shapes, |s, r, l, pl2| a.params(s, r, l, pl2))?;
    if let Some(dir) = &a.plot {
        write_json(&dir.join(format!("pl2-{}.json", sweep.name)), &runs)?;
        plots(sweep, &runs, dir)?;
    }
    if a.json {
        print_json(serde_json::json!({ "runs": runs }));
        return Ok(true);
    }
    println!("PL2 {}: {}\n", sweep.name, pl2_setup(&runs[0].params));
    print!("{}", results::pl2_table(&runs));
    println!(
        "\ngoodput: distinct payload at the receivers, warm-up to the end of the offer; drops: the switch's buffer, and unsolicited data the reservation block refused; \
         queue: the receivers' switch ports every 100 ns; latency: message creation to its last packet, messages created after the warm-up; \
         targets: {TARGETS}."
    );
    Ok(true)
}

/// `pl2 rpc`'s arguments.
#[derive(clap::Args, Clone, Debug)]
pub(crate) struct Pl2RpcArgs {
    /// Background traffic: tcp (bulk transfers, CUBIC without PL2) or udp (messages, no congestion control)
    #[arg(long, default_value = "udp")]
    pub(crate) background: Background,
    /// Background host counts, comma-separated; each runs with and without PL2 (0: unloaded)
    #[arg(long, value_delimiter = ',', default_values_t = [0, 1, 2, 3, 4])]
    pub(crate) senders: Vec<usize>,
    /// UDP: each background host's offered load, % of its link
    #[arg(long, default_value_t = 100.0)]
    pub(crate) load_per_sender: f64,
    /// Flows per background host: TCP connections or UDP message flows (one RSV outstanding each under PL2)
    #[arg(long, default_value_t = 12)]
    pub(crate) flows: usize,
    /// Bytes of every memcached value (the paper: 1 KiB and 4 KiB)
    #[arg(long, default_value_t = 4096)]
    pub(crate) value_bytes: u64,
    /// TCP's window under PL2, where its congestion control is off, segments
    #[arg(long, default_value_t = 64)]
    pub(crate) tcp_window_segments: u32,
    /// TCP's minimum retransmission timeout, ms (both arms; Linux: 200)
    #[arg(long, default_value_t = 200.0)]
    pub(crate) min_rto_ms: f64,
    #[command(flatten)]
    pub(crate) pl2: Pl2BlockArgs,
    /// Microseconds simulated, warm-up included
    #[arg(long, default_value_t = 2000.0)]
    pub(crate) duration_us: f64,
    /// Warm-up, µs: latency and transactions leave out the requests sent before it
    #[arg(long, default_value_t = 200.0)]
    pub(crate) warmup_us: f64,
    /// Seed of the background's message arrivals
    #[arg(long, default_value_t = 1)]
    pub(crate) seed: u64,
    /// Print JSON instead of a table
    #[arg(long)]
    pub(crate) json: bool,
    /// Write the plots (p99 latency and transactions per second against background hosts) and the runs' JSON into DIR
    #[arg(long, value_name = "DIR")]
    pub(crate) plot: Option<PathBuf>,
}

impl Pl2RpcArgs {
    pub(crate) fn params(&self, senders: usize, pl2: bool) -> Pl2RpcParams {
        Pl2RpcParams {
            load_per_sender: self.load_per_sender,
            flows: self.flows,
            value_bytes: self.value_bytes,
            tcp_window_segments: self.tcp_window_segments,
            min_rto_ms: self.min_rto_ms,
            k: self.pl2.k,
            t: self.pl2.t,
            unsolicited_limit: self.pl2.unsolicited_limit,
            buffer_bytes: self.pl2.buffer_bytes,
            duration_us: self.duration_us,
            warmup_us: self.warmup_us,
            seed: self.seed,
            ..Pl2RpcParams::defaults(self.background, senders, pl2)
        }
    }
}

/// The memcached setup in words, beside the paper's.
pub(crate) fn pl2_rpc_setup(p: &Pl2RpcParams) -> String {
    let background = match p.background {
        Background::Tcp => "TCP bulk transfers".to_string(),
        Background::Udp => format!("UDP-like messages at {} % of a link each", p.load_per_sender),
    };
    format!(
        "a closed-loop client GETs {}-byte values from one server while background hosts (the `hosts` column) send {background} to the client, {} flows each; {} Gb/s, {} ns per link, buffer {} B per port; \
         TCP: CUBIC without PL2, congestion control off with a {}-segment window under PL2, min RTO {} ms; K = {}, t = {}, T = {}; {} µs ({} µs warm-up), seed {}. \
         Paper: memcached over VMA TCP, 64 B keys, 1 KiB and 4 KiB values, 1–4 background hosts (the first is the memcached server), 100 Gb/s, Tofino with < 200 KB buffer.",
        p.value_bytes,
        p.flows,
        p.gbps,
        p.link_ns,
        p.buffer_bytes,
        p.tcp_window_segments,
        p.min_rto_ms,
        p.k,
        p.t,
        p.unsolicited_limit,
        p.duration_us,
        p.warmup_us,
        p.seed
    )
}

/// Every background count with PL2 and without.
pub(crate) fn rpc_runs(senders: &[usize], params: impl Fn(usize, bool) -> Pl2RpcParams) -> Result<Vec<Pl2RpcRun>, String> {
    let mut runs = Vec::new();
    for &s in senders {
        for pl2 in [true, false] {
            let p = params(s, pl2);
            p.validate()?;
            let prefix = format!("memcached, {s} background host(s) {}", if pl2 { "PL2" } else { "without PL2" });
            runs.push(with_progress(prefix, p.duration_us, "µs", |progress| run_pl2_rpc(&p, progress))?);
        }
    }
    Ok(runs)
}

/// p99 latency and transactions per second against the background hosts, one line per arm.
pub(crate) fn rpc_plots(runs: &[Pl2RpcRun], dir: &std::path::Path) -> Result<(), String> {
    let Some(first) = runs.first() else { return Ok(()) };
    let name = first.params.background.to_string().to_lowercase();
    let series = |f: fn(&Pl2RpcRun) -> f64| -> Vec<(String, Vec<(f64, f64)>)> {
        [(true, "with PL2"), (false, "without PL2")]
            .iter()
            .map(|(pl2, label)| {
                (label.to_string(), runs.iter().filter(|r| r.params.pl2 == *pl2).map(|r| (r.params.senders as f64, f(r))).collect())
            })
            .collect()
    };
    let x = "background hosts";
    plot::lines_svg(
        &dir.join(format!("pl2-rpc-{name}-latency.svg")),
        &format!("PL2 memcached, {name} background: RPC latency p99"),
        (x, "p99 (µs)"),
        &series(|r| r.latency_p99_us.unwrap_or(0.0)),
    )?;
    plot::lines_svg(
        &dir.join(format!("pl2-rpc-{name}-transactions.svg")),
        &format!("PL2 memcached, {name} background: transactions per second"),
        (x, "transactions per second"),
        &series(|r| r.transactions_per_s),
    )
}

pub(crate) fn pl2_rpc_cmd(a: &Pl2RpcArgs) -> Result<bool, String> {
    if a.senders.is_empty() {
        return Err("--senders: at least one count".into());
    }
    let runs = rpc_runs(&a.senders, |s, pl2| a.params(s, pl2))?;
    if let Some(dir) = &a.plot {
        write_json(&dir.join(format!("pl2-rpc-{}.json", a.background.to_string().to_lowercase())), &runs)?;
        rpc_plots(&runs, dir)?;
    }
    if a.json {
        print_json(serde_json::json!({ "runs": runs }));
        return Ok(true);
    }
    println!("PL2 memcached: {}\n", pl2_rpc_setup(&runs[0].params));
    print!("{}", results::pl2_rpc_table(&runs));
    println!(
        "\nlatency: request sent to the last byte of its value, requests sent after the warm-up; one still unanswered at the end counts with its age (a lower bound); \
         client link: every frame to the client over the whole run; targets: {RPC_TARGETS}."
    );
    Ok(true)
}
