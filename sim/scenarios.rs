//! Scenarios on the whole-NIC Verilator models (`ndp-16`, `homa-16`, `homa-tr-16`): the
//! per-stage latency report of Table 3.1, the throughput report, and a loopback of two NICs
//! through a lossy link. Each takes the [`WholeNic`] it runs (its protocol, size and model).

use crate::cosim::ports::Ports;
use crate::nic::{NicSim, TxMessage};
use crate::registers::RegisterWrite;
use nanotransport_hdl::nic::register_map::*;
use nanotransport_hdl::pisa::wire::{
    FLAG_ACK, FLAG_CHOP, FLAG_DATA, NDP_IP_PROTOCOL, OFF_FLAGS, OFF_PKT_OFFSET, OFF_PROTOCOL, OFF_TOS, OFF_TX_MSG_ID,
};
use nanotransport_reference::pisa::Header;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;

/// Clock of the thesis' latency figures.
pub const CLOCK_GHZ: f64 = 3.2;
/// Thesis Table 3.1 in cycles at 3.2 GHz (RX ingress, RX reassembly, TX packetize, TX egress):
/// NDP, and Homa (also the target for Homa-Tr).
pub const PAPER_NDP_CYCLES: [u64; 4] = [16, 3, 9, 1];
pub const PAPER_HOMA_CYCLES: [u64; 4] = [20, 3, 9, 3];

/// Table 3.1's cycles per stage for `protocol`'s prototype.
pub fn paper_cycles(protocol: Protocol) -> [u64; 4] {
    match protocol {
        Protocol::Ndp => PAPER_NDP_CYCLES,
        Protocol::Homa | Protocol::HomaTr => PAPER_HOMA_CYCLES,
    }
}

pub use crate::whole_nic::WholeNic;
pub use nanotransport_hdl::configs::Protocol;

/// Addresses of the model peer and the NIC in the reports.
pub const NIC_IP: u32 = 0x0A00_0001;
pub const PEER_IP: u32 = 0x0A00_0002;

/// A DATA frame from `src_ip` carrying packet `offset` of a message of `msg_len` bytes whose
/// payload is `message` (the frame carries its slice of it).
pub fn data_frame(src_ip: u32, dst_ip: u32, src_port: u16, dst_port: u16, tx_msg_id: u16, message: &[u8], offset: usize) -> Vec<u8> {
    data_frame_for(NDP_IP_PROTOCOL, src_ip, dst_ip, src_port, dst_port, tx_msg_id, message, offset)
}

/// [`data_frame`] for IP protocol `ip_protocol` (NDP 155, Homa 154).
#[allow(clippy::too_many_arguments)]
pub fn data_frame_for(
    ip_protocol: u8,
    src_ip: u32,
    dst_ip: u32,
    src_port: u16,
    dst_port: u16,
    tx_msg_id: u16,
    message: &[u8],
    offset: usize,
) -> Vec<u8> {
    let start = offset * 1024;
    let payload = &message[start..(start + 1024).min(message.len())];
    Header {
        dst_mac: 0x0200_0000_0001,
        src_mac: 0x0200_0000_0002,
        ip_total_len: 50 + payload.len() as u16,
        ip_ttl: 64,
        src_ip,
        dst_ip,
        flags: FLAG_DATA,
        src_context: src_port,
        dst_context: dst_port,
        msg_len: message.len() as u16,
        pkt_offset: offset as u8,
        tx_msg_id,
        ..Default::default()
    }
    .frame(ip_protocol, payload)
}

/// The ACK a receiver sends for DATA frame `data` (header only, one dummy byte). NDP
/// acknowledges the packet itself (`pkt_offset` = its offset); Homa acknowledges cumulatively
/// (`pkt_offset` = the smallest offset not yet received, here the packet's offset + 1, as for a
/// single-packet message).
pub fn ack_for(data: &[u8]) -> Vec<u8> {
    let h = Header::decode(data);
    let ip_protocol = data[OFF_PROTOCOL];
    let pkt_offset = if ip_protocol == NDP_IP_PROTOCOL { h.pkt_offset } else { h.pkt_offset + 1 };
    control_reply(ip_protocol, &h, FLAG_ACK, pkt_offset, 0)
}

/// A control packet (one dummy byte) answering DATA header `d`: addresses and ports swapped,
/// msg_len and tx_msg_id echoed, `flags`, `pkt_offset` and the PULL / GRANT offset `credit`.
pub fn control_reply(ip_protocol: u8, d: &Header, flags: u8, pkt_offset: u8, credit: u16) -> Vec<u8> {
    Header {
        dst_mac: d.src_mac,
        src_mac: d.dst_mac,
        ip_ttl: 64,
        src_ip: d.dst_ip,
        dst_ip: d.src_ip,
        flags,
        src_context: d.dst_context,
        dst_context: d.src_context,
        msg_len: d.msg_len,
        pkt_offset,
        pull_offset: credit,
        tx_msg_id: d.tx_msg_id,
        ..Default::default()
    }
    .frame(ip_protocol, &[0])
}

/// The trimmed (CHOP) version of a DATA frame: the header alone, CHOP set, IPv4 length 50.
pub fn trimmed(data: &[u8]) -> Vec<u8> {
    let mut h = Header::decode(data);
    h.flags |= FLAG_CHOP;
    h.ip_total_len = 50;
    h.encode(data[OFF_PROTOCOL]).to_vec()
}

