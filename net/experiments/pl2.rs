//! PL2's incast and outcast (PL2 paper §6.4, Figs. 9 and 10): N senders into M receivers through
//! one switch — the incast N → 1, the outcast 1 → M — at an offered load given as a share of one
//! link, with PL2 — the reservation block's RTL deciding every RSV and data frame, senders running
//! Algorithm 2 — and without (raw Ethernet: every message sent at once), the same per-port buffer
//! in both arms. A sender's flow i sends to receiver i mod M.
//!
//! # Setup beside the paper's
//! | | PL2 testbed | here |
//! |---|---|---|
//! | hosts | incast: up to 4 senders → 1 receiver; outcast: 1 → up to 4; 12 flows per sender | `senders` → `receivers`, `flows` (12) per sender, [`crate::pl2::host`] |
//! | messages | 6 KiB = 4 MTU-sized packets, persistent | 4 full frames of 1 460 payload bytes (the PL2 header takes 20 of the 1 500), Poisson arrivals at the offered load |
//! | switch | Tofino, 100 Gb/s ports, < 200 KB buffer | one switch, 100 Gb/s, 200 000-byte drop-tail buffer per port shared by both bands; RSV/GRT in band 0 |
//! | PL2 | K = 4, t = 15, T not stated | K = 4, t = 15, T = 64 timeslots, GRT recent for 2 µs |
//! | RSV-GRT delay | 1.06 µs median NIC to NIC | 500 ns per link: 1.0 µs unloaded |
//! | duration | 24 million messages | messages offered for `duration_us`, then `drain_us` to finish |
//!
//! Goodput counts distinct payload bytes at the receivers after `warmup_us` until the offer
//! stops; the queue is the receivers' switch ports, sampled every 100 ns over the same window
//! (every receiver's port's samples together); latency and message counts cover the messages
//! created in it. Drops, RSVs and burst counts cover the whole run.

use super::stats::percentile;
use crate::link::LinkSpec;
use crate::pl2::host::{Offer, Pl2Params, Pl2Receiver, Pl2Sender, ReservationCounts, SendMode, MAX_FRAME_BYTES};
use crate::pl2::switch::{self as pl2_switch, Pl2Ingress};
use crate::switch::OccupancySampling;
use crate::topology::{star_of, Member};
use nanotransport_hdl::clock::NicClock;
use nanotransport_reference::pl2::Pl2Config;
use serde::{Deserialize, Serialize};
use std::time::Instant;

/// The tick base of a network of behavioural hosts (they keep time in ns; it only sets the resolution).
const CLOCK: NicClock = NicClock::THESIS;

/// The targets PL2's evaluation sets (§6), fixed before measuring.
pub const TARGETS: &str = "with PL2 no drop up to 400 %, queue p99 ≤ senders·K·MTU, incast goodput ≥ 90 % of the link, outcast goodput capped near 90 Gb/s; without PL2 drops from 100 %";
const RECEIVER_IP: u32 = 0x0A00_0001;

/// The incast's parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Pl2RunParams {
    pub senders: usize,
    pub receivers: usize,
    /// Offered load, % of one link, shared by the senders.
    pub load_percent: f64,
    pub pl2: bool,
    pub gbps: f64,
    pub link_ns: f64,
    pub buffer_bytes: usize,
    pub flows: usize,
    pub message_packets: u16,
    pub k: u8,
    pub t: u32,
    /// T, timeslots.
    pub unsolicited_limit: u32,
    pub unsolicited: bool,
    pub duration_us: f64,
    pub warmup_us: f64,
    pub drain_us: f64,
    pub seed: u64,
}

impl Pl2RunParams {
    pub fn defaults(senders: usize, load_percent: f64, pl2: bool) -> Self {
        Pl2RunParams {
            senders,
            receivers: 1,
            load_percent,
            pl2,
            gbps: 100.0,
            link_ns: 500.0,
            buffer_bytes: 200_000,
            flows: 12,
            message_packets: 4,
            k: 4,
            t: 15,
            unsolicited_limit: 64,
            unsolicited: true,
            duration_us: 2000.0,
            warmup_us: 200.0,
            drain_us: 1000.0,
            seed: 1,
        }
    }

