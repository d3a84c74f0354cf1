//! Flexplane's §4.1 bulk-transfer experiment (Ousterhout et al., Tables 4.1 and 4.2): five
//! hosts send TCP at full speed to one receiver through one 10 Gb/s switch port, under
//! DropTail, RED or DCTCP; the bottleneck queue is sampled every millisecond (median and σ, in
//! packets), Jain's fairness index is computed over 1-second intervals (median and σ), and the
//! aggregate goodput is measured.
//!
//! # Setup beside the paper's
//! | | Flexplane (hardware column) | here |
//! |---|---|---|
//! | hosts | 5 senders → 1 receiver, Linux 3.18, TSO off | 5 [`TcpHost`] senders → 1, see [`crate::tcp`] for what is simplified |
//! | transport | CUBIC (DropTail, RED), DCTCP (DCTCP) | the same |
//! | switch | Trident+, per-port buffer 1 024 MTUs | [`Scheme`]: DropTail 1 024, RED 150/300/0.1/2⁻⁵ drop mode, DCTCP K = 65 |
//! | links | 10 Gb/s, MTU 1 500 | 10 Gb/s, 1 514-byte frames (MSS 1 460), frame bytes only on the wire |
//! | delay | one-way latency 14.9 µs measured (sockperf, host stacks included) | 7 µs per link: unloaded RTT ≈ 30.6 µs, twice that latency |
//! | duration | 5 minutes | `seconds` (default 11), the first `warmup_s` (1) excluded: ten 1-second intervals |
//!
//! **Clocks.** The senders' links run `sender_ppm` (default 100, the tolerance IEEE 802.3
//! allows) faster than the switch's port to the receiver. With identical clocks a sender that
//! alone fills the port delivers exactly as fast as the port drains: its frames arrive just after
//! each departure, always find room, and the queue stays pinned at its level while every other
//! sender's frames find it full — a phase lock of the simulation that real clocks, never equal,
//! do not sustain. `--sender-ppm 0` shows it.
//!
//! The delay is fixed before any run (from the measured latency, not fitted to a result);
//! `--link-ns` sweeps it. Senders start at seeded random times in the first millisecond, so two
//! seeds give two different runs. Goodput counts in-order payload bytes at the receiver; with
//! 1 514-byte frames the most a 10 Gb/s link carries is 9.64 Gb/s of payload (the hardware's
//! 9.4 Gb/s includes preamble, gap and FCS on the wire: 9.49 Gb/s at most).

use super::stats::{jain, median, percentile, sigma};
use crate::link::LinkSpec;
use crate::schemes::Scheme;
use crate::switch::OccupancySampling;
use crate::tcp::{CongestionControl, TcpConfig, TcpHost};
use crate::topology::{star_with_links, Member};
use crate::{Host, Network};
use nanotransport_hdl::clock::NicClock;
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};
use std::time::Instant;

/// The tick base of a network of behavioural hosts (they keep time in ns; it only sets the resolution).
const CLOCK: NicClock = NicClock::THESIS;

/// The schemes of the paper's bulk-transfer tables (4.1, 4.2) and of its RPC figure (4-2).
pub const BULK_SCHEMES: [&str; 3] = ["droptail", "red", "dctcp"];
pub const RPC_SCHEMES: [&str; 6] = ["droptail", "red", "dctcp", "hull", "drr", "priority"];
const RECEIVER_IP: u32 = 0x0A00_0001;
const RECEIVER_PORT: u16 = 5001;

/// The bulk experiment's parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BulkParams {
    pub scheme: Scheme,
    pub senders: usize,
    pub gbps: f64,
    /// Propagation delay per link, ns.
    pub link_ns: f64,
    /// Simulated time, warm-up included, s.
    pub seconds: f64,
    pub warmup_s: f64,
    /// Fairness interval, s (the paper's 1 s).
    pub interval_s: f64,
    /// Queue sampling interval, ms (the paper's 1 ms).
    pub sample_ms: f64,
    pub seed: u64,
    /// How much faster the senders' links run than the switch's port to the receiver, in
    /// parts per million (IEEE 802.3 allows ±100; see the module documentation).
    pub sender_ppm: f64,
    /// The hosts' TCP (CUBIC, or DCTCP for the DCTCP and HULL schemes).
    pub tcp: TcpConfig,
}

