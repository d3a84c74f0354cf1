//! Priority scheduler extern: SRPT grants and positions (unit, natively stepped), random ops
//! every cycle against the cycle-level reference model on Verilator (16 and 128 message ids,
//! FIFO in use, removes of waiting and unknown ids, random K and rtt), and lockstep rust-hdl vs
//! Verilator.

use nanotransport_hdl::pisa::priority_scheduler::{PriorityScheduler, OP_ARRIVE, OP_REMOVE};
use nanotransport_reference::scheduler::{FifoPaths, Grant, SchedCounters, SchedOp, SchedulerModel, RESULT_LATENCY};
use nanotransport_sim::cosim::native::NativeStepper;
use nanotransport_sim::cosim::ports::{Lockstep, Ports};
use nanotransport_sim::cosim::verilated::VerilatedModel;
use nanotransport_testbenches::seed;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;

/// One cycle of stimulus: the op and the configuration.
#[derive(Clone, Copy, Debug)]
struct Cycle {
    op: Option<SchedOp>,
    overcommit: u8,
    rtt_pkts: u8,
}

fn drive(io: &mut dyn Ports, c: &Cycle) {
    io.set("cfg_overcommit", c.overcommit as u64);
    io.set("cfg_rtt_pkts", c.rtt_pkts as u64);
    let (valid, code, id, rem, recv, total, granted) = match c.op {
        None => (0, 0, 0, 0, 0, 0, 0),
        Some(SchedOp::Arrive { id, remaining, received, total, granted }) => (1, OP_ARRIVE, id, remaining, received, total, granted),
        Some(SchedOp::Remove { id }) => (1, OP_REMOVE, id, 0, 0, 0, 0),
    };
    io.set("op_valid", valid);
    io.set("op_code", code);
    io.set("op_id", id as u64);
    io.set("op_remaining", rem as u64);
    io.set("op_received", recv as u64);
    io.set("op_total", total as u64);
    io.set("op_granted", granted as u64);
}

fn read_grant(io: &mut dyn Ports) -> Option<Grant> {
    if io.get("res_grant") == 0 {
        return None;
    }
    Some(Grant {
        id: io.get("res_id") as usize,
        offset: io.get("res_grant_offset") as u8,
        position: io.get("res_position") as u8,
        received: io.get("res_received") as u8,
        total: io.get("res_total") as u8,
    })
}

fn read_counters(io: &mut dyn Ports) -> SchedCounters {
    SchedCounters {
        inserts: io.get("inserts_count"),
        removes: io.get("removes_count"),
        unknown_removes: io.get("unknown_removes_count"),
        grants: io.get("grants_count"),
        fifo_enters: io.get("fifo_enters_count"),
        skipped_arrivals: io.get("skipped_arrivals_count"),
        close_arrivals: io.get("close_arrivals_count"),
    }
}

#[derive(Debug, Default)]
struct RunStats {
    cycles: u64,
    decisions: u64,
    grants: u64,
    max_occupancy: u64,
    max_fifo: u64,
    counters: SchedCounters,
    paths: FifoPaths,
    /// Every grant, in order, with the cycle of its ARRIVE.
    log: Vec<(u64, Grant)>,
}