    /// One line naming the first parameter out of range.
    pub fn validate(&self) -> Result<(), String> {
        let checks: [(bool, String); 10] = [
            ((1..=63).contains(&self.senders), format!("--senders {} outside 1..=63 (one switch of 64 ports)", self.senders)),
            (
                self.receivers >= 1 && self.senders + self.receivers <= 64,
                format!("--receivers {}: 1 or more, with the senders at most 64 (one switch of 64 ports)", self.receivers),
            ),
            (self.load_percent > 0.0 && self.load_percent <= 1000.0, format!("--load {} outside (0, 1000] %", self.load_percent)),
            (self.gbps > 0.0 && self.gbps <= 1000.0, format!("--gbps {} outside (0, 1000]", self.gbps)),
            (self.link_ns > 0.0, format!("--link-ns {} must be positive", self.link_ns)),
            (self.buffer_bytes >= MAX_FRAME_BYTES, format!("--buffer-bytes {} below one frame ({MAX_FRAME_BYTES})", self.buffer_bytes)),
            ((1..=4096).contains(&self.flows), format!("--flows {} outside 1..=4096", self.flows)),
            (self.message_packets >= 1, "--message-packets must be at least 1".to_string()),
            ((1..=255).contains(&self.k), format!("--k {} outside 1..=255", self.k)),
            (
                self.duration_us > self.warmup_us && self.warmup_us >= 0.0 && self.drain_us >= 0.0,
                format!("--duration-us {} must exceed --warmup-us {} (and --drain-us ≥ 0)", self.duration_us, self.warmup_us),
            ),
        ];
        super::first_error(checks)
    }
}

/// What one run measured.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Pl2Run {
    pub params: Pl2RunParams,
    pub offered_gbps: f64,
    pub goodput_gbps: f64,
    /// Frames the switch's buffer dropped, and frames the reservation block dropped (refused
    /// unsolicited data; a bad port or demand, which these runs cannot produce, would count too).
    pub buffer_drops: u64,
    pub policy_drops: u64,
    pub queue_p50_bytes: f64,
    pub queue_p99_bytes: f64,
    pub queue_max_packets: u64,
    /// Messages created after the warm-up, and how many of them were complete at the end of the
    /// run; the latency percentiles are over the complete ones (the rest never arrived whole:
    /// dropped without PL2, or still queued at their sender at 200 % and more).
    pub messages_offered: u64,
    pub messages_completed: u64,
    pub latency_p50_us: Option<f64>,
    pub latency_p99_us: Option<f64>,
    pub rsvs: u64,
    pub unsolicited_bursts: u64,
    pub resent_bursts: u64,
    pub duplicates: u64,
    pub stray_grants: u64,
    pub underflows: u64,
    /// Mean wait of a scheduled burst after its GRT, µs.
    pub mean_wait_us: f64,
    pub simulated_us: f64,
    pub wall_s: f64,
}

