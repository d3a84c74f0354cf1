//! Bolt's two-flow experiments on a dumbbell (thesis Figs. 4.10–4.12; the authors'
//! `bolt-bts-benchmarks` and `bolt-pru-benchmarks`): one flow arrives while another runs, one
//! of two flows completes, or one is rerouted away; how the bottleneck's queue and the other
//! flow's window react. The Bolt ingress block (RTL, on Verilator, its behavioural model beside
//! it) decides every packet on the bottleneck port.
//!
//! # Setup beside the thesis'
//! | | thesis (the authors' code) | here |
//! |---|---|---|
//! | topology | dumbbell, a receiver per flow on the right switch; host links 102 Gb/s, bottleneck 100 Gb/s, 1 272 ns per link (≈ 8 µs RTT) | the same; the Bolt block on the left switch (only its bottleneck port sees traffic to the right) |
//! | device queues | host links 1 000 packets, bottleneck 1 packet | the left switch's ports: 1 packet (the hosts send one frame at a time) |
//! | packets | MTU 1 500 B, CC_THRESH 3 KB (2 packets) | the same |
//! | window | initial = BDP = 100 000 B, maxCwnd 373 760 B | the same |
//! | arrival (Fig. 4.10) | flow 1 of 2 × `newFlowTime` (1 ms) at the bottleneck's rate from 0, flow 2 of 1 × joining at `newFlowTime` (the figure: 100 µs) | the same from `unit_us` |
//! | completion (Fig. 4.11) | flow i of (i + 1) × `flowEndTime` (2 ms), both from 0 | the same from `unit_us` |
//! | reroute (Fig. 4.12) | the completion setup; the thesis' figures come from runs with PRU off (4.12a) and PRU and SM off (4.12b); the code can also take flow 1's host link down at `flowEndTime` | both: [`DumbbellEvent::Reroute`] stops flow 1 at `unit_us` without a LAST flag ([`BoltSender::stop_flow_at`]) |
//!
//! **The idle gap after a completion.** In the shared phase the two flows' frames leave the
//! bottleneck interleaved in runs (several frames of one flow back to back), set by each
//! flow's ACK clock. One RTT after the completing flow's last window, each of its runs is a
//! hole. PRU's tokens come with that window's LAST frames and go to the staying flow's next
//! INC frames, which pass the bottleneck after the run that made them; the extra frames they
//! earn arrive one RTT later, right after the hole, not in it. Bolt holds the queue at
//! CC_THRESH (two frames), so nothing queued covers the hole: the bottleneck idles for about
//! the completing flow's longest run (`leaving_run_frames`), and a frame or less only when
//! that run is one frame. A staying flow whose window has less than a payload left paces, and
//! sends nothing until its paced send is due (the authors' `SendDown`), which can lengthen the
//! gap by up to that wait (`staying_pace_ns`).
//!
//! **The event's time** t_e: an arrival's is when the new flow's first frame reaches the left
//! switch (its start, one host-link frame time and one link delay later); a completion's or a
//! reroute's is when the leaving flow's last frame reaches its receiver. Both receivers sit one
//! core and one edge link past the bottleneck, so rates taken at the receivers are the
//! bottleneck's shifted by the same delay; the queue is the bottleneck port's own (bytes, every
//! 100 ns).

use super::bolt::{CLOCK, RECEIVER_IP};
use crate::bolt::frame::FRAME_HEADER_BYTES;
use crate::bolt::host::{BoltConfig, BoltReceiver, BoltSender};
use crate::bolt::switch::{self as bolt_switch, BoltIngressStage};
use crate::link::LinkSpec;
use crate::switch::OccupancySampling;
use crate::topology::Member;
use nanotransport_hdl::pisa::wire::ETH_HEADER_BYTES;
use serde::{Deserialize, Serialize};
use std::time::Instant;

const SENDER_IP: u32 = 0x0A00_0011;
/// The rate a flow must reach to count as using the link, Gb/s of frame bytes over 1 µs.
const FULL_RATE_GBPS: f64 = 95.0;
/// Bytes a receiver counts per frame beyond its IP bytes (the Ethernet header).
const ETH_BYTES: f64 = ETH_HEADER_BYTES as f64;

/// What happens to the two flows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DumbbellEvent {
    /// Fig. 4.10: flow 2 joins flow 1 at the steady state.
    Arrival,
    /// Fig. 4.11: both start together; flow 1 completes (its last window carries LAST).
    Completion,
    /// Fig. 4.12: both start together; flow 1 leaves the bottleneck without warning.
    Reroute,
}

