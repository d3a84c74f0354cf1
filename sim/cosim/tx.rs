//! Transmit-path blocks in co-simulation: their natively stepped rust-hdl models (for lockstep)
//! and typed adapters over their Verilator models, speaking the reference models' types.

use crate::cosim::verilated::{PortId, VerilatedModel};
use crate::native_dut;
use nanotransport_hdl::nic::arbiter::Arbiter;
use nanotransport_hdl::nic::packetization::Packetization;
use nanotransport_hdl::nic::tx_path::{TxPath, TX_PAYLOAD_ADDR_BITS};
use nanotransport_reference::packetization::{Completion, CoreCounters, CreditTx, NewMessage, PacketDesc};
use std::collections::HashMap;

/// The native transmit-path blocks of one size (the port lists are the same at every size).
macro_rules! native_tx_blocks {
    ($n:literal, $iw:literal) => {
        native_dut!(Packetization<$n, $iw>, clocked: true,
            inputs: [reset, default_credit, timeout_threshold, rtx_first_expiry, probe_idle_timeout, new_valid, new_slot, new_remote_ip, new_remote_port,
                new_local_port, new_msg_len, new_credit_valid, new_credit, new_rank, dlv.valid, dlv.tx_msg_id,
                dlv.ack_bitmap, ctx.valid, ctx.tx_msg_id, ctx.rtx_flag, ctx.rtx_bitmap, ctx.credit_flag, ctx.new_credit,
                ctx.allow_tx, ctx.raise_only, to_valid, to_slot, to_meta, pkt.ready],
            outputs: [new_ready, new_id_valid, new_id, to_ready, sched_valid, sched_slot, sched_meta, cancel_valid,
                cancel_slot, pkt.valid, pkt.slot, pkt.remote_ip, pkt.remote_port, pkt.msg_len, pkt.offset, pkt.local_port,
                pkt.tx_msg_id, pkt.credit, pkt.rank, pkt.flags, pkt.is_new_msg, pkt.is_rtx, pkt_q1_valid, pkt_q1_slot, pkt_q2_valid, pkt_q2_slot,
                done_valid, done_tx_msg_id, done_abandoned, active, stale_delivered_count, stale_credit_count,
                stale_timeout_count, ack_beyond_count, rtx_beyond_count, credit_beyond_count, write_busy_count,
                delivered_msg_count, abandoned_msg_count, event_overflow_count]);

        native_dut!(TxPath<$n, $iw, TX_PAYLOAD_ADDR_BITS>, clocked: true,
            inputs: [reset, default_credit, timeout_threshold, rtx_first_expiry, probe_idle_timeout, rto_cycles, s_axis_msg.tdata, s_axis_msg.tkeep,
                s_axis_msg.tlast, s_axis_msg.tvalid, done_ready, dlv.valid, dlv.tx_msg_id, dlv.ack_bitmap, ctx.valid,
                ctx.tx_msg_id, ctx.rtx_flag, ctx.rtx_bitmap, ctx.credit_flag, ctx.new_credit, ctx.allow_tx, ctx.raise_only,
                m_axis_pkt.tready],
            outputs: [s_axis_msg.tready, msg_id_valid, msg_id, done_valid, done_tx_msg_id, done_abandoned,
                m_axis_pkt.tdata, m_axis_pkt.tkeep, m_axis_pkt.tlast, m_axis_pkt.tvalid, m_axis_pkt.remote_ip,
                m_axis_pkt.remote_port, m_axis_pkt.msg_len, m_axis_pkt.pkt_offset, m_axis_pkt.local_port,
                m_axis_pkt.tx_msg_id, m_axis_pkt.credit, m_axis_pkt.rank, m_axis_pkt.flags, m_axis_pkt.is_new_msg,
                m_axis_pkt.is_rtx, active, buffers_all_free, rejected_msg_count, framing_error_count,
                stale_delivered_count, stale_credit_count, stale_timeout_count, ack_beyond_count, rtx_beyond_count,
                credit_beyond_count, delivered_msg_count, abandoned_msg_count, write_busy_count,
                buffer_double_free_count, buffers_exhausted, event_overflow_count, cooling_slots]);
    };
}

native_tx_blocks!(16, 4);
native_tx_blocks!(128, 7);