/// Resets, drives `cycles`, and checks every output every cycle against the model: the
/// decision `RESULT_LATENCY` cycles after each ARRIVE (all fields, and no result without an
/// ARRIVE), occupancy and FIFO level every cycle, counters every cycle.
fn run(io: &mut dyn Ports, ids: usize, cycles: &[Cycle]) -> RunStats {
    let mut model = SchedulerModel::new(ids);
    let idle = Cycle { op: None, overcommit: 1, rtt_pkts: 1 };
    io.set("reset", 1);
    drive(io, &idle);
    io.eval();
    io.tick();
    io.set("reset", 0);
    let mut stats = RunStats::default();
    // The model's result of each of the last RESULT_LATENCY cycles, oldest first.
    let mut pending: VecDeque<Option<Option<Grant>>> = std::iter::repeat(None).take(RESULT_LATENCY).collect();
    let tail = vec![idle; RESULT_LATENCY];
    for (t, c) in cycles.iter().chain(tail.iter()).enumerate() {
        drive(io, c);
        io.eval();
        let cycle = t as u64;
        let arrive_cycle = cycle.wrapping_sub(RESULT_LATENCY as u64);
        match pending.pop_front().flatten() {
            Some(expected) => {
                assert_eq!(io.get("res_valid"), 1, "cycle {cycle}: decision expected");
                assert_eq!(read_grant(io), expected, "cycle {cycle}: decision of the ARRIVE of cycle {arrive_cycle}");
                if expected.is_none() {
                    for p in ["res_id", "res_grant_offset", "res_position", "res_received", "res_total"] {
                        assert_eq!(io.get(p), 0, "cycle {cycle}: {p} without a grant");
                    }
                }
                stats.decisions += 1;
                if let Some(g) = expected {
                    stats.grants += 1;
                    stats.log.push((arrive_cycle, g));
                }
            }
            None => assert_eq!(io.get("res_valid"), 0, "cycle {cycle}: no ARRIVE in cycle {arrive_cycle}"),
        }
        assert_eq!(io.get("occupancy"), model.occupancy() as u64, "cycle {cycle}: occupancy");
        assert_eq!(io.get("fifo_level"), model.fifo_level() as u64, "cycle {cycle}: fifo level");
        assert_eq!(read_counters(io), model.counters, "cycle {cycle}: counters");
        stats.max_occupancy = stats.max_occupancy.max(model.occupancy() as u64);
        stats.max_fifo = stats.max_fifo.max(model.fifo_level() as u64);
        pending.push_back(model.step(c.op, c.overcommit, c.rtt_pkts));
        io.tick();
        stats.cycles += 1;
    }
    stats.counters = model.counters;
    stats.paths = model.paths;
    stats
}

/// Homa-like random traffic: up to `live` concurrent messages; in most cycles one packet of a
/// random live message arrives (ARRIVE with its rank and counts), a message whose last packet
/// arrived is removed, some live messages are removed early (garbage collection), some removes
/// name unknown ids, ids are reused after removal. ARRIVEs are mostly at least 3 cycles apart
/// (the cycles between carry REMOVEs or nothing); one in ten that would come sooner does (a
/// close ARRIVE, applied without a decision). K, rtt and the number of live messages
/// (8..=`live_max`, so the FIFO fills and drains) change every 1000 cycles.
fn random_cycles(rng: &mut ChaCha8Rng, ids: usize, live_max: usize, n: usize) -> Vec<Cycle> {
    #[derive(Clone, Copy)]
    struct Live {
        id: usize,
        total: u8,
        received: u8,
    }
    let mut live: Vec<Live> = Vec::new();
    let mut free: Vec<usize> = (0..ids).collect();
    let mut out = Vec::with_capacity(n);
    let (mut k, mut rtt, mut live_target) = (4u8, 8u8, live_max);
    // Index in `out` of the last ARRIVE.
    let mut last_arrive = 0usize;
    for t in 0..n {
        if t % 1000 == 0 {
            live_target = rng.gen_range(8.min(live_max)..=live_max);
            k = rng.gen_range(0..=20);
            rtt = match rng.gen_range(0..10) {
                0 => 0,
                1 => 255,
                2 => rng.gen_range(100..=255),
                _ => rng.gen_range(1..=12),
            };
        }
        let c = |op| Cycle { op, overcommit: k, rtt_pkts: rtt };
        if rng.gen_bool(0.1) {
            out.push(c(None));
            continue;
        }
        let spaced = out.len() >= last_arrive + 3 || rng.gen_bool(0.1);
        let r = if spaced { rng.gen_range(0..100) } else { rng.gen_range(0..20) };
        if !spaced && r >= 6 {
            out.push(c(None));
            continue;
        }
        if r < 3 {
            // REMOVE of an id that is not live (unknown, or left fully granted and removed).
            if !free.is_empty() {
                let id = free[rng.gen_range(0..free.len())];
                out.push(c(Some(SchedOp::Remove { id })));
                continue;
            }
        }
        if r < 6 && !live.is_empty() {
            // Early removal (garbage collection), possibly of a waiting message.
            let m = live.swap_remove(rng.gen_range(0..live.len()));
            free.push(m.id);
            out.push(c(Some(SchedOp::Remove { id: m.id })));
            continue;
        }
        if (live.len() < live_target && !free.is_empty() && rng.gen_bool(0.3)) || live.is_empty() {
            let id = free.swap_remove(rng.gen_range(0..free.len()));
            let total = if rng.gen_bool(0.2) { rng.gen_range(1..=8) } else { rng.gen_range(9..=120) };
            live.push(Live { id, total, received: 0 });
        }
        if !spaced {
            out.push(c(None));
            continue;
        }
        last_arrive = out.len();
        let i = rng.gen_range(0..live.len());
        let m = &mut live[i];
        m.received += 1;
        let granted = if rng.gen_bool(0.05) { rng.gen() } else { m.total.min(rtt) };
        let op = SchedOp::Arrive { id: m.id, remaining: m.total - m.received, received: m.received, total: m.total, granted };
        if m.received == m.total {
            // The last packet: the message completes and is removed a few ops later at most.
            let done = live.swap_remove(i);
            out.push(c(Some(op)));
            out.push(c(Some(SchedOp::Remove { id: done.id })));
            free.push(done.id);
            continue;
        }
        out.push(c(Some(op)));
    }
    out
}

