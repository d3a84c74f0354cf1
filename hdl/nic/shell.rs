//! The NIC shell (thesis Fig. 3.1): everything of a NIC that is not its transport protocol —
//! reassembly with GetRxMsgInfo, transmit path, packet generator, arbiter, deparser, register
//! file and status bank — written once for every protocol and size. A protocol is a small
//! program plugged into it: an **ingress program** that sees each packet's parsed header and
//! GetRxMsgInfo answer and raises events, and an **egress stage** between the transmit path and
//! the arbiter. The shell owns the PISA ingress front (parser, match stage loaded with the
//! program's match table, GetRxMsgInfo call, payload path); the program owns its externs.
//!
//! ```text
//!  MAC RX ─▶ ingress front (parser, match, GetRxMsgInfo) ─▶ reassembly ─▶ CPU
//!                 │ act / done: header and answer
//!                 ▼
//!            ingress program (protocol state)
//!                 │ DeliveredEvent / CreditTxEvent     │ CtrlPktEvent
//!                 ▼                                    ▼
//!  CPU ─▶ transmit path ─▶ egress stage ─▶ skid ─▶ arbiter ◀─ packet generator (ACK/NACK/PULL/GRANT)
//!                                                    └─▶ deparser ─▶ MAC TX
//! ```
//! The skid buffer ([`crate::common::skid_buffer::SkidBuffer`]) registers the data stream's
//! `tready` without adding latency, so the arbiter's choice and the MAC's `tready` do not reach
//! back through the egress stage into the transmit path in the same cycle.
//!
//! rust-hdl builds a block's Verilog from its concrete field types, and the shell wires the
//! program's ports by name, so the shell is the macro [`nic_shell!`](crate::nic_shell): one definition, expanded
//! once per protocol, generic in the message count `N`, the message-ID width `IW`
//! (`N = 2^IW`), the GetRxMsgInfo bucket bits `BB` and the payload memory's address bits `PW`
//! (`2^PW` 64-bit words per direction): [`crate::protocols::ndp::ingress::NdpNic`] (NDP's
//! ingress program, no egress stage) and [`crate::protocols::homa::ingress::HomaNic`] (Homa's
//! ingress program and [`crate::protocols::homa::egress::HomaEgress`]; Homa-Tr is its trimming
//! option). Size classes, register defaults and the Homa-Tr variant are constructor parameters
//! ([`ShellParams`]); a bad set is refused with one line naming the parameter
//! ([`ShellParams::check`]). The sizes compiled in (16 to 1024 messages) are
//! [`crate::configs::COMPILED_SIZES`].
//!
//! # Program interface (what every ingress program and egress stage provides)
//! Between blocks the shell joins typed bundles ([`crate::common::bundles`]); the NIC's own
//! ports stay flat.
//! | block | inputs | outputs |
//! |---|---|---|
//! | ingress program ([`IngressProgram`]: also its match table) | the front's `act` (a validated control packet's action and header fields) and `done` (a DATA or trimmed packet's header fields and GetRxMsgInfo answer), see [`crate::pisa::ingress_front`]; `rtt_pkts` 16, `cfg_overcommit` 5, `cfg_unsched_prios` 4, `cfg_dup_grant` 1, `cfg_ack_policy` 2; receive-slot release `rel_valid`, `rel_slot` IW | DeliveredEvent `dlv`, CreditTxEvent `ctx` (to the transmit path); CtrlPktEvent `ev` (to the packet generator; `ev.msg_id` the receive slot, `ev.msg_gen` its generation); priority writes `prio_wr` (to the egress stage); its counters `counters` ([`crate::common::bundles::ProgramCountersSource`]: `offset_range_count`, `*_sent_count`, `sched_*`, in the [status map](crate::nic::status_bank::STATUS_MAP)) |
//! | egress stage | `s_axis_pkt` (transmit path's packets with Listing 3.2 metadata), `m_axis_pkt.tready`, `prio_wr`, `rtt_pkts`, `cfg_unsched_prios` | `s_axis_pkt.tready`, `m_axis_pkt` (to the arbiter; `rank` becomes the DSCP) |
//!
//! # Ports of the NIC
//! | group | ports |
//! |---|---|
//! | control | `clock`, `reset` (synchronous, one cycle: every block reset, configuration back to its defaults) |
//! | MAC RX | `s_axis_rx_tdata` 64, `_tkeep` 8, `_tlast`, `_tvalid`, `_tready` (out): frames without FCS; the IPv4 header checksum is checked |
//! | MAC TX | `m_axis_tx_tdata` 64, `_tkeep`, `_tlast`, `_tvalid`, `_tready` (in): frames without FCS, IPv4 checksum generated; every frame is ≥ 64 bytes |
//! | CPU RX | `m_axis_msg_*`: one delivered message per stream packet (two header beats, then the payload; see [`crate::nic::reassembly::Reassembly`]) |
//! | CPU TX | `s_axis_msg_*`: one message per stream packet (see [`crate::nic::tx_path::TxPath`]); `msg_id_valid`/`msg_id`: the tx_msg_id given to it; `done_valid`/`done_ready`/`done_tx_msg_id`/`done_abandoned`: completions |
//! | registers | `s_axil_*`: AXI4-Lite, 32-bit, 12-bit byte addresses, see [`crate::nic::register_map`] |
//! | probes | `probe_ingress_*` (tvalid, tready, tlast of the ingress → reassembly stream) and `probe_pkt_*` (of the transmit path → egress stream): observation points for the per-stage latency report; they change nothing; `tlast` is 0 while `tvalid` is low |
//!
//! # Register map
//! One map for every protocol and size: [`crate::nic::register_map`] (configuration) and
//! [`crate::nic::status_bank::STATUS_MAP`] (status, with the NIC's identification at 0x400).
//!
//! # Wire priorities
//! The deparser writes a DATA packet's `rank` (from the egress stage) into the IPv4 DSCP; control
//! packets go at DSCP 0 and carry the packet generator's rank in `grant_prio` (a GRANT's
//! priority; 0 for NDP's control packets). DATA packets carry `grant_prio` 0.
//!
//! # Latency and throughput
//! Per stage as measured by `nanotransport latency` (Table 3.1's stages), each derived in its
//! block's documentation: the ingress program's latency to the reassembly, 14 cycles
//! ([`crate::pisa::ingress_front`]; Table 3.1: 16 NDP, 20 Homa), reassembly 3 (Table 3.1: 3),
//! packetization 9 (9), egress stage 0 for NDP (Table 3.1: 1; the deparser's first header beat
//! comes from configuration) or 1 for Homa (3): 26 cycles in all for NDP (Table 3.1: 29), 27 for
//! Homa (35), at every size. Every block passes one beat per cycle; see `nanotransport
//! throughput`.

