//! `bolt utilisation`, `bolt arrival`, `bolt completion` and `bolt reroute`: Bolt's Table 4.1
//! and Figs. 4.10–4.12 on the network testbench, with the Bolt ingress block's RTL in the switch and PRU and supply matching switched
//! through its configuration inputs.

use crate::output::{print_json, with_progress, write_json};
use crate::results;
use nanotransport_net::experiments::bolt::{run_bolt_utilisation, BoltUtilisationParams, BoltUtilisationRun, TARGETS};
use nanotransport_net::experiments::bolt_dumbbell::{run_bolt_dumbbell, BoltDumbbellParams, BoltDumbbellRun, DumbbellEvent};
use nanotransport_net::experiments::plot;
use std::path::PathBuf;

/// `bolt utilisation`'s arguments.
#[derive(clap::Args, Clone, Debug)]
pub(crate) struct BoltUtilisationArgs {
    /// Senders, one flow each
    #[arg(long, default_value_t = 5)]
    pub(crate) senders: usize,
    /// IP bytes per flow
    #[arg(long, default_value_t = 500_000)]
    pub(crate) flow_bytes: u64,
    /// Microseconds between two senders' starts
    #[arg(long, default_value_t = 15.0)]
    pub(crate) gap_us: f64,
    /// MTU, bytes of IP packet
    #[arg(long, default_value_t = 5000)]
    pub(crate) mtu: usize,
    /// CC_THRESH, bytes (the authors' code: 10 000 = 2 MTU; the thesis text: 1 MTU)
    #[arg(long, default_value_t = 10_000)]
    pub(crate) cc_thresh: u32,
    /// Initial and largest window, bytes (one BDP)
    #[arg(long, default_value_t = 62_420.0)]
    pub(crate) bdp: f64,
    /// Print JSON instead of a table
    #[arg(long)]
    pub(crate) json: bool,
    /// Write the plots (window per flow, the receiver's queue, the rate delivered, per row) and the runs' JSON into DIR
    #[arg(long, value_name = "DIR")]
    pub(crate) plot: Option<PathBuf>,
}

impl BoltUtilisationArgs {
    pub(crate) fn params(&self, pru: bool, sm: bool) -> BoltUtilisationParams {
        BoltUtilisationParams {
            senders: self.senders,
            flow_ip_bytes: self.flow_bytes,
            gap_us: self.gap_us,
            mtu_ip: self.mtu,
            cc_thresh: self.cc_thresh,
            bdp: self.bdp,
            ..BoltUtilisationParams::defaults(pru, sm)
        }
    }
}

/// The four rows of Table 4.1 (PRU and SM off and on).
pub(crate) fn utilisation_runs(params: impl Fn(bool, bool) -> BoltUtilisationParams) -> Result<Vec<BoltUtilisationRun>, String> {
    let mut runs = Vec::new();
    for (pru, sm) in [(false, false), (true, false), (false, true), (true, true)] {
        let p = params(pru, sm);
        p.validate()?;
        let prefix = format!("Bolt, PRU {}, SM {}", on(pru), on(sm));
        runs.push(with_progress(prefix, p.run_us, "µs", |progress| run_bolt_utilisation(&p, progress))?);
    }
    Ok(runs)
}

use results::on;

/// The setup in words, beside the thesis'.
pub(crate) fn utilisation_setup(p: &BoltUtilisationParams) -> String {
    format!(
        "{} senders × {} B of IP packets ({} B payload), {} µs apart, into one receiver; star, {} Gb/s, {} ns per link; MTU {} B of IP packet, CC_THRESH {} B, \
         window {} B (initial and largest); switch: the Bolt ingress RTL, {} B per port, 1-packet device queue. \
         Thesis: 5 × 500 000 B, 15 µs apart, 100 Gb/s, 1 048 ns per link, MTU 5 000 B, CC_THRESH 10 KB (code), BDP 62 420 B.",
        p.senders,
        p.flow_ip_bytes,
        p.flow_payload(),
        p.gap_us,
        p.gbps,
        p.link_ns,
        p.mtu_ip,
        p.cc_thresh,
        p.bdp,
        p.buffer_bytes
    )
}