native_dut!(Arbiter, clocked: true,
    inputs: [reset, ctrl_burst_limit, s_axis_ctrl.tdata, s_axis_ctrl.tkeep, s_axis_ctrl.tlast, s_axis_ctrl.tvalid, s_axis_ctrl.remote_ip, s_axis_ctrl.remote_port, s_axis_ctrl.msg_len, s_axis_ctrl.pkt_offset, s_axis_ctrl.local_port, s_axis_ctrl.tx_msg_id, s_axis_ctrl.credit, s_axis_ctrl.rank, s_axis_ctrl.flags, s_axis_ctrl.is_new_msg, s_axis_ctrl.is_rtx, s_axis_data.tdata, s_axis_data.tkeep, s_axis_data.tlast, s_axis_data.tvalid, s_axis_data.remote_ip, s_axis_data.remote_port, s_axis_data.msg_len, s_axis_data.pkt_offset, s_axis_data.local_port, s_axis_data.tx_msg_id, s_axis_data.credit, s_axis_data.rank, s_axis_data.flags, s_axis_data.is_new_msg, s_axis_data.is_rtx, m_axis.tready],
    outputs: [s_axis_ctrl.tready, s_axis_data.tready, m_axis.tdata, m_axis.tkeep, m_axis.tlast, m_axis.tvalid, m_axis.remote_ip, m_axis.remote_port, m_axis.msg_len, m_axis.pkt_offset, m_axis.local_port, m_axis.tx_msg_id, m_axis.credit, m_axis.rank, m_axis.flags, m_axis.is_new_msg, m_axis.is_rtx, ctrl_packet_count, data_packet_count]);

/// The packetization core's Verilator model driven one operation at a time, as the
/// transaction-level reference model ([`nanotransport_reference::packetization::PacketizationModel`]) is:
/// each operation is offered until the core takes it, then the core runs with the consumer ready
/// until it has been idle for a while; the packets, completions, timer schedules and cancels
/// seen meanwhile are returned.
pub struct VerilatedPacketization {
    pub model: VerilatedModel,
    ports: HashMap<&'static str, PortId>,
    pub cycle: u64,
}

const CORE_INPUTS: &[&str] = &[
    "reset",
    "default_credit",
    "timeout_threshold",
    "new_valid",
    "new_slot",
    "new_remote_ip",
    "new_remote_port",
    "new_local_port",
    "new_msg_len",
    "new_credit_valid",
    "new_credit",
    "new_rank",
    "dlv$valid",
    "dlv$tx_msg_id",
    "dlv$ack_bitmap",
    "ctx$valid",
    "ctx$tx_msg_id",
    "ctx$rtx_flag",
    "ctx$rtx_bitmap",
    "ctx$credit_flag",
    "ctx$new_credit",
    "ctx$allow_tx",
    "ctx$raise_only",
    "to_valid",
    "to_slot",
    "to_meta",
    "pkt$ready",
];
const CORE_OUTPUTS: &[&str] = &[
    "new_ready",
    "new_id_valid",
    "new_id",
    "to_ready",
    "sched_valid",
    "sched_slot",
    "sched_meta",
    "cancel_valid",
    "cancel_slot",
    "pkt$valid",
    "pkt$slot",
    "pkt$remote_ip",
    "pkt$remote_port",
    "pkt$msg_len",
    "pkt$offset",
    "pkt$local_port",
    "pkt$tx_msg_id",
    "pkt$credit",
    "pkt$rank",
    "pkt$flags",
    "pkt$is_new_msg",
    "pkt$is_rtx",
    "done_valid",
    "done_tx_msg_id",
    "done_abandoned",
    "active",
    "stale_delivered_count",
    "stale_credit_count",
    "stale_timeout_count",
    "ack_beyond_count",
    "rtx_beyond_count",
    "credit_beyond_count",
    "write_busy_count",
    "delivered_msg_count",
    "abandoned_msg_count",
    "event_overflow_count",
];

/// An operation offered to the core.
#[derive(Clone, Copy, Debug)]
pub enum CoreOp {
    Install(NewMessage),
    Delivered(u16, u64),
    Credit(CreditTx),
    /// Timer expiry: (slot, meta = tx_msg_id << 8 | maxTxPktOffset+1).
    Timeout(u32, u32),
}

/// What the core did while one operation was applied and the core drained.
#[derive(Clone, Debug, Default)]
pub struct CoreActivity {
    pub new_id: Option<u16>,
    pub packets: Vec<PacketDesc>,
    pub done: Vec<Completion>,
    pub sched: Vec<(u32, u32)>,
    pub cancel: Vec<u32>,
}

impl VerilatedPacketization {
    /// `name`: the generated module, e.g. `nt_blocks_16_packetization`. Resets the core.
    pub fn new(name: &str, default_credit: u16, timeout_threshold: u8) -> Self {
        let model = VerilatedModel::new(name).unwrap();
        let ports = CORE_INPUTS.iter().chain(CORE_OUTPUTS).map(|p| (*p, model.port_or_panic(p))).collect();
        let mut v = VerilatedPacketization { model, ports, cycle: 0 };
        for p in CORE_INPUTS {
            v.set(p, 0);
        }
        v.set("default_credit", default_credit as u64);
        v.set("timeout_threshold", timeout_threshold as u64);
        v.set("reset", 1);
        v.model.eval();
        v.model.tick();
        v.set("reset", 0);
        v.set("pkt$ready", 1);
        v
    }

    fn set(&mut self, name: &str, value: u64) {
        self.model.set(self.ports[name], value);
    }

    pub fn get(&self, name: &str) -> u64 {
        self.model.get(self.ports[name])
    }

