//! Transaction-level reference model of Bolt's switch ingress logic: Algorithm 7 with
//! Algorithm 9 (thesis §4.3), one call per packet descriptor; MTU, CC_THRESH, PRU and SM as the
//! block's configuration inputs are driven (`BoltParams`).
//!
//! Written from the algorithms with plain signed integers, independently of the hardware's
//! biased encoding; the widths are the block's (PRU token 16 bits saturating, supply token
//! saturating at −2^23 and capped at one MTU, 32-bit nanosecond time wrapping).

use nanotransport_hdl::switch::bolt_header::{FLAG_DATA, FLAG_DEC, FLAG_FIRST, FLAG_INC, FLAG_LAST, Q_SIZE_MAX};
use nanotransport_hdl::switch::bolt_ingress::{BoltParams, TOKEN_BIAS};

/// One packet as the ingress sees it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Descriptor {
    /// The frame carries a Bolt header (IPv4, protocol 153, long enough).
    pub bolt: bool,
    pub flags: u8,
    /// Ethernet frame bytes without FCS.
    pub pkt_len: u16,
    pub ingress_port: u8,
    pub egress_port: u8,
    /// Egress queue occupancy, bytes.
    pub queue_bytes: u32,
    /// Nanosecond clock (wraps at 2^32).
    pub now: u32,
}

/// What the ingress does with it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Decision {
    /// Egress port out of range: dropped.
    pub drop: bool,
    pub flags: u8,
    pub src: bool,
    /// The SRC's `q_size` (occupancy, saturated to 24 bits).
    pub q_size: u32,
    /// The egress port's rate code.
    pub link_rate: u8,
    /// Data packets: the port's PRU token after this packet (else 0).
    pub pru_token: u16,
    /// Data packets: the port's supply token after this packet, in bytes (else 0).
    pub supply_token: i32,
}

impl Decision {
    /// The supply token as the hardware outputs it (biased by 2^23; 0 when not a data packet).
    pub fn supply_token_stored(&self, data: bool) -> u32 {
        if data {
            (self.supply_token as i64 + TOKEN_BIAS) as u32
        } else {
            0
        }
    }
}

#[derive(Clone, Copy, Debug, Default)]
struct PortState {
    pru_token: u16,
    supply_token: i32,
    last_sm_time: Option<u32>,
}

/// Event counts, as the block's counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BoltCounts {
    pub bad_port: u32,
    pub not_bolt: u32,
    pub src: u32,
    pub pru_token: u32,
    pub pru_grant: u32,
    pub supply_grant: u32,
}

/// The model.
pub struct BoltModel {
    params: BoltParams,
    ports: Vec<PortState>,
    pub counts: BoltCounts,
}

const TOKEN_FLOOR: i64 = -(1 << 23);
/// Inter-arrival times at or above this set the supply token to its cap (§4.4.1).
pub const IDLE_NS: u32 = 65_536;

impl BoltModel {
    pub fn new(params: BoltParams) -> Self {
        let ports = vec![PortState::default(); params.port_rates.len()];
        BoltModel { params, ports, counts: BoltCounts::default() }
    }

    /// Every port forgets its state; counters cleared (the block's reset).
    pub fn reset(&mut self) {
        *self = BoltModel::new(self.params.clone());
    }

    /// Algorithm 9: supply token update for a data packet on `port`.
    fn calculate_supply_token(&mut self, port: usize, d: &Descriptor) {
        let mtu = self.params.mtu as i64;
        let gbps = self.params.port_rates[port].gbps as i64;
        let s = &mut self.ports[port];
        let inter_arrival = s.last_sm_time.map(|t| d.now.wrapping_sub(t));
        s.last_sm_time = Some(d.now);
        s.supply_token = match inter_arrival {
            // First packet since reset, or idle ≥ 65 536 ns: straight to the cap.
            None => mtu as i32,
            Some(ia) if ia >= IDLE_NS => mtu as i32,
            Some(ia) => {
                // BW × inter-arrival in whole bytes: Gb/s × ns / 8.
                let supply = gbps * ia as i64 / 8;
                let demand = d.pkt_len as i64;
                let token = (s.supply_token as i64 + supply - demand).max(TOKEN_FLOOR);
                token.min(mtu) as i32
            }
        };
    }

