//! `incast`, `sweep` and `merge`: the Fig. 3.2 incast on the network testbench, its tables and plots.

use crate::commands::flexplane::SchemeArgs;
use crate::output::{print_json, progress_bar, write_json};
use crate::params;
use crate::results::{self, fmt_opt, IncastRow};
use nanotransport_hdl::configs::Protocol;
use nanotransport_net::experiments::incast::{self, IncastParams, IncastResult};
use nanotransport_net::experiments::plot;
use std::path::PathBuf;

/// The incast parameters shared by `incast` and `sweep`.
#[derive(clap::Args, Clone, Debug)]
pub(crate) struct IncastSetup {
    /// Whole-NIC configuration: a preset (default: <protocol>-128 for the receiver) or a parameter-set file NAME.toml
    #[arg(long, value_name = "NAME")]
    pub(crate) config: Option<String>,
    /// The senders' NICs: a preset or parameter-set file of the same protocol (default: <protocol>-16, or --config when given)
    #[arg(long, value_name = "NAME")]
    pub(crate) sender_config: Option<String>,
    /// Set a configuration register on every NIC after the experiment's own, NAME=VALUE (repeatable)
    #[arg(long = "set", value_name = "NAME=VALUE")]
    pub(crate) set: Vec<String>,
    /// Number of senders
    #[arg(long, default_value_t = 10)]
    pub(crate) senders: usize,
    /// Packets of the first..last message, spread evenly (the thesis: 20..38)
    #[arg(long, value_name = "A..B", default_value = "18..36")]
    pub(crate) sizes: String,
    /// Link rate, Gb/s
    #[arg(long, default_value_t = 200.0)]
    pub(crate) link_gbps: f64,
    /// Propagation delay per link, ns
    #[arg(long, default_value_t = 131.0)]
    pub(crate) link_ns: f64,
    /// BDP in packets (the initial credit)
    #[arg(long, default_value_t = 12)]
    pub(crate) rtt_pkts: u32,
    /// Retransmission timeout, µs
    #[arg(long, default_value_t = 6.0)]
    pub(crate) rto_us: f64,
    /// Seed of the links' loss generators
    #[arg(long, default_value_t = 1)]
    pub(crate) seed: u64,
    /// Stop a run after this much simulated time, µs
    #[arg(long, default_value_t = 500.0)]
    pub(crate) max_us: f64,
    /// Every CPU starts writing its message at cycle 0 (default: writes timed so that every
    /// sender NIC takes its message in the same cycle, as the ns-3 model starts them at once)
    #[arg(long)]
    pub(crate) staggered_start: bool,
    /// Count the switch buffers in bytes (the buffer's packets × 1088 B) instead of packets
    #[arg(long)]
    pub(crate) byte_counted: bool,
    /// Frames each switch port's device queue holds beyond the queue disc, chosen by the
    /// scheduler when they enter it (the ns-3 model's 1-packet device queue; 0: none)
    #[arg(long, default_value_t = 1)]
    pub(crate) device_queue_pkts: usize,
    #[command(flatten)]
    pub(crate) scheme: SchemeArgs,
}

