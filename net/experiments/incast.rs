//! The thesis' Fig. 3.2 incast: N senders → 1 receiver through one switch, each sender one
//! message, on the whole-NIC Verilator models.
//!
//! Defaults are the setup of the authors' ns-3 model (`nanopu-protocol-eval`, run.sh): 10
//! senders, 200 Gb/s, 131 ns per link (RTT 4 × 131 ns), MTU 1088 B, BDP = initial credit = 12
//! packets, RTO 6 µs, message i of 18 + 2·i packets, bottleneck buffer 110 or 58 packets; Homa
//! overcommits 3 messages with 1 unscheduled priority (its 4 bands less 1). The NIC's PULL
//! pacing register is set to one MTU at the link rate, rounded to whole cycles.
//!
//! A message's completion time runs from the sender NIC's `msg_id_valid` (it has taken the whole
//! message from the CPU) to the first beat of its delivery on the receiver's `m_axis_msg`.
//! Slowdown = completion / ((packets − 1)·8·1088/rate + 2·(8·1088/rate + link delay)).
//!
//! Beside it, the *arrival* slowdown ends when the last byte of the frame that completed the
//! message reached the receiver NIC (the first cycle by which a DATA copy of every packet had
//! arrived, untrimmed). That is where the ns-3 model's MsgFinish fires (its NIC adds no time and
//! delivers a message at once), so the difference between the two is the receiver NIC's own
//! time: its receive pipeline, reassembly and the read-out to the CPU, one message at a time at
//! 8 bytes per cycle, behind the messages that finished before it.

use super::stats::{median, percentile};
use crate::endpoint::{Endpoint, NicEndpoint, ScheduledMessage};
use crate::link::LinkSpec;
use crate::schemes::Scheme;
use crate::switch::{DscpClassify, HomaDropTail, HomaTrTrim, Limit, NdpClassify, NdpTrim, OccupancySampling, StrictPriority};
use crate::topology::{star, SwitchStages};
use crate::Network;
use nanotransport_hdl::clock::NicClock;
use nanotransport_hdl::nic::register_map::{CFG_OVERCOMMIT, CFG_PACE_CYCLES, CFG_RTO_CYCLES, CFG_RTT_PKTS, CFG_UNSCHED_PRIOS};
use nanotransport_hdl::pisa::wire::{FLAG_CHOP, FLAG_DATA};
use nanotransport_sim::nic::TxMessage;
use nanotransport_sim::registers::RegisterWrite;
use nanotransport_sim::scenarios::Protocol;
use nanotransport_sim::whole_nic::WholeNic;
use serde::{Deserialize, Serialize};
use std::time::Instant;

/// Frame bytes of a full packet (64-byte header + 1024-byte payload).
pub const MTU_BYTES: usize = 1088;
/// Payload bytes of a full packet.
pub const PAYLOAD_BYTES: usize = 1024;
/// Largest message the NICs take (the thesis' maximum, 38 packets).
pub const MAX_PACKETS: u32 = 38;
/// Most senders of an incast (the presets receive 16 maximum-size messages at once).
pub const MAX_SENDERS: usize = 16;
/// Switch bands by DSCP (8 priorities).
pub const BANDS: usize = 8;
const FIRST_IP: u32 = 0x0A00_0001;

/// The authors' ns-3 model's slowdown (median, p90) for `protocol` at `buffer_pkts` in its
/// default setup ([`IncastParams::defaults`]; l-nic/nanoTransport-ns-3, branch nanoPU-dev,
/// outputs/nanopu-protocol-eval, Homa at its 6 µs RTO), `None` for another buffer.
pub fn model_slowdowns(protocol: Protocol, buffer_pkts: usize) -> Option<(f64, f64)> {
    match (protocol, buffer_pkts) {
        (Protocol::Ndp, 110) => Some((7.09, 7.29)),
        (Protocol::Ndp, 58) => Some((7.19, 7.73)),
        (Protocol::Homa, 110) => Some((5.58, 6.31)),
        (Protocol::Homa, 58) => Some((9.24, 11.11)),
        (Protocol::HomaTr, 110) => Some((5.45, 6.21)),
        (Protocol::HomaTr, 58) => Some((4.74, 6.12)),
        _ => None,
    }
}

