//! PL2's reservation block (PL2 paper, Algorithm 1) on the Verilator models of its generated
//! Verilog: lockstep against rust-hdl for the block and its counter array, a differential test
//! against the reference model on random traces, and saturation at the counters' width.

use nanotransport_hdl::switch::pl2_reservation::{Pl2Kind, Pl2Reservation};
use nanotransport_hdl::switch::timeslot_counters::TimeslotCounters;
use nanotransport_reference::pl2::{Descriptor, Pl2Config, Pl2Model};
use nanotransport_sim::cosim::lockstep::{expect_agreement, run_lockstep};
use nanotransport_sim::cosim::pl2_dut::Pl2Dut;
use nanotransport_sim::cosim::stimulus::{Drive, Stimulus};
use nanotransport_testbenches::seed;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const BLOCK: &str = "nt_pl2_reservation_64p_pl2_reservation";
const COUNTERS: &str = "nt_pl2_reservation_64p_timeslot_counters";

#[test]
fn lockstep_block() {
    // Few ports (back-to-back descriptors on the same counters), some beyond the count, small K
    // and T (clamping, refusals), then every input uniform.
    let dense = Stimulus::new()
        .drive("reset", Drive::Bernoulli(0.0005))
        .drive("in_valid", Drive::Bernoulli(0.9))
        .drive("in_src_port", Drive::Range(60, 66))
        .drive("in_dst_port", Drive::Range(61, 65))
        .drive("in_demand", Drive::Range(0, 6))
        .drive("cfg_max_demand", Drive::Range(0, 5))
        .drive("cfg_unsolicited_limit", Drive::Range(0, 12));
    let seed_dense = seed("pl2 block lockstep, dense", 801);
    expect_agreement(run_lockstep::<Pl2Reservation<64, 6>>(BLOCK, &dense, 20_000, seed_dense));
    let uniform = Stimulus::new().drive("reset", Drive::Bernoulli(0.0005)).drive("in_valid", Drive::Bernoulli(0.9));
    expect_agreement(run_lockstep::<Pl2Reservation<64, 6>>(BLOCK, &uniform, 5_000, seed("pl2 block lockstep, uniform", 802)));
}

#[test]
fn lockstep_counter_array() {
    let dense = Stimulus::new()
        .drive("reset", Drive::Bernoulli(0.001))
        .drive("req_valid", Drive::Bernoulli(0.9))
        .drive("req_port", Drive::Range(0, 3))
        .drive("req_limit", Drive::Range(0, 40));
    expect_agreement(run_lockstep::<TimeslotCounters<64, 6>>(COUNTERS, &dense, 20_000, seed("timeslot counters lockstep", 803)));
}

/// Random descriptors: phases of uniform ports and of bursts on a few ports (back to back on
/// the same counters), 1 % beyond the port count, demands mostly within K with zeros and
/// oversized ones; every kind, data about as often as reserved timeslots so that counters both
/// grow and drain to 0.
fn trace(rng: &mut ChaCha8Rng, n: usize) -> Vec<Descriptor> {
    let mut out = Vec::with_capacity(n);
    let mut hot = (0u8, 1u8);
    for i in 0..n {
        if i % 500 == 0 {
            hot = (rng.gen_range(0..64), rng.gen_range(0..64));
        }
        let (mut src, mut dst) = if (i / 500) % 2 == 0 { (rng.gen_range(0..64), rng.gen_range(0..64)) } else { hot };
        if rng.gen_bool(0.01) {
            src = rng.gen_range(64..=255);
        }
        if rng.gen_bool(0.01) {
            dst = rng.gen_range(64..=255);
        }
        let kind = match rng.gen_range(0..100) {
            0..=29 => Pl2Kind::Reserve,
            30..=79 => Pl2Kind::Data,
            80..=94 => Pl2Kind::UnsolicitedData,
            _ => Pl2Kind::Other,
        };
        let demand = match rng.gen_range(0..100) {
            0..=89 => rng.gen_range(1..=4),
            90..=94 => 0,
            _ => rng.gen_range(5..=255),
        };
        out.push(Descriptor { kind, src_port: src, dst_port: dst, demand });
    }
    out
}