/// Per row: each flow's window, the receiver's queue and the rate delivered, against time.
pub(crate) fn utilisation_plots(runs: &[BoltUtilisationRun], dir: &std::path::Path) -> Result<(), String> {
    for r in runs {
        let name = format!("bolt-utilisation-pru-{}-sm-{}", on(r.params.pru), on(r.params.sm));
        let label = format!("PRU {}, SM {}", on(r.params.pru), on(r.params.sm));
        let cwnd: Vec<(String, Vec<(f64, f64)>)> = r
            .cwnd
            .iter()
            .enumerate()
            .map(|(i, c)| (format!("flow {}", i + 1), c.iter().map(|(t, b)| (*t, b / 1000.0)).collect()))
            .collect();
        plot::lines_svg(
            &dir.join(format!("{name}-cwnd.svg")),
            &format!("Bolt, {label}: window per flow"),
            ("time (µs)", "cwnd (KB)"),
            &cwnd,
        )?;
        let queue = vec![("receiver's port".to_string(), r.queue.iter().map(|(t, b)| (*t, b / 1000.0)).collect())];
        plot::lines_svg(&dir.join(format!("{name}-queue.svg")), &format!("Bolt, {label}: queue"), ("time (µs)", "queue (KB)"), &queue)?;
        let rate = vec![("delivered".to_string(), r.rate.clone())];
        plot::lines_svg(&dir.join(format!("{name}-rate.svg")), &format!("Bolt, {label}: bottleneck rate"), ("time (µs)", "Gb/s"), &rate)?;
    }
    Ok(())
}

pub(crate) fn bolt_utilisation_cmd(a: &BoltUtilisationArgs) -> Result<bool, String> {
    let runs = utilisation_runs(|pru, sm| a.params(pru, sm))?;
    if let Some(dir) = &a.plot {
        write_json(&dir.join("bolt-utilisation.json"), &runs)?;
        utilisation_plots(&runs, dir)?;
    }
    if a.json {
        print_json(serde_json::json!({ "runs": runs }));
        return Ok(true);
    }
    println!("Bolt utilisation (Table 4.1): {}\n", utilisation_setup(&runs[0].params));
    print!("{}", results::bolt_utilisation_table(&runs));
    println!(
        "\nutilisation: IP bytes of data at the receiver from the first completion (at its sender, whole µs from 15 µs before the first start; or at the receiver) to the last delivery, over the link rate; \
         SRC Gb/s: SRC bytes over the flows' lifetime; targets: {TARGETS}."
    );
    Ok(true)
}

/// The two-flow dumbbell commands' arguments (`bolt arrival`, `completion`, `reroute`).
#[derive(clap::Args, Clone, Debug)]
pub(crate) struct BoltDumbbellArgs {
    /// The time unit in µs (flow sizes at the bottleneck's rate; when a flow joins or is rerouted); default: the authors' (arrival 1 000, completion and reroute 2 000)
    #[arg(long)]
    pub(crate) unit_us: Option<f64>,
    /// µs watched after the event (default: arrival 100, completion 30, reroute 400)
    #[arg(long)]
    pub(crate) after_us: Option<f64>,
    /// MTU, bytes of IP packet
    #[arg(long, default_value_t = 1500)]
    pub(crate) mtu: usize,
    /// CC_THRESH, bytes (the authors' code: 3 000 = 2 MTU)
    #[arg(long, default_value_t = 3000)]
    pub(crate) cc_thresh: u32,
    /// Print JSON instead of a table
    #[arg(long)]
    pub(crate) json: bool,
    /// Write the plots (each flow's rate and window, the bottleneck queue, per run) and the runs' JSON into DIR
    #[arg(long, value_name = "DIR")]
    pub(crate) plot: Option<PathBuf>,
}