/// Everything an incast run depends on.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct IncastParams {
    pub protocol: Protocol,
    /// The receiver's NIC (and the senders', without `sender_config`).
    pub config: WholeNic,
    /// Extra register writes after the experiment's own (`--set`).
    pub sets: Vec<(u64, u32)>,
    pub senders: usize,
    /// Packets of the first and the last message (spread evenly in between).
    pub sizes: (u32, u32),
    pub buffer_pkts: usize,
    pub link_gbps: f64,
    pub link_ns: f64,
    pub rtt_pkts: u32,
    pub rto_us: f64,
    pub seed: u64,
    pub max_us: f64,
    /// Hand the messages to the NICs so that every sender's `msg_id_valid` falls in the same
    /// cycle (ns-3's MsgBegin starts every message at once); otherwise every CPU starts writing
    /// at cycle 0 and a larger message starts later by its longer write.
    pub aligned_start: bool,
    /// Count the switch buffers in bytes (buffer_pkts full frames) instead of packets.
    #[serde(default)]
    pub byte_counted: bool,
    /// Frames each switch port's device queue holds beyond the queue disc (the model's 1; runs
    /// recorded before it existed had none and read as 0).
    #[serde(default)]
    pub device_queue_pkts: usize,
    /// Configuration of the senders' NICs when not `config`. Each sender sends one message, so
    /// the 16-message NIC of the protocol holds it and simulates 2–4× faster than the 128-message
    /// one; the defaults use it. The receiver stays on the 128-message NIC of the earlier
    /// measurements (on the 16-message one, NDP at 63 KB recovers differently: docs/network-and-incast.md).
    #[serde(default)]
    pub sender_config: Option<WholeNic>,
    /// A switch scheme chosen by name instead of the protocol's ns-3 queue disc (its buffer then
    /// is the scheme's own, not `buffer_pkts`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scheme: Option<Scheme>,
}

impl IncastParams {
    /// The ns-3 model's setup for `protocol`: the receiver on the 128-message NIC, the senders
    /// on the 16-message one.
    pub fn defaults(protocol: Protocol) -> Self {
        IncastParams {
            protocol,
            config: WholeNic::of(protocol, 128).expect("every protocol has a 128-message preset"),
            sets: Vec::new(),
            senders: 10,
            sizes: (18, 36),
            buffer_pkts: 110,
            link_gbps: 200.0,
            link_ns: 131.0,
            rtt_pkts: 12,
            rto_us: 6.0,
            seed: 1,
            max_us: 500.0,
            aligned_start: true,
            byte_counted: false,
            device_queue_pkts: 1,
            sender_config: Some(WholeNic::of(protocol, 16).expect("every protocol has a 16-message preset")),
            scheme: None,
        }
    }

