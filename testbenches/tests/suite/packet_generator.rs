//! Packet generator: immediate control packets in order (or counted drops), paced PULLs that
//! coalesce per message with the highest credit winning and never carry the credit of a
//! previous message of their receive slot, token-bucket pacing measured; checked on Verilator
//! with random events (slots reused by new generations) and back-pressure, and in lockstep
//! against rust-hdl.

use nanotransport_hdl::nic::packet_generator::{PacketGenerator, DEFAULT_PACE_CYCLES};
use nanotransport_hdl::pisa::wire::*;
use nanotransport_sim::cosim::native::NativeStepper;
use nanotransport_sim::cosim::ports::{Lockstep, Ports};
use nanotransport_sim::cosim::verilated::{PortId, VerilatedModel};
use nanotransport_testbenches::seed;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::{HashMap, HashSet};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Meta {
    remote_ip: u32,
    remote_port: u16,
    local_port: u16,
    msg_len: u16,
    pkt_offset: u8,
    /// The tests set tx_msg_id = the event's message, `generation << 8 | slot`, so a PULL
    /// names its message.
    tx_msg_id: u16,
    rank: u8,
    credit: u16,
}

#[derive(Clone, Copy, Debug)]
struct Event {
    /// Receive slot (`ev_msg_id`).
    msg: usize,
    /// Generation of the slot's message (`ev_msg_gen`).
    gen: u8,
    ctrl_flags: u8,
    pull: bool,
    meta: Meta,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Out {
    cycle: u64,
    /// First cycle this packet was shown on the output (it was chosen in the cycle before).
    shown: u64,
    flags: u8,
    meta: Meta,
}

#[derive(Default)]
struct Run {
    out: Vec<Out>,
    counters: HashMap<&'static str, u64>,
    cycles: u64,
}

const COUNTERS: [&str; 6] =
    ["ctrl_sent_count", "pull_sent_count", "merged_count", "pull_coalesced_count", "pull_replaced_count", "dropped_count"];

struct Env {
    pace: u64,
    bucket: u64,
    ready: f64,
    /// Cycles after the last event, to drain the pending PULLs.
    drain: u64,
}

/// `events[c]` is the event of cycle c (None: no event).
fn drive(io: &mut dyn Ports, events: &[Option<Event>], env: &Env, rng: &mut ChaCha8Rng) -> Run {
    let mut run = Run::default();
    io.set("cfg_pace_cycles", env.pace);
    io.set("cfg_bucket_max", env.bucket);
    io.set("reset", 1);
    io.set("ev$valid", 0);
    io.eval();
    io.tick();
    io.set("reset", 0);
    let total = events.len() as u64 + env.drain;
    let mut shown_since: Option<u64> = None;
    for cycle in 0..total {
        let e = events.get(cycle as usize).copied().flatten();
        io.set("ev$valid", e.is_some() as u64);
        let ev =
            e.unwrap_or(Event { msg: rng.gen_range(0..16), gen: rng.gen(), ctrl_flags: rng.gen(), pull: rng.gen(), meta: Meta::default() });
        io.set("ev$msg_id", ev.msg as u64);
        io.set("ev$msg_gen", ev.gen as u64);
        io.set("ev$ctrl_flags", ev.ctrl_flags as u64);
        io.set("ev$pull", ev.pull as u64);
        io.set("ev$remote_ip", ev.meta.remote_ip as u64);
        io.set("ev$remote_port", ev.meta.remote_port as u64);
        io.set("ev$local_port", ev.meta.local_port as u64);
        io.set("ev$msg_len", ev.meta.msg_len as u64);
        io.set("ev$pkt_offset", ev.meta.pkt_offset as u64);
        io.set("ev$tx_msg_id", ev.meta.tx_msg_id as u64);
        io.set("ev$rank", ev.meta.rank as u64);
        io.set("ev$credit", ev.meta.credit as u64);
        let ready = rng.gen_bool(env.ready);
        io.set("m_axis$tready", ready as u64);
        io.eval();
        if io.get("m_axis$tvalid") == 1 && shown_since.is_none() {
            shown_since = Some(cycle);
        }
        if io.get("m_axis$tvalid") == 1 && ready {
            assert_eq!((io.get("m_axis$tkeep"), io.get("m_axis$tlast"), io.get("m_axis$tdata")), (1, 1, 0), "one dummy byte");
            run.out.push(Out {
                cycle,
                shown: shown_since.take().unwrap(),
                flags: io.get("m_axis$flags") as u8,
                meta: Meta {
                    remote_ip: io.get("m_axis$remote_ip") as u32,
                    remote_port: io.get("m_axis$remote_port") as u16,
                    local_port: io.get("m_axis$local_port") as u16,
                    msg_len: io.get("m_axis$msg_len") as u16,
                    pkt_offset: io.get("m_axis$pkt_offset") as u8,
                    tx_msg_id: io.get("m_axis$tx_msg_id") as u16,
                    rank: io.get("m_axis$rank") as u8,
                    credit: io.get("m_axis$credit") as u16,
                },
            });
        }
        io.tick();
    }
    io.eval();
    for c in COUNTERS {
        run.counters.insert(c, io.get(c));
    }
    run.cycles = total;
    run
}

/// The test's name of message (slot, generation), carried in `tx_msg_id`.
fn msg_name(msg: usize, gen: u8) -> u16 {
    ((gen as u16) << 8) | msg as u16
}

fn random_meta(rng: &mut ChaCha8Rng, msg: usize, gen: u8) -> Meta {
    Meta {
        remote_ip: rng.gen(),
        remote_port: rng.gen(),
        local_port: rng.gen(),
        msg_len: rng.gen(),
        pkt_offset: rng.gen(),
        tx_msg_id: msg_name(msg, gen),
        rank: rng.gen(),
        credit: rng.gen_range(0..64),
    }
}

/// Random NDP-like events: ACK+PULL, NACK+PULL, ACK alone, PULL alone; few slots, each
/// reused now and then by a new message (its generation + 1), as the receive side does.
fn random_events(rng: &mut ChaCha8Rng, cycles: usize, rate: f64, messages: usize) -> Vec<Option<Event>> {
    let mut gens = vec![0u8; messages];
    (0..cycles)
        .map(|_| {
            rng.gen_bool(rate).then(|| {
                let msg = rng.gen_range(0..messages);
                if rng.gen_bool(0.02) {
                    gens[msg] = gens[msg].checked_add(1).expect("fewer than 256 generations per slot: message names stay unique");
                }
                let gen = gens[msg];
                let (ctrl_flags, pull) = match rng.gen_range(0..6) {
                    0 | 1 => (FLAG_ACK, true),
                    2 => (FLAG_NACK, true),
                    3 => (FLAG_ACK, false),
                    _ => (0, true),
                };
                Event { msg, gen, ctrl_flags, pull, meta: random_meta(rng, msg, gen) }
            })
        })
        .collect()
}

/// Transactional checks; returns (paced PULLs, merged).
fn check(events: &[Option<Event>], run: &Run, env: &Env) -> (u64, u64) {
    let c = |n| run.counters[n];
    assert_eq!(c("ctrl_sent_count"), run.out.len() as u64);
    // Immediate packets: in event order, each once, with its metadata; the missing ones dropped.
    let immediate: Vec<&Event> = events.iter().flatten().filter(|e| e.ctrl_flags != 0).collect();
    let out_immediate: Vec<&Out> = run.out.iter().filter(|o| o.flags & !FLAG_PULL != 0).collect();
    let mut i = 0;
    let mut merged_out = 0;
    for o in &out_immediate {
        while i < immediate.len() && !(immediate[i].meta == o.meta && o.flags & !FLAG_PULL == immediate[i].ctrl_flags) {
            i += 1;
        }
        assert!(i < immediate.len(), "immediate packet {o:?} matches no event in order");
        if o.flags & FLAG_PULL != 0 {
            assert!(immediate[i].pull, "PULL merged into an event that asked for none");
            merged_out += 1;
        }
        i += 1;
    }
    assert_eq!(immediate.len() as u64 - out_immediate.len() as u64, c("dropped_count"), "dropped = immediate events without a packet");
    // Immediate packets go before paced PULLs: no paced PULL leaves while an immediate packet
    // accepted in an earlier cycle is still waiting.
    let immediate_cycles: Vec<(u64, &Event)> =
        events.iter().enumerate().filter_map(|(c, e)| e.as_ref().filter(|e| e.ctrl_flags != 0).map(|e| (c as u64, e))).collect();
    let mut j = 0;
    for o in &out_immediate {
        while !(immediate_cycles[j].1.meta == o.meta && o.flags & !FLAG_PULL == immediate_cycles[j].1.ctrl_flags) {
            j += 1;
        }
        let accepted = immediate_cycles[j].0;
        if let Some(p) = run.out.iter().find(|p| p.flags == FLAG_PULL && p.shown > accepted + 1 && p.cycle < o.cycle) {
            panic!(
                "paced PULL chosen at cycle {} overtook the immediate packet accepted at cycle {accepted} (sent at {})",
                p.shown - 1,
                o.cycle
            );
        }
        j += 1;
    }
    assert_eq!(merged_out, c("merged_count"));
    // Paced PULLs.
    let paced: Vec<&Out> = run.out.iter().filter(|o| o.flags == FLAG_PULL).collect();
    assert_eq!(paced.len() as u64, c("pull_sent_count"));
    let pull_events = events.iter().flatten().filter(|e| e.pull).count() as u64;
    assert_eq!(
        pull_events,
        c("merged_count") + c("pull_coalesced_count") + c("pull_replaced_count") + c("pull_sent_count"),
        "every PULL event is merged, coalesced, replaced or sent"
    );
    // Per message: the highest credit sent is the highest asked for; a message whose slot was
    // reused later may have lost its pending PULL to the next message (replaced), never more.
    let mut asked: HashMap<u16, u16> = HashMap::new();
    for e in events.iter().flatten().filter(|e| e.pull) {
        let a = asked.entry(e.meta.tx_msg_id).or_default();
        *a = (*a).max(e.meta.credit);
    }
    let mut last_gen: HashMap<usize, u8> = HashMap::new();
    for e in events.iter().flatten() {
        last_gen.insert(e.msg, e.gen);
    }
    let asked_credits: HashSet<(u16, u16)> =
        events.iter().flatten().filter(|e| e.pull).map(|e| (e.meta.tx_msg_id, e.meta.credit)).collect();
    let mut sent: HashMap<u16, u16> = HashMap::new();
    for o in run.out.iter().filter(|o| o.flags & FLAG_PULL != 0) {
        // A PULL carries a credit its own message asked for (not a previous message's).
        assert!(asked_credits.contains(&(o.meta.tx_msg_id, o.meta.credit)), "PULL {o:?} carries a credit its message never asked for");
        let s = sent.entry(o.meta.tx_msg_id).or_default();
        *s = (*s).max(o.meta.credit);
    }
    for (&id, &a) in &asked {
        let superseded = last_gen[&((id & 0xff) as usize)] != (id >> 8) as u8;
        match sent.get(&id) {
            Some(&s) if superseded => assert!(s <= a, "message {id:#06x}: sent credit {s} above the {a} asked for"),
            s => assert!(superseded || s == Some(&a), "message {id:#06x}: highest credit sent {s:?}, asked {a}"),
        }
    }
    assert!(sent.keys().all(|id| asked.contains_key(id)), "a PULL for a message that asked for none");
    // Each paced PULL carries the metadata of a PULL event of its message.
    for o in &paced {
        assert!(
            events
                .iter()
                .flatten()
                .any(|e| e.pull && e.meta.tx_msg_id == o.meta.tx_msg_id && Meta { credit: o.meta.credit, ..e.meta } == o.meta),
            "paced PULL {o:?} has no event's metadata"
        );
    }
    // Token bucket: PULLs (paced or merged) by cycle t ≤ bucket + refills by t.
    if env.pace > 0 {
        let mut n = 0u64;
        for o in run.out.iter().filter(|o| o.flags & FLAG_PULL != 0) {
            n += 1;
            assert!(n <= env.bucket + o.cycle / env.pace + 1, "PULL {n} at cycle {} beats the pacer", o.cycle);
        }
    }
    (paced.len() as u64, merged_out)
}

#[test]
fn unit_ack_merges_pull_then_pull_is_paced() {
    let mut rng = ChaCha8Rng::seed_from_u64(seed("packet_generator_unit_merge", 1));
    let mut events = vec![None; 400];
    let m1 = random_meta(&mut rng, 3, 0);
    let m2 = Meta { credit: m1.credit + 1, ..m1 };
    let m3 = Meta { credit: m1.credit + 5, ..m1 };
    let m4 = Meta { credit: m1.credit + 2, ..m1 };
    events[0] = Some(Event { msg: 3, gen: 0, ctrl_flags: FLAG_ACK, pull: true, meta: m1 }); // token there: merged
    events[1] = Some(Event { msg: 3, gen: 0, ctrl_flags: FLAG_ACK, pull: true, meta: m2 }); // no token: ACK now, PULL waits
    events[2] = Some(Event { msg: 3, gen: 0, ctrl_flags: 0, pull: true, meta: m3 }); // coalesces: credit +5
    events[3] = Some(Event { msg: 3, gen: 0, ctrl_flags: 0, pull: true, meta: m4 }); // coalesces: lower credit loses
    let env = Env { pace: 100, bucket: 1, ready: 1.0, drain: 0 };
    let mut native = NativeStepper::<PacketGenerator<16, 4, 3>>::default();
    let run = drive(&mut native, &events, &env, &mut rng);
    check(&events, &run, &env);
    let got: Vec<(u64, u8, u16)> = run.out.iter().map(|o| (o.cycle, o.flags, o.meta.credit)).collect();
    assert_eq!(got[0], (1, FLAG_ACK | FLAG_PULL, m1.credit), "ACK+PULL 1 cycle after its event");
    assert_eq!(got[1], (2, FLAG_ACK, m2.credit));
    assert_eq!(got.len(), 3);
    assert_eq!((got[2].1, got[2].2), (FLAG_PULL, m3.credit), "one paced PULL with the highest credit");
    assert!(got[2].0 >= 100 && got[2].0 <= 100 + 16 + 3, "paced PULL at cycle {} (next token at 100)", got[2].0);
    assert_eq!(run.counters["pull_coalesced_count"], 2);
    println!("packet generator: immediate latency 1 cycle; paced PULL at cycle {} (token at 100)", got[2].0);
}

/// A pending PULL of message (slot 3, generation 5) with a high credit; the slot is released and
/// reused by (3, 6), whose first PULL asks for less: the PULL sent carries the new message's
/// credit and metadata, the stale one is replaced (counted), not sent. The same with the two
/// events back to back (slot 9: the table write of the first is forwarded to the second), and
/// a message that keeps its slot still coalesces (slot 7). Native and Verilator.
#[test]
fn unit_pull_of_reused_slot_replaces_stale_pull() {
    let mut rng = ChaCha8Rng::seed_from_u64(seed("packet_generator_unit_reused_slot", 2));
    let mut events = vec![None; 500];
    let mut ev = |c: usize, msg: usize, gen: u8, ctrl_flags: u8, credit: u16, rng: &mut ChaCha8Rng| {
        let meta = Meta { credit, ..random_meta(rng, msg, gen) };
        events[c] = Some(Event { msg, gen, ctrl_flags, pull: true, meta });
        meta
    };
    let a = ev(0, 3, 5, FLAG_ACK, 10, &mut rng); // token there: merged into the ACK
    ev(1, 3, 5, 0, 30, &mut rng); // no token: pending, credit 30
    ev(2, 7, 2, 0, 20, &mut rng); // pending (7, 2), credit 20
    let c = ev(4, 7, 2, 0, 8, &mut rng); // same message: coalesces, 20 stays, metadata the latest
    let b = ev(5, 3, 6, FLAG_ACK, 4, &mut rng); // slot 3 reused: ACK now, its PULL replaces the stale one
    ev(10, 9, 1, 0, 50, &mut rng); // pending (9, 1), credit 50 ...
    let d = ev(11, 9, 2, 0, 3, &mut rng); // ... replaced in the very next cycle
    let env = Env { pace: 100, bucket: 1, ready: 1.0, drain: 0 };
    for target in ["native", "nt_blocks_16_packet_generator"] {
        let run = if target == "native" {
            drive(&mut NativeStepper::<PacketGenerator<16, 4, 3>>::default(), &events, &env, &mut rng)
        } else {
            drive(&mut VerilatedModel::new(target).unwrap(), &events, &env, &mut rng)
        };
        check(&events, &run, &env);
        let got: Vec<(u64, u8, Meta)> = run.out.iter().map(|o| (o.cycle, o.flags, o.meta)).collect();
        assert_eq!(got[0], (1, FLAG_ACK | FLAG_PULL, a), "{target}: ACK+PULL 1 cycle after its event");
        assert_eq!(got[1], (6, FLAG_ACK, b), "{target}: the new message's ACK at once, its PULL not merged");
        assert!(got[2..].iter().all(|o| o.1 == FLAG_PULL && o.0 >= 100), "{target}: paced PULLs, one per token: {got:?}");
        let mut paced: Vec<Meta> = got[2..].iter().map(|o| o.2).collect();
        paced.sort_by_key(|m| m.tx_msg_id);
        assert_eq!(
            paced,
            vec![Meta { credit: 20, ..c }, Meta { credit: 3, ..d }, Meta { credit: 4, ..b }],
            "{target}: one PULL per live message, with its own credit and latest metadata"
        );
        let counters: Vec<u64> = COUNTERS.iter().map(|k| run.counters[k]).collect();
        // ctrl_sent: every packet out; pull_sent: the PULLs sent alone (a merged one is counted
        // as merged); coalesced: (7, 2)'s second event; replaced: (3, 5) by (3, 6) and (9, 1) by
        // (9, 2); dropped: none (the queue never fills).
        let alone = got.iter().filter(|o| o.1 == FLAG_PULL).count() as u64;
        let merged = got.iter().filter(|o| o.1 == FLAG_ACK | FLAG_PULL).count() as u64;
        assert_eq!(counters, vec![got.len() as u64, alone, merged, 1, 2, 0], "{target}: counters");
        assert_eq!((got.len(), alone, merged), (5, 3, 1), "{target}: a's ACK+PULL, b's ACK, three paced PULLs");
        println!(
            "{target}: stale PULL of a reused slot replaced: PULLs sent {:?}",
            paced.iter().map(|m| (m.tx_msg_id, m.credit)).collect::<Vec<_>>()
        );
    }
}

#[test]
fn model_random_events_on_verilator() {
    let s = seed("packet_generator_model", 541);
    let mut rng = ChaCha8Rng::seed_from_u64(s);
    for (model, n) in [("nt_blocks_16_packet_generator", 16), ("nt_blocks_128_packet_generator", 128)] {
        for (pace, bucket, ready, rate) in [(20, 1, 0.9, 0.3), (0, 1, 0.5, 0.6), (7, 3, 0.2, 0.5), (50, 2, 1.0, 0.05)] {
            let events = random_events(&mut rng, 100_000, rate, n.min(40));
            let env = Env { pace, bucket, ready, drain: (n as u64 + 4) * (pace + 4) * 2 + 200 };
            let mut v = VerilatedModel::new(model).unwrap();
            let run = drive(&mut v, &events, &env, &mut rng);
            let (paced, merged) = check(&events, &run, &env);
            let c = |k| run.counters[k];
            println!("{model} pace {pace} bucket {bucket} ready {ready} rate {rate}: {} events, {} packets, paced {paced}, merged {merged}, coalesced {}, replaced {}, dropped {}",
                events.iter().flatten().count(), run.out.len(), c("pull_coalesced_count"), c("pull_replaced_count"), c("dropped_count"));
        }
    }
}

/// Saturated PULL demand: the measured PULL rate is one per `cfg_pace_cycles`.
#[test]
fn pacer_rate_measured() {
    let mut rng = ChaCha8Rng::seed_from_u64(seed("packet_generator_pacer", 542));
    for pace in [DEFAULT_PACE_CYCLES, 9, 1000] {
        // A PULL event every 3 cycles, round the 16 messages: always more demand than tokens.
        let cycles = (pace * 200) as usize;
        let events: Vec<Option<Event>> = (0..cycles)
            .map(|c| {
                (c % 3 == 0).then(|| {
                    let msg = (c / 3) % 16;
                    Event {
                        msg,
                        gen: 0,
                        ctrl_flags: 0,
                        pull: true,
                        meta: Meta { credit: (c / 1000) as u16, ..random_meta(&mut rng, msg, 0) },
                    }
                })
            })
            .collect();
        let env = Env { pace, bucket: 1, ready: 1.0, drain: 0 };
        let mut v = VerilatedModel::new("nt_blocks_16_packet_generator").unwrap();
        let run = drive(&mut v, &events, &env, &mut rng);
        let pulls: Vec<u64> = run.out.iter().filter(|o| o.flags == FLAG_PULL).map(|o| o.cycle).collect();
        let gaps: Vec<u64> = pulls.windows(2).map(|w| w[1] - w[0]).collect();
        let mean = (pulls.last().unwrap() - pulls[0]) as f64 / (pulls.len() - 1) as f64;
        println!(
            "pacer {pace} cycles: {} PULLs in {} cycles, mean interval {mean:.2} cycles (min {}, max {})",
            pulls.len(),
            run.cycles,
            gaps.iter().min().unwrap(),
            gaps.iter().max().unwrap()
        );
        assert!((mean - pace as f64).abs() < 0.05 * pace as f64 + 0.5, "mean interval {mean} vs {pace}");
        assert!(pulls.len() as u64 <= run.cycles / pace + 2);
    }
}

/// A stalled output: the immediate queue fills, further events are dropped and counted, the
/// PULLs are still kept (coalesced), and everything queued comes out once the output drains.
#[test]
fn full_queue_drops_and_counts() {
    let mut rng = ChaCha8Rng::seed_from_u64(seed("packet_generator_full", 543));
    let mut events: Vec<Option<Event>> = (0..40)
        .map(|i| {
            let msg = i % 4;
            Some(Event { msg, gen: 0, ctrl_flags: FLAG_ACK, pull: true, meta: random_meta(&mut rng, msg, 0) })
        })
        .collect();
    events.extend(vec![None; 2000]);
    // Output ready 0 for the first 100 cycles.
    let env = Env { pace: 50, bucket: 1, ready: 1.0, drain: 0 };
    let mut v = VerilatedModel::new("nt_blocks_16_packet_generator").unwrap();
    v.set_words(v.port_or_panic("m_axis$tready"), &[0]);
    // Drive by hand: stall, then release.
    let run = {
        struct Stalled<'a> {
            v: &'a mut VerilatedModel,
            cycle: u64,
        }
        impl Ports for Stalled<'_> {
            fn port(&self, name: &str) -> Option<PortId> {
                Ports::port(self.v, name)
            }
            fn set_port(&mut self, port: PortId, value: u64) {
                let stalled = self.cycle < 100 && Some(port) == Ports::port(self.v, "m_axis$tready");
                self.v.set_port(port, if stalled { 0 } else { value })
            }
            fn get_port(&mut self, port: PortId) -> u64 {
                if self.cycle < 100 && Some(port) == Ports::port(self.v, "m_axis$tvalid") {
                    return 0; // not taken while stalled
                }
                self.v.get_port(port)
            }
            fn eval(&mut self) {
                Ports::eval(self.v)
            }
            fn tick(&mut self) {
                Ports::tick(self.v);
                self.cycle += 1;
            }
        }
        let mut s = Stalled { v: &mut v, cycle: 0 };
        drive(&mut s, &events, &env, &mut rng)
    };
    check(&events, &run, &env);
    let dropped = run.counters["dropped_count"];
    // Queue of 8 + the output register hold 9 packets (the first one merged its PULL).
    assert_eq!(dropped, 40 - 9, "dropped_count");
    println!(
        "full queue: 40 ACK+PULL events while the output is stalled: {} sent, {} dropped, {} PULLs coalesced, {} paced",
        run.out.len(),
        dropped,
        run.counters["pull_coalesced_count"],
        run.counters["pull_sent_count"]
    );
}