pub use crate::presets::ShellParams;

/// A protocol's ingress program or egress stage, built from the shell's parameters.
pub trait ProgramBlock {
    /// The block for these parameters.
    fn for_params(params: &ShellParams) -> Self;
}

/// A protocol's ingress program: the match-action table its front is loaded with (action 1
/// DATA, 2 trimmed DATA, 3–15 the protocol's control packets; see [`crate::pisa::ingress_front`]).
pub trait IngressProgram: ProgramBlock {
    /// The front's match program for these parameters.
    fn match_program(params: &ShellParams) -> Vec<crate::pisa::match_action::MatchEntry>;
}

/// Defines a whole NIC type `$name<N, IW, BB, PW>` with the ingress program `$ingress<N, IW>` and the
/// egress stage `$egress<N, IW>` (see the module documentation); its `Default` is the preset
/// `$preset` of its size.
#[macro_export]
macro_rules! nic_shell {
    ($(#[$doc:meta])* $name:ident, $ingress:ident, $egress:ident, $preset:expr) => {
        $(#[$doc])*
        #[derive(LogicBlock, $crate::Blank)]
        pub struct $name<const N: usize, const IW: usize, const BB: usize, const PW: usize> {
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

            /// Parser, match stage, GetRxMsgInfo and the payload path, loaded with the program's
            /// match table.
            front: $crate::pisa::ingress_front::IngressFront<IW>,
            ingress: $ingress<N, IW>,
            egress: $egress<N, IW>,
            reassembly: $crate::nic::reassembly::Reassembly<N, IW, BB, PW>,
            tx: $crate::nic::tx_path::TxPath<N, IW, PW>,
            pktgen: $crate::nic::packet_generator::PacketGenerator<N, IW, 3>,
            /// The data stream into the arbiter, with a registered `tready` (zero latency): the
            /// arbiter's choice does not travel back through the egress stage and the transmit
            /// path within a cycle. Beat = {is_rtx, is_new_msg, flags, rank, credit, tx_msg_id,
            /// local_port, pkt_offset, msg_len, remote_port, remote_ip, tlast, tkeep, tdata}.
            data_skid: $crate::common::skid_buffer::SkidBuffer<211>,
            arbiter: $crate::nic::arbiter::Arbiter,
            deparser: $crate::pisa::deparser::Deparser,
            csr: $crate::nic::csr::AxiLiteCsr,
            status: $crate::nic::status_bank::StatusBank,

            cfg: Signal<Local, Bits<512>>,
            buffer_flags: Signal<Local, Bits<16>>,
            is_data_out: Signal<Local, Bit>,
            map_version: Constant<Bits<32>>,
            protocol_id: Constant<Bits<32>>,
            messages: Constant<Bits<32>>,
            datapath_bits: Constant<Bits<32>>,
        }

        impl<const N: usize, const IW: usize, const BB: usize, const PW: usize> $name<N, IW, BB, PW> {
            /// A NIC with these parameters (checked; panics with the one-line reason).
            pub fn new(params: &$crate::nic::shell::ShellParams) -> Self {
                if let Err(e) = params.check(IW, N, BB, PW) {
                    panic!("{e}");
                }
                Self {
                    front: $crate::pisa::ingress_front::IngressFront::new(
                        params.ip_protocol,
                        &<$ingress<N, IW> as $crate::nic::shell::IngressProgram>::match_program(params),
                    ),
                    ingress: <$ingress<N, IW> as $crate::nic::shell::ProgramBlock>::for_params(params),
                    egress: <$egress<N, IW> as $crate::nic::shell::ProgramBlock>::for_params(params),
                    reassembly: $crate::nic::reassembly::Reassembly::new(params.rx_classes),
                    tx: $crate::nic::tx_path::TxPath::new(&params.tx_classes),
                    deparser: $crate::pisa::deparser::Deparser::new(params.ip_protocol),
                    csr: $crate::nic::csr::AxiLiteCsr::new(params.config_defaults),
                    map_version: Constant::new(($crate::nic::status_bank::REGISTER_MAP_VERSION as u64).into()),
                    protocol_id: Constant::new((params.protocol_id as u64).into()),
                    messages: Constant::new((N as u64).into()),
                    datapath_bits: Constant::new(($crate::common::bundles::DATAPATH_BITS as u64).into()),
                    ..Self::blank()
                }
            }
        }

        /// The preset of this size ([`crate::presets::preset_params`]).
        impl<const N: usize, const IW: usize, const BB: usize, const PW: usize> Default for $name<N, IW, BB, PW> {
            fn default() -> Self {
                Self::new(&$crate::presets::preset_params($preset, N))
            }
        }

        impl<const N: usize, const IW: usize, const BB: usize, const PW: usize> Logic for $name<N, IW, BB, PW> {
            #[hdl_gen]
            fn update(&mut self) {
                clock!(self, clock, front, ingress, egress, reassembly, tx, pktgen, data_skid, arbiter, deparser, csr);
                self.front.reset.next = self.reset.val();
                self.ingress.reset.next = self.reset.val();
                self.egress.reset.next = self.reset.val();
                self.reassembly.reset.next = self.reset.val();
                self.tx.reset.next = self.reset.val();
                self.pktgen.reset.next = self.reset.val();
                self.arbiter.reset.next = self.reset.val();
                self.data_skid.reset.next = self.reset.val();
                self.deparser.reset.next = self.reset.val();
                self.csr.reset.next = self.reset.val();

                // ---------------- registers ----------------
                self.csr.axil.awaddr.next = self.s_axil_awaddr.val();
                self.csr.axil.awvalid.next = self.s_axil_awvalid.val();
                self.s_axil_awready.next = self.csr.axil.awready.val();
                self.csr.axil.wdata.next = self.s_axil_wdata.val();
                self.csr.axil.wstrb.next = self.s_axil_wstrb.val();
                self.csr.axil.wvalid.next = self.s_axil_wvalid.val();
                self.s_axil_wready.next = self.csr.axil.wready.val();
                self.s_axil_bresp.next = self.csr.axil.bresp.val();
                self.s_axil_bvalid.next = self.csr.axil.bvalid.val();
                self.csr.axil.bready.next = self.s_axil_bready.val();
                self.csr.axil.araddr.next = self.s_axil_araddr.val();
                self.csr.axil.arvalid.next = self.s_axil_arvalid.val();
                self.s_axil_arready.next = self.csr.axil.arready.val();
                self.s_axil_rdata.next = self.csr.axil.rdata.val();
                self.s_axil_rresp.next = self.csr.axil.rresp.val();
                self.s_axil_rvalid.next = self.csr.axil.rvalid.val();
                self.csr.axil.rready.next = self.s_axil_rready.val();
                self.cfg.next = self.csr.cfg.val();
                self.status.index.next = self.csr.status_index.val();
                self.csr.status_value.next = self.status.value.val();

                // ---------------- receive: MAC → ingress program → reassembly → CPU ----------------
                self.ingress.rtt_pkts.next = self.cfg.val().get_bits::<16>(160);
                self.ingress.cfg_overcommit.next = self.cfg.val().get_bits::<5>(384);
                self.ingress.cfg_unsched_prios.next = self.cfg.val().get_bits::<4>(416);
                self.ingress.cfg_dup_grant.next = self.cfg.val().get_bit(449); // CFG_RECOVERY_OPTIONS bit 1
                self.ingress.cfg_ack_policy.next = self.cfg.val().get_bits::<2>(480); // CFG_ACK_POLICY
                self.ingress.rel_valid.next = self.reassembly.release_valid.val();
                self.ingress.rel_slot.next = self.reassembly.release_slot.val();
                self.front.s_axis.tdata.next = self.s_axis_rx_tdata.val();
                self.front.s_axis.tkeep.next = self.s_axis_rx_tkeep.val();
                self.front.s_axis.tlast.next = self.s_axis_rx_tlast.val();
                self.front.s_axis.tvalid.next = self.s_axis_rx_tvalid.val();
                self.s_axis_rx_tready.next = self.front.s_axis.tready.val();

                self.reassembly.ingress_timeout.next = self.cfg.val().get_bits::<32>(256);
                $crate::common::bundles::RxMsgInfoRequestSource::join(&mut self.front.req, &mut self.reassembly.req);
                $crate::common::bundles::RxMsgInfoAnswerSource::join(&mut self.reassembly.resp, &mut self.front.resp);

                $crate::common::bundles::NicRxPacketSource::join(&mut self.front.m_axis, &mut self.reassembly.s_axis);
                self.probe_ingress_tvalid.next = self.front.m_axis.tvalid.val();
                self.probe_ingress_tready.next = self.reassembly.s_axis.tready.val();
                // Probes show tlast only with tvalid (a FIFO's tlast is its memory's read data).
                self.probe_ingress_tlast.next = self.front.m_axis.tvalid.val() & self.front.m_axis.tlast.val();

                // The front's decisions, the only thing the ingress program sees of a packet.
                $crate::common::bundles::ControlActionSource::join(&mut self.front.act, &mut self.ingress.act);
                $crate::common::bundles::DataAnswerSource::<IW>::join(&mut self.front.done, &mut self.ingress.done);

                self.m_axis_msg_tdata.next = self.reassembly.m_axis.tdata.val();
                self.m_axis_msg_tkeep.next = self.reassembly.m_axis.tkeep.val();
                self.m_axis_msg_tlast.next = self.reassembly.m_axis.tlast.val();
                self.m_axis_msg_tvalid.next = self.reassembly.m_axis.tvalid.val();
                self.reassembly.m_axis.tready.next = self.m_axis_msg_tready.val();

                // ---------------- events to the transmit path and the packet generator ----------------
                $crate::common::bundles::DeliveredEventSource::join(&mut self.ingress.dlv, &mut self.tx.dlv);
                $crate::common::bundles::CreditTxEventSource::join(&mut self.ingress.ctx, &mut self.tx.ctx);

                self.pktgen.cfg_pace_cycles.next = self.cfg.val().get_bits::<16>(288);
                self.pktgen.cfg_bucket_max.next = self.cfg.val().get_bits::<8>(320);
                $crate::common::bundles::CtrlPktEventSource::<IW>::join(&mut self.ingress.ev, &mut self.pktgen.ev);

                // ---------------- transmit: CPU → transmit path → egress stage → arbiter → deparser → MAC ----------------
                self.tx.default_credit.next = self.cfg.val().get_bits::<16>(160);
                self.tx.rto_cycles.next = self.cfg.val().get_bits::<32>(192);
                self.tx.timeout_threshold.next = self.cfg.val().get_bits::<8>(224);
                self.tx.rtx_first_expiry.next = self.cfg.val().get_bit(448); // CFG_RECOVERY_OPTIONS bit 0
                self.tx.probe_idle_timeout.next = self.cfg.val().get_bit(449); // bit 1
                self.tx.s_axis_msg.tdata.next = self.s_axis_msg_tdata.val();
                self.tx.s_axis_msg.tkeep.next = self.s_axis_msg_tkeep.val();
                self.tx.s_axis_msg.tlast.next = self.s_axis_msg_tlast.val();
                self.tx.s_axis_msg.tvalid.next = self.s_axis_msg_tvalid.val();
                self.s_axis_msg_tready.next = self.tx.s_axis_msg.tready.val();
                self.msg_id_valid.next = self.tx.msg_id_valid.val();
                self.msg_id.next = self.tx.msg_id.val();
                self.done_valid.next = self.tx.done_valid.val();
                self.tx.done_ready.next = self.done_ready.val();
                self.done_tx_msg_id.next = self.tx.done_tx_msg_id.val();
                self.done_abandoned.next = self.tx.done_abandoned.val();

                self.egress.rtt_pkts.next = self.cfg.val().get_bits::<16>(160);
                self.egress.cfg_unsched_prios.next = self.cfg.val().get_bits::<4>(416);
                $crate::common::bundles::PriorityWriteSource::<IW>::join(&mut self.ingress.prio_wr, &mut self.egress.prio_wr);
                $crate::common::bundles::NicPacketSource::join(&mut self.tx.m_axis_pkt, &mut self.egress.s_axis_pkt);
                self.probe_pkt_tvalid.next = self.tx.m_axis_pkt.tvalid.val();
                self.probe_pkt_tready.next = self.egress.s_axis_pkt.tready.val();
                self.probe_pkt_tlast.next = self.tx.m_axis_pkt.tvalid.val() & self.tx.m_axis_pkt.tlast.val();

                self.arbiter.ctrl_burst_limit.next = self.cfg.val().get_bits::<8>(352);
                $crate::common::bundles::NicPacketSource::join(&mut self.pktgen.m_axis, &mut self.arbiter.s_axis_ctrl);

                self.data_skid.s_valid.next = self.egress.m_axis_pkt.tvalid.val();
                self.egress.m_axis_pkt.tready.next = self.data_skid.s_ready.val();
                self.data_skid.s_data.next = ((((((((((((bit_cast::<211, 64>(self.egress.m_axis_pkt.tdata.val())
                    | (bit_cast::<211, 8>(self.egress.m_axis_pkt.tkeep.val()) << 64))
                    | (bit_cast::<211, 1>(self.egress.m_axis_pkt.tlast.val().into()) << 72))
                    | (bit_cast::<211, 32>(self.egress.m_axis_pkt.remote_ip.val()) << 73))
                    | (bit_cast::<211, 16>(self.egress.m_axis_pkt.remote_port.val()) << 105))
                    | (bit_cast::<211, 16>(self.egress.m_axis_pkt.msg_len.val()) << 121))
                    | (bit_cast::<211, 8>(self.egress.m_axis_pkt.pkt_offset.val()) << 137))
                    | (bit_cast::<211, 16>(self.egress.m_axis_pkt.local_port.val()) << 145))
                    | (bit_cast::<211, 16>(self.egress.m_axis_pkt.tx_msg_id.val()) << 161))
                    | (bit_cast::<211, 16>(self.egress.m_axis_pkt.credit.val()) << 177))
                    | (bit_cast::<211, 8>(self.egress.m_axis_pkt.rank.val()) << 193))
                    | (bit_cast::<211, 8>(self.egress.m_axis_pkt.flags.val()) << 201))
                    | (bit_cast::<211, 1>(self.egress.m_axis_pkt.is_new_msg.val().into()) << 209))
                    | (bit_cast::<211, 1>(self.egress.m_axis_pkt.is_rtx.val().into()) << 210);
                self.arbiter.s_axis_data.tvalid.next = self.data_skid.m_valid.val();
                self.data_skid.m_ready.next = self.arbiter.s_axis_data.tready.val();
                self.arbiter.s_axis_data.tdata.next = self.data_skid.m_data.val().get_bits::<64>(0);
                self.arbiter.s_axis_data.tkeep.next = self.data_skid.m_data.val().get_bits::<8>(64);
                self.arbiter.s_axis_data.tlast.next = self.data_skid.m_data.val().get_bit(72);
                self.arbiter.s_axis_data.remote_ip.next = self.data_skid.m_data.val().get_bits::<32>(73);
                self.arbiter.s_axis_data.remote_port.next = self.data_skid.m_data.val().get_bits::<16>(105);
                self.arbiter.s_axis_data.msg_len.next = self.data_skid.m_data.val().get_bits::<16>(121);
                self.arbiter.s_axis_data.pkt_offset.next = self.data_skid.m_data.val().get_bits::<8>(137);
                self.arbiter.s_axis_data.local_port.next = self.data_skid.m_data.val().get_bits::<16>(145);
                self.arbiter.s_axis_data.tx_msg_id.next = self.data_skid.m_data.val().get_bits::<16>(161);
                self.arbiter.s_axis_data.credit.next = self.data_skid.m_data.val().get_bits::<16>(177);
                self.arbiter.s_axis_data.rank.next = self.data_skid.m_data.val().get_bits::<8>(193);
                self.arbiter.s_axis_data.flags.next = self.data_skid.m_data.val().get_bits::<8>(201);
                self.arbiter.s_axis_data.is_new_msg.next = self.data_skid.m_data.val().get_bit(209);
                self.arbiter.s_axis_data.is_rtx.next = self.data_skid.m_data.val().get_bit(210);

                self.deparser.cfg_own_mac.next = bit_cast::<48, 32>(self.cfg.val().get_bits::<32>(0))
                    | (bit_cast::<48, 16>(self.cfg.val().get_bits::<16>(32)) << 32);
                self.deparser.cfg_peer_mac.next = bit_cast::<48, 32>(self.cfg.val().get_bits::<32>(64))
                    | (bit_cast::<48, 16>(self.cfg.val().get_bits::<16>(96)) << 32);
                self.deparser.cfg_own_ip.next = self.cfg.val().get_bits::<32>(128);
                self.deparser.meta_remote_ip.next = self.arbiter.m_axis.remote_ip.val();
                self.deparser.meta_remote_port.next = self.arbiter.m_axis.remote_port.val();
                self.deparser.meta_msg_len.next = self.arbiter.m_axis.msg_len.val();
                self.deparser.meta_pkt_offset.next = self.arbiter.m_axis.pkt_offset.val();
                self.deparser.meta_local_port.next = self.arbiter.m_axis.local_port.val();
                self.deparser.meta_tx_msg_id.next = self.arbiter.m_axis.tx_msg_id.val();
                self.deparser.meta_credit.next = self.arbiter.m_axis.credit.val();
                // DATA: rank → DSCP; control packets: DSCP 0, rank → grant_prio.
                self.is_data_out.next = (self.arbiter.m_axis.flags.val() & 0x01) != 0;
                self.deparser.meta_rank.next = 0.into();
                self.deparser.meta_grant_prio.next = self.arbiter.m_axis.rank.val();
                if self.is_data_out.val() {
                    self.deparser.meta_rank.next = self.arbiter.m_axis.rank.val();
                    self.deparser.meta_grant_prio.next = 0.into();
                }
                self.deparser.meta_flags.next = self.arbiter.m_axis.flags.val();
                self.deparser.meta_buf_ptr.next = 0.into();
                self.deparser.meta_buf_size_class.next = 0.into();
                self.deparser.s_axis.tdata.next = self.arbiter.m_axis.tdata.val();
                self.deparser.s_axis.tkeep.next = self.arbiter.m_axis.tkeep.val();
                self.deparser.s_axis.tlast.next = self.arbiter.m_axis.tlast.val();
                self.deparser.s_axis.tvalid.next = self.arbiter.m_axis.tvalid.val();
                self.arbiter.m_axis.tready.next = self.deparser.s_axis.tready.val();
                self.m_axis_tx_tdata.next = self.deparser.m_axis.tdata.val();
                self.m_axis_tx_tkeep.next = self.deparser.m_axis.tkeep.val();
                self.m_axis_tx_tlast.next = self.deparser.m_axis.tlast.val();
                self.m_axis_tx_tvalid.next = self.deparser.m_axis.tvalid.val();
                self.deparser.m_axis.tready.next = self.m_axis_tx_tready.val();

                // ---------------- status bank (one map for every protocol and size) ----------------
                self.status.map_version.next = self.map_version.val();
                self.status.protocol_id.next = self.protocol_id.val();
                self.status.messages.next = self.messages.val();
                self.status.datapath_bits.next = self.datapath_bits.val();
                self.status.frame_count.next = self.front.frame_count.val();
                self.status.not_ipv4_count.next = self.front.not_ipv4_count.val();
                self.status.wrong_protocol_count.next = self.front.wrong_protocol_count.val();
                self.status.too_short_count.next = self.front.too_short_count.val();
                self.status.bad_checksum_count.next = self.front.bad_checksum_count.val();
                self.status.bad_flags_count.next = self.front.bad_flags_count.val();
                self.status.data_count.next = self.front.data_count.val();
                self.status.chop_count.next = self.front.chop_count.val();
                self.status.control_count.next = self.front.control_count.val();
                self.status.no_action_count.next = self.front.no_action_count.val();
                self.status.bad_length_count.next = self.front.bad_length_count.val();
                self.status.bad_frame_length_count.next = self.front.bad_frame_length_count.val();
                self.status.rx_fail_count.next = self.front.rx_fail_count.val();
                self.status.duplicate_data_count.next = self.front.duplicate_data_count.val();
                self.status.forwarded_count.next = self.front.forwarded_count.val();
                self.status.offset_range_count.next = self.ingress.counters.offset_range_count.val();
                self.status.grant_sent_count.next = self.ingress.counters.grant_sent_count.val();
                self.status.ack_sent_count.next = self.ingress.counters.ack_sent_count.val();
                self.status.nack_sent_count.next = self.ingress.counters.nack_sent_count.val();
                self.status.sched_inserts_count.next = self.ingress.counters.sched_inserts_count.val();
                self.status.sched_removes_count.next = self.ingress.counters.sched_removes_count.val();
                self.status.sched_unknown_removes_count.next = self.ingress.counters.sched_unknown_removes_count.val();
                self.status.sched_fifo_enters_count.next = self.ingress.counters.sched_fifo_enters_count.val();
                self.status.sched_levels.next = self.ingress.counters.sched_levels.val();
                self.status.fail_zero_len_count.next = self.reassembly.table_counters.fail_zero_len_count.val();
                self.status.fail_too_long_count.next = self.reassembly.table_counters.fail_too_long_count.val();
                self.status.fail_bad_offset_count.next = self.reassembly.table_counters.fail_bad_offset_count.val();
                self.status.fail_len_mismatch_count.next = self.reassembly.table_counters.fail_len_mismatch_count.val();
                self.status.fail_no_id_count.next = self.reassembly.table_counters.fail_no_id_count.val();
                self.status.fail_no_buffer_count.next = self.reassembly.table_counters.fail_no_buffer_count.val();
                self.status.fail_bucket_full_count.next = self.reassembly.table_counters.fail_bucket_full_count.val();
                self.status.rx_duplicate_count.next = self.reassembly.table_counters.duplicate_count.val();
                self.status.recent_duplicate_count.next = self.reassembly.table_counters.recent_duplicate_count.val();
                self.status.delivered_set_full_wait_count.next = self.reassembly.table_counters.full_wait_count.val();
                self.status.class_fallback_count.next = self.reassembly.table_counters.class_fallback_count.val();
                self.status.drop_stale_count.next = self.reassembly.drop_stale_count.val();
                self.status.drop_bad_offset_count.next = self.reassembly.drop_bad_offset_count.val();
                self.status.drop_duplicate_count.next = self.reassembly.drop_duplicate_count.val();
                self.status.drop_bad_length_count.next = self.reassembly.drop_bad_length_count.val();
                self.status.gc_count.next = self.reassembly.gc_count.val();
                self.status.rx_stale_timeout_count.next = self.reassembly.stale_timeout_count.val();
                self.status.rx_delivered_count.next = self.reassembly.delivered_count.val();
                self.status.rx_busy_slots.next = bit_cast::<32, N>(self.reassembly.busy_slots.val());
                self.status.rx_busy_any.next = self.reassembly.busy_slots.val().any().into();
                self.status.rejected_msg_count.next = self.tx.rejected_msg_count.val();
                self.status.framing_error_count.next = self.tx.framing_error_count.val();
                self.status.stale_delivered_count.next = self.tx.stale_delivered_count.val();
                self.status.stale_credit_count.next = self.tx.stale_credit_count.val();
                self.status.tx_stale_timeout_count.next = self.tx.stale_timeout_count.val();
                self.status.ack_beyond_count.next = self.tx.ack_beyond_count.val();
                self.status.rtx_beyond_count.next = self.tx.rtx_beyond_count.val();
                self.status.credit_beyond_count.next = self.tx.credit_beyond_count.val();
                self.status.tx_delivered_msg_count.next = self.tx.delivered_msg_count.val();
                self.status.abandoned_msg_count.next = self.tx.abandoned_msg_count.val();
                self.status.write_busy_count.next = self.tx.write_busy_count.val();
                self.status.buffer_double_free_count.next = self.tx.buffer_double_free_count.val();
                self.status.tx_cooling_slots.next = self.tx.cooling_slots.val();
                self.status.event_overflow_count.next = self.tx.event_overflow_count.val();
                self.status.tx_active_slots.next = bit_cast::<32, N>(self.tx.active.val());
                self.status.tx_active_any.next = self.tx.active.val().any().into();
                // buffer_flags: bits 4–0 the receive free lists full (IDs, classes 0–3), bit 8 every
                // transmit buffer free, bit 9 a transmit size class exhausted.
                self.buffer_flags.next = (bit_cast::<16, 5>(self.reassembly.free_lists_full.val())
                    | (bit_cast::<16, 1>(self.tx.buffers_all_free.val().into()) << 8))
                    | (bit_cast::<16, 1>(self.tx.buffers_exhausted.val().into()) << 9);
                self.status.buffer_flags.next = self.buffer_flags.val();
                self.status.ctrl_sent_count.next = self.pktgen.ctrl_sent_count.val();
                self.status.pull_sent_count.next = self.pktgen.pull_sent_count.val();
                self.status.merged_count.next = self.pktgen.merged_count.val();
                self.status.pull_coalesced_count.next = self.pktgen.pull_coalesced_count.val();
                self.status.pull_replaced_count.next = self.pktgen.pull_replaced_count.val();
                self.status.ctrl_dropped_count.next = self.pktgen.dropped_count.val();
                self.status.arbiter_ctrl_packet_count.next = self.arbiter.ctrl_packet_count.val();
                self.status.arbiter_data_packet_count.next = self.arbiter.data_packet_count.val();
                self.status.tx_frame_count.next = self.deparser.frame_count.val();
                self.status.tx_length_mismatch_count.next = self.deparser.length_mismatch_count.val();
                self.status.csr_error_count.next = self.csr.error_count.val();
            }
        }
    };
}