impl IncastSetup {
    pub(crate) fn params(&self, protocol: Protocol, buffer_pkts: usize) -> Result<IncastParams, String> {
        let mut p = IncastParams::defaults(protocol);
        // A configuration of the user's applies to the senders too, unless they are given apart.
        if let Some(c) = &self.config {
            p.config = params::whole_nic(None, Some(c))?;
            p.sender_config = None;
        }
        if let Some(c) = &self.sender_config {
            p.sender_config = Some(params::whole_nic(None, Some(c))?);
        }
        p.sets = nanotransport_sim::registers::parse_sets(&self.set, p.config.params())?.iter().map(|w| (w.addr, w.value)).collect();
        p.senders = self.senders;
        let (a, b) = self.sizes.split_once("..").ok_or_else(|| format!("--sizes {}: expected A..B, e.g. 18..36", self.sizes))?;
        let num = |t: &str| {
            t.trim().parse::<u32>().map_err(|_| format!("--sizes {}: expected A..B with whole packet counts, e.g. 18..36", self.sizes))
        };
        p.sizes = (num(a)?, num(b)?);
        p.buffer_pkts = buffer_pkts;
        p.link_gbps = self.link_gbps;
        p.link_ns = self.link_ns;
        p.rtt_pkts = self.rtt_pkts;
        p.rto_us = self.rto_us;
        p.seed = self.seed;
        p.max_us = self.max_us;
        p.aligned_start = !self.staggered_start;
        p.byte_counted = self.byte_counted;
        p.device_queue_pkts = self.device_queue_pkts;
        p.scheme = self.scheme.one_scheme()?;
        p.validate()?;
        Ok(p)
    }
}

/// One incast run with a progress bar on stderr.
pub(crate) fn incast_run(p: &IncastParams, trace: bool) -> Result<(IncastResult, nanotransport_net::Network), String> {
    let bar = progress_bar(format!("{} {} pkts", p.protocol, p.buffer_pkts), 1000);
    let r = incast::run(p, trace, &mut |ns, max_ns, delivered| {
        bar.set_position((ns / max_ns * 1000.0) as u64);
        bar.set_message(format!("{:.1} µs simulated, {delivered}/{} delivered", ns / 1000.0, p.senders));
    });
    bar.finish_and_clear();
    r
}

/// The ns-3 model's (median, p90) for the default setup, if `r` is that setup.
pub(crate) fn ns3_reference(r: &IncastResult) -> Option<(f64, f64)> {
    let d = IncastParams::defaults(r.protocol);
    let same = r.params.senders == d.senders
        && r.params.sizes == d.sizes
        && r.params.link_gbps == d.link_gbps
        && r.params.link_ns == d.link_ns
        && r.params.rtt_pkts == d.rtt_pkts
        && r.params.rto_us == d.rto_us
        && r.params.scheme.is_none();
    if !same {
        return None;
    }
    nanotransport_net::experiments::incast::model_slowdowns(r.protocol, r.buffer_pkts)
}

pub(crate) fn print_incast(r: &IncastResult) {
    let p = &r.params;
    let switch = match &p.scheme {
        Some(s) => format!("switch scheme {}", serde_json::to_string(s).unwrap_or_default()),
        None => format!("buffer {} packets ({:.0} KB)", r.buffer_pkts, r.buffer_kb),
    };
    println!(
        "{} on {} (senders on {}): {} senders → 1, {} Gb/s, {} ns per link, {switch}, rtt_pkts {}, RTO {} µs",
        r.protocol,
        r.config,
        p.sender_config.as_ref().unwrap_or(&r.config),
        p.senders,
        p.link_gbps,
        p.link_ns,
        p.rtt_pkts,
        p.rto_us
    );
    println!(
        "{:>6} {:>7} {:>13} {:>9} {:>10} {:>8} {:>12} {:>11} {:>10}",
        "sender", "packets", "completion ns", "slowdown", "arrived ns", "arrived", "cpu write ns", "readout ns", "acked ns"
    );
    for m in &r.messages {
        println!(
            "{:>6} {:>7} {:>13} {:>9} {:>10} {:>8} {:>12} {:>11} {:>10}{}",
            m.sender,
            m.packets,
            fmt_opt(m.completion_ns, 1),
            fmt_opt(m.slowdown, 2),
            fmt_opt(m.arrived_ns, 1),
            fmt_opt(m.arrived_slowdown, 2),
            fmt_opt(m.cpu_write_ns, 1),
            fmt_opt(m.readout_ns, 1),
            fmt_opt(m.acked_ns, 1),
            m.incomplete.as_ref().map(|w| format!("  incomplete: {w}")).unwrap_or_default()
        );
    }
    let reference = ns3_reference(r).map(|(m, p90)| format!(" (ns-3 model: {m:.2} / {p90:.2})")).unwrap_or_default();
    println!("median slowdown {} p90 {}{reference}", fmt_opt(r.median_slowdown, 2), fmt_opt(r.p90_slowdown, 2));
    println!(
        "at arrival (the last packet's last byte at the receiver NIC, the model's MsgFinish point): median {} p90 {}",
        fmt_opt(r.median_arrived_slowdown, 2),
        fmt_opt(r.p90_arrived_slowdown, 2)
    );
    let c = &r.bottleneck;
    println!(
        "bottleneck port: {} enqueued, {} trimmed, {} dropped, max {} packets; NIC MAC RX drops {}",
        c.enqueued, c.trimmed, c.dropped, c.max_packets, r.nic_rx_dropped
    );
    println!(
        "{:.1} µs simulated ({} cycles, {} with a NIC stepped); wall {:.1} s, {:.0} NIC cycles/s",
        r.simulated_ns / 1000.0,
        r.cycles,
        r.stepped_cycles,
        r.wall_s,
        r.nic_cycles_per_s
    );
}

