//! PL2's frames on the wire: Ethernet, IPv4 with protocol [`PL2_IP_PROTOCOL`], then a 20-byte PL2
//! header; RSV and GRT are 64-byte frames, a data frame carries its payload after the header.
//!
//! | bytes (after IPv4) | field |
//! |---|---|
//! | 0 | type: 1 RSV, 2 GRT, 3 data |
//! | 1 | flags: bit 0 unsolicited (sent before its GRT, §4.4), bit 1 resent (the scheduled copy of an unsolicited burst), bit 2 encapsulated (the payload is a host's IPv4 packet, [`crate::pl2::layer`]) |
//! | 2 | demand: packets in the burst (a GRT: packets granted) |
//! | 3 | data: index of the packet in its burst |
//! | 4–7 | burst id (per sender) |
//! | 8–11, 12–15 | GRT: sendTimeslot, recvTimeslot (Algorithm 1) |
//! | 16–17 | flow (per sender) |
//! | 18–19 | reserved |
//!
//! A data frame's payload is either a host's IPv4 packet (flag bit 2, under [`crate::pl2::layer`])
//! or a message's packet: the message's creation time (ps, 8 bytes), its id (4 bytes, per
//! sender), its packet count and the packet's index in it (2 bytes each); the rest is filler.
//! RSV and GRT carry the flow and burst id of the burst they reserve; a GRT goes from the switch
//! back to the sender, with the receiver's address as its source.

use crate::ipv4::{self, OFF_IPV4_PAYLOAD};
use nanotransport_hdl::pisa::wire::{OFF_DST_IP, OFF_SRC_IP};

/// IPv4 protocol number of PL2 (253: RFC 3692's experimental number).
pub const PL2_IP_PROTOCOL: u8 = 253;
pub const PL2_HEADER_BYTES: usize = 20;
/// Where a data frame's payload starts.
pub const OFF_PL2_PAYLOAD: usize = OFF_IPV4_PAYLOAD + PL2_HEADER_BYTES;
/// RSV and GRT frames.
pub const CONTROL_FRAME_BYTES: usize = 64;
/// Message fields at the start of a data frame's payload.
pub const MESSAGE_FIELDS_BYTES: usize = 16;

pub const FLAG_UNSOLICITED: u8 = 1;
pub const FLAG_RESENT: u8 = 2;
pub const FLAG_ENCAPSULATED: u8 = 4;

/// The kinds of PL2 frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pl2Type {
    Reserve = 1,
    Grant = 2,
    Data = 3,
}

/// A PL2 header with its frame's addresses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pl2Header {
    pub kind: Pl2Type,
    pub src_ip: u32,
    pub dst_ip: u32,
    pub flags: u8,
    pub demand: u8,
    pub index: u8,
    pub burst: u32,
    pub send_timeslot: u32,
    pub recv_timeslot: u32,
    pub flow: u16,
}

/// The message a data frame belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MessageFields {
    pub created_ps: u64,
    pub id: u32,
    pub packets: u16,
    /// This packet's place in the message.
    pub index: u16,
}

impl Pl2Header {
    pub fn new(kind: Pl2Type, src_ip: u32, dst_ip: u32, flow: u16, burst: u32) -> Self {
        Pl2Header { kind, src_ip, dst_ip, flags: 0, demand: 0, index: 0, burst, send_timeslot: 0, recv_timeslot: 0, flow }
    }

    /// A GRT's chosen timeslot, `max(sendTimeslot, recvTimeslot)` (§4.2.1).
    pub fn chosen_timeslot(&self) -> u32 {
        self.send_timeslot.max(self.recv_timeslot)
    }

    pub fn unsolicited(&self) -> bool {
        self.flags & FLAG_UNSOLICITED != 0
    }

    /// A data frame that may also arrive as another copy (sent unsolicited, or resent).
    pub fn may_be_duplicated(&self) -> bool {
        self.flags & (FLAG_UNSOLICITED | FLAG_RESENT) != 0
    }

    /// The frame: RSV and GRT padded to 64 bytes; data with `payload` bytes after the header,
    /// starting with `message`.
    pub fn frame(&self, payload: usize, message: Option<MessageFields>) -> Vec<u8> {
        let l4 = match self.kind {
            Pl2Type::Data => PL2_HEADER_BYTES + payload.max(MESSAGE_FIELDS_BYTES),
            _ => CONTROL_FRAME_BYTES - OFF_IPV4_PAYLOAD,
        };
        let mut f = ipv4::frame(self.src_ip, self.dst_ip, 0, PL2_IP_PROTOCOL, l4);
        self.write(&mut f);
        if let Some(m) = message {
            let p = &mut f[OFF_PL2_PAYLOAD..OFF_PL2_PAYLOAD + MESSAGE_FIELDS_BYTES];
            p[0..8].copy_from_slice(&m.created_ps.to_be_bytes());
            p[8..12].copy_from_slice(&m.id.to_be_bytes());
            p[12..14].copy_from_slice(&m.packets.to_be_bytes());
            p[14..16].copy_from_slice(&m.index.to_be_bytes());
        }
        f
    }

