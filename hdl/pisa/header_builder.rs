//! The 64-byte nanoTransport header ([`crate::pisa::wire`]) a deparser writes, from the NIC's
//! addresses and the egress metadata: byte k at bits 8k+7..8k, multi-byte fields in network order,
//! the IPv4 total length and header checksum (bytes 16–17 and 24–25) zero for the deparser to fill.
//! Wiring only: no logic levels beyond the TOS shift, no state. Both deparsers use it
//! ([`crate::pisa::deparser::Deparser`], [`crate::pisa::wide_deparser::WideDeparser`]); the field
//! values are listed in the 64-bit deparser's rustdoc.
//!
//! # Ports
//! | port | dir | width | meaning |
//! |------|-----|-------|---------|
//! | `cfg_own_mac`, `cfg_peer_mac`, `cfg_own_ip` | in | 48/48/32 | source MAC, destination MAC, source IPv4 |
//! | `meta_*` | in | — | the egress metadata, as the deparsers take it |
//! | `header` | out | 512 | the header, total length and checksum zero |
//!
//! # Latency and throughput
//! Combinational.

use crate::{locals, ports, Blank};
use rust_hdl::prelude::*;

#[ports(
    in cfg_own_mac, cfg_peer_mac: Bits<48>;
    in cfg_own_ip, meta_remote_ip: Bits<32>;
    in meta_remote_port, meta_msg_len, meta_local_port, meta_tx_msg_id, meta_credit, meta_buf_ptr: Bits<16>;
    in meta_pkt_offset, meta_rank, meta_flags, meta_grant_prio, meta_buf_size_class: Bits<8>;
    out header: Bits<512>;
)]
#[locals(
    tos: Bits<8>;
    hdr_eth, hdr_ip, hdr_transport_a, hdr_transport_b: Bits<512>;
)]
#[derive(LogicBlock, Blank)]
pub struct HeaderBuilder {
    eth_ip_start: Constant<Bits<24>>,
    ttl_protocol: Constant<Bits<16>>,
}

impl Default for HeaderBuilder {
    fn default() -> Self {
        Self::new(crate::pisa::wire::NDP_IP_PROTOCOL)
    }
}

impl HeaderBuilder {
    /// A header of IP protocol `ip_protocol` (NDP 155, Homa 154).
    pub fn new(ip_protocol: u8) -> Self {
        Self {
            eth_ip_start: Constant::new(0x08_00_45u64.into()),
            ttl_protocol: Constant::new(((64u64 << 8) | ip_protocol as u64).into()),
            ..Self::blank()
        }
    }
}

