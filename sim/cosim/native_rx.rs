//! Natively stepped receive-path blocks (GetRxMsgInfo, reassembly) at both NIC sizes, ports
//! named as in Verilog.

use crate::native_dut;
use nanotransport_hdl::nic::get_rx_msg_info::GetRxMsgInfo;
use nanotransport_hdl::nic::reassembly::{Reassembly, PAYLOAD_WORD_BITS};

/// The same port lists for the table and the reassembly module of one size.
macro_rules! rx_duts {
    ($table:ty, $reassembly:ty) => {
        native_dut!($table, clocked: true,
            inputs: [reset, req.valid, req.mark_received, req.peek, req.src_ip, req.src_port, req.tx_msg_id, req.msg_len, req.pkt_offset,
                release_valid, release_slot, release_delivered],
            outputs: [req.ready, resp_valid, resp_fail, resp_fail_reason, resp_rx_msg_id, resp_is_new_msg, resp_announce_new_msg, resp_is_new_pkt, resp_is_last_pkt,
                resp_ack_no, resp_key, resp_msg_len, resp_page, sched_valid, sched_slot, sched_gen, release_ready, free_lists_full, counters.fail_zero_len_count, counters.fail_too_long_count,
                counters.fail_bad_offset_count, counters.fail_len_mismatch_count, counters.fail_no_id_count, counters.fail_no_buffer_count, counters.fail_bucket_full_count,
                counters.duplicate_count, counters.recent_duplicate_count, counters.class_fallback_count, counters.full_wait_count]);

        native_dut!($reassembly, clocked: true,
            inputs: [reset, ingress_timeout, req.valid, req.mark_received, req.peek, req.src_ip, req.src_port, req.tx_msg_id, req.msg_len, req.pkt_offset,
                s_axis.tdata, s_axis.tkeep, s_axis.tlast, s_axis.tvalid, s_axis.remote_ip, s_axis.remote_port,
                s_axis.msg_len, s_axis.pkt_offset, s_axis.local_port, s_axis.rx_msg_id, s_axis.tx_msg_id,
                s_axis.is_last_pkt, m_axis.tready],
            outputs: [req.ready, resp.valid, resp.fail, resp_fail_reason, resp.rx_msg_id, resp.is_new_msg, resp.is_new_pkt, resp.is_last_pkt,
                resp.ack_no, s_axis.tready, m_axis.tdata, m_axis.tkeep, m_axis.tlast, m_axis.tvalid, release_valid, release_slot, release_reason,
                busy_slots, free_lists_full, table_counters.fail_zero_len_count, table_counters.fail_too_long_count, table_counters.fail_bad_offset_count, table_counters.fail_len_mismatch_count,
                table_counters.fail_no_id_count, table_counters.fail_no_buffer_count, table_counters.fail_bucket_full_count, table_counters.duplicate_count, table_counters.recent_duplicate_count, table_counters.class_fallback_count,
                drop_stale_count, drop_bad_offset_count, drop_duplicate_count, drop_bad_length_count, gc_count, stale_timeout_count,
                delivered_count, table_counters.full_wait_count]);
    };
}

rx_duts!(GetRxMsgInfo<16, 4, 4>, Reassembly<16, 4, 4, PAYLOAD_WORD_BITS>);
rx_duts!(GetRxMsgInfo<128, 7, 6>, Reassembly<128, 7, 6, PAYLOAD_WORD_BITS>);

/// The delivered set (the presets' and the small one).
macro_rules! delivered_set_dut {
    ($sb:literal) => {
        native_dut!(nanotransport_hdl::nic::delivered_set::DeliveredSet<$sb>, clocked: true,
            inputs: [reset, lookup_valid, lookup_key, insert_valid, insert_key],
            outputs: [ready, found, full_wait_count]);
    };
}

delivered_set_dut!(12);
delivered_set_dut!(4);

native_dut!(nanotransport_hdl::common::key_hash::KeyHash<12>, clocked: false, inputs: [key], outputs: [h0, h1]);