impl BulkParams {
    /// The paper's setup for `scheme` (a shorter run than its 5 minutes).
    pub fn defaults(scheme: Scheme) -> Self {
        let cc = match scheme {
            Scheme::Dctcp { .. } | Scheme::Hull { .. } => CongestionControl::Dctcp,
            _ => CongestionControl::Cubic,
        };
        BulkParams {
            scheme,
            senders: 5,
            gbps: 10.0,
            link_ns: 7000.0,
            seconds: 11.0,
            warmup_s: 1.0,
            interval_s: 1.0,
            sample_ms: 1.0,
            seed: 1,
            sender_ppm: 100.0,
            tcp: TcpConfig::with_cc(cc),
        }
    }

    /// Rejects parameters the experiment cannot run with (one line naming the parameter).
    pub fn validate(&self) -> Result<(), String> {
        self.scheme.stages(self.seed)?;
        self.tcp.validate()?;
        if !(1..=64).contains(&self.senders) {
            return Err(format!("--senders {}: valid 1..=64", self.senders));
        }
        if !(self.gbps >= 0.1 && self.gbps <= 200.0) {
            return Err(format!("--gbps {}: valid 0.1..=200", self.gbps));
        }
        if !(self.link_ns >= 10.0 && self.link_ns <= 1e6) {
            return Err(format!("--link-ns {}: valid 10..=1000000", self.link_ns));
        }
        if !(0.0..=1000.0).contains(&self.sender_ppm) {
            return Err(format!("--sender-ppm {}: valid 0..=1000", self.sender_ppm));
        }
        if !(self.interval_s > 0.0 && self.sample_ms > 0.0 && self.sample_ms <= self.interval_s * 1000.0) {
            return Err(format!(
                "--interval-s {} / sample every {} ms: valid interval above 0, sampling within it",
                self.interval_s, self.sample_ms
            ));
        }
        if !(self.warmup_s >= 0.0 && self.seconds >= self.warmup_s + self.interval_s && self.seconds <= 3600.0) {
            return Err(format!(
                "--seconds {} with warm-up {} s: valid at least warm-up + one interval ({} s), at most 3600",
                self.seconds,
                self.warmup_s,
                self.warmup_s + self.interval_s
            ));
        }
        Ok(())
    }
}

/// Flexplane's figures for a scheme (Tables 4.1 and 4.2): (hardware, Flexplane) each as
/// (median, σ).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PaperBulk {
    pub queue_hardware: (f64, f64),
    pub queue_flexplane: (f64, f64),
    pub fairness_hardware: (f64, f64),
    pub fairness_flexplane: (f64, f64),
    /// Aggregate throughput, Gb/s (hardware; Flexplane 9.2–9.3).
    pub throughput_hardware_gbps: f64,
}

/// The paper's row for a scheme name, if it has one.
pub fn paper_bulk(scheme: &str) -> Option<PaperBulk> {
    let row = |q: (f64, f64), qf: (f64, f64), f: (f64, f64), ff: (f64, f64)| PaperBulk {
        queue_hardware: q,
        queue_flexplane: qf,
        fairness_hardware: f,
        fairness_flexplane: ff,
        throughput_hardware_gbps: 9.4,
    };
    match scheme {
        "droptail" => Some(row((931.0, 73.7), (837.0, 98.6), (0.969, 0.027), (0.968, 0.028))),
        "red" => Some(row((138.0, 12.9), (104.0, 32.5), (0.987, 0.011), (0.980, 0.011))),
        "dctcp" => Some(row((61.0, 4.9), (51.0, 13.0), (0.996, 0.004), (0.990, 0.006))),
        _ => None,
    }
}

