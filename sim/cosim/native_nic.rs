//! Natively stepped whole-NIC tops (and the blocks the whole-NIC tests pair on their own), for
//! [`crate::cosim::ports::Lockstep`]: a whole NIC's rust-hdl block beside its Verilator model,
//! driven by [`crate::nic::NicSim`] like the model alone.

use crate::native_dut;

/// Registers a whole-NIC type (every preset has the same ports) as a native DUT.
macro_rules! nic_dut {
    ($($ty:ty),*) => {
        $(native_dut!($ty, clocked: true,
    inputs: [reset, s_axis_rx_tdata, s_axis_rx_tkeep, s_axis_rx_tlast, s_axis_rx_tvalid, m_axis_tx_tready,
             m_axis_msg_tready, s_axis_msg_tdata, s_axis_msg_tkeep, s_axis_msg_tlast, s_axis_msg_tvalid, done_ready,
             s_axil_awaddr, s_axil_awvalid, s_axil_wdata, s_axil_wstrb, s_axil_wvalid, s_axil_bready, s_axil_araddr,
             s_axil_arvalid, s_axil_rready],
    outputs: [s_axis_rx_tready, m_axis_tx_tdata, m_axis_tx_tkeep, m_axis_tx_tlast, m_axis_tx_tvalid, m_axis_msg_tdata,
              m_axis_msg_tkeep, m_axis_msg_tlast, m_axis_msg_tvalid, s_axis_msg_tready, msg_id_valid, msg_id, done_valid,
              done_tx_msg_id, done_abandoned, s_axil_awready, s_axil_wready, s_axil_bresp, s_axil_bvalid, s_axil_arready,
              s_axil_rdata, s_axil_rresp, s_axil_rvalid, probe_ingress_tvalid, probe_ingress_tready, probe_ingress_tlast,
              probe_pkt_tvalid, probe_pkt_tready, probe_pkt_tlast]);)*
    };
}

nic_dut!(
    nanotransport_hdl::protocols::ndp::ingress::NdpNic<16, 4, 4, 17>,
    nanotransport_hdl::protocols::ndp::ingress::NdpNic<64, 6, 5, 17>,
    nanotransport_hdl::protocols::homa::ingress::HomaNic<32, 5, 4, 17>,
    nanotransport_hdl::protocols::ndp::ingress::NdpNic<128, 7, 6, 17>,
    nanotransport_hdl::protocols::homa::ingress::HomaNic<16, 4, 4, 17>,
    nanotransport_hdl::protocols::homa::ingress::HomaNic<128, 7, 6, 17>
);

native_dut!(nanotransport_hdl::board::board_nic::NdpBoardNic<16, 4, 4, 17>, clocked: true,
    inputs: [reset, rx_axis_tdata, rx_axis_tkeep, rx_axis_tlast, rx_axis_tvalid, rx_axis_tuser, tx_axis_tready, link_up,
             s_axil_awaddr, s_axil_awvalid, s_axil_wdata, s_axil_wstrb, s_axil_wvalid, s_axil_bready, s_axil_araddr,
             s_axil_arvalid, s_axil_rready],
    outputs: [tx_axis_tdata, tx_axis_tkeep, tx_axis_tlast, tx_axis_tvalid, tx_axis_tuser, s_axil_awready, s_axil_wready,
              s_axil_bresp, s_axil_bvalid, s_axil_arready, s_axil_rdata, s_axil_rresp, s_axil_rvalid, rx_frame_count,
              rx_bad_frame_count, rx_overflow_count, tx_frame_count, tx_overflow_count, echoed_count, completed_count,
              abandoned_count, malformed_count]);

native_dut!(nanotransport_hdl::pisa::ingress_front::IngressFront<4>, clocked: true,
    inputs: [reset, s_axis.tdata, s_axis.tkeep, s_axis.tlast, s_axis.tvalid, req.ready, resp.valid, resp.fail,
             resp.rx_msg_id, resp.is_new_msg, resp.is_new_pkt, resp.is_last_pkt, resp.ack_no, m_axis.tready],
    outputs: [s_axis.tready, req.valid, req.mark_received, req.peek, req.src_ip, req.src_port, req.tx_msg_id, req.msg_len,
              req.pkt_offset, m_axis.tdata, m_axis.tkeep, m_axis.tlast, m_axis.tvalid, m_axis.remote_ip,
              m_axis.remote_port, m_axis.msg_len, m_axis.pkt_offset, m_axis.local_port,
              m_axis.rx_msg_id, m_axis.tx_msg_id, m_axis.is_last_pkt, act.valid, act.action, act.meta,
              done.valid, done.action, done.meta, done.ok, done.live, done.forward, done.slot, done.gen, done.is_new_msg,
              done.is_new_pkt, done.is_last_pkt, done.ack_no, frame_count, not_ipv4_count, wrong_protocol_count,
              too_short_count, bad_checksum_count, bad_flags_count, data_count, chop_count, control_count,
              no_action_count, bad_length_count, rx_fail_count, duplicate_data_count, forwarded_count, bad_frame_length_count]);

native_dut!(nanotransport_hdl::protocols::homa::egress::HomaEgress<16, 4>, clocked: true,
    inputs: [reset, rtt_pkts, cfg_unsched_prios, prio_wr.valid, prio_wr.index, prio_wr.value, s_axis_pkt.tdata,
             s_axis_pkt.tkeep, s_axis_pkt.tlast, s_axis_pkt.tvalid, s_axis_pkt.remote_ip, s_axis_pkt.remote_port,
             s_axis_pkt.msg_len, s_axis_pkt.pkt_offset, s_axis_pkt.local_port, s_axis_pkt.tx_msg_id, s_axis_pkt.credit,
             s_axis_pkt.rank, s_axis_pkt.flags, s_axis_pkt.is_new_msg, s_axis_pkt.is_rtx, m_axis_pkt.tready],
    outputs: [s_axis_pkt.tready, m_axis_pkt.tdata, m_axis_pkt.tkeep, m_axis_pkt.tlast, m_axis_pkt.tvalid,
              m_axis_pkt.remote_ip, m_axis_pkt.remote_port, m_axis_pkt.msg_len, m_axis_pkt.pkt_offset,
              m_axis_pkt.local_port, m_axis_pkt.tx_msg_id, m_axis_pkt.credit, m_axis_pkt.rank, m_axis_pkt.flags,
              m_axis_pkt.is_new_msg, m_axis_pkt.is_rtx]);