    /// Algorithm 7 for one packet.
    pub fn ingress(&mut self, d: &Descriptor) -> Decision {
        let port = d.egress_port as usize;
        if port >= self.ports.len() {
            self.counts.bad_port += 1;
            return Decision { drop: true, ..self.forwarded(d) };
        }
        if !d.bolt {
            self.counts.not_bolt += 1;
            return self.forwarded(d);
        }
        let mut flags = d.flags;
        if flags & FLAG_DATA == 0 {
            return self.forwarded(d);
        }
        self.calculate_supply_token(port, d);
        let mtu = self.params.mtu as i32;
        let mut src = false;
        let s = &mut self.ports[port];
        if d.queue_bytes >= self.params.cc_thresh {
            if flags & FLAG_DEC == 0 {
                src = true;
                flags |= FLAG_DEC;
                flags &= !FLAG_INC;
                self.counts.src += 1;
            }
        } else if flags & FLAG_LAST != 0 && self.params.pru {
            if flags & FLAG_FIRST == 0 {
                s.pru_token = s.pru_token.saturating_add(1);
                self.counts.pru_token += 1;
            }
        } else if flags & FLAG_INC != 0 {
            if s.pru_token > 0 && self.params.pru {
                s.pru_token -= 1;
                self.counts.pru_grant += 1;
            } else if s.supply_token >= mtu && self.params.sm {
                s.supply_token -= mtu;
                self.counts.supply_grant += 1;
            } else {
                flags &= !FLAG_INC;
            }
        }
        Decision {
            drop: false,
            flags,
            src,
            q_size: d.queue_bytes.min(Q_SIZE_MAX),
            link_rate: self.params.port_rates[port].code,
            pru_token: s.pru_token,
            supply_token: s.supply_token,
        }
    }

    fn forwarded(&self, d: &Descriptor) -> Decision {
        let link_rate = self.params.port_rates.get(d.egress_port as usize).map(|r| r.code).unwrap_or(0);
        Decision {
            drop: false,
            flags: d.flags,
            src: false,
            q_size: d.queue_bytes.min(Q_SIZE_MAX),
            link_rate,
            pru_token: 0,
            supply_token: 0,
        }
    }
}

// ---------------------------------------------------------------- frames

use nanotransport_hdl::switch::bolt_header::{BOLT_HEADER_BYTES, BOLT_IP_PROTOCOL, BOLT_OFFSET, FLAG_SRC};

/// Ethernet minimum frame length without FCS.
pub const MIN_FRAME: usize = 60;

/// Bytes of an SRC packet carrying `trailing` bytes after its Bolt header: Ethernet, IPv4,
/// Bolt header and the trailing bytes, padded with zeros to the 60-byte Ethernet minimum.
pub fn src_bytes(trailing: usize) -> usize {
    (BOLT_OFFSET + BOLT_HEADER_BYTES + trailing).max(MIN_FRAME)
}

/// The IPv4 header checksum (RFC 1071) of `header` with its checksum field taken as zero.
pub fn ipv4_checksum(header: &[u8]) -> u16 {
    let mut sum = 0u32;
    for (i, pair) in header.chunks(2).enumerate() {
        if i != 5 {
            sum += u16::from_be_bytes([pair[0], *pair.get(1).unwrap_or(&0)]) as u32;
        }
    }
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// Why a frame is not a Bolt frame, as the stream wrapper counts it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NotBolt {
    NotIpv4,
    WrongProtocol,
    TooShort,
}

/// Classifies a frame as the stream wrapper's parser does: EtherType 0x0800, first IPv4 byte
/// 0x45, protocol 153, IPv4 total length ≥ 29 and the whole Bolt header present.
pub fn classify(frame: &[u8]) -> Result<(), NotBolt> {
    let byte = |i: usize| frame.get(i).copied();
    if frame.len() < 15 || byte(12) != Some(0x08) || byte(13) != Some(0x00) || byte(14) != Some(0x45) {
        return Err(NotBolt::NotIpv4);
    }
    if frame.len() < 24 || byte(23) != Some(BOLT_IP_PROTOCOL) {
        return Err(NotBolt::WrongProtocol);
    }
    let total_len = u16::from_be_bytes([frame[16], frame[17]]);
    if total_len < 29 || frame.len() < BOLT_OFFSET + BOLT_HEADER_BYTES {
        return Err(NotBolt::TooShort);
    }
    Ok(())
}

/// The IPv4 total length field as the wrapper reads it (0 for frames it does not take as IPv4).
fn ipv4_total_len(frame: &[u8]) -> u16 {
    if frame.len() >= 18 && classify(frame) != Err(NotBolt::NotIpv4) {
        u16::from_be_bytes([frame[16], frame[17]])
    } else {
        0
    }
}

