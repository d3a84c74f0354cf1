//! pcap in/out for the whole-NIC Verilator model (`nanotransport replay`): every Ethernet frame
//! of a capture goes into MAC RX at the cycle of its timestamp, the CPU optionally sends
//! messages, the model runs until it is idle, and every frame it transmits is written to a
//! nanosecond pcap; every message it delivers to the CPU becomes one JSON line.
//!
//! # Time
//! Cycles are of the NIC's clock (its parameter set's; every preset's is the thesis' 3.2 GHz, one
//! cycle 0.3125 ns). Cycle 0 is the cycle in which the first record of the
//! input is offered (after the NIC's registers are set). Record `k` is offered no earlier than
//! cycle `ceil((t_k − t_0) × f)`, `t_0` the first record's timestamp; records are offered in
//! file order, so equal timestamps give back-to-back frames, and a record stamped earlier than
//! the one before it follows that one back to back. Microsecond and nanosecond pcaps (either
//! byte order) are read, and pcapng (Wireshark's default; see [`parse_pcapng`]). The output pcap
//! has nanosecond resolution, link type Ethernet, and stamps each frame with the cycle of its
//! first beat on MAC TX, converted at the NIC's clock and rounded to the nearest nanosecond (seconds
//! since the epoch start at cycle 0). Replaying an output as an input reproduces its frame times
//! to within 2 cycles (the nanosecond rounding).
//!
//! # Idle
//! The run ends at the first check where all of these hold, or after `max_cycles`:
//! - every input frame has been taken by MAC RX and every message to send written into the NIC;
//! - no frame is part-way out on MAC TX and no message part-way out to the CPU;
//! - nothing was taken on MAC RX, sent on MAC TX, delivered to the CPU or completed for the last
//!   [`IDLE_HORIZON_CYCLES`] cycles (a horizon far above the NIC's reply latency, tens of
//!   cycles, and its PULL pacing interval, 136 cycles by default);
//! - the status registers `tx_active_any` and `rx_busy_any` read 0: no message is being sent
//!   or received, so no retransmission or receive garbage-collection timer is armed.
//!
//! A message that cannot finish (a partial message in the capture, a message sent to a peer that
//! never answers) keeps its slot busy until its timer resolves it as the hardware would — the
//! garbage-collection timeout (200 000 cycles by default) frees a receive slot; a send is
//! retransmitted at each retransmission timeout (20 000 cycles by default) and abandoned after the
//! timeout threshold (5) — and those retransmissions appear in the output.
//!
//! # Addresses
//! The NIC's own MAC and IPv4 address are configuration registers (0x00/0x04 and 0x10; reset
//! values 02:00:00:00:00:01 and 10.0.0.1 in `ndp-16`); `nic_mac`/`nic_ip`/`peer_mac` are written
//! there through the AXI4-Lite interface before traffic starts, and the values in force are read
//! back into the report. The datapath filters on neither: the parser
//! (`nanotransport_hdl::pisa::parser`) checks EtherType, IPv4 version/IHL, the IP protocol, the
//! header checksum and the flags, not the destination MAC or IP, and the model has no MAC core
//! with an address filter in front of MAC RX. So a frame addressed elsewhere is processed as if it were addressed to
//! the NIC (a DATA packet is delivered and acknowledged from the NIC's own address). The replay
//! feeds such frames like any other and counts them (`frames_not_for_nic`: destination MAC
//! neither the NIC's nor a group address, or IPv4 destination not the NIC's); with
//! `filter_not_for_nic` it drops them before MAC RX instead, as a MAC with a destination-address
//! filter would, and counts them as `frames_filtered`.
//!
//! # Protocols
//! The model is the [`WholeNic`](crate::whole_nic::WholeNic)'s (`nt_<name>_nic`), a preset or a
//! parameter set. The configuration registers written here (own/peer MAC, own IP, rtt_pkts at
//! 0x00–0x14) and the status registers are the one register map of every configuration
//! ([`nanotransport_hdl::nic::register_map`]).

use crate::nic::{Completion, NicSim, RxMessage, Stalls, TxMessage};
use nanotransport_hdl::clock::NicClock;
use nanotransport_hdl::nic::register_map::{
    status_address, AckPolicy, CFG_ACK_POLICY, CFG_OWN_IP, CFG_OWN_MAC_HI, CFG_OWN_MAC_LO, CFG_PEER_MAC_HI, CFG_PEER_MAC_LO, CFG_RTT_PKTS,
    STATUS_BASE, STATUS_MAP,
};
use nanotransport_reference::nic_checker::NicTrace;
use pcap_file::pcap::{PcapHeader, PcapPacket, PcapParser, PcapWriter};
/// Byte order of a capture file.
pub use pcap_file::Endianness;
/// Timestamp resolution of a pcap (microsecond or nanosecond).
pub use pcap_file::TsResolution;
use pcap_file::{DataLink, PcapError};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Quiet cycles (nothing in or out) before the status registers are read for the idle decision.
pub const IDLE_HORIZON_CYCLES: u64 = 1000;
/// Default bound of a run, cycles (3.125 ms at 3.2 GHz).
pub const DEFAULT_MAX_CYCLES: u64 = 10_000_000;
/// Status registers start here (byte address); register `i` of the protocol's list at + 4·i.