/// Runs one incast; `progress` is told the simulated µs so far.
pub fn run_pl2(p: &Pl2RunParams, progress: &mut dyn FnMut(f64)) -> Result<Pl2Run, String> {
    p.validate()?;
    let offered_gbps = p.load_percent / 100.0 * p.gbps;
    let mode =
        if p.pl2 { SendMode::Pl2(Pl2Params { k: p.k, t: p.t, unsolicited: p.unsolicited, ..Pl2Params::default() }) } else { SendMode::Raw };
    let spec = LinkSpec::new(p.gbps, p.link_ns);
    let offer = Offer {
        flows: p.flows,
        message_packets: p.message_packets,
        gbps: offered_gbps / p.senders as f64,
        start_ns: 0.0,
        stop_ns: p.duration_us * 1e3,
        measure_from_ns: p.warmup_us * 1e3,
    };
    let receiver_ips: Vec<u32> = (0..p.receivers as u32).map(|i| RECEIVER_IP + i).collect();
    let mut members: Vec<Member> =
        receiver_ips.iter().map(|ip| Member::Host(Box::new(Pl2Receiver::new(*ip, p.warmup_us * 1e3, p.duration_us * 1e3)))).collect();
    for i in 0..p.senders {
        let ip = RECEIVER_IP + (p.receivers + i) as u32;
        let seed = p.seed.wrapping_mul(1000).wrapping_add(i as u64);
        members.push(Member::Host(Box::new(Pl2Sender::new(ip, receiver_ips.clone(), mode, offer, p.gbps, seed))));
    }
    let mut net = star_of(CLOCK, members, spec, pl2_switch::stages(p.buffer_bytes), p.seed)?;
    if p.pl2 {
        let config = Pl2Config { max_demand: p.k, unsolicited_limit: p.unsolicited_limit };
        net.switches[0].ingress = Some(Box::new(Pl2Ingress::new(config)?));
    }
    net.switches[0].occupancy_sampling = OccupancySampling::EveryNs(100.0);
    let wall = Instant::now();
    let end_ns = (p.duration_us + p.drain_us) * 1e3;
    let cycles = (end_ns / net.cycle_ns(1)).round() as u64;
    net.run(cycles, &mut |_| false, &mut |n| progress(n.cycle_ns(n.cycle) / 1e3));
    let wall_s = wall.elapsed().as_secs_f64();

    let receivers: Vec<&Pl2Receiver> = (0..p.receivers).map(|i| net.host::<Pl2Receiver>(i).expect("a receiver")).collect();
    let senders: Vec<&Pl2Sender> = (p.receivers..p.receivers + p.senders).map(|i| net.host::<Pl2Sender>(i).expect("a sender")).collect();
    let counts: Vec<_> = senders.iter().map(|s| s.counts()).collect();
    let sum = |f: &dyn Fn(&ReservationCounts) -> u64| counts.iter().map(f).sum::<u64>();
    let measured: Vec<f64> =
        receivers.iter().flat_map(|r| &r.latencies).filter(|(created, _)| *created >= p.warmup_us * 1e3).map(|(_, l)| l / 1e3).collect();
    let sw = &net.switches[0];
    let ports = &sw.ports[..p.receivers];
    let queue: Vec<f64> = ports
        .iter()
        .flat_map(|port| &port.occupancy)
        .filter(|(t, _, _)| (p.warmup_us * 1e3..p.duration_us * 1e3).contains(&net.tick_ns(*t)))
        .map(|(_, _, b)| *b as f64)
        .collect();
    // Goodput: payload counted from the warm-up to the end of the offer (the drain excluded,
    // where the offer has stopped).
    let window_ns = (p.duration_us - p.warmup_us) * 1e3;
    let block = sw.ingress.as_ref().and_then(|s| s.as_any().downcast_ref::<Pl2Ingress>()).map(|s| s.counts());
    let waits = sum(&|s| s.waits);
    Ok(Pl2Run {
        params: p.clone(),
        offered_gbps,
        goodput_gbps: receivers.iter().map(|r| r.payload_bytes).sum::<u64>() as f64 * 8.0 / window_ns,
        buffer_drops: sw.ports.iter().map(|p| p.counters.dropped).sum(),
        policy_drops: sw.ingress_dropped,
        queue_p50_bytes: percentile(&queue, 50.0).unwrap_or(0.0),
        queue_p99_bytes: percentile(&queue, 99.0).unwrap_or(0.0),
        queue_max_packets: ports.iter().map(|p| p.counters.max_packets).max().unwrap_or(0),
        messages_offered: senders.iter().map(|s| s.measured_messages).sum(),
        messages_completed: measured.len() as u64,
        latency_p50_us: percentile(&measured, 50.0),
        latency_p99_us: percentile(&measured, 99.0),
        rsvs: sum(&|s| s.rsvs),
        unsolicited_bursts: sum(&|s| s.unsolicited_bursts),
        resent_bursts: sum(&|s| s.resent_bursts),
        duplicates: receivers.iter().map(|r| r.duplicates).sum(),
        stray_grants: sum(&|s| s.stray_grants),
        underflows: block.map_or(0, |c| c.underflow as u64),
        mean_wait_us: counts.iter().map(|c| c.waiting_ns).sum::<f64>() / waits.max(1) as f64 / 1e3,
        simulated_us: net.cycle_ns(net.cycle) / 1e3,
        wall_s,
    })
}
