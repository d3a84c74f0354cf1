//! Unit tests of the block in `hdl/common/cmac_edge.rs`, on the natively stepped block: frames
//! both ways between 512-bit CMAC streams and 64-bit NIC streams, against the reference models
//! of the FIFOs' outcomes and of the width converters.

use nanotransport_hdl::common::cmac_edge::{CmacEdge, RX_FIFO_BEATS_LOG2};
use nanotransport_reference::frame_fifo::Beat;
use nanotransport_reference::stream_width::{narrow_beats, wide_beats};
use nanotransport_sim::cosim::native::{NativeStepper, PortBits};
use nanotransport_testbenches::frames::{narrow_frame, wide_frame};
use nanotransport_testbenches::seed;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rust_hdl::prelude::*;

fn edge() -> NativeStepper<CmacEdge> {
    let mut hw = NativeStepper::new(CmacEdge::default());
    hw.reset();
    hw
}

/// The CMAC sends `frames` (with their bad flags) one beat a cycle, never waiting, with one idle
/// cycle and `gap_per_beat` more per beat after each frame; the NIC takes a beat with probability
/// `nic_ready`. Returns the 64-bit beats the NIC got, after `drain` cycles more.
fn receive(
    hw: &mut NativeStepper<CmacEdge>,
    frames: &[(Vec<Beat>, bool)],
    gap_per_beat: usize,
    nic_ready: f64,
    rng: &mut ChaCha8Rng,
    drain: usize,
) -> Vec<Beat> {
    let mut offered: Vec<(Option<&Beat>, bool)> = Vec::new();
    for (beats, bad) in frames {
        offered.extend(beats.iter().map(|b| (Some(b), *bad && b.last)));
        offered.extend((0..1 + gap_per_beat * beats.len()).map(|_| (None, false)));
    }
    offered.extend((0..drain).map(|_| (None, false)));
    let mut out = Vec::new();
    let idle = Beat { data: vec![0; 8], keep: 0, last: false };
    for (beat, bad) in offered {
        let ready = rng.gen_bool(nic_ready);
        let u = &mut hw.dut;
        let b = beat.unwrap_or(&idle);
        u.rx_axis_tvalid.next = beat.is_some();
        u.rx_axis_tdata.next = Bits::<512>::from_words(&b.data);
        u.rx_axis_tkeep.next = b.keep.into();
        u.rx_axis_tlast.next = b.last;
        u.rx_axis_tuser.next = bad;
        u.m_axis_rx_tready.next = ready;
        u.s_axis_tx_tvalid.next = false;
        u.tx_axis_tready.next = true;
        hw.settle();
        let u = &hw.dut;
        if u.m_axis_rx_tvalid.val() && ready {
            out.push(Beat {
                data: vec![u.m_axis_rx_tdata.val().to_u64()],
                keep: u.m_axis_rx_tkeep.val().to_u64(),
                last: u.m_axis_rx_tlast.val(),
            });
        }
        hw.tick();
    }
    out
}

#[test]
fn received_frames_reach_the_nic_whole_and_bad_ones_are_dropped() {
    let seed = seed("cmac edge receive", 97);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let frames: Vec<(Vec<Beat>, bool)> = (0..60).map(|f| (wide_frame(f, rng.gen_range(64..=1518)), rng.gen_bool(0.2))).collect();
    let mut hw = edge();
    // The CMAC's frames come no faster than the NIC takes them (a 512-bit beat is 8 NIC beats,
    // taken in 9 cycles on average): nothing overflows.
    let out = receive(&mut hw, &frames, 9, 0.9, &mut rng, 20_000);
    let good: Vec<Beat> = frames.iter().filter(|(_, bad)| !bad).flat_map(|(b, _)| b.clone()).collect();
    let bad = frames.iter().filter(|(_, bad)| *bad).count() as u64;
    let u = &hw.dut;
    assert_eq!(u.rx_bad_frame_count.val().to_u64(), bad, "seed {seed}");
    assert_eq!(u.rx_overflow_count.val().to_u64(), 0, "seed {seed}");
    assert_eq!(u.rx_frame_count.val().to_u64(), frames.len() as u64 - bad, "seed {seed}");
    assert_eq!(out, narrow_beats(&good), "seed {seed}");
}

