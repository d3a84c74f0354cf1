//! NIC top for Homa and Homa-Tr with 128 messages per direction (thesis §3.3.4, Algorithm 6):
//! the NDP top's structure ([`crate::nic::top::HomaNic128`]: MAC-side and CPU-side streams, the
//! AXI4-Lite registers, the same register map and defaults) with Homa's programs:
//!
//! ```text
//!  MAC RX ─▶ Homa ingress (front, received counter, priority scheduler, message information)
//!              │ GRANT priority → shared priority memory ─┐  │ CtrlPktEvent (GRANT / ACK / NACK)
//!              ▼ dlv / ctx                                 ▼  ▼
//!  CPU ─▶ transmit path ─▶ egress stage (DSCP = message priority) ─▶ arbiter ◀─ packet generator
//!                                                                       └─▶ deparser ─▶ MAC TX
//! ```
//!
//! # Registers
//! As in [`crate::nic::top`], plus 0x30 overcommitment level (messages granted at once; default
//! 3, the thesis prototype's) and 0x34 number of unscheduled priorities U (default 1, the
//! prototype's). The pacing registers are unused (Homa paces nothing). Status registers:
//! [`HOMA_STATUS_REGISTERS`] (the NDP list without `offset_range_count`, with the GRANT / ACK /
//! NACK counts and the scheduler's).
//!
//! # Priorities (0 highest; the switch serves lower values first)
//! * DSCP (IPv4 TOS bits 7–2) of a DATA packet: below `rtt_pkts` (unscheduled) 0 for a message
//!   of at most `rtt_pkts` packets, else U − 1 (the prototype's rule; with U = 1 always 0);
//!   scheduled packets take their message's priority from the last GRANT (U + position), read
//!   from the shared priority memory by the egress stage.
//! * Control packets (GRANT, ACK, NACK) go at priority 0; a GRANT's `grant_prio` field carries
//!   the priority it assigns.
//!
//! # Latency
//! The egress stage adds one register slice on the data path: TX egress (out of packetization
//! → MAC TX) is 1 cycle (Table 3.1: 3); everything else is as in the NDP top. Measured by
//! `nanotransport latency --protocol homa`.

use crate::nic::arbiter::Arbiter;
use crate::nic::csr::AxiLiteCsr;
use crate::nic::packet_generator::PacketGenerator;
use crate::nic::reassembly::Reassembly128;
use crate::nic::tx_path::{TxPath, TX_CLASSES_128, TX_PAYLOAD_ADDR_BITS};
use crate::pisa::deparser::Deparser;
use crate::pisa::wire::HOMA_IP_PROTOCOL;
use crate::pisa::dual_port_memory::DualPortMemory;
use crate::nic::top::*;
use crate::protocols::homa::ingress::HomaIngress128;
use crate::nic::top_homa::HOMA_CONFIG_DEFAULTS;
use rust_hdl::prelude::*;

/// Names of the status registers, in address order (0x100 + 4·i).
pub const HOMA128_STATUS_REGISTERS: [&str; 62] = [
    "frame_count",
    "not_ipv4_count",
    "wrong_protocol_count",
    "too_short_count",
    "bad_checksum_count",
    "bad_flags_count",
    "data_count",
    "chop_count",
    "control_count",
    "no_action_count",
    "bad_length_count",
    "rx_fail_count",
    "duplicate_data_count",
    "forwarded_count",
    "grant_sent_count",
    "ack_sent_count",
    "nack_sent_count",
    "sched_inserts_count",
    "sched_removes_count",
    "sched_unknown_removes_count",
    "sched_fifo_enters_count",
    "sched_levels",
    "fail_bucket_full_count",
    "event_overflow_count",
    "fail_zero_len_count",
    "fail_too_long_count",
    "fail_bad_offset_count",
    "fail_len_mismatch_count",
    "fail_no_id_count",
    "fail_no_buffer_count",
    "rx_duplicate_count",
    "recent_duplicate_count",
    "class_fallback_count",
    "drop_stale_count",
    "drop_bad_offset_count",
    "drop_duplicate_count",
    "drop_bad_length_count",
    "gc_count",
    "rx_stale_timeout_count",
    "rx_delivered_count",
    "rejected_msg_count",
    "framing_error_count",
    "stale_delivered_count",
    "stale_credit_count",
    "tx_stale_timeout_count",
    "ack_beyond_count",
    "rtx_beyond_count",
    "credit_beyond_count",
    "tx_delivered_msg_count",
    "abandoned_msg_count",
    "write_busy_count",
    "buffer_double_free_count",
    "ctrl_sent_count",
    "ctrl_dropped_count",
    "arbiter_ctrl_packet_count",
    "arbiter_data_packet_count",
    "tx_frame_count",
    "tx_length_mismatch_count",
    "csr_error_count",
    "rx_busy_slots",
    "tx_active_slots",
    "buffer_flags"
];

/// Byte address of the homa-128 status register `name`.
pub fn homa128_status_address(name: &str) -> Option<u64> {
    status_address_in(&HOMA128_STATUS_REGISTERS, name)
}

