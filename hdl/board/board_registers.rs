//! The board's registers beside the NIC's: an AXI4-Lite split that passes every access below
//! `0x800` to the NIC's register port and answers the window `0x800`–`0x83F` itself from 16
//! read-only board registers (the MAC edge's and the echo's counters, the link). The NIC's own
//! map leaves `0x800`–`0xFFF` unmapped ([`crate::nic::csr`]), so one 12-bit port holds both.
//!
//! # Address map (byte addresses, 32-bit words; `addr[1:0]` ignored)
//! | address | content |
//! |---|---|
//! | `0x000`–`0x7FF` | the NIC's ([`crate::nic::register_map`]), passed through unchanged |
//! | `0x800 + 4i`, i < 16 | board register i: bits 32i..32i+31 of `values` (read-only) |
//! | `0x840`–`0xFFF` | rejected: a read answers 0 and SLVERR |
//!
//! A write to `0x800`–`0xFFF` changes nothing and answers SLVERR.
//!
//! # Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock`, `reset` | in | 1 | synchronous reset: an access under way is dropped on both sides |
//! | `s_axil` ([`AxiLiteTarget`]) | | | from the master (JTAG-to-AXI on a board) |
//! | `m_axil` ([`AxiLiteInitiator`]) | | | to the NIC's register port |
//! | `values` | in | 512 | the 16 board registers, register i at bits 32i..32i+31, sampled when read |
//!
//! # Latency and throughput
//! Latency: a board register read answers 1 cycle after its AR (R valid in cycle t + 1); a board
//! write answers 1 cycle after its W (B valid in cycle t + 1). A NIC read adds 0 cycles to the
//! NIC's own (AR and R pass through combinationally; the NIC's register file answers 1 cycle
//! after AR, [`crate::nic::csr`]); a NIC write's W passes from the cycle after its AW was taken,
//! so AW and W offered together take 1 cycle more than at the NIC alone. Throughput: one read and one write
//! outstanding at a time, each side. A read: AR passes to the NIC in the
//! cycle it is offered (its `arready` is the NIC's), or a board register is sampled in the AR
//! cycle and answered in the next; the next AR is taken once R is handed over, so reads run one
//! per two cycles at best (the NIC's own register file takes one per cycle). A write: AW first
//! (passed to the NIC, or taken), then W (a W offered before its AW waits, as AXI allows), then
//! B; the next AW once B is handed over. No ready depends on a valid of the same channel, so no
//! combinational loop runs through a master.
//!
//! Yosys xcup (`blocks-16`: `board_registers`): 381 LUTs (most the 16-way read multiplexer), 40
//! flip-flops, 2 LUT levels; `nanotransport synth --config blocks-16 --block board_registers`.

use crate::common::bundles::{AxiLiteInitiator, AxiLiteTarget};
use crate::{locals, ports, registers};
use rust_hdl::prelude::*;

/// Byte address of board register 0.
pub const BOARD_REGISTER_BASE: u64 = 0x800;
/// Board registers.
pub const BOARD_REGISTERS: usize = 16;
/// Version of the board register map (board register 15).
pub const BOARD_MAP_VERSION: u32 = 1;
/// The board NIC's registers ([`crate::board::board_nic`]): (index, name, meaning). Indices not
/// listed read 0.
pub const BOARD_REGISTER_NAMES: &[(usize, &str, &str)] = &[
    (0, "rx_frame_count", "frames from the MAC kept whole (wrapping)"),
    (1, "rx_bad_frame_count", "frames the MAC flagged bad, dropped"),
    (2, "rx_overflow_count", "frames dropped: the receive FIFO was full"),
    (3, "tx_frame_count", "frames sent to the MAC"),
    (4, "tx_overflow_count", "frames longer than the transmit FIFO, dropped"),
    (5, "echoed_count", "messages sent back"),
    (6, "completed_count", "completions acknowledged"),
    (7, "abandoned_count", "completions abandoned"),
    (8, "malformed_count", "delivered messages too short to echo"),
    (9, "fifo_levels", "receive FIFO level (bits 15..0) and transmit FIFO level (31..16), 512-bit beats"),
    (10, "link_up", "bit 0: the MAC's receive status"),
    (15, "board_map_version", "version of this map"),
];

/// The AXI4-Lite split with the board's read-only registers.
#[ports(
    in clock: Clock;
    in reset: Bit;
    /// The 16 board registers, register i at bits 32i..32i+31.
    in values: Bits<512>;
)]
#[registers(
    /// A read is under way; it is the board's (not the NIC's); its answer is ready.
    rd_busy, rd_board, rd_ready: Bit;
    rd_data: Bits<32>;
    rd_resp: Bits<2>;
    /// A write's AW was taken; it is the board's; its W was taken.
    wr_busy, wr_board, w_done: Bit;
)]
#[locals(
    ar_board, ar_take, r_take, aw_board, aw_take, w_take, b_take, index_in_window: Bit;
    half: Bits<256>;
    quarter: Bits<128>;
    eighth: Bits<64>;
    value: Bits<32>;
)]
#[derive(LogicBlock, Default)]
pub struct BoardRegisters {
    pub s_axil: AxiLiteTarget,
    pub m_axil: AxiLiteInitiator,
}

