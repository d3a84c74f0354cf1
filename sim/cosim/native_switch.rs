//! Natively stepped switch blocks (Bolt, PL2), with their ports named as in the generated Verilog.

use crate::native_dut;
use nanotransport_hdl::switch::bolt_ingress::BoltIngress;

native_dut!(BoltIngress<64, 6>, clocked: true,
    inputs: [reset, now, in_valid, in_bolt, in_flags, in_pkt_len, in_ingress_port, in_egress_port, in_queue_bytes, cfg_mtu,
             cfg_cc_thresh, cfg_pru_enable, cfg_sm_enable],
    outputs: [out_valid, out_drop, out_flags, out_src, out_q_size, out_link_rate, out_ingress_port, out_egress_port,
              out_pkt_len, out_pru_token, out_supply_token, bad_port_count, not_bolt_count, src_count,
              pru_token_count, pru_grant_count, supply_grant_count]);

native_dut!(nanotransport_hdl::switch::bolt_stream::BoltStream<64, 6>, clocked: true,
    inputs: [reset, now, cfg_mtu, cfg_cc_thresh, cfg_pru_enable, cfg_sm_enable, s_axis.tdata, s_axis.tkeep, s_axis.tlast,
             s_axis.tvalid, s_axis_tuser, m_axis.tready, m_src_axis.tready],
    outputs: [s_axis.tready, m_axis.tdata, m_axis.tkeep, m_axis.tlast, m_axis.tvalid, m_src_axis.tdata, m_src_axis.tkeep,
              m_src_axis.tlast, m_src_axis.tvalid, m_src_axis_tdest, bad_port_count, not_bolt_count, src_count,
              pru_token_count, pru_grant_count, supply_grant_count, not_ipv4_count, wrong_protocol_count,
              too_short_count, src_sent_count, src_dropped_count, length_mismatch_count]);

native_dut!(nanotransport_hdl::switch::pl2_reservation::Pl2Reservation<64, 6>, clocked: true,
    inputs: [reset, cfg_max_demand, cfg_unsolicited_limit, in_valid, in_kind, in_src_port, in_dst_port, in_demand],
    outputs: [out_valid, out_kind, out_src_port, out_dst_port, out_drop, out_grant, out_demand, out_send_timeslot,
              out_recv_timeslot, rsv_count, data_count, refused_count, bad_port_count, bad_demand_count, clamped_count,
              underflow_count, saturated_count]);

native_dut!(nanotransport_hdl::switch::timeslot_counters::TimeslotCounters<64, 6>, clocked: true,
    inputs: [reset, req_valid, req_port, req_op, req_amount, req_limit],
    outputs: [resp_valid, resp_old, resp_saturated, resp_underflow, resp_refused]);