impl std::fmt::Display for DumbbellEvent {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(match self {
            DumbbellEvent::Arrival => "arrival",
            DumbbellEvent::Completion => "completion",
            DumbbellEvent::Reroute => "reroute",
        })
    }
}

/// The targets, fixed before measuring.
pub const ARRIVAL_TARGETS: &str =
    "queue peak below one BDP, back to ≤ CC_THRESH within 2 RTTs (16 µs) of the arrival, bottleneck never below 90 % over 8 µs";
pub const COMPLETION_TARGETS: &str = "the remaining flow at ≥ 95 Gb/s (over 1 µs) within 2 µs of t_c, the bottleneck idle ≤ one frame time";
pub const REROUTE_TARGETS: &str =
    "with SM, ≥ 95 % of line rate (over one RTT) within 30 µs; without SM, the window grows one payload per RTT (±10 %) and takes ≥ 25 RTTs to reach one BDP";

/// One run's parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BoltDumbbellParams {
    pub event: DumbbellEvent,
    pub pru: bool,
    pub sm: bool,
    /// The time unit, µs: flow sizes are multiples of it at the bottleneck's rate (arrival: 2
    /// and 1; completion and reroute: 1 and 2), and an arrival or a reroute happens at it.
    pub unit_us: f64,
    /// How long to watch after the event, µs.
    pub after_us: f64,
    pub edge_gbps: f64,
    pub core_gbps: f64,
    pub link_ns: f64,
    pub mtu_ip: usize,
    pub cc_thresh: u32,
    /// The initial window and one BDP (the authors' `bdpBytes`), bytes.
    pub bdp: f64,
    pub max_cwnd: f64,
}

impl BoltDumbbellParams {
    /// The authors' settings for `event`.
    pub fn defaults(event: DumbbellEvent, pru: bool, sm: bool) -> Self {
        let (unit_us, after_us) = match event {
            DumbbellEvent::Arrival => (1000.0, 100.0),
            DumbbellEvent::Completion => (2000.0, 30.0),
            DumbbellEvent::Reroute => (2000.0, 400.0),
        };
        BoltDumbbellParams {
            event,
            pru,
            sm,
            unit_us,
            after_us,
            edge_gbps: 102.0,
            core_gbps: 100.0,
            link_ns: 1272.0,
            mtu_ip: 1500,
            cc_thresh: 3000,
            bdp: 100_000.0,
            max_cwnd: 373_760.0,
        }
    }

    /// One line naming the first parameter out of range.
    pub fn validate(&self) -> Result<(), String> {
        super::first_error([
            (self.unit_us >= 20.0 && self.unit_us <= 100_000.0, format!("--unit-us {} outside 20..=100000", self.unit_us)),
            (self.after_us >= 10.0 && self.after_us <= 10_000.0, format!("--after-us {} outside 10..=10000", self.after_us)),
            (
                (FRAME_HEADER_BYTES..=9000).contains(&self.mtu_ip),
                format!("--mtu {} outside {}..=9000 bytes", self.mtu_ip, FRAME_HEADER_BYTES),
            ),
            (self.edge_gbps >= self.core_gbps && self.core_gbps > 0.0, "host links must be at least as fast as the bottleneck".to_string()),
            (self.bdp >= 15.0 && self.max_cwnd >= self.bdp, format!("--bdp {} must be ≥ 15 and ≤ the largest window", self.bdp)),
        ])
    }

    fn frame_mtu(&self) -> usize {
        self.mtu_ip + ETH_HEADER_BYTES
    }

    /// The RTT without queueing, ns: six link delays, a full frame on each of the three links
    /// out and an ACK back.
    pub fn base_rtt_ns(&self) -> f64 {
        let bits = |bytes: usize, gbps: f64| bytes as f64 * 8.0 / gbps;
        6.0 * self.link_ns
            + 2.0 * bits(self.frame_mtu(), self.edge_gbps)
            + bits(self.frame_mtu(), self.core_gbps)
            + 3.0 * bits(FRAME_HEADER_BYTES, self.core_gbps)
    }

    /// Flow sizes (payload bytes), start times and the reroute time (ns) of the two flows.
    fn flows(&self) -> [(u64, f64, Option<f64>); 2] {
        let payload = (self.frame_mtu() - FRAME_HEADER_BYTES) as f64;
        let unit = (self.unit_us * 1e3 * self.core_gbps / 8.0 * payload / self.frame_mtu() as f64) as u64;
        let at = self.unit_us * 1e3;
        match self.event {
            DumbbellEvent::Arrival => [(2 * unit, 0.0, None), (unit, at, None)],
            DumbbellEvent::Completion => [(unit, 0.0, None), (2 * unit, 0.0, None)],
            DumbbellEvent::Reroute => [(unit, 0.0, Some(at)), (2 * unit, 0.0, None)],
        }
    }
}