/// The runs of a command: (event, PRU, SM) per row.
pub(crate) fn dumbbell_rows(event: DumbbellEvent) -> Vec<(DumbbellEvent, bool, bool)> {
    match event {
        DumbbellEvent::Arrival => vec![(event, true, true)],
        DumbbellEvent::Completion => vec![(event, true, true), (event, false, true), (event, true, false), (event, false, false)],
        // A real reroute with Bolt as it is, and the authors' runs behind Fig. 4.12: a completion
        // with PRU off.
        DumbbellEvent::Reroute => vec![
            (event, true, true),
            (event, true, false),
            (DumbbellEvent::Completion, false, true),
            (DumbbellEvent::Completion, false, false),
        ],
    }
}

/// Runs `rows` with `params` deciding each row's parameters.
pub(crate) fn dumbbell_runs(
    rows: &[(DumbbellEvent, bool, bool)],
    params: impl Fn(DumbbellEvent, bool, bool) -> BoltDumbbellParams,
) -> Result<Vec<BoltDumbbellRun>, String> {
    let mut runs = Vec::new();
    for &(e, pru, sm) in rows {
        let p = params(e, pru, sm);
        p.validate()?;
        let prefix = format!("Bolt {e}, PRU {}, SM {}", on(pru), on(sm));
        let total = p.unit_us * 2.0 + p.after_us;
        runs.push(with_progress(prefix, total, "µs", |progress| run_bolt_dumbbell(&p, progress))?);
    }
    Ok(runs)
}

impl BoltDumbbellArgs {
    /// A row's parameters for `figure`'s command (whose defaults it takes).
    pub(crate) fn params(&self, figure: DumbbellEvent, event: DumbbellEvent, pru: bool, sm: bool) -> BoltDumbbellParams {
        let d = BoltDumbbellParams { event, ..BoltDumbbellParams::defaults(figure, pru, sm) };
        BoltDumbbellParams {
            unit_us: self.unit_us.unwrap_or(d.unit_us),
            after_us: self.after_us.unwrap_or(d.after_us),
            mtu_ip: self.mtu,
            cc_thresh: self.cc_thresh,
            ..d
        }
    }
}

/// Per run: each flow's rate and window and the bottleneck queue, 20 µs before the event on.
pub(crate) fn dumbbell_plots(runs: &[BoltDumbbellRun], dir: &std::path::Path) -> Result<(), String> {
    for r in runs {
        let p = &r.params;
        let name = format!("bolt-{}-pru-{}-sm-{}", p.event, on(p.pru), on(p.sm));
        let label = format!("Bolt {}, PRU {}, SM {} (event at 20 µs)", p.event, on(p.pru), on(p.sm));
        let flows = |v: &[Vec<(f64, f64)>; 2]| -> Vec<(String, Vec<(f64, f64)>)> {
            v.iter().enumerate().map(|(i, s)| (format!("flow {}", i + 1), s.clone())).collect()
        };
        plot::lines_svg(&dir.join(format!("{name}-rate.svg")), &format!("{label}: rate"), ("time (µs)", "Gb/s"), &flows(&r.rate))?;
        plot::lines_svg(&dir.join(format!("{name}-cwnd.svg")), &format!("{label}: window"), ("time (µs)", "cwnd (KB)"), &flows(&r.cwnd))?;
        let queue = vec![("bottleneck".to_string(), r.queue.clone())];
        plot::lines_svg(&dir.join(format!("{name}-queue.svg")), &format!("{label}: queue"), ("time (µs)", "queue (KB)"), &queue)?;
    }
    Ok(())
}

pub(crate) fn bolt_dumbbell_cmd(event: DumbbellEvent, a: &BoltDumbbellArgs) -> Result<bool, String> {
    let runs = dumbbell_runs(&dumbbell_rows(event), |e, pru, sm| a.params(event, e, pru, sm))?;
    if let Some(dir) = &a.plot {
        write_json(&dir.join(format!("bolt-{event}.json")), &runs)?;
        dumbbell_plots(&runs, dir)?;
    }
    if a.json {
        print_json(serde_json::json!({ "runs": runs }));
        return Ok(true);
    }
    let figure = results::dumbbell_figure(event);
    println!("Bolt {event} ({figure}): {}\n", results::dumbbell_setup(&runs[0].params));
    print!("{}", results::dumbbell_table(event, &runs));
    println!("\ntargets: {}.", results::dumbbell_targets(event));
    Ok(true)
}
