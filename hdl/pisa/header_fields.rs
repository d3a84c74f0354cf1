//! Header fields of the 64-byte nanoTransport header ([`crate::pisa::wire`]): a 512-bit header
//! (byte k at bits 8k+7..8k) → each field as a number (multi-byte fields converted from network
//! order). Wiring only: no logic levels, no state. Both parsers use it
//! ([`crate::pisa::parser::Parser`], [`crate::pisa::wide_parser::WideParser`]).
//!
//! # Ports
//! | port | dir | width | meaning |
//! |------|-----|-------|---------|
//! | `header` | in | 512 | the header's 64 bytes, byte 0 in bits 7..0 |
//! | `hdr_*` | out | 8 / 16 / 32 / 48 | the fields, as the parsers name them |
//!
//! # Latency and throughput
//! Combinational (bit selection only).

use crate::ports;
use rust_hdl::prelude::*;

#[ports(
    in header: Bits<512>;
    out hdr_dst_mac, hdr_src_mac: Bits<48>;
    out hdr_ip_tos, hdr_ip_ttl, hdr_flags, hdr_pkt_offset, hdr_grant_prio, hdr_buf_size_class: Bits<8>;
    out hdr_ip_total_len, hdr_ip_ident, hdr_src_context, hdr_dst_context, hdr_msg_len, hdr_pull_offset, hdr_tx_msg_id,
    hdr_buf_ptr: Bits<16>;
    out hdr_src_ip, hdr_dst_ip: Bits<32>;
)]
#[derive(LogicBlock, Default)]
pub struct HeaderFields {}

impl Logic for HeaderFields {
    #[hdl_gen]
    fn update(&mut self) {
        self.hdr_dst_mac.next = (((bit_cast::<48, 8>(self.header.val().get_bits::<8>(0)) << 40)
            | (bit_cast::<48, 8>(self.header.val().get_bits::<8>(8)) << 32))
            | ((bit_cast::<48, 8>(self.header.val().get_bits::<8>(16)) << 24)
                | (bit_cast::<48, 8>(self.header.val().get_bits::<8>(24)) << 16)))
            | ((bit_cast::<48, 8>(self.header.val().get_bits::<8>(32)) << 8) | bit_cast::<48, 8>(self.header.val().get_bits::<8>(40)));
        self.hdr_src_mac.next = (((bit_cast::<48, 8>(self.header.val().get_bits::<8>(48)) << 40)
            | (bit_cast::<48, 8>(self.header.val().get_bits::<8>(56)) << 32))
            | ((bit_cast::<48, 8>(self.header.val().get_bits::<8>(64)) << 24)
                | (bit_cast::<48, 8>(self.header.val().get_bits::<8>(72)) << 16)))
            | ((bit_cast::<48, 8>(self.header.val().get_bits::<8>(80)) << 8) | bit_cast::<48, 8>(self.header.val().get_bits::<8>(88)));
        self.hdr_ip_tos.next = self.header.val().get_bits::<8>(120);
        self.hdr_ip_total_len.next =
            (bit_cast::<16, 8>(self.header.val().get_bits::<8>(128)) << 8) | bit_cast::<16, 8>(self.header.val().get_bits::<8>(136));
        self.hdr_ip_ident.next =
            (bit_cast::<16, 8>(self.header.val().get_bits::<8>(144)) << 8) | bit_cast::<16, 8>(self.header.val().get_bits::<8>(152));
        self.hdr_ip_ttl.next = self.header.val().get_bits::<8>(176);
        self.hdr_src_ip.next = ((bit_cast::<32, 8>(self.header.val().get_bits::<8>(208)) << 24)
            | (bit_cast::<32, 8>(self.header.val().get_bits::<8>(216)) << 16))
            | ((bit_cast::<32, 8>(self.header.val().get_bits::<8>(224)) << 8) | bit_cast::<32, 8>(self.header.val().get_bits::<8>(232)));
        self.hdr_dst_ip.next = ((bit_cast::<32, 8>(self.header.val().get_bits::<8>(240)) << 24)
            | (bit_cast::<32, 8>(self.header.val().get_bits::<8>(248)) << 16))
            | ((bit_cast::<32, 8>(self.header.val().get_bits::<8>(256)) << 8) | bit_cast::<32, 8>(self.header.val().get_bits::<8>(264)));
        self.hdr_flags.next = self.header.val().get_bits::<8>(272);
        self.hdr_src_context.next =
            (bit_cast::<16, 8>(self.header.val().get_bits::<8>(280)) << 8) | bit_cast::<16, 8>(self.header.val().get_bits::<8>(288));
        self.hdr_dst_context.next =
            (bit_cast::<16, 8>(self.header.val().get_bits::<8>(296)) << 8) | bit_cast::<16, 8>(self.header.val().get_bits::<8>(304));
        self.hdr_msg_len.next =
            (bit_cast::<16, 8>(self.header.val().get_bits::<8>(312)) << 8) | bit_cast::<16, 8>(self.header.val().get_bits::<8>(320));
        self.hdr_pkt_offset.next = self.header.val().get_bits::<8>(328);
        self.hdr_pull_offset.next =
            (bit_cast::<16, 8>(self.header.val().get_bits::<8>(336)) << 8) | bit_cast::<16, 8>(self.header.val().get_bits::<8>(344));
        self.hdr_grant_prio.next = self.header.val().get_bits::<8>(352);
        self.hdr_tx_msg_id.next =
            (bit_cast::<16, 8>(self.header.val().get_bits::<8>(360)) << 8) | bit_cast::<16, 8>(self.header.val().get_bits::<8>(368));
        self.hdr_buf_ptr.next =
            (bit_cast::<16, 8>(self.header.val().get_bits::<8>(376)) << 8) | bit_cast::<16, 8>(self.header.val().get_bits::<8>(384));
        self.hdr_buf_size_class.next = self.header.val().get_bits::<8>(392);
    }
}
