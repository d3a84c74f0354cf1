//! Unit tests of the blocks in `hdl/switch/pl2_reservation.rs` and `hdl/switch/timeslot_counters.rs`,
//! on the natively stepped blocks, each scenario checked against the reference model too.

use nanotransport_hdl::switch::pl2_reservation::{Pl2Kind, Pl2Reservation, PL2_LATENCY};
use nanotransport_reference::pl2::{Decision, Descriptor, Pl2Config, Pl2Counts, Pl2Model};
use nanotransport_sim::cosim::native::NativeStepper;
use rust_hdl::prelude::*;
use Pl2Kind::*;

const K4_T64: Pl2Config = Pl2Config { max_demand: 4, unsolicited_limit: 64 };

/// The 64-port block with `ports` in use, stepped natively beside the reference model.
struct Bench {
    hw: NativeStepper<Pl2Reservation<64, 6>>,
    model: Pl2Model,
    config: Pl2Config,
}

fn d(kind: Pl2Kind, src_port: u8, dst_port: u8, demand: u8) -> Descriptor {
    Descriptor { kind, src_port, dst_port, demand }
}

fn rsv(src: u8, dst: u8, demand: u8) -> Descriptor {
    d(Reserve, src, dst, demand)
}

fn data(src: u8, dst: u8) -> Descriptor {
    d(Data, src, dst, 0)
}

fn grant(send_timeslot: u32, recv_timeslot: u32, demand: u8) -> Decision {
    Decision { drop: false, grant: true, demand, send_timeslot, recv_timeslot }
}

const DROP: Decision = Decision { drop: true, grant: false, demand: 0, send_timeslot: 0, recv_timeslot: 0 };
const PASS: Decision = Decision { drop: false, grant: false, demand: 0, send_timeslot: 0, recv_timeslot: 0 };

impl Bench {
    fn new(ports: usize, config: Pl2Config) -> Self {
        let mut b = Bench { hw: NativeStepper::new(Pl2Reservation::new(ports)), model: Pl2Model::new(ports), config };
        b.cycle(None, true);
        b
    }

    /// One cycle; the decision leaving the block in it (with its kind and ports).
    fn cycle(&mut self, desc: Option<Descriptor>, reset: bool) -> Option<(Pl2Kind, u8, u8, Decision)> {
        let u = &mut self.hw.dut;
        let x = desc.unwrap_or(d(Other, 0, 0, 0));
        u.reset.next = reset;
        u.cfg_max_demand.next = (self.config.max_demand as u64).into();
        u.cfg_unsolicited_limit.next = (self.config.unsolicited_limit as u64).into();
        u.in_valid.next = desc.is_some();
        u.in_kind.next = x.kind.code().into();
        u.in_src_port.next = (x.src_port as u64).into();
        u.in_dst_port.next = (x.dst_port as u64).into();
        u.in_demand.next = (x.demand as u64).into();
        self.hw.settle();
        let u = &self.hw.dut;
        let out = u.out_valid.val().then(|| {
            (
                Pl2Kind::from_code(u.out_kind.val().to_u64()),
                u.out_src_port.val().to_u64() as u8,
                u.out_dst_port.val().to_u64() as u8,
                Decision {
                    drop: u.out_drop.val(),
                    grant: u.out_grant.val(),
                    demand: u.out_demand.val().to_u64() as u8,
                    send_timeslot: u.out_send_timeslot.val().to_u64() as u32,
                    recv_timeslot: u.out_recv_timeslot.val().to_u64() as u32,
                },
            )
        });
        self.hw.tick();
        out
    }

    /// Sends descriptors back to back; checks every decision's delay, carried fields and the
    /// reference model's decision; returns the decisions.
    fn run(&mut self, descs: &[Descriptor]) -> Vec<Decision> {
        let mut out = Vec::new();
        for i in 0..descs.len() + PL2_LATENCY as usize {
            if let Some((kind, src, dst, decision)) = self.cycle(descs.get(i).copied(), false) {
                let sent = descs[out.len()];
                assert_eq!(i - out.len(), PL2_LATENCY as usize, "decision latency");
                assert_eq!((kind, src, dst), (sent.kind, sent.src_port, sent.dst_port), "carried fields");
                assert_eq!(decision, self.model.process(&sent, self.config), "hardware vs reference model on {sent:?}");
                out.push(decision);
            }
        }
        assert_eq!(out.len(), descs.len(), "one decision per descriptor");
        out
    }

