//! The logic of a board design with no host: a whole NIC between a 100 GbE MAC (the UltraScale+
//! CMAC's 512-bit AXI4-Streams) and the on-chip message echo, all in the MAC's user clock domain.
//! The board top (`fpga/vcu118/vcu118_top.v.in`) adds only what rust-hdl cannot describe: clock
//! buffers, the CMAC and JTAG-to-AXI cores, reset synchronisers and the LEDs.
//!
//! ```text
//!  CMAC rx_axis ─▶ CmacEdge (drop bad/no-room frames, 512→64) ─▶ NIC MAC RX
//!  CMAC tx_axis ◀─ CmacEdge (64→512, whole frames)            ◀─ NIC MAC TX
//!                         NIC m_axis_msg ─▶ MessageEcho ─▶ SkidBuffer ─▶ NIC s_axis_msg; completions taken
//!  s_axil (JTAG-to-AXI master) ─▶ the NIC's register map
//! ```
//! Any peer that speaks the NIC's protocol gets each message it sends back from the board; the
//! counters (edge and echo) go to the board's LEDs, and the NIC's own status is read over
//! AXI4-Lite. [`board_nic!`](crate::board_nic) defines the board NIC for one NIC type; it is expanded for NDP
//! ([`NdpBoardNic`]) and Homa/Homa-Tr ([`HomaBoardNic`]), generic in the NIC's sizes.
//!
//! # Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock`, `reset` | in | 1 | the CMAC's user clock and a synchronous reset (every block) |
//! | `rx_axis_tdata`, `_tkeep`, `_tlast`, `_tvalid`, `_tuser` | in | 512, 64, 1, 1, 1 | the CMAC's receive stream (no `tready`) |
//! | `tx_axis_tdata`, `_tkeep`, `_tlast`, `_tvalid`, `_tuser`, `_tready` | out/in | 512, 64, 1, 1, 1, 1 | the CMAC's transmit stream |
//! | `s_axil_*` | | | the NIC's AXI4-Lite port, unchanged (12-bit byte addresses) |
//! | `rx_frame_count`, `rx_bad_frame_count`, `rx_overflow_count`, `tx_frame_count`, `tx_overflow_count` | out | 32 | the edge's counters ([`crate::common::cmac_edge::CmacEdge`]) |
//! | `echoed_count`, `completed_count`, `abandoned_count`, `malformed_count` | out | 32 | the echo's counters ([`crate::common::message_echo::MessageEcho`]) |
//!
//! # Latency and throughput
//! A frame's path through the board NIC: the edge's 3 cycles each way
//! ([`crate::common::cmac_edge`]) plus the NIC's stages (thesis Table 3.1; `nanotransport
//! latency`), the echo's 2 cycles of message header (the skid buffer adds none). Throughput is the 64-bit NIC's: 8 bytes a
//! cycle, 20.6 Gb/s at 322 MHz.
//!
//! Yosys xcup, ndp-16's board NIC (`nt_ndp_16_board_nic`, the project's flow with the hierarchy
//! kept, as `nanotransport synth` runs it): 29 553 LUTs, 15 557 flip-flops, 2 136 LUTs as LUTRAM,
//! 641 BRAM36 and 15 BRAM18, 1 DSP — the ndp-16 NIC (25 462 LUTs, 12 550 flip-flops) plus the
//! edge (3 123 LUTs, 2 682 flip-flops, its receive FIFO's BRAM18s), the echo, the skid buffer and
//! the register split. Yosys' `check` finds no combinational loop.

