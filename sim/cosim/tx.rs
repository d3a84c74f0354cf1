//! Transmit-path blocks in co-simulation: their natively stepped rust-hdl models (for lockstep)
//! and typed adapters over their Verilator models, speaking the reference models' types.

use crate::cosim::verilated::{PortId, VerilatedModel};
use crate::model::packetization::{Completion, CoreCounters, CoreInputs, CoreOutputs, PacketDesc};
use crate::native_dut;
use nanotransport_hdl::nic::packetization::Packetization16;
use nanotransport_hdl::nic::tx_path::TxPath16;
use nanotransport_hdl::nic::arbiter::Arbiter;

native_dut!(Packetization16, clocked: true,
    inputs: [reset, default_credit, timeout_threshold, new_valid, new_slot, new_remote_ip, new_remote_port,
        new_local_port, new_msg_len, new_credit_valid, new_credit, new_rank, dlv_valid, dlv_tx_msg_id,
        dlv_ack_bitmap, ctx_valid, ctx_tx_msg_id, ctx_rtx_flag, ctx_rtx_bitmap, ctx_credit_flag, ctx_new_credit,
        ctx_allow_tx, ctx_raise_only, to_valid, to_slot, to_meta, pkt_ready],
    outputs: [new_ready, new_tx_msg_id, to_ready, sched_valid, sched_slot, sched_meta, cancel_valid, cancel_slot,
        pkt_valid, pkt_slot, pkt_remote_ip, pkt_remote_port, pkt_msg_len, pkt_offset, pkt_local_port,
        pkt_tx_msg_id, pkt_credit, pkt_rank, pkt_flags, pkt_is_new_msg, pkt_is_rtx, done_valid, done_slot,
        done_tx_msg_id, done_abandoned, active, stale_delivered_count, stale_credit_count, stale_timeout_count,
        ack_beyond_count, rtx_beyond_count, credit_beyond_count, write_busy_count, delivered_msg_count,
        abandoned_msg_count]);

native_dut!(TxPath16, clocked: true,
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
        buffer_double_free_count, buffers_exhausted]);

native_dut!(Arbiter, clocked: true,
    inputs: [reset, ctrl_burst_limit, s_axis_ctrl_tdata, s_axis_ctrl_tkeep, s_axis_ctrl_tlast, s_axis_ctrl_tvalid, s_axis_ctrl_remote_ip, s_axis_ctrl_remote_port, s_axis_ctrl_msg_len, s_axis_ctrl_pkt_offset, s_axis_ctrl_local_port, s_axis_ctrl_tx_msg_id, s_axis_ctrl_credit, s_axis_ctrl_rank, s_axis_ctrl_flags, s_axis_ctrl_is_new_msg, s_axis_ctrl_is_rtx, s_axis_data_tdata, s_axis_data_tkeep, s_axis_data_tlast, s_axis_data_tvalid, s_axis_data_remote_ip, s_axis_data_remote_port, s_axis_data_msg_len, s_axis_data_pkt_offset, s_axis_data_local_port, s_axis_data_tx_msg_id, s_axis_data_credit, s_axis_data_rank, s_axis_data_flags, s_axis_data_is_new_msg, s_axis_data_is_rtx, m_axis_tready],
    outputs: [s_axis_ctrl_tready, s_axis_data_tready, m_axis_tdata, m_axis_tkeep, m_axis_tlast, m_axis_tvalid, m_axis_remote_ip, m_axis_remote_port, m_axis_msg_len, m_axis_pkt_offset, m_axis_local_port, m_axis_tx_msg_id, m_axis_credit, m_axis_rank, m_axis_flags, m_axis_is_new_msg, m_axis_is_rtx, ctrl_packet_count, data_packet_count]);

/// The packetization core's Verilator model, driven with [`CoreInputs`] and read as [`CoreOutputs`].
pub struct VerilatedPacketization {
    pub model: VerilatedModel,
    ports: Vec<PortId>,
}

