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
