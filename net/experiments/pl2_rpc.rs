//! PL2's memcached experiment (PL2 paper §6.2.1–6.2.2, Figs. 3–6): a client issuing GETs to a
//! server back to back while background senders flood the client's link, with PL2 — every host
//! under the PL2 layer ([`crate::pl2::layer`]), TCP with congestion control off, the reservation
//! block's RTL deciding every frame — and without (TCP CUBIC, background as it comes), the same
//! switch buffer in both arms.
//!
//! # Setup beside the paper's
//! | | PL2 testbed | here |
//! |---|---|---|
//! | memcached | one client, one server on separate hosts; GETs of 64 B keys, 1 KiB and 4 KiB values, over TCP (VMA) | a closed-loop client ([`crate::rpc::RpcClient::closed_loop`]): one 100-byte request at a time, the next when the value has arrived; `value_bytes` (4 096) per response |
//! | TCP | VMA: CUBIC without PL2; congestion control off over PL2 | our TCP hosts ([`crate::tcp`]): CUBIC, MSS 1 460, without PL2; `Off` with a window of `tcp_window_segments` (64) and MSS 1 420 (the layer's 40 bytes) over PL2; min RTO 200 ms (Linux) in both |
//! | background | 1–4 hosts sending to the memcached client (the first is the memcached server host itself); TCP incast or UDP | `senders` hosts of their own (the server sends no background), `flows` (12, as the paper's incast) per host: TCP bulk transfers to the client, or UDP-like messages (4 full frames, Poisson) at `load_per_sender` % of a link each |
//! | switch | Tofino, 100 Gb/s, < 200 KB buffer | one switch, 100 Gb/s, 200 000-byte drop-tail buffer per port; K = 4, t = 15, T = 64 |
//! | links | RSV-GRT 1.06 µs median | 500 ns per link |
//!
//! Latency runs from when a request is sent to when the last byte of its value arrives; a
//! request still unanswered at the end counts with its age then, even if sent in the warm-up (a
//! lower bound: without PL2 a lost segment waits for a 200 ms RTO). Otherwise latencies and
//! transactions cover the requests sent after `warmup_us`; the client's downlink rate is over the
//! whole run.
//!
//! # What bounds the RPC under PL2
//! Every background flow holds at most one reservation of K timeslots at the client's port
//! ([`crate::pl2::reservations`]), so a response's burst waits at most (background flows × K)
//! timeslots behind them: 4 hosts × 12 flows × 4 × 121.12 ns = 23.3 µs at 100 Gb/s. That wait,
//! not the load, is what PL2 adds at 400 %.
//!
//! # A port booked to the line rate
//! PL2 books a port's timeslots up to its whole line rate; frames outside reservations (TCP's
//! pure ACKs, GRTs) and bursts that leave late then add up in its queue, which can only drain
//! when bookings fall below the line rate. With one background host (TCP or UDP) offering the
//! client's whole line rate this costs drops now and then; with two or more, each host's flows
//! wait their turn and none is lost in these runs.

use super::stats::percentile;
use crate::host::Host;
use crate::link::LinkSpec;
use crate::pl2::host::{Offer, Pl2Params, Pl2Sender, SendMode};
use crate::pl2::layer::{Pl2Layer, MAX_INNER_FRAME_BYTES};
use crate::pl2::switch::{self as pl2_switch, Pl2Ingress};
use crate::rpc::{client_port, Request, RpcClient, RpcServer};
use crate::tcp::{CongestionControl, TcpConfig, TcpHost, TCP_FRAME_HEADERS};
use crate::topology::{star_of, Member};
use nanotransport_hdl::clock::NicClock;
use nanotransport_reference::pl2::Pl2Config;
use serde::{Deserialize, Serialize};
use std::time::Instant;

/// The tick base of a network of behavioural hosts (they keep time in ns; it only sets the resolution).
const CLOCK: NicClock = NicClock::THESIS;
const CLIENT_IP: u32 = 0x0A00_0001;
const SERVER_IP: u32 = 0x0A00_0002;
const BACKGROUND_PORT: u16 = 5001;