/// What a bulk run measured.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct BulkResult {
    pub params: BulkParams,
    /// Bottleneck queue (packets) sampled every `sample_ms` after the warm-up.
    pub queue_median_pkts: f64,
    pub queue_sigma_pkts: f64,
    /// Jain's fairness index of each interval after the warm-up, its median and σ.
    pub fairness: Vec<f64>,
    pub fairness_median: f64,
    pub fairness_sigma: f64,
    /// Aggregate payload goodput after the warm-up, and each sender's.
    pub goodput_gbps: f64,
    pub sender_goodput_gbps: Vec<f64>,
    /// Bottleneck port: frames dropped, most packets held.
    pub dropped: u64,
    pub max_queue_pkts: u64,
    /// Data segments that arrived CE-marked, fast retransmits and timeouts (all senders).
    pub ce_marked: u64,
    pub fast_retransmits: u64,
    pub timeouts: u64,
    /// Each sender's connection counters at the end.
    pub sender_stats: Vec<crate::tcp::TcpStats>,
    /// Queue samples (ms since start, packets), the whole run.
    pub queue: Vec<(f64, usize)>,
    pub paper: Option<PaperBulk>,
    pub simulated_s: f64,
    pub wall_s: f64,
    pub simulated_s_per_wall_s: f64,
    pub events: u64,
}

/// One switch with `receivers` on links at `(gbps, link_ns)` and `senders` on links `ppm` faster
/// (the module documentation says why), on ports in that order.
fn star(
    receivers: Vec<Box<dyn Host>>,
    senders: Vec<Box<dyn Host>>,
    link: (f64, f64, f64),
    scheme: &Scheme,
    seed: u64,
) -> Result<Network, String> {
    let (gbps, link_ns, ppm) = link;
    let nominal = LinkSpec::new(gbps, link_ns);
    let fast = LinkSpec::new(gbps * (1.0 + ppm * 1e-6), link_ns);
    let members =
        receivers.into_iter().map(|h| (Member::Host(h), nominal)).chain(senders.into_iter().map(|h| (Member::Host(h), fast))).collect();
    star_with_links(CLOCK, members, scheme.stages(seed)?, seed)
}