/// Defines the board NIC `$name<N, IW, BB, PW>` around the whole NIC `$nic<N, IW, BB, PW>`.
#[macro_export]
macro_rules! board_nic {
    ($(#[$doc:meta])* $name:ident, $nic:ident) => {
        $(#[$doc])*
        #[$crate::ports(
            in clock: Clock;
            in reset: Bit;
            in rx_axis_tdata: Bits<512>;
            in rx_axis_tkeep: Bits<64>;
            in rx_axis_tlast, rx_axis_tvalid, rx_axis_tuser: Bit;
            out tx_axis_tdata: Bits<512>;
            out tx_axis_tkeep: Bits<64>;
            out tx_axis_tlast, tx_axis_tvalid, tx_axis_tuser: Bit;
            in tx_axis_tready: Bit;
            /// The MAC's receive status (link up, aligned), shown in board register 10.
            in link_up: Bit;
            in s_axil_awaddr: Bits<12>;
            in s_axil_awvalid: Bit;
            out s_axil_awready: Bit;
            in s_axil_wdata: Bits<32>;
            in s_axil_wstrb: Bits<4>;
            in s_axil_wvalid: Bit;
            out s_axil_wready: Bit;
            out s_axil_bresp: Bits<2>;
            out s_axil_bvalid: Bit;
            in s_axil_bready: Bit;
            in s_axil_araddr: Bits<12>;
            in s_axil_arvalid: Bit;
            out s_axil_arready: Bit;
            out s_axil_rdata: Bits<32>;
            out s_axil_rresp: Bits<2>;
            out s_axil_rvalid: Bit;
            in s_axil_rready: Bit;
            out rx_frame_count, rx_bad_frame_count, rx_overflow_count, tx_frame_count, tx_overflow_count: Bits<32>;
            out echoed_count, completed_count, abandoned_count, malformed_count: Bits<32>;
        )]
        #[derive(LogicBlock, $crate::Blank)]
        pub struct $name<const N: usize, const IW: usize, const BB: usize, const PW: usize> {
            mac_edge: $crate::common::cmac_edge::CmacEdge,
            nic: $nic<N, IW, BB, PW>,
            echo: $crate::common::message_echo::MessageEcho,
            /// Between the echo and the NIC's CPU TX: the echo passes `tready` through while it
            /// forwards a payload, so without it the NIC's transmit `tready` would reach its
            /// receive read-out within a cycle. Beat = {tlast, tkeep, tdata}.
            echo_skid: $crate::common::skid_buffer::SkidBuffer<73>,
            /// The register port split between the NIC (below 0x800) and the board registers.
            registers: $crate::board::board_registers::BoardRegisters,
            board_values: Signal<Local, Bits<512>>,
            map_version: Constant<Bits<32>>,
        }

        impl<const N: usize, const IW: usize, const BB: usize, const PW: usize> $name<N, IW, BB, PW> {
            /// The core around a NIC with these parameters (checked; panics with the one-line reason).
            pub fn new(params: &$crate::nic::shell::ShellParams) -> Self {
                Self::around($nic::new(params))
            }

            fn around(nic: $nic<N, IW, BB, PW>) -> Self {
                Self {
                    mac_edge: Default::default(),
                    nic,
                    echo: Default::default(),
                    map_version: Constant::new(($crate::board::board_registers::BOARD_MAP_VERSION as u64).into()),
                    ..Self::blank()
                }
            }
        }

        /// Around the NIC preset of this size.
        impl<const N: usize, const IW: usize, const BB: usize, const PW: usize> Default for $name<N, IW, BB, PW> {
            fn default() -> Self {
                Self::around(Default::default())
            }
        }

        impl<const N: usize, const IW: usize, const BB: usize, const PW: usize> Logic for $name<N, IW, BB, PW> {
            #[hdl_gen]
            fn update(&mut self) {
                clock!(self, clock, mac_edge, nic, echo, echo_skid, registers);
                self.mac_edge.reset.next = self.reset.val();
                self.nic.reset.next = self.reset.val();
                self.echo.reset.next = self.reset.val();
                self.echo_skid.reset.next = self.reset.val();
                self.registers.reset.next = self.reset.val();

                // The MAC side.
                self.mac_edge.rx_axis_tdata.next = self.rx_axis_tdata.val();
                self.mac_edge.rx_axis_tkeep.next = self.rx_axis_tkeep.val();
                self.mac_edge.rx_axis_tlast.next = self.rx_axis_tlast.val();
                self.mac_edge.rx_axis_tvalid.next = self.rx_axis_tvalid.val();
                self.mac_edge.rx_axis_tuser.next = self.rx_axis_tuser.val();
                self.tx_axis_tdata.next = self.mac_edge.tx_axis_tdata.val();
                self.tx_axis_tkeep.next = self.mac_edge.tx_axis_tkeep.val();
                self.tx_axis_tlast.next = self.mac_edge.tx_axis_tlast.val();
                self.tx_axis_tvalid.next = self.mac_edge.tx_axis_tvalid.val();
                self.tx_axis_tuser.next = self.mac_edge.tx_axis_tuser.val();
                self.mac_edge.tx_axis_tready.next = self.tx_axis_tready.val();

                // The edge ↔ the NIC's MAC ports.
                self.nic.s_axis_rx_tdata.next = self.mac_edge.m_axis_rx_tdata.val();
                self.nic.s_axis_rx_tkeep.next = self.mac_edge.m_axis_rx_tkeep.val();
                self.nic.s_axis_rx_tlast.next = self.mac_edge.m_axis_rx_tlast.val();
                self.nic.s_axis_rx_tvalid.next = self.mac_edge.m_axis_rx_tvalid.val();
                self.mac_edge.m_axis_rx_tready.next = self.nic.s_axis_rx_tready.val();
                self.mac_edge.s_axis_tx_tdata.next = self.nic.m_axis_tx_tdata.val();
                self.mac_edge.s_axis_tx_tkeep.next = self.nic.m_axis_tx_tkeep.val();
                self.mac_edge.s_axis_tx_tlast.next = self.nic.m_axis_tx_tlast.val();
                self.mac_edge.s_axis_tx_tvalid.next = self.nic.m_axis_tx_tvalid.val();
                self.nic.m_axis_tx_tready.next = self.mac_edge.s_axis_tx_tready.val();

                // The NIC's CPU side ↔ the echo.
                self.echo.s_axis.tdata.next = self.nic.m_axis_msg_tdata.val();
                self.echo.s_axis.tkeep.next = self.nic.m_axis_msg_tkeep.val();
                self.echo.s_axis.tlast.next = self.nic.m_axis_msg_tlast.val();
                self.echo.s_axis.tvalid.next = self.nic.m_axis_msg_tvalid.val();
                self.nic.m_axis_msg_tready.next = self.echo.s_axis.tready.val();
                self.echo_skid.s_data.next = ((bit_cast::<73, 1>(self.echo.m_axis.tlast.val().into()) << 72)
                    | (bit_cast::<73, 8>(self.echo.m_axis.tkeep.val()) << 64))
                    | bit_cast::<73, 64>(self.echo.m_axis.tdata.val());
                self.echo_skid.s_valid.next = self.echo.m_axis.tvalid.val();
                self.echo.m_axis.tready.next = self.echo_skid.s_ready.val();
                self.nic.s_axis_msg_tdata.next = self.echo_skid.m_data.val().get_bits::<64>(0);
                self.nic.s_axis_msg_tkeep.next = self.echo_skid.m_data.val().get_bits::<8>(64);
                self.nic.s_axis_msg_tlast.next = self.echo_skid.m_data.val().get_bit(72);
                self.nic.s_axis_msg_tvalid.next = self.echo_skid.m_valid.val();
                self.echo_skid.m_ready.next = self.nic.s_axis_msg_tready.val();
                self.echo.done_valid.next = self.nic.done_valid.val();
                self.echo.done_abandoned.next = self.nic.done_abandoned.val();
                self.nic.done_ready.next = self.echo.done_ready.val();

                // Registers: the port → the split → the NIC's register port (below 0x800) or the
                // board registers (0x800–0x83F).
                self.registers.s_axil.awaddr.next = self.s_axil_awaddr.val();
                self.registers.s_axil.awvalid.next = self.s_axil_awvalid.val();
                self.s_axil_awready.next = self.registers.s_axil.awready.val();
                self.registers.s_axil.wdata.next = self.s_axil_wdata.val();
                self.registers.s_axil.wstrb.next = self.s_axil_wstrb.val();
                self.registers.s_axil.wvalid.next = self.s_axil_wvalid.val();
                self.s_axil_wready.next = self.registers.s_axil.wready.val();
                self.s_axil_bresp.next = self.registers.s_axil.bresp.val();
                self.s_axil_bvalid.next = self.registers.s_axil.bvalid.val();
                self.registers.s_axil.bready.next = self.s_axil_bready.val();
                self.registers.s_axil.araddr.next = self.s_axil_araddr.val();
                self.registers.s_axil.arvalid.next = self.s_axil_arvalid.val();
                self.s_axil_arready.next = self.registers.s_axil.arready.val();
                self.s_axil_rdata.next = self.registers.s_axil.rdata.val();
                self.s_axil_rresp.next = self.registers.s_axil.rresp.val();
                self.s_axil_rvalid.next = self.registers.s_axil.rvalid.val();
                self.registers.s_axil.rready.next = self.s_axil_rready.val();
                self.nic.s_axil_awaddr.next = self.registers.m_axil.awaddr.val();
                self.nic.s_axil_awvalid.next = self.registers.m_axil.awvalid.val();
                self.registers.m_axil.awready.next = self.nic.s_axil_awready.val();
                self.nic.s_axil_wdata.next = self.registers.m_axil.wdata.val();
                self.nic.s_axil_wstrb.next = self.registers.m_axil.wstrb.val();
                self.nic.s_axil_wvalid.next = self.registers.m_axil.wvalid.val();
                self.registers.m_axil.wready.next = self.nic.s_axil_wready.val();
                self.registers.m_axil.bresp.next = self.nic.s_axil_bresp.val();
                self.registers.m_axil.bvalid.next = self.nic.s_axil_bvalid.val();
                self.nic.s_axil_bready.next = self.registers.m_axil.bready.val();
                self.nic.s_axil_araddr.next = self.registers.m_axil.araddr.val();
                self.nic.s_axil_arvalid.next = self.registers.m_axil.arvalid.val();
                self.registers.m_axil.arready.next = self.nic.s_axil_arready.val();
                self.registers.m_axil.rdata.next = self.nic.s_axil_rdata.val();
                self.registers.m_axil.rresp.next = self.nic.s_axil_rresp.val();
                self.registers.m_axil.rvalid.next = self.nic.s_axil_rvalid.val();
                self.nic.s_axil_rready.next = self.registers.m_axil.rready.val();
                // The board registers (map: BOARD_REGISTER_NAMES).
                self.board_values.next = ((((bit_cast::<512, 32>(self.mac_edge.rx_frame_count.val())
                    | (bit_cast::<512, 32>(self.mac_edge.rx_bad_frame_count.val()) << 32))
                    | ((bit_cast::<512, 32>(self.mac_edge.rx_overflow_count.val()) << 64)
                        | (bit_cast::<512, 32>(self.mac_edge.tx_frame_count.val()) << 96)))
                    | (((bit_cast::<512, 32>(self.mac_edge.tx_overflow_count.val()) << 128)
                        | (bit_cast::<512, 32>(self.echo.echoed_count.val()) << 160))
                        | ((bit_cast::<512, 32>(self.echo.completed_count.val()) << 192)
                            | (bit_cast::<512, 32>(self.echo.abandoned_count.val()) << 224))))
                    | ((((bit_cast::<512, 32>(self.echo.malformed_count.val()) << 256)
                        | (bit_cast::<512, 16>(self.mac_edge.rx_fifo_level.val()) << 288))
                        | ((bit_cast::<512, 16>(self.mac_edge.tx_fifo_level.val()) << 304)
                            | (bit_cast::<512, 1>(self.link_up.val().into()) << 320)))
                        | (bit_cast::<512, 32>(self.map_version.val()) << 480)));
                self.registers.values.next = self.board_values.val();

                // Counters.
                self.rx_frame_count.next = self.mac_edge.rx_frame_count.val();
                self.rx_bad_frame_count.next = self.mac_edge.rx_bad_frame_count.val();
                self.rx_overflow_count.next = self.mac_edge.rx_overflow_count.val();
                self.tx_frame_count.next = self.mac_edge.tx_frame_count.val();
                self.tx_overflow_count.next = self.mac_edge.tx_overflow_count.val();
                self.echoed_count.next = self.echo.echoed_count.val();
                self.completed_count.next = self.echo.completed_count.val();
                self.abandoned_count.next = self.echo.abandoned_count.val();
                self.malformed_count.next = self.echo.malformed_count.val();
            }
        }
    };
}

use crate::protocols::homa::ingress::HomaNic;
use crate::protocols::ndp::ingress::NdpNic;
use rust_hdl::prelude::*;

board_nic!(
    /// The board NIC around an NDP NIC.
    NdpBoardNic,
    NdpNic
);
board_nic!(
    /// The board NIC around a Homa or Homa-Tr NIC.
    HomaBoardNic,
    HomaNic
);
