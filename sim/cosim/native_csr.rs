//! Natively stepped AXI4-Lite register file and status bank, with their ports named as in the
//! generated Verilog.

use crate::native_dut;

native_dut!(nanotransport_hdl::nic::csr::AxiLiteCsr, clocked: true,
    inputs: [reset, axil.awaddr, axil.awvalid, axil.wdata, axil.wstrb, axil.wvalid, axil.bready,
             axil.araddr, axil.arvalid, axil.rready, status_value],
    outputs: [axil.awready, axil.wready, axil.bresp, axil.bvalid, axil.arready, axil.rdata,
              axil.rresp, axil.rvalid, cfg, status_index, error_count]);

native_dut!(nanotransport_hdl::nic::status_bank::StatusBank, clocked: false,
    inputs: [index, map_version, protocol_id, messages, datapath_bits, frame_count, not_ipv4_count,
             wrong_protocol_count, too_short_count, bad_checksum_count, bad_flags_count, data_count, chop_count,
             control_count, no_action_count, bad_length_count, rx_fail_count, duplicate_data_count, forwarded_count, bad_frame_length_count,
             offset_range_count, grant_sent_count, ack_sent_count, nack_sent_count, sched_inserts_count,
             sched_removes_count, sched_unknown_removes_count, sched_fifo_enters_count, sched_levels,
             fail_zero_len_count, fail_too_long_count, fail_bad_offset_count, fail_len_mismatch_count,
             fail_no_id_count, fail_no_buffer_count, fail_bucket_full_count, rx_duplicate_count,
             recent_duplicate_count, class_fallback_count, drop_stale_count, drop_bad_offset_count,
             drop_duplicate_count, drop_bad_length_count, gc_count, rx_stale_timeout_count, rx_delivered_count,
             rx_busy_slots, rx_busy_any, delivered_set_full_wait_count, rejected_msg_count, framing_error_count, stale_delivered_count,
             stale_credit_count, tx_stale_timeout_count, ack_beyond_count, rtx_beyond_count, credit_beyond_count,
             tx_delivered_msg_count, abandoned_msg_count, write_busy_count, buffer_double_free_count,
             event_overflow_count, tx_active_slots, tx_active_any, buffer_flags, tx_cooling_slots, ctrl_sent_count, pull_sent_count,
             merged_count, pull_coalesced_count, ctrl_dropped_count, pull_replaced_count, arbiter_ctrl_packet_count,
             arbiter_data_packet_count, tx_frame_count, tx_length_mismatch_count, csr_error_count],
    outputs: [value]);
