//! Natively stepped rust-hdl blocks, with their ports named as in the generated Verilog.
//!
//! rust-hdl's `Simulation` runs testbenches on threads and is slow; here a block is stepped
//! directly: inputs are written to `.next`, the circuit is settled with
//! [`rust_hdl::prelude::simulate`], and the clock is toggled by hand.

use nanotransport_hdl::common::{
    bitmap_all_any::BitmapAllAny, event_counter::EventCounter, find_first_set::FindFirstSet, free_list::FreeList, one_hot::OneHot,
    ones_until::OnesUntil, popcount::Popcount, skid_buffer::SkidBuffer,
};
use nanotransport_hdl::nic::message_read_out::MessageReadOut;
use nanotransport_hdl::nic::packet_choice::PacketChoice;
use nanotransport_hdl::nic::packet_read_out::PacketReadOut;
use nanotransport_hdl::nic::rx_buffer_classes::RxBufferClasses;
use nanotransport_hdl::nic::slot_update::SlotUpdate;
use nanotransport_hdl::nic::timer::Timer;
use rust_hdl::prelude::*;

/// Conversion between a port's rust-hdl type and little-endian 64-bit words.
pub trait PortBits: Sized {
    fn to_words(&self) -> Vec<u64>;
    fn from_words(words: &[u64]) -> Self;
}

impl PortBits for bool {
    fn to_words(&self) -> Vec<u64> {
        vec![*self as u64]
    }
    fn from_words(words: &[u64]) -> Self {
        words.first().is_some_and(|w| w & 1 == 1)
    }
}

impl<const N: usize> PortBits for Bits<N> {
    fn to_words(&self) -> Vec<u64> {
        if N <= 64 {
            vec![self.to_u64()]
        } else {
            let mut words = vec![0u64; N.div_ceil(64)];
            for i in 0..N {
                if self.get_bit(i) {
                    words[i / 64] |= 1 << (i % 64);
                }
            }
            words
        }
    }
    fn from_words(words: &[u64]) -> Self {
        if N <= 64 {
            let w = words.first().copied().unwrap_or(0);
            let w = if N == 64 { w } else { w & ((1u64 << N) - 1) };
            w.into()
        } else {
            let mut v = Bits::<N>::default();
            for i in 0..N {
                let bit = words.get(i / 64).is_some_and(|w| (w >> (i % 64)) & 1 == 1);
                v = v.replace_bit(i, bit);
            }
            v
        }
    }
}

/// A rust-hdl block whose top-level ports are addressable by their Verilog names.
pub trait NativeDut: Block + Default {
    /// Input ports other than `clock`, in a fixed order.
    const INPUTS: &'static [&'static str];
    /// Output ports, in a fixed order.
    const OUTPUTS: &'static [&'static str];
    /// Whether the block has a `clock` input.
    const CLOCKED: bool;
    fn set_input(&mut self, index: usize, words: &[u64]);
    fn get_output(&self, index: usize) -> Vec<u64>;
    fn set_clock(&mut self, high: bool);
}

/// Implements [`NativeDut`] for a block from the names of its ports (`bundle.member` for a
/// member of a port bundle).
#[macro_export]
macro_rules! native_dut {
    ($ty:ty, clocked: $clocked:tt, inputs: [$($i:ident $(. $im:ident)?),* $(,)?], outputs: [$($o:ident $(. $om:ident)?),* $(,)?]) => {
        impl $crate::cosim::native::NativeDut for $ty {
            // A bundle member `bundle.member` is the Verilog port `bundle$member`.
            const INPUTS: &'static [&'static str] = &[$(concat!(stringify!($i) $(, "$", stringify!($im))?)),*];
            const OUTPUTS: &'static [&'static str] = &[$(concat!(stringify!($o) $(, "$", stringify!($om))?)),*];
            const CLOCKED: bool = $clocked;
            #[allow(unused_variables, unused_mut, unused_assignments)]
            fn set_input(&mut self, index: usize, words: &[u64]) {
                let mut k = 0usize;
                $(
                    if index == k {
                        self.$i $(.$im)?.next = $crate::cosim::native::PortBits::from_words(words);
                        return;
                    }
                    k += 1;
                )*
                panic!("input index {index} out of range");
            }
            #[allow(unused_assignments)]
            fn get_output(&self, index: usize) -> Vec<u64> {
                let mut k = 0usize;
                $(
                    if index == k {
                        return $crate::cosim::native::PortBits::to_words(&self.$o $(.$om)?.val());
                    }
                    k += 1;
                )*
                panic!("output index {index} out of range");
            }
            fn set_clock(&mut self, high: bool) {
                $crate::native_dut!(@clock self, high, $clocked);
            }
        }
    };
    (@clock $self:ident, $high:ident, true) => { $self.clock.next = rust_hdl::prelude::Clock { clk: $high }; };
    (@clock $self:ident, $high:ident, false) => { let _ = $high; };
}