    /// One-line errors with the valid range for impossible parameters.
    pub fn validate(&self) -> Result<(), String> {
        let running = |flag: &str, nic: &WholeNic| {
            if nic.protocol() != self.protocol {
                let p = self.protocol;
                return Err(format!("{flag} {nic}: not a whole NIC running {p}; valid: {p}-16, {p}-128"));
            }
            Ok(())
        };
        running("--config", &self.config)?;
        if let Some(sc) = &self.sender_config {
            running("--sender-config", sc)?;
        }
        let c = &self.config;
        let (a, b) = self.sizes;
        if a == 0 || b > MAX_PACKETS || a > b {
            return Err(format!("--sizes {a}..{b}: valid A..B with 1 <= A <= B <= {MAX_PACKETS} packets (the NIC's maximum message)"));
        }
        // The receiver must hold every message at once: as many buffers as senders in the
        // classes that fit the largest.
        let max_senders = (c.receives_at_once(b as u64) as usize).clamp(1, MAX_SENDERS);
        if self.senders == 0 || self.senders > max_senders {
            return Err(format!(
                "--senders {}: valid 1..={max_senders} for {} (messages of {b} packets it receives at once)",
                self.senders, self.config
            ));
        }
        if self.buffer_pkts < 2 {
            return Err(format!(
                "buffer of {} packets: valid >= 2 packets ({} bytes; trimming needs limit - 1 >= 1)",
                self.buffer_pkts,
                2 * MTU_BYTES
            ));
        }
        if self.device_queue_pkts > 64 {
            return Err(format!("--device-queue-pkts {}: valid 0..=64 frames", self.device_queue_pkts));
        }
        let clock = self.clock();
        if let Some(c) = self.sender_config.as_ref().map(|c| c.params().clock).filter(|c| *c != clock) {
            return Err(format!("the senders' NIC runs at {c}, the receiver's at {clock}: one network runs its NICs at one clock"));
        }
        let max_gbps = 64.0 * clock.mhz() / 1000.0;
        if !(self.link_gbps >= 0.001 && self.link_gbps <= max_gbps) {
            return Err(format!("--link-gbps {}: valid 0.001..={max_gbps} (the NIC's MAC side, 64 bits x {clock})", self.link_gbps));
        }
        if !(self.link_ns >= 1.0 && self.link_ns <= 1e6) {
            return Err(format!("--link-ns {}: valid 1..=1000000", self.link_ns));
        }
        if self.rtt_pkts == 0 || self.rtt_pkts > 64 {
            return Err(format!("--rtt-pkts {}: valid 1..=64 (packet bitmaps are 64 wide)", self.rtt_pkts));
        }
        let rto = self.rto_cycles();
        if !(rto >= 1.0 && rto <= u32::MAX as f64) {
            return Err(format!(
                "--rto-us {}: valid {:.4}..={:.0} (1 .. 2^32-1 cycles at {clock})",
                self.rto_us,
                1.0 / clock.mhz(),
                u32::MAX as f64 / clock.mhz()
            ));
        }
        if !(self.max_us > 0.0 && self.max_us <= 1e6) {
            return Err(format!("--max-us {}: valid 0 < U <= 1000000", self.max_us));
        }
        nanotransport_sim::registers::check_writes_horizon(&self.register_writes(), self.config.params())
            .map_err(|e| format!("--rto-us {}: {e}", self.rto_us))
    }

    /// Packets of every message, in sender order.
    pub fn message_packets(&self) -> Vec<u32> {
        let (a, b, n) = (self.sizes.0 as f64, self.sizes.1 as f64, self.senders);
        (0..n).map(|i| if n == 1 { a as u32 } else { (a + (b - a) * i as f64 / (n - 1) as f64).round() as u32 }).collect()
    }

    /// Bottleneck buffer in kilobytes (1000 B) of full packets.
    pub fn buffer_kb(&self) -> f64 {
        (self.buffer_pkts * MTU_BYTES) as f64 / 1000.0
    }

    /// The clock every NIC of the run runs at: its NIC's (the senders' must be the same).
    pub fn clock(&self) -> NicClock {
        self.config.params().clock
    }

    /// The retransmission timeout in cycles of the NICs' clock (not rounded).
    pub fn rto_cycles(&self) -> f64 {
        self.rto_us * self.clock().mhz()
    }

    /// PULL pacing interval: one MTU at the link rate, in whole cycles.
    pub fn pace_cycles(&self) -> u32 {
        (MTU_BYTES as f64 * 8.0 * self.clock().mhz() / 1000.0 / self.link_gbps).round() as u32
    }

    /// Ideal completion of a message of `packets` packets, ns (the slowdown's denominator).
    pub fn ideal_ns(&self, packets: u32) -> f64 {
        let mtu_ns = MTU_BYTES as f64 * 8.0 / self.link_gbps;
        (packets as f64 - 1.0) * mtu_ns + 2.0 * (mtu_ns + self.link_ns)
    }

    /// The registers every NIC gets: the experiment's, then `sets`.
    pub fn register_writes(&self) -> Vec<RegisterWrite> {
        let w = |index: usize, value: u32| RegisterWrite { addr: 4 * index as u64, value };
        let mut v = vec![
            w(CFG_RTT_PKTS, self.rtt_pkts),
            w(CFG_RTO_CYCLES, self.rto_cycles().round() as u32),
            w(CFG_PACE_CYCLES, self.pace_cycles()),
        ];
        if self.protocol != Protocol::Ndp {
            v.push(w(CFG_OVERCOMMIT, 3));
            v.push(w(CFG_UNSCHED_PRIOS, 1));
        }
        v.extend(self.sets.iter().map(|(addr, value)| RegisterWrite { addr: *addr, value: *value }));
        v
    }

