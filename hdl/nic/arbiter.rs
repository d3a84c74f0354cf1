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
//! | `s_axis_ctrl_*` | `tdata` 64, `tkeep` 8, `tlast`, `tvalid`, `tready` + metadata | control packets (packet generator) |
//! | `s_axis_data_*` | same | data packets (packetization) |
//! | `m_axis_*` | same | merged stream |
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

use rust_hdl::prelude::*;

/// Control/data arbiter with a bounded control burst.
#[derive(LogicBlock, Default)]
pub struct Arbiter {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub ctrl_burst_limit: Signal<In, Bits<8>>,
    pub ctrl_packet_count: Signal<Out, Bits<16>>,
    pub data_packet_count: Signal<Out, Bits<16>>,
    pub s_axis_ctrl_tdata: Signal<In, Bits<64>>,
    pub s_axis_ctrl_tkeep: Signal<In, Bits<8>>,
    pub s_axis_ctrl_tlast: Signal<In, Bit>,
    pub s_axis_ctrl_tvalid: Signal<In, Bit>,
    pub s_axis_ctrl_tready: Signal<Out, Bit>,
    pub s_axis_ctrl_remote_ip: Signal<In, Bits<32>>,
    pub s_axis_ctrl_remote_port: Signal<In, Bits<16>>,
    pub s_axis_ctrl_msg_len: Signal<In, Bits<16>>,
    pub s_axis_ctrl_pkt_offset: Signal<In, Bits<8>>,
    pub s_axis_ctrl_local_port: Signal<In, Bits<16>>,
    pub s_axis_ctrl_tx_msg_id: Signal<In, Bits<16>>,
    pub s_axis_ctrl_credit: Signal<In, Bits<16>>,
    pub s_axis_ctrl_rank: Signal<In, Bits<8>>,
    pub s_axis_ctrl_flags: Signal<In, Bits<8>>,
    pub s_axis_ctrl_is_new_msg: Signal<In, Bit>,
    pub s_axis_ctrl_is_rtx: Signal<In, Bit>,
    pub s_axis_data_tdata: Signal<In, Bits<64>>,
    pub s_axis_data_tkeep: Signal<In, Bits<8>>,
    pub s_axis_data_tlast: Signal<In, Bit>,
    pub s_axis_data_tvalid: Signal<In, Bit>,
    pub s_axis_data_tready: Signal<Out, Bit>,
    pub s_axis_data_remote_ip: Signal<In, Bits<32>>,
    pub s_axis_data_remote_port: Signal<In, Bits<16>>,
    pub s_axis_data_msg_len: Signal<In, Bits<16>>,
    pub s_axis_data_pkt_offset: Signal<In, Bits<8>>,
    pub s_axis_data_local_port: Signal<In, Bits<16>>,
    pub s_axis_data_tx_msg_id: Signal<In, Bits<16>>,
    pub s_axis_data_credit: Signal<In, Bits<16>>,
    pub s_axis_data_rank: Signal<In, Bits<8>>,
    pub s_axis_data_flags: Signal<In, Bits<8>>,
    pub s_axis_data_is_new_msg: Signal<In, Bit>,
    pub s_axis_data_is_rtx: Signal<In, Bit>,
    pub m_axis_tdata: Signal<Out, Bits<64>>,
    pub m_axis_tkeep: Signal<Out, Bits<8>>,
    pub m_axis_tlast: Signal<Out, Bit>,
    pub m_axis_tvalid: Signal<Out, Bit>,
    pub m_axis_tready: Signal<In, Bit>,
    pub m_axis_remote_ip: Signal<Out, Bits<32>>,
    pub m_axis_remote_port: Signal<Out, Bits<16>>,
    pub m_axis_msg_len: Signal<Out, Bits<16>>,
    pub m_axis_pkt_offset: Signal<Out, Bits<8>>,
    pub m_axis_local_port: Signal<Out, Bits<16>>,
    pub m_axis_tx_msg_id: Signal<Out, Bits<16>>,
    pub m_axis_credit: Signal<Out, Bits<16>>,
    pub m_axis_rank: Signal<Out, Bits<8>>,
    pub m_axis_flags: Signal<Out, Bits<8>>,
    pub m_axis_is_new_msg: Signal<Out, Bit>,
    pub m_axis_is_rtx: Signal<Out, Bit>,
    in_packet: DFF<Bit>,
    from_data: DFF<Bit>,
    ctrl_run: DFF<Bits<8>>,
    /// `ctrl_run >= limit`, registered with `ctrl_run` (a changed limit counts from the next
    /// cycle), so the grant is not a comparison deep.
    burst_used: DFF<Bit>,
    ctrl_run_next: Signal<Local, Bits<8>>,
    cnt_ctrl: DFF<Bits<16>>,
    cnt_data: DFF<Bits<16>>,
    limit: Signal<Local, Bits<8>>,
    pick_data: Signal<Local, Bit>,
    use_data: Signal<Local, Bit>,
    beat: Signal<Local, Bit>,
}

