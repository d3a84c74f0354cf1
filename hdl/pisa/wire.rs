//! Byte offsets of the 64-byte nanoTransport header on the wire (Ethernet 14 + IPv4 20 +
//! transport 30), shared by the parser and the deparser.
//!
//! Not a hardware block (no ports, no latency): constants only. Multi-byte fields are big-endian (network order).
//! The transport fields come in the prototype's order, with `pull_offset 16 (NDP) | grant_offset 16 +
//! grant_prio 8 (Homa)` as alternatives; the union takes its larger size (3 bytes) so every field
//! after it sits at the same offset for every protocol: NDP leaves byte 44 zero.
//!
//! | bytes | field |
//! |-------|-------|
//! | 0–5   | destination MAC |
//! | 6–11  | source MAC |
//! | 12–13 | EtherType 0x0800 |
//! | 14    | version 4, IHL 5 (0x45) |
//! | 15    | TOS |
//! | 16–17 | IPv4 total length (20 + 30 + payload) |
//! | 18–19 | identification |
//! | 20–21 | flags / fragment offset (0) |
//! | 22    | TTL |
//! | 23    | protocol (NDP 155, Homa 154) |
//! | 24–25 | header checksum |
//! | 26–29 | source IPv4 |
//! | 30–33 | destination IPv4 |
//! | 34    | flags (DATA 0x01, ACK 0x02, NACK 0x04, PULL/GRANT 0x08, CHOP 0x10) |
//! | 35–36 | src_context |
//! | 37–38 | dst_context |
//! | 39–40 | msg_len (bytes) |
//! | 41    | pkt_offset |
//! | 42–43 | pull_offset (NDP) / grant_offset (Homa) |
//! | 44    | grant_prio (Homa; 0 in NDP) |
//! | 45–46 | tx_msg_id |
//! | 47–48 | buf_ptr |
//! | 49    | buf_size_class |
//! | 50–63 | padding (zero on TX, ignored on RX) |

pub const HEADER_BYTES: usize = 64;
pub const ETH_HEADER_BYTES: usize = 14;
pub const IPV4_HEADER_BYTES: usize = 20;
pub const TRANSPORT_HEADER_BYTES: usize = 30;
/// Smallest Ethernet frame without FCS.
pub const MIN_FRAME_BYTES: usize = 60;
pub const ETHERTYPE_IPV4: u16 = 0x0800;
pub const NDP_IP_PROTOCOL: u8 = 155;
pub const HOMA_IP_PROTOCOL: u8 = 154;

pub const OFF_DST_MAC: usize = 0;
pub const OFF_SRC_MAC: usize = 6;
pub const OFF_ETHERTYPE: usize = 12;
pub const OFF_VERSION_IHL: usize = 14;
pub const OFF_TOS: usize = 15;
pub const OFF_TOTAL_LEN: usize = 16;
pub const OFF_IDENT: usize = 18;
pub const OFF_FRAG: usize = 20;
pub const OFF_TTL: usize = 22;
pub const OFF_PROTOCOL: usize = 23;
pub const OFF_CHECKSUM: usize = 24;
pub const OFF_SRC_IP: usize = 26;
pub const OFF_DST_IP: usize = 30;
pub const OFF_FLAGS: usize = 34;
pub const OFF_SRC_CONTEXT: usize = 35;
pub const OFF_DST_CONTEXT: usize = 37;
pub const OFF_MSG_LEN: usize = 39;
pub const OFF_PKT_OFFSET: usize = 41;
pub const OFF_PULL_OFFSET: usize = 42;
pub const OFF_GRANT_PRIO: usize = 44;
pub const OFF_TX_MSG_ID: usize = 45;
pub const OFF_BUF_PTR: usize = 47;
pub const OFF_BUF_SIZE_CLASS: usize = 49;

pub const FLAG_DATA: u8 = 0x01;
pub const FLAG_ACK: u8 = 0x02;
pub const FLAG_NACK: u8 = 0x04;
pub const FLAG_PULL: u8 = 0x08;
pub const FLAG_CHOP: u8 = 0x10;
