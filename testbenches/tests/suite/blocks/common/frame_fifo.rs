//! Unit tests of the block in `hdl/common/frame_fifo.rs`, on the natively stepped block at the
//! CMAC's 512 bits, each run checked beat by beat against the reference model.

use nanotransport_hdl::common::frame_fifo::FrameFifo;
use nanotransport_reference::frame_fifo::{Beat, FrameFifoCounts, FrameFifoModel};
use nanotransport_sim::cosim::native::{NativeStepper, PortBits};
use nanotransport_testbenches::seed;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rust_hdl::prelude::*;

type Fifo = FrameFifo<512, 64, 6>;
const DEPTH: usize = 64;

/// A beat of frame `frame`, beat `k`: every word names both, so a beat out of place shows.
fn beat(frame: u64, k: u64, last: bool, keep: u64) -> Beat {
    Beat { data: (0..8).map(|w| (frame << 32) | (k << 8) | w).collect(), keep, last }
}

fn frame(id: u64, beats: u64) -> Vec<Beat> {
    (0..beats).map(|k| beat(id, k, k + 1 == beats, if k + 1 == beats { 0x0000_0000_FFFF_FFFF } else { u64::MAX })).collect()
}

/// The block beside its model: every cycle drives both, compares what the block shows with the
/// model, and checks that a frame, once it starts on the output, is shown on every cycle to its
/// last beat.
struct Bench {
    hw: NativeStepper<Fifo>,
    model: FrameFifoModel,
    cycle: u64,
    /// Beats that left, in order.
    out: Vec<Beat>,
    /// The output is inside a frame (a beat shown or taken and not yet its last).
    in_frame: bool,
}

impl Bench {
    fn new(lossless: bool) -> Self {
        let block = if lossless { Fifo::lossless() } else { Fifo::dropping() };
        let mut b = Bench {
            hw: NativeStepper::new(block),
            model: FrameFifoModel::new(DEPTH, lossless),
            cycle: 0,
            out: Vec::new(),
            in_frame: false,
        };
        b.hw.reset();
        b
    }

    /// One cycle with `offered` on the input and the output's `tready`; whether the beat was taken.
    fn cycle(&mut self, offered: Option<(&Beat, bool)>, out_ready: bool) -> bool {
        let u = &mut self.hw.dut;
        let idle = beat(0, 0, false, 0);
        let (b, bad) = offered.unwrap_or((&idle, false));
        u.s_axis.tvalid.next = offered.is_some();
        u.s_axis.tdata.next = Bits::<512>::from_words(&b.data);
        u.s_axis.tkeep.next = b.keep.into();
        u.s_axis.tlast.next = b.last;
        u.s_axis_tuser.next = bad;
        u.m_axis.tready.next = out_ready;
        self.hw.settle();
        let u = &self.hw.dut;
        let ready = u.s_axis.tready.val();
        assert_eq!(ready, self.model.ready(), "cycle {}: tready", self.cycle);
        assert_eq!(u.level.val().to_u64() as usize, self.model.level(), "cycle {}: level", self.cycle);
        let counts = FrameFifoCounts {
            frames: u.frame_count.val().to_u64(),
            bad_frames: u.bad_frame_count.val().to_u64(),
            overflows: u.overflow_count.val().to_u64(),
        };
        assert_eq!(counts, self.model.counts, "cycle {}: counters", self.cycle);
        let shown = u.m_axis.tvalid.val().then(|| Beat {
            data: u.m_axis.tdata.val().to_words(),
            keep: u.m_axis.tkeep.val().to_u64(),
            last: u.m_axis.tlast.val(),
        });
        assert!(!self.in_frame || shown.is_some(), "cycle {}: the output paused inside a frame", self.cycle);
        let shown_any = shown.is_some();
        let taken = shown.filter(|_| out_ready);
        let expected = self
            .model
            .clock(offered.map(|(b, bad)| (b.clone(), bad)), taken.is_some())
            .unwrap_or_else(|e| panic!("cycle {}: {e}", self.cycle));
        assert_eq!(taken, expected, "cycle {}: the beat that left", self.cycle);
        if let Some(b) = taken {
            self.in_frame = !b.last;
            self.out.push(b);
        } else if shown_any {
            self.in_frame = true;
        }
        self.hw.tick();
        self.cycle += 1;
        ready
    }

    /// Offers `frames` back to back (waiting while not ready), the output taking every beat.
    fn send(&mut self, frames: &[(Vec<Beat>, bool)], out_ready: bool) {
        for (beats, bad) in frames {
            for (k, b) in beats.iter().enumerate() {
                while !self.cycle(Some((b, *bad && k + 1 == beats.len())), out_ready) {}
            }
        }
    }

    /// Cycles with nothing offered until the output has shown every whole frame.
    fn drain(&mut self) {
        for _ in 0..4 * DEPTH {
            self.cycle(None, true);
        }
        assert_eq!(self.model.whole_beats(), 0, "frames left inside");
    }
}

