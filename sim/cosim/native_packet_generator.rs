//! Natively stepped packet generator, with its ports named as in the generated Verilog.

use crate::native_dut;

macro_rules! packet_generator_dut {
    ($($n:literal, $iw:literal);*) => {$(
        native_dut!(nanotransport_hdl::nic::packet_generator::PacketGenerator<$n, $iw, 3>, clocked: true,
            inputs: [reset, cfg_pace_cycles, cfg_bucket_max, ev.valid, ev.msg_id, ev.msg_gen, ev.ctrl_flags, ev.pull, ev.remote_ip,
                     ev.remote_port, ev.local_port, ev.msg_len, ev.pkt_offset, ev.tx_msg_id, ev.rank, ev.credit, m_axis.tready],
            outputs: [m_axis.tdata, m_axis.tkeep, m_axis.tlast, m_axis.tvalid, m_axis.remote_ip, m_axis.remote_port,
                      m_axis.local_port, m_axis.msg_len, m_axis.pkt_offset, m_axis.tx_msg_id, m_axis.rank, m_axis.credit,
                      m_axis.flags, m_axis.is_new_msg, m_axis.is_rtx, ctrl_sent_count, pull_sent_count, merged_count, pull_coalesced_count, pull_replaced_count,
                      dropped_count]);
    )*};
}
packet_generator_dut!(16, 4; 128, 7);