#[test]
fn lockstep_random_events() {
    let s = seed("packet_generator_lockstep", 544);
    let mut rng = ChaCha8Rng::seed_from_u64(s);
    let events = random_events(&mut rng, 12_000, 0.4, 16);
    let env = Env { pace: 11, bucket: 2, ready: 0.6, drain: 600 };
    let mut io = Lockstep::<PacketGenerator<16, 4, 3>>::new("nt_blocks_16_packet_generator").unwrap();
    let run = drive(&mut io, &events, &env, &mut rng);
    check(&events, &run, &env);
    println!(
        "packet generator lockstep: {} cycles, {} comparisons, {} packets, {} PULLs coalesced, {} replaced",
        io.cycle,
        io.comparisons,
        run.out.len(),
        run.counters["pull_coalesced_count"],
        run.counters["pull_replaced_count"]
    );
}

/// Lockstep on raw random events with random resets and a changing pacer configuration.
#[test]
fn lockstep_random_stimulus_with_resets() {
    use nanotransport_sim::cosim::lockstep::{expect_agreement, run_lockstep};
    use nanotransport_sim::cosim::stimulus::{Drive, Stimulus};
    let stim = Stimulus::new()
        .drive("reset", Drive::Bernoulli(0.002))
        .drive("cfg_pace_cycles", Drive::Range(0, 12))
        .drive("cfg_bucket_max", Drive::Range(0, 3))
        .drive("ev$valid", Drive::Bernoulli(0.5))
        .drive("ev$ctrl_flags", Drive::Sparse(2))
        .drive("ev$msg_id", Drive::Range(0, 5))
        .drive("ev$msg_gen", Drive::Range(0, 2))
        .drive("m_axis$tready", Drive::Bernoulli(0.6));
    for (model, s) in [("nt_blocks_16_packet_generator", 545), ("nt_blocks_128_packet_generator", 546)] {
        let s = seed(model, s);
        let r = if model.contains("128") {
            run_lockstep::<PacketGenerator<128, 7, 3>>(model, &stim, 10_000, s)
        } else {
            run_lockstep::<PacketGenerator<16, 4, 3>>(model, &stim, 10_000, s)
        };
        expect_agreement(r);
    }
}