/// What one run measured. Times are µs; `t_e_us` is the event's.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BoltDumbbellRun {
    pub params: BoltDumbbellParams,
    pub t_e_us: f64,
    pub base_rtt_us: f64,
    /// The bottleneck queue's largest occupancy after the event, bytes, and when.
    pub queue_peak_bytes: f64,
    pub queue_peak_us: f64,
    /// From t_e until the queue is back at ≤ CC_THRESH after its peak (None: not in the run).
    pub queue_drain_us: Option<f64>,
    /// The bottleneck's lowest rate over any 8 µs window after the event (both flows), % of
    /// the line rate.
    pub min_utilisation_8us: f64,
    /// From t_e until the flow that stays runs at ≥ 95 Gb/s over 1 µs (None: not in the run).
    /// A window-limited flow sends in bursts at its host link's rate, so 1 µs can be full while
    /// the flow is far below the line rate over an RTT: see `ramp_rtt_us`.
    pub ramp_us: Option<f64>,
    /// The same over one base RTT: the window, not a burst, carries the line rate.
    pub ramp_rtt_us: Option<f64>,
    /// The longest idle gap on the bottleneck in the 20 µs after t_e, ns; and one frame's time.
    pub idle_ns: f64,
    pub frame_ns: f64,
    /// The leaving flow's longest run of back-to-back frames at the bottleneck in the base RTT
    /// before t_e (0 at an arrival): one RTT later that run is a hole the staying flow's ACK
    /// clock cannot fill (see the module's rustdoc).
    #[serde(default)]
    pub leaving_run_frames: u32,
    /// The longest pacing wait the staying flow armed from one base RTT before t_e to 20 µs
    /// after, ns (0: none): while it waits it sends nothing, as the authors' sender does.
    #[serde(default)]
    pub staying_pace_ns: f64,
    /// The staying flow's window at t_e and 20 µs later, bytes.
    pub cwnd_at_event: f64,
    pub cwnd_after_20us: f64,
    /// The staying flow's window growth after the event, in payloads per base RTT, until it
    /// reaches one BDP or the run ends; and the base RTTs until it reaches one BDP.
    pub growth_payloads_per_rtt: f64,
    pub rtts_to_bdp: Option<f64>,
    pub srcs: u64,
    pub queue_max_packets: u64,
    pub drops: u64,
    pub rtl_mismatches: u64,
    /// (µs from 20 µs before t_e, Gb/s) of each flow per µs, at its receiver.
    pub rate: [Vec<(f64, f64)>; 2],
    /// (µs from 20 µs before t_e, KB) of the bottleneck queue.
    pub queue: Vec<(f64, f64)>,
    /// (µs from 20 µs before t_e, KB) of each flow's window.
    pub cwnd: [Vec<(f64, f64)>; 2],
    pub wall_s: f64,
}