/// Five messages of different sizes (rtt 4, K 3): each first packet inserts the message; then
/// GRANTs go in SRPT order (fewest remaining first) to at most K messages at once, each with
/// its position 0..K−1; a fully granted message leaves and the next one enters the set.
#[test]
fn unit_five_messages_srpt_order() {
    let mut io = NativeStepper::<PriorityScheduler<16, 4>>::default();
    let (k, rtt) = (3u8, 4u8);
    // id → total packets.
    let totals = [(3usize, 20u8), (5, 9), (7, 14), (9, 6), (11, 30)];
    let mut cycles = Vec::new();
    let arrive = |id: usize, total: u8, received: u8| Cycle {
        op: Some(SchedOp::Arrive { id, remaining: total - received, received, total, granted: total.min(rtt) }),
        overcommit: k,
        rtt_pkts: rtt,
    };
    let idle = Cycle { op: None, overcommit: k, rtt_pkts: rtt };
    // First packet of each message, one every 3 cycles (a decision takes 3 cycles).
    for &(id, total) in &totals {
        cycles.extend([arrive(id, total, 1), idle, idle]);
    }
    // Then round after round of one more packet each.
    for round in 2..=6u8 {
        for &(id, total) in &totals {
            if round <= total {
                cycles.extend([arrive(id, total, round), idle, idle]);
            }
        }
    }
    let stats = run(&mut io, 16, &cycles);
    let log: Vec<(usize, u8, u8)> = stats.log.iter().map(|(_, g)| (g.id, g.offset, g.position)).collect();
    println!("grants (id, offset, position): {log:?}");
    // After the five inserts the ranks are 9:5, 5:8, 7:13, 3:19, 11:29 (remaining).
    // The first ARRIVE (id 3) grants id 3 itself (the only message, position 0).
    assert_eq!(log[0], (3, 5, 0));
    // Every grant goes to a message within the K lowest ranks, positions 0..K−1.
    assert!(log.iter().all(|&(_, _, p)| p < k));
    // The smallest message (9, 6 packets) gets position 0 once inserted and is fully granted
    // first: its grants reach 6 before any grant to the largest message 11.
    let first_11 = log.iter().position(|g| g.0 == 11);
    let full_9 = log.iter().position(|g| g.0 == 9 && g.1 == 6).expect("message 9 fully granted");
    assert!(first_11.map_or(true, |f| f > full_9), "SRPT: 9 before 11");
    // Message 11 (the largest) is outside the overcommitment set of K = 3 while four smaller
    // messages are scheduled: its first grant comes only after messages 9 and 5 were fully
    // granted and left, and then at position 2 (K − 1).
    let full_5 = log.iter().position(|g| g.0 == 5 && g.1 == 9).expect("message 5 fully granted");
    let first_11 = first_11.expect("message 11 granted once the set has room");
    assert!(first_11 > full_5, "{log:?}");
    assert_eq!(log[first_11].2, 2);
    // The positions seen are exactly 0..K−1 (0, 1 and 2 all occur).
    for p in 0..k {
        assert!(log.iter().any(|g| g.2 == p), "position {p} occurs");
    }
    assert_eq!(stats.counters.inserts, 5);
    assert!(stats.counters.grants > 0);
}