/// The targets PL2's memcached runs set (§6.2), fixed before measuring.
pub const RPC_TARGETS: &str = "with PL2 the p99 at 400 % background ≤ 3× the unloaded p99 and ≥ 2× lower than without PL2";

/// What the background senders run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Background {
    /// Bulk TCP transfers (CUBIC without PL2, congestion control off under it).
    Tcp,
    /// UDP-like messages with no congestion control (raw Ethernet without PL2).
    Udp,
}

/// One memcached run's parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Pl2RpcParams {
    pub background: Background,
    /// Background hosts (0: the unloaded run).
    pub senders: usize,
    /// UDP: each background host's offered load, % of its link.
    pub load_per_sender: f64,
    /// Flows per background host: TCP connections, or UDP message flows (one RSV outstanding
    /// each under PL2).
    pub flows: usize,
    pub pl2: bool,
    pub value_bytes: u64,
    pub gbps: f64,
    pub link_ns: f64,
    pub buffer_bytes: usize,
    pub k: u8,
    pub t: u32,
    pub unsolicited_limit: u32,
    /// TCP's window under PL2 (congestion control off), segments.
    pub tcp_window_segments: u32,
    pub min_rto_ms: f64,
    pub duration_us: f64,
    pub warmup_us: f64,
    pub seed: u64,
}

impl std::fmt::Display for Background {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Background::Tcp => "TCP",
            Background::Udp => "UDP",
        })
    }
}

impl std::str::FromStr for Background {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "tcp" => Ok(Background::Tcp),
            "udp" => Ok(Background::Udp),
            _ => Err(format!("background '{s}': valid tcp, udp")),
        }
    }
}

impl Pl2RpcParams {
    pub fn defaults(background: Background, senders: usize, pl2: bool) -> Self {
        Pl2RpcParams {
            background,
            senders,
            load_per_sender: 100.0,
            flows: 12,
            pl2,
            value_bytes: 4096,
            gbps: 100.0,
            link_ns: 500.0,
            buffer_bytes: 200_000,
            k: 4,
            t: 15,
            unsolicited_limit: 64,
            tcp_window_segments: 64,
            min_rto_ms: 200.0,
            duration_us: 2000.0,
            warmup_us: 200.0,
            seed: 1,
        }
    }

    /// Background load offered to the client's link, % of it (UDP; TCP offers what it can).
    pub fn offered_percent(&self) -> f64 {
        self.senders as f64 * self.load_per_sender
    }

    /// One line naming the first parameter out of range.
    pub fn validate(&self) -> Result<(), String> {
        let checks: [(bool, String); 9] = [
            ((1..=1000).contains(&self.flows), format!("--flows {} outside 1..=1000", self.flows)),
            (
                self.senders <= 62,
                format!("--senders {} outside 0..=62 (one switch of 64 ports with the client and the server)", self.senders),
            ),
            (
                self.load_per_sender > 0.0 && self.load_per_sender <= 1000.0,
                format!("--load-per-sender {} outside (0, 1000] %", self.load_per_sender),
            ),
            ((1..=1 << 30).contains(&self.value_bytes), format!("--value-bytes {} outside 1..=2^30", self.value_bytes)),
            (self.gbps > 0.0 && self.gbps <= 1000.0, format!("--gbps {} outside (0, 1000]", self.gbps)),
            (self.buffer_bytes >= 1514, format!("--buffer-bytes {} below one frame (1514)", self.buffer_bytes)),
            ((1..=255).contains(&self.k), format!("--k {} outside 1..=255", self.k)),
            (
                (1..=100_000).contains(&self.tcp_window_segments),
                format!("--tcp-window-segments {} outside 1..=100000", self.tcp_window_segments),
            ),
            (
                self.duration_us > self.warmup_us && self.warmup_us >= 0.0 && self.min_rto_ms > 0.0,
                format!("--duration-us {} must exceed --warmup-us {} (and --min-rto-ms > 0)", self.duration_us, self.warmup_us),
            ),
        ];
        super::first_error(checks)
    }

