//! The Bolt header (thesis Listing 4.1) and its place in a frame.
//!
//! Not a hardware block (no ports, no latency): constants shared by the Bolt blocks, their reference model and tests.
//!
//! The 9-byte header follows the IPv4 header directly (IPv4 protocol number
//! [`BOLT_IP_PROTOCOL`]); whatever follows it (the host transport header and payload) is passed
//! through untouched. Fields in wire order, big-endian, P4 packing (first-declared bit is the MSB):
//!
//! | bytes | field       | bits | meaning                                   |
//! |-------|-------------|------|-------------------------------------------|
//! | 0–2   | `q_size`    | 24   | queue occupancy stamped by the switch (B) |
//! | 3     | `link_rate` | 8    | rate code of the congested link           |
//! | 4     | flags       | 8    | data, ack, src, last, first, inc, dec, reserved (MSB first) |
//! | 5–8   | `t_data_tx` | 32   | TX timestamp of the data packet           |

/// IPv4 protocol number of Bolt frames: 153 (unassigned by IANA; the project's NDP uses 155 and
/// Homa 154, so all three are told apart by the protocol byte alone).
pub const BOLT_IP_PROTOCOL: u8 = 153;
/// Bytes of the Bolt header.
pub const BOLT_HEADER_BYTES: usize = 9;
/// Ethernet header bytes (no VLAN tag).
pub const ETH_HEADER_BYTES: usize = 14;
/// IPv4 header bytes (no options; frames with options are not Bolt frames to the parser).
pub const IPV4_HEADER_BYTES: usize = 20;
/// Offset of the Bolt header in a frame.
pub const BOLT_OFFSET: usize = ETH_HEADER_BYTES + IPV4_HEADER_BYTES;

/// Flag bits inside the flags byte (Listing 4.1 order, first field = most significant bit).
pub const FLAG_DATA: u8 = 0x80;
pub const FLAG_ACK: u8 = 0x40;
pub const FLAG_SRC: u8 = 0x20;
pub const FLAG_LAST: u8 = 0x10;
pub const FLAG_FIRST: u8 = 0x08;
pub const FLAG_INC: u8 = 0x04;
pub const FLAG_DEC: u8 = 0x02;
pub const FLAG_RESERVED: u8 = 0x01;

/// Bit positions of the flags above (for `get_bit` in hardware).
pub const BIT_DATA: usize = 7;
pub const BIT_SRC: usize = 5;
pub const BIT_LAST: usize = 4;
pub const BIT_FIRST: usize = 3;
pub const BIT_INC: usize = 2;
pub const BIT_DEC: usize = 1;

/// Largest `q_size` the 24-bit field can carry; larger occupancies saturate to it.
pub const Q_SIZE_MAX: u32 = (1 << 24) - 1;