#[test]
fn a_burst_longer_than_the_receive_fifo_overflows_whole_frames_only() {
    let mut rng = ChaCha8Rng::seed_from_u64(98);
    let mut hw = edge();
    // 60 frames of 1 500 bytes (24 beats each, 1 440 beats) at line rate against a NIC that takes
    // 8 bytes a cycle at most: the 512-beat FIFO fills and whole frames are dropped.
    let frames: Vec<(Vec<Beat>, bool)> = (0..60).map(|f| (wide_frame(f, 1500), false)).collect();
    let out = receive(&mut hw, &frames, 0, 1.0, &mut rng, 40_000);
    let u = &hw.dut;
    let (kept, dropped) = (u.rx_frame_count.val().to_u64(), u.rx_overflow_count.val().to_u64());
    assert_eq!(kept + dropped, 60);
    assert!(dropped > 0 && kept > (1 << RX_FIFO_BEATS_LOG2) / 24, "kept {kept}, dropped {dropped}");
    // What reached the NIC is whole frames, in order, each one the CMAC sent.
    let narrow: Vec<Vec<Beat>> = frames.iter().map(|(b, _)| narrow_beats(b)).collect();
    let mut rest = out.as_slice();
    let mut matched = 0;
    for f in &narrow {
        if rest.starts_with(f) {
            rest = &rest[f.len()..];
            matched += 1;
        }
    }
    assert!(rest.is_empty(), "{} beats left over that are no whole frame", rest.len());
    assert_eq!(matched, kept);
    assert_eq!(u.rx_fifo_level.val().to_u64(), 0);
}

#[test]
fn sent_frames_reach_the_cmac_whole_without_a_pause() {
    let seed = seed("cmac edge transmit", 99);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let frames: Vec<Vec<Beat>> = (0..80).map(|f| narrow_frame(f, rng.gen_range(64..=1088 + 64))).collect();
    let narrow: Vec<Beat> = frames.concat();
    let mut hw = edge();
    let (mut next, mut out, mut in_frame) = (0, Vec::new(), false);
    let expected = wide_beats(&narrow);
    for cycle in 0..100_000 {
        if out.len() == expected.len() {
            break;
        }
        let offer = next < narrow.len() && rng.gen_bool(0.8);
        let cmac_ready = rng.gen_bool(0.7);
        let u = &mut hw.dut;
        let b = narrow.get(next).cloned().unwrap_or(Beat { data: vec![0], keep: 0, last: false });
        u.s_axis_tx_tvalid.next = offer;
        u.s_axis_tx_tdata.next = b.data[0].into();
        u.s_axis_tx_tkeep.next = b.keep.into();
        u.s_axis_tx_tlast.next = b.last;
        u.tx_axis_tready.next = cmac_ready;
        u.rx_axis_tvalid.next = false;
        u.m_axis_rx_tready.next = true;
        hw.settle();
        let u = &hw.dut;
        if offer && u.s_axis_tx_tready.val() {
            next += 1;
        }
        let valid = u.tx_axis_tvalid.val();
        assert!(!in_frame || valid, "cycle {cycle}: the CMAC would run dry inside a frame (seed {seed})");
        assert!(!u.tx_axis_tuser.val());
        if valid {
            in_frame = true;
            if cmac_ready {
                let beat =
                    Beat { data: u.tx_axis_tdata.val().to_words(), keep: u.tx_axis_tkeep.val().to_u64(), last: u.tx_axis_tlast.val() };
                in_frame = !beat.last;
                out.push(beat);
            }
        }
        hw.tick();
    }
    assert_eq!(out, expected, "seed {seed}");
    assert_eq!(hw.dut.tx_frame_count.val().to_u64(), frames.len() as u64);
    assert_eq!(hw.dut.tx_overflow_count.val().to_u64(), 0);
}
