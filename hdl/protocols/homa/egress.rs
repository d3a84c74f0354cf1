//! Homa's egress stage (thesis Algorithm 6, line 28), plugged into the
//! [NIC shell](crate::nic::shell): a register slice on the transmit path's DATA packets that
//! gives each packet its priority, which the deparser writes into the IPv4 DSCP bits.
//!
//! * Unscheduled packets (offset below `rtt_pkts`): priority 0, or U − 1 for a message longer
//!   than one BDP when U (`cfg_unsched_prios`) is not 0 (the prototype's rule; with U = 1
//!   always 0).
//! * Scheduled packets: the priority of the message's last GRANT (U + its position among the
//!   granted messages), read from the message-priority memory that the ingress program writes
//!   (`prio_wr`) when a GRANT arrives. The memory is read with the beat that enters the slice;
//!   the value arrives with it.
//! * Retransmissions (`is_rtx`, e.g. a NACKed packet): the message's priority from that memory,
//!   at least U — never the unscheduled band, where the incast's first packets queue (Algorithm
//!   6's egress reads the message's priority for every packet; the authors' ns-3 model sends a
//!   retransmission of an unscheduled packet at priority U). A message never granted reads 0, or
//!   the last GRANT priority of the transmit slot's earlier message, and so goes at U or that.
//!
//! With the defaults (the thesis prototype's: overcommitment K = 3, register 0x30; U = 1, 0x34)
//! DATA packets use priorities 0 … U + K − 1 = 0–3, the prototype's four switch priority levels;
//! control packets go at 0.
//!
//! # Ports
//! The shell's egress interface: `s_axis_pkt` in, `s_axis_pkt.tready` out; `m_axis_pkt` out
//! (`rank` = the priority), `m_axis_pkt.tready` in; `rtt_pkts` 16, `cfg_unsched_prios` 4,
//! `prio_wr.valid`, `prio_wr.index` IW, `prio_wr.value` 8.
//!
//! # Latency and throughput
//! 1 cycle (Table 3.1's TX egress for Homa: 3); one beat per cycle: `s_axis_pkt.tready` is high
//! while the slice is empty or being emptied.

use crate::common::bundles::{NicPacketSink, NicPacketSource, PriorityWriteSink};
use crate::nic::shell::{ProgramBlock, ShellParams};
use crate::pisa::dual_port_memory::DualPortMemory;
use crate::{locals, ports, registers};
use rust_hdl::prelude::*;

/// Homa's egress stage (see the module documentation).
#[ports(
    in clock: Clock;
    in reset: Bit;
    in rtt_pkts: Bits<16>;
    in cfg_unsched_prios: Bits<4>;
)]
#[registers(
    eg_valid, eg_last, eg_is_new_msg, eg_is_rtx, eg_fresh: Bit;
    eg_data: Bits<64>;
    eg_keep, eg_pkt_offset, eg_flags, eg_prio: Bits<8>;
    eg_remote_ip: Bits<32>;
    eg_remote_port, eg_msg_len, eg_local_port, eg_tx_msg_id, eg_credit: Bits<16>;
    /// Decided as the beat enters the slice, so the rank after it waits only for the memory:
    /// the packet is unscheduled (offset below `rtt_pkts`), and its message is longer than one BDP.
    eg_unsched: Bit;
    eg_long: Bit;
)]
#[locals(
    in_ready, load: Bit;
    mem_prio: Bits<8>;
    pkts: Bits<16>;
    /// The priority before the retransmission rule.
    base_rank: Bits<8>;
    /// A retransmission's rank.
    rtx_rank: Bits<8>;
)]
#[derive(LogicBlock, Default)]
pub struct HomaEgress<const N: usize, const IW: usize> {
    pub prio_wr: PriorityWriteSink<IW>,
    pub s_axis_pkt: NicPacketSink,
    pub m_axis_pkt: NicPacketSource,
    msg_prio: DualPortMemory<8, N, IW>,
}

impl<const N: usize, const IW: usize> ProgramBlock for HomaEgress<N, IW> {
    fn for_params(_params: &ShellParams) -> Self {
        Self::default()
    }
}

