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

native_dut!(nanotransport_hdl::pisa::ingress_front::IngressFront<4>, clocked: true,
    inputs: [reset, s_axis_tdata, s_axis_tkeep, s_axis_tlast, s_axis_tvalid, req_ready, resp_valid, resp_fail,
             resp_rx_msg_id, resp_announce_new_msg, resp_is_new_pkt, resp_is_last_pkt, resp_ack_no, m_axis_tready],
    outputs: [s_axis_tready, req_valid, req_mark_received, req_peek, req_src_ip, req_src_port, req_tx_msg_id, req_msg_len,
              req_pkt_offset, m_axis_tdata, m_axis_tkeep, m_axis_tlast, m_axis_tvalid, m_axis_meta_remote_ip,
              m_axis_meta_remote_port, m_axis_meta_msg_len, m_axis_meta_pkt_offset, m_axis_meta_local_port,
              m_axis_meta_rx_msg_id, m_axis_meta_tx_msg_id, m_axis_meta_is_last_pkt, act_valid, act_action, act_meta,
              done_valid, done_action, done_meta, done_ok, done_live, done_forward, done_slot, done_gen, done_is_new_msg,
              done_is_new_pkt, done_is_last_pkt, done_ack_no, frame_count, not_ipv4_count, wrong_protocol_count,
              too_short_count, bad_checksum_count, bad_flags_count, data_count, chop_count, control_count,
              no_action_count, bad_length_count, rx_fail_count, duplicate_data_count, forwarded_count, bad_frame_length_count]);

native_dut!(nanotransport_hdl::protocols::homa::egress::HomaEgress<16, 4>, clocked: true,
    inputs: [reset, rtt_pkts, cfg_unsched_prios, prio_wr_valid, prio_wr_index, prio_wr_value, s_axis_pkt_tdata,
             s_axis_pkt_tkeep, s_axis_pkt_tlast, s_axis_pkt_tvalid, s_axis_pkt_remote_ip, s_axis_pkt_remote_port,
             s_axis_pkt_msg_len, s_axis_pkt_pkt_offset, s_axis_pkt_local_port, s_axis_pkt_tx_msg_id, s_axis_pkt_credit,
             s_axis_pkt_rank, s_axis_pkt_flags, s_axis_pkt_is_new_msg, s_axis_pkt_is_rtx, m_axis_pkt_tready],
    outputs: [s_axis_pkt_tready, m_axis_pkt_tdata, m_axis_pkt_tkeep, m_axis_pkt_tlast, m_axis_pkt_tvalid,
              m_axis_pkt_remote_ip, m_axis_pkt_remote_port, m_axis_pkt_msg_len, m_axis_pkt_pkt_offset,
              m_axis_pkt_local_port, m_axis_pkt_tx_msg_id, m_axis_pkt_credit, m_axis_pkt_rank, m_axis_pkt_flags,
              m_axis_pkt_is_new_msg, m_axis_pkt_is_rtx]);