/// The demand the wrapper charges for `frame`: the Ethernet frame length without FCS that its
/// IPv4 header implies, max(60, 14 + total length), saturating at 65 535.
pub fn frame_demand(frame: &[u8]) -> u16 {
    (14 + ipv4_total_len(frame) as u32).clamp(MIN_FRAME as u32, 65_535) as u16
}

/// A Bolt frame whose length (saturating at 65 535) is not the demand its IPv4 header implies:
/// the wrapper counts it in `length_mismatch_count` (its decision was made on the demand).
pub fn length_mismatch(frame: &[u8]) -> bool {
    classify(frame).is_ok() && frame.len().min(65_535) != frame_demand(frame) as usize
}

/// The descriptor the stream wrapper gives the core for `frame`.
pub fn frame_descriptor(frame: &[u8], ingress: u8, egress: u8, queue_bytes: u32, now: u32) -> Descriptor {
    let bolt = classify(frame).is_ok();
    Descriptor {
        bolt,
        flags: frame.get(38).copied().unwrap_or(0),
        pkt_len: frame_demand(frame),
        ingress_port: ingress,
        egress_port: egress,
        queue_bytes,
        now,
    }
}

/// The frame as forwarded: the Bolt flags byte rewritten (for Bolt frames), else untouched.
pub fn forwarded_frame(frame: &[u8], decision: &Decision) -> Vec<u8> {
    let mut out = frame.to_vec();
    if out.len() > 38 {
        out[38] = decision.flags;
    }
    out
}

/// The SRC packet for a data frame carrying `trailing` bytes after the Bolt header (see the
/// stream wrapper's rustdoc for each field). Of those, only bytes inside both the frame and the
/// IPv4 packet (14 + total length) are copied; the rest, and the padding to 60, are zero.
pub fn src_frame(frame: &[u8], decision: &Decision, trailing: usize) -> Vec<u8> {
    let b = |i: usize| frame.get(i).copied().unwrap_or(0);
    let bolt_end = BOLT_OFFSET + BOLT_HEADER_BYTES;
    let mut s = vec![0u8; src_bytes(trailing)];
    for i in 0..6 {
        s[i] = b(6 + i);
        s[6 + i] = b(i);
    }
    s[12] = 0x08;
    s[13] = 0x00;
    s[14] = 0x45;
    s[15] = b(15);
    s[16..18].copy_from_slice(&((bolt_end + trailing - 14) as u16).to_be_bytes());
    s[18] = b(18);
    s[19] = b(19);
    s[22] = 64;
    s[23] = BOLT_IP_PROTOCOL;
    for i in 0..4 {
        s[26 + i] = b(30 + i);
        s[30 + i] = b(26 + i);
    }
    let csum = ipv4_checksum(&s[14..34]);
    s[24..26].copy_from_slice(&csum.to_be_bytes());
    s[34..37].copy_from_slice(&decision.q_size.to_be_bytes()[1..]);
    s[37] = decision.link_rate;
    s[38] = (b(38) & !FLAG_DATA) | FLAG_SRC;
    for i in 39..bolt_end {
        s[i] = b(i);
    }
    let packet_end = 14 + ipv4_total_len(frame) as usize;
    for i in bolt_end..bolt_end + trailing {
        if i < packet_end {
            s[i] = b(i);
        }
    }
    s
}

/// A Bolt frame: Ethernet, IPv4 (protocol 153, checksum set), the Bolt header, then `payload`.
pub fn bolt_frame(macs: ([u8; 6], [u8; 6]), ips: ([u8; 4], [u8; 4]), flags: u8, t_data_tx: u32, payload: &[u8]) -> Vec<u8> {
    let mut f = Vec::with_capacity(43 + payload.len());
    f.extend_from_slice(&macs.0);
    f.extend_from_slice(&macs.1);
    f.extend_from_slice(&[0x08, 0x00]);
    let total = (20 + BOLT_HEADER_BYTES + payload.len()) as u16;
    let mut ip = [0u8; 20];
    ip[0] = 0x45;
    ip[1] = 0x00;
    ip[2..4].copy_from_slice(&total.to_be_bytes());
    ip[4..6].copy_from_slice(&0x1234u16.to_be_bytes());
    ip[8] = 32;
    ip[9] = BOLT_IP_PROTOCOL;
    ip[12..16].copy_from_slice(&ips.0);
    ip[16..20].copy_from_slice(&ips.1);
    let c = ipv4_checksum(&ip);
    ip[10..12].copy_from_slice(&c.to_be_bytes());
    f.extend_from_slice(&ip);
    f.extend_from_slice(&[0, 0, 0, 0, flags]);
    f.extend_from_slice(&t_data_tx.to_be_bytes());
    f.extend_from_slice(payload);
    f
}
