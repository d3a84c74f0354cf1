//! Shared helpers of the integration tests (`tests/suite/`): the repository root, seeds, and the
//! receive path at every size. The harness itself (port access, the lockstep pair, the AXI4-Lite
//! master) is `nanotransport_sim::cosim`, shared with the drivers.

use std::path::PathBuf;

/// The repository root.
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// The seed of a random test: `NANOTRANSPORT_SEED` if set, else `default`. Always printed, so a
/// failure can be replayed with `NANOTRANSPORT_SEED=<seed> cargo test …`.
pub fn seed(test: &str, default: u64) -> u64 {
    let seed = std::env::var("NANOTRANSPORT_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(default);
    println!("{test}: seed {seed}");
    seed
}

/// Back-pressure of the whole-NIC loopbacks and self-loops: MAC TX and the CPU read-out each not
/// ready in one cycle of five ([`nanotransport_sim::nic::Stalls`]).
pub const STALL: f64 = 0.2;

pub mod frames;
pub mod rx;

/// The whole-NIC preset `name` (e.g. `ndp-16`); panics with the list of presets on any other.
pub fn nic_preset(name: &str) -> nanotransport_sim::whole_nic::WholeNic {
    nanotransport_sim::whole_nic::WholeNic::preset(name).unwrap_or_else(|e| panic!("{e}"))
}

use nanotransport_sim::cosim::ports::Ports;
use nanotransport_sim::nic::{NicSim, Stalls, TxMessage};
use nanotransport_sim::scenarios::self_loop_to_completion;
use rand_chacha::ChaCha8Rng;

/// The backlog of a whole-NIC lockstep self-loop: `messages` messages, every third of 1 B to
/// 1 KB (one packet, a partial last beat), the others of 6 000 to 6 500 bytes (6 or 7 packets).
#[derive(Clone, Copy, Debug)]
pub struct Backlog {
    pub messages: u16,
    /// Busy cycles (a beat on MAC RX or TX) the run must have.
    pub min_busy: usize,
    /// Cycles the run lasts at least (idle ones after the last completion included).
    pub min_cycles: u64,
}

/// One preset of each protocol family: 21 messages, 14 of them large, so that MAC TX alone
/// carries at least 14 × 6 000 / 8 = 10 500 payload beats: more than 10 000 busy cycles
/// whatever the seed, and no more traffic than that needs (the native model steps a few
/// hundred cycles per second).
pub const BUSY: Backlog = Backlog { messages: 21, min_busy: 10_000, min_cycles: 0 };
/// The other sizes of a family: a shorter backlog, 10 000 cycles at least (the suite's floor for
/// a lockstep run).
pub const SHORT: Backlog = Backlog { messages: 9, min_busy: 0, min_cycles: 10_000 };

fn backlog_length(k: &mut usize, rng: &mut ChaCha8Rng) -> usize {
    use rand::Rng;
    *k += 1;
    if *k % 3 == 0 {
        rng.gen_range(1..=1024)
    } else {
        rng.gen_range(6_000..=6_500)
    }
}

/// A whole NIC sending `backlog` to itself through `link`, under back-pressure ([`STALL`]),
/// until every message is delivered and completed: checks the bytes and addresses of every
/// delivery, one completion per message (none abandoned), the output streams' rule, and the
/// backlog's busy cycles and length. Returns the messages sent and the frames looped.
pub fn busy_self_loop<B: Ports>(
    nic: &mut NicSim<B>,
    rng: &mut ChaCha8Rng,
    seed: u64,
    backlog: Backlog,
    link: &mut dyn FnMut(&[u8], &mut ChaCha8Rng) -> Vec<Vec<u8>>,
) -> (Vec<TxMessage>, usize) {
    nic.stalls = Some(Stalls { probability: STALL, seed });
    let mut k = 0;
    let (sent, looped) = self_loop_to_completion(nic, rng, backlog.messages, &mut |rng| backlog_length(&mut k, rng), 400_000, 20, link);
    while nic.cycle < backlog.min_cycles {
        nic.step();
    }
    assert_eq!(nic.delivered.len(), sent.len(), "every message delivered once (after {} cycles)", nic.cycle);
    for m in &nic.delivered {
        let k = sent.iter().position(|e| e.payload == m.payload).expect("a delivered message that was not sent");
        assert_eq!((m.remote_port, m.local_port), (sent[k].local_port, sent[k].remote_port), "addresses of message {k}");
    }
    assert_eq!(nic.completions.len(), sent.len(), "one completion per message");
    assert!(nic.completions.iter().all(|c| !c.abandoned), "a message was abandoned");
    assert_eq!(nic.stream_rule_violations, 0, "an output beat changed or was withdrawn before it was taken");
    let busy = nic.busy_cycles();
    println!("{} cycles, {busy} busy, {} output beats held by back-pressure, {looped} frames looped", nic.cycle, nic.stalled_beats);
    assert!(busy >= backlog.min_busy, "only {busy} busy cycles");
    (sent, looped)
}

/// Runs each named test function once per listed case, as the tests `name::case`:
/// `cases!([at_16 => &SIZE_16, at_128 => &SIZE_128]; f, g)` makes the tests `f::at_16`,
/// `f::at_128`, `g::at_16` and `g::at_128`, each calling `f(&SIZE_16)` and so on (a module and a
/// function may share a name). A case's argument is read inside the generated module:
/// `super::SIZE_16` names a constant of the calling module.
#[macro_export]
macro_rules! cases {
    ([$($case:ident => $arg:expr),+ $(,)?]; $name:ident $(, $more:ident)* $(,)?) => {
        mod $name {
            $(
                #[test]
                fn $case() {
                    super::$name($arg)
                }
            )+
        }
        $crate::cases!([$($case => $arg),+]; $($more),*);
    };
    ([$($case:ident => $arg:expr),+ $(,)?]; $(,)?) => {};
}
