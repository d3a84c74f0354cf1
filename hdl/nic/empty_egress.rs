//! The empty egress stage: a protocol without egress processing (NDP) plugs this into the
//! [NIC shell](crate::nic::shell). Packets pass through unchanged, combinationally.
//!
//! # Ports
//! The shell's egress interface: `s_axis_pkt_*` in (the transmit path's packets with their
//! Listing 3.2 metadata) and `m_axis_pkt_*` out (to the arbiter), with `tready` passed back;
//! `clock`, `reset`, `rtt_pkts`, `cfg_unsched_prios` and `prio_wr_*` belong to the interface and
//! are not read here.
//!
//! # Latency and throughput
//! 0 cycles; one beat per cycle. No state.

use crate::nic::shell::{ProgramBlock, ShellParams};
use rust_hdl::prelude::*;

/// The empty egress stage (see the module documentation).
#[derive(LogicBlock, Default)]
pub struct EmptyEgress<const N: usize, const IW: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub rtt_pkts: Signal<In, Bits<16>>,
    pub cfg_unsched_prios: Signal<In, Bits<4>>,
    pub prio_wr_valid: Signal<In, Bit>,
    pub prio_wr_index: Signal<In, Bits<IW>>,
    pub prio_wr_value: Signal<In, Bits<8>>,
    pub s_axis_pkt_tdata: Signal<In, Bits<64>>,
    pub s_axis_pkt_tkeep: Signal<In, Bits<8>>,
    pub s_axis_pkt_tlast: Signal<In, Bit>,
    pub s_axis_pkt_tvalid: Signal<In, Bit>,
    pub s_axis_pkt_remote_ip: Signal<In, Bits<32>>,
    pub s_axis_pkt_remote_port: Signal<In, Bits<16>>,
    pub s_axis_pkt_msg_len: Signal<In, Bits<16>>,
    pub s_axis_pkt_pkt_offset: Signal<In, Bits<8>>,
    pub s_axis_pkt_local_port: Signal<In, Bits<16>>,
    pub s_axis_pkt_tx_msg_id: Signal<In, Bits<16>>,
    pub s_axis_pkt_credit: Signal<In, Bits<16>>,
    pub s_axis_pkt_rank: Signal<In, Bits<8>>,
    pub s_axis_pkt_flags: Signal<In, Bits<8>>,
    pub s_axis_pkt_is_new_msg: Signal<In, Bit>,
    pub s_axis_pkt_is_rtx: Signal<In, Bit>,
    pub s_axis_pkt_tready: Signal<Out, Bit>,
    pub m_axis_pkt_tdata: Signal<Out, Bits<64>>,
    pub m_axis_pkt_tkeep: Signal<Out, Bits<8>>,
    pub m_axis_pkt_tlast: Signal<Out, Bit>,
    pub m_axis_pkt_tvalid: Signal<Out, Bit>,
    pub m_axis_pkt_remote_ip: Signal<Out, Bits<32>>,
    pub m_axis_pkt_remote_port: Signal<Out, Bits<16>>,
    pub m_axis_pkt_msg_len: Signal<Out, Bits<16>>,
    pub m_axis_pkt_pkt_offset: Signal<Out, Bits<8>>,
    pub m_axis_pkt_local_port: Signal<Out, Bits<16>>,
    pub m_axis_pkt_tx_msg_id: Signal<Out, Bits<16>>,
    pub m_axis_pkt_credit: Signal<Out, Bits<16>>,
    pub m_axis_pkt_rank: Signal<Out, Bits<8>>,
    pub m_axis_pkt_flags: Signal<Out, Bits<8>>,
    pub m_axis_pkt_is_new_msg: Signal<Out, Bit>,
    pub m_axis_pkt_is_rtx: Signal<Out, Bit>,
    pub m_axis_pkt_tready: Signal<In, Bit>,
}

impl<const N: usize, const IW: usize> ProgramBlock for EmptyEgress<N, IW> {
    fn for_params(_params: &ShellParams) -> Self {
        Self::default()
    }
}

impl<const N: usize, const IW: usize> Logic for EmptyEgress<N, IW> {
    #[hdl_gen]
    fn update(&mut self) {
        self.m_axis_pkt_tdata.next = self.s_axis_pkt_tdata.val();
        self.m_axis_pkt_tkeep.next = self.s_axis_pkt_tkeep.val();
        self.m_axis_pkt_tlast.next = self.s_axis_pkt_tlast.val();
        self.m_axis_pkt_tvalid.next = self.s_axis_pkt_tvalid.val();
        self.m_axis_pkt_remote_ip.next = self.s_axis_pkt_remote_ip.val();
        self.m_axis_pkt_remote_port.next = self.s_axis_pkt_remote_port.val();
        self.m_axis_pkt_msg_len.next = self.s_axis_pkt_msg_len.val();
        self.m_axis_pkt_pkt_offset.next = self.s_axis_pkt_pkt_offset.val();
        self.m_axis_pkt_local_port.next = self.s_axis_pkt_local_port.val();
        self.m_axis_pkt_tx_msg_id.next = self.s_axis_pkt_tx_msg_id.val();
        self.m_axis_pkt_credit.next = self.s_axis_pkt_credit.val();
        self.m_axis_pkt_rank.next = self.s_axis_pkt_rank.val();
        self.m_axis_pkt_flags.next = self.s_axis_pkt_flags.val();
        self.m_axis_pkt_is_new_msg.next = self.s_axis_pkt_is_new_msg.val();
        self.m_axis_pkt_is_rtx.next = self.s_axis_pkt_is_rtx.val();
        self.s_axis_pkt_tready.next = self.m_axis_pkt_tready.val();
    }
}