/// Runs the bulk experiment; `progress` is told the simulated seconds so far.
pub fn run_bulk(p: &BulkParams, progress: &mut dyn FnMut(f64)) -> Result<BulkResult, String> {
    p.validate()?;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(p.seed);
    let mut senders: Vec<Box<dyn Host>> = Vec::new();
    for i in 0..p.senders {
        let mut host = TcpHost::new(RECEIVER_IP + 1 + i as u32, p.tcp.clone())?;
        host.open(RECEIVER_IP, 40_000 + i as u16, RECEIVER_PORT, u64::MAX, rng.gen_range(0.0..1e6));
        senders.push(Box::new(host));
    }
    let receiver: Box<dyn Host> = Box::new(TcpHost::new(RECEIVER_IP, p.tcp.clone())?);
    let mut net = star(vec![receiver], senders, (p.gbps, p.link_ns, p.sender_ppm), &p.scheme, p.seed)?;
    net.switches[0].occupancy_sampling = OccupancySampling::EveryNs(p.sample_ms * 1e6);
    let received = |net: &crate::Network| -> Vec<u64> {
        let rx = net.host::<TcpHost>(0).expect("the receiver");
        (0..p.senders)
            .map(|i| rx.connections.iter().find(|c| c.peer_ip == RECEIVER_IP + 1 + i as u32).map_or(0, |c| c.stats.bytes_received))
            .collect()
    };
    let cycle_ns = net.cycle_ns(1);
    let cycles = |s: f64| (s * 1e9 / cycle_ns).round() as u64;
    let wall = Instant::now();
    // Run to the end of the warm-up, then interval by interval, counting each sender's bytes.
    let mut marks = vec![p.warmup_s];
    while marks.last().unwrap() + p.interval_s <= p.seconds + 1e-9 {
        marks.push(marks.last().unwrap() + p.interval_s);
    }
    let mut snapshots = Vec::new();
    for &t in &marks {
        let until = cycles(t);
        net.run(until, &mut |_| false, &mut |n| progress(n.cycle_ns(n.cycle) * 1e-9));
        snapshots.push(received(&net));
    }
    let wall_s = wall.elapsed().as_secs_f64();
    let per_interval: Vec<Vec<f64>> =
        snapshots.windows(2).map(|w| w[1].iter().zip(&w[0]).map(|(b, a)| (b - a) as f64 * 8.0 / p.interval_s / 1e9).collect()).collect();
    let fairness: Vec<f64> = per_interval.iter().map(|x| jain(x)).collect();
    let measured_s = p.interval_s * per_interval.len() as f64;
    let sender_goodput_gbps: Vec<f64> =
        (0..p.senders).map(|i| (snapshots.last().unwrap()[i] - snapshots[0][i]) as f64 * 8.0 / measured_s / 1e9).collect();
    let port = &net.switches[0].ports[0];
    let queue: Vec<(f64, usize)> = port.occupancy.iter().map(|(t, n, _)| (net.tick_ns(*t) / 1e6, *n)).collect();
    let measured: Vec<f64> = queue.iter().filter(|(ms, _)| *ms >= p.warmup_s * 1e3).map(|(_, n)| *n as f64).collect();
    let senders: Vec<&TcpHost> = (1..=p.senders).map(|i| net.host::<TcpHost>(i).expect("a sender")).collect();
    let sender_sum = |f: &dyn Fn(&crate::tcp::TcpStats) -> u64| senders.iter().flat_map(|h| &h.connections).map(|c| f(&c.stats)).sum();
    let rx = net.host::<TcpHost>(0).expect("the receiver");
    let simulated_s = net.cycle_ns(net.cycle) * 1e-9;
    Ok(BulkResult {
        params: p.clone(),
        queue_median_pkts: median(&measured).unwrap_or(0.0),
        queue_sigma_pkts: sigma(&measured),
        fairness_median: median(&fairness).unwrap_or(1.0),
        fairness_sigma: sigma(&fairness),
        fairness,
        goodput_gbps: sender_goodput_gbps.iter().sum(),
        sender_goodput_gbps,
        dropped: port.counters.dropped,
        max_queue_pkts: port.counters.max_packets,
        ce_marked: rx.connections.iter().map(|c| c.stats.ce_received).sum(),
        fast_retransmits: sender_sum(&|s| s.fast_retransmits),
        timeouts: sender_sum(&|s| s.timeouts),
        sender_stats: senders.iter().flat_map(|h| &h.connections).map(|c| c.stats).collect(),
        queue,
        paper: paper_bulk(p.scheme.name()),
        simulated_s,
        wall_s,
        simulated_s_per_wall_s: simulated_s / wall_s.max(1e-9),
        events: net.events_handled,
    })
}

/// Flexplane's §4.2 RPC workload (Fig. 4-2): `clients` hosts request responses from `servers`
/// hosts over persistent TCP connections; 80 % of the requests ask for a short, high-priority
/// response, 20 % for a long one; Poisson arrivals load each client's link to `load` of its rate.
/// Every host is on its own port of one switch.
///
/// | | Flexplane | here |
/// |---|---|---|
/// | hosts | 4 clients, 32 servers, Linux | the same, [`crate::rpc`] over [`TcpHost`] |
/// | responses | 1.5 KB high priority (80 %), 10 MB low priority (20 %) | 1 500 B in DSCP 0, 10 000 000 B in DSCP 1 |
/// | load | Poisson, ~60 % of the client links | Poisson per client at `load` (0.6) of its link |
/// | transport | CUBIC; DCTCP for DCTCP; DCTCP without pacer for HULL | the same |
/// | duration | 5 minutes per scheme | `seconds` (default 11), first `warmup_s` (1) left out; requests stop at `seconds`, the run drains for 1 s more |
///
/// Only `priority` and `wdrr` serve the DSCP classes apart; the other schemes keep one FIFO.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RpcParams {
    pub scheme: Scheme,
    pub clients: usize,
    pub servers: usize,
    pub gbps: f64,
    pub link_ns: f64,
    pub load: f64,
    pub short_bytes: u64,
    pub long_bytes: u64,
    pub short_fraction: f64,
    pub seconds: f64,
    pub warmup_s: f64,
    pub seed: u64,
    pub sender_ppm: f64,
    pub tcp: TcpConfig,
}