    fn tcp(&self) -> TcpConfig {
        let base = TcpConfig { min_rto_ms: self.min_rto_ms, ..TcpConfig::default() };
        if self.pl2 {
            TcpConfig {
                cc: CongestionControl::Off,
                mss: MAX_INNER_FRAME_BYTES - TCP_FRAME_HEADERS,
                initial_window_segments: self.tcp_window_segments,
                ..base
            }
        } else {
            TcpConfig { cc: CongestionControl::Cubic, ..base }
        }
    }

    fn pl2_params(&self) -> Pl2Params {
        Pl2Params { k: self.k, t: self.t, ..Pl2Params::default() }
    }
}

/// What one memcached run measured.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Pl2RpcRun {
    pub params: Pl2RpcParams,
    /// Requests sent after the warm-up (and any still unanswered at the end), and how many
    /// were answered by the end.
    pub requests: u64,
    pub answered: u64,
    /// Answered requests per second over the measured window.
    pub transactions_per_s: f64,
    pub latency_p50_us: Option<f64>,
    pub latency_p99_us: Option<f64>,
    /// The client's downlink over the whole run (every frame's bytes), Gb/s.
    pub client_link_gbps: f64,
    pub buffer_drops: u64,
    pub policy_drops: u64,
    /// Retransmissions and RTO expiries of the memcached connections (client and server).
    pub rpc_retransmits: u64,
    pub rpc_timeouts: u64,
    pub rsvs: u64,
    pub duplicates: u64,
    pub simulated_us: f64,
    pub wall_s: f64,
}

fn boxed<H: Host + 'static>(host: H, p: &Pl2RpcParams) -> Member {
    if p.pl2 {
        Member::Host(Box::new(Pl2Layer::new(host, p.gbps, p.pl2_params())))
    } else {
        Member::Host(Box::new(host))
    }
}

/// The host inside member `i` (under the layer with PL2).
fn host_of<'a, H: Host + 'static>(net: &'a crate::network::Network, i: usize, pl2: bool) -> &'a H {
    if pl2 {
        &net.host::<Pl2Layer<H>>(i).expect("a host under the layer").host
    } else {
        net.host::<H>(i).expect("a host")
    }
}

/// RSVs and duplicates of member `i` if it is an `H` under the layer.
fn layer_stats<H: Host + 'static>(net: &crate::network::Network, i: usize) -> Option<(u64, u64)> {
    net.host::<Pl2Layer<H>>(i).map(|l| (l.reservation_counts().rsvs, l.counts.duplicates))
}

