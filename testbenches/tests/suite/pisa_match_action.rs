//! Match-action table: the example flags program (NDP's ingress dispatch), run-time table
//! writes against the reference model on Verilator, and lockstep.

use nanotransport_hdl::pisa::match_action::*;
use nanotransport_hdl::pisa::wire::*;
use nanotransport_reference::pisa::match_lookup;
use nanotransport_sim::cosim::lockstep::{expect_agreement, run_lockstep_with};
use nanotransport_sim::cosim::native::NativeStepper;
use nanotransport_sim::cosim::native_pisa::FlagsMatchTable;
use nanotransport_sim::cosim::ports::{Lockstep, Ports};
use nanotransport_sim::cosim::stimulus::{Drive, Stimulus};
use nanotransport_sim::cosim::verilated::VerilatedModel;
use nanotransport_testbenches::seed;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const MODEL: &str = "nt_blocks_16_match_table";

fn example() -> FlagsMatchTable {
    FlagsMatchTable::new(&flags_example_program(), ACTION_DROP)
}

enum Step {
    Idle,
    Packet { key: u16, meta: u64 },
    Write { index: usize, entry: Option<MatchEntry> },
}

/// Drives the steps; every packet's result is checked one cycle later against the model.
fn run(io: &mut dyn Ports, steps: &[Step]) -> u64 {
    let mut table: Vec<Option<MatchEntry>> = flags_example_program().into_iter().map(Some).collect();
    table.resize(MATCH_ENTRIES, None);
    io.set("reset", 1);
    io.eval();
    io.tick();
    io.set("reset", 0);
    let mut pending: Option<((bool, usize, u8), u64)> = None;
    let mut checked = 0;
    for (cycle, s) in steps.iter().chain([Step::Idle].iter()).enumerate() {
        io.set("in_valid", 0);
        io.set("cfg_write_valid", 0);
        io.set("in_key", cycle as u64 * 7919 & 0xffff);
        io.set("in_meta", cycle as u64);
        match s {
            Step::Idle => {}
            Step::Packet { key, meta } => {
                io.set("in_valid", 1);
                io.set("in_key", *key as u64);
                io.set("in_meta", *meta);
            }
            Step::Write { index, entry } => {
                io.set("cfg_write_valid", 1);
                io.set("cfg_write_index", *index as u64);
                io.set("cfg_write_enable", entry.is_some() as u64);
                let e = entry.unwrap_or_default();
                io.set("cfg_write_key", e.value as u64);
                io.set("cfg_write_mask", e.mask as u64);
                io.set("cfg_write_action", e.action as u64);
            }
        }
        io.eval();
        match pending.take() {
            Some(((hit, entry, action), meta)) => {
                assert_eq!(io.get("out_valid"), 1, "cycle {cycle}");
                assert_eq!(
                    (io.get("out_hit") == 1, io.get("out_entry") as usize, io.get("out_action") as u8),
                    (hit, entry, action),
                    "cycle {cycle}"
                );
                assert_eq!(io.get("out_meta"), meta);
                checked += 1;
            }
            None => assert_eq!(io.get("out_valid"), 0, "cycle {cycle}"),
        }
        match s {
            Step::Packet { key, meta } => pending = Some((match_lookup(&table, *key, ACTION_DROP), *meta)),
            Step::Write { index, entry } => table[*index] = *entry,
            Step::Idle => {}
        }
        io.tick();
    }
    checked
}

#[test]
fn unit_flags_program_dispatches_ndp_packets() {
    let cases = [
        (FLAG_DATA, ACTION_DATA),
        (FLAG_DATA | FLAG_CHOP, ACTION_TRIMMED),
        (FLAG_ACK, ACTION_ACK),
        (FLAG_ACK | FLAG_PULL, ACTION_ACK),
        (FLAG_NACK, ACTION_CREDIT),
        (FLAG_PULL, ACTION_CREDIT),
        (FLAG_NACK | FLAG_PULL, ACTION_CREDIT),
        (FLAG_CHOP, ACTION_DROP),
        (0, ACTION_DROP),
    ];
    let steps: Vec<Step> = cases.iter().map(|(f, _)| Step::Packet { key: *f as u16, meta: *f as u64 }).collect();
    let mut native = NativeStepper::new(example());
    assert_eq!(run(&mut native, &steps), cases.len() as u64);
    let table: Vec<Option<MatchEntry>> = flags_example_program().into_iter().map(Some).collect();
    for (f, a) in cases {
        assert_eq!(match_lookup(&table, f as u16, ACTION_DROP).2, a, "flags {f:#x}");
    }
}

fn random_steps(rng: &mut ChaCha8Rng, n: usize) -> Vec<Step> {
    (0..n)
        .map(|_| match rng.gen_range(0..20) {
            0 => Step::Idle,
            1 => Step::Write {
                index: rng.gen_range(0..MATCH_ENTRIES),
                entry: rng.gen_bool(0.8).then(|| MatchEntry {
                    value: rng.gen::<u16>() & 0x1f,
                    mask: rng.gen::<u16>() & 0x1f,
                    action: rng.gen_range(0..16),
                }),
            },
            _ => Step::Packet { key: if rng.gen_bool(0.8) { rng.gen::<u16>() & 0x1f } else { rng.gen() }, meta: rng.gen() },
        })
        .collect()
}

fn packets_in(steps: &[Step]) -> u64 {
    steps.iter().filter(|s| matches!(s, Step::Packet { .. })).count() as u64
}

#[test]
fn model_random_writes_and_packets_on_verilator() {
    let mut rng = ChaCha8Rng::seed_from_u64(seed("pisa_match_model", 531));
    let steps = random_steps(&mut rng, 200_000);
    let mut v = VerilatedModel::new(MODEL).unwrap();
    let checked = run(&mut v, &steps);
    println!("match table: {checked} lookups checked against the model");
    assert_eq!(checked, packets_in(&steps), "every lookup checked");
    assert!(checked > 100_000, "only {checked} lookups");
}

#[test]
fn lockstep() {
    let mut rng = ChaCha8Rng::seed_from_u64(seed("pisa_match_lockstep", 532));
    let steps = random_steps(&mut rng, 12_000);
    let mut io = Lockstep::with_stepper(NativeStepper::new(example()), MODEL).unwrap();
    assert_eq!(run(&mut io, &steps), packets_in(&steps), "every lookup checked");
    println!("match table lockstep (model steps): {} cycles, {} comparisons", io.cycle, io.comparisons);
    let stim = Stimulus::new()
        .drive("reset", Drive::Bernoulli(0.002))
        .drive("cfg_write_valid", Drive::Bernoulli(0.05))
        .drive("cfg_write_mask", Drive::Sparse(3))
        .drive("in_key", Drive::Range(0, 0x3f));
    let s = seed("pisa_match_lockstep_random", 533);
    expect_agreement(run_lockstep_with(NativeStepper::new(example()), MODEL, &stim, 10_000, s));
}