    fn counts(&self) -> Pl2Counts {
        let u = &self.hw.dut;
        let c = |s: &Signal<Out, Bits<32>>| s.val().to_u64() as u32;
        let hw = Pl2Counts {
            rsv: c(&u.rsv_count),
            data: c(&u.data_count),
            refused: c(&u.refused_count),
            bad_port: c(&u.bad_port_count),
            bad_demand: c(&u.bad_demand_count),
            clamped: c(&u.clamped_count),
            underflow: c(&u.underflow_count),
            saturated: c(&u.saturated_count),
        };
        assert_eq!(hw, self.model.counts, "hardware vs reference counts");
        hw
    }
}

/// PL2 Fig. 2: H1's input port has timeslot 4 free, H2's output port timeslot 5; the GRT carries
/// (4, 5) and H1 sends at 5.
#[test]
fn figure_2_grant_and_chosen_timeslot() {
    let (h1, h2, a, b) = (1, 2, 7, 9);
    let mut bench = Bench::new(64, K4_T64);
    let setup = bench.run(&[rsv(h1, a, 4), rsv(b, h2, 4), rsv(b, h2, 1)]);
    assert_eq!(setup, vec![grant(0, 0, 4), grant(0, 0, 4), grant(4, 4, 1)]);
    let g = bench.run(&[rsv(h1, h2, 4)])[0];
    assert_eq!(g, grant(4, 5, 4));
    assert_eq!(g.chosen_timeslot(), 5);
    assert_eq!(bench.model.reservations(h1 as usize), (8, 0));
    assert_eq!(bench.model.reservations(h2 as usize), (0, 9));
}

#[test]
fn data_releases_one_timeslot_on_each_port_and_other_frames_none() {
    let mut bench = Bench::new(64, K4_T64);
    bench.run(&[rsv(3, 5, 4)]);
    assert_eq!(bench.run(&[data(3, 5), data(3, 5), d(Other, 3, 5, 200)]), vec![PASS; 3]);
    assert_eq!(bench.run(&[rsv(3, 5, 1)]), vec![grant(2, 2, 1)]);
    assert_eq!(bench.counts(), Pl2Counts { rsv: 2, data: 2, ..Pl2Counts::default() });
}

/// Every descriptor back to back on the same ports: each sees the previous one's updates on both
/// counters (the forwarding of both arrays), and other ports' traffic in between changes nothing.
#[test]
fn back_to_back_descriptors_see_each_others_updates() {
    let mut bench = Bench::new(64, K4_T64);
    let out = bench.run(&[rsv(0, 1, 4), rsv(0, 1, 4), data(0, 1), rsv(0, 1, 2), rsv(2, 1, 1), rsv(0, 3, 1), data(2, 1), rsv(2, 1, 1)]);
    assert_eq!(out, vec![grant(0, 0, 4), grant(4, 4, 4), PASS, grant(7, 7, 2), grant(0, 9, 1), grant(9, 0, 1), PASS, grant(0, 9, 1)]);
}

#[test]
fn demand_is_clamped_to_k_and_zero_is_refused() {
    let mut bench = Bench::new(64, K4_T64);
    assert_eq!(bench.run(&[rsv(1, 2, 9), rsv(1, 2, 0), rsv(1, 2, 255)]), vec![grant(0, 0, 4), DROP, grant(4, 4, 4)]);
    assert_eq!(bench.counts(), Pl2Counts { rsv: 2, clamped: 2, bad_demand: 1, ..Pl2Counts::default() });
    // K = 0 is nonsense: every RSV is refused, nothing is reserved.
    let mut bench = Bench::new(64, Pl2Config { max_demand: 0, unsolicited_limit: 64 });
    assert_eq!(bench.run(&[rsv(1, 2, 3), rsv(1, 2, 0)]), vec![DROP, DROP]);
    assert_eq!(bench.model.reservations(1), (0, 0));
    assert_eq!(bench.counts(), Pl2Counts { bad_demand: 2, clamped: 1, ..Pl2Counts::default() });
}