fn flags_of(frame: &[u8]) -> u8 {
    frame.get(OFF_FLAGS).copied().unwrap_or(0)
}

/// A NIC model with its address set through the register interface, idle and initialised.
pub fn nic_with_ip(whole: &WholeNic, ip: u32) -> Result<NicSim, String> {
    nic_with_settings(whole, ip, &[])
}

/// [`nic_with_ip`], then the register writes `settings` (the command line's `--set`).
pub fn nic_with_settings(whole: &WholeNic, ip: u32, settings: &[RegisterWrite]) -> Result<NicSim, String> {
    let mut nic = NicSim::new(&whole.module())?;
    let r = nic.write_register(4 * CFG_OWN_IP as u64, ip);
    if r != 0 {
        return Err(format!("register write answered {r}"));
    }
    crate::registers::apply(&mut nic, settings)?;
    // Let reset-time initialisation finish (the 128-message table clears its 64 buckets).
    nic.run(100);
    Ok(nic)
}

/// Per-stage latency, first byte in → first byte out, in cycles.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LatencyReport {
    pub ingress: u64,
    pub reassembly: u64,
    pub packetize: u64,
    pub egress: u64,
    /// DATA frame's first beat in → its ACK's first beat out on MAC TX.
    pub data_to_ack: u64,
    /// First payload byte in on MAC RX → first payload byte to the CPU.
    pub rx_payload: u64,
    /// First payload byte from the CPU → first payload byte out on MAC TX.
    pub tx_payload: u64,
}

impl LatencyReport {
    pub fn rx_total(&self) -> u64 {
        self.ingress + self.reassembly
    }
    pub fn tx_total(&self) -> u64 {
        self.packetize + self.egress
    }
}

/// Measures Table 3.1's stages with one 16-byte message (80-byte packet) each way, on fresh
/// models with no other traffic.
pub fn latency(whole: &WholeNic) -> Result<LatencyReport, String> {
    latency_with(whole, &[])
}

/// [`latency`] with the register writes `settings` applied to every NIC model it uses.
pub fn latency_with(whole: &WholeNic, settings: &[RegisterWrite]) -> Result<LatencyReport, String> {
    let mut r = LatencyReport::default();
    // RX: one DATA frame from the peer.
    let mut nic = nic_with_settings(whole, NIC_IP, settings)?;
    let ipp = whole.ip_protocol();
    let message: Vec<u8> = (0..16u8).map(|i| 0xA0 + i).collect();
    let frame = data_frame_for(ipp, PEER_IP, NIC_IP, 7000, 80, 1, &message, 0);
    let start = nic.cycle + 5;
    nic.push_frame(&frame, start);
    if !nic.run_until(2000, |n| !n.delivered.is_empty() && !n.tx_frames.is_empty()) {
        return Err("RX latency run: no delivery or no ACK within 2000 cycles".into());
    }
    let s = &nic.stages;
    let (mac_rx, ingress_out, cpu_rx) = (s.mac_rx[0], s.ingress_out[0], s.cpu_rx[0]);
    r.ingress = ingress_out - mac_rx;
    r.reassembly = cpu_rx - ingress_out;
    if nic.delivered[0].payload != message {
        return Err("RX latency run: delivered payload differs".into());
    }
    let ack = &nic.tx_frames[0];
    if flags_of(&ack.1) & FLAG_ACK == 0 {
        return Err(format!("RX latency run: first frame sent has flags {:#x}, not an ACK", flags_of(&ack.1)));
    }
    r.data_to_ack = ack.0 - mac_rx;
    // Byte 64 (the first payload byte) is in beat 8; the message's payload starts at beat 2.
    r.rx_payload = (cpu_rx + 2) - (mac_rx + 8);

    // TX: the CPU sends one message.
    let mut nic = nic_with_settings(whole, NIC_IP, settings)?;
    nic.send(&TxMessage { remote_ip: PEER_IP, remote_port: 7000, local_port: 80, payload: message.clone() });
    if !nic.run_until(2000, |n| !n.tx_frames.is_empty()) {
        return Err("TX latency run: no frame within 2000 cycles".into());
    }
    let s = &nic.stages;
    let (cpu_tx, pkt_out, mac_tx) = (s.cpu_tx[0], s.pkt_out[0], s.mac_tx[0]);
    r.packetize = pkt_out - cpu_tx;
    r.egress = mac_tx - pkt_out;
    let sent = &nic.tx_frames[0].1;
    if sent.len() != 80 || sent[64..] != message[..] || flags_of(sent) & FLAG_DATA == 0 {
        return Err("TX latency run: the frame sent is not the 80-byte DATA packet".into());
    }
    // The payload is the CPU's word 2; it leaves in beat 8 of the frame.
    r.tx_payload = (mac_tx + 8) - (cpu_tx + 2);
    Ok(r)
}

/// Which stream a throughput run measures: MAC RX (frames into the NIC, messages to the CPU) or
/// MAC TX (messages from the CPU, frames out). Named `rx` and `tx`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Direction {
    #[default]
    Rx,
    Tx,
}

impl Direction {
    pub const ALL: [Direction; 2] = [Direction::Rx, Direction::Tx];
    pub fn name(self) -> &'static str {
        match self {
            Direction::Rx => "rx",
            Direction::Tx => "tx",
        }
    }
}

nanotransport_hdl::named_values!(Direction, "direction");

