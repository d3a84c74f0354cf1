//! PL2's switch scheduling (Algorithm 1 of the PL2 paper, §4.1–4.2, with §4.4's unsolicited
//! bursts): per-port timeslot reservations, one packet descriptor per cycle.
//!
//! Two counters per port, each one [`TimeslotCounters`] array: `outReservation` (the timeslots
//! reserved on the port toward a receiver) and `inReservation` (on the port from a sender).
//! Per descriptor, in two operations, each counter read-modified-written once (§4.2):
//! ```text
//! RSV (src → dst, demand d):   recvTimeslot ← out[dst]; out[dst] += d     (operation 1)
//!                              sendTimeslot ← in[src];  in[src]  += d     (operation 2)
//!                              answer with a GRT carrying (sendTimeslot, recvTimeslot, d)
//! data (src → dst):            out[dst] −= 1                              (operation 1)
//!                              in[src]  −= 1                              (operation 2)
//! unsolicited data:            if out[dst] > T: drop, touch nothing       (operation 1)
//!                              else as data
//! anything else:               forwarded, no counter touched
//! ```
//! The sender transmits at `max(sendTimeslot, recvTimeslot)` (§4.2.1); that is the host's work.
//!
//! Choices the paper leaves open, and where they differ from Algorithm 1:
//! - **Which frames decrement**: data frames only (`in_kind` 2 and 3), as the switch is told by
//!   its classifier; ACKs, GRTs and any control traffic are `in_kind` 0 and touch nothing.
//! - **Decrement at 0**: the counter stays 0 and the packet is counted in `underflow_count`
//!   (once per packet, whichever counter). Algorithm 1 would go negative (or wrap in a 32-bit
//!   register). A counter reaches 0 early when a burst is sent twice: §4.4's sender resends an
//!   unsolicited burst at its granted timeslot when the grant comes back late, and the switch
//!   cannot tell the copy from the original, so both copies decrement — the counters then
//!   under-count until they drain to 0, where the extra releases are counted instead of wrapped.
//! - **The threshold T** (`cfg_unsolicited_limit`, timeslots) is compared with `out[dst]` only,
//!   in operation 1: the drop is then known before operation 2, so a dropped packet decrements
//!   neither counter and its reservation stays for the resend (Algorithm 2 resends when the GRT's
//!   chosen timeslot is above t, which T ≫ t makes the usual case; a burst refused although its
//!   own GRT chose ≤ t is not resent, and its reservation is then never used). `in[src]` counts the sender's own
//!   reservations on its own link, which the sender's NIC serialises anyway: unsolicited bursts
//!   cannot collide there. A dropped unsolicited packet is counted in `refused_count`, apart
//!   from the switch's buffer drops.
//! - **Demand**: clamped to `cfg_max_demand` (K; counted in `clamped_count`); a demand of 0, or
//!   a `cfg_max_demand` of 0, is refused: no GRT, no counter touched (`bad_demand_count`). The
//!   GRT carries the demand granted.
//! - **Saturation**: a reservation that would pass 2^32 − 1 timeslots stays at 2^32 − 1
//!   (`saturated_count`).
//!
//! # Bad input
//! - a source or destination port ≥ the configured port count: dropped, no counter touched,
//!   counted in `bad_port_count`;
//! - demand 0 or above K, nonsense K, underflow, saturation: as above.
//!
//! # Ports
//! | port | dir | width | meaning |
//! |------|-----|-------|---------|
//! | `clock`, `reset` | in | 1 | synchronous reset: every counter reads 0, counts cleared |
//! | `cfg_max_demand` | in | 8 | K, timeslots one RSV may reserve (the paper's 4) |
//! | `cfg_unsolicited_limit` | in | 32 | T, timeslots on `out[dst]` above which unsolicited data is dropped |
//! | `in_valid` | in | 1 | a descriptor this cycle (always accepted) |
//! | `in_kind` | in | 2 | 0 other, 1 RSV, 2 data, 3 unsolicited data ([`Pl2Kind`]) |
//! | `in_src_port`, `in_dst_port` | in | 8, 8 | the sender's and the receiver's switch port |
//! | `in_demand` | in | 8 | RSV: timeslots asked for |
//! | `out_valid` | out | 1 | the decision for the descriptor of 3 cycles ago |
//! | `out_kind`, `out_src_port`, `out_dst_port` | out | 2, 8, 8 | as given |
//! | `out_drop` | out | 1 | drop the frame (bad port, bad demand, refused unsolicited data) |
//! | `out_grant` | out | 1 | an RSV was granted: send a GRT back to `out_src_port` |
//! | `out_demand` | out | 8 | the timeslots granted (RSV; else 0) |
//! | `out_send_timeslot`, `out_recv_timeslot` | out | 32, 32 | the GRT's timeslots (RSV; else 0) |
//! | `rsv_count`, `data_count` | out | 32 | RSVs granted, data frames passed |
//! | `refused_count` | out | 32 | unsolicited data dropped above T |
//! | `bad_port_count`, `bad_demand_count`, `clamped_count` | out | 32 | bad input (wrapping counts) |
//! | `underflow_count`, `saturated_count` | out | 32 | releases at 0, reservations clipped |
//!
//! # Latency and throughput
//! Operation codes are written as numbers inside the update (rust-hdl cannot name constants
//! there): [`crate::switch::timeslot_counters`]'s `OP_*`.
//!
//! Descriptor in at cycle t → decision out at t + 3; one descriptor per cycle, no back-pressure,
//! back-to-back descriptors on the same ports see each other's updates (each counter array
//! forwards its last write).
//! ```text
//!  s0 (t)    check ports and demand; operation 1's read of out[dst]
//!  s1 (t+1)  operation 1 (reserve, release or refuse on out[dst]); operation 2's read of in[src]
//!  s2 (t+2)  operation 2 on in[src]
//!  s3 (t+3)  registered decision on the outputs
//! ```
//! Yosys xcup (`pl2-reservation-64p`, per module): 1 156 LUTs, 809 flip-flops, 80 LUTRAM (the
//! two 64 × 32-bit counter arrays), 8 LUT levels (the release-at-0 check after operation 1's
//! forwarding multiplexer). `nanotransport synth --config pl2-reservation-64p` prints the table.