impl Logic for BoardRegisters {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, rd_busy, rd_board, rd_ready, rd_data, rd_resp, wr_busy, wr_board, w_done);

        // ---- Read: AR to the NIC or answered here, one at a time.
        self.ar_board.next = self.s_axil.araddr.val().get_bit(11);
        self.s_axil.arready.next = false;
        if !(self.rd_busy.q.val() | self.reset.val()) {
            self.s_axil.arready.next = self.m_axil.arready.val();
            if self.ar_board.val() {
                self.s_axil.arready.next = true;
            }
        }
        self.m_axil.araddr.next = self.s_axil.araddr.val();
        self.m_axil.arvalid.next = (self.s_axil.arvalid.val() & (!self.ar_board.val())) & (!(self.rd_busy.q.val() | self.reset.val()));
        self.ar_take.next = self.s_axil.arvalid.val() & self.s_axil.arready.val();

        // The addressed board register: a tree of constant slices (address bits 5..2).
        self.half.next = self.values.val().get_bits::<256>(0);
        if self.s_axil.araddr.val().get_bit(5) {
            self.half.next = self.values.val().get_bits::<256>(256);
        }
        self.quarter.next = self.half.val().get_bits::<128>(0);
        if self.s_axil.araddr.val().get_bit(4) {
            self.quarter.next = self.half.val().get_bits::<128>(128);
        }
        self.eighth.next = self.quarter.val().get_bits::<64>(0);
        if self.s_axil.araddr.val().get_bit(3) {
            self.eighth.next = self.quarter.val().get_bits::<64>(64);
        }
        self.value.next = self.eighth.val().get_bits::<32>(0);
        if self.s_axil.araddr.val().get_bit(2) {
            self.value.next = self.eighth.val().get_bits::<32>(32);
        }
        self.index_in_window.next = self.s_axil.araddr.val().get_bits::<5>(6) == 0;

        self.s_axil.rvalid.next = self.rd_busy.q.val() & self.m_axil.rvalid.val();
        self.s_axil.rdata.next = self.m_axil.rdata.val();
        self.s_axil.rresp.next = self.m_axil.rresp.val();
        self.m_axil.rready.next = (self.s_axil.rready.val() & self.rd_busy.q.val()) & (!self.rd_board.q.val());
        if self.rd_board.q.val() {
            self.s_axil.rvalid.next = self.rd_ready.q.val();
            self.s_axil.rdata.next = self.rd_data.q.val();
            self.s_axil.rresp.next = self.rd_resp.q.val();
        }
        self.r_take.next = self.s_axil.rvalid.val() & self.s_axil.rready.val();

        if self.ar_take.val() {
            self.rd_busy.d.next = true;
            self.rd_board.d.next = self.ar_board.val();
            self.rd_ready.d.next = self.ar_board.val();
            self.rd_data.d.next = 0.into();
            self.rd_resp.d.next = 2.into();
            if self.index_in_window.val() {
                self.rd_data.d.next = self.value.val();
                self.rd_resp.d.next = 0.into();
            }
        }
        if self.r_take.val() {
            self.rd_busy.d.next = false;
            self.rd_ready.d.next = false;
        }

        // ---- Write: AW, then W, then B, one at a time.
        self.aw_board.next = self.s_axil.awaddr.val().get_bit(11);
        self.s_axil.awready.next = false;
        if !(self.wr_busy.q.val() | self.reset.val()) {
            self.s_axil.awready.next = self.m_axil.awready.val();
            if self.aw_board.val() {
                self.s_axil.awready.next = true;
            }
        }
        self.m_axil.awaddr.next = self.s_axil.awaddr.val();
        self.m_axil.awvalid.next = (self.s_axil.awvalid.val() & (!self.aw_board.val())) & (!(self.wr_busy.q.val() | self.reset.val()));
        self.aw_take.next = self.s_axil.awvalid.val() & self.s_axil.awready.val();

        self.m_axil.wdata.next = self.s_axil.wdata.val();
        self.m_axil.wstrb.next = self.s_axil.wstrb.val();
        self.m_axil.wvalid.next = false;
        self.s_axil.wready.next = false;
        if (self.wr_busy.q.val() & (!self.w_done.q.val())) & (!self.reset.val()) {
            self.m_axil.wvalid.next = self.s_axil.wvalid.val() & (!self.wr_board.q.val());
            self.s_axil.wready.next = self.m_axil.wready.val();
            if self.wr_board.q.val() {
                self.s_axil.wready.next = true;
            }
        }
        self.w_take.next = self.s_axil.wvalid.val() & self.s_axil.wready.val();

        // A board write's B follows its W (SLVERR: the board registers are read-only).
        self.s_axil.bvalid.next = self.wr_busy.q.val() & self.m_axil.bvalid.val();
        self.s_axil.bresp.next = self.m_axil.bresp.val();
        self.m_axil.bready.next = (self.s_axil.bready.val() & self.wr_busy.q.val()) & (!self.wr_board.q.val());
        if self.wr_board.q.val() {
            self.s_axil.bvalid.next = self.w_done.q.val();
            self.s_axil.bresp.next = 2.into();
        }
        self.b_take.next = self.s_axil.bvalid.val() & self.s_axil.bready.val();

        if self.aw_take.val() {
            self.wr_busy.d.next = true;
            self.wr_board.d.next = self.aw_board.val();
        }
        if self.w_take.val() {
            self.w_done.d.next = true;
        }
        if self.b_take.val() {
            self.wr_busy.d.next = false;
            self.w_done.d.next = false;
        }

        if self.reset.val() {
            self.rd_busy.d.next = false;
            self.rd_ready.d.next = false;
            self.wr_busy.d.next = false;
            self.w_done.d.next = false;
        }
    }
}
