//! Unit tests of the block in `hdl/common/stream_upsizer.rs`, on the natively stepped block,
//! against the reference model (`reference/stream_width.rs`).

use nanotransport_hdl::common::stream_upsizer::StreamUpsizer;
use nanotransport_reference::frame_fifo::Beat;
use nanotransport_reference::stream_width::wide_beats;
use nanotransport_sim::cosim::native::{NativeStepper, PortBits};
use nanotransport_testbenches::frames::narrow_frame;
use nanotransport_testbenches::seed;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Offers `narrow` (each beat with probability `valid`) to an output ready with probability
/// `ready`; returns the wide beats that left and the cycles the input waited.
fn run(narrow: &[Beat], valid: f64, ready: f64, rng: &mut ChaCha8Rng) -> (Vec<Beat>, u64) {
    let mut hw = NativeStepper::new(StreamUpsizer::default());
    hw.reset();
    let (mut next, mut out, mut refused) = (0, Vec::new(), 0u64);
    let expected = wide_beats(narrow).len();
    for cycle in 0.. {
        if out.len() == expected {
            break;
        }
        assert!(cycle < 100 * (narrow.len() + 10), "stuck after {} of {expected} beats", out.len());
        let offer = next < narrow.len() && rng.gen_bool(valid);
        let take_out = rng.gen_bool(ready);
        let u = &mut hw.dut;
        let b = narrow.get(next).cloned().unwrap_or(Beat { data: vec![0], keep: 0, last: false });
        u.s_axis.tvalid.next = offer;
        u.s_axis.tdata.next = b.data[0].into();
        u.s_axis.tkeep.next = b.keep.into();
        u.s_axis.tlast.next = b.last;
        u.m_axis.tready.next = take_out;
        hw.settle();
        let u = &hw.dut;
        if offer {
            if u.s_axis.tready.val() {
                next += 1;
            } else {
                refused += 1;
            }
        }
        if u.m_axis.tvalid.val() && take_out {
            out.push(Beat { data: u.m_axis.tdata.val().to_words(), keep: u.m_axis.tkeep.val().to_u64(), last: u.m_axis.tlast.val() });
        }
        hw.tick();
    }
    (out, refused)
}

#[test]
fn frames_of_every_length_keep_their_bytes_and_ends() {
    let seed = seed("stream upsizer", 96);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let narrow: Vec<Beat> = (0..300).flat_map(|f| narrow_frame(f, rng.gen_range(1..=1600))).collect();
    let (out, refused) = run(&narrow, 0.9, 0.3, &mut rng);
    assert_eq!(out, wide_beats(&narrow), "seed {seed}");
    assert!(refused > 0, "a slow output made the input wait");
}

#[test]
fn an_output_always_ready_never_makes_the_input_wait() {
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    // Frames of one narrow beat each: a wide beat every cycle.
    let narrow: Vec<Beat> = (0..200).flat_map(|f| narrow_frame(f, 1 + (f as usize % 600))).collect();
    let (out, refused) = run(&narrow, 1.0, 1.0, &mut rng);
    assert_eq!(out, wide_beats(&narrow));
    assert_eq!(refused, 0);
}
