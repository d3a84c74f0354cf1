//! `pl2 incast` and `pl2 outcast`: PL2's incast and outcast (PL2 paper §6.4, Figs. 9 and 10) on
//! the network testbench, with the reservation block's RTL in the switch, beside the same senders
//! without PL2.

use crate::output::{print_json, with_progress, write_json};
use crate::results;
use nanotransport_net::experiments::pl2::{run_pl2, Pl2Run, Pl2RunParams, TARGETS};
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
    /// K: packets per burst
    #[arg(long, default_value_t = 4)]
    pub(crate) k: u8,
    /// t: chosen timeslots below which a burst may go unsolicited
    #[arg(long, default_value_t = 15)]
    pub(crate) t: u32,
    /// T: reserved output timeslots above which the switch drops unsolicited data
    #[arg(long, default_value_t = 64)]
    pub(crate) unsolicited_limit: u32,
    /// Never send a burst before its GRT
    #[arg(long)]
    pub(crate) no_unsolicited: bool,
    /// Switch buffer per port, bytes (both arms)
    #[arg(long, default_value_t = 200_000)]
    pub(crate) buffer_bytes: usize,
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

impl Pl2Args {
    fn params(&self, senders: usize, receivers: usize, load: f64, pl2: bool) -> Pl2RunParams {
        let mut p = Pl2RunParams::defaults(senders, load, pl2);
        p.receivers = receivers;
        (p.flows, p.k, p.t, p.unsolicited_limit, p.unsolicited) =
            (self.flows, self.k, self.t, self.unsolicited_limit, !self.no_unsolicited);
        p.buffer_bytes = self.buffer_bytes;
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
