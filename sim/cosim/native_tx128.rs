//! The natively stepped 128-message transmit path and its packetization core (for lockstep),
//! ports named as in Verilog.

use crate::native_dut;
use nanotransport_hdl::nic::packetization_128::Packetization128;
use nanotransport_hdl::nic::tx_path_128::TxPath128;

native_dut!(TxPath128, clocked: true,
    inputs: [reset, default_credit, timeout_threshold, rto_cycles, s_axis_msg_tdata, s_axis_msg_tkeep,
        s_axis_msg_tlast, s_axis_msg_tvalid, done_ready, dlv_valid, dlv_tx_msg_id, dlv_ack_bitmap, ctx_valid,
        ctx_tx_msg_id, ctx_rtx_flag, ctx_rtx_bitmap, ctx_credit_flag, ctx_new_credit, ctx_allow_tx, ctx_raise_only,
        m_axis_pkt_tready],
    outputs: [s_axis_msg_tready, msg_id_valid, msg_id, done_valid, done_tx_msg_id, done_abandoned,
        m_axis_pkt_tdata, m_axis_pkt_tkeep, m_axis_pkt_tlast, m_axis_pkt_tvalid, m_axis_pkt_remote_ip,
        m_axis_pkt_remote_port, m_axis_pkt_msg_len, m_axis_pkt_pkt_offset, m_axis_pkt_local_port,
        m_axis_pkt_tx_msg_id, m_axis_pkt_credit, m_axis_pkt_rank, m_axis_pkt_flags, m_axis_pkt_is_new_msg,
        m_axis_pkt_is_rtx, active, buffers_all_free, rejected_msg_count, framing_error_count,
        stale_delivered_count, stale_credit_count, stale_timeout_count, ack_beyond_count, rtx_beyond_count,
        credit_beyond_count, delivered_msg_count, abandoned_msg_count, write_busy_count,
        buffer_double_free_count, buffers_exhausted, event_overflow_count]);

native_dut!(Packetization128, clocked: true,
    inputs: [reset, default_credit, timeout_threshold, new_valid, new_slot, new_remote_ip, new_remote_port,
        new_local_port, new_msg_len, new_credit_valid, new_credit, new_rank, dlv_valid, dlv_tx_msg_id,
        dlv_ack_bitmap, ctx_valid, ctx_tx_msg_id, ctx_rtx_flag, ctx_rtx_bitmap, ctx_credit_flag, ctx_new_credit,
        ctx_allow_tx, ctx_raise_only, to_valid, to_slot, to_meta, pkt_ready],
    outputs: [new_ready, new_id_valid, new_id, to_ready, sched_valid, sched_slot, sched_meta, cancel_valid,
        cancel_slot, pkt_valid, pkt_slot, pkt_remote_ip, pkt_remote_port, pkt_msg_len, pkt_offset, pkt_local_port,
        pkt_tx_msg_id, pkt_credit, pkt_rank, pkt_flags, pkt_is_new_msg, pkt_is_rtx, pkt_q1_valid, pkt_q1_slot,
        done_valid, done_tx_msg_id, done_abandoned, active, stale_delivered_count, stale_credit_count,
        stale_timeout_count, ack_beyond_count, rtx_beyond_count, credit_beyond_count, write_busy_count,
        delivered_msg_count, abandoned_msg_count, event_overflow_count]);