/// One frame of an input capture.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PcapRecord {
    /// Record number in the file, from 1.
    pub number: usize,
    /// Timestamp in nanoseconds since the epoch.
    pub time_ns: u128,
    pub frame: Vec<u8>,
}

/// A whole input capture, checked.
#[derive(Clone, Debug)]
pub struct PcapInput {
    pub resolution: TsResolution,
    pub records: Vec<PcapRecord>,
    /// Records with no bytes (no frame for a MAC to present): skipped, counted.
    pub empty_records: usize,
}

fn resolution_name(r: TsResolution) -> &'static str {
    match r {
        TsResolution::MicroSecond => "microsecond",
        TsResolution::NanoSecond => "nanosecond",
    }
}

/// Parses a pcap (or pcapng, see [`parse_pcapng`]) file held in memory. Every record is checked
/// before anything is returned: an error names the record (from 1) and its byte offset.
pub fn parse_pcap(bytes: &[u8]) -> Result<PcapInput, String> {
    if bytes.len() < 24 {
        return Err(format!("not a pcap or pcapng file: {} bytes, shorter than the 24-byte file header", bytes.len()));
    }
    let (mut rest, parser) = match PcapParser::new(bytes) {
        Ok(p) => p,
        Err(PcapError::InvalidField(_)) => {
            let magic = u32::from_be_bytes(bytes[0..4].try_into().unwrap());
            if magic == PCAPNG_SECTION_HEADER {
                return parse_pcapng(bytes);
            }
            return Err(format!("not a pcap or pcapng file: magic number {magic:08x}"));
        }
        Err(e) => return Err(format!("file header: {e}")),
    };
    let header = parser.header();
    if header.datalink != DataLink::ETHERNET {
        let code: u32 = header.datalink.into();
        return Err(format!(
            "file header: link type {code} ({:?}), not Ethernet (1): only Ethernet frames can be replayed",
            header.datalink
        ));
    }
    let read_u32 = |b: &[u8]| match header.endianness {
        Endianness::Big => u32::from_be_bytes(b[0..4].try_into().unwrap()),
        Endianness::Little => u32::from_le_bytes(b[0..4].try_into().unwrap()),
    };
    let mut records = Vec::new();
    let mut empty_records = 0;
    let mut number = 0;
    while !rest.is_empty() {
        number += 1;
        let offset = bytes.len() - rest.len();
        let at = format!("record {number} (byte offset {offset})");
        let raw = match parser.next_raw_packet(rest) {
            Ok((r, raw)) => {
                rest = r;
                raw
            }
            Err(PcapError::IncompleteBuffer) if rest.len() < 16 => {
                return Err(format!("{at}: truncated: the file ends inside the 16-byte record header ({} bytes left)", rest.len()));
            }
            Err(PcapError::IncompleteBuffer) => {
                return Err(format!(
                    "{at}: truncated: the record header announces {} captured bytes, the file holds {}",
                    read_u32(&rest[8..12]),
                    rest.len() - 16
                ));
            }
            Err(e) => return Err(format!("{at}: {e}")),
        };
        let frac_limit = match header.ts_resolution {
            TsResolution::MicroSecond => 1_000_000,
            TsResolution::NanoSecond => 1_000_000_000,
        };
        if raw.ts_frac >= frac_limit {
            return Err(format!(
                "{at}: timestamp fraction {} out of range for a {} pcap",
                raw.ts_frac,
                resolution_name(header.ts_resolution)
            ));
        }
        if raw.incl_len > raw.orig_len {
            return Err(format!("{at}: captured length {} exceeds the original length {}", raw.incl_len, raw.orig_len));
        }
        if raw.incl_len < raw.orig_len {
            return Err(format!(
                "{at}: frame cut by the capture's snaplen ({}): {} of {} bytes captured; capture with a larger snaplen (tcpdump -s 0)",
                header.snaplen, raw.incl_len, raw.orig_len
            ));
        }
        let frac_ns = match header.ts_resolution {
            TsResolution::MicroSecond => raw.ts_frac as u128 * 1000,
            TsResolution::NanoSecond => raw.ts_frac as u128,
        };
        if raw.data.is_empty() {
            empty_records += 1;
            continue;
        }
        records.push(PcapRecord { number, time_ns: raw.ts_sec as u128 * 1_000_000_000 + frac_ns, frame: raw.data.to_vec() });
    }
    Ok(PcapInput { resolution: header.ts_resolution, records, empty_records })
}

/// Block type of a pcapng section header (the file's first four bytes).
const PCAPNG_SECTION_HEADER: u32 = 0x0A0D_0D0A;

