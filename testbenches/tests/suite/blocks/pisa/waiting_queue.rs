//! Unit tests of the block in `hdl/pisa/waiting_queue.rs`, on the natively stepped block, against
//! a queue of ids and a map of waiting states kept by the test.

use nanotransport_hdl::pisa::waiting_queue::WaitingQueue;
use rand::{Rng, SeedableRng};
use rust_hdl::prelude::*;
use std::collections::VecDeque;

/// `(remaining, received, total, granted)` of a waiting message.
type State = [u64; 4];

/// The documented behaviour: a pop starts when allowed, with a record and no pop under way; the
/// id is `reading` one cycle later and `loading`, with its state as of the end of the previous
/// cycle, two cycles later.
#[derive(Default)]
struct Model {
    ids: VecDeque<u64>,
    states: [State; 16],
    reading: Option<u64>,
    loading: Option<u64>,
}

#[test]
fn pops_in_order_with_the_latest_state() {
    let seed = nanotransport_testbenches::seed("waiting_queue", 31);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut uut = WaitingQueue::<4>::default();
    uut.connect_all();
    let mut model = Model::default();
    let clock = |u: &mut WaitingQueue<4>| {
        u.clock.next = Clock { clk: true };
        assert!(simulate(u, 100));
        u.clock.next = Clock { clk: false };
        assert!(simulate(u, 100));
    };
    uut.reset.next = true;
    clock(&mut uut);
    uut.reset.next = false;
    // Every state starts known to both.
    for id in 0..16u64 {
        uut.id.next = id.into();
        uut.write_state.next = true;
        uut.write_limits.next = true;
        for f in [&mut uut.remaining, &mut uut.received, &mut uut.total, &mut uut.granted] {
            f.next = 0.into();
        }
        clock(&mut uut);
    }
    let (mut loads, mut forwarded) = (0, 0);
    for cycle in 0..20_000 {
        let id = rng.gen_range(0..16u64);
        let push = rng.gen_bool(0.3) && model.ids.len() < 16 && !model.ids.contains(&id);
        let write_state = rng.gen_bool(0.3);
        let write_limits = rng.gen_bool(0.2);
        let pop_allowed = rng.gen_bool(0.5);
        let fields: State = std::array::from_fn(|_| rng.gen_range(0..256));
        uut.id.next = id.into();
        uut.push.next = push;
        uut.write_state.next = write_state;
        uut.write_limits.next = write_limits;
        uut.pop_allowed.next = pop_allowed;
        uut.remaining.next = fields[0].into();
        uut.received.next = fields[1].into();
        uut.total.next = fields[2].into();
        uut.granted.next = fields[3].into();
        assert!(simulate(&mut uut, 100));
        assert_eq!(uut.level.val().to_u64(), model.ids.len() as u64, "cycle {cycle}: level");
        assert_eq!(uut.reading.val(), model.reading.is_some(), "cycle {cycle}: reading");
        if let Some(r) = model.reading {
            assert_eq!(uut.reading_id.val().to_u64(), r, "cycle {cycle}: reading id");
        }
        assert_eq!(uut.loading.val(), model.loading.is_some(), "cycle {cycle}: loading");
        if let Some(l) = model.loading {
            let got = [&uut.load_remaining, &uut.load_received, &uut.load_total, &uut.load_granted].map(|s| s.val().to_u64());
            assert_eq!((uut.load_id.val().to_u64(), got), (l, model.states[l as usize]), "cycle {cycle}: load");
            loads += 1;
        }
        // The end of the cycle.
        let pop = !model.ids.is_empty() && model.reading.is_none() && model.loading.is_none() && pop_allowed;
        model.loading = model.reading.take();
        if pop {
            model.reading = model.ids.pop_front();
        }
        if push {
            model.ids.push_back(id);
        }
        if model.loading == Some(id) && (write_state || write_limits) {
            forwarded += 1;
        }
        if write_state {
            model.states[id as usize][..2].copy_from_slice(&fields[..2]);
        }
        if write_limits {
            model.states[id as usize][2..].copy_from_slice(&fields[2..]);
        }
        clock(&mut uut);
    }
    println!("waiting queue: {loads} loads, {forwarded} of them with a write in the cycle their state was read");
    assert!(loads > 1_000 && forwarded > 10, "the run pops often and exercises the forwarding");
    // Reset empties the FIFO and ends a pop under way.
    uut.reset.next = true;
    clock(&mut uut);
    uut.reset.next = false;
    uut.push.next = false;
    assert!(simulate(&mut uut, 100));
    assert_eq!((uut.level.val().to_u64(), uut.reading.val(), uut.loading.val()), (0, false, false));
}