/// One id through its life, one ARRIVE every 3 cycles: insert, update, grant and remove; a
/// message that left fully granted ignores later ARRIVEs until REMOVEd; unknown REMOVE counted.
#[test]
fn unit_one_message_life() {
    let mut io = NativeStepper::<PriorityScheduler<16, 4>>::default();
    let c = |op| Cycle { op: Some(op), overcommit: 2, rtt_pkts: 2 };
    let idle = Cycle { op: None, overcommit: 2, rtt_pkts: 2 };
    let a = |received: u8| SchedOp::Arrive { id: 1, remaining: 6 - received, received, total: 6, granted: 2 };
    let cycles = vec![
        c(a(1)),
        idle,
        idle, // insert, grant 3
        c(a(2)),
        idle,
        idle, // grant 4
        c(a(3)),
        idle,
        idle, // grant 5
        c(a(4)),
        idle,
        idle,                         // grant 6 = total: leaves
        c(a(5)),                      // ignored (fully granted)
        c(SchedOp::Remove { id: 1 }), // clears the mark
        c(SchedOp::Remove { id: 1 }), // unknown now
        c(SchedOp::Remove { id: 2 }), // unknown
        c(a(1)),                      // the slot's next message: inserted again
    ];
    let stats = run(&mut io, 16, &cycles);
    let offsets: Vec<u8> = stats.log.iter().map(|(_, g)| g.offset).collect();
    assert_eq!(offsets, vec![3, 4, 5, 6, 3]);
    assert_eq!(
        stats.counters,
        SchedCounters { inserts: 2, removes: 1, unknown_removes: 2, grants: 5, fifo_enters: 0, skipped_arrivals: 1, close_arrivals: 0 }
    );
}

/// The cycles while a decision is in flight. A message chosen to leave fully granted is
/// REMOVEd in the next cycle and in the cycle after (no `done` mark is left behind: its slot's
/// next message is inserted); ARRIVEs one and two cycles after a decided ARRIVE update the
/// message but get no decision (`close_arrivals`), and the decision of the earlier ARRIVE still
/// sees the state right after it; a decision whose message is removed and replaced by the slot's
/// next message before it is applied leaves the new message alone.
#[test]
fn unit_ops_while_a_decision_is_in_flight() {
    let mut io = NativeStepper::<PriorityScheduler<16, 4>>::default();
    let c = |op| Cycle { op: Some(op), overcommit: 4, rtt_pkts: 8 };
    let idle = Cycle { op: None, overcommit: 4, rtt_pkts: 8 };
    // id 3: 4 packets, first ARRIVE with nothing granted yet: the decision fills it (leaves).
    let a3 = SchedOp::Arrive { id: 3, remaining: 3, received: 1, total: 4, granted: 2 };
    let a5 = |received: u8| SchedOp::Arrive { id: 5, remaining: 40 - received, received, total: 40, granted: 8 };
    let a9 = SchedOp::Arrive { id: 9, remaining: 4, received: 1, total: 5, granted: 2 };
    let a9_next = |received: u8| SchedOp::Arrive { id: 9, remaining: 40 - received, received, total: 40, granted: 8 };
    let cycles = vec![
        c(a3),                        // decided: grant 4 (fills) to 3
        c(SchedOp::Remove { id: 3 }), // 3 removed before its decision is applied
        idle,
        c(a3), // a new message in slot 3: inserted, decided: grant 4 again
        idle,
        c(SchedOp::Remove { id: 3 }), // removed in the cycle its decision is applied
        c(a3),                        // slot 3 again: inserted (no done mark was left)
        idle,
        idle,
        c(a5(1)), // decided: 3 was fully granted and left; 5 gets 9
        c(a5(2)), // close: updated, no decision
        c(a5(3)), // close
        c(a5(4)), // decided on received 4: grant 12
        idle,
        idle,
        c(a9),                        // decided: grant 5 (fills) to 9
        c(SchedOp::Remove { id: 9 }), // 9 removed
        c(a9_next(1)),                // close: slot 9's next message, inserted; the decision
        // of the old one does not apply to it
        c(a9_next(2)), // decided: grant 10 to the new message
        idle,
        idle,
    ];
    let stats = run(&mut io, 16, &cycles);
    let log: Vec<(usize, u8)> = stats.log.iter().map(|(_, g)| (g.id, g.offset)).collect();
    assert_eq!(log, vec![(3, 4), (3, 4), (3, 4), (5, 9), (5, 12), (9, 5), (9, 10)]);
    assert_eq!(stats.counters.close_arrivals, 3);
    assert_eq!(stats.counters.inserts, 6);
    assert_eq!(stats.counters.removes, 3);
    assert_eq!(stats.counters.unknown_removes, 0);
}