#[test]
fn a_frame_leaves_two_cycles_after_its_last_beat_without_a_pause() {
    let mut b = Bench::new(false);
    let f = frame(1, 3);
    let mut first_out = None;
    for k in 0..12 {
        let offered = f.get(k).map(|x| (x, false));
        b.cycle(offered, true);
        if first_out.is_none() && !b.out.is_empty() {
            first_out = Some(k);
        }
    }
    // Last beat taken in cycle 2: the first beat shows in cycle 4.
    assert_eq!(first_out, Some(4));
    assert_eq!(b.out, f);
}

#[test]
fn a_bad_frame_is_dropped_whole_and_counted() {
    let mut b = Bench::new(false);
    b.send(&[(frame(1, 2), false), (frame(2, 5), true), (frame(3, 1), false)], true);
    b.drain();
    assert_eq!(b.out, [frame(1, 2), frame(3, 1)].concat());
    assert_eq!(b.model.counts, FrameFifoCounts { frames: 2, bad_frames: 1, overflows: 0 });
}

#[test]
fn the_dropping_kind_drops_a_frame_that_finds_it_full() {
    let mut b = Bench::new(false);
    // The output waits: two frames of 30 beats fit in 64, the third overflows after 4 beats
    // and is discarded to its last beat; the fourth, of 4 beats, fits.
    b.send(&[(frame(1, 30), false), (frame(2, 30), false), (frame(3, 20), false), (frame(4, 4), false)], false);
    b.drain();
    assert_eq!(b.out, [frame(1, 30), frame(2, 30), frame(4, 4)].concat());
    assert_eq!(b.model.counts, FrameFifoCounts { frames: 3, bad_frames: 0, overflows: 1 });
}

#[test]
fn the_lossless_kind_waits_and_drops_only_a_frame_longer_than_itself() {
    let mut b = Bench::new(true);
    // The output waits at first: the second frame waits for room instead of being dropped.
    let waiting: Vec<_> = [frame(1, 40), frame(2, 40)].into_iter().map(|f| (f, false)).collect();
    for (k, x) in waiting[0].0.iter().enumerate() {
        assert!(b.cycle(Some((x, false)), false), "beat {k} of the first frame taken");
    }
    let mut refused = 0;
    for x in &waiting[1].0 {
        loop {
            // The output opens once the FIFO has been full for a while.
            let open = refused >= 10;
            if b.cycle(Some((x, false)), open) {
                break;
            }
            refused += 1;
        }
    }
    assert!(refused >= 10, "the sender waited while the FIFO was full");
    // 65 beats can never fit: dropped, counted, discarded to its end; the next frame passes.
    b.send(&[(frame(3, 65), false), (frame(4, 2), false)], true);
    b.drain();
    assert_eq!(b.out, [frame(1, 40), frame(2, 40), frame(4, 2)].concat());
    assert_eq!(b.model.counts, FrameFifoCounts { frames: 3, bad_frames: 0, overflows: 1 });
}

/// Random frames of 1 to 80 beats, some bad, offered with gaps against an output that takes
/// beats at random, with resets: both kinds agree with the model on every cycle.
#[test]
fn random_frames_agree_with_the_reference_model() {
    for lossless in [false, true] {
        let seed = seed(&format!("frame fifo random, lossless {lossless}"), 91 + lossless as u64);
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut b = Bench::new(lossless);
        let mut id = 0;
        let (mut current, mut k, mut bad) = (frame(0, 1), 1usize, false);
        let mut before_resets = FrameFifoCounts::default();
        for _ in 0..6_000 {
            if k == current.len() {
                id += 1;
                current = frame(id, if rng.gen_bool(0.05) { rng.gen_range(60..=80) } else { rng.gen_range(1..=24) });
                k = 0;
                bad = rng.gen_bool(0.1);
            }
            let offer = rng.gen_bool(0.8);
            let last = k + 1 == current.len();
            let beat = current[k].clone();
            let out_ready = rng.gen_bool(0.45);
            if b.cycle(offer.then_some((&beat, bad && last)), out_ready) && offer {
                k += 1;
            }
            if rng.gen_bool(0.0005) {
                b.hw.reset();
                let c = b.model.counts;
                before_resets.frames += c.frames;
                before_resets.bad_frames += c.bad_frames;
                before_resets.overflows += c.overflows;
                b.model.reset();
                b.in_frame = false;
                k = current.len();
            }
        }
        b.drain();
        let c = b.model.counts;
        let c = FrameFifoCounts {
            frames: c.frames + before_resets.frames,
            bad_frames: c.bad_frames + before_resets.bad_frames,
            overflows: c.overflows + before_resets.overflows,
        };
        assert!(c.frames > 50 && c.bad_frames > 5 && c.overflows > 5, "seed {seed}: every outcome happened: {c:?}");
    }
}
