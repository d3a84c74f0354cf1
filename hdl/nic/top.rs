//! NIC top for NDP with 16 messages per direction (thesis Fig. 3.1): MAC-side 64-bit AXI4-Stream
//! RX and TX, CPU-side message streams in and out, and an AXI4-Lite register interface.
//!
//! ```text
//!  MAC RX ─▶ NDP ingress (parser, match, GetRxMsgInfo, credit) ─▶ reassembly ─▶ CPU messages out
//!                 │ dlv/ctx events             │ CtrlPktEvent
//!                 ▼                            ▼
//!  CPU messages in ─▶ transmit path ─▶ arbiter ◀─ packet generator (ACK/NACK + paced PULL)
//!                                         │
//!                                         ▼
//!                                      deparser (NDP egress: headers from metadata) ─▶ MAC TX
//! ```
//!
//! # Ports
//! | group | ports |
//! |---|---|
//! | control | `clock`, `reset` (synchronous, one cycle: every block reset, configuration back to its defaults) |
//! | MAC RX | `s_axis_rx_tdata` 64, `_tkeep` 8, `_tlast`, `_tvalid`, `_tready` (out): frames without FCS; the IPv4 header checksum is checked |
//! | MAC TX | `m_axis_tx_tdata` 64, `_tkeep`, `_tlast`, `_tvalid`, `_tready` (in): frames without FCS, IPv4 checksum generated; every frame is ≥ 64 bytes, so the 60-byte Ethernet minimum never needs padding |
//! | CPU RX | `m_axis_msg_*`: one delivered message per stream packet (two header beats, then the payload; see [`crate::nic::reassembly::Reassembly`]) |
//! | CPU TX | `s_axis_msg_*`: one message per stream packet (see [`crate::nic::tx_path::TxPath`]); `msg_id_valid`/`msg_id`: the tx_msg_id given to it; `done_valid`/`done_ready`/`done_tx_msg_id`/`done_abandoned`: completions |
//! | registers | `s_axil_*`: AXI4-Lite, 32-bit, see [`crate::nic::csr::AxiLiteCsr`] and the map below |
//! | probes | `probe_ingress_*` (tvalid, tready, tlast of the ingress → reassembly stream) and `probe_pkt_*` (of the packetization → arbiter stream): observation points for the per-stage latency report; they change nothing |
//!
//! # Register map (byte addresses)
//! Configuration (read/write), with defaults ([`NDP_CONFIG_DEFAULTS`]):
//!
//! | addr | register | default |
//! |---|---|---|
//! | 0x00 / 0x04 | own MAC bits 31–0 / 47–32 | 02:00:00:00:00:01 |
//! | 0x08 / 0x0C | peer (next-hop) MAC bits 31–0 / 47–32 | ff:ff:ff:ff:ff:ff |
//! | 0x10 | own IPv4 address | 10.0.0.1 |
//! | 0x14 | `rtt_pkts` (BDP in packets: the sender's initial credit; NDP's credit starts at rtt_pkts + 1) | 8 |
//! | 0x18 | retransmission timeout, cycles | 20 000 |
//! | 0x1C | timeouts without progress before a message is abandoned | 5 |
//! | 0x20 | receive garbage-collection timeout, cycles | 200 000 |
//! | 0x24 | PULL pacing interval, cycles (one MTU at 8 bytes/cycle; 0 = no pacing) | 136 |
//! | 0x28 | pacer bucket size, tokens | 1 |
//! | 0x2C | control packets the arbiter sends before a waiting data packet | 4 |
//!
//! Configuration is read by the blocks continuously; change the MAC/IP addresses only while no
//! frame is in flight. Status (read-only) at 0x100 + 4·i, register `i` = [`NDP_STATUS_REGISTERS`]`[i]`
//! (counters wrap; 16-bit counters of the transmit path and arbiter are zero-extended).
//!
//! # Latency and throughput
//! Measured per stage by `nanotransport latency --protocol ndp` (Table 3.1's stages). Every block
//! passes one beat per cycle; see `nanotransport throughput`.

use crate::nic::arbiter::Arbiter;
use crate::nic::csr::AxiLiteCsr;
use crate::nic::packet_generator::PacketGenerator;
use crate::nic::reassembly::Reassembly16;
use crate::nic::tx_path::{TxPath, TX_CLASSES_16, TX_PAYLOAD_ADDR_BITS};
use crate::pisa::deparser::Deparser;
use crate::pisa::wire::NDP_IP_PROTOCOL;
use crate::protocols::ndp::ingress::NdpIngress16;
use rust_hdl::prelude::*;

