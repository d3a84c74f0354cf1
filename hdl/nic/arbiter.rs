//! Egress arbiter (thesis §3.2, Fig. 3.1 step 10): merges control packets from the packet
//! generator and data packets from packetization onto one stream toward the egress pipeline and
//! the MAC.
//!
//! **Packet-granular**: once a packet's first beat is shown on `m_axis` (`tvalid` high, whether
//! or not `tready` takes it), its source keeps the output until its `tlast` beat has been
//! accepted, so a shown beat never changes before its handshake (AXI4-Stream) even when the
//! other source becomes valid meanwhile. Sources must follow the same rule (not withdraw a shown
//! beat). **Policy**: control first, but after `ctrl_burst_limit`
//! (N) consecutive control packets a waiting data packet goes next. So a data packet waits for at
//! most N control packets (plus the packet in flight), and a control packet for at most one data
//! packet (plus the packet in flight): neither side starves. `ctrl_burst_limit = 0` is taken
//! as 1. The count of consecutive control packets restarts when a data packet is granted.
//!
//! # Ports
//! | group | ports | meaning |
//! |---|---|---|
//! | `s_axis_ctrl` | a [`NicPacketSink`]: `tdata` 64, `tkeep` 8, `tlast`, `tvalid`, `tready` + metadata | control packets (packet generator) |
//! | `s_axis_data` | same | data packets (packetization) |
//! | `m_axis` | a [`NicPacketSource`], same members | merged stream |
//! | config | `ctrl_burst_limit` 8 | N |
//! | status | `ctrl_packet_count`, `data_packet_count` 16 (saturating) | packets granted per source (counted when the first beat is shown) |
//!
//! Metadata (Listing 3.2, valid with the first beat of a packet and passed with every beat):
//! `remote_ip` 32, `remote_port` 16, `msg_len` 16, `pkt_offset` 8, `local_port` 16, `tx_msg_id` 16, `credit` 16, `rank` 8, `flags` 8, `is_new_msg` 1, `is_rtx` 1.
//!
//! # Latency and throughput
//! Zero cycles: the grant is combinational from the inputs and the registered state, beats pass
//! straight through (tvalid/tdata forward, tready back). One beat per cycle; back-to-back packets
//! from either source without an idle cycle between them.
//!
//! # Reset
//! One cycle of `reset`: no packet in flight, count zero, counters zero.

use crate::common::bundles::{NicPacketSink, NicPacketSource};
use crate::common::event_counter::SaturatingCounter;
use crate::{locals, ports, registers, status_counters};
use rust_hdl::prelude::*;

/// Control/data arbiter with a bounded control burst.
#[ports(
    in clock: Clock;
    in reset: Bit;
    in ctrl_burst_limit: Bits<8>;
    out ctrl_packet_count, data_packet_count: Bits<16>;
)]
#[registers(
    in_packet, from_data: Bit;
    ctrl_run: Bits<8>;
    /// `ctrl_run >= limit`, registered with `ctrl_run` (a changed limit counts from the next
    /// cycle), so the grant is not a comparison deep.
    burst_used: Bit;
)]
#[locals(
    ctrl_run_next, limit: Bits<8>;
    pick_data, use_data, beat: Bit;
)]
#[derive(LogicBlock, Default)]
pub struct Arbiter {
    pub s_axis_ctrl: NicPacketSink,
    pub s_axis_data: NicPacketSink,
    pub m_axis: NicPacketSource,
    cnt_ctrl: SaturatingCounter<16>,
    cnt_data: SaturatingCounter<16>,
}

