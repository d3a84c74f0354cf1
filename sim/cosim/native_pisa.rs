//! Natively stepped PISA primitives, with their ports named as in the generated Verilog.

use crate::native_dut;

/// The parsers at either width have the same ports.
macro_rules! parser_dut {
    ($($ty:ty),*) => {$(
        native_dut!($ty, clocked: true,
            inputs: [reset, s_axis.tdata, s_axis.tkeep, s_axis.tlast, s_axis.tvalid, m_axis.tready],
            outputs: [s_axis.tready, m_axis.tdata, m_axis.tkeep, m_axis.tlast, m_axis.tvalid, m_axis_tfirst,
                      hdr_dst_mac, hdr_src_mac, hdr_ip_tos, hdr_ip_total_len, hdr_ip_ident, hdr_ip_ttl, hdr_src_ip,
                      hdr_dst_ip, hdr_flags, hdr_src_context, hdr_dst_context, hdr_msg_len, hdr_pkt_offset,
                      hdr_pull_offset, hdr_grant_prio, hdr_tx_msg_id, hdr_buf_ptr, hdr_buf_size_class, frame_count,
                      not_ipv4_count, wrong_protocol_count, too_short_count, bad_checksum_count, bad_flags_count]);
    )*};
}
parser_dut!(nanotransport_hdl::pisa::parser::Parser, nanotransport_hdl::pisa::wide_parser::WideParser);

native_dut!(nanotransport_hdl::pisa::header_fields::HeaderFields, clocked: false,
    inputs: [header],
    outputs: [hdr_dst_mac, hdr_src_mac, hdr_ip_tos, hdr_ip_total_len, hdr_ip_ident, hdr_ip_ttl, hdr_src_ip, hdr_dst_ip,
              hdr_flags, hdr_src_context, hdr_dst_context, hdr_msg_len, hdr_pkt_offset, hdr_pull_offset, hdr_grant_prio,
              hdr_tx_msg_id, hdr_buf_ptr, hdr_buf_size_class]);

/// The deparsers at either width have the same ports.
macro_rules! deparser_dut {
    ($($ty:ty),*) => {$(
        native_dut!($ty, clocked: true,
            inputs: [reset, cfg_own_mac, cfg_peer_mac, cfg_own_ip, meta_remote_ip, meta_remote_port, meta_msg_len,
                     meta_pkt_offset, meta_local_port, meta_tx_msg_id, meta_credit, meta_rank, meta_flags, meta_grant_prio,
                     meta_buf_ptr, meta_buf_size_class, s_axis.tdata, s_axis.tkeep, s_axis.tlast, s_axis.tvalid, m_axis.tready],
            outputs: [s_axis.tready, m_axis.tdata, m_axis.tkeep, m_axis.tlast, m_axis.tvalid, frame_count, length_mismatch_count]);
    )*};
}
deparser_dut!(nanotransport_hdl::pisa::deparser::Deparser, nanotransport_hdl::pisa::wide_deparser::WideDeparser);

native_dut!(nanotransport_hdl::pisa::header_builder::HeaderBuilder, clocked: false,
    inputs: [cfg_own_mac, cfg_peer_mac, cfg_own_ip, meta_remote_ip, meta_remote_port, meta_msg_len, meta_pkt_offset,
             meta_local_port, meta_tx_msg_id, meta_credit, meta_rank, meta_flags, meta_grant_prio, meta_buf_ptr,
             meta_buf_size_class],
    outputs: [header]);

macro_rules! register_extern_dut {
    ($($aw:literal),*) => {$(
        native_dut!(nanotransport_hdl::pisa::register_extern::RegisterExtern<16, $aw>, clocked: true,
            inputs: [reset, req_valid, req_index, req_pred, req_op_true, req_value_true, req_op_false, req_value_false],
            outputs: [resp_valid, resp_index, resp_old, resp_new]);
    )*};
}
register_extern_dut!(4, 7);

/// The match table as generated: the example flags program loaded at reset.
pub type FlagsMatchTable = nanotransport_hdl::pisa::match_action::MatchTable<rust_hdl::prelude::Bits<64>>;

native_dut!(FlagsMatchTable, clocked: true,
    inputs: [reset, in_valid, in_key, in_meta, cfg_write_valid, cfg_write_index, cfg_write_enable, cfg_write_key,
             cfg_write_mask, cfg_write_action],
    outputs: [out_valid, out_hit, out_entry, out_action, out_meta]);