/// 48 ports in use: any frame naming port 48 or above is dropped and touches nothing.
#[test]
fn ports_beyond_the_count_are_dropped_and_counted() {
    let mut bench = Bench::new(48, K4_T64);
    let out = bench.run(&[rsv(47, 48, 4), rsv(48, 0, 4), data(255, 1), d(Other, 0, 200, 0), rsv(47, 0, 4)]);
    assert_eq!(out, vec![DROP, DROP, DROP, DROP, grant(0, 0, 4)]);
    assert_eq!(bench.counts(), Pl2Counts { rsv: 1, bad_port: 4, ..Pl2Counts::default() });
}

/// A release at 0 leaves the counter at 0 and is counted; the next reservation starts at 0.
#[test]
fn release_at_zero_is_counted_not_wrapped() {
    let mut bench = Bench::new(64, K4_T64);
    assert_eq!(
        bench.run(&[data(4, 6), rsv(4, 6, 1), data(4, 6), data(4, 6), rsv(4, 6, 2)]),
        vec![PASS, grant(0, 0, 1), PASS, PASS, grant(0, 0, 2)]
    );
    assert_eq!(bench.counts(), Pl2Counts { rsv: 2, data: 3, underflow: 2, ..Pl2Counts::default() });
}

/// Unsolicited data passes while out[dst] ≤ T and decrements as data; above T it is dropped,
/// counted apart, and touches neither counter (its reservation stays for the resend).
#[test]
fn unsolicited_data_is_refused_above_t_and_keeps_its_reservation() {
    let mut bench = Bench::new(64, Pl2Config { max_demand: 4, unsolicited_limit: 5 });
    bench.run(&[rsv(1, 9, 4), rsv(2, 9, 2)]);
    // out[9] = 6 > 5: refused.
    assert_eq!(bench.run(&[d(UnsolicitedData, 2, 9, 0)]), vec![DROP]);
    assert_eq!(bench.model.reservations(9), (0, 6));
    assert_eq!(bench.model.reservations(2), (2, 0));
    // A scheduled packet brings it to 5 = T: the next unsolicited one passes.
    assert_eq!(bench.run(&[data(1, 9), d(UnsolicitedData, 2, 9, 0)]), vec![PASS, PASS]);
    assert_eq!(bench.model.reservations(9), (0, 4));
    assert_eq!(bench.counts(), Pl2Counts { rsv: 2, data: 2, refused: 1, ..Pl2Counts::default() });
}

// Saturation takes 16.8 million reservations: it is tested on the Verilator model
// (`pl2_reservation::reservations_saturate_at_the_counter_width`).

#[test]
fn reset_forgets_every_reservation() {
    let mut bench = Bench::new(64, K4_T64);
    bench.run(&[rsv(1, 2, 4), rsv(3, 2, 4)]);
    bench.cycle(None, true);
    bench.model = Pl2Model::new(64);
    assert_eq!(bench.run(&[rsv(1, 2, 1), data(3, 2)]), vec![grant(0, 0, 1), PASS]);
    assert_eq!(bench.counts(), Pl2Counts { rsv: 1, data: 1, underflow: 1, ..Pl2Counts::default() });
}

/// A reset with descriptors in every stage — one releasing at 0, one saturating nothing — leaves
/// no decision and no count behind.
#[test]
fn reset_with_descriptors_in_flight_clears_every_count() {
    let mut bench = Bench::new(64, K4_T64);
    for d in [data(4, 6), rsv(1, 2, 3), data(4, 6)] {
        assert_eq!(bench.cycle(Some(d), false), None);
    }
    // The reset cycle still shows the first descriptor's registered decision; nothing after it.
    bench.cycle(Some(data(4, 6)), true);
    for _ in 0..PL2_LATENCY + 1 {
        assert_eq!(bench.cycle(None, false), None);
    }
    bench.model = Pl2Model::new(64);
    assert_eq!(bench.counts(), Pl2Counts::default());
}