    fn switch_stages(&self) -> Result<SwitchStages, String> {
        if let Some(scheme) = &self.scheme {
            return scheme.stages(self.seed);
        }
        let limit = if self.byte_counted { Limit::Bytes(self.buffer_pkts * MTU_BYTES) } else { Limit::Packets(self.buffer_pkts) };
        Ok(match self.protocol {
            Protocol::Ndp => (Box::new(NdpClassify), Box::new(NdpTrim { limit }), Box::new(StrictPriority), 2),
            Protocol::Homa => (Box::new(DscpClassify { bands: BANDS }), Box::new(HomaDropTail { limit }), Box::new(StrictPriority), BANDS),
            Protocol::HomaTr => (Box::new(DscpClassify { bands: BANDS }), Box::new(HomaTrTrim { limit }), Box::new(StrictPriority), BANDS),
        })
    }
}

/// One message of the incast.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct MessageResult {
    pub sender: usize,
    pub packets: u32,
    /// Cycle of the sender NIC's msg_id_valid, from the start of the run.
    pub msg_id_cycle: Option<u64>,
    /// msg_id_valid → first beat on the receiver's m_axis_msg.
    pub completion_ns: Option<f64>,
    pub slowdown: Option<f64>,
    /// msg_id_valid → the last byte of the frame that completed the message at the receiver NIC
    /// (every packet had arrived in an untrimmed DATA copy), and its slowdown.
    pub arrived_ns: Option<f64>,
    pub arrived_slowdown: Option<f64>,
    /// CPU write: first word queued on s_axis_msg → msg_id_valid.
    pub cpu_write_ns: Option<f64>,
    /// CPU read-out: the delivered message's beats at one per cycle (header beats + payload).
    pub readout_ns: Option<f64>,
    /// Sender NIC's completion (ACKed) after msg_id_valid, or abandoned.
    pub acked_ns: Option<f64>,
    pub abandoned: bool,
    /// Why the message did not complete, if it did not.
    pub incomplete: Option<String>,
}

/// What an incast run gives.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct IncastResult {
    pub protocol: Protocol,
    /// The receiver's NIC.
    pub config: WholeNic,
    pub buffer_kb: f64,
    pub buffer_pkts: usize,
    pub params: IncastParams,
    pub messages: Vec<MessageResult>,
    pub median_slowdown: Option<f64>,
    pub p90_slowdown: Option<f64>,
    /// Median and p90 of the arrival slowdowns (the ns-3 model's MsgFinish point).
    pub median_arrived_slowdown: Option<f64>,
    pub p90_arrived_slowdown: Option<f64>,
    pub complete: bool,
    pub simulated_ns: f64,
    /// Bottleneck queue (switch → receiver port) over time: (ns, packets, bytes).
    pub queue: Vec<(f64, usize, usize)>,
    pub bottleneck: crate::switch::PortCounters,
    /// Frames dropped at a NIC's MAC RX for arriving while it could not take them.
    pub nic_rx_dropped: u64,
    pub wall_s: f64,
    /// NIC cycles simulated (every NIC's steps summed) per wall second of the run loop.
    pub nic_cycles_per_s: f64,
    pub nic_steps: u64,
    /// Cycles the run covered and cycles in which some NIC had work (the rest were skipped).
    pub cycles: u64,
    pub stepped_cycles: u64,
}

