//! Free list on the Verilator model against the reference model, cycle by cycle.

use nanotransport_reference::free_list::{FreeListModel, FreeListView};
use nanotransport_sim::cosim::verilated::VerilatedModel;
use nanotransport_testbenches::seed;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn run(ids: u32, cycles: u64, default_seed: u64) {
    let seed = seed(&format!("free list {ids}"), default_seed);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut m = VerilatedModel::new(&format!("nt_blocks_{ids}_free_list")).unwrap();
    let [reset, ready, fv, fid, av, aid, empty, full, dfc] =
        ["reset", "alloc_ready", "free_valid", "free_id", "alloc_valid", "alloc_id", "empty", "full", "double_free_count"]
            .map(|p| m.port_or_panic(p));
    let mut model = FreeListModel::new(ids as usize);
    let mut held: Vec<u32> = Vec::new();
    let (mut allocations, mut double_frees, mut exhausted) = (0u64, 0u64, 0u64);
    for cycle in 0..cycles {
        // Mostly well-behaved traffic (free what we hold), sometimes a double or bogus free.
        let r = rng.gen_bool(0.0005);
        let take = rng.gen_bool(0.55);
        let free = if rng.gen_bool(0.02) {
            // A free by someone who does not hold the ID: a double free if it is free, else it
            // releases the holder's ID (the holder loses it).
            let id = rng.gen_range(0..ids);
            held.retain(|h| *h != id);
            Some(id)
        } else if !held.is_empty() && rng.gen_bool(0.5) {
            Some(held.swap_remove(rng.gen_range(0..held.len())))
        } else {
            None
        };
        m.set(reset, r as u64);
        m.set(ready, take as u64);
        m.set(fv, free.is_some() as u64);
        m.set(fid, free.unwrap_or(0) as u64);
        m.eval();
        let view = FreeListView {
            offered: (m.get(av) == 1).then(|| m.get(aid) as u32),
            empty: m.get(empty) == 1,
            full: m.get(full) == 1,
            double_frees: m.get(dfc) as u32,
        };
        assert_eq!(view, model.view(), "cycle {cycle} (seed {seed})");
        exhausted += view.empty as u64;
        let before = model.view().double_frees;
        if let Some(id) = model.clock(take, free, r) {
            assert!(!held.contains(&id), "ID {id} handed out twice");
            held.push(id);
            allocations += 1;
        }
        double_frees += (model.view().double_frees > before) as u64;
        if r {
            held.clear();
        }
        m.tick();
    }
    println!(
        "nt_blocks_{ids}_free_list: {cycles} cycles, {allocations} allocations, {double_frees} double frees counted, {exhausted} cycles empty"
    );
    assert!(allocations > cycles / 4 && double_frees > 0 && exhausted > 0, "the run exercised too little");
}

#[test]
fn matches_reference_model_16() {
    run(16, 100_000, 201);
}

#[test]
fn matches_reference_model_128() {
    run(128, 100_000, 202);
}
