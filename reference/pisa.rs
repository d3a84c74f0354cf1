//! Reference model of the 64-byte nanoTransport header (Ethernet / IPv4 / transport, layout in
//! `nanotransport_hdl::pisa::wire`): encoding, the IPv4 header checksum, and the parser's
//! accept/drop decision per frame.

use nanotransport_hdl::pisa::wire::*;

/// Every header field the parser reports (numbers; network order on the wire).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Header {
    pub dst_mac: u64,
    pub src_mac: u64,
    pub ip_tos: u8,
    pub ip_total_len: u16,
    pub ip_ident: u16,
    pub ip_ttl: u8,
    pub src_ip: u32,
    pub dst_ip: u32,
    pub flags: u8,
    pub src_context: u16,
    pub dst_context: u16,
    pub msg_len: u16,
    pub pkt_offset: u8,
    pub pull_offset: u16,
    pub grant_prio: u8,
    pub tx_msg_id: u16,
    pub buf_ptr: u16,
    pub buf_size_class: u8,
}

/// Why the parser drops a frame (the first reason that applies, in this order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DropReason {
    TooShort,
    NotIpv4,
    WrongProtocol,
    BadChecksum,
    BadFlags,
}

/// One's-complement checksum of an IPv4 header (the checksum field included as it is).
pub fn ipv4_sum(ip_header: &[u8]) -> u16 {
    let mut sum: u32 = ip_header.chunks(2).map(|w| u16::from_be_bytes([w[0], w[1]]) as u32).sum();
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    sum as u16
}

fn put(frame: &mut [u8], off: usize, value: u64, bytes: usize) {
    for i in 0..bytes {
        frame[off + i] = (value >> (8 * (bytes - 1 - i))) as u8;
    }
}

fn get(frame: &[u8], off: usize, bytes: usize) -> u64 {
    (0..bytes).fold(0, |v, i| (v << 8) | frame[off + i] as u64)
}

impl Header {
    /// The 64 header bytes with EtherType IPv4, version/IHL 0x45, protocol `ip_protocol` and a
    /// correct header checksum; `ip_total_len` is written as it is.
    pub fn encode(&self, ip_protocol: u8) -> [u8; HEADER_BYTES] {
        let mut f = [0u8; HEADER_BYTES];
        put(&mut f, OFF_DST_MAC, self.dst_mac, 6);
        put(&mut f, OFF_SRC_MAC, self.src_mac, 6);
        put(&mut f, OFF_ETHERTYPE, ETHERTYPE_IPV4 as u64, 2);
        f[OFF_VERSION_IHL] = 0x45;
        f[OFF_TOS] = self.ip_tos;
        put(&mut f, OFF_TOTAL_LEN, self.ip_total_len as u64, 2);
        put(&mut f, OFF_IDENT, self.ip_ident as u64, 2);
        f[OFF_TTL] = self.ip_ttl;
        f[OFF_PROTOCOL] = ip_protocol;
        put(&mut f, OFF_SRC_IP, self.src_ip as u64, 4);
        put(&mut f, OFF_DST_IP, self.dst_ip as u64, 4);
        f[OFF_FLAGS] = self.flags;
        put(&mut f, OFF_SRC_CONTEXT, self.src_context as u64, 2);
        put(&mut f, OFF_DST_CONTEXT, self.dst_context as u64, 2);
        put(&mut f, OFF_MSG_LEN, self.msg_len as u64, 2);
        f[OFF_PKT_OFFSET] = self.pkt_offset;
        put(&mut f, OFF_PULL_OFFSET, self.pull_offset as u64, 2);
        f[OFF_GRANT_PRIO] = self.grant_prio;
        put(&mut f, OFF_TX_MSG_ID, self.tx_msg_id as u64, 2);
        put(&mut f, OFF_BUF_PTR, self.buf_ptr as u64, 2);
        f[OFF_BUF_SIZE_CLASS] = self.buf_size_class;
        let checksum = !ipv4_sum(&f[ETH_HEADER_BYTES..ETH_HEADER_BYTES + IPV4_HEADER_BYTES]);
        put(&mut f, OFF_CHECKSUM, checksum as u64, 2);
        f
    }

    /// A frame: this header (total length set from the payload) followed by `payload`.
    pub fn frame(&self, ip_protocol: u8, payload: &[u8]) -> Vec<u8> {
        let mut h = *self;
        h.ip_total_len = (IPV4_HEADER_BYTES + TRANSPORT_HEADER_BYTES + payload.len()) as u16;
        let mut f = h.encode(ip_protocol).to_vec();
        f.extend_from_slice(payload);
        f
    }

    /// The fields of a 64-byte header (no checks).
    pub fn decode(f: &[u8]) -> Header {
        Header {
            dst_mac: get(f, OFF_DST_MAC, 6),
            src_mac: get(f, OFF_SRC_MAC, 6),
            ip_tos: f[OFF_TOS],
            ip_total_len: get(f, OFF_TOTAL_LEN, 2) as u16,
            ip_ident: get(f, OFF_IDENT, 2) as u16,
            ip_ttl: f[OFF_TTL],
            src_ip: get(f, OFF_SRC_IP, 4) as u32,
            dst_ip: get(f, OFF_DST_IP, 4) as u32,
            flags: f[OFF_FLAGS],
            src_context: get(f, OFF_SRC_CONTEXT, 2) as u16,
            dst_context: get(f, OFF_DST_CONTEXT, 2) as u16,
            msg_len: get(f, OFF_MSG_LEN, 2) as u16,
            pkt_offset: f[OFF_PKT_OFFSET],
            pull_offset: get(f, OFF_PULL_OFFSET, 2) as u16,
            grant_prio: f[OFF_GRANT_PRIO],
            tx_msg_id: get(f, OFF_TX_MSG_ID, 2) as u16,
            buf_ptr: get(f, OFF_BUF_PTR, 2) as u16,
            buf_size_class: f[OFF_BUF_SIZE_CLASS],
        }
    }
}

