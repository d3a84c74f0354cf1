//! `bolt utilisation` and `bolt completion`: Bolt's Table 4.1 and Fig. 4.11 on the network
//! testbench, with the Bolt ingress block's RTL in the switch and PRU and supply matching switched
//! through its configuration inputs.

use crate::output::{print_json, with_progress, write_json};
use crate::results;
use nanotransport_net::experiments::bolt::{
    run_bolt_completion, run_bolt_utilisation, BoltCompletionParams, BoltUtilisationParams, BoltUtilisationRun, TARGETS,
};
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

/// `bolt completion`'s arguments.
#[derive(clap::Args, Clone, Debug)]
pub(crate) struct BoltCompletionArgs {
    /// The completing flow's size in µs of the bottleneck's line rate (the other flow is twice as large)
    #[arg(long, default_value_t = 2000.0)]
    pub(crate) flow_us: f64,
    /// Print JSON instead of a table
    #[arg(long)]
    pub(crate) json: bool,
    /// Write the runs' JSON (with the remaining flow's rate around the completion) into DIR
    #[arg(long, value_name = "DIR")]
    pub(crate) plot: Option<PathBuf>,
}

pub(crate) fn bolt_completion_cmd(a: &BoltCompletionArgs) -> Result<bool, String> {
    let mut runs = Vec::new();
    for (pru, sm) in [(true, true), (false, true), (true, false), (false, false)] {
        let p = BoltCompletionParams { flow_us: a.flow_us, ..BoltCompletionParams::defaults(pru, sm) };
        p.validate()?;
        let prefix = format!("Bolt completion, PRU {}, SM {}", on(pru), on(sm));
        runs.push(with_progress(prefix, a.flow_us * 2.2, "µs", |progress| run_bolt_completion(&p, progress))?);
    }
    if let Some(dir) = &a.plot {
        write_json(&dir.join("bolt-completion.json"), &runs)?;
        let series: Vec<(String, Vec<(f64, f64)>)> = runs
            .iter()
            .map(|r| (format!("PRU {}, SM {}", on(r.params.pru), on(r.params.sm)), r.rate.iter().map(|(t, g)| (t + 20.0, *g)).collect()))
            .collect();
        plot::lines_svg(
            &dir.join("bolt-completion-rate.svg"),
            "Bolt: the remaining flow's rate (completion at 20 µs)",
            ("time (µs)", "Gb/s"),
            &series,
        )?;
    }
    if a.json {
        print_json(serde_json::json!({ "runs": runs }));
        return Ok(true);
    }
    let p = &runs[0].params;
    println!(
        "Bolt completion (Fig. 4.11): two flows of {} and {} µs at the bottleneck's rate start together across a dumbbell ({} Gb/s host links, {} Gb/s bottleneck, {} ns per link, MTU {} B, CC_THRESH {} B, initial window {} B); the Bolt RTL on the bottleneck port. \
         Thesis: 2 and 4 ms, 102 / 100 Gb/s, 1 272 ns, MTU 1 500 B, CC_THRESH 3 KB; the remaining flow at full rate within 1 µs with PRU.\n",
        p.flow_us,
        2.0 * p.flow_us,
        p.edge_gbps,
        p.core_gbps,
        p.link_ns,
        p.mtu_ip,
        p.cc_thresh,
        p.init_cwnd
    );
    println!("| PRU | SM | t_c µs | ramp to ≥ 95 Gb/s, µs | idle after t_c, ns (one frame) | remaining cwnd at t_c → +20 µs, B | queue max pkts | drops, RTL ≠ model |\n|---|---|---|---|---|---|---|---|");
    for r in &runs {
        println!(
            "| {} | {} | {:.1} | {} | {:.0} ({:.0}) | {:.0} → {:.0} | {} | {}, {} |",
            on(r.params.pru),
            on(r.params.sm),
            r.t_c_us,
            r.ramp_us.map_or("> 20".to_string(), |t| format!("{t:.2}")),
            r.idle_ns,
            r.frame_ns,
            r.cwnd_at_t_c,
            r.cwnd_after,
            r.queue_max_packets,
            r.drops,
            r.rtl_mismatches
        );
    }
    println!("\ntargets: the remaining flow at ≥ 95 Gb/s (over 1 µs) within 2 µs of t_c, the bottleneck idle ≤ one frame time.");
    Ok(true)
}