#[derive(LogicBlock)]
pub struct HomaNic128 {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    // MAC RX
    pub s_axis_rx_tdata: Signal<In, Bits<64>>,
    pub s_axis_rx_tkeep: Signal<In, Bits<8>>,
    pub s_axis_rx_tlast: Signal<In, Bit>,
    pub s_axis_rx_tvalid: Signal<In, Bit>,
    pub s_axis_rx_tready: Signal<Out, Bit>,
    // MAC TX
    pub m_axis_tx_tdata: Signal<Out, Bits<64>>,
    pub m_axis_tx_tkeep: Signal<Out, Bits<8>>,
    pub m_axis_tx_tlast: Signal<Out, Bit>,
    pub m_axis_tx_tvalid: Signal<Out, Bit>,
    pub m_axis_tx_tready: Signal<In, Bit>,
    // CPU RX
    pub m_axis_msg_tdata: Signal<Out, Bits<64>>,
    pub m_axis_msg_tkeep: Signal<Out, Bits<8>>,
    pub m_axis_msg_tlast: Signal<Out, Bit>,
    pub m_axis_msg_tvalid: Signal<Out, Bit>,
    pub m_axis_msg_tready: Signal<In, Bit>,
    // CPU TX
    pub s_axis_msg_tdata: Signal<In, Bits<64>>,
    pub s_axis_msg_tkeep: Signal<In, Bits<8>>,
    pub s_axis_msg_tlast: Signal<In, Bit>,
    pub s_axis_msg_tvalid: Signal<In, Bit>,
    pub s_axis_msg_tready: Signal<Out, Bit>,
    pub msg_id_valid: Signal<Out, Bit>,
    pub msg_id: Signal<Out, Bits<16>>,
    pub done_valid: Signal<Out, Bit>,
    pub done_ready: Signal<In, Bit>,
    pub done_tx_msg_id: Signal<Out, Bits<16>>,
    pub done_abandoned: Signal<Out, Bit>,
    // AXI4-Lite
    pub s_axil_awaddr: Signal<In, Bits<12>>,
    pub s_axil_awvalid: Signal<In, Bit>,
    pub s_axil_awready: Signal<Out, Bit>,
    pub s_axil_wdata: Signal<In, Bits<32>>,
    pub s_axil_wstrb: Signal<In, Bits<4>>,
    pub s_axil_wvalid: Signal<In, Bit>,
    pub s_axil_wready: Signal<Out, Bit>,
    pub s_axil_bresp: Signal<Out, Bits<2>>,
    pub s_axil_bvalid: Signal<Out, Bit>,
    pub s_axil_bready: Signal<In, Bit>,
    pub s_axil_araddr: Signal<In, Bits<12>>,
    pub s_axil_arvalid: Signal<In, Bit>,
    pub s_axil_arready: Signal<Out, Bit>,
    pub s_axil_rdata: Signal<Out, Bits<32>>,
    pub s_axil_rresp: Signal<Out, Bits<2>>,
    pub s_axil_rvalid: Signal<Out, Bit>,
    pub s_axil_rready: Signal<In, Bit>,
    // probes
    pub probe_ingress_tvalid: Signal<Out, Bit>,
    pub probe_ingress_tready: Signal<Out, Bit>,
    pub probe_ingress_tlast: Signal<Out, Bit>,
    pub probe_pkt_tvalid: Signal<Out, Bit>,
    pub probe_pkt_tready: Signal<Out, Bit>,
    pub probe_pkt_tlast: Signal<Out, Bit>,

    ingress: HomaIngress128,
    reassembly: Reassembly128,
    tx: TxPath<128, 7, TX_PAYLOAD_ADDR_BITS>,
    pktgen: PacketGenerator<128, 7, 3>,
    arbiter: Arbiter,
    deparser: Deparser,
    csr: AxiLiteCsr,

    cfg: Signal<Local, Bits<512>>,
    tx_flags: Signal<Local, Bits<16>>,
    rx_busy_any: Signal<Local, Bit>,
    tx_active_any: Signal<Local, Bit>,
    msg_prio: DualPortMemory<8, 7>,
    slot_mask: Constant<Bits<16>>,
    eg_valid: DFF<Bit>,
    eg_data: DFF<Bits<64>>,
    eg_keep: DFF<Bits<8>>,
    eg_last: DFF<Bit>,
    eg_remote_ip: DFF<Bits<32>>,
    eg_remote_port: DFF<Bits<16>>,
    eg_msg_len: DFF<Bits<16>>,
    eg_pkt_offset: DFF<Bits<8>>,
    eg_local_port: DFF<Bits<16>>,
    eg_tx_msg_id: DFF<Bits<16>>,
    eg_credit: DFF<Bits<16>>,
    eg_flags: DFF<Bits<8>>,
    eg_is_new_msg: DFF<Bit>,
    eg_is_rtx: DFF<Bit>,
    eg_fresh: DFF<Bit>,
    eg_prio: DFF<Bits<8>>,
    eg_in_ready: Signal<Local, Bit>,
    eg_load: Signal<Local, Bit>,
    eg_mem_prio: Signal<Local, Bits<8>>,
    eg_rank: Signal<Local, Bits<8>>,
    eg_pkts: Signal<Local, Bits<16>>,
    is_data_out: Signal<Local, Bit>,
    sched_levels: Signal<Local, Bits<16>>,
    status_part0: Signal<Local, Bits<2048>>,
    status_part1: Signal<Local, Bits<2048>>,
    status_part2: Signal<Local, Bits<2048>>,
    status_part3: Signal<Local, Bits<2048>>,
    status_part4: Signal<Local, Bits<2048>>,
    status_part5: Signal<Local, Bits<2048>>,
    status_part6: Signal<Local, Bits<2048>>,
    status_part7: Signal<Local, Bits<2048>>,
}

