//! Natively stepped priority scheduler and dual-ported memory, with their ports named as in the
//! generated Verilog.

use crate::native_dut;

macro_rules! priority_scheduler_dut {
    ($($iw:literal),*) => {$(
        native_dut!(nanotransport_hdl::pisa::priority_scheduler::PriorityScheduler<{ 1 << $iw }, $iw>, clocked: true,
            inputs: [reset, cfg_overcommit, cfg_rtt_pkts, op_valid, op_code, op_id, op_remaining, op_received,
                     op_total, op_granted],
            outputs: [res_valid, res_grant, res_id, res_grant_offset, res_position, res_received, res_total,
                      inserts_count, removes_count, unknown_removes_count, grants_count, fifo_enters_count,
                      skipped_arrivals_count, close_arrivals_count, occupancy, fifo_level]);
    )*};
}
priority_scheduler_dut!(4, 7);

macro_rules! dual_port_memory_dut {
    ($($aw:literal),*) => {$(
        native_dut!(nanotransport_hdl::pisa::dual_port_memory::DualPortMemory<8, { 1 << $aw }, $aw>, clocked: true,
            inputs: [reset, wr_valid, wr_index, wr_value, rd_valid, rd_index],
            outputs: [rd_resp_valid, rd_value]);
    )*};
}
dual_port_memory_dut!(4, 7);
