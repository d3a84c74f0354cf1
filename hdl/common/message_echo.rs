//! Message echo: the on-chip application of a board design with no host. Every message the NIC
//! delivers (`m_axis_msg`) is sent back to its sender (`s_axis_msg`): the same payload, from the
//! port it was sent to, to the port it came from. A NIC on a board with nothing on its CPU side
//! would be trimmed away by synthesis; with the echo, any peer can exercise it end to end.
//!
//! The formats are the NIC's (docs/integration.md): a delivered message is beat 0 (remote_ip,
//! remote_port, local_port), beat 1 (msg_len), then the payload; a message to send is word 0
//! (msg_len; credit_valid 0, so the NIC starts with `rtt_pkts` of credit; rank 0), word 1 in
//! beat 0's layout, then the payload. So the echo holds beat 0, sends word 0 from beat 1, then
//! beat 0 as word 1, then passes the payload through. A delivered message shorter than its two
//! header beats (never sent by the NIC) is dropped and counted.
//!
//! Completions are taken as they come (`done_ready` is 1) and counted, so transmit buffers
//! return; the echo keeps no state per message.
//!
//! # Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock`, `reset` | in | 1 | synchronous reset: back to waiting for a message's beat 0 (a message under way is cut) |
//! | `s_axis$tdata`, `$tkeep`, `$tlast`, `$tvalid`, `$tready` | in/out | 64, 8, 1, 1, 1 | delivered messages (the NIC's `m_axis_msg_*`) |
//! | `m_axis$tdata`, `$tkeep`, `$tlast`, `$tvalid`, `$tready` | out/in | 64, 8, 1, 1, 1 | messages to send (the NIC's `s_axis_msg_*`) |
//! | `done_valid`, `done_abandoned` | in | 1, 1 | the NIC's completion records |
//! | `done_ready` | out | 1 | always 1 |
//! | `echoed_count`, `completed_count`, `abandoned_count`, `malformed_count` | out | 32 | messages sent back, completions (acknowledged), completions abandoned, delivered messages too short to echo |
//!
//! # Latency and throughput
//! A delivered message's beat 1 taken in cycle t: word 0 leaves from t + 1, word 1 next, then the
//! payload one beat per cycle as it comes. Per message, 2 + P cycles in and 2 + P out (P payload
//! beats), the input waiting while words 0 and 1 leave: P + 4 cycles for a message of P beats.
//!
//! Yosys xcup (`blocks-16`: `message_echo`): 297 LUTs (most in the four 32-bit counters), 211
//! flip-flops, 3 LUT levels.

use crate::common::bundles::{NicStreamSink, NicStreamSource};
use crate::common::event_counter::WrappingCounter;
use crate::{locals, ports, registers, status_counters, Blank};
use rust_hdl::prelude::*;

/// The message echo.
#[ports(
    in clock: Clock;
    in reset, done_valid, done_abandoned: Bit;
    out done_ready: Bit;
    out echoed_count, completed_count, abandoned_count, malformed_count: Bits<32>;
)]
#[registers(
    /// 0: taking beat 0; 1: taking beat 1; 2: word 0 out; 3: word 1 out; 4: payload through
    /// (numbers inside `update`: rust-hdl's generator cannot name constants there).
    phase: Bits<3>;
    /// Beat 0 of the message under way (word 1 of its echo).
    addresses: Bits<64>;
    msg_len: Bits<16>;
)]
#[locals(
    take, sent: Bit;
)]
#[derive(LogicBlock, Blank)]
pub struct MessageEcho {
    pub s_axis: NicStreamSink,
    pub m_axis: NicStreamSource,
    echoed: WrappingCounter<32>,
    completed: WrappingCounter<32>,
    abandoned: WrappingCounter<32>,
    malformed: WrappingCounter<32>,
}

impl Default for MessageEcho {
    fn default() -> Self {
        Self::blank()
    }
}

impl Logic for MessageEcho {
    #[status_counters]
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, phase, addresses, msg_len);
        status_counters!(
            self,
            clock,
            reset,
            echoed => echoed_count,
            completed => completed_count,
            abandoned => abandoned_count,
            malformed => malformed_count
        );
        self.done_ready.next = true;
        self.completed.increment.next = self.done_valid.val() & (!self.done_abandoned.val());
        self.abandoned.increment.next = self.done_valid.val() & self.done_abandoned.val();

        // Output: word 0, word 1, or the payload beat passing through.
        self.m_axis.tdata.next = self.s_axis.tdata.val();
        self.m_axis.tkeep.next = self.s_axis.tkeep.val();
        self.m_axis.tlast.next = self.s_axis.tlast.val();
        self.m_axis.tvalid.next = false;
        self.s_axis.tready.next = false;
        if self.phase.q.val() == 0 {
            self.s_axis.tready.next = true;
        }
        if self.phase.q.val() == 1 {
            self.s_axis.tready.next = true;
        }
        if self.phase.q.val() == 2 {
            self.m_axis.tdata.next = bit_cast::<64, 16>(self.msg_len.q.val());
            self.m_axis.tkeep.next = 0xFF.into();
            self.m_axis.tlast.next = false;
            self.m_axis.tvalid.next = true;
        }
        if self.phase.q.val() == 3 {
            self.m_axis.tdata.next = self.addresses.q.val();
            self.m_axis.tkeep.next = 0xFF.into();
            self.m_axis.tlast.next = false;
            self.m_axis.tvalid.next = true;
        }
        if self.phase.q.val() == 4 {
            self.m_axis.tvalid.next = self.s_axis.tvalid.val();
            self.s_axis.tready.next = self.m_axis.tready.val();
        }
        self.take.next = self.s_axis.tvalid.val() & self.s_axis.tready.val();
        self.sent.next = self.m_axis.tvalid.val() & self.m_axis.tready.val();

        // Next phase.
        if self.take.val() & (self.phase.q.val() == 0) {
            self.addresses.d.next = self.s_axis.tdata.val();
            self.phase.d.next = 1.into();
            if self.s_axis.tlast.val() {
                self.phase.d.next = 0.into();
                self.malformed.increment.next = true;
            }
        }
        if self.take.val() & (self.phase.q.val() == 1) {
            self.msg_len.d.next = self.s_axis.tdata.val().get_bits::<16>(0);
            self.phase.d.next = 2.into();
            if self.s_axis.tlast.val() {
                self.phase.d.next = 0.into();
                self.malformed.increment.next = true;
            }
        }
        if self.sent.val() & (self.phase.q.val() == 2) {
            self.phase.d.next = 3.into();
        }
        if self.sent.val() & (self.phase.q.val() == 3) {
            self.phase.d.next = 4.into();
        }
        if (self.sent.val() & (self.phase.q.val() == 4)) & self.s_axis.tlast.val() {
            self.phase.d.next = 0.into();
            self.echoed.increment.next = true;
        }
        if self.reset.val() {
            self.phase.d.next = 0.into();
        }
    }
}
