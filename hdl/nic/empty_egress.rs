//! The empty egress stage: a protocol without egress processing (NDP) plugs this into the
//! [NIC shell](crate::nic::shell). Packets pass through unchanged, combinationally.
//!
//! # Ports
//! The shell's egress interface: `s_axis_pkt` in (the transmit path's packets with their
//! Listing 3.2 metadata) and `m_axis_pkt` out (to the arbiter), with `tready` passed back;
//! `clock`, `reset`, `rtt_pkts`, `cfg_unsched_prios` and `prio_wr` belong to the interface and
//! are not read here.
//!
//! # Latency and throughput
//! 0 cycles; one beat per cycle. No state.

use crate::common::bundles::{NicPacketSink, NicPacketSource, PriorityWriteSink};
use crate::nic::shell::{ProgramBlock, ShellParams};
use crate::ports;
use rust_hdl::prelude::*;

/// The empty egress stage (see the module documentation).
#[ports(
    in clock: Clock;
    in reset: Bit;
    in rtt_pkts: Bits<16>;
    in cfg_unsched_prios: Bits<4>;
)]
#[derive(LogicBlock, Default)]
pub struct EmptyEgress<const N: usize, const IW: usize> {
    pub prio_wr: PriorityWriteSink<IW>,
    pub s_axis_pkt: NicPacketSink,
    pub m_axis_pkt: NicPacketSource,
}

impl<const N: usize, const IW: usize> ProgramBlock for EmptyEgress<N, IW> {
    fn for_params(_params: &ShellParams) -> Self {
        Self::default()
    }
}

impl<const N: usize, const IW: usize> Logic for EmptyEgress<N, IW> {
    #[hdl_gen]
    fn update(&mut self) {
        self.m_axis_pkt.tdata.next = self.s_axis_pkt.tdata.val();
        self.m_axis_pkt.tkeep.next = self.s_axis_pkt.tkeep.val();
        self.m_axis_pkt.tlast.next = self.s_axis_pkt.tlast.val();
        self.m_axis_pkt.tvalid.next = self.s_axis_pkt.tvalid.val();
        self.m_axis_pkt.remote_ip.next = self.s_axis_pkt.remote_ip.val();
        self.m_axis_pkt.remote_port.next = self.s_axis_pkt.remote_port.val();
        self.m_axis_pkt.msg_len.next = self.s_axis_pkt.msg_len.val();
        self.m_axis_pkt.pkt_offset.next = self.s_axis_pkt.pkt_offset.val();
        self.m_axis_pkt.local_port.next = self.s_axis_pkt.local_port.val();
        self.m_axis_pkt.tx_msg_id.next = self.s_axis_pkt.tx_msg_id.val();
        self.m_axis_pkt.credit.next = self.s_axis_pkt.credit.val();
        self.m_axis_pkt.rank.next = self.s_axis_pkt.rank.val();
        self.m_axis_pkt.flags.next = self.s_axis_pkt.flags.val();
        self.m_axis_pkt.is_new_msg.next = self.s_axis_pkt.is_new_msg.val();
        self.m_axis_pkt.is_rtx.next = self.s_axis_pkt.is_rtx.val();
        self.s_axis_pkt.tready.next = self.m_axis_pkt.tready.val();
    }
}