impl RpcParams {
    /// Flexplane's setup for `scheme`.
    pub fn defaults(scheme: Scheme) -> Self {
        let bulk = BulkParams::defaults(scheme);
        RpcParams {
            scheme: bulk.scheme,
            clients: 4,
            servers: 32,
            gbps: bulk.gbps,
            link_ns: bulk.link_ns,
            load: 0.6,
            short_bytes: 1500,
            long_bytes: 10_000_000,
            short_fraction: 0.8,
            seconds: 11.0,
            warmup_s: 1.0,
            seed: 1,
            sender_ppm: bulk.sender_ppm,
            tcp: bulk.tcp,
        }
    }

    pub fn validate(&self) -> Result<(), String> {
        self.scheme.stages(self.seed)?;
        self.tcp.validate()?;
        if !(1..=16).contains(&self.clients) || !(1..=64).contains(&self.servers) {
            return Err(format!("--clients {} / --servers {}: valid 1..=16 clients, 1..=64 servers", self.clients, self.servers));
        }
        if !(self.load > 0.0 && self.load <= 1.0) {
            return Err(format!("--load {}: valid (0, 1] of a client's link", self.load));
        }
        if !(self.short_fraction >= 0.0 && self.short_fraction <= 1.0) || self.short_bytes == 0 || self.long_bytes == 0 {
            return Err("short fraction valid 0..=1, response sizes at least 1 byte".into());
        }
        if !(self.warmup_s >= 0.0 && self.seconds > self.warmup_s + 0.1 && self.seconds <= 600.0) {
            return Err(format!(
                "--seconds {} with warm-up {} s: valid above the warm-up + 0.1 s, at most 600",
                self.seconds, self.warmup_s
            ));
        }
        if !(0.0..=1000.0).contains(&self.sender_ppm) {
            return Err(format!("--sender-ppm {}: valid 0..=1000", self.sender_ppm));
        }
        Ok(())
    }
}

/// Completion times of one class.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ClassTimes {
    pub requests: usize,
    pub mean_us: Option<f64>,
    pub p99_us: Option<f64>,
    /// Mean of the requests sent in each second after the warm-up (Fig. 4-2's faded points).
    pub per_second_mean_us: Vec<Option<f64>>,
}

/// What an RPC run measured.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RpcResult {
    pub params: RpcParams,
    pub short: ClassTimes,
    pub long: ClassTimes,
    /// Requests not answered by the end of the run (1 s after the last was sent).
    pub unanswered: usize,
    /// Client links' mean load between the warm-up and the last request, of their rate (all
    /// frames the switch sent them).
    pub client_link_load: f64,
    pub dropped: u64,
    pub timeouts: u64,
    pub simulated_s: f64,
    pub wall_s: f64,
    pub simulated_s_per_wall_s: f64,
}

fn class_times(done: &[(f64, f64)], warmup_s: f64, seconds: f64) -> ClassTimes {
    let us: Vec<f64> = done.iter().map(|(sent, fct)| (*sent, fct / 1e3)).filter(|(s, _)| *s >= warmup_s * 1e9).map(|(_, f)| f).collect();
    let mean = |v: &[f64]| (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64);
    let per_second_mean_us = (warmup_s.ceil() as usize..seconds.floor() as usize)
        .map(|k| {
            let v: Vec<f64> =
                done.iter().filter(|(s, _)| *s >= k as f64 * 1e9 && *s < (k + 1) as f64 * 1e9).map(|(_, f)| f / 1e3).collect();
            mean(&v)
        })
        .collect();
    ClassTimes { requests: us.len(), mean_us: mean(&us), p99_us: percentile(&us, 99.0), per_second_mean_us }
}

