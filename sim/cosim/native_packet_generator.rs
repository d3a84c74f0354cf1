//! Natively stepped packet generator, with its ports named as in the generated Verilog.

use crate::native_dut;

macro_rules! packet_generator_dut {
    ($($n:literal, $iw:literal);*) => {$(
        native_dut!(nanotransport_hdl::nic::packet_generator::PacketGenerator<$n, $iw, 3>, clocked: true,
            inputs: [reset, cfg_pace_cycles, cfg_bucket_max, ev_valid, ev_msg_id, ev_msg_gen, ev_ctrl_flags, ev_pull, ev_remote_ip,
                     ev_remote_port, ev_local_port, ev_msg_len, ev_pkt_offset, ev_tx_msg_id, ev_rank, ev_credit, m_axis_tready],
            outputs: [m_axis_tdata, m_axis_tkeep, m_axis_tlast, m_axis_tvalid, m_meta_remote_ip, m_meta_remote_port,
                      m_meta_local_port, m_meta_msg_len, m_meta_pkt_offset, m_meta_tx_msg_id, m_meta_rank, m_meta_credit,
                      m_meta_flags, ctrl_sent_count, pull_sent_count, merged_count, pull_coalesced_count, pull_replaced_count,
                      dropped_count]);
    )*};
}
packet_generator_dut!(16, 4; 128, 7);