/// Runs one dumbbell run until `after_us` past the event; `progress` is told the simulated µs.
pub fn run_bolt_dumbbell(p: &BoltDumbbellParams, progress: &mut dyn FnMut(f64)) -> Result<BoltDumbbellRun, String> {
    p.validate()?;
    let frame_mtu = p.frame_mtu();
    let config =
        BoltConfig { mtu: frame_mtu, init_cwnd: p.bdp, max_cwnd: p.max_cwnd, min_cwnd: 15.0, link_gbps: p.edge_gbps, rto_ns: 10e6 };
    let edge = LinkSpec::new(p.edge_gbps, p.link_ns);
    let flows = p.flows();
    let mut left = Vec::new();
    let mut right = Vec::new();
    for (i, (size, start, stop)) in flows.iter().enumerate() {
        let k = i as u32;
        let mut s = BoltSender::new(SENDER_IP + k, config)?;
        s.record_cwnd = true;
        let f = s.add_flow(RECEIVER_IP + k, 1000 + i as u16, *size, *start)?;
        if let Some(at) = stop {
            s.stop_flow_at(f, *at);
        }
        left.push((Member::Host(Box::new(s)), edge));
        right.push((Member::Host(Box::new(BoltReceiver::new(RECEIVER_IP + k))), edge));
    }
    let mut net = crate::topology::dumbbell_of(
        CLOCK,
        left,
        right,
        LinkSpec::new(p.core_gbps, p.link_ns),
        &mut || bolt_switch::stages(10_000_000),
        1,
    )?;
    let params = bolt_switch::bolt_params(frame_mtu as u32, p.cc_thresh, p.pru, p.sm)?;
    net.switches[0].ingress = Some(Box::new(BoltIngressStage::new(&params)?.check_against_reference()));
    net.switches[0].device_queue_pkts = 1;
    net.switches[0].occupancy_sampling = OccupancySampling::EveryNs(100.0);
    // Members: senders 0 and 1 (left), then receivers 2 and 3 (right).
    let leaving = match p.event {
        DumbbellEvent::Arrival => None,
        _ => Some(2usize),
    };
    let arrival_ns = flows[1].1 + frame_mtu as f64 * 8.0 / p.edge_gbps + p.link_ns;
    let event_at = |n: &crate::network::Network| -> Option<f64> {
        match leaving {
            None => Some(arrival_ns).filter(|t| n.cycle_ns(n.cycle) >= *t),
            Some(m) => {
                let r = n.host::<BoltReceiver>(m)?;
                let done = r.completions.first().map(|c| c.2);
                // A rerouted flow's last frame: its receiver's last arrival once the flow has
                // stopped and its frames in flight have had a path's time and 20 µs more.
                let stopped = flows[0].2.filter(|s| n.cycle_ns(n.cycle) > s + 4.0 * p.link_ns + 20_000.0);
                done.or(stopped.and(r.arrivals.last().map(|a| a.0)))
            }
        }
    };
    let wall = Instant::now();
    let limit = ((p.unit_us * 3.0 + p.after_us + 1000.0) * 1e3 / net.cycle_ns(1)).round() as u64;
    let mut t_e: Option<f64> = None;
    net.run(
        limit,
        &mut |n| {
            if t_e.is_none() {
                t_e = event_at(n);
            }
            t_e.is_some_and(|t| n.cycle_ns(n.cycle) > t + p.after_us * 1e3)
        },
        &mut |n| progress(n.cycle_ns(n.cycle) / 1e3),
    );
    let wall_s = wall.elapsed().as_secs_f64();
    let t_e = t_e.ok_or(format!("the {} did not happen in the run", p.event))?;
    let end = t_e + p.after_us * 1e3;
    let receivers = [net.host::<BoltReceiver>(2).expect("receiver 1"), net.host::<BoltReceiver>(3).expect("receiver 2")];
    let senders = [net.host::<BoltSender>(0).expect("sender 1"), net.host::<BoltSender>(1).expect("sender 2")];
    // The flow that stays: the one already running at an arrival, else flow 2.
    let stays = if p.event == DumbbellEvent::Arrival { 0 } else { 1 };
    let frame_ns = frame_mtu as f64 * 8.0 / p.core_gbps;
    let origin = t_e - 20_000.0;
    // Frame bytes arrived at each receiver up to each arrival (arrivals are in time order), so a
    // window's rate is two binary searches.
    let cumulative: [Vec<(f64, f64)>; 2] = std::array::from_fn(|f| {
        let mut sum = 0.0;
        let mut v = Vec::with_capacity(receivers[f].arrivals.len());
        for a in &receivers[f].arrivals {
            sum += (a.1 as f64 + ETH_BYTES) * 8.0;
            v.push((a.0, sum));
        }
        v
    });
    let bits_before = |f: usize, t: f64| {
        let c = &cumulative[f];
        c.partition_point(|x| x.0 < t).checked_sub(1).map_or(0.0, |i| c[i].1)
    };
    let gbps_in = |f: usize, from: f64, len: f64| (bits_before(f, from + len) - bits_before(f, from)) / len;
    let rate: [Vec<(f64, f64)>; 2] = std::array::from_fn(|f| {
        let mut v = Vec::new();
        let mut from = origin;
        while from < end {
            v.push(((from - origin) / 1e3, gbps_in(f, from, 1000.0)));
            from += 1000.0;
        }
        v
    });
    let ramp = |window: f64| {
        let mut t = t_e;
        while t + window <= end {
            if gbps_in(stays, t, window) >= FULL_RATE_GBPS {
                return Some((t - t_e) / 1e3);
            }
            t += 10.0;
        }
        None
    };
    let rtt = p.base_rtt_ns();
    // Both flows over 8 µs windows from t_e shifted to the receivers (two links later).
    let shift = 2.0 * p.link_ns;
    let mut min_utilisation_8us = f64::INFINITY;
    let mut t = t_e + shift;
    while t + 8000.0 <= end {
        let g = gbps_in(0, t, 8000.0) + gbps_in(1, t, 8000.0);
        min_utilisation_8us = min_utilisation_8us.min(g / p.core_gbps * 100.0);
        t += 100.0;
    }
    let mut both: Vec<(f64, u32)> =
        receivers.iter().flat_map(|r| r.arrivals.iter().copied()).filter(|a| a.0 >= t_e - frame_ns && a.0 <= t_e + 20_000.0).collect();
    both.sort_by(|a, b| a.0.total_cmp(&b.0));
    let idle_ns = both.windows(2).map(|w| w[1].0 - w[0].0 - (w[1].1 as f64 + ETH_BYTES) * 8.0 / p.core_gbps).fold(0.0, f64::max);
    let leaving_run_frames = match leaving {
        None => 0,
        Some(_) => {
            let leaves = 1 - stays;
            let mut last_rtt: Vec<(f64, usize)> = (0..2)
                .flat_map(|f| receivers[f].arrivals.iter().map(move |a| (a.0, f)))
                .filter(|a| a.0 > t_e - rtt && a.0 <= t_e)
                .collect();
            last_rtt.sort_by(|a, b| a.0.total_cmp(&b.0));
            let (mut run, mut longest) = (0, 0);
            for a in last_rtt {
                run = if a.1 == leaves { run + 1 } else { 0 };
                longest = longest.max(run);
            }
            longest
        }
    };
    let core_port = net.switches[0].ports.len() - 1;
    let port = &net.switches[0].ports[core_port];
    let queue_ns: Vec<(f64, f64)> = port.occupancy.iter().map(|(t, _, b)| (net.tick_ns(*t), *b as f64)).collect();
    let after: Vec<&(f64, f64)> = queue_ns.iter().filter(|q| q.0 >= t_e && q.0 <= end).collect();
    let peak = after.iter().fold((0.0, t_e), |m, q| if q.1 > m.0 { (q.1, q.0) } else { m });
    let queue_drain_us = after
        .iter()
        .find(|q| q.0 >= peak.1 && q.1 <= p.cc_thresh as f64)
        .map(|q| (q.0 - t_e) / 1e3)
        .filter(|_| peak.0 > p.cc_thresh as f64);
    let staying_pace_ns = senders[stays]
        .flow_stats(0)
        .pace_trace
        .iter()
        .filter(|(t, _)| *t >= t_e - rtt && *t <= t_e + 20_000.0)
        .map(|(_, gap)| *gap)
        .fold(0.0, f64::max);
    let trace = &senders[stays].flow_stats(0).cwnd_trace;
    let cwnd_at = |t: f64| trace.iter().take_while(|c| c.0 <= t).last().map_or(p.bdp, |c| c.1);
    let reached = trace.iter().find(|c| c.0 >= t_e && c.1 >= p.bdp).map(|c| c.0);
    let growth_end = reached.unwrap_or(end);
    let payload = (frame_mtu - FRAME_HEADER_BYTES) as f64;
    let growth_payloads_per_rtt = (cwnd_at(growth_end) - cwnd_at(t_e)) / payload / ((growth_end - t_e) / rtt);
    let relative = |v: &[(f64, f64)], scale: f64| -> Vec<(f64, f64)> {
        v.iter().filter(|c| c.0 >= origin && c.0 <= end).map(|c| ((c.0 - origin) / 1e3, c.1 / scale)).collect()
    };
    let stage = net.switches[0].ingress.as_ref().and_then(|s| s.as_any().downcast_ref::<BoltIngressStage>()).expect("the Bolt stage");
    Ok(BoltDumbbellRun {
        params: p.clone(),
        t_e_us: t_e / 1e3,
        base_rtt_us: rtt / 1e3,
        queue_peak_bytes: peak.0,
        queue_peak_us: (peak.1 - t_e) / 1e3,
        queue_drain_us,
        min_utilisation_8us,
        ramp_us: ramp(1000.0),
        ramp_rtt_us: ramp(rtt),
        idle_ns,
        frame_ns,
        leaving_run_frames,
        staying_pace_ns,
        cwnd_at_event: cwnd_at(t_e),
        cwnd_after_20us: cwnd_at(t_e + 20_000.0),
        growth_payloads_per_rtt,
        rtts_to_bdp: reached.map(|t| (t - t_e) / rtt),
        srcs: stage.srcs,
        queue_max_packets: port.counters.max_packets,
        drops: net.switches.iter().flat_map(|s| &s.ports).map(|p| p.counters.dropped).sum(),
        rtl_mismatches: stage.mismatches,
        rate,
        queue: relative(&queue_ns, 1000.0),
        cwnd: std::array::from_fn(|f| relative(&senders[f].flow_stats(0).cwnd_trace, 1000.0)),
        wall_s,
    })
}