/// A natively stepped block.
pub struct NativeStepper<D: NativeDut> {
    pub dut: D,
}

impl<D: NativeDut> Default for NativeStepper<D> {
    fn default() -> Self {
        Self::new(D::default())
    }
}

impl<D: NativeDut> NativeStepper<D> {
    pub fn new(mut dut: D) -> Self {
        dut.connect_all();
        let mut s = NativeStepper { dut };
        s.settle();
        s
    }

    /// Settles combinational logic; panics if it oscillates.
    pub fn settle(&mut self) {
        assert!(simulate(&mut self.dut, 10_000), "the circuit did not settle (combinational loop?)");
    }

    /// One cycle with `reset` high, then `reset` low again (for a block with a `reset` input).
    pub fn reset(&mut self) {
        let index = D::INPUTS.iter().position(|p| *p == "reset").expect("a block with a reset input");
        self.dut.set_input(index, &[1]);
        self.settle();
        self.tick();
        self.dut.set_input(index, &[0]);
    }

    /// Rising then falling clock edge.
    pub fn tick(&mut self) {
        if D::CLOCKED {
            self.dut.set_clock(true);
            self.settle();
            self.dut.set_clock(false);
            self.settle();
        }
    }
}

native_dut!(FindFirstSet<64, 6>, clocked: false, inputs: [bitmap], outputs: [found, index, onehot]);
native_dut!(OnesUntil<64, 7>, clocked: false, inputs: [k], outputs: [mask]);
native_dut!(SkidBuffer<64>, clocked: true, inputs: [reset, s_valid, s_data, m_ready], outputs: [s_ready, m_valid, m_data]);
native_dut!(OneHot<16, 4>, clocked: false, inputs: [index, enable], outputs: [onehot]);
native_dut!(OneHot<128, 7>, clocked: false, inputs: [index, enable], outputs: [onehot]);
native_dut!(Popcount<64, 7>, clocked: false, inputs: [bitmap], outputs: [count]);
native_dut!(BitmapAllAny<64>, clocked: false, inputs: [bitmap], outputs: [all, any]);
native_dut!(nanotransport_hdl::common::frame_fifo::FrameFifo<512, 64, 6>, clocked: true,
    inputs: [reset, s_axis_tuser, s_axis.tdata, s_axis.tkeep, s_axis.tlast, s_axis.tvalid, m_axis.tready],
    outputs: [s_axis.tready, m_axis.tdata, m_axis.tkeep, m_axis.tlast, m_axis.tvalid, frame_count, bad_frame_count,
              overflow_count, level]);
native_dut!(nanotransport_hdl::common::stream_downsizer::StreamDownsizer, clocked: true,
    inputs: [reset, s_axis.tdata, s_axis.tkeep, s_axis.tlast, s_axis.tvalid, m_axis.tready],
    outputs: [s_axis.tready, m_axis.tdata, m_axis.tkeep, m_axis.tlast, m_axis.tvalid]);
native_dut!(nanotransport_hdl::common::cmac_edge::CmacEdge, clocked: true,
    inputs: [reset, rx_axis_tdata, rx_axis_tkeep, rx_axis_tlast, rx_axis_tvalid, rx_axis_tuser, m_axis_rx_tready,
             s_axis_tx_tdata, s_axis_tx_tkeep, s_axis_tx_tlast, s_axis_tx_tvalid, tx_axis_tready],
    outputs: [m_axis_rx_tdata, m_axis_rx_tkeep, m_axis_rx_tlast, m_axis_rx_tvalid, s_axis_tx_tready, tx_axis_tdata,
              tx_axis_tkeep, tx_axis_tlast, tx_axis_tvalid, tx_axis_tuser, rx_frame_count, rx_bad_frame_count,
              rx_overflow_count, tx_frame_count, tx_overflow_count, rx_fifo_level, tx_fifo_level]);
native_dut!(nanotransport_hdl::common::message_echo::MessageEcho, clocked: true,
    inputs: [reset, done_valid, done_abandoned, s_axis.tdata, s_axis.tkeep, s_axis.tlast, s_axis.tvalid, m_axis.tready],
    outputs: [done_ready, echoed_count, completed_count, abandoned_count, malformed_count, s_axis.tready, m_axis.tdata,
              m_axis.tkeep, m_axis.tlast, m_axis.tvalid]);
native_dut!(nanotransport_hdl::board::board_registers::BoardRegisters, clocked: true,
    inputs: [reset, values, s_axil.awaddr, s_axil.awvalid, s_axil.wdata, s_axil.wstrb, s_axil.wvalid, s_axil.bready,
             s_axil.araddr, s_axil.arvalid, s_axil.rready, m_axil.awready, m_axil.wready, m_axil.bresp, m_axil.bvalid,
             m_axil.arready, m_axil.rdata, m_axil.rresp, m_axil.rvalid],
    outputs: [s_axil.awready, s_axil.wready, s_axil.bresp, s_axil.bvalid, s_axil.arready, s_axil.rdata, s_axil.rresp,
              s_axil.rvalid, m_axil.awaddr, m_axil.awvalid, m_axil.wdata, m_axil.wstrb, m_axil.wvalid, m_axil.bready,
              m_axil.araddr, m_axil.arvalid, m_axil.rready]);
