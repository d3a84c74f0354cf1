//! Dual-ported memory: write-first read-during-write, zero after reset, 1-cycle reads; random
//! reads and writes against the model on Verilator; lockstep rust-hdl vs Verilator.

use nanotransport_hdl::pisa::dual_port_memory::DualPortMemory;
use nanotransport_reference::scheduler::DualPortMemoryModel;
use nanotransport_sim::cosim::native::NativeStepper;
use nanotransport_sim::cosim::ports::{Lockstep, Ports};
use nanotransport_sim::cosim::verilated::VerilatedModel;
use nanotransport_testbenches::seed;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// One cycle: an optional write (index, value), an optional read, and whether reset is high.
#[derive(Clone, Copy, Debug, Default)]
struct Cycle {
    write: Option<(usize, u64)>,
    read: Option<usize>,
    reset: bool,
}

/// Drives the cycles and checks every read answer (one cycle later) against the model.
/// Returns (reads checked, of which same-cycle same-index read-during-write, values read).
fn run(io: &mut dyn Ports, entries: usize, cycles: &[Cycle]) -> (u64, u64, Vec<u64>) {
    let mut model = DualPortMemoryModel::new(entries);
    io.set("reset", 1);
    io.set("wr_valid", 0);
    io.set("rd_valid", 0);
    io.eval();
    io.tick();
    let mut pending: Option<u64> = None;
    let (mut checked, mut rdw, mut values) = (0, 0, Vec::new());
    for (t, c) in cycles.iter().chain([Cycle::default()].iter()).enumerate() {
        io.set("reset", c.reset as u64);
        io.set("wr_valid", c.write.is_some() as u64);
        let (wi, wv) = c.write.unwrap_or((0, 0));
        io.set("wr_index", wi as u64);
        io.set("wr_value", wv);
        io.set("rd_valid", c.read.is_some() as u64);
        io.set("rd_index", c.read.unwrap_or(0) as u64);
        io.eval();
        match pending {
            Some(v) => {
                assert_eq!(io.get("rd_resp_valid"), 1, "cycle {t}");
                assert_eq!(io.get("rd_value"), v, "cycle {t}: read of cycle {}", t - 1);
                values.push(v);
                checked += 1;
            }
            None => assert_eq!(io.get("rd_resp_valid"), 0, "cycle {t}"),
        }
        if c.reset {
            model = DualPortMemoryModel::new(entries);
            pending = None;
        } else {
            if matches!((c.write, c.read), (Some((w, _)), Some(r)) if w == r) {
                rdw += 1;
            }
            pending = model.step(c.write, c.read);
        }
        io.tick();
    }
    (checked, rdw, values)
}

fn random_cycles(rng: &mut ChaCha8Rng, entries: usize, n: usize) -> Vec<Cycle> {
    (0..n)
        .map(|_| {
            // Mostly a few hot indices so reads often meet writes to the same entry.
            let index = |rng: &mut ChaCha8Rng| if rng.gen_bool(0.7) { rng.gen_range(0..3) } else { rng.gen_range(0..entries) };
            Cycle {
                write: rng.gen_bool(0.6).then(|| (index(rng), rng.gen::<u8>() as u64)),
                read: rng.gen_bool(0.7).then(|| index(rng)),
                reset: rng.gen_bool(0.0005),
            }
        })
        .collect()
}

/// Zero after reset; a write is read back 1 cycle after the read; a read in the same cycle as
/// a write to the same index returns the new value; a read of another index is unaffected;
/// reset makes every entry read 0 again.
#[test]
fn unit_write_first_and_reset() {
    let mut io = NativeStepper::<DualPortMemory<8, 16, 4>>::default();
    let w = |i, v| Some((i, v));
    let cycles = vec![
        Cycle { read: Some(3), ..Default::default() },                 // 0 (never written)
        Cycle { write: w(3, 7), read: Some(3), ..Default::default() }, // 7 (write-first)
        Cycle { write: w(3, 9), read: Some(4), ..Default::default() }, // 0
        Cycle { read: Some(3), ..Default::default() },                 // 9
        Cycle { write: w(3, 1), read: Some(3), ..Default::default() }, // 1
        Cycle { reset: true, ..Default::default() },
        Cycle { read: Some(3), ..Default::default() }, // 0 after reset
    ];
    let (checked, rdw, values) = run(&mut io, 16, &cycles);
    assert_eq!((checked, rdw), (6, 2));
    assert_eq!(values, vec![0, 7, 0, 9, 1, 0]);
}

#[test]
fn model_random_on_verilator() {
    let s = seed("dual_port_memory_model", 641);
    let mut rng = ChaCha8Rng::seed_from_u64(s);
    for (model, entries) in [("nt_blocks_16_dual_port_memory", 16), ("nt_blocks_128_dual_port_memory", 128)] {
        let cycles = random_cycles(&mut rng, entries, 200_000);
        let mut v = VerilatedModel::new(model).unwrap();
        let (checked, rdw, _) = run(&mut v, entries, &cycles);
        println!("{model}: {} cycles, {checked} reads checked, {rdw} read-during-write to the same index", cycles.len());
        assert!(rdw > 1000);
    }
}

#[test]
fn lockstep_random() {
    let s = seed("dual_port_memory_lockstep", 642);
    let mut rng = ChaCha8Rng::seed_from_u64(s);
    let cycles = random_cycles(&mut rng, 16, 12_000);
    let mut io = Lockstep::<DualPortMemory<8, 16, 4>>::new("nt_blocks_16_dual_port_memory").unwrap();
    let (checked, _, _) = run(&mut io, 16, &cycles);
    println!("AW=4 lockstep: {} cycles, {} comparisons, {checked} reads checked", io.cycle, io.comparisons);
    let cycles = random_cycles(&mut rng, 128, 12_000);
    let mut io = Lockstep::<DualPortMemory<8, 128, 7>>::new("nt_blocks_128_dual_port_memory").unwrap();
    let (checked, _, _) = run(&mut io, 128, &cycles);
    println!("AW=7 lockstep: {} cycles, {} comparisons, {checked} reads checked", io.cycle, io.comparisons);
}