pub(crate) fn write_plots(results: &[IncastResult], dir: &std::path::Path) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    plot::queue_svg(results, &dir.join("incast-queue.svg"))?;
    plot::slowdown_svg(results, &dir.join("incast-slowdown.svg"))
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn incast_cmd(
    protocol: Protocol,
    setup: &IncastSetup,
    buffer_pkts: Option<usize>,
    buffer_kb: Option<f64>,
    json: bool,
    plot_dir: Option<PathBuf>,
    pcap: Option<PathBuf>,
) -> Result<bool, String> {
    let pkts = match (buffer_pkts, buffer_kb) {
        (Some(p), _) => p,
        (None, Some(k)) => (k * 1000.0 / incast::MTU_BYTES as f64).round() as usize,
        (None, None) => 110,
    };
    let p = setup.params(protocol, pkts)?;
    let (r, net) = incast_run(&p, pcap.is_some())?;
    if let Some(dir) = &pcap {
        incast::write_pcaps(&net, dir)?;
    }
    if let Some(dir) = &plot_dir {
        write_plots(std::slice::from_ref(&r), dir)?;
    }
    if json {
        print_json(serde_json::to_value(&r).map_err(|e| e.to_string())?);
    } else {
        print_incast(&r);
    }
    if !r.complete {
        let which: Vec<String> = r
            .messages
            .iter()
            .filter_map(|m| m.incomplete.as_ref().map(|w| format!("sender {} ({} packets): {w}", m.sender, m.packets)))
            .collect();
        eprintln!("incomplete after {} µs: {}", p.max_us, which.join("; "));
    }
    Ok(r.complete)
}

pub(crate) fn parse_shard(text: &str) -> Result<(usize, usize), String> {
    let bad = || format!("--shard {text}: expected I/N with 0 <= I < N, e.g. 0/4");
    let (i, n) = text.split_once('/').ok_or_else(bad)?;
    let (i, n): (usize, usize) = (i.trim().parse().map_err(|_| bad())?, n.trim().parse().map_err(|_| bad())?);
    if n == 0 || i >= n {
        return Err(bad());
    }
    Ok((i, n))
}

pub(crate) fn sweep_cmd(
    protocols: &[Protocol],
    buffers: &[usize],
    setup: &IncastSetup,
    shard: &str,
    out: &std::path::Path,
) -> Result<bool, String> {
    let (i, n) = parse_shard(shard)?;
    let runs: Vec<(Protocol, usize)> = protocols.iter().flat_map(|p| buffers.iter().map(move |b| (*p, *b))).collect();
    let mine: Vec<IncastParams> =
        runs.iter().enumerate().filter(|(k, _)| k % n == i).map(|(_, (p, b))| setup.params(*p, *b)).collect::<Result<_, _>>()?;
    let mut all_complete = true;
    for p in &mine {
        let (r, _) = incast_run(p, false)?;
        let path = out.join(format!("incast-{}-{}p.json", p.protocol, p.buffer_pkts));
        write_json(&path, &r)?;
        eprintln!(
            "{}: median {} p90 {}, wall {:.1} s",
            path.display(),
            fmt_opt(r.median_slowdown, 2),
            fmt_opt(r.p90_slowdown, 2),
            r.wall_s
        );
        all_complete &= r.complete;
    }
    Ok(all_complete)
}