/// Nanoseconds of `units` timestamp units of a pcapng interface with `if_tsresol` = `resol`
/// (bit 7 clear: 10^-n s, set: 2^-n s).
fn pcapng_units_to_ns(units: u128, resol: u8) -> u128 {
    let n = (resol & 0x7F) as u32;
    if resol & 0x80 == 0 {
        if n <= 9 {
            units * 10u128.pow(9 - n)
        } else {
            units / 10u128.pow(n - 9)
        }
    } else {
        (units * 1_000_000_000) >> n.min(127)
    }
}

/// Parses a pcapng file (Wireshark's default format): every Enhanced Packet Block is a record,
/// numbered from 1 as Wireshark numbers frames; its interface must be Ethernet; timestamps use
/// the interface's `if_tsresol` (default microseconds) and `if_tsoffset`. Other blocks (name
/// resolution, statistics, …) are skipped; Simple and obsolete Packet Blocks carry no usable
/// timestamp and are errors. The section's byte order is followed. `resolution` is that of the
/// first interface (nanosecond when finer than a microsecond).
///
/// pcapng is read, not written: the output is always a pcap.
pub fn parse_pcapng(bytes: &[u8]) -> Result<PcapInput, String> {
    use pcap_file::pcapng::blocks::interface_description::InterfaceDescriptionOption;
    use pcap_file::pcapng::{Block, PcapNgParser};
    let (mut rest, mut parser) = PcapNgParser::new(bytes).map_err(|e| format!("pcapng section header: {e}"))?;
    let mut records = Vec::new();
    let mut empty_records = 0;
    let (mut block_no, mut number) = (1usize, 0usize);
    let mut first_resol = None;
    while !rest.is_empty() {
        block_no += 1;
        let offset = bytes.len() - rest.len();
        let at_block = format!("block {block_no} (byte offset {offset})");
        let block = match parser.next_block(rest) {
            Ok((r, b)) => {
                rest = r;
                b
            }
            Err(PcapError::IncompleteBuffer) => {
                return Err(format!("{at_block}: truncated: the file ends inside the block ({} bytes left)", rest.len()));
            }
            Err(e) => return Err(format!("{at_block}: {e}")),
        };
        let epb = match block {
            Block::EnhancedPacket(epb) => epb,
            Block::SimplePacket(_) | Block::Packet(_) => {
                return Err(format!(
                    "{at_block}: a Simple or obsolete Packet Block has no usable timestamp; save the capture with Enhanced Packet Blocks"
                ));
            }
            _ => continue,
        };
        number += 1;
        let at = format!("packet {number} ({at_block})");
        let iface = parser.packet_interface(&epb).ok_or(format!("{at}: interface {} is not described", epb.interface_id))?;
        if iface.linktype != DataLink::ETHERNET {
            let code: u32 = iface.linktype.into();
            return Err(format!(
                "{at}: interface {} has link type {code} ({:?}), not Ethernet (1): only Ethernet frames can be replayed",
                epb.interface_id, iface.linktype
            ));
        }
        let (mut resol, mut offset_s) = (6u8, 0u64);
        for o in &iface.options {
            match o {
                InterfaceDescriptionOption::IfTsResol(r) => resol = *r,
                InterfaceDescriptionOption::IfTsOffset(s) => offset_s = *s,
                _ => {}
            }
        }
        first_resol.get_or_insert(resol);
        let captured = epb.data.len() as u32;
        if captured > epb.original_len {
            return Err(format!("{at}: captured length {captured} exceeds the original length {}", epb.original_len));
        }
        if captured < epb.original_len {
            return Err(format!(
                "{at}: frame cut by the capture's snaplen ({}): {captured} of {} bytes captured; capture with a larger snaplen (tcpdump -s 0)",
                iface.snaplen, epb.original_len
            ));
        }
        if epb.data.is_empty() {
            empty_records += 1;
            continue;
        }
        // pcap-file 2 stores the raw 64-bit timestamp as nanoseconds whatever the resolution.
        let units = epb.timestamp.as_nanos();
        let time_ns = pcapng_units_to_ns(units, resol) + offset_s as u128 * 1_000_000_000;
        records.push(PcapRecord { number, time_ns, frame: epb.data.to_vec() });
    }
    let resol = first_resol.unwrap_or(6);
    let resolution = if resol & 0x80 == 0 && resol <= 6 { TsResolution::MicroSecond } else { TsResolution::NanoSecond };
    Ok(PcapInput { resolution, records, empty_records })
}

/// Reads and checks a pcap file; errors start with the path.
pub fn read_pcap(path: &Path) -> Result<PcapInput, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    parse_pcap(&bytes).map_err(|e| format!("{}: {e}", path.display()))
}

/// Nanoseconds → the first cycle of `clock` at or after them (3.2 GHz: 16 cycles per 5 ns).
pub fn ns_to_cycles(ns: u128, clock: NicClock) -> u64 {
    clock.cycle_at_or_after_ns(ns)
}