impl Logic for HeaderBuilder {
    #[hdl_gen]
    fn update(&mut self) {
        self.tos.next = self.meta_rank.val() << 2;
        self.hdr_eth.next = ((((bit_cast::<512, 8>(self.cfg_peer_mac.val().get_bits::<8>(40)) << 0)
            | (bit_cast::<512, 8>(self.cfg_peer_mac.val().get_bits::<8>(32)) << 8))
            | ((bit_cast::<512, 8>(self.cfg_peer_mac.val().get_bits::<8>(24)) << 16)
                | (bit_cast::<512, 8>(self.cfg_peer_mac.val().get_bits::<8>(16)) << 24)))
            | (((bit_cast::<512, 8>(self.cfg_peer_mac.val().get_bits::<8>(8)) << 32)
                | (bit_cast::<512, 8>(self.cfg_peer_mac.val().get_bits::<8>(0)) << 40))
                | ((bit_cast::<512, 8>(self.cfg_own_mac.val().get_bits::<8>(40)) << 48)
                    | (bit_cast::<512, 8>(self.cfg_own_mac.val().get_bits::<8>(32)) << 56))))
            | ((((bit_cast::<512, 8>(self.cfg_own_mac.val().get_bits::<8>(24)) << 64)
                | (bit_cast::<512, 8>(self.cfg_own_mac.val().get_bits::<8>(16)) << 72))
                | ((bit_cast::<512, 8>(self.cfg_own_mac.val().get_bits::<8>(8)) << 80)
                    | (bit_cast::<512, 8>(self.cfg_own_mac.val().get_bits::<8>(0)) << 88)))
                | (((bit_cast::<512, 8>(self.eth_ip_start.val().get_bits::<8>(16)) << 96)
                    | (bit_cast::<512, 8>(self.eth_ip_start.val().get_bits::<8>(8)) << 104))
                    | (bit_cast::<512, 8>(self.eth_ip_start.val().get_bits::<8>(0)) << 112)));
        self.hdr_ip.next = (((bit_cast::<512, 8>(self.tos.val().get_bits::<8>(0)) << 120)
            | (bit_cast::<512, 8>(self.ttl_protocol.val().get_bits::<8>(8)) << 176))
            | (((bit_cast::<512, 8>(self.ttl_protocol.val().get_bits::<8>(0)) << 184)
                | (bit_cast::<512, 8>(self.cfg_own_ip.val().get_bits::<8>(24)) << 208))
                | ((bit_cast::<512, 8>(self.cfg_own_ip.val().get_bits::<8>(16)) << 216)
                    | (bit_cast::<512, 8>(self.cfg_own_ip.val().get_bits::<8>(8)) << 224))))
            | ((((bit_cast::<512, 8>(self.cfg_own_ip.val().get_bits::<8>(0)) << 232)
                | (bit_cast::<512, 8>(self.meta_remote_ip.val().get_bits::<8>(24)) << 240))
                | ((bit_cast::<512, 8>(self.meta_remote_ip.val().get_bits::<8>(16)) << 248)
                    | (bit_cast::<512, 8>(self.meta_remote_ip.val().get_bits::<8>(8)) << 256)))
                | (bit_cast::<512, 8>(self.meta_remote_ip.val().get_bits::<8>(0)) << 264));
        self.hdr_transport_a.next = (((bit_cast::<512, 8>(self.meta_flags.val().get_bits::<8>(0)) << 272)
            | (bit_cast::<512, 8>(self.meta_local_port.val().get_bits::<8>(8)) << 280))
            | ((bit_cast::<512, 8>(self.meta_local_port.val().get_bits::<8>(0)) << 288)
                | (bit_cast::<512, 8>(self.meta_remote_port.val().get_bits::<8>(8)) << 296)))
            | (((bit_cast::<512, 8>(self.meta_remote_port.val().get_bits::<8>(0)) << 304)
                | (bit_cast::<512, 8>(self.meta_msg_len.val().get_bits::<8>(8)) << 312))
                | ((bit_cast::<512, 8>(self.meta_msg_len.val().get_bits::<8>(0)) << 320)
                    | (bit_cast::<512, 8>(self.meta_pkt_offset.val().get_bits::<8>(0)) << 328)));
        self.hdr_transport_b.next = (((bit_cast::<512, 8>(self.meta_credit.val().get_bits::<8>(8)) << 336)
            | (bit_cast::<512, 8>(self.meta_credit.val().get_bits::<8>(0)) << 344))
            | ((bit_cast::<512, 8>(self.meta_grant_prio.val().get_bits::<8>(0)) << 352)
                | (bit_cast::<512, 8>(self.meta_tx_msg_id.val().get_bits::<8>(8)) << 360)))
            | (((bit_cast::<512, 8>(self.meta_tx_msg_id.val().get_bits::<8>(0)) << 368)
                | (bit_cast::<512, 8>(self.meta_buf_ptr.val().get_bits::<8>(8)) << 376))
                | ((bit_cast::<512, 8>(self.meta_buf_ptr.val().get_bits::<8>(0)) << 384)
                    | (bit_cast::<512, 8>(self.meta_buf_size_class.val().get_bits::<8>(0)) << 392)));
        self.header.next = (self.hdr_eth.val() | self.hdr_ip.val()) | (self.hdr_transport_a.val() | self.hdr_transport_b.val());
    }
}