pub(crate) fn merge_cmd(inputs: &[PathBuf], plot_dir: Option<PathBuf>, json: bool) -> Result<bool, String> {
    let mut files = Vec::new();
    for i in inputs {
        if i.is_dir() {
            let mut v: Vec<PathBuf> = std::fs::read_dir(i)
                .map_err(|e| format!("{}: {e}", i.display()))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "json"))
                .collect();
            v.sort();
            files.extend(v);
        } else {
            files.push(i.clone());
        }
    }
    let mut results = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).map_err(|e| format!("{}: {e}", f.display()))?;
        let r: IncastResult = serde_json::from_str(&text).map_err(|e| format!("{}: not an incast result: {e}", f.display()))?;
        results.push(r);
    }
    if results.is_empty() {
        return Err("merge: no JSON files found".into());
    }
    results.sort_by(|a, b| (a.protocol, b.buffer_pkts).cmp(&(b.protocol, a.buffer_pkts)));
    if let Some(dir) = &plot_dir {
        write_plots(&results, dir)?;
    }
    if json {
        let rows: Vec<results::IncastRow> = results.iter().map(incast_row).collect();
        print_json(serde_json::json!({ "runs": rows }));
        return Ok(true);
    }
    let rows: Vec<results::IncastRow> = results.iter().map(incast_row).collect();
    // "at arrival" ends each message when its last packet reached the receiver NIC, the model's
    // MsgFinish point (see `net/experiments/incast.rs`).
    print!("{}", results::incast_table(&rows));
    Ok(results.iter().all(|r| r.complete))
}

/// One incast run's row of the results.
pub(crate) fn incast_row(x: &IncastResult) -> IncastRow {
    IncastRow {
        protocol: x.protocol,
        config: x.config.name().to_string(),
        buffer_pkts: x.buffer_pkts,
        buffer_kb: x.buffer_kb,
        median_slowdown: x.median_slowdown,
        p90_slowdown: x.p90_slowdown,
        median_arrived_slowdown: x.median_arrived_slowdown,
        p90_arrived_slowdown: x.p90_arrived_slowdown,
        model: ns3_reference(x),
        complete: x.complete,
        wall_s: x.wall_s,
        nic_cycles_per_s: x.nic_cycles_per_s,
    }
}

pub(crate) fn bench_net(senders: usize, gbps: f64, sim_ms: f64, json: bool) -> Result<(), String> {
    use nanotransport_net::bench::{bench_net, TARGET_EVENTS_PER_S};
    let b = bench_net(senders, gbps, sim_ms)?;
    if json {
        let mut v = serde_json::to_value(&b).map_err(|e| e.to_string())?;
        v["target_events_per_s"] = TARGET_EVENTS_PER_S.into();
        print_json(v);
    } else {
        println!(
            "{} senders at {} Gb/s, {:.3} s simulated in {:.3} s: {} events, {:.2} M events/s (target ≥ {:.0} M), \
             {:.3} simulated s per wall s; frames {} sent, {} received, {} dropped",
            b.senders,
            b.gbps,
            b.simulated_s,
            b.wall_s,
            b.events,
            b.events_per_s / 1e6,
            TARGET_EVENTS_PER_S / 1e6,
            b.simulated_s_per_wall_s,
            b.frames_sent,
            b.frames_received,
            b.dropped
        );
    }
    Ok(())
}