/// Cycles of `clock` → nanoseconds, rounded to the nearest nanosecond (halves up).
pub fn cycles_to_ns(cycles: u64, clock: NicClock) -> u128 {
    clock.nearest_ns(cycles)
}

/// Offer cycle of every record at `clock`, relative to the first (records before it count as at it).
pub fn record_cycles(records: &[PcapRecord], clock: NicClock) -> Vec<u64> {
    let t0 = records.first().map(|r| r.time_ns).unwrap_or(0);
    records.iter().map(|r| ns_to_cycles(r.time_ns.saturating_sub(t0), clock)).collect()
}

/// A pcap (link type Ethernet, little-endian) of `(timestamp in ns, frame)` records at the given
/// resolution (microsecond timestamps are truncated to the microsecond).
pub fn pcap_bytes(records: &[(u128, Vec<u8>)], resolution: TsResolution) -> Result<Vec<u8>, String> {
    let header = PcapHeader { ts_resolution: resolution, endianness: Endianness::Little, snaplen: 65535, ..Default::default() };
    let mut w = PcapWriter::with_header(Vec::new(), header).map_err(|e| e.to_string())?;
    for (ns, frame) in records {
        let ns = match resolution {
            TsResolution::MicroSecond => ns / 1000 * 1000,
            TsResolution::NanoSecond => *ns,
        };
        let ts = Duration::new((ns / 1_000_000_000) as u64, (ns % 1_000_000_000) as u32);
        w.write_packet(&PcapPacket::new(ts, frame.len() as u32, frame)).map_err(|e| e.to_string())?;
    }
    Ok(w.into_writer())
}

/// A pcapng of `(timestamp in ns, frame)` records: one Ethernet interface whose `if_tsresol` is
/// `resol` (6: microseconds, the default, written without the option; 9: nanoseconds), in the
/// given byte order (for tests of the reader).
pub fn pcapng_bytes(records: &[(u128, Vec<u8>)], resol: u8, endianness: Endianness) -> Result<Vec<u8>, String> {
    use pcap_file::pcapng::blocks::enhanced_packet::EnhancedPacketBlock;
    use pcap_file::pcapng::blocks::interface_description::{InterfaceDescriptionBlock, InterfaceDescriptionOption};
    use pcap_file::pcapng::PcapNgWriter;
    let mut w = PcapNgWriter::with_endianness(Vec::new(), endianness).map_err(|e| e.to_string())?;
    let options = if resol == 6 { vec![] } else { vec![InterfaceDescriptionOption::IfTsResol(resol)] };
    w.write_pcapng_block(InterfaceDescriptionBlock { linktype: DataLink::ETHERNET, snaplen: 65535, options }).map_err(|e| e.to_string())?;
    let unit_ns = 10u128.pow(9 - resol as u32);
    for (ns, frame) in records {
        // pcap-file 2 writes the Duration's nanoseconds as the raw count of units.
        let units = (ns / unit_ns) as u64;
        let epb = EnhancedPacketBlock {
            interface_id: 0,
            timestamp: Duration::from_nanos(units),
            original_len: frame.len() as u32,
            data: frame[..].into(),
            options: vec![],
        };
        w.write_pcapng_block(epb).map_err(|e| e.to_string())?;
    }
    Ok(w.into_inner())
}

/// The output pcap: nanosecond resolution, each frame stamped with its first-beat cycle at `clock`.
pub fn output_pcap(frames: &[(u64, Vec<u8>)], clock: NicClock) -> Result<Vec<u8>, String> {
    let records: Vec<(u128, Vec<u8>)> = frames.iter().map(|(c, f)| (cycles_to_ns(*c, clock), f.clone())).collect();
    pcap_bytes(&records, TsResolution::NanoSecond)
}

pub use crate::registers::{parse_ipv4, parse_mac};

pub fn format_ipv4(ip: u32) -> String {
    std::net::Ipv4Addr::from(ip).to_string()
}

pub fn format_mac(mac: u64) -> String {
    (0..6).map(|i| format!("{:02x}", (mac >> (8 * (5 - i))) as u8)).collect::<Vec<_>>().join(":")
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(s: &str) -> Result<Vec<u8>, String> {
    if s.len() % 2 != 0 {
        return Err(format!("an odd number of hex digits ({})", s.len()));
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).map_err(|_| format!("'{}' is not a hex byte", &s[i..i + 2])))
        .collect()
}

/// One delivered message as a JSON line: remote_ip (dotted), remote_port, local_port, msg_len,
/// bytes (hex), cycle (of its first beat to the CPU, replay time).
pub fn message_json(m: &RxMessage) -> String {
    json!({
        "remote_ip": format_ipv4(m.remote_ip),
        "remote_port": m.remote_port,
        "local_port": m.local_port,
        "msg_len": m.payload.len(),
        "bytes": hex(&m.payload),
        "cycle": m.first_cycle,
    })
    .to_string()
}

/// A message the CPU writes into the NIC from `cycle` on (run time; after the messages before it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimedSend {
    pub cycle: u64,
    pub message: TxMessage,
}

