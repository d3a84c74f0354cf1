//! Bolt's utilisation experiment (thesis Table 4.1): five senders start one flow each, 15 µs
//! apart, into one receiver through a switch whose Bolt ingress block (RTL, on Verilator)
//! decides every packet; utilisation while flows finish and leave, with PRU and supply matching
//! (SM) each on or off — the block's configuration inputs.
//!
//! # Setup beside the thesis'
//! | | thesis (the authors' `bolt-star-topo-incast`) | here |
//! |---|---|---|
//! | topology | star, 100 Gb/s, 1 048 ns per link (≈ 5 µs base RTT) | the same |
//! | MTU | 5 000 B IP packets (41 B of IP and Bolt headers) | 5 000 B IP packets: 5 014-byte frames, 45 B of IP, Bolt and transport headers |
//! | flows | 5 senders × 500 000 B of IP packets, sender i starting at i · 15 µs | the same: 495 500 B of payload each |
//! | window | initial = maxCwnd = BDP = 62 420 B | the same |
//! | CC_THRESH | 10 KB in the code (2 MTU); the thesis text says 1 MTU | `cc_thresh` (10 000; 5 000 for the text's) |
//! | switch | 320 MB buffer, a 1-packet device queue, Bolt on every port | 10 MB per port, a 1-packet device queue; the block's state per egress port |
//! | hosts | the queue disc on both ends of every host link | each sender's own link has one ([`BoltSender::with_host_queue_disc`]: the block's reference model; with SM on it removes INCs its link cannot supply) |
//!
//! **Utilisation** = IP bytes of data (payload and every header after Ethernet) arriving at the
//! receiver in the window, over the window, over the link rate. The window ends at the last
//! delivery and starts at the first flow completion as its sender sees it (the ACK of its last
//! byte), truncated to whole µs counted from 15 µs before the first sender starts (the authors'
//! measurement start); the receiver-side window starts at the first completion at the receiver
//! instead.

use super::stats::percentile;
use crate::bolt::frame::FRAME_HEADER_BYTES;
use crate::bolt::host::{BoltConfig, BoltReceiver, BoltSender};
use crate::bolt::switch::{self as bolt_switch, BoltIngressStage};
use crate::link::LinkSpec;
use crate::switch::OccupancySampling;
use crate::topology::{star_of, Member};
use nanotransport_hdl::clock::NicClock;
use nanotransport_hdl::pisa::wire::ETH_HEADER_BYTES;
use nanotransport_hdl::switch::bolt_ingress::BoltParams;
use serde::{Deserialize, Serialize};
use std::time::Instant;

/// The network's clock and the (first) receiver's address in Bolt's experiments.
pub(crate) const CLOCK: NicClock = NicClock::THESIS;
pub(crate) const RECEIVER_IP: u32 = 0x0A00_0001;

/// The thesis' Table 4.1: (PRU, SM, utilisation %).
pub const TABLE_4_1: [(bool, bool, f64); 4] = [(false, false, 90.46), (true, false, 97.38), (false, true, 92.41), (true, true, 98.54)];

/// The targets, fixed before measuring.
pub const TARGETS: &str = "each row within ±2 points of Table 4.1; both PRU-on rows ≥ 3 points above both PRU-off rows; SM never lowers utilisation by more than 0.5 points";

/// One utilisation run's parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BoltUtilisationParams {
    pub pru: bool,
    pub sm: bool,
    pub senders: usize,
    /// IP bytes each flow sends (payload and headers after Ethernet).
    pub flow_ip_bytes: u64,
    pub gap_us: f64,
    pub gbps: f64,
    pub link_ns: f64,
    /// IP packet bytes of a full packet.
    pub mtu_ip: usize,
    pub cc_thresh: u32,
    /// Initial and maximum window, bytes.
    pub bdp: f64,
    pub buffer_bytes: usize,
    /// Simulated time, µs (the flows finish well before).
    pub run_us: f64,
}

impl BoltUtilisationParams {
    pub fn defaults(pru: bool, sm: bool) -> Self {
        BoltUtilisationParams {
            pru,
            sm,
            senders: 5,
            flow_ip_bytes: 500_000,
            gap_us: 15.0,
            gbps: 100.0,
            link_ns: 1048.0,
            mtu_ip: 5000,
            cc_thresh: 10_000,
            bdp: 62_420.0,
            buffer_bytes: 10_000_000,
            run_us: 1000.0,
        }
    }

    fn frame_mtu(&self) -> usize {
        self.mtu_ip + ETH_HEADER_BYTES
    }