impl HomaNic128 {
    /// Homa (`trimming` false) or Homa-Tr (`trimming` true).
    pub fn new(trimming: bool) -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_axis_rx_tdata: Default::default(),
            s_axis_rx_tkeep: Default::default(),
            s_axis_rx_tlast: Default::default(),
            s_axis_rx_tvalid: Default::default(),
            s_axis_rx_tready: Default::default(),
            m_axis_tx_tdata: Default::default(),
            m_axis_tx_tkeep: Default::default(),
            m_axis_tx_tlast: Default::default(),
            m_axis_tx_tvalid: Default::default(),
            m_axis_tx_tready: Default::default(),
            m_axis_msg_tdata: Default::default(),
            m_axis_msg_tkeep: Default::default(),
            m_axis_msg_tlast: Default::default(),
            m_axis_msg_tvalid: Default::default(),
            m_axis_msg_tready: Default::default(),
            s_axis_msg_tdata: Default::default(),
            s_axis_msg_tkeep: Default::default(),
            s_axis_msg_tlast: Default::default(),
            s_axis_msg_tvalid: Default::default(),
            s_axis_msg_tready: Default::default(),
            msg_id_valid: Default::default(),
            msg_id: Default::default(),
            done_valid: Default::default(),
            done_ready: Default::default(),
            done_tx_msg_id: Default::default(),
            done_abandoned: Default::default(),
            s_axil_awaddr: Default::default(),
            s_axil_awvalid: Default::default(),
            s_axil_awready: Default::default(),
            s_axil_wdata: Default::default(),
            s_axil_wstrb: Default::default(),
            s_axil_wvalid: Default::default(),
            s_axil_wready: Default::default(),
            s_axil_bresp: Default::default(),
            s_axil_bvalid: Default::default(),
            s_axil_bready: Default::default(),
            s_axil_araddr: Default::default(),
            s_axil_arvalid: Default::default(),
            s_axil_arready: Default::default(),
            s_axil_rdata: Default::default(),
            s_axil_rresp: Default::default(),
            s_axil_rvalid: Default::default(),
            s_axil_rready: Default::default(),
            probe_ingress_tvalid: Default::default(),
            probe_ingress_tready: Default::default(),
            probe_ingress_tlast: Default::default(),
            probe_pkt_tvalid: Default::default(),
            probe_pkt_tready: Default::default(),
            probe_pkt_tlast: Default::default(),
            ingress: HomaIngress128::new(trimming),
            reassembly: Default::default(),
            tx: TxPath::new(&TX_CLASSES_128),
            pktgen: Default::default(),
            arbiter: Default::default(),
            deparser: Deparser::new(HOMA_IP_PROTOCOL),
            csr: AxiLiteCsr::new(HOMA_CONFIG_DEFAULTS),
            cfg: Default::default(),
            tx_flags: Default::default(),
            rx_busy_any: Default::default(),
            tx_active_any: Default::default(),
            msg_prio: Default::default(),
            slot_mask: Constant::new(0x7Fu64.into()),
            eg_valid: Default::default(),
            eg_data: Default::default(),
            eg_keep: Default::default(),
            eg_last: Default::default(),
            eg_remote_ip: Default::default(),
            eg_remote_port: Default::default(),
            eg_msg_len: Default::default(),
            eg_pkt_offset: Default::default(),
            eg_local_port: Default::default(),
            eg_tx_msg_id: Default::default(),
            eg_credit: Default::default(),
            eg_flags: Default::default(),
            eg_is_new_msg: Default::default(),
            eg_is_rtx: Default::default(),
            eg_fresh: Default::default(),
            eg_prio: Default::default(),
            eg_in_ready: Default::default(),
            eg_load: Default::default(),
            eg_mem_prio: Default::default(),
            eg_rank: Default::default(),
            eg_pkts: Default::default(),
            is_data_out: Default::default(),
            sched_levels: Default::default(),
            status_part0: Default::default(),
            status_part1: Default::default(),
            status_part2: Default::default(),
            status_part3: Default::default(),
            status_part4: Default::default(),
            status_part5: Default::default(),
            status_part6: Default::default(),
            status_part7: Default::default(),
        }
    }
}

