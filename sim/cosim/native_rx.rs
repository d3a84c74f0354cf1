//! Natively stepped receive-path blocks (GetRxMsgInfo, reassembly), ports named as in Verilog.

use crate::native_dut;
use nanotransport_hdl::nic::get_rx_msg_info::GetRxMsgInfo;

native_dut!(GetRxMsgInfo, clocked: true,
    inputs: [reset, req_valid, req_mark_received, req_src_ip, req_src_port, req_tx_msg_id, req_msg_len, req_pkt_offset,
        release_valid, release_slot, release_delivered],
    outputs: [resp_valid, resp_fail, resp_fail_reason, resp_rx_msg_id, resp_is_new_msg, resp_is_new_pkt, resp_is_last_pkt, resp_ack_no,
        sched_valid, sched_slot, sched_gen, slot_valid, slot_gen, slot_msg_len, slot_page, slot_key, free_lists_full,
        fail_zero_len_count, fail_too_long_count, fail_bad_offset_count, fail_len_mismatch_count, fail_no_id_count,
        fail_no_buffer_count, duplicate_count, recent_duplicate_count, class_fallback_count]);

native_dut!(nanotransport_hdl::nic::reassembly::Reassembly, clocked: true,
    inputs: [reset, ingress_timeout, req_valid, req_mark_received, req_src_ip, req_src_port, req_tx_msg_id, req_msg_len, req_pkt_offset,
        s_axis_tdata, s_axis_tkeep, s_axis_tlast, s_axis_tvalid, s_axis_meta_remote_ip, s_axis_meta_remote_port,
        s_axis_meta_msg_len, s_axis_meta_pkt_offset, s_axis_meta_local_port, s_axis_meta_rx_msg_id, s_axis_meta_tx_msg_id,
        s_axis_meta_is_last_pkt, m_axis_tready],
    outputs: [resp_valid, resp_fail, resp_fail_reason, resp_rx_msg_id, resp_is_new_msg, resp_is_new_pkt, resp_is_last_pkt, resp_ack_no,
        s_axis_tready, m_axis_tdata, m_axis_tkeep, m_axis_tlast, m_axis_tvalid, release_valid, release_slot, release_reason,
        busy_slots, free_lists_full, fail_zero_len_count, fail_too_long_count, fail_bad_offset_count, fail_len_mismatch_count,
        fail_no_id_count, fail_no_buffer_count, duplicate_count, recent_duplicate_count, class_fallback_count, drop_stale_count,
        drop_bad_offset_count, drop_duplicate_count, drop_bad_length_count, gc_count, stale_timeout_count, delivered_count]);

native_dut!(nanotransport_hdl::nic::get_rx_msg_info_hashed::GetRxMsgInfoHashed, clocked: true,
    inputs: [reset, req_valid, req_mark_received, req_src_ip, req_src_port, req_tx_msg_id, req_msg_len, req_pkt_offset,
        release_valid, release_slot, release_delivered],
    outputs: [req_ready, resp_valid, resp_fail, resp_fail_reason, resp_rx_msg_id, resp_is_new_msg, resp_is_new_pkt, resp_is_last_pkt,
        resp_ack_no, resp_key, resp_msg_len, resp_page, sched_valid, sched_slot, sched_gen, release_ready, free_lists_full, fail_zero_len_count, fail_too_long_count,
        fail_bad_offset_count, fail_len_mismatch_count, fail_no_id_count, fail_no_buffer_count, fail_bucket_full_count,
        duplicate_count, recent_duplicate_count, class_fallback_count]);

native_dut!(nanotransport_hdl::nic::reassembly_128::Reassembly128, clocked: true,
    inputs: [reset, ingress_timeout, req_valid, req_mark_received, req_src_ip, req_src_port, req_tx_msg_id, req_msg_len, req_pkt_offset,
        s_axis_tdata, s_axis_tkeep, s_axis_tlast, s_axis_tvalid, s_axis_meta_remote_ip, s_axis_meta_remote_port,
        s_axis_meta_msg_len, s_axis_meta_pkt_offset, s_axis_meta_local_port, s_axis_meta_rx_msg_id, s_axis_meta_tx_msg_id,
        s_axis_meta_is_last_pkt, m_axis_tready],
    outputs: [req_ready, resp_valid, resp_fail, resp_fail_reason, resp_rx_msg_id, resp_is_new_msg, resp_is_new_pkt, resp_is_last_pkt,
        resp_ack_no, s_axis_tready, m_axis_tdata, m_axis_tkeep, m_axis_tlast, m_axis_tvalid, release_valid, release_slot, release_reason,
        busy_slots, free_lists_full, fail_zero_len_count, fail_too_long_count, fail_bad_offset_count, fail_len_mismatch_count,
        fail_no_id_count, fail_no_buffer_count, fail_bucket_full_count, duplicate_count, recent_duplicate_count, class_fallback_count,
        drop_stale_count, drop_bad_offset_count, drop_duplicate_count, drop_bad_length_count, gc_count, stale_timeout_count,
        delivered_count]);