/// Reset values of the 16 configuration registers (see the register map).
pub const NDP_CONFIG_DEFAULTS: [u32; 16] =
    [0x0000_0001, 0x0200, 0xFFFF_FFFF, 0xFFFF, 0x0A00_0001, 8, 20_000, 5, 200_000, 136, 1, 4, 0, 0, 0, 0];

/// Configuration register indices (byte address = 4 × index).
pub const CFG_OWN_MAC_LO: usize = 0;
pub const CFG_OWN_MAC_HI: usize = 1;
pub const CFG_PEER_MAC_LO: usize = 2;
pub const CFG_PEER_MAC_HI: usize = 3;
pub const CFG_OWN_IP: usize = 4;
pub const CFG_RTT_PKTS: usize = 5;
pub const CFG_RTO_CYCLES: usize = 6;
pub const CFG_TIMEOUT_THRESHOLD: usize = 7;
pub const CFG_GC_TIMEOUT: usize = 8;
pub const CFG_PACE_CYCLES: usize = 9;
pub const CFG_BUCKET_MAX: usize = 10;
pub const CFG_CTRL_BURST_LIMIT: usize = 11;
/// Homa: messages granted at once (the overcommitment level).
pub const CFG_OVERCOMMIT: usize = 12;
/// Homa: number of unscheduled priorities (U).
pub const CFG_UNSCHED_PRIOS: usize = 13;

/// Names of the status registers, in address order (0x100 + 4·i).
pub const NDP_STATUS_REGISTERS: [&str; 58] = [
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
    "offset_range_count",
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
    "pull_sent_count",
    "merged_count",
    "pull_coalesced_count",
    "ctrl_dropped_count",
    "arbiter_ctrl_packet_count",
    "arbiter_data_packet_count",
    "tx_frame_count",
    "tx_length_mismatch_count",
    "csr_error_count",
    "rx_busy_slots",
    "tx_active_slots",
    "buffer_flags",
    "fail_bucket_full_count",
    "event_overflow_count"
];

/// Byte address of the status register `name` in the list `registers`.
pub fn status_address_in(registers: &[&str], name: &str) -> Option<u64> {
    registers.iter().position(|n| *n == name).map(|i| 0x100 + 4 * i as u64)
}

/// Byte address of the NDP status register `name`.
pub fn status_address(name: &str) -> Option<u64> {
    status_address_in(&NDP_STATUS_REGISTERS, name)
}

#[derive(LogicBlock)]
pub struct NdpNic16 {
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

    ingress: NdpIngress16,
    reassembly: Reassembly16,
    tx: TxPath<16, 4, TX_PAYLOAD_ADDR_BITS>,
    pktgen: PacketGenerator<16, 4, 3>,
    arbiter: Arbiter,
    deparser: Deparser,
    csr: AxiLiteCsr,

    cfg: Signal<Local, Bits<512>>,
    tx_flags: Signal<Local, Bits<16>>,
    status_part0: Signal<Local, Bits<2048>>,
    status_part1: Signal<Local, Bits<2048>>,
    status_part2: Signal<Local, Bits<2048>>,
    status_part3: Signal<Local, Bits<2048>>,
    status_part4: Signal<Local, Bits<2048>>,
    status_part5: Signal<Local, Bits<2048>>,
    status_part6: Signal<Local, Bits<2048>>,
    status_part7: Signal<Local, Bits<2048>>,
}