use crate::common::event_counter::WrappingCounter;
use crate::switch::timeslot_counters::TimeslotCounters;
use crate::{locals, ports, registers, status_counters, Blank};
use rust_hdl::prelude::*;

/// What a frame is to the reservation block (`in_kind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Pl2Kind {
    /// ACKs, GRTs, control: forwarded, no counter touched.
    Other = 0,
    Reserve = 1,
    Data = 2,
    /// A data frame of a burst sent before its GRT came back (§4.4).
    UnsolicitedData = 3,
}

impl Pl2Kind {
    pub const ALL: [Pl2Kind; 4] = [Pl2Kind::Other, Pl2Kind::Reserve, Pl2Kind::Data, Pl2Kind::UnsolicitedData];

    pub fn code(self) -> u64 {
        self as u64
    }

    pub fn from_code(code: u64) -> Pl2Kind {
        Self::ALL[(code & 3) as usize]
    }
}

/// The paper's K (packets per burst, §4.3) and the default T (timeslots, T ≫ the hosts' t = 15).
pub const DEFAULT_MAX_DEMAND: u8 = 4;
pub const DEFAULT_UNSOLICITED_LIMIT: u32 = 64;
/// Decision latency, cycles.
pub const PL2_LATENCY: u64 = 3;

/// The block for up to `P = 2^PW` ports (at most 64), `ports` of them in use.
#[ports(
    in clock: Clock;
    in reset, in_valid: Bit;
    in cfg_max_demand, in_src_port, in_dst_port, in_demand: Bits<8>;
    in cfg_unsolicited_limit: Bits<32>;
    in in_kind: Bits<2>;
    out out_valid, out_drop, out_grant: Bit;
    out out_kind: Bits<2>;
    out out_src_port, out_dst_port, out_demand: Bits<8>;
    out out_send_timeslot, out_recv_timeslot, rsv_count, data_count, refused_count, bad_port_count, bad_demand_count, clamped_count,
    underflow_count, saturated_count: Bits<32>;
)]
#[registers(
    // s0 → s1.
    s1_valid, s1_drop: Bit;
    s1_kind: Bits<2>;
    s1_src, s1_dst, s1_demand: Bits<8>;
    // s1 → s2.
    s2_valid, s2_drop, s2_underflow, s2_saturated: Bit;
    s2_kind: Bits<2>;
    s2_src, s2_dst, s2_demand: Bits<8>;
    s2_recv_timeslot: Bits<32>;
    // s2 → s3 (the outputs).
    s3_valid, s3_drop, s3_grant: Bit;
    s3_kind: Bits<2>;
    s3_src, s3_dst, s3_demand: Bits<8>;
    s3_send_timeslot, s3_recv_timeslot: Bits<32>;
)]
#[locals(
    // s0 locals.
    s0_ports_ok, s0_reserve, s0_data, s0_bad_demand, s0_counted: Bit;
    s0_demand: Bits<8>;
    // s1 / s2 locals.
    s1_op: Bits<2>;
    s1_pass, s2_reserve, s2_data: Bit;
)]
#[derive(LogicBlock, Blank)]
pub struct Pl2Reservation<const P: usize, const PW: usize> {
    num_ports: Constant<Bits<8>>,
    out_reservation: TimeslotCounters<P, PW>,
    in_reservation: TimeslotCounters<P, PW>,
    // Counts.
    rsvs: WrappingCounter<32>,
    datas: WrappingCounter<32>,
    refused: WrappingCounter<32>,
    bad_ports: WrappingCounter<32>,
    bad_demands: WrappingCounter<32>,
    clamped: WrappingCounter<32>,
    underflows: WrappingCounter<32>,
    saturations: WrappingCounter<32>,
}