/// Parses a messages-to-send file: a JSON array of objects with `remote_ip` (dotted string),
/// `remote_port`, `local_port`, exactly one of `bytes_hex` (the payload as hex) or `len`
/// (that many bytes 0, 1, 2, … mod 256), and optionally `cycle`: the run cycle from which the
/// CPU writes it (default 0; not below the message before it). Written in array order.
pub fn parse_timed_sends(text: &str) -> Result<Vec<TimedSend>, String> {
    let v: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    let list = v.as_array().ok_or("expected a JSON array of messages")?;
    let mut out: Vec<TimedSend> = Vec::new();
    for (i, m) in list.iter().enumerate() {
        let at = format!("message {i}");
        let obj = m.as_object().ok_or(format!("{at}: not an object"))?;
        for k in obj.keys() {
            if !["remote_ip", "remote_port", "local_port", "bytes_hex", "len", "cycle"].contains(&k.as_str()) {
                return Err(format!("{at}: unknown field '{k}' (remote_ip, remote_port, local_port, bytes_hex | len, cycle)"));
            }
        }
        let ip = obj.get("remote_ip").and_then(Value::as_str).ok_or(format!("{at}: remote_ip (a dotted string) missing"))?;
        let remote_ip = parse_ipv4(ip).map_err(|e| format!("{at}: remote_ip {e}"))?;
        let port = |k: &str| -> Result<u16, String> {
            let n = obj.get(k).and_then(Value::as_u64).ok_or(format!("{at}: {k} (a number) missing"))?;
            u16::try_from(n).map_err(|_| format!("{at}: {k} {n} is not a 16-bit port"))
        };
        let (remote_port, local_port) = (port("remote_port")?, port("local_port")?);
        let payload = match (obj.get("bytes_hex"), obj.get("len")) {
            (Some(h), None) => {
                unhex(h.as_str().ok_or(format!("{at}: bytes_hex is not a string"))?).map_err(|e| format!("{at}: bytes_hex: {e}"))?
            }
            (None, Some(l)) => {
                let n = l.as_u64().ok_or(format!("{at}: len is not a number"))?;
                (0..n).map(|k| k as u8).collect()
            }
            _ => return Err(format!("{at}: give exactly one of bytes_hex and len")),
        };
        if payload.len() > u16::MAX as usize {
            return Err(format!("{at}: {} bytes; msg_len is a 16-bit field", payload.len()));
        }
        let cycle = match obj.get("cycle") {
            None => 0,
            Some(c) => c.as_u64().ok_or(format!("{at}: cycle is not a number"))?,
        };
        if let Some(prev) = out.last().filter(|p| p.cycle > cycle) {
            return Err(format!("{at}: cycle {cycle} is before the previous message's ({})", prev.cycle));
        }
        out.push(TimedSend { cycle, message: TxMessage { remote_ip, remote_port, local_port, payload } });
    }
    Ok(out)
}

/// [`parse_timed_sends`] without the cycles.
pub fn parse_send_messages(text: &str) -> Result<Vec<TxMessage>, String> {
    Ok(parse_timed_sends(text)?.into_iter().map(|t| t.message).collect())
}

/// A messages-to-send file of `sends` (with their cycles) that [`parse_timed_sends`] reads back.
pub fn timed_sends_json(sends: &[TimedSend]) -> String {
    let list: Vec<Value> = sends
        .iter()
        .map(|t| {
            json!({
                "cycle": t.cycle,
                "remote_ip": format_ipv4(t.message.remote_ip),
                "remote_port": t.message.remote_port,
                "local_port": t.message.local_port,
                "bytes_hex": hex(&t.message.payload),
            })
        })
        .collect();
    serde_json::to_string_pretty(&Value::Array(list)).unwrap()
}

/// Settings of one replay.
#[derive(Clone, Debug)]
pub struct ReplayOptions {
    /// The NIC replayed through.
    pub nic: crate::whole_nic::WholeNic,
    pub rtt_pkts: Option<u32>,
    pub nic_mac: Option<u64>,
    pub nic_ip: Option<u32>,
    /// Next-hop MAC the NIC sends to (register default: broadcast).
    pub peer_mac: Option<u64>,
    pub max_cycles: u64,
    /// Drop frames not addressed to the NIC before MAC RX (a MAC address filter).
    pub filter_not_for_nic: bool,
    /// Register writes of `--set`, applied after the options above (so they win).
    pub settings: Vec<crate::registers::RegisterWrite>,
    /// Random back-pressure on MAC TX and the CPU read-out from the first traffic cycle on.
    pub stalls: Option<Stalls>,
}

impl ReplayOptions {
    pub fn new(nic: &crate::whole_nic::WholeNic) -> Self {
        ReplayOptions {
            nic: nic.clone(),
            rtt_pkts: None,
            nic_mac: None,
            nic_ip: None,
            peer_mac: None,
            max_cycles: DEFAULT_MAX_CYCLES,
            filter_not_for_nic: false,
            settings: Vec::new(),
            stalls: None,
        }
    }
}