impl Default for NdpNic16 {
    fn default() -> Self {
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
            ingress: Default::default(),
            reassembly: Default::default(),
            tx: TxPath::new(&TX_CLASSES_16),
            pktgen: Default::default(),
            arbiter: Default::default(),
            deparser: Deparser::new(NDP_IP_PROTOCOL),
            csr: AxiLiteCsr::new(NDP_CONFIG_DEFAULTS),
            cfg: Default::default(),
            tx_flags: Default::default(),
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

impl Logic for NdpNic16 {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, ingress, reassembly, tx, pktgen, arbiter, deparser, csr);
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

        self.arbiter.s_axis_data_tdata.next = self.tx.m_axis_pkt_tdata.val();
        self.arbiter.s_axis_data_tkeep.next = self.tx.m_axis_pkt_tkeep.val();
        self.arbiter.s_axis_data_tlast.next = self.tx.m_axis_pkt_tlast.val();
        self.arbiter.s_axis_data_tvalid.next = self.tx.m_axis_pkt_tvalid.val();
        self.tx.m_axis_pkt_tready.next = self.arbiter.s_axis_data_tready.val();
        self.arbiter.s_axis_data_remote_ip.next = self.tx.m_axis_pkt_remote_ip.val();
        self.arbiter.s_axis_data_remote_port.next = self.tx.m_axis_pkt_remote_port.val();
        self.arbiter.s_axis_data_msg_len.next = self.tx.m_axis_pkt_msg_len.val();
        self.arbiter.s_axis_data_pkt_offset.next = self.tx.m_axis_pkt_pkt_offset.val();
        self.arbiter.s_axis_data_local_port.next = self.tx.m_axis_pkt_local_port.val();
        self.arbiter.s_axis_data_tx_msg_id.next = self.tx.m_axis_pkt_tx_msg_id.val();
        self.arbiter.s_axis_data_credit.next = self.tx.m_axis_pkt_credit.val();
        self.arbiter.s_axis_data_rank.next = self.tx.m_axis_pkt_rank.val();
        self.arbiter.s_axis_data_flags.next = self.tx.m_axis_pkt_flags.val();
        self.arbiter.s_axis_data_is_new_msg.next = self.tx.m_axis_pkt_is_new_msg.val();
        self.arbiter.s_axis_data_is_rtx.next = self.tx.m_axis_pkt_is_rtx.val();
        self.probe_pkt_tvalid.next = self.tx.m_axis_pkt_tvalid.val();
        self.probe_pkt_tready.next = self.arbiter.s_axis_data_tready.val();
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
        self.deparser.meta_rank.next = self.arbiter.m_axis_rank.val();
        self.deparser.meta_flags.next = self.arbiter.m_axis_flags.val();
        self.deparser.meta_grant_prio.next = 0.into();
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
        // buffer_flags: bits 4–0 the receive free lists full (IDs, classes 0–3), bit 8 every
        // transmit buffer free, bit 9 a transmit size class exhausted.
        self.tx_flags.next = (bit_cast::<16, 5>(self.reassembly.free_lists_full.val())
            | (bit_cast::<16, 1>(self.tx.buffers_all_free.val().into()) << 8))
            | (bit_cast::<16, 1>(self.tx.buffers_exhausted.val().into()) << 9);
        self.status_part0.next = (((((((bit_cast::<2048, 32>(self.ingress.frame_count.val())) | (bit_cast::<2048, 32>(self.ingress.not_ipv4_count.val()) << 32)) | (bit_cast::<2048, 32>(self.ingress.wrong_protocol_count.val()) << 64)) | (bit_cast::<2048, 32>(self.ingress.too_short_count.val()) << 96)) | (bit_cast::<2048, 32>(self.ingress.bad_checksum_count.val()) << 128)) | (bit_cast::<2048, 32>(self.ingress.bad_flags_count.val()) << 160)) | (bit_cast::<2048, 32>(self.ingress.data_count.val()) << 192)) | (bit_cast::<2048, 32>(self.ingress.chop_count.val()) << 224);
        self.status_part1.next = (((((((bit_cast::<2048, 32>(self.ingress.control_count.val()) << 256) | (bit_cast::<2048, 32>(self.ingress.no_action_count.val()) << 288)) | (bit_cast::<2048, 32>(self.ingress.bad_length_count.val()) << 320)) | (bit_cast::<2048, 32>(self.ingress.rx_fail_count.val()) << 352)) | (bit_cast::<2048, 32>(self.ingress.duplicate_data_count.val()) << 384)) | (bit_cast::<2048, 32>(self.ingress.forwarded_count.val()) << 416)) | (bit_cast::<2048, 32>(self.ingress.offset_range_count.val()) << 448)) | (bit_cast::<2048, 32>(self.reassembly.fail_zero_len_count.val()) << 480);
        self.status_part2.next = (((((((bit_cast::<2048, 32>(self.reassembly.fail_too_long_count.val()) << 512) | (bit_cast::<2048, 32>(self.reassembly.fail_bad_offset_count.val()) << 544)) | (bit_cast::<2048, 32>(self.reassembly.fail_len_mismatch_count.val()) << 576)) | (bit_cast::<2048, 32>(self.reassembly.fail_no_id_count.val()) << 608)) | (bit_cast::<2048, 32>(self.reassembly.fail_no_buffer_count.val()) << 640)) | (bit_cast::<2048, 32>(self.reassembly.duplicate_count.val()) << 672)) | (bit_cast::<2048, 32>(self.reassembly.recent_duplicate_count.val()) << 704)) | (bit_cast::<2048, 32>(self.reassembly.class_fallback_count.val()) << 736);
        self.status_part3.next = (((((((bit_cast::<2048, 32>(self.reassembly.drop_stale_count.val()) << 768) | (bit_cast::<2048, 32>(self.reassembly.drop_bad_offset_count.val()) << 800)) | (bit_cast::<2048, 32>(self.reassembly.drop_duplicate_count.val()) << 832)) | (bit_cast::<2048, 32>(self.reassembly.drop_bad_length_count.val()) << 864)) | (bit_cast::<2048, 32>(self.reassembly.gc_count.val()) << 896)) | (bit_cast::<2048, 32>(self.reassembly.stale_timeout_count.val()) << 928)) | (bit_cast::<2048, 32>(self.reassembly.delivered_count.val()) << 960)) | (bit_cast::<2048, 16>(self.tx.rejected_msg_count.val()) << 992);
        self.status_part4.next = (((((((bit_cast::<2048, 16>(self.tx.framing_error_count.val()) << 1024) | (bit_cast::<2048, 16>(self.tx.stale_delivered_count.val()) << 1056)) | (bit_cast::<2048, 16>(self.tx.stale_credit_count.val()) << 1088)) | (bit_cast::<2048, 16>(self.tx.stale_timeout_count.val()) << 1120)) | (bit_cast::<2048, 16>(self.tx.ack_beyond_count.val()) << 1152)) | (bit_cast::<2048, 16>(self.tx.rtx_beyond_count.val()) << 1184)) | (bit_cast::<2048, 16>(self.tx.credit_beyond_count.val()) << 1216)) | (bit_cast::<2048, 16>(self.tx.delivered_msg_count.val()) << 1248);
        self.status_part5.next = (((((((bit_cast::<2048, 16>(self.tx.abandoned_msg_count.val()) << 1280) | (bit_cast::<2048, 16>(self.tx.write_busy_count.val()) << 1312)) | (bit_cast::<2048, 16>(self.tx.buffer_double_free_count.val()) << 1344)) | (bit_cast::<2048, 32>(self.pktgen.ctrl_sent_count.val()) << 1376)) | (bit_cast::<2048, 32>(self.pktgen.pull_sent_count.val()) << 1408)) | (bit_cast::<2048, 32>(self.pktgen.merged_count.val()) << 1440)) | (bit_cast::<2048, 32>(self.pktgen.pull_coalesced_count.val()) << 1472)) | (bit_cast::<2048, 32>(self.pktgen.dropped_count.val()) << 1504);
        self.status_part6.next = (((((((bit_cast::<2048, 16>(self.arbiter.ctrl_packet_count.val()) << 1536) | (bit_cast::<2048, 16>(self.arbiter.data_packet_count.val()) << 1568)) | (bit_cast::<2048, 32>(self.deparser.frame_count.val()) << 1600)) | (bit_cast::<2048, 32>(self.deparser.length_mismatch_count.val()) << 1632)) | (bit_cast::<2048, 32>(self.csr.error_count.val()) << 1664)) | (bit_cast::<2048, 16>(self.reassembly.busy_slots.val()) << 1696)) | (bit_cast::<2048, 16>(self.tx.active.val()) << 1728)) | (bit_cast::<2048, 16>(self.tx_flags.val()) << 1760);
        self.status_part7.next = (bit_cast::<2048, 32>(self.reassembly.fail_bucket_full_count.val()) << 1792) | (bit_cast::<2048, 16>(self.tx.event_overflow_count.val()) << 1824);
        self.csr.status.next = ((((((self.status_part0.val() | self.status_part1.val()) | self.status_part2.val()) | self.status_part3.val()) | self.status_part4.val()) | self.status_part5.val()) | self.status_part6.val()) | self.status_part7.val();
    }
}