/// Packet sizes a throughput run takes: a 64-byte header and 1 to 1 024 bytes of payload (one
/// packet per message).
pub const THROUGHPUT_PACKET_BYTES: std::ops::RangeInclusive<u64> = 65..=1088;

/// Throughput with back-to-back packets of one size (single-packet messages).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ThroughputReport {
    pub direction: Direction,
    pub packet_bytes: u64,
    /// Datapath beats of one packet (8 bytes each).
    pub beats_per_packet: u64,
    pub packets: u64,
    /// From the first beat of the first packet to the last beat of the last packet.
    pub cycles: u64,
    /// Cycles in that window without a beat on the measured stream.
    pub idle_beats: u64,
    pub beats_per_cycle: f64,
    pub gbps_at_3_2ghz: f64,
    /// Messages delivered (RX) or completed (TX).
    pub messages_done: u64,
    /// Control frames sent by the NIC during the RX run / ACK frames it received in the TX run.
    pub control_frames: u64,
}

fn throughput_figures(
    direction: Direction,
    (packet_bytes, packets): (u64, u64),
    beat_cycles: &[u64],
    messages_done: u64,
    control_frames: u64,
) -> ThroughputReport {
    let (first, last) = (beat_cycles[0], *beat_cycles.last().unwrap());
    let cycles = last - first + 1;
    let beats = beat_cycles.len() as u64;
    ThroughputReport {
        direction,
        packet_bytes,
        beats_per_packet: packet_bytes.div_ceil(8),
        packets,
        cycles,
        idle_beats: cycles - beats,
        beats_per_cycle: beats as f64 / cycles as f64,
        gbps_at_3_2ghz: (packets * packet_bytes * 8) as f64 / cycles as f64 * CLOCK_GHZ,
        messages_done,
        control_frames,
    }
}

/// RX: `packets` back-to-back 65-byte DATA frames from the peer, each a 1-byte message, into
/// MAC RX; the measured stream is MAC RX (every beat accepted). The NIC's ACK/PULL frames leave
/// on MAC TX meanwhile (always ready).
/// TX: the CPU writes `packets` 1-byte messages back to back; the measured stream is MAC TX.
/// The ACKs come from a model peer in this testbench, which answers every DATA frame on MAC TX
/// with an ACK on MAC RX 50 cycles later, so the 16 transmit slots are freed as in a network.
pub fn throughput(whole: &WholeNic, direction: Direction, packets: u64) -> Result<ThroughputReport, String> {
    throughput_with(whole, direction, (65, packets), &[])
}

/// [`throughput`] with `packets` packets of `packet_bytes` ([`THROUGHPUT_PACKET_BYTES`]) and the
/// register writes `settings` applied to the NIC model.
pub fn throughput_with(
    whole: &WholeNic,
    direction: Direction,
    (packet_bytes, packets): (u64, u64),
    settings: &[RegisterWrite],
) -> Result<ThroughputReport, String> {
    if !THROUGHPUT_PACKET_BYTES.contains(&packet_bytes) {
        return Err(format!(
            "packet of {packet_bytes} bytes: valid {}..={} (a 64-byte header and 1 to 1024 bytes of payload)",
            THROUGHPUT_PACKET_BYTES.start(),
            THROUGHPUT_PACKET_BYTES.end()
        ));
    }
    let mut nic = nic_with_settings(whole, NIC_IP, settings)?;
    let ipp = whole.ip_protocol();
    let payload = |i: u64| vec![i as u8; (packet_bytes - 64) as usize];
    // A bound on the run: four times the packets' beats and 40 cycles each, with room to start.
    let bound = packets * (4 * packet_bytes.div_ceil(8) + 40) + 10_000;
    let beats;
    match direction {
        Direction::Rx => {
            let start = nic.cycle + 2;
            for i in 0..packets {
                let f = data_frame_for(ipp, PEER_IP, NIC_IP, 7000 + (i % 64) as u16, 80, i as u16, &payload(i), 0);
                nic.push_frame(&f, start);
            }
            while (nic.delivered.len() as u64) < packets {
                if nic.cycle > start + bound {
                    return Err(format!("RX run: {} of {packets} messages delivered", nic.delivered.len()));
                }
                nic.step();
            }
            beats = nic.rx_beat_cycles.clone();
            for (i, m) in nic.delivered.iter().enumerate() {
                if m.payload.len() as u64 != packet_bytes - 64 || m.remote_ip != PEER_IP {
                    return Err(format!("RX run: message {i} delivered wrong: {m:?}"));
                }
            }
            let control = nic.tx_frames.len() as u64;
            Ok(throughput_figures(Direction::Rx, (packet_bytes, packets), &beats, nic.delivered.len() as u64, control))
        }
        Direction::Tx => {
            for i in 0..packets {
                nic.send(&TxMessage { remote_ip: PEER_IP, remote_port: 7000, local_port: 80, payload: payload(i) });
            }
            let mut answered = 0;
            let mut acks = 0;
            while (nic.completions.len() as u64) < packets {
                if nic.cycle > bound {
                    return Err(format!("TX run: {} of {packets} messages completed", nic.completions.len()));
                }
                while answered < nic.tx_frames.len() {
                    let f = nic.tx_frames[answered].1.clone();
                    answered += 1;
                    if flags_of(&f) & FLAG_DATA != 0 {
                        let at = nic.cycle + 50;
                        nic.push_frame(&ack_for(&f), at);
                        acks += 1;
                    }
                }
                nic.step();
            }
            beats = nic.tx_beat_cycles.clone();
            let data = nic.tx_frames.iter().filter(|(_, f)| flags_of(f) & FLAG_DATA != 0).count() as u64;
            if data != packets || nic.completions.iter().any(|c| c.abandoned) {
                return Err(format!("TX run: {data} DATA frames for {packets} messages, or a message abandoned"));
            }
            Ok(throughput_figures(Direction::Tx, (packet_bytes, packets), &beats, nic.completions.len() as u64, acks))
        }
    }
}

