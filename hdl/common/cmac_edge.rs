//! The NIC's side of a 100 GbE MAC (the UltraScale+ CMAC's 512-bit AXI4-Streams at 322 MHz) for a
//! NIC with a 64-bit datapath: what a board design puts between the two.
//!
//! ```text
//!  CMAC rx_axis (no tready) → FrameFifo, dropping (512 beats) → StreamDownsizer → m_axis_rx (64 bits, to the NIC)
//!  CMAC tx_axis ← FrameFifo, lossless (64 beats) ← StreamUpsizer ← s_axis_tx (64 bits, from the NIC)
//! ```
//! Receive: frames the CMAC flags bad (`rx_axis_tuser` on the last beat) and frames that arrive
//! while the FIFO is full are dropped whole and counted; a 64-bit NIC takes 8 bytes a cycle
//! (20.6 Gb/s at 322 MHz), so a longer burst at 100 Gb/s than the FIFO's 32 KiB holds overflows.
//! Transmit: a frame goes to the CMAC only once whole, so the CMAC never runs dry inside a frame
//! (it would send the frame corrupt); `tx_axis_tuser` (the CMAC's error insertion) stays 0. The
//! CMAC does not pad frames: the NIC's frames are at least 64 bytes.
//!
//! # Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock`, `reset` | in | 1 | the CMAC's user clock (`gt_txusrclk2`) and a synchronous reset |
//! | `rx_axis_tdata`, `_tkeep`, `_tlast`, `_tvalid`, `_tuser` | in | 512, 64, 1, 1, 1 | the CMAC's receive stream |
//! | `m_axis_rx_tdata`, `_tkeep`, `_tlast`, `_tvalid`, `_tready` | out/in | 64, 8, 1, 1, 1 | received frames to the NIC's MAC RX |
//! | `s_axis_tx_tdata`, `_tkeep`, `_tlast`, `_tvalid`, `_tready` | in/out | 64, 8, 1, 1, 1 | frames from the NIC's MAC TX |
//! | `tx_axis_tdata`, `_tkeep`, `_tlast`, `_tvalid`, `_tuser`, `_tready` | out/in | 512, 64, 1, 1, 1, 1 | the CMAC's transmit stream |
//! | `rx_frame_count`, `rx_bad_frame_count`, `rx_overflow_count` | out | 32 | frames received whole, dropped bad, dropped for want of room |
//! | `tx_frame_count`, `tx_overflow_count` | out | 32 | frames sent, frames longer than the transmit FIFO (dropped) |
//! | `rx_fifo_level`, `tx_fifo_level` | out | 16 | 512-bit beats in each FIFO |
//!
//! # Latency and throughput
//! Receive: a frame's first 64-bit beat reaches the NIC 3 cycles after its last 512-bit beat
//! arrived (two in the FIFO, one in the downsizer). Transmit: a frame's first 512-bit beat reaches
//! the CMAC 3 cycles after the NIC's last 64-bit beat (one in the upsizer, two in the FIFO). One
//! 64-bit beat per cycle each way on the NIC's side.
//!
//! Yosys xcup (`blocks-16`: `cmac_edge`): 3 123 LUTs, 2 682 flip-flops, 744 LUTRAM (the transmit
//! FIFO), 1 BRAM36 and 15 BRAM18 (the receive FIFO's 512 × 577 bits), 6 LUT levels.
//! `nanotransport synth --config blocks-16 --block cmac_edge` prints it.

use crate::common::frame_fifo::FrameFifo;
use crate::common::stream_downsizer::StreamDownsizer;
use crate::common::stream_upsizer::StreamUpsizer;
use crate::{ports, Blank};
use rust_hdl::prelude::*;

/// Beats of the receive FIFO (2^9 × 64 bytes = 32 KiB) and of the transmit FIFO (2^6 × 64 bytes =
/// 4 KiB, more than the NIC's largest frame).
pub const RX_FIFO_BEATS_LOG2: usize = 9;
pub const TX_FIFO_BEATS_LOG2: usize = 6;

/// The CMAC edge of a 64-bit NIC.
#[ports(
    in clock: Clock;
    in reset: Bit;
    in rx_axis_tdata: Bits<512>;
    in rx_axis_tkeep: Bits<64>;
    in rx_axis_tlast, rx_axis_tvalid, rx_axis_tuser: Bit;
    out m_axis_rx_tdata: Bits<64>;
    out m_axis_rx_tkeep: Bits<8>;
    out m_axis_rx_tlast, m_axis_rx_tvalid: Bit;
    in m_axis_rx_tready: Bit;
    in s_axis_tx_tdata: Bits<64>;
    in s_axis_tx_tkeep: Bits<8>;
    in s_axis_tx_tlast, s_axis_tx_tvalid: Bit;
    out s_axis_tx_tready: Bit;
    out tx_axis_tdata: Bits<512>;
    out tx_axis_tkeep: Bits<64>;
    out tx_axis_tlast, tx_axis_tvalid, tx_axis_tuser: Bit;
    in tx_axis_tready: Bit;
    out rx_frame_count, rx_bad_frame_count, rx_overflow_count, tx_frame_count, tx_overflow_count: Bits<32>;
    out rx_fifo_level, tx_fifo_level: Bits<16>;
)]
#[derive(LogicBlock, Blank)]
pub struct CmacEdge {
    rx_fifo: FrameFifo<512, 64, RX_FIFO_BEATS_LOG2>,
    downsizer: StreamDownsizer,
    upsizer: StreamUpsizer,
    tx_fifo: FrameFifo<512, 64, TX_FIFO_BEATS_LOG2>,
}