/// Runs one memcached run; `progress` is told the simulated µs so far.
pub fn run_pl2_rpc(p: &Pl2RpcParams, progress: &mut dyn FnMut(f64)) -> Result<Pl2RpcRun, String> {
    p.validate()?;
    let tcp = p.tcp();
    let end_ns = p.duration_us * 1e3;
    // More requests than a closed loop can send (at least 1 µs each).
    let requests = (p.duration_us.ceil() as usize).max(1);
    let schedule = vec![Request { at_ns: 0.0, server: 0, class: 0, response_bytes: p.value_bytes }; requests];
    let client = RpcClient::closed_loop(CLIENT_IP, tcp.clone(), &[SERVER_IP], schedule)?;
    let mut server = RpcServer::new(SERVER_IP, tcp.clone())?;
    server.answer_always(CLIENT_IP, client_port(0, 0), p.value_bytes);
    let mut members = vec![boxed(client, p), boxed(server, p)];
    for i in 0..p.senders {
        let ip = SERVER_IP + 1 + i as u32;
        let seed = p.seed.wrapping_mul(1000).wrapping_add(i as u64);
        members.push(match p.background {
            Background::Tcp => {
                let mut host = TcpHost::new(ip, tcp.clone())?;
                for f in 0..p.flows as u16 {
                    host.open(CLIENT_IP, BACKGROUND_PORT + f, BACKGROUND_PORT, u64::MAX, 0.0);
                }
                boxed(host, p)
            }
            Background::Udp => {
                let offer = Offer {
                    flows: p.flows,
                    message_packets: 4,
                    gbps: p.load_per_sender / 100.0 * p.gbps,
                    start_ns: 0.0,
                    stop_ns: end_ns,
                    measure_from_ns: p.warmup_us * 1e3,
                };
                let mode = if p.pl2 { SendMode::Pl2(p.pl2_params()) } else { SendMode::Raw };
                Member::Host(Box::new(Pl2Sender::new(ip, vec![CLIENT_IP], mode, offer, p.gbps, seed)))
            }
        });
    }
    let mut net = star_of(CLOCK, members, LinkSpec::new(p.gbps, p.link_ns), pl2_switch::stages(p.buffer_bytes), p.seed)?;
    if p.pl2 {
        let config = Pl2Config { max_demand: p.k, unsolicited_limit: p.unsolicited_limit };
        net.switches[0].ingress = Some(Box::new(Pl2Ingress::new(config)?));
    }
    let wall = Instant::now();
    let cycles = (end_ns / net.cycle_ns(1)).round() as u64;
    net.run(cycles, &mut |_| false, &mut |n| progress(n.cycle_ns(n.cycle) / 1e3));
    let wall_s = wall.elapsed().as_secs_f64();

    let client = host_of::<RpcClient>(&net, 0, p.pl2);
    let server = host_of::<RpcServer>(&net, 1, p.pl2);
    let warmup_ns = p.warmup_us * 1e3;
    let now_ns = net.cycle_ns(net.cycle);
    let measured = client.completions.iter().filter(|c| c.sent_ns >= warmup_ns);
    let answered = measured.clone().count() as u64;
    let mut latencies: Vec<f64> = measured.map(|c| (c.done_ns - c.sent_ns) / 1e3).collect();
    // A request still unanswered counts whenever it was sent: its wait reaches into the window.
    latencies.extend(client.outstanding_since_ns().map(|s| (now_ns - s) / 1e3));
    let rpc_tcp = [&client.tcp, &server.tcp];
    let rpc_stat = |f: &dyn Fn(&crate::tcp::TcpStats) -> u64| -> u64 {
        // The client's connections to the server and the server's to the client (not the
        // background's).
        rpc_tcp
            .iter()
            .flat_map(|t| t.connections.iter().filter(|c| c.peer_ip == CLIENT_IP || c.peer_ip == SERVER_IP))
            .map(|c| f(&c.stats))
            .sum()
    };
    let layers: Vec<(u64, u64)> = (0..2 + p.senders)
        .map(|i| {
            layer_stats::<RpcClient>(&net, i)
                .or_else(|| layer_stats::<RpcServer>(&net, i))
                .or_else(|| layer_stats::<TcpHost>(&net, i))
                .or_else(|| net.host::<Pl2Sender>(i).map(|s| (s.counts().rsvs, 0)))
                .unwrap_or((0, 0))
        })
        .collect();
    let sw = &net.switches[0];
    Ok(Pl2RpcRun {
        params: p.clone(),
        requests: latencies.len() as u64,
        answered,
        transactions_per_s: answered as f64 / ((p.duration_us - p.warmup_us) * 1e-6),
        latency_p50_us: percentile(&latencies, 50.0),
        latency_p99_us: percentile(&latencies, 99.0),
        client_link_gbps: sw.ports[0].counters.sent_bytes as f64 * 8.0 / end_ns,
        buffer_drops: sw.ports.iter().map(|p| p.counters.dropped).sum(),
        policy_drops: sw.ingress_dropped,
        rpc_retransmits: rpc_stat(&|s| s.retransmits),
        rpc_timeouts: rpc_stat(&|s| s.timeouts),
        rsvs: layers.iter().map(|l| l.0).sum(),
        duplicates: layers.iter().map(|l| l.1).sum(),
        simulated_us: now_ns / 1e3,
        wall_s,
    })
}