impl Logic for Arbiter {
    #[status_counters]
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, in_packet, from_data, ctrl_run, burst_used);
        status_counters!(self, clock, reset, cnt_ctrl => ctrl_packet_count, cnt_data => data_packet_count);
        self.limit.next = self.ctrl_burst_limit.val();
        if self.ctrl_burst_limit.val() == 0 {
            self.limit.next = 1.into();
        }
        // New grant (between packets): control unless only data waits or the burst is used up.
        self.pick_data.next = self.s_axis_data.tvalid.val() & ((!self.s_axis_ctrl.tvalid.val()) | self.burst_used.q.val());
        self.use_data.next = self.pick_data.val();
        if self.in_packet.q.val() {
            self.use_data.next = self.from_data.q.val();
        }
        if self.use_data.val() {
            self.m_axis.tdata.next = self.s_axis_data.tdata.val();
            self.m_axis.tkeep.next = self.s_axis_data.tkeep.val();
            self.m_axis.tlast.next = self.s_axis_data.tlast.val();
            self.m_axis.remote_ip.next = self.s_axis_data.remote_ip.val();
            self.m_axis.remote_port.next = self.s_axis_data.remote_port.val();
            self.m_axis.msg_len.next = self.s_axis_data.msg_len.val();
            self.m_axis.pkt_offset.next = self.s_axis_data.pkt_offset.val();
            self.m_axis.local_port.next = self.s_axis_data.local_port.val();
            self.m_axis.tx_msg_id.next = self.s_axis_data.tx_msg_id.val();
            self.m_axis.credit.next = self.s_axis_data.credit.val();
            self.m_axis.rank.next = self.s_axis_data.rank.val();
            self.m_axis.flags.next = self.s_axis_data.flags.val();
            self.m_axis.is_new_msg.next = self.s_axis_data.is_new_msg.val();
            self.m_axis.is_rtx.next = self.s_axis_data.is_rtx.val();
            self.m_axis.tvalid.next = self.s_axis_data.tvalid.val();
        } else {
            self.m_axis.tdata.next = self.s_axis_ctrl.tdata.val();
            self.m_axis.tkeep.next = self.s_axis_ctrl.tkeep.val();
            self.m_axis.tlast.next = self.s_axis_ctrl.tlast.val();
            self.m_axis.remote_ip.next = self.s_axis_ctrl.remote_ip.val();
            self.m_axis.remote_port.next = self.s_axis_ctrl.remote_port.val();
            self.m_axis.msg_len.next = self.s_axis_ctrl.msg_len.val();
            self.m_axis.pkt_offset.next = self.s_axis_ctrl.pkt_offset.val();
            self.m_axis.local_port.next = self.s_axis_ctrl.local_port.val();
            self.m_axis.tx_msg_id.next = self.s_axis_ctrl.tx_msg_id.val();
            self.m_axis.credit.next = self.s_axis_ctrl.credit.val();
            self.m_axis.rank.next = self.s_axis_ctrl.rank.val();
            self.m_axis.flags.next = self.s_axis_ctrl.flags.val();
            self.m_axis.is_new_msg.next = self.s_axis_ctrl.is_new_msg.val();
            self.m_axis.is_rtx.next = self.s_axis_ctrl.is_rtx.val();
            self.m_axis.tvalid.next = self.s_axis_ctrl.tvalid.val();
        }
        self.s_axis_data.tready.next = self.use_data.val() & self.m_axis.tready.val();
        self.s_axis_ctrl.tready.next = (!self.use_data.val()) & self.m_axis.tready.val();
        self.beat.next = self.m_axis.tvalid.val() & self.m_axis.tready.val();
        self.ctrl_run_next.next = self.ctrl_run.q.val();
        if (!self.in_packet.q.val()) & self.m_axis.tvalid.val() {
            // First beat of a packet shown: the grant is fixed from now on, accepted or not
            // (AXI4-Stream: a shown beat may not change before its handshake). Count it.
            self.in_packet.d.next = true;
            self.from_data.d.next = self.use_data.val();
            if self.use_data.val() {
                self.ctrl_run_next.next = 0.into();
                self.cnt_data.increment.next = true;
            } else {
                if self.ctrl_run.q.val() != 0xFF {
                    self.ctrl_run_next.next = self.ctrl_run.q.val() + 1;
                }
                self.cnt_ctrl.increment.next = true;
            }
        }
        self.ctrl_run.d.next = self.ctrl_run_next.val();
        self.burst_used.d.next = self.ctrl_run_next.val() >= self.limit.val();
        if self.beat.val() & self.m_axis.tlast.val() {
            self.in_packet.d.next = false;
        }
        if self.reset.val() {
            self.in_packet.d.next = false;
            self.ctrl_run.d.next = 0.into();
            self.burst_used.d.next = false;
        }
    }
}
