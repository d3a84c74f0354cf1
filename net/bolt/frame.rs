//! Bolt's frames on the wire: Ethernet, IPv4 with protocol 153, the 9-byte Bolt header of thesis
//! Listing 4.1 ([`nanotransport_hdl::switch::bolt_header`], the layout the switch RTL parses),
//! then a 16-byte transport header of ours, then the payload.
//!
//! | bytes (after the Bolt header) | field |
//! |---|---|
//! | 0–1 | source port (the sender's flow) |
//! | 2–3 | destination port |
//! | 4–7 | data: the byte offset of the payload in its flow; ACK: the next byte expected |
//! | 8–11 | the flow's size in bytes |
//! | 12–15 | reserved (zero) |
//!
//! The switch copies these 16 bytes into an SRC (`bolt-ingress-64p`'s `src_trailing_bytes`), so
//! the sender finds the flow an SRC is about. All fields are big-endian. The Bolt flags' reserved
//! bit (bit 0) carries the authors' AI marker: the one data packet per round trip whose ACK adds
//! a payload to the window ([`crate::bolt::host`]).

use crate::ipv4::{self, OFF_IPV4_PAYLOAD};
use nanotransport_hdl::pisa::wire::{OFF_DST_IP, OFF_SRC_IP};
pub use nanotransport_hdl::switch::bolt_header::{
    BOLT_HEADER_BYTES, BOLT_IP_PROTOCOL, FLAG_ACK, FLAG_DATA, FLAG_DEC, FLAG_FIRST, FLAG_INC, FLAG_LAST, FLAG_RESERVED, FLAG_SRC,
};

/// The authors' per-round-trip additive-increase marker, in Listing 4.1's reserved bit.
pub const FLAG_AI: u8 = FLAG_RESERVED;
/// Bytes of the transport header after the Bolt header.
pub const TRANSPORT_HEADER_BYTES: usize = 16;
/// Where the transport header starts.
pub const OFF_TRANSPORT: usize = OFF_IPV4_PAYLOAD + BOLT_HEADER_BYTES;
/// Headers before the payload: Ethernet, IPv4, Bolt, transport (59 bytes).
pub const FRAME_HEADER_BYTES: usize = OFF_TRANSPORT + TRANSPORT_HEADER_BYTES;

/// A time in ns as Bolt's 32-bit `t_data_tx` carries it (wrapping).
pub fn ns_u32(now_ns: f64) -> u32 {
    (now_ns as u64 & 0xffff_ffff) as u32
}

/// A Bolt frame's headers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BoltFrame {
    pub src_ip: u32,
    pub dst_ip: u32,
    /// Bytes (the switch stamps it into SRCs; ACKs reflect it).
    pub q_size: u32,
    pub link_rate: u8,
    pub flags: u8,
    /// The data packet's transmit time, ns (wraps); SRCs and ACKs reflect it.
    pub t_data_tx: u32,
    pub src_port: u16,
    pub dst_port: u16,
    /// Data: the payload's offset in the flow; ACK: the next byte expected.
    pub seq: u32,
    pub flow_bytes: u32,
}

impl BoltFrame {
    /// The frame with `payload` bytes (zeros) after the headers, padded to 60 bytes.
    pub fn frame(&self, payload: usize) -> Vec<u8> {
        let mut f = ipv4::frame(self.src_ip, self.dst_ip, 0, BOLT_IP_PROTOCOL, BOLT_HEADER_BYTES + TRANSPORT_HEADER_BYTES + payload);
        let b = &mut f[OFF_IPV4_PAYLOAD..FRAME_HEADER_BYTES];
        b[0..3].copy_from_slice(&self.q_size.min(0xff_ffff).to_be_bytes()[1..]);
        b[3] = self.link_rate;
        b[4] = self.flags;
        b[5..9].copy_from_slice(&self.t_data_tx.to_be_bytes());
        b[9..11].copy_from_slice(&self.src_port.to_be_bytes());
        b[11..13].copy_from_slice(&self.dst_port.to_be_bytes());
        b[13..17].copy_from_slice(&self.seq.to_be_bytes());
        b[17..21].copy_from_slice(&self.flow_bytes.to_be_bytes());
        f
    }

    /// The headers of a Bolt frame, and its payload bytes (from the IPv4 total length); `None`
    /// for anything else: another protocol, or too short for both headers.
    pub fn parse(f: &[u8]) -> Option<(BoltFrame, usize)> {
        if ipv4::protocol(f)? != BOLT_IP_PROTOCOL || f.len() < FRAME_HEADER_BYTES {
            return None;
        }
        let ip_len = u16::from_be_bytes([f[16], f[17]]) as usize;
        let payload = (14 + ip_len).checked_sub(FRAME_HEADER_BYTES)?;
        let u32_at = |o: usize| u32::from_be_bytes(f[o..o + 4].try_into().unwrap());
        let u16_at = |o: usize| u16::from_be_bytes([f[o], f[o + 1]]);
        let b = OFF_IPV4_PAYLOAD;
        let frame = BoltFrame {
            src_ip: u32_at(OFF_SRC_IP),
            dst_ip: u32_at(OFF_DST_IP),
            q_size: u32::from_be_bytes([0, f[b], f[b + 1], f[b + 2]]),
            link_rate: f[b + 3],
            flags: f[b + 4],
            t_data_tx: u32_at(b + 5),
            src_port: u16_at(OFF_TRANSPORT),
            dst_port: u16_at(OFF_TRANSPORT + 2),
            seq: u32_at(OFF_TRANSPORT + 4),
            flow_bytes: u32_at(OFF_TRANSPORT + 8),
        };
        Some((frame, payload))
    }
}