impl Logic for Arbiter {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, in_packet, from_data, ctrl_run, burst_used, cnt_ctrl, cnt_data);
        self.limit.next = self.ctrl_burst_limit.val();
        if self.ctrl_burst_limit.val() == 0 {
            self.limit.next = 1.into();
        }
        // New grant (between packets): control unless only data waits or the burst is used up.
        self.pick_data.next = self.s_axis_data_tvalid.val() & ((!self.s_axis_ctrl_tvalid.val()) | self.burst_used.q.val());
        self.use_data.next = self.pick_data.val();
        if self.in_packet.q.val() {
            self.use_data.next = self.from_data.q.val();
        }
        if self.use_data.val() {
            self.m_axis_tdata.next = self.s_axis_data_tdata.val();
            self.m_axis_tkeep.next = self.s_axis_data_tkeep.val();
            self.m_axis_tlast.next = self.s_axis_data_tlast.val();
            self.m_axis_remote_ip.next = self.s_axis_data_remote_ip.val();
            self.m_axis_remote_port.next = self.s_axis_data_remote_port.val();
            self.m_axis_msg_len.next = self.s_axis_data_msg_len.val();
            self.m_axis_pkt_offset.next = self.s_axis_data_pkt_offset.val();
            self.m_axis_local_port.next = self.s_axis_data_local_port.val();
            self.m_axis_tx_msg_id.next = self.s_axis_data_tx_msg_id.val();
            self.m_axis_credit.next = self.s_axis_data_credit.val();
            self.m_axis_rank.next = self.s_axis_data_rank.val();
            self.m_axis_flags.next = self.s_axis_data_flags.val();
            self.m_axis_is_new_msg.next = self.s_axis_data_is_new_msg.val();
            self.m_axis_is_rtx.next = self.s_axis_data_is_rtx.val();
            self.m_axis_tvalid.next = self.s_axis_data_tvalid.val();
        } else {
            self.m_axis_tdata.next = self.s_axis_ctrl_tdata.val();
            self.m_axis_tkeep.next = self.s_axis_ctrl_tkeep.val();
            self.m_axis_tlast.next = self.s_axis_ctrl_tlast.val();
            self.m_axis_remote_ip.next = self.s_axis_ctrl_remote_ip.val();
            self.m_axis_remote_port.next = self.s_axis_ctrl_remote_port.val();
            self.m_axis_msg_len.next = self.s_axis_ctrl_msg_len.val();
            self.m_axis_pkt_offset.next = self.s_axis_ctrl_pkt_offset.val();
            self.m_axis_local_port.next = self.s_axis_ctrl_local_port.val();
            self.m_axis_tx_msg_id.next = self.s_axis_ctrl_tx_msg_id.val();
            self.m_axis_credit.next = self.s_axis_ctrl_credit.val();
            self.m_axis_rank.next = self.s_axis_ctrl_rank.val();
            self.m_axis_flags.next = self.s_axis_ctrl_flags.val();
            self.m_axis_is_new_msg.next = self.s_axis_ctrl_is_new_msg.val();
            self.m_axis_is_rtx.next = self.s_axis_ctrl_is_rtx.val();
            self.m_axis_tvalid.next = self.s_axis_ctrl_tvalid.val();
        }
        self.s_axis_data_tready.next = self.use_data.val() & self.m_axis_tready.val();
        self.s_axis_ctrl_tready.next = (!self.use_data.val()) & self.m_axis_tready.val();
        self.beat.next = self.m_axis_tvalid.val() & self.m_axis_tready.val();
        self.ctrl_run_next.next = self.ctrl_run.q.val();
        if (!self.in_packet.q.val()) & self.m_axis_tvalid.val() {
            // First beat of a packet shown: the grant is fixed from now on, accepted or not
            // (AXI4-Stream: a shown beat may not change before its handshake). Count it.
            self.in_packet.d.next = true;
            self.from_data.d.next = self.use_data.val();
            if self.use_data.val() {
                self.ctrl_run_next.next = 0.into();
                if self.cnt_data.q.val() != 0xFFFF {
                    self.cnt_data.d.next = self.cnt_data.q.val() + 1;
                }
            } else {
                if self.ctrl_run.q.val() != 0xFF {
                    self.ctrl_run_next.next = self.ctrl_run.q.val() + 1;
                }
                if self.cnt_ctrl.q.val() != 0xFFFF {
                    self.cnt_ctrl.d.next = self.cnt_ctrl.q.val() + 1;
                }
            }
        }
        self.ctrl_run.d.next = self.ctrl_run_next.val();
        self.burst_used.d.next = self.ctrl_run_next.val() >= self.limit.val();
        if self.beat.val() & self.m_axis_tlast.val() {
            self.in_packet.d.next = false;
        }
        self.ctrl_packet_count.next = self.cnt_ctrl.q.val();
        self.data_packet_count.next = self.cnt_data.q.val();
        if self.reset.val() {
            self.in_packet.d.next = false;
            self.ctrl_run.d.next = 0.into();
            self.burst_used.d.next = false;
            self.cnt_ctrl.d.next = 0.into();
            self.cnt_data.d.next = 0.into();
        }
    }
}