/// Runs the RPC workload; `progress` is told the simulated seconds so far.
pub fn run_rpc(p: &RpcParams, progress: &mut dyn FnMut(f64)) -> Result<RpcResult, String> {
    use crate::rpc::{client_port, Request, RpcClient, RpcServer};
    p.validate()?;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(p.seed);
    let client_ip = |i: usize| RECEIVER_IP + i as u32;
    let server_ip = |j: usize| RECEIVER_IP + 1000 + j as u32;
    let servers: Vec<u32> = (0..p.servers).map(server_ip).collect();
    let mean_bytes = p.short_fraction * p.short_bytes as f64 + (1.0 - p.short_fraction) * p.long_bytes as f64;
    let rate_per_ns = p.load * p.gbps / 8.0 / mean_bytes;
    let mut server_hosts: Vec<RpcServer> = servers.iter().map(|ip| RpcServer::new(*ip, p.tcp.clone())).collect::<Result<_, _>>()?;
    let mut clients = Vec::new();
    for i in 0..p.clients {
        let mut schedule = Vec::new();
        let mut t = 0.0;
        loop {
            t += -(1.0 - rng.gen::<f64>()).ln() / rate_per_ns;
            if t >= p.seconds * 1e9 {
                break;
            }
            let class = usize::from(rng.gen::<f64>() >= p.short_fraction);
            let server = rng.gen_range(0..p.servers);
            let response_bytes = if class == 0 { p.short_bytes } else { p.long_bytes };
            server_hosts[server].expect(client_ip(i), client_port(server, class), response_bytes);
            schedule.push(Request { at_ns: t, server, class, response_bytes });
        }
        clients.push(RpcClient::new(client_ip(i), p.tcp.clone(), &servers, schedule)?);
    }
    let clients = clients.into_iter().map(|c| Box::new(c) as Box<dyn Host>).collect();
    let servers = server_hosts.into_iter().map(|s| Box::new(s) as Box<dyn Host>).collect();
    let mut net = star(clients, servers, (p.gbps, p.link_ns, p.sender_ppm), &p.scheme, p.seed)?;
    net.switches[0].occupancy_sampling = OccupancySampling::Off;
    let cycle_ns = net.cycle_ns(1);
    let wall = Instant::now();
    // Run to the end of the warm-up, the last request and the end of the drain, reading the
    // bytes the client ports sent at the first two.
    let mut client_bytes = Vec::new();
    for t in [p.warmup_s, p.seconds, p.seconds + 1.0] {
        net.run((t * 1e9 / cycle_ns).round() as u64, &mut |_| false, &mut |n| progress(n.cycle_ns(n.cycle) * 1e-9));
        client_bytes.push(net.switches[0].ports[..p.clients].iter().map(|port| port.counters.sent_bytes).sum::<u64>());
    }
    let wall_s = wall.elapsed().as_secs_f64();
    let mut done: [Vec<(f64, f64)>; 2] = [Vec::new(), Vec::new()];
    let mut unanswered = 0;
    let mut timeouts = 0;
    for i in 0..p.clients {
        let c = net.host::<RpcClient>(i).expect("a client");
        for x in &c.completions {
            done[x.class].push((x.sent_ns, x.done_ns - x.sent_ns));
        }
        unanswered += c.outstanding();
        timeouts += c.tcp.connections.iter().map(|k| k.stats.timeouts).sum::<u64>();
    }
    for j in 0..p.servers {
        let s = net.host::<RpcServer>(p.clients + j).expect("a server");
        timeouts += s.tcp.connections.iter().map(|k| k.stats.timeouts).sum::<u64>();
    }
    let simulated_s = net.cycle_ns(net.cycle) * 1e-9;
    let measured_s = p.seconds - p.warmup_s;
    Ok(RpcResult {
        params: p.clone(),
        short: class_times(&done[0], p.warmup_s, p.seconds),
        long: class_times(&done[1], p.warmup_s, p.seconds),
        unanswered,
        client_link_load: (client_bytes[1] - client_bytes[0]) as f64 * 8.0 / (measured_s * p.gbps * 1e9 * p.clients as f64),
        dropped: net.switches[0].ports.iter().map(|port| port.counters.dropped).sum(),
        timeouts,
        simulated_s,
        wall_s,
        simulated_s_per_wall_s: simulated_s / wall_s.max(1e-9),
    })
}
