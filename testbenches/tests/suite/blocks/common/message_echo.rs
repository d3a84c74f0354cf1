//! Unit tests of the block in `hdl/common/message_echo.rs`, on the natively stepped block: the
//! NIC's delivered-message stream in, its send stream out, against the reference
//! ([`RxMessage::echo`] encoded as the CPU TX stream).

use nanotransport_hdl::common::message_echo::MessageEcho;
use nanotransport_reference::messages::RxMessage;
use nanotransport_sim::cosim::native::NativeStepper;
use nanotransport_sim::nic::{frame_beats, tx_message_words};
use nanotransport_testbenches::seed;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The delivered-message stream of `m` (docs/integration.md, "Receiving a message").
fn delivered(m: &RxMessage) -> Vec<(u64, u64, bool)> {
    let addresses = m.remote_ip as u64 | (m.remote_port as u64) << 32 | (m.local_port as u64) << 48;
    let mut beats = vec![(addresses, 0xff, false), (m.payload.len() as u64, 0xff, false)];
    beats.extend(frame_beats(&m.payload));
    beats
}

fn message(rng: &mut ChaCha8Rng) -> RxMessage {
    let len = rng.gen_range(1..=3000);
    RxMessage {
        remote_ip: rng.gen(),
        remote_port: rng.gen(),
        local_port: rng.gen(),
        payload: (0..len).map(|_| rng.gen()).collect(),
        first_cycle: 0,
    }
}

/// Offers `input` beats (each with probability `valid`), takes output words with probability
/// `ready`, raises completions with probability `done` (abandoned one time in four). Returns the
/// output words, the cycles taken and the completions (acknowledged, abandoned) raised.
fn run(
    hw: &mut NativeStepper<MessageEcho>,
    input: &[(u64, u64, bool)],
    expected_words: usize,
    (valid, ready, done): (f64, f64, f64),
    rng: &mut ChaCha8Rng,
) -> (Vec<(u64, u64, bool)>, u64, (u64, u64)) {
    let (mut next, mut out, mut cycles, mut completions) = (0, Vec::new(), 0u64, (0, 0));
    while out.len() < expected_words || next < input.len() {
        assert!(cycles < 20 * (input.len() as u64 + 100), "stuck: {next} of {} beats in, {} words out", input.len(), out.len());
        let offer = next < input.len() && rng.gen_bool(valid);
        let take_out = rng.gen_bool(ready);
        let (completion, abandoned) = (rng.gen_bool(done), rng.gen_bool(0.25));
        let (d, k, l) = input.get(next).copied().unwrap_or((0, 0, false));
        let u = &mut hw.dut;
        u.s_axis.tvalid.next = offer;
        u.s_axis.tdata.next = d.into();
        u.s_axis.tkeep.next = k.into();
        u.s_axis.tlast.next = l;
        u.m_axis.tready.next = take_out;
        u.done_valid.next = completion;
        u.done_abandoned.next = abandoned;
        hw.settle();
        let u = &hw.dut;
        assert!(u.done_ready.val());
        if completion {
            if abandoned {
                completions.1 += 1;
            } else {
                completions.0 += 1;
            }
        }
        if offer && u.s_axis.tready.val() {
            next += 1;
        }
        if u.m_axis.tvalid.val() && take_out {
            out.push((u.m_axis.tdata.val().to_u64(), u.m_axis.tkeep.val().to_u64(), u.m_axis.tlast.val()));
        }
        hw.tick();
        cycles += 1;
    }
    (out, cycles, completions)
}

#[test]
fn every_message_goes_back_to_its_sender_and_short_ones_are_counted() {
    let seed = seed("message echo", 101);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut hw = NativeStepper::new(MessageEcho::default());
    hw.reset();
    let (mut input, mut expected, mut short) = (Vec::new(), Vec::new(), 0u64);
    for _ in 0..200 {
        if rng.gen_bool(0.05) {
            // A stream packet shorter than the two header beats: dropped, counted.
            let beats = rng.gen_range(1..=2);
            input.extend((0..beats).map(|b| (rng.gen::<u64>(), 0xff, b + 1 == beats)));
            short += 1;
            continue;
        }
        let m = message(&mut rng);
        input.extend(delivered(&m));
        expected.extend(tx_message_words(&m.echo()));
    }
    let (out, _, (acked, abandoned)) = run(&mut hw, &input, expected.len(), (0.8, 0.7, 0.1), &mut rng);
    assert_eq!(out, expected, "seed {seed}");
    let u = &hw.dut;
    assert_eq!(u.echoed_count.val().to_u64(), 200 - short);
    assert_eq!(u.malformed_count.val().to_u64(), short);
    assert_eq!((u.completed_count.val().to_u64(), u.abandoned_count.val().to_u64()), (acked, abandoned));
    assert!(short > 0 && acked > 0 && abandoned > 0, "seed {seed}: every case happened");
}

#[test]
fn a_message_of_p_payload_beats_takes_p_plus_4_cycles() {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut hw = NativeStepper::new(MessageEcho::default());
    hw.reset();
    let messages: Vec<RxMessage> = (0..20).map(|_| message(&mut rng)).collect();
    let input: Vec<_> = messages.iter().flat_map(delivered).collect();
    let expected: Vec<_> = messages.iter().flat_map(|m| tx_message_words(&m.echo())).collect();
    let (out, cycles, _) = run(&mut hw, &input, expected.len(), (1.0, 1.0, 0.0), &mut rng);
    assert_eq!(out, expected);
    let payload_beats: u64 = messages.iter().map(|m| m.payload.len().div_ceil(8) as u64).sum();
    assert_eq!(cycles, payload_beats + 4 * messages.len() as u64);
}