#[test]
fn hardware_matches_the_reference_model_on_random_traces() {
    let s = seed("pl2 differential", 804);
    let mut rng = ChaCha8Rng::seed_from_u64(s);
    let configs = [
        Pl2Config { max_demand: 4, unsolicited_limit: 64 },
        Pl2Config { max_demand: 4, unsolicited_limit: 3 },
        Pl2Config { max_demand: 1, unsolicited_limit: 0 },
        Pl2Config { max_demand: 255, unsolicited_limit: 15 },
    ];
    for config in configs {
        let mut dut = Pl2Dut::new(BLOCK, config).unwrap();
        let mut model = Pl2Model::new(64);
        let descs = trace(&mut rng, 40_000);
        let hw = dut.run(&descs);
        assert_eq!(hw.len(), descs.len());
        let (mut grants, mut same_ports_back_to_back) = (0, 0);
        for (i, (d, h)) in descs.iter().zip(&hw).enumerate() {
            assert_eq!((h.kind, h.src_port, h.dst_port), (d.kind, d.src_port, d.dst_port), "descriptor {i}");
            assert_eq!(h.decision, model.process(d, config), "descriptor {i} ({d:?}), seed {s}, {config:?}");
            grants += h.decision.grant as u32;
            same_ports_back_to_back += (i > 0 && descs[i - 1].dst_port == d.dst_port) as u32;
        }
        let counts = dut.counts();
        assert_eq!(counts, model.counts, "counters, seed {s}, {config:?}");
        assert_eq!(counts.rsv, grants);
        // The trace reached every outcome.
        assert!(counts.data > 1000 && counts.bad_port > 100 && counts.bad_demand > 100 && counts.underflow > 100, "{counts:?}");
        assert!(same_ports_back_to_back > 5000);
        if config.unsolicited_limit < 64 {
            assert!(counts.refused > 100, "{counts:?}");
        }
        if config.max_demand < 255 {
            assert!(counts.clamped > 100, "{counts:?}");
        }
    }
}

/// 2^32 − 1 = 255 × 16 843 009: that many reservations of 255 on one port reach the top
/// exactly; the next one is clipped there and counted, and the GRT still carries the old value.
#[test]
fn reservations_saturate_at_the_counter_width() {
    let config = Pl2Config { max_demand: 255, unsolicited_limit: 64 };
    let mut dut = Pl2Dut::new(BLOCK, config).unwrap();
    let mut model = Pl2Model::new(64);
    // Each RSV reserves on out[dst] and in[src]: alternate the sources so that only out[7] fills.
    let rsv = |i: u32| Descriptor { kind: Pl2Kind::Reserve, src_port: (i % 64) as u8, dst_port: 7, demand: 255 };
    for i in 0..16_843_009u32 {
        dut.step(Some(&rsv(i)), false);
        model.process(&rsv(i), config);
    }
    assert_eq!(model.reservations(7).1, u32::MAX);
    let tail = [rsv(0), Descriptor { kind: Pl2Kind::Data, src_port: 1, dst_port: 7, demand: 0 }, rsv(1)];
    let expected: Vec<_> = tail.iter().map(|d| model.process(d, config)).collect();
    let hw: Vec<_> = dut.run(&tail).iter().map(|h| h.decision).collect();
    // The run also returns the last loop descriptors still in the pipeline.
    assert_eq!(hw[hw.len() - 3..], expected[..]);
    assert_eq!((expected[0].recv_timeslot, expected[2].recv_timeslot), (u32::MAX, u32::MAX - 1));
    assert_eq!(model.reservations(7).1, u32::MAX);
    assert_eq!(dut.counts(), model.counts);
    assert_eq!(model.counts.saturated, 2);
}