    /// Payload bytes of a flow.
    pub fn flow_payload(&self) -> u64 {
        let payload = (self.frame_mtu() - FRAME_HEADER_BYTES) as u64;
        self.flow_ip_bytes * payload / self.mtu_ip as u64
    }

    /// One line naming the first parameter out of range.
    pub fn validate(&self) -> Result<(), String> {
        let checks: [(bool, String); 6] = [
            (
                (2..=63).contains(&self.senders),
                format!("--senders {} outside 2..=63 (flows must finish one after another; one switch of 64 ports)", self.senders),
            ),
            (
                (FRAME_HEADER_BYTES..=9000).contains(&self.mtu_ip),
                format!("--mtu {} outside {}..=9000 bytes", self.mtu_ip, FRAME_HEADER_BYTES),
            ),
            (self.flow_ip_bytes >= self.mtu_ip as u64, format!("--flow-bytes {} below one MTU", self.flow_ip_bytes)),
            (self.bdp >= 15.0, format!("--bdp {} below the 15-byte minimum window", self.bdp)),
            (self.gap_us >= 0.0 && self.run_us > 0.0, "--gap-us must be ≥ 0 and --run-us positive".to_string()),
            (self.buffer_bytes >= self.frame_mtu(), format!("--buffer-bytes {} below one frame", self.buffer_bytes)),
        ];
        super::first_error(checks)
    }
}

/// What one run measured.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BoltUtilisationRun {
    pub params: BoltUtilisationParams,
    /// %, the window from the first completion at its sender (whole µs).
    pub utilisation: f64,
    /// %, the window from the first completion at the receiver.
    pub utilisation_receiver_window: f64,
    pub window_start_us: f64,
    pub window_end_us: f64,
    /// Every flow's completion at its sender, µs.
    pub completions_us: Vec<f64>,
    pub srcs: u64,
    /// SRC frames' bytes on the reverse path, and their rate over the flows' lifetime.
    pub src_bytes: u64,
    pub src_gbps: f64,
    pub src_frame_bytes: usize,
    pub queue_p99_bytes: f64,
    pub queue_max_packets: u64,
    pub drops: u64,
    pub timeouts: u64,
    /// Data packets whose INC a sender's own queue disc removed (with SM on: no supply of its
    /// own link and no PRU token of its own).
    #[serde(default)]
    pub host_inc_cleared: u64,
    /// Decisions where the reference model disagreed with the RTL (run beside it).
    pub rtl_mismatches: u64,
    pub pru_tokens: u32,
    pub pru_grants: u32,
    pub supply_grants: u32,
    /// (µs, bytes) of each flow's window at every change.
    pub cwnd: Vec<Vec<(f64, f64)>>,
    /// (µs, bytes) of the receiver's switch queue, every 100 ns.
    pub queue: Vec<(f64, f64)>,
    /// (µs, Gb/s) delivered to the receiver per µs.
    pub rate: Vec<(f64, f64)>,
    /// The run's length (the flows are done at [`BoltUtilisationRun::window_end_us`]).
    pub simulated_us: f64,
    pub wall_s: f64,
}