/// Link between two NICs: fixed delay and optional faults.
#[derive(Clone, Copy, Debug)]
pub struct LinkFaults {
    /// Probability that a DATA frame is trimmed to its header (CHOP).
    pub trim: f64,
    /// Probability that any frame is lost.
    pub drop: f64,
    /// Probability that a frame arrives with a length its IPv4 header disagrees with: half of
    /// them with a 4-byte trailer (an FCS left on), half cut 8 bytes short (1 byte when that
    /// would leave less than the 64-byte headers). The receiver must drop it unacknowledged.
    pub length: f64,
    /// Drop the n-th frame (counted from 0, both directions together) whose flags include any of
    /// these, e.g. `(FLAG_PULL, 3)`: the fourth GRANT or PULL of the run.
    pub drop_nth: Option<(u8, usize)>,
    /// Probability that each NIC's MAC TX and CPU read-out are not ready in a cycle (random
    /// back-pressure, [`crate::nic::Stalls`], drawn from the run's seed).
    pub stall: f64,
}

impl LinkFaults {
    /// A clean link, outputs always ready.
    pub const NONE: LinkFaults = LinkFaults { trim: 0.0, drop: 0.0, length: 0.0, drop_nth: None, stall: 0.0 };
}

/// `frame` with a wrong length: a 4-byte trailer, or cut short (see [`LinkFaults::length`]).
pub fn length_fault(frame: &[u8], trailer: bool) -> Vec<u8> {
    if trailer {
        let mut f = frame.to_vec();
        f.extend_from_slice(&[0xde, 0xad, 0xbe, 0xef]);
        f
    } else {
        let cut = if frame.len() >= 72 { 8 } else { 1 };
        frame[..frame.len() - cut].to_vec()
    }
}