impl<const P: usize, const PW: usize> Default for Pl2Reservation<P, PW> {
    fn default() -> Self {
        Self::new(P)
    }
}

impl<const P: usize, const PW: usize> Pl2Reservation<P, PW> {
    /// The block with `ports` ports in use (1 ..= P).
    pub fn new(ports: usize) -> Self {
        assert!((1..=P).contains(&ports), "1 to {P} ports");
        Self {
            num_ports: Constant::new((ports as u64).into()),
            out_reservation: TimeslotCounters::default(),
            in_reservation: TimeslotCounters::default(),
            ..Self::blank()
        }
    }
}

impl<const P: usize, const PW: usize> Logic for Pl2Reservation<P, PW> {
    #[status_counters]
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            s1_valid,
            s1_kind,
            s1_src,
            s1_dst,
            s1_demand,
            s1_drop,
            s2_valid,
            s2_kind,
            s2_src,
            s2_dst,
            s2_demand,
            s2_drop,
            s2_recv_timeslot,
            s2_underflow,
            s2_saturated,
            s3_valid,
            s3_kind,
            s3_src,
            s3_dst,
            s3_drop,
            s3_grant,
            s3_demand,
            s3_send_timeslot,
            s3_recv_timeslot
        );
        status_counters!(
            self,
            clock,
            reset,
            bad_demands => bad_demand_count,
            bad_ports => bad_port_count,
            clamped => clamped_count,
            datas => data_count,
            refused => refused_count,
            rsvs => rsv_count,
            saturations => saturated_count,
            underflows => underflow_count,
        );
        self.out_reservation.clock.next = self.clock.val();
        self.out_reservation.reset.next = self.reset.val();
        self.in_reservation.clock.next = self.clock.val();
        self.in_reservation.reset.next = self.reset.val();

        // ---- s0: ports, demand; operation 1's read.
        self.s0_ports_ok.next = (self.in_src_port.val() < self.num_ports.val()) & (self.in_dst_port.val() < self.num_ports.val());
        self.s0_reserve.next = self.in_kind.val() == 1;
        self.s0_data.next = self.in_kind.val().get_bit(1);
        self.s0_demand.next = self.in_demand.val();
        if self.in_demand.val() > self.cfg_max_demand.val() {
            self.s0_demand.next = self.cfg_max_demand.val();
        }
        self.s0_bad_demand.next = self.s0_reserve.val() & (!self.s0_demand.val().any());
        self.s0_counted.next =
            (self.in_valid.val() & self.s0_ports_ok.val()) & ((self.s0_reserve.val() & (!self.s0_bad_demand.val())) | self.s0_data.val());
        self.out_reservation.req_valid.next = self.s0_counted.val();
        self.out_reservation.req_port.next = bit_cast::<PW, 8>(self.in_dst_port.val());
        self.out_reservation.req_op.next = 2.into();
        if self.s0_reserve.val() {
            self.out_reservation.req_op.next = 1.into();
        }
        if self.in_kind.val() == 3 {
            self.out_reservation.req_op.next = 3.into();
        }
        self.out_reservation.req_amount.next = self.s0_demand.val();
        self.out_reservation.req_limit.next = self.cfg_unsolicited_limit.val();
        self.s1_valid.d.next = self.in_valid.val();
        self.s1_kind.d.next = self.in_kind.val();
        self.s1_src.d.next = self.in_src_port.val();
        self.s1_dst.d.next = self.in_dst_port.val();
        self.s1_demand.d.next = self.s0_demand.val();
        self.s1_drop.d.next = (!self.s0_ports_ok.val()) | self.s0_bad_demand.val();
        if self.in_valid.val() & (!self.s0_ports_ok.val()) {
            self.bad_ports.increment.next = true;
        }
        if (self.in_valid.val() & self.s0_ports_ok.val()) & self.s0_bad_demand.val() {
            self.bad_demands.increment.next = true;
        }
        if ((self.in_valid.val() & self.s0_ports_ok.val()) & self.s0_reserve.val()) & (self.in_demand.val() > self.s0_demand.val()) {
            self.clamped.increment.next = true;
        }

        // ---- s1: operation 1 answers; operation 2's read (skipped for a refused packet).
        self.s1_pass.next = self.out_reservation.resp_valid.val() & (!self.out_reservation.resp_refused.val());
        self.s1_op.next = 2.into();
        if self.s1_kind.q.val() == 1 {
            self.s1_op.next = 1.into();
        }
        self.in_reservation.req_valid.next = self.s1_pass.val();
        self.in_reservation.req_port.next = bit_cast::<PW, 8>(self.s1_src.q.val());
        self.in_reservation.req_op.next = self.s1_op.val();
        self.in_reservation.req_amount.next = self.s1_demand.q.val();
        self.in_reservation.req_limit.next = 0.into();
        self.s2_valid.d.next = self.s1_valid.q.val();
        self.s2_kind.d.next = self.s1_kind.q.val();
        self.s2_src.d.next = self.s1_src.q.val();
        self.s2_dst.d.next = self.s1_dst.q.val();
        self.s2_demand.d.next = self.s1_demand.q.val();
        self.s2_drop.d.next = self.s1_drop.q.val() | (self.out_reservation.resp_valid.val() & self.out_reservation.resp_refused.val());
        self.s2_recv_timeslot.d.next = self.out_reservation.resp_old.val();
        self.s2_underflow.d.next = self.s1_pass.val() & self.out_reservation.resp_underflow.val();
        self.s2_saturated.d.next = self.s1_pass.val() & self.out_reservation.resp_saturated.val();
        if self.out_reservation.resp_valid.val() & self.out_reservation.resp_refused.val() {
            self.refused.increment.next = true;
        }

        // ---- s2: operation 2 answers.
        self.s2_reserve.next = self.in_reservation.resp_valid.val() & (self.s2_kind.q.val() == 1);
        self.s2_data.next = self.in_reservation.resp_valid.val() & self.s2_kind.q.val().get_bit(1);
        self.s3_valid.d.next = self.s2_valid.q.val();
        self.s3_kind.d.next = self.s2_kind.q.val();
        self.s3_src.d.next = self.s2_src.q.val();
        self.s3_dst.d.next = self.s2_dst.q.val();
        self.s3_drop.d.next = self.s2_drop.q.val();
        self.s3_grant.d.next = self.s2_reserve.val();
        self.s3_demand.d.next = 0.into();
        self.s3_send_timeslot.d.next = 0.into();
        self.s3_recv_timeslot.d.next = 0.into();
        if self.s2_reserve.val() {
            self.s3_demand.d.next = self.s2_demand.q.val();
            self.s3_send_timeslot.d.next = self.in_reservation.resp_old.val();
            self.s3_recv_timeslot.d.next = self.s2_recv_timeslot.q.val();
            self.rsvs.increment.next = true;
        }
        if self.s2_data.val() {
            self.datas.increment.next = true;
        }
        if self.s2_underflow.q.val() | (self.in_reservation.resp_valid.val() & self.in_reservation.resp_underflow.val()) {
            self.underflows.increment.next = true;
        }
        if self.s2_saturated.q.val() | (self.in_reservation.resp_valid.val() & self.in_reservation.resp_saturated.val()) {
            self.saturations.increment.next = true;
        }

        // ---- s3: outputs.
        self.out_valid.next = self.s3_valid.q.val();
        self.out_kind.next = self.s3_kind.q.val();
        self.out_src_port.next = self.s3_src.q.val();
        self.out_dst_port.next = self.s3_dst.q.val();
        self.out_drop.next = self.s3_drop.q.val();
        self.out_grant.next = self.s3_grant.q.val();
        self.out_demand.next = self.s3_demand.q.val();
        self.out_send_timeslot.next = self.s3_send_timeslot.q.val();
        self.out_recv_timeslot.next = self.s3_recv_timeslot.q.val();

        if self.reset.val() {
            self.s1_valid.d.next = false;
            self.s2_valid.d.next = false;
            self.s2_underflow.d.next = false;
            self.s2_saturated.d.next = false;
            self.s3_valid.d.next = false;
            self.s3_grant.d.next = false;
            self.s3_drop.d.next = false;
        }
    }
}