/// The network of an incast run: endpoint 0 the receiver, 1..=N the senders.
pub fn build(p: &IncastParams) -> Result<Network, String> {
    p.validate()?;
    let writes = p.register_writes();
    let quiet = 2 * p.rto_cycles() as u64;
    let mut endpoints: Vec<Box<dyn Endpoint>> = Vec::new();
    let receiver = NicEndpoint::new(&p.config, FIRST_IP, &writes, quiet)?;
    endpoints.push(Box::new(receiver));
    let sizes = p.message_packets();
    // The CPU writes one 8-byte word per cycle: two descriptor words, then the payload.
    let write_cycles = |packets: u32| 2 + (packets as u64 * PAYLOAD_BYTES as u64).div_ceil(8);
    let longest = sizes.iter().map(|s| write_cycles(*s)).max().unwrap_or(0);
    for (i, packets) in sizes.into_iter().enumerate() {
        let at = if p.aligned_start { longest - write_cycles(packets) } else { 0 };
        let mut e = NicEndpoint::new(p.sender_config.as_ref().unwrap_or(&p.config), FIRST_IP + 1 + i as u32, &writes, quiet)?;
        let mut payload: Vec<u8> = (0..packets as usize * PAYLOAD_BYTES).map(|k| (k * 7 + i) as u8).collect();
        payload[0..4].copy_from_slice(&(i as u32).to_le_bytes());
        let message = TxMessage { remote_ip: FIRST_IP, remote_port: 9000, local_port: 5000 + i as u16, payload };
        e.schedule([ScheduledMessage { at: e.cycle() + at, message }]);
        endpoints.push(Box::new(e));
    }
    let spec = LinkSpec::new(p.link_gbps, p.link_ns);
    let mut net = star(p.clock(), endpoints, spec, p.switch_stages()?, p.seed)?;
    net.switches[0].device_queue_pkts = p.device_queue_pkts;
    // The queue plot and the report show every change of the bottleneck queue.
    net.switches[0].occupancy_sampling = OccupancySampling::OnChange;
    Ok(net)
}

/// The cycle by which an untrimmed DATA copy of every one of the `packets` packets of message
/// `tx_msg_id` from `sender` had arrived at `receiver` (the last byte of the completing frame).
fn arrival_cycle(receiver: &NicEndpoint, sender: u32, tx_msg_id: u16, packets: u32) -> Option<u64> {
    let mut seen = vec![false; packets as usize];
    let mut missing = packets as usize;
    for (cycle, h) in &receiver.rx_arrivals {
        let data = h.flags & FLAG_DATA != 0 && h.flags & FLAG_CHOP == 0;
        if !data || h.src_ip != sender || h.tx_msg_id != tx_msg_id {
            continue;
        }
        if let Some(s) = seen.get_mut(h.pkt_offset as usize).filter(|s| !**s) {
            *s = true;
            missing -= 1;
            if missing == 0 {
                return Some(*cycle);
            }
        }
    }
    None
}

fn nic(net: &Network, i: usize) -> &NicEndpoint {
    net.endpoints[i].as_any().downcast_ref::<NicEndpoint>().expect("incast endpoints are NICs")
}

/// Runs an incast; `progress(simulated_ns, max_ns, messages delivered)` is called now and then.
/// With `trace`, every link is recorded for [`write_pcaps`].
pub fn run(p: &IncastParams, trace: bool, progress: &mut dyn FnMut(f64, f64, usize)) -> Result<(IncastResult, Network), String> {
    run_on(p, trace, None, progress)
}