impl<const N: usize, const IW: usize> Logic for HomaEgress<N, IW> {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, msg_prio);
        dff_setup!(
            self,
            clock,
            eg_valid,
            eg_data,
            eg_keep,
            eg_last,
            eg_remote_ip,
            eg_remote_port,
            eg_msg_len,
            eg_pkt_offset,
            eg_local_port,
            eg_tx_msg_id,
            eg_credit,
            eg_flags,
            eg_is_new_msg,
            eg_is_rtx,
            eg_fresh,
            eg_prio,
            eg_unsched,
            eg_long
        );
        self.msg_prio.reset.next = self.reset.val();
        self.msg_prio.wr_valid.next = self.prio_wr.valid.val();
        self.msg_prio.wr_index.next = self.prio_wr.index.val();
        self.msg_prio.wr_value.next = self.prio_wr.value.val();

        self.in_ready.next = (!self.eg_valid.q.val()) | self.m_axis_pkt.tready.val();
        self.pkts.next = (self.s_axis_pkt.msg_len.val() + 1023) >> 10;
        self.load.next = self.s_axis_pkt.tvalid.val() & self.in_ready.val();
        self.s_axis_pkt.tready.next = self.in_ready.val();
        self.msg_prio.rd_valid.next = self.load.val();
        self.msg_prio.rd_index.next = bit_cast::<IW, 16>(self.s_axis_pkt.tx_msg_id.val());
        self.eg_fresh.d.next = self.load.val();
        if self.load.val() {
            self.eg_valid.d.next = true;
            self.eg_data.d.next = self.s_axis_pkt.tdata.val();
            self.eg_keep.d.next = self.s_axis_pkt.tkeep.val();
            self.eg_last.d.next = self.s_axis_pkt.tlast.val();
            self.eg_remote_ip.d.next = self.s_axis_pkt.remote_ip.val();
            self.eg_remote_port.d.next = self.s_axis_pkt.remote_port.val();
            self.eg_msg_len.d.next = self.s_axis_pkt.msg_len.val();
            self.eg_pkt_offset.d.next = self.s_axis_pkt.pkt_offset.val();
            self.eg_local_port.d.next = self.s_axis_pkt.local_port.val();
            self.eg_tx_msg_id.d.next = self.s_axis_pkt.tx_msg_id.val();
            self.eg_credit.d.next = self.s_axis_pkt.credit.val();
            self.eg_flags.d.next = self.s_axis_pkt.flags.val();
            self.eg_is_new_msg.d.next = self.s_axis_pkt.is_new_msg.val();
            self.eg_is_rtx.d.next = self.s_axis_pkt.is_rtx.val();
            self.eg_unsched.d.next = bit_cast::<16, 8>(self.s_axis_pkt.pkt_offset.val()) < self.rtt_pkts.val();
            self.eg_long.d.next = self.pkts.val() > self.rtt_pkts.val();
        } else if self.m_axis_pkt.tready.val() {
            self.eg_valid.d.next = false;
        }
        self.mem_prio.next = self.eg_prio.q.val();
        if self.eg_fresh.q.val() {
            self.mem_prio.next = self.msg_prio.rd_value.val();
        }
        self.eg_prio.d.next = self.mem_prio.val();
        self.base_rank.next = self.mem_prio.val();
        if self.eg_unsched.q.val() {
            // Unscheduled: 0, or U − 1 for a message longer than one BDP.
            self.base_rank.next = 0.into();
            if self.eg_long.q.val() & (self.cfg_unsched_prios.val() != 0) {
                self.base_rank.next = bit_cast::<8, 4>(self.cfg_unsched_prios.val()) - 1;
            }
        }
        // A retransmission whose rank is below U goes at max(U, the message's priority). Every
        // unscheduled rank is below U when U > 0, and a scheduled one is the priority itself, so
        // a retransmission's rank is max(U, priority) except unscheduled with U = 0 (then 0):
        // one compare beside the rank, not one after it.
        self.rtx_rank.next = bit_cast::<8, 4>(self.cfg_unsched_prios.val());
        if self.mem_prio.val() > bit_cast::<8, 4>(self.cfg_unsched_prios.val()) {
            self.rtx_rank.next = self.mem_prio.val();
        }
        if self.eg_unsched.q.val() & (self.cfg_unsched_prios.val() == 0) {
            self.rtx_rank.next = 0.into();
        }
        self.m_axis_pkt.rank.next = self.base_rank.val();
        if self.eg_is_rtx.q.val() {
            self.m_axis_pkt.rank.next = self.rtx_rank.val();
        }
        self.m_axis_pkt.tdata.next = self.eg_data.q.val();
        self.m_axis_pkt.tkeep.next = self.eg_keep.q.val();
        self.m_axis_pkt.tlast.next = self.eg_last.q.val();
        self.m_axis_pkt.tvalid.next = self.eg_valid.q.val();
        self.m_axis_pkt.remote_ip.next = self.eg_remote_ip.q.val();
        self.m_axis_pkt.remote_port.next = self.eg_remote_port.q.val();
        self.m_axis_pkt.msg_len.next = self.eg_msg_len.q.val();
        self.m_axis_pkt.pkt_offset.next = self.eg_pkt_offset.q.val();
        self.m_axis_pkt.local_port.next = self.eg_local_port.q.val();
        self.m_axis_pkt.tx_msg_id.next = self.eg_tx_msg_id.q.val();
        self.m_axis_pkt.credit.next = self.eg_credit.q.val();
        self.m_axis_pkt.flags.next = self.eg_flags.q.val();
        self.m_axis_pkt.is_new_msg.next = self.eg_is_new_msg.q.val();
        self.m_axis_pkt.is_rtx.next = self.eg_is_rtx.q.val();
        if self.reset.val() {
            self.eg_valid.d.next = false;
            self.eg_fresh.d.next = false;
        }
    }
}