const CORE_PORTS: &[&str] = &[
    "reset", "default_credit", "timeout_threshold", "new_valid", "new_slot", "new_remote_ip", "new_remote_port",
    "new_local_port", "new_msg_len", "new_credit_valid", "new_credit", "new_rank", "dlv_valid", "dlv_tx_msg_id",
    "dlv_ack_bitmap", "ctx_valid", "ctx_tx_msg_id", "ctx_rtx_flag", "ctx_rtx_bitmap", "ctx_credit_flag",
    "ctx_new_credit", "ctx_allow_tx", "ctx_raise_only", "to_valid", "to_slot", "to_meta", "pkt_ready",
    // outputs from index 27
    "new_ready", "new_tx_msg_id", "to_ready", "sched_valid", "sched_slot", "sched_meta", "cancel_valid",
    "cancel_slot", "pkt_valid", "pkt_slot", "pkt_remote_ip", "pkt_remote_port", "pkt_msg_len", "pkt_offset",
    "pkt_local_port", "pkt_tx_msg_id", "pkt_credit", "pkt_rank", "pkt_flags", "pkt_is_new_msg", "pkt_is_rtx",
    "done_valid", "done_slot", "done_tx_msg_id", "done_abandoned", "active", "stale_delivered_count",
    "stale_credit_count", "stale_timeout_count", "ack_beyond_count", "rtx_beyond_count", "credit_beyond_count",
    "write_busy_count", "delivered_msg_count", "abandoned_msg_count",
];

impl VerilatedPacketization {
    /// `name`: the generated module, e.g. `nt_nic_16_packetization`.
    pub fn new(name: &str) -> Self {
        let model = VerilatedModel::new(name).unwrap();
        let ports = CORE_PORTS.iter().map(|p| model.port_or_panic(p)).collect();
        VerilatedPacketization { model, ports }
    }

    /// Applies one cycle's inputs, reads the outputs shown before the edge, then clocks.
    pub fn cycle(&mut self, i: &CoreInputs) -> CoreOutputs {
        let o = self.apply(i);
        self.model.tick();
        o
    }

    /// Applies inputs and reads the outputs without clocking.
    pub fn apply(&mut self, i: &CoreInputs) -> CoreOutputs {
        let w = i.new.unwrap_or_default();
        let (d_id, d_bits) = i.delivered.unwrap_or((0, 0));
        let c = i.credit.unwrap_or_default();
        let (t_slot, t_meta) = i.timeout.unwrap_or((0, 0));
        let values: [u64; 27] = [
            i.reset as u64,
            i.default_credit as u64,
            i.timeout_threshold as u64,
            i.new.is_some() as u64,
            if i.new.is_some() { w.slot } else { i.idle_slot } as u64,
            w.remote_ip as u64,
            w.remote_port as u64,
            w.local_port as u64,
            w.msg_len as u64,
            w.credit.is_some() as u64,
            w.credit.unwrap_or(0) as u64,
            w.rank as u64,
            i.delivered.is_some() as u64,
            d_id as u64,
            d_bits,
            i.credit.is_some() as u64,
            c.tx_msg_id as u64,
            c.rtx.is_some() as u64,
            c.rtx.unwrap_or(0),
            c.new_credit.is_some() as u64,
            c.new_credit.unwrap_or(0) as u64,
            c.allow_tx as u64,
            c.raise_only as u64,
            i.timeout.is_some() as u64,
            t_slot as u64,
            t_meta as u64,
            i.pkt_ready as u64,
        ];
        for (k, v) in values.iter().enumerate() {
            self.model.set(self.ports[k], *v);
        }
        self.model.eval();
        let g = |k: usize| self.model.get(self.ports[27 + k]);
        CoreOutputs {
            new_ready: g(0) == 1,
            new_tx_msg_id: g(1) as u16,
            to_ready: g(2) == 1,
            sched: (g(3) == 1).then(|| (g(4) as u32, g(5) as u32)),
            cancel: (g(6) == 1).then(|| g(7) as u32),
            packet: (g(8) == 1).then(|| PacketDesc {
                slot: g(9) as u32,
                remote_ip: g(10) as u32,
                remote_port: g(11) as u16,
                msg_len: g(12) as u16,
                pkt_offset: g(13) as u8,
                local_port: g(14) as u16,
                tx_msg_id: g(15) as u16,
                credit: g(16) as u16,
                rank: g(17) as u8,
                flags: g(18) as u8,
                is_new_msg: g(19) == 1,
                is_rtx: g(20) == 1,
            }),
            done: (g(21) == 1).then(|| Completion { slot: g(22) as u32, tx_msg_id: g(23) as u16, abandoned: g(24) == 1 }),
            active: g(25),
            counters: CoreCounters {
                stale_delivered: g(26) as u16,
                stale_credit: g(27) as u16,
                stale_timeout: g(28) as u16,
                ack_beyond: g(29) as u16,
                rtx_beyond: g(30) as u16,
                credit_beyond: g(31) as u16,
                write_busy: g(32) as u16,
                delivered_msgs: g(33) as u16,
                abandoned_msgs: g(34) as u16,
            },
        }
    }
}