/// What a loopback run saw.
#[derive(Clone, Debug, Default)]
pub struct LoopbackReport {
    pub cycles: u64,
    pub messages: [usize; 2],
    pub bytes: [usize; 2],
    pub frames: [usize; 2],
    pub trimmed: usize,
    pub dropped: usize,
    /// Frames delivered with a wrong length (see [`LinkFaults::length`]).
    pub length_faults: usize,
    /// Frames with the flags of [`LinkFaults::drop_nth`] (the dropped one included).
    pub flagged: usize,
    /// (pkt_offset, IPv4 TOS, tx_msg_id) of every DATA frame each side sent, in order.
    pub data_tos: [Vec<(u8, u8, u16)>; 2],
    /// Status registers of both NICs at the end (name, value).
    pub status: [Vec<(&'static str, u32)>; 2],
    /// Output beats each NIC held for back-pressure (see [`LinkFaults::stall`]).
    pub stalled_beats: [u64; 2],
}

impl LoopbackReport {
    /// Status register `name` of side `side` at the end of the run.
    pub fn value(&self, side: usize, name: &str) -> u32 {
        self.status[side].iter().find(|(n, _)| *n == name).unwrap_or_else(|| panic!("no status register {name}")).1
    }

    /// Frames both NICs dropped for their length: the ingress front's frame-length check, or
    /// the parser's too-short check (a 64-byte control frame cut by a byte).
    pub fn length_drops(&self) -> usize {
        (0..2).map(|side| (self.value(side, "bad_frame_length_count") + self.value(side, "too_short_count")) as usize).sum()
    }

    /// What a run over a link with [`LinkFaults::length`] must show: at least `min_faults`
    /// mangled frames, each dropped and counted, and both NICs idle at the end (the loopback
    /// itself checks delivery exactly once and that nothing was abandoned).
    pub fn check_length_faults(&self, min_faults: usize) -> Result<(), String> {
        if self.length_faults < min_faults {
            return Err(format!("the link mangled only {} frames", self.length_faults));
        }
        if self.length_drops() != self.length_faults {
            return Err(format!("{} wrong-length frames, {} dropped and counted", self.length_faults, self.length_drops()));
        }
        for side in 0..2 {
            if self.value(side, "tx_active_any") != 0 || self.value(side, "rx_busy_any") != 0 {
                return Err(format!("nic {side} is not idle at the end"));
            }
        }
        Ok(())
    }

    /// Prints the run and every non-zero status register of both NICs.
    pub fn print(&self, name: &str) {
        println!(
            "{name}: {} cycles, messages {:?}, bytes {:?}, frames {:?}, trimmed {}, dropped {}, wrong length {}, beats held by back-pressure {:?}",
            self.cycles, self.messages, self.bytes, self.frames, self.trimmed, self.dropped, self.length_faults, self.stalled_beats
        );
        for s in 0..2 {
            let nonzero: Vec<String> = self.status[s].iter().filter(|(_, v)| *v != 0).map(|(n, v)| format!("{n}={v}")).collect();
            println!("  nic {s}: {}", nonzero.join(" "));
        }
    }
}

/// What [`wrong_length_then_good`] saw.
#[derive(Clone, Debug)]
pub struct WrongLengthReport {
    /// Frames the NIC sent while only wrong-length frames had arrived.
    pub replies_to_bad: usize,
    /// Frames the NIC sent after the good copies.
    pub replies_to_good: usize,
    /// Messages delivered (payloads), over the whole run.
    pub delivered: Vec<Vec<u8>>,
    /// Status registers at the end.
    pub status: Vec<(&'static str, u32)>,
}

impl WrongLengthReport {
    /// Status register `name` at the end.
    pub fn count(&self, name: &str) -> u32 {
        self.status.iter().find(|(n, _)| *n == name).unwrap_or_else(|| panic!("no status register {name}")).1
    }

    /// What every protocol must show: no reply to the 4 wrong-length frames, each counted; the
    /// good copies answered and the message delivered once; no receive slot left busy.
    pub fn check(&self) -> Result<(), String> {
        if self.replies_to_bad != 0 {
            return Err(format!("{} frames sent in reply to frames of the wrong length", self.replies_to_bad));
        }
        if self.count("bad_frame_length_count") != 4 {
            return Err(format!("bad_frame_length_count {} (4 wrong-length frames)", self.count("bad_frame_length_count")));
        }
        if self.delivered.len() != 1 {
            return Err(format!("the message was delivered {} times", self.delivered.len()));
        }
        if self.replies_to_good == 0 {
            return Err("the good copies were not answered".into());
        }
        if self.count("rx_busy_any") != 0 {
            return Err("a receive slot is still busy".into());
        }
        Ok(())
    }
}

/// Every wrong-length variant of a two-packet message's DATA frames (a 4-byte trailer; cut 8
/// bytes short), offered to a fresh NIC `whole`, then good copies of both packets. The bad
/// frames must draw no reply at all; the good copies complete the message, which is delivered
/// once.
pub fn wrong_length_then_good(whole: &WholeNic) -> Result<WrongLengthReport, String> {
    let mut nic = nic_with_ip(whole, NIC_IP)?;
    let ip_protocol = whole.ip_protocol();
    let message: Vec<u8> = (0..1500u32).map(|i| (i * 7 + 3) as u8).collect();
    let frame = |offset| data_frame_for(ip_protocol, PEER_IP, NIC_IP, 7, 80, 3, &message, offset);
    for offset in 0..2 {
        for trailer in [true, false] {
            nic.push_frame(&length_fault(&frame(offset), trailer), 0);
        }
    }
    nic.run(3_000);
    let replies_to_bad = nic.tx_frames.len();
    for offset in 0..2 {
        nic.push_frame(&frame(offset), 0);
    }
    nic.run_until(3_000, |n| n.delivered.len() == 1);
    nic.run(1_000);
    let replies_to_good = nic.tx_frames.len() - replies_to_bad;
    let delivered = nic.delivered.iter().map(|m| m.payload.clone()).collect::<Vec<_>>();
    if delivered.iter().any(|d| *d != message) {
        return Err("a delivered message differs from the one sent".into());
    }
    Ok(WrongLengthReport { replies_to_bad, replies_to_good, delivered, status: read_status(&mut nic) })
}

/// Reads every status register of a NIC (one map for every configuration).
pub fn read_status(nic: &mut NicSim) -> Vec<(&'static str, u32)> {
    STATUS_MAP.iter().map(|r| (r.1, nic.read_register(STATUS_BASE + 4 * r.0 as u64).0)).collect()
}

/// Two NICs back to back through links of `delay` cycles; each sends `per_side` random messages
/// (1 byte … `max_len`) to the other. Checks that every message is delivered exactly once and
/// byte-identical, and that every send completes (not abandoned). `configure` sets registers on
/// both NICs before traffic starts.
pub fn loopback(
    whole: &WholeNic,
    seed: u64,
    per_side: usize,
    max_len: usize,
    delay: u64,
    faults: LinkFaults,
    registers: &[(usize, u32)],
    max_cycles: u64,
) -> Result<LoopbackReport, String> {
    // 30 % of the messages longer than 9 KB (so PULLs / GRANTs matter), the rest up to 4 KB.
    let mut lengths = move |rng: &mut ChaCha8Rng| {
        if rng.gen_bool(0.3) {
            rng.gen_range(9 * 1024..=max_len.max(9 * 1024))
        } else {
            rng.gen_range(4..=max_len.min(4096))
        }
    };
    loopback_with_lengths(whole, seed, per_side, &mut lengths, delay, faults, registers, max_cycles)
}

/// [`loopback`] with message lengths drawn by `lengths` (at least 4 bytes each).
#[allow(clippy::too_many_arguments)]
pub fn loopback_with_lengths(
    whole: &WholeNic,
    seed: u64,
    per_side: usize,
    lengths: &mut dyn FnMut(&mut ChaCha8Rng) -> usize,
    delay: u64,
    faults: LinkFaults,
    registers: &[(usize, u32)],
    max_cycles: u64,
) -> Result<LoopbackReport, String> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let ips = [NIC_IP, PEER_IP];
    let mut nics = [nic_with_ip(whole, ips[0])?, nic_with_ip(whole, ips[1])?];
    for (side, nic) in nics.iter_mut().enumerate() {
        nic.stalls = (faults.stall > 0.0).then_some(crate::nic::Stalls { probability: faults.stall, seed: seed ^ (side as u64 + 1) << 32 });
        for (reg, value) in registers {
            let r = nic.write_register(4 * *reg as u64, *value);
            if r != 0 {
                return Err(format!("register {reg} write answered {r}"));
            }
        }
    }
    // Messages: payload starts with a unique tag so deliveries can be matched.
    let mut expected: [Vec<TxMessage>; 2] = [Vec::new(), Vec::new()];
    for side in 0..2 {
        for k in 0..per_side {
            let len = lengths(&mut rng).max(4);
            let mut payload: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
            payload[0..4].copy_from_slice(&((side * 100_000 + k) as u32).to_le_bytes());
            let m = TxMessage { remote_ip: ips[1 - side], remote_port: 9000 + side as u16, local_port: 5000 + k as u16, payload };
            nics[side].send(&m);
            expected[side].push(m);
        }
    }
    let mut links: [VecDeque<(u64, Vec<u8>)>; 2] = [VecDeque::new(), VecDeque::new()];
    let mut forwarded = [0usize; 2];
    let mut report = LoopbackReport::default();
    let start = nics[0].cycle;
    loop {
        let done = (0..2).all(|s| nics[s].completions.len() >= per_side && nics[1 - s].delivered.len() >= per_side);
        if done {
            break;
        }
        if nics[0].cycle - start > max_cycles {
            // The counters say where a message stopped.
            let nonzero = |nic: &mut NicSim| {
                read_status(nic).into_iter().filter(|(_, v)| *v != 0).map(|(n, v)| format!("{n}={v}")).collect::<Vec<_>>().join(" ")
            };
            let status = [nonzero(&mut nics[0]), nonzero(&mut nics[1])];
            return Err(format!(
                "loopback did not finish in {max_cycles} cycles: delivered {}/{} and {}/{}, completed {}/{} and {}/{} (seed {seed}); \
                 nic 0: {}; nic 1: {}",
                nics[1].delivered.len(),
                per_side,
                nics[0].delivered.len(),
                per_side,
                nics[0].completions.len(),
                per_side,
                nics[1].completions.len(),
                per_side,
                status[0],
                status[1]
            ));
        }
        for s in 0..2 {
            while forwarded[s] < nics[s].tx_frames.len() {
                let f = nics[s].tx_frames[forwarded[s]].1.clone();
                forwarded[s] += 1;
                report.frames[s] += 1;
                if flags_of(&f) & FLAG_DATA != 0 {
                    let id = u16::from_be_bytes([f[OFF_TX_MSG_ID], f[OFF_TX_MSG_ID + 1]]);
                    report.data_tos[s].push((f[OFF_PKT_OFFSET], f[OFF_TOS], id));
                }
                if let Some((flags, n)) = faults.drop_nth {
                    if flags_of(&f) & flags != 0 {
                        report.flagged += 1;
                        if report.flagged - 1 == n {
                            report.dropped += 1;
                            continue;
                        }
                    }
                }
                if faults.drop > 0.0 && rng.gen_bool(faults.drop) {
                    report.dropped += 1;
                    continue;
                }
                let f = if flags_of(&f) & FLAG_DATA != 0 && faults.trim > 0.0 && rng.gen_bool(faults.trim) {
                    report.trimmed += 1;
                    trimmed(&f)
                } else if faults.length > 0.0 && rng.gen_bool(faults.length) {
                    report.length_faults += 1;
                    length_fault(&f, rng.gen_bool(0.5))
                } else {
                    f
                };
                let at = nics[s].cycle + delay;
                links[s].push_back((at, f));
            }
            while let Some((at, f)) = links[s].pop_front() {
                nics[1 - s].push_frame(&f, at);
            }
        }
        for nic in nics.iter_mut() {
            nic.step();
        }
    }
    report.cycles = nics[0].cycle - start;
    for s in 0..2 {
        let recv = &nics[1 - s].delivered;
        let mut seen = vec![false; per_side];
        for m in recv {
            let tag = u32::from_le_bytes(m.payload[0..4].try_into().unwrap()) as usize;
            let k = tag.checked_sub(s * 100_000).filter(|k| *k < per_side).ok_or_else(|| format!("side {s}: unknown message tag {tag}"))?;
            if seen[k] {
                return Err(format!("side {s}: message {k} delivered twice (seed {seed})"));
            }
            seen[k] = true;
            let e = &expected[s][k];
            if m.payload != e.payload || m.remote_ip != ips[s] || m.remote_port != e.local_port || m.local_port != e.remote_port {
                return Err(format!("side {s}: message {k} delivered with different bytes or addresses (seed {seed})"));
            }
        }
        if let Some(c) = nics[s].completions.iter().find(|c| c.abandoned) {
            return Err(format!("side {s}: message {:#x} abandoned (seed {seed})", c.tx_msg_id));
        }
        if nics[s].stream_rule_violations > 0 {
            return Err(format!(
                "side {s}: {} cycles in which an output beat shown without tready changed or was withdrawn (seed {seed})",
                nics[s].stream_rule_violations
            ));
        }
        report.stalled_beats[s] = nics[s].stalled_beats;
        report.messages[s] = recv.len();
        report.bytes[s] = recv.iter().map(|m| m.payload.len()).sum();
    }
    for s in 0..2 {
        report.status[s] = read_status(&mut nics[s]);
    }
    Ok(report)
}

/// Sends `messages` random messages (1 … `max_len` bytes, drawn from `rng`) from a NIC to its own
/// address and runs it for `cycles` cycles with its MAC looped back (`delay` cycles): every frame
/// it transmits is offered to its receive side as the frames `link` makes of it (e.g. the frame
/// itself, a trimmed copy, a corrupted extra copy). Returns the messages sent and the frames
/// looped. Used by the whole-NIC benchmark, where the receive path, ACKs and credit all run on
/// one NIC.
pub fn self_loop<B: Ports>(
    nic: &mut NicSim<B>,
    rng: &mut ChaCha8Rng,
    messages: u16,
    max_len: usize,
    cycles: u64,
    delay: u64,
    link: &mut dyn FnMut(&[u8], &mut ChaCha8Rng) -> Vec<Vec<u8>>,
) -> (Vec<TxMessage>, usize) {
    let sent = send_random(nic, rng, messages, &mut |rng| rng.gen_range(1..=max_len));
    let looped = run_looped(nic, rng, delay, link, &mut |n| n.cycle >= cycles);
    (sent, looped)
}

/// [`self_loop`] with message lengths drawn by `lengths`, until every message is delivered and
/// completed (or `max_cycles` have passed: the caller's assertions then fail), with the whole
/// backlog written at once.
pub fn self_loop_to_completion<B: Ports>(
    nic: &mut NicSim<B>,
    rng: &mut ChaCha8Rng,
    messages: u16,
    lengths: &mut dyn FnMut(&mut ChaCha8Rng) -> usize,
    max_cycles: u64,
    delay: u64,
    link: &mut dyn FnMut(&[u8], &mut ChaCha8Rng) -> Vec<Vec<u8>>,
) -> (Vec<TxMessage>, usize) {
    let sent = send_random(nic, rng, messages, lengths);
    let end = nic.cycle + max_cycles;
    let n = messages as usize;
    let looped = run_looped(nic, rng, delay, link, &mut |nic| {
        nic.cycle >= end || (nic.delivered.len() >= n && nic.completions.len() >= n && !nic.output_in_progress())
    });
    (sent, looped)
}

fn send_random<B: Ports>(
    nic: &mut NicSim<B>,
    rng: &mut ChaCha8Rng,
    messages: u16,
    lengths: &mut dyn FnMut(&mut ChaCha8Rng) -> usize,
) -> Vec<TxMessage> {
    let mut sent = Vec::new();
    for k in 0..messages {
        let len = lengths(rng);
        let payload: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
        let m = TxMessage { remote_ip: NIC_IP, remote_port: 100 + k, local_port: 200 + k, payload };
        nic.send(&m);
        sent.push(m);
    }
    sent
}

fn run_looped<B: Ports>(
    nic: &mut NicSim<B>,
    rng: &mut ChaCha8Rng,
    delay: u64,
    link: &mut dyn FnMut(&[u8], &mut ChaCha8Rng) -> Vec<Vec<u8>>,
    stop: &mut dyn FnMut(&NicSim<B>) -> bool,
) -> usize {
    let mut looped = 0;
    while !stop(nic) {
        while looped < nic.tx_frames.len() {
            let f = nic.tx_frames[looped].1.clone();
            looped += 1;
            let at = nic.cycle + delay;
            for g in link(&f, rng) {
                nic.push_frame(&g, at);
            }
        }
        nic.step();
    }
    looped
}

/// A looped-back link for [`self_loop`] that trims each DATA frame with probability `rate` (the
/// rest pass unchanged), counting the trimmed frames in `trims`.
pub fn trimming_link(rate: f64, trims: &mut u32) -> impl FnMut(&[u8], &mut ChaCha8Rng) -> Vec<Vec<u8>> + '_ {
    move |f: &[u8], rng: &mut ChaCha8Rng| {
        if flags_of(f) & FLAG_DATA != 0 && rng.gen_bool(rate) {
            *trims += 1;
            vec![trimmed(f)]
        } else {
            vec![f.to_vec()]
        }
    }
}

/// What [`at_most_once_over_the_horizon`] saw.
#[derive(Clone, Debug, Default)]
pub struct HorizonReport {
    /// One-packet messages sent back to back (one per 65-byte frame, 9 cycles).
    pub messages: u64,
    /// Cycles from the first to the last delivery.
    pub delivery_span: u64,
    /// Copies offered of messages delivered within the horizon, and the oldest copy's age
    /// (cycles from its message's delivery to the copy's first beat).
    pub copies: u64,
    pub oldest_copy_age: u64,
    /// Copies delivered again (must be 0) and answered with a control frame.
    pub copies_delivered: u64,
    pub copies_answered: u64,
    /// Whether a copy of a delivered message draws a reply: always in NDP (ACK + PULL), in
    /// Homa only under the `duplicate-acks` policy (the default drops it silently).
    pub copies_draw_replies: bool,
    /// Age of a copy of the first message, offered beyond the horizon, and whether it was
    /// delivered again (the set has forgotten it: the guarantee's limit).
    pub beyond_age: u64,
    pub beyond_delivered: bool,
    pub recent_duplicate_count: u32,
    pub full_wait_count: u32,
}

/// At-most-once delivery over the whole horizon at the highest completion rate: one-packet
/// messages back to back at line rate (one per 9 cycles) for longer than the delivered set
/// remembers (17/16 of its horizon), so it holds as many keys as it ever can; then copies of
/// messages delivered up to almost the horizon ago (none delivered; each answered where the
/// protocol and its acknowledgement policy answer copies, none otherwise), and
/// last a copy of the first message, older than the set's longest memory (delivered again: the
/// stated limit of the guarantee).
pub fn at_most_once_over_the_horizon(whole: &WholeNic) -> Result<HorizonReport, String> {
    use nanotransport_hdl::nic::delivered_set::{max_alive_keys, DEFAULT_HORIZON_CYCLES};
    const COPIES: u64 = 300;
    let horizon = DEFAULT_HORIZON_CYCLES;
    let mut nic = nic_with_settings(whole, NIC_IP, &[])?;
    let ipp = whole.ip_protocol();
    let n = max_alive_keys(horizon) + 512;
    let frame = |i: u64| data_frame_for(ipp, PEER_IP, NIC_IP, 7000 + (i % 64) as u16, 80, i as u16, &[i as u8], 0);
    let start = nic.cycle + 2;
    for i in 0..n {
        nic.push_frame(&frame(i), start);
    }
    let limit = start + n * 12 + 10_000;
    while nic.delivered.len() < n as usize || nic.output_in_progress() || nic.rx_backlog() > 0 {
        if nic.cycle > limit {
            return Err(format!("cycle {}: {} of {n} messages delivered", nic.cycle, nic.delivered.len()));
        }
        nic.step();
    }
    nic.run(200);
    for (i, m) in nic.delivered.iter().enumerate() {
        if m.payload != [i as u8] || m.remote_port != 7000 + (i % 64) as u16 {
            return Err(format!("message {i} delivered out of order or wrong: {m:?}"));
        }
    }
    let delivered_at: Vec<u64> = nic.delivered.iter().map(|m| m.first_cycle).collect();
    // Copies go back to back from `t0`: copy k's first beat at t0 + 9k. The oldest is chosen so
    // that its age stays below the horizon by the few cycles from first beat to lookup.
    let t0 = nic.cycle + 2;
    let oldest = delivered_at.iter().position(|d| d + horizon > t0 + 9 * COPIES + 100).unwrap() as u64;
    let step = ((n - oldest) / COPIES).max(1);
    let chosen: Vec<u64> = (0..COPIES).map(|k| oldest + k * step).filter(|i| *i < n).collect();
    let control_before = nic.tx_frames.len();
    for i in &chosen {
        nic.push_frame(&frame(*i), t0);
    }
    let before = nic.delivered.len();
    let limit = nic.cycle + 9 * COPIES + 20_000;
    while nic.rx_backlog() > 0 || nic.output_in_progress() {
        if nic.cycle > limit {
            return Err("copies never taken".into());
        }
        nic.step();
    }
    nic.run(2_000);
    let copies_delivered = (nic.delivered.len() - before) as u64;
    let copies_answered = (nic.tx_frames.len() - control_before) as u64;
    // A copy of message 0, beyond the set's longest memory.
    let t1 = nic.cycle + 2;
    nic.push_frame(&frame(0), t1);
    let before = nic.delivered.len();
    nic.run(2_000);
    let status = read_status(&mut nic);
    let value = |name: &str| status.iter().find(|(n, _)| *n == name).map(|(_, v)| *v).unwrap_or_default();
    Ok(HorizonReport {
        messages: n,
        delivery_span: delivered_at[n as usize - 1] - delivered_at[0],
        copies: chosen.len() as u64,
        oldest_copy_age: t0 - delivered_at[chosen[0] as usize],
        copies_delivered,
        copies_answered,
        copies_draw_replies: whole.protocol() == Protocol::Ndp
            || AckPolicy::of_value(whole.params().config_defaults[CFG_ACK_POLICY]) == AckPolicy::PrototypeDuplicateAcks,
        beyond_age: t1 - delivered_at[0],
        beyond_delivered: nic.delivered.len() == before + 1,
        recent_duplicate_count: value("recent_duplicate_count"),
        full_wait_count: value("delivered_set_full_wait_count"),
    })
}

impl HorizonReport {
    /// What the run must show: the set full for the whole horizon without waiting, no copy
    /// within the horizon delivered, each answered if the policy answers copies and none
    /// otherwise, the oldest of them close to the horizon,
    /// and the copy beyond it delivered again.
    pub fn check(&self) {
        use nanotransport_hdl::nic::delivered_set::DEFAULT_HORIZON_CYCLES as H;
        assert!(self.delivery_span >= H + H / 16, "the run must outlast the set's memory: {self:?}");
        assert!(self.copies >= 250 && self.oldest_copy_age > H - 4_000 && self.oldest_copy_age < H, "{self:?}");
        assert_eq!(self.copies_delivered, 0, "a copy within the horizon was delivered again: {self:?}");
        if self.copies_draw_replies {
            assert!(self.copies_answered >= self.copies, "every copy is answered: {self:?}");
        } else {
            assert_eq!(self.copies_answered, 0, "copies are dropped silently: {self:?}");
        }
        assert_eq!(self.recent_duplicate_count as u64, self.copies, "{self:?}");
        assert_eq!(self.full_wait_count, 0, "{self:?}");
        assert!(self.beyond_age > H + H / 16 && self.beyond_delivered, "{self:?}");
    }
}
