//! Ethernet + IPv4 framing shared by the behavioural hosts (TCP, PL2).

use nanotransport_hdl::pisa::wire::{
    ETHERTYPE_IPV4, ETH_HEADER_BYTES, IPV4_HEADER_BYTES, MIN_FRAME_BYTES, OFF_CHECKSUM, OFF_DST_IP, OFF_ETHERTYPE, OFF_PROTOCOL,
    OFF_SRC_IP, OFF_TOS, OFF_TOTAL_LEN, OFF_VERSION_IHL,
};
use nanotransport_reference::pisa::ipv4_sum;

/// Where the IPv4 payload starts.
pub const OFF_IPV4_PAYLOAD: usize = ETH_HEADER_BYTES + IPV4_HEADER_BYTES;

/// A frame of Ethernet (MACs made from the IPv4 addresses) and IPv4 (don't fragment, TTL 64,
/// a valid header checksum) with `payload_bytes` of zeroed IPv4 payload; padded to the 60-byte
/// minimum.
pub fn frame(src_ip: u32, dst_ip: u32, tos: u8, protocol: u8, payload_bytes: usize) -> Vec<u8> {
    let mut f = vec![0u8; (OFF_IPV4_PAYLOAD + payload_bytes).max(MIN_FRAME_BYTES)];
    f[0..2].copy_from_slice(&[0x02, 0]);
    f[2..6].copy_from_slice(&dst_ip.to_be_bytes());
    f[6..8].copy_from_slice(&[0x02, 0]);
    f[8..12].copy_from_slice(&src_ip.to_be_bytes());
    f[OFF_ETHERTYPE..OFF_ETHERTYPE + 2].copy_from_slice(&ETHERTYPE_IPV4.to_be_bytes());
    f[OFF_VERSION_IHL] = 0x45;
    f[OFF_TOS] = tos;
    let ip_len = (IPV4_HEADER_BYTES + payload_bytes) as u16;
    f[OFF_TOTAL_LEN..OFF_TOTAL_LEN + 2].copy_from_slice(&ip_len.to_be_bytes());
    f[OFF_TOTAL_LEN + 4] = 0x40; // don't fragment
    f[OFF_TOTAL_LEN + 6] = 64; // TTL
    f[OFF_PROTOCOL] = protocol;
    f[OFF_SRC_IP..OFF_SRC_IP + 4].copy_from_slice(&src_ip.to_be_bytes());
    f[OFF_DST_IP..OFF_DST_IP + 4].copy_from_slice(&dst_ip.to_be_bytes());
    let ip_sum = !ipv4_sum(&f[ETH_HEADER_BYTES..OFF_IPV4_PAYLOAD]);
    f[OFF_CHECKSUM..OFF_CHECKSUM + 2].copy_from_slice(&ip_sum.to_be_bytes());
    f
}

/// The IPv4 protocol of a frame, if it is long enough to carry an IPv4 header.
pub fn protocol(f: &[u8]) -> Option<u8> {
    (f.len() >= OFF_IPV4_PAYLOAD && f[OFF_ETHERTYPE..OFF_ETHERTYPE + 2] == ETHERTYPE_IPV4.to_be_bytes()).then(|| f[OFF_PROTOCOL])
}