/// [`run`] with the NICs stepped on `threads` threads (default: [`Network::new`]'s); the result
/// does not depend on it.
pub fn run_on(
    p: &IncastParams,
    trace: bool,
    threads: Option<usize>,
    progress: &mut dyn FnMut(f64, f64, usize),
) -> Result<(IncastResult, Network), String> {
    let wall = Instant::now();
    let mut net = build(p)?;
    if let Some(t) = threads {
        net.threads = t.max(1);
    }
    if trace {
        trace_all(&mut net);
    }
    let n = p.senders;
    let start = net.cycle;
    let max_cycles = start + (p.max_us * p.clock().mhz()) as u64;
    let max_ns = net.cycle_ns(max_cycles - start);
    let loop_start = Instant::now();
    let mut stop = |net: &Network| nic(net, 0).nic.delivered.len() >= n && (1..=n).all(|i| !nic(net, i).nic.completions.is_empty());
    let mut report = |net: &Network| progress(net.cycle_ns(net.cycle - start), max_ns, nic(net, 0).nic.delivered.len());
    let complete = net.run(max_cycles, &mut stop, &mut report);
    let loop_s = loop_start.elapsed().as_secs_f64();
    let sizes = p.message_packets();
    let receiver = &nic(&net, 0).nic;
    let mut messages = Vec::new();
    for (i, packets) in sizes.iter().copied().enumerate() {
        let s = nic(&net, i + 1);
        let id_cycle = s.nic.sent_ids.first().map(|(c, _)| *c);
        let delivery =
            receiver.delivered.iter().find(|m| m.payload.len() >= 4 && u32::from_le_bytes(m.payload[0..4].try_into().unwrap()) == i as u32);
        let done = s.nic.completions.first();
        let arrived = s.nic.sent_ids.first().and_then(|&(_, id)| arrival_cycle(nic(&net, 0), s.ip(), id, packets));
        let arrived_ns = id_cycle.zip(arrived).map(|(c, a)| net.cycle_ns(a.saturating_sub(c)));
        let completion_ns = match (id_cycle, delivery) {
            (Some(c), Some(d)) => Some(net.cycle_ns(d.first_cycle - c)),
            _ => None,
        };
        let incomplete = if delivery.is_some() {
            None
        } else if id_cycle.is_none() {
            Some("the sender NIC never took the message (no msg_id_valid)".to_string())
        } else if done.is_some_and(|d| d.abandoned) {
            Some("abandoned by the sender after its timeouts".to_string())
        } else {
            Some(format!("still in flight at --max-us {}", p.max_us))
        };
        messages.push(MessageResult {
            sender: i + 1,
            packets,
            msg_id_cycle: id_cycle.map(|c| c - start),
            completion_ns,
            slowdown: completion_ns.map(|c| c / p.ideal_ns(packets)),
            arrived_ns,
            arrived_slowdown: arrived_ns.map(|a| a / p.ideal_ns(packets)),
            cpu_write_ns: id_cycle.zip(s.queued_at.first()).map(|(c, q)| net.cycle_ns(c - q)),
            readout_ns: delivery.map(|d| net.cycle_ns(2 + d.payload.len().div_ceil(8) as u64)),
            acked_ns: id_cycle.zip(done).map(|(c, d)| net.cycle_ns(d.cycle - c)),
            abandoned: done.is_some_and(|d| d.abandoned),
            incomplete,
        });
    }
    let slowdowns: Vec<f64> = messages.iter().filter_map(|m| m.slowdown).collect();
    let arrived: Vec<f64> = messages.iter().filter_map(|m| m.arrived_slowdown).collect();
    let port = &net.switches[0].ports[0];
    let queue = port.occupancy.iter().map(|(t, n, b)| (net.tick_ns(t.saturating_sub(start * net.ticks_per_cycle)), *n, *b)).collect();
    let nic_rx_dropped = (0..=n).map(|i| nic(&net, i).rx_dropped).sum();
    let result = IncastResult {
        protocol: p.protocol,
        config: p.config.clone(),
        buffer_kb: p.buffer_kb(),
        buffer_pkts: p.buffer_pkts,
        params: p.clone(),
        median_slowdown: median(&slowdowns),
        p90_slowdown: percentile(&slowdowns, 90.0),
        median_arrived_slowdown: median(&arrived),
        p90_arrived_slowdown: percentile(&arrived, 90.0),
        complete: complete && messages.iter().all(|m| m.incomplete.is_none()),
        messages,
        simulated_ns: net.cycle_ns(net.cycle - start),
        queue,
        bottleneck: port.counters,
        nic_rx_dropped,
        wall_s: wall.elapsed().as_secs_f64(),
        nic_cycles_per_s: net.endpoint_steps as f64 / loop_s.max(1e-9),
        nic_steps: net.endpoint_steps,
        cycles: net.cycle - start,
        stepped_cycles: net.stepped_cycles,
    };
    Ok((result, net))
}

/// Writes a nanosecond pcap of every link into `dir` (`hostK-to-switch.pcap`,
/// `switch-to-hostK.pcap`; host 0 is the receiver) of a network run with tracing on.
pub fn write_pcaps(net: &Network, dir: &std::path::Path) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for l in &net.links {
        if let Some(t) = &l.trace {
            let name = match (l.from, l.to) {
                (crate::Node::Endpoint(e), _) => format!("host{e}-to-switch.pcap"),
                (_, crate::Node::Endpoint(e)) => format!("switch-to-host{e}.pcap"),
                _ => continue,
            };
            t.write(&dir.join(name), |tick| net.tick_ns(tick))?;
        }
    }
    Ok(())
}

/// Traces every link of `net`.
pub fn trace_all(net: &mut Network) {
    for l in 0..net.links.len() {
        net.trace_link(l);
    }
}