/// Runs one row; `progress` is told the simulated µs so far.
pub fn run_bolt_utilisation(p: &BoltUtilisationParams, progress: &mut dyn FnMut(f64)) -> Result<BoltUtilisationRun, String> {
    p.validate()?;
    let config = BoltConfig { mtu: p.frame_mtu(), init_cwnd: p.bdp, max_cwnd: p.bdp, min_cwnd: 15.0, link_gbps: p.gbps, rto_ns: 10e6 };
    let params = bolt_switch::bolt_params(p.frame_mtu() as u32, p.cc_thresh, p.pru, p.sm)?;
    // The authors' star script puts the queue disc on both ends of every host link: each sender
    // has one on its own link (one port, the switch's ports' rate).
    let host_params = BoltParams { port_rates: params.port_rates[..1].to_vec(), ..params.clone() };
    let mut members = vec![Member::Host(Box::new(BoltReceiver::new(RECEIVER_IP)))];
    for i in 0..p.senders {
        let mut s = BoltSender::new(RECEIVER_IP + 1 + i as u32, config)?.with_host_queue_disc(host_params.clone())?;
        s.record_cwnd = true;
        s.add_flow(RECEIVER_IP, 1000 + i as u16, p.flow_payload(), (i + 1) as f64 * p.gap_us * 1e3)?;
        members.push(Member::Host(Box::new(s)));
    }
    let mut net = star_of(CLOCK, members, LinkSpec::new(p.gbps, p.link_ns), bolt_switch::stages(p.buffer_bytes), 1)?;
    net.switches[0].ingress = Some(Box::new(BoltIngressStage::new(&params)?.check_against_reference()));
    net.switches[0].device_queue_pkts = 1;
    net.switches[0].occupancy_sampling = OccupancySampling::EveryNs(100.0);
    let wall = Instant::now();
    let cycles = (p.run_us * 1e3 / net.cycle_ns(1)).round() as u64;
    let senders = p.senders;
    net.run(cycles, &mut |n| (1..=senders).all(|i| n.host::<BoltSender>(i).is_some_and(|s| s.flow_stats(0).done_ns.is_some())), &mut |n| {
        progress(n.cycle_ns(n.cycle) / 1e3)
    });
    let wall_s = wall.elapsed().as_secs_f64();

    let r = net.host::<BoltReceiver>(0).expect("the receiver");
    let sender = |i: usize| net.host::<BoltSender>(i).expect("a sender");
    let completions_us: Vec<f64> = (1..=p.senders).filter_map(|i| sender(i).flow_stats(0).done_ns.map(|t| t / 1e3)).collect();
    if completions_us.len() < p.senders {
        return Err(format!("{} of {} flows finished in {} µs (--run-us)", completions_us.len(), p.senders, p.run_us));
    }
    let last_delivery_ns = r.arrivals.last().map_or(0.0, |a| a.0);
    let bytes_between = |from_ns: f64| r.arrivals.iter().filter(|a| a.0 > from_ns).map(|a| a.1 as u64).sum::<u64>() as f64;
    let utilisation = |from_ns: f64| bytes_between(from_ns) * 8.0 / (last_delivery_ns - from_ns) / p.gbps * 100.0;
    let first_at_sender_ns = completions_us.iter().copied().fold(f64::INFINITY, f64::min) * 1e3;
    let reference_ns = p.gap_us * 1e3 - 15_000.0;
    let start_ns = reference_ns + ((first_at_sender_ns - reference_ns) / 1e3).floor() * 1e3;
    let first_at_receiver_ns = r.completions.iter().map(|c| c.2).fold(f64::INFINITY, f64::min);
    let stage = net.switches[0].ingress.as_ref().and_then(|s| s.as_any().downcast_ref::<BoltIngressStage>()).expect("the Bolt stage");
    let counts = stage.counts();
    let port = &net.switches[0].ports[0];
    let queue: Vec<(f64, f64)> = port.occupancy.iter().map(|(t, _, b)| (net.tick_ns(*t) / 1e3, *b as f64)).collect();
    let queue_bytes: Vec<f64> = queue.iter().map(|q| q.1).collect();
    let mut rate = vec![0.0; (last_delivery_ns / 1e3).ceil() as usize + 1];
    for (t, b) in &r.arrivals {
        rate[(t / 1e3) as usize] += *b as f64 * 8.0 / 1e3;
    }
    let first_start_ns = p.gap_us * 1e3;
    Ok(BoltUtilisationRun {
        params: p.clone(),
        utilisation: utilisation(start_ns),
        utilisation_receiver_window: utilisation(first_at_receiver_ns),
        window_start_us: start_ns / 1e3,
        window_end_us: last_delivery_ns / 1e3,
        completions_us,
        srcs: stage.srcs,
        src_bytes: stage.src_bytes,
        src_gbps: stage.src_bytes as f64 * 8.0 / (last_delivery_ns - first_start_ns),
        src_frame_bytes: if stage.srcs > 0 { (stage.src_bytes / stage.srcs) as usize } else { 0 },
        queue_p99_bytes: percentile(&queue_bytes, 99.0).unwrap_or(0.0),
        queue_max_packets: port.counters.max_packets,
        drops: net.switches[0].ports.iter().map(|p| p.counters.dropped).sum(),
        timeouts: (1..=p.senders).map(|i| sender(i).flow_stats(0).timeouts).sum(),
        host_inc_cleared: (1..=p.senders).map(|i| sender(i).host_inc_cleared()).sum(),
        rtl_mismatches: stage.mismatches,
        pru_tokens: counts.pru_token,
        pru_grants: counts.pru_grant,
        supply_grants: counts.supply_grant,
        cwnd: (1..=p.senders).map(|i| sender(i).flow_stats(0).cwnd_trace.iter().map(|(t, c)| (t / 1e3, *c)).collect()).collect(),
        queue,
        rate: rate.into_iter().enumerate().map(|(i, g)| (i as f64, g)).collect(),
        simulated_us: net.cycle_ns(net.cycle) / 1e3,
        wall_s,
    })
}

/// The thesis' utilisation for a row.
pub fn thesis_utilisation(pru: bool, sm: bool) -> f64 {
    TABLE_4_1.iter().find(|r| r.0 == pru && r.1 == sm).map_or(f64::NAN, |r| r.2)
}
