//! The natively stepped 128-message transmit path (for lockstep), ports named as in Verilog.

use crate::native_dut;
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