    /// The N-bit `active` output, one entry per slot.
    pub fn active(&self) -> Vec<bool> {
        let words = self.model.get_words(self.ports["active"]);
        words.iter().flat_map(|w| (0..64).map(move |k| w >> k & 1 == 1)).collect()
    }

    pub fn counters(&self) -> CoreCounters {
        let g = |n| self.get(n) as u16;
        CoreCounters {
            stale_delivered: g("stale_delivered_count"),
            stale_credit: g("stale_credit_count"),
            stale_timeout: g("stale_timeout_count"),
            ack_beyond: g("ack_beyond_count"),
            rtx_beyond: g("rtx_beyond_count"),
            credit_beyond: g("credit_beyond_count"),
            write_busy: g("write_busy_count"),
            delivered_msgs: g("delivered_msg_count"),
            abandoned_msgs: g("abandoned_msg_count"),
        }
    }

    /// Records this cycle's output pulses (the consumer is always ready).
    fn observe(&self, a: &mut CoreActivity) {
        let g = |n| self.get(n);
        if g("new_id_valid") == 1 {
            a.new_id = Some(g("new_id") as u16);
        }
        if g("pkt$valid") == 1 {
            a.packets.push(PacketDesc {
                slot: g("pkt$slot") as u32,
                remote_ip: g("pkt$remote_ip") as u32,
                remote_port: g("pkt$remote_port") as u16,
                msg_len: g("pkt$msg_len") as u16,
                pkt_offset: g("pkt$offset") as u8,
                local_port: g("pkt$local_port") as u16,
                tx_msg_id: g("pkt$tx_msg_id") as u16,
                credit: g("pkt$credit") as u16,
                rank: g("pkt$rank") as u8,
                flags: g("pkt$flags") as u8,
                is_new_msg: g("pkt$is_new_msg") == 1,
                is_rtx: g("pkt$is_rtx") == 1,
            });
        }
        if g("done_valid") == 1 {
            let id = g("done_tx_msg_id") as u16;
            a.done.push(Completion { slot: 0, tx_msg_id: id, abandoned: g("done_abandoned") == 1 });
        }
        if g("sched_valid") == 1 {
            a.sched.push((g("sched_slot") as u32, g("sched_meta") as u32));
        }
        if g("cancel_valid") == 1 {
            a.cancel.push(g("cancel_slot") as u32);
        }
    }

    /// Offers `op` until the core takes it, then runs until the core has shown nothing for
    /// `quiet` cycles. Completions carry `slot` 0 (the block reports the ID only).
    pub fn apply(&mut self, op: &CoreOp, quiet: u32) -> CoreActivity {
        let mut a = CoreActivity::default();
        let (valid, ready) = match op {
            CoreOp::Install(w) => {
                self.set("new_slot", w.slot as u64);
                self.set("new_remote_ip", w.remote_ip as u64);
                self.set("new_remote_port", w.remote_port as u64);
                self.set("new_local_port", w.local_port as u64);
                self.set("new_msg_len", w.msg_len as u64);
                self.set("new_credit_valid", w.credit.is_some() as u64);
                self.set("new_credit", w.credit.unwrap_or(0) as u64);
                self.set("new_rank", w.rank as u64);
                ("new_valid", Some("new_ready"))
            }
            CoreOp::Delivered(id, bits) => {
                self.set("dlv$tx_msg_id", *id as u64);
                self.set("dlv$ack_bitmap", *bits);
                ("dlv$valid", None)
            }
            CoreOp::Credit(c) => {
                self.set("ctx$tx_msg_id", c.tx_msg_id as u64);
                self.set("ctx$rtx_flag", c.rtx.is_some() as u64);
                self.set("ctx$rtx_bitmap", c.rtx.unwrap_or(0));
                self.set("ctx$credit_flag", c.new_credit.is_some() as u64);
                self.set("ctx$new_credit", c.new_credit.unwrap_or(0) as u64);
                self.set("ctx$allow_tx", c.allow_tx as u64);
                self.set("ctx$raise_only", c.raise_only as u64);
                ("ctx$valid", None)
            }
            CoreOp::Timeout(slot, meta) => {
                self.set("to_slot", *slot as u64);
                self.set("to_meta", *meta as u64);
                ("to_valid", Some("to_ready"))
            }
        };
        self.set(valid, 1);
        for _ in 0..1000 {
            self.model.eval();
            self.observe(&mut a);
            let taken = ready.is_none_or(|r| self.get(r) == 1);
            self.model.tick();
            self.cycle += 1;
            if taken {
                break;
            }
        }
        self.set(valid, 0);
        let mut idle = 0;
        while idle < quiet {
            self.model.eval();
            let before = (a.packets.len(), a.done.len(), a.sched.len(), a.cancel.len(), a.new_id);
            self.observe(&mut a);
            let after = (a.packets.len(), a.done.len(), a.sched.len(), a.cancel.len(), a.new_id);
            idle = if before == after { idle + 1 } else { 0 };
            self.model.tick();
            self.cycle += 1;
        }
        a
    }
}