impl Logic for HomaNic128 {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, ingress, reassembly, tx, pktgen, arbiter, deparser, csr, msg_prio);
        dff_setup!(
            self, clock, eg_valid, eg_data, eg_keep, eg_last, eg_remote_ip, eg_remote_port, eg_msg_len, eg_pkt_offset,
            eg_local_port, eg_tx_msg_id, eg_credit, eg_flags, eg_is_new_msg, eg_is_rtx, eg_fresh, eg_prio
        );
        self.msg_prio.reset.next = self.reset.val();

        self.ingress.reset.next = self.reset.val();
        self.reassembly.reset.next = self.reset.val();
        self.tx.reset.next = self.reset.val();
        self.pktgen.reset.next = self.reset.val();
        self.arbiter.reset.next = self.reset.val();
        self.deparser.reset.next = self.reset.val();
        self.csr.reset.next = self.reset.val();

        // ---------------- registers ----------------
        self.csr.s_axil_awaddr.next = self.s_axil_awaddr.val();
        self.csr.s_axil_awvalid.next = self.s_axil_awvalid.val();
        self.s_axil_awready.next = self.csr.s_axil_awready.val();
        self.csr.s_axil_wdata.next = self.s_axil_wdata.val();
        self.csr.s_axil_wstrb.next = self.s_axil_wstrb.val();
        self.csr.s_axil_wvalid.next = self.s_axil_wvalid.val();
        self.s_axil_wready.next = self.csr.s_axil_wready.val();
        self.s_axil_bresp.next = self.csr.s_axil_bresp.val();
        self.s_axil_bvalid.next = self.csr.s_axil_bvalid.val();
        self.csr.s_axil_bready.next = self.s_axil_bready.val();
        self.csr.s_axil_araddr.next = self.s_axil_araddr.val();
        self.csr.s_axil_arvalid.next = self.s_axil_arvalid.val();
        self.s_axil_arready.next = self.csr.s_axil_arready.val();
        self.s_axil_rdata.next = self.csr.s_axil_rdata.val();
        self.s_axil_rresp.next = self.csr.s_axil_rresp.val();
        self.s_axil_rvalid.next = self.csr.s_axil_rvalid.val();
        self.csr.s_axil_rready.next = self.s_axil_rready.val();
        self.cfg.next = self.csr.cfg.val();

        // ---------------- receive: MAC → ingress → reassembly → CPU ----------------
        self.ingress.rtt_pkts.next = self.cfg.val().get_bits::<16>(160);
        self.ingress.req_ready.next = self.reassembly.req_ready.val();
        // sched_levels: entries in use (bits 4–0), FIFO records (bits 15–8).
        self.sched_levels.next = bit_cast::<16, 5>(self.ingress.sched_occupancy.val()) | (bit_cast::<16, 8>(self.ingress.sched_fifo_level.val()) << 8);
        self.ingress.cfg_overcommit.next = self.cfg.val().get_bits::<5>(384);
        self.ingress.cfg_unsched_prios.next = self.cfg.val().get_bits::<4>(416);
        self.ingress.rel_valid.next = self.reassembly.release_valid.val();
        self.ingress.rel_slot.next = self.reassembly.release_slot.val();
        self.msg_prio.wr_valid.next = self.ingress.prio_wr_valid.val();
        self.msg_prio.wr_index.next = self.ingress.prio_wr_index.val();
        self.msg_prio.wr_value.next = self.ingress.prio_wr_value.val();
        self.ingress.s_axis_tdata.next = self.s_axis_rx_tdata.val();
        self.ingress.s_axis_tkeep.next = self.s_axis_rx_tkeep.val();
        self.ingress.s_axis_tlast.next = self.s_axis_rx_tlast.val();
        self.ingress.s_axis_tvalid.next = self.s_axis_rx_tvalid.val();
        self.s_axis_rx_tready.next = self.ingress.s_axis_tready.val();

        self.reassembly.ingress_timeout.next = self.cfg.val().get_bits::<32>(256);
        self.reassembly.req_valid.next = self.ingress.req_valid.val();
        self.reassembly.req_mark_received.next = self.ingress.req_mark_received.val();
        self.reassembly.req_src_ip.next = self.ingress.req_src_ip.val();
        self.reassembly.req_src_port.next = self.ingress.req_src_port.val();
        self.reassembly.req_tx_msg_id.next = self.ingress.req_tx_msg_id.val();
        self.reassembly.req_msg_len.next = self.ingress.req_msg_len.val();
        self.reassembly.req_pkt_offset.next = self.ingress.req_pkt_offset.val();
        self.ingress.resp_valid.next = self.reassembly.resp_valid.val();
        self.ingress.resp_fail.next = self.reassembly.resp_fail.val();
        self.ingress.resp_rx_msg_id.next = self.reassembly.resp_rx_msg_id.val();
        self.ingress.resp_is_new_msg.next = self.reassembly.resp_is_new_msg.val();
        self.ingress.resp_is_new_pkt.next = self.reassembly.resp_is_new_pkt.val();
        self.ingress.resp_is_last_pkt.next = self.reassembly.resp_is_last_pkt.val();
        self.ingress.resp_ack_no.next = self.reassembly.resp_ack_no.val();

        self.reassembly.s_axis_tdata.next = self.ingress.m_axis_tdata.val();
        self.reassembly.s_axis_tkeep.next = self.ingress.m_axis_tkeep.val();
        self.reassembly.s_axis_tlast.next = self.ingress.m_axis_tlast.val();
        self.reassembly.s_axis_tvalid.next = self.ingress.m_axis_tvalid.val();
        self.ingress.m_axis_tready.next = self.reassembly.s_axis_tready.val();
        self.reassembly.s_axis_meta_remote_ip.next = self.ingress.m_axis_meta_remote_ip.val();
        self.reassembly.s_axis_meta_remote_port.next = self.ingress.m_axis_meta_remote_port.val();
        self.reassembly.s_axis_meta_msg_len.next = self.ingress.m_axis_meta_msg_len.val();
        self.reassembly.s_axis_meta_pkt_offset.next = self.ingress.m_axis_meta_pkt_offset.val();
        self.reassembly.s_axis_meta_local_port.next = self.ingress.m_axis_meta_local_port.val();
        self.reassembly.s_axis_meta_rx_msg_id.next = self.ingress.m_axis_meta_rx_msg_id.val();
        self.reassembly.s_axis_meta_tx_msg_id.next = self.ingress.m_axis_meta_tx_msg_id.val();
        self.reassembly.s_axis_meta_is_last_pkt.next = self.ingress.m_axis_meta_is_last_pkt.val();
        self.probe_ingress_tvalid.next = self.ingress.m_axis_tvalid.val();
        self.probe_ingress_tready.next = self.reassembly.s_axis_tready.val();
        self.probe_ingress_tlast.next = self.ingress.m_axis_tlast.val();

        self.m_axis_msg_tdata.next = self.reassembly.m_axis_tdata.val();
        self.m_axis_msg_tkeep.next = self.reassembly.m_axis_tkeep.val();
        self.m_axis_msg_tlast.next = self.reassembly.m_axis_tlast.val();
        self.m_axis_msg_tvalid.next = self.reassembly.m_axis_tvalid.val();
        self.reassembly.m_axis_tready.next = self.m_axis_msg_tready.val();

        // ---------------- events to the transmit path and the packet generator ----------------
        self.tx.dlv_valid.next = self.ingress.dlv_valid.val();
        self.tx.dlv_tx_msg_id.next = self.ingress.dlv_tx_msg_id.val();
        self.tx.dlv_ack_bitmap.next = self.ingress.dlv_ack_bitmap.val();
        self.tx.ctx_valid.next = self.ingress.ctx_valid.val();
        self.tx.ctx_tx_msg_id.next = self.ingress.ctx_tx_msg_id.val();
        self.tx.ctx_rtx_flag.next = self.ingress.ctx_rtx_flag.val();
        self.tx.ctx_rtx_bitmap.next = self.ingress.ctx_rtx_bitmap.val();
        self.tx.ctx_credit_flag.next = self.ingress.ctx_credit_flag.val();
        self.tx.ctx_new_credit.next = self.ingress.ctx_new_credit.val();
        self.tx.ctx_allow_tx.next = self.ingress.ctx_allow_tx.val();
        self.tx.ctx_raise_only.next = self.ingress.ctx_raise_only.val();

        self.pktgen.cfg_pace_cycles.next = self.cfg.val().get_bits::<16>(288);
        self.pktgen.cfg_bucket_max.next = self.cfg.val().get_bits::<8>(320);
        self.pktgen.ev_valid.next = self.ingress.ev_valid.val();
        self.pktgen.ev_msg_id.next = self.ingress.ev_msg_id.val();
        self.pktgen.ev_ctrl_flags.next = self.ingress.ev_ctrl_flags.val();
        self.pktgen.ev_pull.next = self.ingress.ev_pull.val();
        self.pktgen.ev_remote_ip.next = self.ingress.ev_remote_ip.val();
        self.pktgen.ev_remote_port.next = self.ingress.ev_remote_port.val();
        self.pktgen.ev_local_port.next = self.ingress.ev_local_port.val();
        self.pktgen.ev_msg_len.next = self.ingress.ev_msg_len.val();
        self.pktgen.ev_pkt_offset.next = self.ingress.ev_pkt_offset.val();
        self.pktgen.ev_tx_msg_id.next = self.ingress.ev_tx_msg_id.val();
        self.pktgen.ev_rank.next = self.ingress.ev_rank.val();
        self.pktgen.ev_credit.next = self.ingress.ev_credit.val();

        // ---------------- transmit: CPU → transmit path → arbiter → deparser → MAC ----------------
        self.tx.default_credit.next = self.cfg.val().get_bits::<16>(160);
        self.tx.rto_cycles.next = self.cfg.val().get_bits::<32>(192);
        self.tx.timeout_threshold.next = self.cfg.val().get_bits::<8>(224);
        self.tx.s_axis_msg_tdata.next = self.s_axis_msg_tdata.val();
        self.tx.s_axis_msg_tkeep.next = self.s_axis_msg_tkeep.val();
        self.tx.s_axis_msg_tlast.next = self.s_axis_msg_tlast.val();
        self.tx.s_axis_msg_tvalid.next = self.s_axis_msg_tvalid.val();
        self.s_axis_msg_tready.next = self.tx.s_axis_msg_tready.val();
        self.msg_id_valid.next = self.tx.msg_id_valid.val();
        self.msg_id.next = self.tx.msg_id.val();
        self.done_valid.next = self.tx.done_valid.val();
        self.tx.done_ready.next = self.done_ready.val();
        self.done_tx_msg_id.next = self.tx.done_tx_msg_id.val();
        self.done_abandoned.next = self.tx.done_abandoned.val();

        self.arbiter.ctrl_burst_limit.next = self.cfg.val().get_bits::<8>(352);
        self.arbiter.s_axis_ctrl_tdata.next = self.pktgen.m_axis_tdata.val();
        self.arbiter.s_axis_ctrl_tkeep.next = self.pktgen.m_axis_tkeep.val();
        self.arbiter.s_axis_ctrl_tlast.next = self.pktgen.m_axis_tlast.val();
        self.arbiter.s_axis_ctrl_tvalid.next = self.pktgen.m_axis_tvalid.val();
        self.pktgen.m_axis_tready.next = self.arbiter.s_axis_ctrl_tready.val();
        self.arbiter.s_axis_ctrl_remote_ip.next = self.pktgen.m_meta_remote_ip.val();
        self.arbiter.s_axis_ctrl_remote_port.next = self.pktgen.m_meta_remote_port.val();
        self.arbiter.s_axis_ctrl_msg_len.next = self.pktgen.m_meta_msg_len.val();
        self.arbiter.s_axis_ctrl_pkt_offset.next = self.pktgen.m_meta_pkt_offset.val();
        self.arbiter.s_axis_ctrl_local_port.next = self.pktgen.m_meta_local_port.val();
        self.arbiter.s_axis_ctrl_tx_msg_id.next = self.pktgen.m_meta_tx_msg_id.val();
        self.arbiter.s_axis_ctrl_credit.next = self.pktgen.m_meta_credit.val();
        self.arbiter.s_axis_ctrl_rank.next = self.pktgen.m_meta_rank.val();
        self.arbiter.s_axis_ctrl_flags.next = self.pktgen.m_meta_flags.val();
        self.arbiter.s_axis_ctrl_is_new_msg.next = false;
        self.arbiter.s_axis_ctrl_is_rtx.next = false;

        // Homa's egress stage (Algorithm 6, line 28): a register slice on the data packets that
        // reads the message's priority from the shared priority memory (one read per beat
        // loaded; the value arrives with the beat in the slice).
        self.eg_in_ready.next = (!self.eg_valid.q.val()) | self.arbiter.s_axis_data_tready.val();
        self.eg_load.next = self.tx.m_axis_pkt_tvalid.val() & self.eg_in_ready.val();
        self.tx.m_axis_pkt_tready.next = self.eg_in_ready.val();
        self.msg_prio.rd_valid.next = self.eg_load.val();
        self.msg_prio.rd_index.next = bit_cast::<7, 16>(self.tx.m_axis_pkt_tx_msg_id.val() & self.slot_mask.val());
        self.eg_fresh.d.next = self.eg_load.val();
        if self.eg_load.val() {
            self.eg_valid.d.next = true;
            self.eg_data.d.next = self.tx.m_axis_pkt_tdata.val();
            self.eg_keep.d.next = self.tx.m_axis_pkt_tkeep.val();
            self.eg_last.d.next = self.tx.m_axis_pkt_tlast.val();
            self.eg_remote_ip.d.next = self.tx.m_axis_pkt_remote_ip.val();
            self.eg_remote_port.d.next = self.tx.m_axis_pkt_remote_port.val();
            self.eg_msg_len.d.next = self.tx.m_axis_pkt_msg_len.val();
            self.eg_pkt_offset.d.next = self.tx.m_axis_pkt_pkt_offset.val();
            self.eg_local_port.d.next = self.tx.m_axis_pkt_local_port.val();
            self.eg_tx_msg_id.d.next = self.tx.m_axis_pkt_tx_msg_id.val();
            self.eg_credit.d.next = self.tx.m_axis_pkt_credit.val();
            self.eg_flags.d.next = self.tx.m_axis_pkt_flags.val();
            self.eg_is_new_msg.d.next = self.tx.m_axis_pkt_is_new_msg.val();
            self.eg_is_rtx.d.next = self.tx.m_axis_pkt_is_rtx.val();
        } else if self.arbiter.s_axis_data_tready.val() {
            self.eg_valid.d.next = false;
        }
        self.eg_mem_prio.next = self.eg_prio.q.val();
        if self.eg_fresh.q.val() {
            self.eg_mem_prio.next = self.msg_prio.rd_value.val();
        }
        self.eg_prio.d.next = self.eg_mem_prio.val();
        self.eg_pkts.next = (self.eg_msg_len.q.val() + 1023) >> 10;
        self.eg_rank.next = self.eg_mem_prio.val();
        if bit_cast::<16, 8>(self.eg_pkt_offset.q.val()) < self.cfg.val().get_bits::<16>(160) {
            // Unscheduled: 0, or U − 1 for a message longer than one BDP.
            self.eg_rank.next = 0.into();
            if (self.eg_pkts.val() > self.cfg.val().get_bits::<16>(160)) & (self.cfg.val().get_bits::<4>(416) != 0) {
                self.eg_rank.next = bit_cast::<8, 4>(self.cfg.val().get_bits::<4>(416)) - 1;
            }
        }
        self.arbiter.s_axis_data_tdata.next = self.eg_data.q.val();
        self.arbiter.s_axis_data_tkeep.next = self.eg_keep.q.val();
        self.arbiter.s_axis_data_tlast.next = self.eg_last.q.val();
        self.arbiter.s_axis_data_tvalid.next = self.eg_valid.q.val();
        self.arbiter.s_axis_data_remote_ip.next = self.eg_remote_ip.q.val();
        self.arbiter.s_axis_data_remote_port.next = self.eg_remote_port.q.val();
        self.arbiter.s_axis_data_msg_len.next = self.eg_msg_len.q.val();
        self.arbiter.s_axis_data_pkt_offset.next = self.eg_pkt_offset.q.val();
        self.arbiter.s_axis_data_local_port.next = self.eg_local_port.q.val();
        self.arbiter.s_axis_data_tx_msg_id.next = self.eg_tx_msg_id.q.val();
        self.arbiter.s_axis_data_credit.next = self.eg_credit.q.val();
        self.arbiter.s_axis_data_rank.next = self.eg_rank.val();
        self.arbiter.s_axis_data_flags.next = self.eg_flags.q.val();
        self.arbiter.s_axis_data_is_new_msg.next = self.eg_is_new_msg.q.val();
        self.arbiter.s_axis_data_is_rtx.next = self.eg_is_rtx.q.val();
        if self.reset.val() {
            self.eg_valid.d.next = false;
            self.eg_fresh.d.next = false;
        }
        self.probe_pkt_tvalid.next = self.tx.m_axis_pkt_tvalid.val();
        self.probe_pkt_tready.next = self.eg_in_ready.val();
        self.probe_pkt_tlast.next = self.tx.m_axis_pkt_tlast.val();

        self.deparser.cfg_own_mac.next = bit_cast::<48, 32>(self.cfg.val().get_bits::<32>(0))
            | (bit_cast::<48, 16>(self.cfg.val().get_bits::<16>(32)) << 32);
        self.deparser.cfg_peer_mac.next = bit_cast::<48, 32>(self.cfg.val().get_bits::<32>(64))
            | (bit_cast::<48, 16>(self.cfg.val().get_bits::<16>(96)) << 32);
        self.deparser.cfg_own_ip.next = self.cfg.val().get_bits::<32>(128);
        self.deparser.meta_remote_ip.next = self.arbiter.m_axis_remote_ip.val();
        self.deparser.meta_remote_port.next = self.arbiter.m_axis_remote_port.val();
        self.deparser.meta_msg_len.next = self.arbiter.m_axis_msg_len.val();
        self.deparser.meta_pkt_offset.next = self.arbiter.m_axis_pkt_offset.val();
        self.deparser.meta_local_port.next = self.arbiter.m_axis_local_port.val();
        self.deparser.meta_tx_msg_id.next = self.arbiter.m_axis_tx_msg_id.val();
        self.deparser.meta_credit.next = self.arbiter.m_axis_credit.val();
        // DATA packets carry their message's priority in the DSCP bits; control packets go at
        // priority 0, and a GRANT's priority (in the packet generator's rank) goes into its
        // grant_prio field.
        self.is_data_out.next = (self.arbiter.m_axis_flags.val() & 0x01) != 0;
        self.deparser.meta_rank.next = 0.into();
        self.deparser.meta_grant_prio.next = self.arbiter.m_axis_rank.val();
        if self.is_data_out.val() {
            self.deparser.meta_rank.next = self.arbiter.m_axis_rank.val();
            }
        self.deparser.meta_flags.next = self.arbiter.m_axis_flags.val();
        self.deparser.meta_buf_ptr.next = 0.into();
        self.deparser.meta_buf_size_class.next = 0.into();
        self.deparser.s_axis_tdata.next = self.arbiter.m_axis_tdata.val();
        self.deparser.s_axis_tkeep.next = self.arbiter.m_axis_tkeep.val();
        self.deparser.s_axis_tlast.next = self.arbiter.m_axis_tlast.val();
        self.deparser.s_axis_tvalid.next = self.arbiter.m_axis_tvalid.val();
        self.arbiter.m_axis_tready.next = self.deparser.s_axis_tready.val();
        self.m_axis_tx_tdata.next = self.deparser.m_axis_tdata.val();
        self.m_axis_tx_tkeep.next = self.deparser.m_axis_tkeep.val();
        self.m_axis_tx_tlast.next = self.deparser.m_axis_tlast.val();
        self.m_axis_tx_tvalid.next = self.deparser.m_axis_tvalid.val();
        self.deparser.m_axis_tready.next = self.m_axis_tx_tready.val();

        // ---------------- status registers ----------------
        // With 128 slots the busy/active registers hold 1 when any slot is in use.
        self.rx_busy_any.next = self.reassembly.busy_slots.val().any();
        self.tx_active_any.next = self.tx.active.val().any();
        // buffer_flags: bits 4–0 the receive free lists full (IDs, classes 0–3), bit 8 every
        // transmit buffer free, bit 9 a transmit size class exhausted.
        self.tx_flags.next = (bit_cast::<16, 5>(self.reassembly.free_lists_full.val())
            | (bit_cast::<16, 1>(self.tx.buffers_all_free.val().into()) << 8))
            | (bit_cast::<16, 1>(self.tx.buffers_exhausted.val().into()) << 9);
        self.status_part0.next = (((((((bit_cast::<2048, 32>(self.ingress.frame_count.val())) | (bit_cast::<2048, 32>(self.ingress.not_ipv4_count.val()) << 32)) | (bit_cast::<2048, 32>(self.ingress.wrong_protocol_count.val()) << 64)) | (bit_cast::<2048, 32>(self.ingress.too_short_count.val()) << 96)) | (bit_cast::<2048, 32>(self.ingress.bad_checksum_count.val()) << 128)) | (bit_cast::<2048, 32>(self.ingress.bad_flags_count.val()) << 160)) | (bit_cast::<2048, 32>(self.ingress.data_count.val()) << 192)) | (bit_cast::<2048, 32>(self.ingress.chop_count.val()) << 224);
        self.status_part1.next = (((((((bit_cast::<2048, 32>(self.ingress.control_count.val()) << 256) | (bit_cast::<2048, 32>(self.ingress.no_action_count.val()) << 288)) | (bit_cast::<2048, 32>(self.ingress.bad_length_count.val()) << 320)) | (bit_cast::<2048, 32>(self.ingress.rx_fail_count.val()) << 352)) | (bit_cast::<2048, 32>(self.ingress.duplicate_data_count.val()) << 384)) | (bit_cast::<2048, 32>(self.ingress.forwarded_count.val()) << 416)) | (bit_cast::<2048, 32>(self.ingress.grant_sent_count.val()) << 448)) | (bit_cast::<2048, 32>(self.ingress.ack_sent_count.val()) << 480);
        self.status_part2.next = (((((((bit_cast::<2048, 32>(self.ingress.nack_sent_count.val()) << 512) | (bit_cast::<2048, 32>(self.ingress.sched_inserts_count.val()) << 544)) | (bit_cast::<2048, 32>(self.ingress.sched_removes_count.val()) << 576)) | (bit_cast::<2048, 32>(self.ingress.sched_unknown_removes_count.val()) << 608)) | (bit_cast::<2048, 32>(self.ingress.sched_fifo_enters_count.val()) << 640)) | (bit_cast::<2048, 16>(self.sched_levels.val()) << 672)) | (bit_cast::<2048, 32>(self.reassembly.fail_bucket_full_count.val()) << 704)) | (bit_cast::<2048, 16>(self.tx.event_overflow_count.val()) << 736);
        self.status_part3.next = (((((((bit_cast::<2048, 32>(self.reassembly.fail_zero_len_count.val()) << 768) | (bit_cast::<2048, 32>(self.reassembly.fail_too_long_count.val()) << 800)) | (bit_cast::<2048, 32>(self.reassembly.fail_bad_offset_count.val()) << 832)) | (bit_cast::<2048, 32>(self.reassembly.fail_len_mismatch_count.val()) << 864)) | (bit_cast::<2048, 32>(self.reassembly.fail_no_id_count.val()) << 896)) | (bit_cast::<2048, 32>(self.reassembly.fail_no_buffer_count.val()) << 928)) | (bit_cast::<2048, 32>(self.reassembly.duplicate_count.val()) << 960)) | (bit_cast::<2048, 32>(self.reassembly.recent_duplicate_count.val()) << 992);
        self.status_part4.next = (((((((bit_cast::<2048, 32>(self.reassembly.class_fallback_count.val()) << 1024) | (bit_cast::<2048, 32>(self.reassembly.drop_stale_count.val()) << 1056)) | (bit_cast::<2048, 32>(self.reassembly.drop_bad_offset_count.val()) << 1088)) | (bit_cast::<2048, 32>(self.reassembly.drop_duplicate_count.val()) << 1120)) | (bit_cast::<2048, 32>(self.reassembly.drop_bad_length_count.val()) << 1152)) | (bit_cast::<2048, 32>(self.reassembly.gc_count.val()) << 1184)) | (bit_cast::<2048, 32>(self.reassembly.stale_timeout_count.val()) << 1216)) | (bit_cast::<2048, 32>(self.reassembly.delivered_count.val()) << 1248);
        self.status_part5.next = (((((((bit_cast::<2048, 16>(self.tx.rejected_msg_count.val()) << 1280) | (bit_cast::<2048, 16>(self.tx.framing_error_count.val()) << 1312)) | (bit_cast::<2048, 16>(self.tx.stale_delivered_count.val()) << 1344)) | (bit_cast::<2048, 16>(self.tx.stale_credit_count.val()) << 1376)) | (bit_cast::<2048, 16>(self.tx.stale_timeout_count.val()) << 1408)) | (bit_cast::<2048, 16>(self.tx.ack_beyond_count.val()) << 1440)) | (bit_cast::<2048, 16>(self.tx.rtx_beyond_count.val()) << 1472)) | (bit_cast::<2048, 16>(self.tx.credit_beyond_count.val()) << 1504);
        self.status_part6.next = (((((((bit_cast::<2048, 16>(self.tx.delivered_msg_count.val()) << 1536) | (bit_cast::<2048, 16>(self.tx.abandoned_msg_count.val()) << 1568)) | (bit_cast::<2048, 16>(self.tx.write_busy_count.val()) << 1600)) | (bit_cast::<2048, 16>(self.tx.buffer_double_free_count.val()) << 1632)) | (bit_cast::<2048, 32>(self.pktgen.ctrl_sent_count.val()) << 1664)) | (bit_cast::<2048, 32>(self.pktgen.dropped_count.val()) << 1696)) | (bit_cast::<2048, 16>(self.arbiter.ctrl_packet_count.val()) << 1728)) | (bit_cast::<2048, 16>(self.arbiter.data_packet_count.val()) << 1760);
        self.status_part7.next = (((((bit_cast::<2048, 32>(self.deparser.frame_count.val()) << 1792) | (bit_cast::<2048, 32>(self.deparser.length_mismatch_count.val()) << 1824)) | (bit_cast::<2048, 32>(self.csr.error_count.val()) << 1856)) | (bit_cast::<2048, 1>(self.rx_busy_any.val().into()) << 1888)) | (bit_cast::<2048, 1>(self.tx_active_any.val().into()) << 1920)) | (bit_cast::<2048, 16>(self.tx_flags.val()) << 1952);
        self.csr.status.next = ((((((self.status_part0.val() | self.status_part1.val()) | self.status_part2.val()) | self.status_part3.val()) | self.status_part4.val()) | self.status_part5.val()) | self.status_part6.val()) | self.status_part7.val();
    }
}

impl Default for HomaNic128 {
    /// Homa-Tr, the superset of the two programs.
    fn default() -> Self {
        Self::new(true)
    }
}