/// What a replay saw.
#[derive(Clone, Debug, Default)]
pub struct ReplayReport {
    pub config: String,
    pub nic_mac: u64,
    pub nic_ip: u32,
    /// The `rtt_pkts` register in force.
    pub rtt_pkts: u32,
    pub records: usize,
    pub empty_records: usize,
    pub frames_not_for_nic: usize,
    pub frames_filtered: usize,
    /// Frames given to MAC RX / of those, fully taken by it before the run ended.
    pub frames_fed: usize,
    pub frames_taken: usize,
    pub frames_out: usize,
    pub messages_delivered: usize,
    pub messages_sent: usize,
    pub sends_completed: usize,
    pub sends_abandoned: usize,
    /// Cycles from cycle 0 to the end of the run.
    pub cycles: u64,
    /// "idle" or "max-cycles".
    pub stopped: String,
    /// Whether the idle decision read the slot registers (false: horizon alone).
    pub slots_checked: bool,
    /// Every status register at the end (empty for a protocol without a listed map).
    pub status: Vec<(&'static str, u32)>,
    /// Output beats that waited for back-pressure, and beats changed or withdrawn while waiting
    /// (an AXI4-Stream violation; must be 0).
    pub stalled_beats: u64,
    pub stream_rule_violations: u64,
}

impl ReplayReport {
    pub fn to_json(&self) -> Value {
        let status: serde_json::Map<String, Value> = self.status.iter().map(|(n, v)| (n.to_string(), (*v).into())).collect();
        json!({
            "config": self.config,
            "nic_mac": format_mac(self.nic_mac),
            "nic_ip": format_ipv4(self.nic_ip),
            "records": self.records,
            "empty_records": self.empty_records,
            "frames_not_for_nic": self.frames_not_for_nic,
            "frames_filtered": self.frames_filtered,
            "frames_fed": self.frames_fed,
            "frames_taken": self.frames_taken,
            "frames_out": self.frames_out,
            "messages_delivered": self.messages_delivered,
            "messages_sent": self.messages_sent,
            "sends_completed": self.sends_completed,
            "sends_abandoned": self.sends_abandoned,
            "cycles": self.cycles,
            "stopped": self.stopped,
            "slots_checked": self.slots_checked,
            "stalled_beats": self.stalled_beats,
            "stream_rule_violations": self.stream_rule_violations,
            "status": status,
        })
    }
}

/// Frames out (cycle of the first beat, bytes) and messages delivered (cycle = first beat to
/// the CPU), both in replay time (cycle 0 = first input record offered).
#[derive(Clone, Debug)]
pub struct ReplayOutcome {
    pub tx_frames: Vec<(u64, Vec<u8>)>,
    pub delivered: Vec<RxMessage>,
    pub report: ReplayReport,
    /// Everything observed, for the whole-NIC checker.
    pub trace: NicTrace,
}

/// Whether `frame` is addressed to a NIC with these addresses: destination MAC its own or a
/// group address (broadcast/multicast), and, for IPv4, destination IP its own.
pub fn addressed_to(frame: &[u8], mac: u64, ip: u32) -> bool {
    if frame.len() < 6 {
        return false;
    }
    let dst_mac = frame[0..6].iter().fold(0u64, |m, b| m << 8 | *b as u64);
    let mac_ok = dst_mac == mac || frame[0] & 1 == 1;
    let is_ipv4 = frame.len() >= 34 && frame[12] == 0x08 && frame[13] == 0x00;
    let ip_ok = !is_ipv4 || u32::from_be_bytes(frame[30..34].try_into().unwrap()) == ip;
    mac_ok && ip_ok
}

fn write_reg(nic: &mut NicSim, index: usize, value: u32) -> Result<(), String> {
    match nic.write_register(4 * index as u64, value) {
        0 => Ok(()),
        r => Err(format!("register {:#x} write answered {r}", 4 * index)),
    }
}

fn read_reg(nic: &mut NicSim, addr: u64) -> Result<u32, String> {
    match nic.read_register(addr) {
        (v, 0) => Ok(v),
        (_, r) => Err(format!("register {addr:#x} read answered {r}")),
    }
}

fn status_of(nic: &mut NicSim, name: &str) -> Result<u32, String> {
    read_reg(nic, status_address(name).ok_or(format!("no status register {name}"))?)
}

/// A NIC model of `opts.nic` with the options' registers written and the addresses in force
/// read back into a report: the state every replay (and `nanotransport fuzz`) starts traffic from,
/// so that the same inputs at the same cycles after this point give the same run.
pub fn prepare(opts: &ReplayOptions) -> Result<(NicSim, ReplayReport), String> {
    let mut nic = NicSim::new(&opts.nic.module())?;
    if let Some(mac) = opts.nic_mac {
        write_reg(&mut nic, CFG_OWN_MAC_LO, mac as u32)?;
        write_reg(&mut nic, CFG_OWN_MAC_HI, (mac >> 32) as u32)?;
    }
    if let Some(mac) = opts.peer_mac {
        write_reg(&mut nic, CFG_PEER_MAC_LO, mac as u32)?;
        write_reg(&mut nic, CFG_PEER_MAC_HI, (mac >> 32) as u32)?;
    }
    if let Some(ip) = opts.nic_ip {
        write_reg(&mut nic, CFG_OWN_IP, ip)?;
    }
    if let Some(n) = opts.rtt_pkts {
        write_reg(&mut nic, CFG_RTT_PKTS, n)?;
    }
    crate::registers::apply(&mut nic, &opts.settings)?;
    let mut report = ReplayReport { config: opts.nic.name().to_string(), ..Default::default() };
    report.nic_mac =
        read_reg(&mut nic, 4 * CFG_OWN_MAC_LO as u64)? as u64 | (read_reg(&mut nic, 4 * CFG_OWN_MAC_HI as u64)? as u64 & 0xFFFF) << 32;
    report.nic_ip = read_reg(&mut nic, 4 * CFG_OWN_IP as u64)?;
    report.rtt_pkts = read_reg(&mut nic, 4 * CFG_RTT_PKTS as u64)?;
    nic.stalls = opts.stalls;
    Ok((nic, report))
}

/// Replays `input` (and `sends`, all from cycle 0) through the NIC model of `opts.nic`.
pub fn replay(input: &PcapInput, sends: &[TxMessage], opts: &ReplayOptions) -> Result<ReplayOutcome, String> {
    let timed: Vec<TimedSend> = sends.iter().map(|m| TimedSend { cycle: 0, message: m.clone() }).collect();
    replay_timed(input, &timed, opts)
}

/// Replays `input` and the timed CPU sends through the NIC model of `opts.nic`.
pub fn replay_timed(input: &PcapInput, sends: &[TimedSend], opts: &ReplayOptions) -> Result<ReplayOutcome, String> {
    let (mut nic, mut report) = prepare(opts)?;
    report.records = input.records.len();
    report.empty_records = input.empty_records;
    let start = nic.cycle;
    let mut offered = Vec::new();
    for (record, cycle) in input.records.iter().zip(record_cycles(&input.records, opts.nic.params().clock)) {
        if !addressed_to(&record.frame, report.nic_mac, report.nic_ip) {
            report.frames_not_for_nic += 1;
            if opts.filter_not_for_nic {
                report.frames_filtered += 1;
                continue;
            }
        }
        nic.push_frame(&record.frame, start + cycle);
        offered.push((cycle, record.frame.clone()));
        report.frames_fed += 1;
    }
    report.messages_sent = sends.len();
    let mut next_send = 0;
    let mut next_check = start;
    loop {
        let now = nic.cycle;
        while next_send < sends.len() && sends[next_send].cycle <= now - start {
            nic.send(&sends[next_send].message);
            next_send += 1;
        }
        if now - start >= opts.max_cycles {
            report.stopped = "max-cycles".into();
            break;
        }
        if next_send == sends.len() && now >= next_check && quiet(&nic, start, now) {
            if is_idle(&mut nic, start)? {
                report.stopped = "idle".into();
                report.slots_checked = true;
                break;
            }
            next_check = nic.cycle + IDLE_HORIZON_CYCLES;
            continue;
        }
        nic.step();
    }
    finish(nic, opts.nic.protocol(), start, report, offered, sends)
}

/// Whether the NIC is idle (the rule in the module documentation): quiet for the horizon and
/// both slot registers 0, with no activity during the register reads.
pub fn is_idle(nic: &mut NicSim, start: u64) -> Result<bool, String> {
    if !quiet(nic, start, nic.cycle) {
        return Ok(false);
    }
    let seen = activity_count(nic);
    let slots_free = status_of(nic, "tx_active_any")? == 0 && status_of(nic, "rx_busy_any")? == 0;
    Ok(slots_free && activity_count(nic) == seen)
}

/// The outcome of a run that began at cycle `start`: outputs in run time, the report's figures,
/// every status register, and the trace for [`nanotransport_reference::nic_checker`].
pub fn finish(
    mut nic: NicSim,
    protocol: crate::scenarios::Protocol,
    start: u64,
    mut report: ReplayReport,
    offered: Vec<(u64, Vec<u8>)>,
    sends: &[TimedSend],
) -> Result<ReplayOutcome, String> {
    report.cycles = nic.cycle - start;
    // Taken out of the model's records rather than copied: long runs hold a lot of frames.
    let tx_frames: Vec<(u64, Vec<u8>)> = std::mem::take(&mut nic.tx_frames).into_iter().map(|(c, f)| (c - start, f)).collect();
    let delivered: Vec<RxMessage> =
        std::mem::take(&mut nic.delivered).into_iter().map(|m| RxMessage { first_cycle: m.first_cycle - start, ..m }).collect();
    report.frames_taken = report.frames_fed - nic.rx_backlog();
    report.frames_out = tx_frames.len();
    report.messages_delivered = delivered.len();
    report.sends_completed = nic.completions.iter().filter(|c| !c.abandoned).count();
    report.sends_abandoned = nic.completions.iter().filter(|c| c.abandoned).count();
    (report.stalled_beats, report.stream_rule_violations) = (nic.stalled_beats, nic.stream_rule_violations);
    for r in STATUS_MAP {
        report.status.push((r.1, read_reg(&mut nic, STATUS_BASE + 4 * r.0 as u64)?));
    }
    let ack_policy = AckPolicy::of_value(read_reg(&mut nic, 4 * CFG_ACK_POLICY as u64)?);
    let trace = NicTrace {
        protocol,
        nic_ip: report.nic_ip,
        rtt_pkts: report.rtt_pkts as u16,
        ack_policy,
        rx_frames: offered,
        rx_taken: nic.stages.mac_rx.iter().map(|c| c - start).collect(),
        sends: sends.iter().map(|t| (t.cycle, t.message.clone())).collect(),
        sent_ids: nic.sent_ids.iter().map(|(c, id)| (c - start, *id)).collect(),
        tx_frames: tx_frames.clone(),
        delivered: delivered.clone(),
        completions: nic.completions.iter().map(|c| Completion { cycle: c.cycle - start, ..*c }).collect(),
        status: report.status.clone(),
        idle: report.stopped == "idle",
        stream_rule_violations: nic.stream_rule_violations,
    };
    Ok(ReplayOutcome { tx_frames, delivered, report, trace })
}

/// Everything observable that moved so far (to see whether register reads overlapped activity).
fn activity_count(nic: &NicSim) -> usize {
    nic.tx_frames.len() + nic.delivered.len() + nic.rx_beat_cycles.len() + nic.completions.len() + nic.stages.cpu_tx.len()
}

/// Whether the NIC is quiet at its current cycle: no input left, nothing part-way out, no activity for the horizon (counted from `start`).
pub fn quiet_for(nic: &NicSim, start: u64) -> bool {
    quiet(nic, start, nic.cycle)
}

/// No input left, nothing part-way out, and no activity for the horizon.
fn quiet(nic: &NicSim, start: u64, now: u64) -> bool {
    if nic.rx_backlog() != 0 || nic.send_backlog() != 0 || nic.output_in_progress() {
        return false;
    }
    let last = [
        nic.tx_frames.last().map(|f| f.0),
        nic.delivered.last().map(|m| m.first_cycle),
        nic.rx_beat_cycles.last().copied(),
        nic.completions.last().map(|c| c.cycle),
        nic.stages.cpu_tx.last().copied(),
    ]
    .into_iter()
    .flatten()
    .max()
    .unwrap_or(start)
    .max(start);
    now >= last + IDLE_HORIZON_CYCLES
}

/// Writes `bytes` to `path` through a temporary file in the same folder, renamed at the end, so
/// a failed run never leaves a partial file.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let tmp = temp_path(path);
    std::fs::write(&tmp, bytes).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        format!("{}: {e}", path.display())
    })?;
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        format!("{}: {e}", path.display())
    })
}