/// What the parser does with `frame`: its header and payload, or the reason it is dropped.
pub fn parse(frame: &[u8], ip_protocol: u8) -> Result<(Header, Vec<u8>), DropReason> {
    if frame.len() < HEADER_BYTES || get(frame, OFF_TOTAL_LEN, 2) < 50 {
        return Err(DropReason::TooShort);
    }
    if get(frame, OFF_ETHERTYPE, 2) != ETHERTYPE_IPV4 as u64 || frame[OFF_VERSION_IHL] != 0x45 {
        return Err(DropReason::NotIpv4);
    }
    if frame[OFF_PROTOCOL] != ip_protocol {
        return Err(DropReason::WrongProtocol);
    }
    if ipv4_sum(&frame[ETH_HEADER_BYTES..ETH_HEADER_BYTES + IPV4_HEADER_BYTES]) != 0xffff {
        return Err(DropReason::BadChecksum);
    }
    if frame[OFF_FLAGS] & (FLAG_DATA | FLAG_ACK | FLAG_NACK | FLAG_PULL) == 0 {
        return Err(DropReason::BadFlags);
    }
    Ok((Header::decode(frame), frame[HEADER_BYTES..].to_vec()))
}

/// Egress metadata (thesis Listing 3.2, the wire fields) plus the protocol's own wire fields.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EgressMeta {
    pub remote_ip: u32,
    pub remote_port: u16,
    pub msg_len: u16,
    pub pkt_offset: u8,
    pub local_port: u16,
    pub tx_msg_id: u16,
    pub credit: u16,
    pub rank: u8,
    pub flags: u8,
    pub grant_prio: u8,
    pub buf_ptr: u16,
    pub buf_size_class: u8,
}

/// The NIC's own addresses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NetConfig {
    pub own_mac: u64,
    pub peer_mac: u64,
    pub own_ip: u32,
}

/// Largest payload of a data packet.
pub const MAX_PAYLOAD: usize = 1024;

impl EgressMeta {
    /// Payload length the deparser writes into the IPv4 header: a DATA packet's share of the
    /// message, else the 1-byte dummy payload of a control packet.
    pub fn payload_len(&self) -> usize {
        if self.flags & FLAG_DATA != 0 {
            let rem = self.msg_len.wrapping_sub((self.pkt_offset as u16) << 10) as usize;
            rem.min(MAX_PAYLOAD)
        } else {
            1
        }
    }

    /// The header the deparser writes.
    pub fn header(&self, cfg: &NetConfig) -> Header {
        Header {
            dst_mac: cfg.peer_mac,
            src_mac: cfg.own_mac,
            ip_tos: self.rank << 2,
            ip_total_len: (IPV4_HEADER_BYTES + TRANSPORT_HEADER_BYTES + self.payload_len()) as u16,
            ip_ident: 0,
            ip_ttl: 64,
            src_ip: cfg.own_ip,
            dst_ip: self.remote_ip,
            flags: self.flags,
            src_context: self.local_port,
            dst_context: self.remote_port,
            msg_len: self.msg_len,
            pkt_offset: self.pkt_offset,
            pull_offset: self.credit,
            grant_prio: self.grant_prio,
            tx_msg_id: self.tx_msg_id,
            buf_ptr: self.buf_ptr,
            buf_size_class: self.buf_size_class,
        }
    }
}

/// The frame the deparser sends for `meta` and `payload` (sent as it is, whatever its length).
pub fn deparse(meta: &EgressMeta, cfg: &NetConfig, ip_protocol: u8, payload: &[u8]) -> Vec<u8> {
    let mut f = meta.header(cfg).encode(ip_protocol).to_vec();
    f.extend_from_slice(payload);
    f
}

/// Reference model of the stateful register extern (`hdl/pisa/register_extern.rs`).
#[derive(Clone, Debug)]
pub struct RegisterArray {
    pub entries: Vec<u64>,
    pub width: u32,
}

/// One request to the register extern (ifElseRAW form; the other primitives are encodings).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RegisterRequest {
    pub index: usize,
    pub pred: bool,
    pub op_true: u64,
    pub value_true: u64,
    pub op_false: u64,
    pub value_false: u64,
}

impl RegisterArray {
    pub fn new(entries: usize, width: u32) -> Self {
        RegisterArray { entries: vec![0; entries], width }
    }

    /// Applies one request; returns (old, new).
    pub fn apply(&mut self, r: &RegisterRequest) -> (u64, u64) {
        let mask = if self.width == 64 { u64::MAX } else { (1 << self.width) - 1 };
        let (op, v) = if r.pred { (r.op_true, r.value_true) } else { (r.op_false, r.value_false) };
        let old = self.entries[r.index];
        let new = match op {
            0 => old,
            1 => old.wrapping_add(v) & mask,
            2 => v & mask,
            _ => old.max(v & mask),
        };
        self.entries[r.index] = new;
        (old, new)
    }
}

/// Reference model of the match-action table: the first valid entry with
/// `(key ^ value) & mask == 0` gives (hit, entry, action); else (false, 0, default).
pub fn match_lookup(
    entries: &[Option<nanotransport_hdl::pisa::match_action::MatchEntry>],
    key: u16,
    default_action: u8,
) -> (bool, usize, u8) {
    entries.iter().enumerate().find_map(|(i, e)| e.filter(|e| (key ^ e.value) & e.mask == 0).map(|e| (true, i, e.action))).unwrap_or((
        false,
        0,
        default_action,
    ))
}