    /// A data frame carrying `payload` after the header.
    pub fn data_frame(&self, payload: &[u8]) -> Vec<u8> {
        let mut f = ipv4::frame(self.src_ip, self.dst_ip, 0, PL2_IP_PROTOCOL, PL2_HEADER_BYTES + payload.len());
        self.write(&mut f);
        f[OFF_PL2_PAYLOAD..OFF_PL2_PAYLOAD + payload.len()].copy_from_slice(payload);
        f
    }

    fn write(&self, f: &mut [u8]) {
        let h = &mut f[OFF_IPV4_PAYLOAD..OFF_PL2_PAYLOAD];
        h[0] = self.kind as u8;
        h[1] = self.flags;
        h[2] = self.demand;
        h[3] = self.index;
        h[4..8].copy_from_slice(&self.burst.to_be_bytes());
        h[8..12].copy_from_slice(&self.send_timeslot.to_be_bytes());
        h[12..16].copy_from_slice(&self.recv_timeslot.to_be_bytes());
        h[16..18].copy_from_slice(&self.flow.to_be_bytes());
    }

    /// The PL2 header of a frame; `None` for anything else (another protocol, too short, an
    /// unknown type).
    pub fn parse(f: &[u8]) -> Option<Pl2Header> {
        if ipv4::protocol(f)? != PL2_IP_PROTOCOL || f.len() < OFF_PL2_PAYLOAD {
            return None;
        }
        let h = &f[OFF_IPV4_PAYLOAD..OFF_PL2_PAYLOAD];
        let kind = match h[0] {
            1 => Pl2Type::Reserve,
            2 => Pl2Type::Grant,
            3 => Pl2Type::Data,
            _ => return None,
        };
        let u32_at = |b: &[u8], o: usize| u32::from_be_bytes(b[o..o + 4].try_into().unwrap());
        Some(Pl2Header {
            kind,
            src_ip: u32_at(f, OFF_SRC_IP),
            dst_ip: u32_at(f, OFF_DST_IP),
            flags: h[1],
            demand: h[2],
            index: h[3],
            burst: u32_at(h, 4),
            send_timeslot: u32_at(h, 8),
            recv_timeslot: u32_at(h, 12),
            flow: u16::from_be_bytes([h[16], h[17]]),
        })
    }
}

/// The data frames of one burst: `packets` full frames of `message` from its packet
/// `first_packet` on, each carrying its place in the burst and in the message.
#[allow(clippy::too_many_arguments)]
pub fn message_frames(
    src_ip: u32,
    dst_ip: u32,
    flow: u16,
    burst: u32,
    flags: u8,
    message: MessageFields,
    first_packet: u16,
    packets: u8,
) -> Vec<Vec<u8>> {
    (0..packets)
        .map(|i| {
            let h = Pl2Header { flags, demand: packets, index: i, ..Pl2Header::new(Pl2Type::Data, src_ip, dst_ip, flow, burst) };
            h.frame(MAX_PAYLOAD_BYTES, Some(MessageFields { index: first_packet + i as u16, ..message }))
        })
        .collect()
}

/// Largest frame: 1 500-byte IPv4 packets.
pub const MAX_FRAME_BYTES: usize = 1514;
/// Payload bytes a full data frame carries after the PL2 header.
pub const MAX_PAYLOAD_BYTES: usize = MAX_FRAME_BYTES - OFF_PL2_PAYLOAD;

impl MessageFields {
    /// The message fields of a data frame.
    pub fn parse(f: &[u8]) -> Option<MessageFields> {
        let p = f.get(OFF_PL2_PAYLOAD..OFF_PL2_PAYLOAD + MESSAGE_FIELDS_BYTES)?;
        Some(MessageFields {
            created_ps: u64::from_be_bytes(p[0..8].try_into().unwrap()),
            id: u32::from_be_bytes(p[8..12].try_into().unwrap()),
            packets: u16::from_be_bytes([p[12], p[13]]),
            index: u16::from_be_bytes([p[14], p[15]]),
        })
    }
}