fn temp_path(path: &Path) -> PathBuf {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    path.with_file_name(format!(".{name}.partial-{}", std::process::id()))
}

/// Files of one `nanotransport replay`.
#[derive(Clone, Debug)]
pub struct ReplayFiles {
    pub input: PathBuf,
    pub output: PathBuf,
    pub messages: Option<PathBuf>,
    pub send: Option<PathBuf>,
}

/// Reads and checks every input, replays, and only then writes the outputs (each through a
/// temporary file): any error leaves no output file behind.
pub fn replay_files(files: &ReplayFiles, opts: &ReplayOptions) -> Result<ReplayReport, String> {
    replay_files_checked(files, opts).map(|(report, _)| report)
}

/// [`replay_files`], with the whole-NIC checker's verdict on the run.
pub fn replay_files_checked(
    files: &ReplayFiles,
    opts: &ReplayOptions,
) -> Result<(ReplayReport, nanotransport_reference::nic_checker::CheckReport), String> {
    let input = read_pcap(&files.input)?;
    let sends = match &files.send {
        Some(p) => {
            let text = std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()))?;
            parse_timed_sends(&text).map_err(|e| format!("{}: {e}", p.display()))?
        }
        None => Vec::new(),
    };
    let outcome = replay_timed(&input, &sends, opts)?;
    let out = output_pcap(&outcome.tx_frames, opts.nic.params().clock)?;
    let lines: String = outcome.delivered.iter().map(|m| message_json(m) + "\n").collect();
    write_atomically(&files.output, &out)?;
    if let Some(p) = &files.messages {
        write_atomically(p, lines.as_bytes())?;
    }
    let check = nanotransport_reference::nic_checker::check(&outcome.trace);
    Ok((outcome.report, check))
}
