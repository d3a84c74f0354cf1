//! Unit tests of the block in `hdl/common/stream_downsizer.rs`, on the natively stepped block,
//! against the reference model (`reference/stream_width.rs`).

use nanotransport_hdl::common::stream_downsizer::StreamDownsizer;
use nanotransport_reference::frame_fifo::Beat;
use nanotransport_reference::stream_width::narrow_beats;
use nanotransport_sim::cosim::native::{NativeStepper, PortBits};
use nanotransport_testbenches::frames::wide_frame;
use nanotransport_testbenches::seed;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rust_hdl::prelude::*;

/// Offers `wide` (each beat with probability `valid`) to an output ready with probability
/// `ready`; returns the narrow beats that left and the cycles taken.
fn run(wide: &[Beat], valid: f64, ready: f64, rng: &mut ChaCha8Rng) -> (Vec<Beat>, u64) {
    let mut hw = NativeStepper::new(StreamDownsizer::default());
    hw.reset();
    let (mut next, mut out, mut cycles) = (0, Vec::new(), 0u64);
    let expected = narrow_beats(wide).len();
    while out.len() < expected {
        assert!(cycles < 100 * (expected as u64 + 10), "stuck after {} of {expected} beats", out.len());
        let offer = next < wide.len() && rng.gen_bool(valid);
        let take_out = rng.gen_bool(ready);
        let u = &mut hw.dut;
        let b = wide.get(next).cloned().unwrap_or(Beat { data: vec![0; 8], keep: 0, last: false });
        u.s_axis.tvalid.next = offer;
        u.s_axis.tdata.next = Bits::<512>::from_words(&b.data);
        u.s_axis.tkeep.next = b.keep.into();
        u.s_axis.tlast.next = b.last;
        u.m_axis.tready.next = take_out;
        hw.settle();
        let u = &hw.dut;
        if offer && u.s_axis.tready.val() {
            next += 1;
        }
        if u.m_axis.tvalid.val() && take_out {
            out.push(Beat { data: vec![u.m_axis.tdata.val().to_u64()], keep: u.m_axis.tkeep.val().to_u64(), last: u.m_axis.tlast.val() });
        }
        hw.tick();
        cycles += 1;
    }
    (out, cycles)
}

#[test]
fn frames_of_every_length_keep_their_bytes_and_ends() {
    let seed = seed("stream downsizer", 95);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let wide: Vec<Beat> = (0..300).flat_map(|f| wide_frame(f, rng.gen_range(1..=1600))).collect();
    let (out, _) = run(&wide, 0.7, 0.6, &mut rng);
    assert_eq!(out, narrow_beats(&wide), "seed {seed}");
    assert!(out.len() > 10_000);
}

#[test]
fn the_output_never_idles_while_beats_wait() {
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    let wide: Vec<Beat> = (0..20).flat_map(|f| wide_frame(f, 1 + 97 * f as usize)).collect();
    let narrow = narrow_beats(&wide).len() as u64;
    let (out, cycles) = run(&wide, 1.0, 1.0, &mut rng);
    assert_eq!(out, narrow_beats(&wide));
    // The first beat is taken in cycle 0 and its first narrow beat leaves in cycle 1.
    assert_eq!(cycles, narrow + 1);
}

#[test]
fn a_beat_with_a_hole_or_nothing_kept_sends_what_precedes_it() {
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    let data: Vec<u64> = (1..=8).collect();
    let wide =
        vec![Beat { data: data.clone(), keep: 0x0000_00FF_0000_FFFF, last: false }, Beat { data: data.clone(), keep: 0, last: true }];
    let (out, _) = run(&wide, 1.0, 1.0, &mut rng);
    let expected = vec![
        Beat { data: vec![1], keep: 0xff, last: false },
        Beat { data: vec![2], keep: 0xff, last: false },
        Beat { data: vec![1], keep: 0, last: true },
    ];
    assert_eq!(out, expected);
    assert_eq!(narrow_beats(&wide), expected);
}