impl Default for CmacEdge {
    fn default() -> Self {
        Self { rx_fifo: FrameFifo::dropping(), tx_fifo: FrameFifo::lossless(), ..Self::blank() }
    }
}

impl Logic for CmacEdge {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, rx_fifo, downsizer, upsizer, tx_fifo);
        self.rx_fifo.reset.next = self.reset.val();
        self.downsizer.reset.next = self.reset.val();
        self.upsizer.reset.next = self.reset.val();
        self.tx_fifo.reset.next = self.reset.val();

        // Receive: the CMAC → the FIFO (its tready is 1: the dropping kind) → 64 bits → the NIC.
        self.rx_fifo.s_axis.tdata.next = self.rx_axis_tdata.val();
        self.rx_fifo.s_axis.tkeep.next = self.rx_axis_tkeep.val();
        self.rx_fifo.s_axis.tlast.next = self.rx_axis_tlast.val();
        self.rx_fifo.s_axis.tvalid.next = self.rx_axis_tvalid.val();
        self.rx_fifo.s_axis_tuser.next = self.rx_axis_tuser.val();
        self.downsizer.s_axis.tdata.next = self.rx_fifo.m_axis.tdata.val();
        self.downsizer.s_axis.tkeep.next = self.rx_fifo.m_axis.tkeep.val();
        self.downsizer.s_axis.tlast.next = self.rx_fifo.m_axis.tlast.val();
        self.downsizer.s_axis.tvalid.next = self.rx_fifo.m_axis.tvalid.val();
        self.rx_fifo.m_axis.tready.next = self.downsizer.s_axis.tready.val();
        self.m_axis_rx_tdata.next = self.downsizer.m_axis.tdata.val();
        self.m_axis_rx_tkeep.next = self.downsizer.m_axis.tkeep.val();
        self.m_axis_rx_tlast.next = self.downsizer.m_axis.tlast.val();
        self.m_axis_rx_tvalid.next = self.downsizer.m_axis.tvalid.val();
        self.downsizer.m_axis.tready.next = self.m_axis_rx_tready.val();

        // Transmit: the NIC → 512 bits → whole frames → the CMAC.
        self.upsizer.s_axis.tdata.next = self.s_axis_tx_tdata.val();
        self.upsizer.s_axis.tkeep.next = self.s_axis_tx_tkeep.val();
        self.upsizer.s_axis.tlast.next = self.s_axis_tx_tlast.val();
        self.upsizer.s_axis.tvalid.next = self.s_axis_tx_tvalid.val();
        self.s_axis_tx_tready.next = self.upsizer.s_axis.tready.val();
        self.tx_fifo.s_axis.tdata.next = self.upsizer.m_axis.tdata.val();
        self.tx_fifo.s_axis.tkeep.next = self.upsizer.m_axis.tkeep.val();
        self.tx_fifo.s_axis.tlast.next = self.upsizer.m_axis.tlast.val();
        self.tx_fifo.s_axis.tvalid.next = self.upsizer.m_axis.tvalid.val();
        self.tx_fifo.s_axis_tuser.next = false;
        self.upsizer.m_axis.tready.next = self.tx_fifo.s_axis.tready.val();
        self.tx_axis_tdata.next = self.tx_fifo.m_axis.tdata.val();
        self.tx_axis_tkeep.next = self.tx_fifo.m_axis.tkeep.val();
        self.tx_axis_tlast.next = self.tx_fifo.m_axis.tlast.val();
        self.tx_axis_tvalid.next = self.tx_fifo.m_axis.tvalid.val();
        self.tx_axis_tuser.next = false;
        self.tx_fifo.m_axis.tready.next = self.tx_axis_tready.val();

        self.rx_frame_count.next = self.rx_fifo.frame_count.val();
        self.rx_bad_frame_count.next = self.rx_fifo.bad_frame_count.val();
        self.rx_overflow_count.next = self.rx_fifo.overflow_count.val();
        self.tx_frame_count.next = self.tx_fifo.frame_count.val();
        self.tx_overflow_count.next = self.tx_fifo.overflow_count.val();
        self.rx_fifo_level.next = self.rx_fifo.level.val();
        self.tx_fifo_level.next = self.tx_fifo.level.val();
    }
}