#[test]
fn model_random_on_verilator() {
    let s = seed("priority_scheduler_model", 631);
    let mut rng = ChaCha8Rng::seed_from_u64(s);
    for (model, ids, live, n) in
        [("nt_blocks_16_priority_scheduler", 16, 16, 200_000), ("nt_blocks_128_priority_scheduler", 128, 60, 400_000)]
    {
        let cycles = random_cycles(&mut rng, ids, live, n);
        let mut v = VerilatedModel::new(model).unwrap();
        let st = run(&mut v, ids, &cycles);
        println!(
            "{model}: {} cycles, {} decisions checked, {} grants, max occupancy {}, max FIFO {}, counters {:?}, FIFO paths {:?}",
            st.cycles, st.decisions, st.grants, st.max_occupancy, st.max_fifo, st.counters, st.paths
        );
        assert!(
            st.grants > 1000 && st.counters.unknown_removes > 0 && st.counters.skipped_arrivals > 0 && st.counters.close_arrivals > 100
        );
        if ids > 16 {
            assert!(st.counters.fifo_enters > 100 && st.max_fifo > 4 && st.max_occupancy == 16, "the FIFO is exercised");
            let p = st.paths;
            assert!(
                p.loads > 100 && p.discarded > 0 && p.reused_records > 0 && p.forwarded > 0 && p.op_on_load > 0 && p.insert_during_pop > 0,
                "every FIFO corner path is reached: {p:?}"
            );
        }
    }
}

#[test]
fn lockstep_model_traffic() {
    let s = seed("priority_scheduler_lockstep", 632);
    let mut rng = ChaCha8Rng::seed_from_u64(s);
    let cycles = random_cycles(&mut rng, 16, 16, 12_000);
    let mut io = Lockstep::<PriorityScheduler<16, 4>>::new("nt_blocks_16_priority_scheduler").unwrap();
    let st = run(&mut io, 16, &cycles);
    println!("IW=4 lockstep: {} cycles, {} comparisons, {} decisions checked", io.cycle, io.comparisons, st.decisions);
    let cycles = random_cycles(&mut rng, 128, 60, 12_000);
    let mut io = Lockstep::<PriorityScheduler<128, 7>>::new("nt_blocks_128_priority_scheduler").unwrap();
    let st = run(&mut io, 128, &cycles);
    println!(
        "IW=7 lockstep: {} cycles, {} comparisons, {} decisions checked, fifo_enters {}",
        io.cycle, io.comparisons, st.decisions, st.counters.fifo_enters
    );
    assert!(st.counters.fifo_enters > 0);
}