native_dut!(nanotransport_hdl::common::stream_upsizer::StreamUpsizer, clocked: true,
    inputs: [reset, s_axis.tdata, s_axis.tkeep, s_axis.tlast, s_axis.tvalid, m_axis.tready],
    outputs: [s_axis.tready, m_axis.tdata, m_axis.tkeep, m_axis.tlast, m_axis.tvalid]);
native_dut!(nanotransport_hdl::common::sized_ram::SizedRam<Bits<8>, 4>, clocked: true,
    inputs: [read_address, write_address, write_data, write_enable], outputs: [read_data]);
native_dut!(EventCounter<4, false>, clocked: true, inputs: [reset, increment], outputs: [count]);
native_dut!(EventCounter<4, true>, clocked: true, inputs: [reset, increment], outputs: [count]);

macro_rules! free_list_dut {
    ($($n:literal, $iw:literal);*) => {$(
        native_dut!(FreeList<$n, $iw>, clocked: true,
            inputs: [reset, alloc_ready, free_valid, free_id],
            outputs: [alloc_valid, alloc_id, empty, full, double_free_count]);
    )*};
}
free_list_dut!(16, 4; 128, 7);

native_dut!(RxBufferClasses<128, 7>, clocked: true,
    inputs: [reset, msg_len, request_fits, take, take_class, free_valid, free_class, free_index],
    outputs: [fits, chosen, chosen_index, chosen_page, fallback, exhausted, full]);

native_dut!(nanotransport_hdl::pisa::waiting_queue::WaitingQueue<4>, clocked: true,
    inputs: [reset, id, push, write_state, remaining, received, write_limits, total, granted, pop_allowed],
    outputs: [reading, reading_id, loading, load_id, load_remaining, load_received, load_total, load_granted, level]);

native_dut!(nanotransport_hdl::pisa::frame_length_check::FrameLengthCheck, clocked: true,
    inputs: [reset, beat, first, last, tkeep, ip_total_len, msg_len, pkt_offset],
    outputs: [verdict, frame_ok, data_length_ok]);

native_dut!(SlotUpdate<4>, clocked: false,
    inputs: [word, slot, id_known, active, kind, event_id, bitmap, rtx_flag, credit_flag, credit, allow, raise_only, rtx_p1,
        install_meta, default_credit, timeout_threshold, rtx_first_expiry, probe_idle_timeout],
    outputs: [updated, updated_active, id, schedule, schedule_meta, installed, completed, abandoned, stale_delivered,
        stale_credit, stale_timeout, write_busy, ack_beyond, rtx_beyond, credit_beyond]);

native_dut!(PacketChoice, clocked: false,
    inputs: [choose, delivered, tx, rtx, credit, allow, max],
    outputs: [send, offset, tx_after, rtx_after, max_after, more, is_new, is_rtx]);

native_dut!(MessageReadOut<4, 17>, clocked: true,
    inputs: [reset, start, header, payload_data, m_axis.tready],
    outputs: [ready, payload_address, done, done_slot, m_axis.tdata, m_axis.tkeep, m_axis.tlast, m_axis.tvalid]);

native_dut!(PacketReadOut<4, 17>, clocked: true,
    inputs: [reset, desc.valid, desc.slot, desc_base, desc.remote_ip, desc.remote_port, desc.msg_len, desc.offset,
        desc.local_port, desc.tx_msg_id, desc.credit, desc.rank, desc.flags, desc.is_new_msg, desc.is_rtx, payload_data,
        m_axis_pkt.tready],
    outputs: [desc.ready, payload_address, busy, busy_slot, m_axis_pkt.tdata, m_axis_pkt.tkeep, m_axis_pkt.tlast,
        m_axis_pkt.tvalid, m_axis_pkt.remote_ip, m_axis_pkt.remote_port, m_axis_pkt.msg_len, m_axis_pkt.pkt_offset,
        m_axis_pkt.local_port, m_axis_pkt.tx_msg_id, m_axis_pkt.credit, m_axis_pkt.rank, m_axis_pkt.flags,
        m_axis_pkt.is_new_msg, m_axis_pkt.is_rtx]);

macro_rules! timer_dut {
    ($($n:literal, $iw:literal);*) => {$(
        native_dut!(Timer<$n, $iw, 8>, clocked: true,
            inputs: [reset, now, sched_valid, sched_id, sched_delay, sched_meta, cancel_valid, cancel_id, timeout_ready],
            outputs: [timeout_valid, timeout_offered, timeout_id, timeout_meta]);
    )*};
}
timer_dut!(16, 4; 128, 7);
