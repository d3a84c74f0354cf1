//! Simulation speed (reports, not tests: machines are noisy).
//! - [`bench_timer_128`]: the same stimulus through the natively stepped rust-hdl block and its
//!   Verilator model, measured in one run.
//! - [`bench_nic`]: a whole NIC's Verilator model under random traffic at line rate in both
//!   directions, driven by [`crate::nic::NicSim`] as every test and experiment drives it.

use crate::cosim::native::NativeStepper;
use crate::cosim::verilated::VerilatedModel;
use crate::scenarios::{nic_with_ip, self_loop, NIC_IP};
use nanotransport_hdl::nic::timer::Timer;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::collections::HashMap;
use std::time::Instant;

/// One benchmark result, printed by `nanotransport bench cosim`.
#[derive(Clone, Debug)]
pub struct CosimBench {
    pub block: String,
    pub cycles: u64,
    pub native_cycles_per_s: f64,
    pub verilator_cycles_per_s: f64,
    pub ratio: f64,
    /// Timeouts raised, identical in both runs (a cross-check that both did the same work).
    pub timeouts: u64,
}

/// Inputs of one cycle of the timer benchmark, from a fixed xorshift sequence.
#[derive(Clone, Copy)]
struct TimerInputs {
    now: u64,
    sched: Option<(u64, u64, u64)>,
    cancel: Option<u64>,
}

struct InputSequence {
    state: u64,
    cycle: u64,
    ids: u64,
}

impl InputSequence {
    fn new(ids: u64) -> Self {
        InputSequence { state: 0x2545_f491_4f6c_dd1d, cycle: 0, ids }
    }
    fn next(&mut self) -> TimerInputs {
        let mut r = || {
            self.state ^= self.state << 13;
            self.state ^= self.state >> 7;
            self.state ^= self.state << 17;
            self.state
        };
        let (a, b) = (r(), r());
        let inputs = TimerInputs {
            now: self.cycle,
            sched: (a & 1 == 1).then_some(((a >> 8) % self.ids, (a >> 20) % 400, (a >> 40) & 0xff)),
            cancel: (b & 3 == 0).then_some((b >> 8) % self.ids),
        };
        self.cycle += 1;
        inputs
    }
}

/// The timer with 128 entries (configuration blocks-128), `cycles` cycles in each model.
pub fn bench_timer_128(cycles: u64) -> Result<CosimBench, String> {
    const MODEL: &str = "nt_blocks_128_timer";
    let mut native = NativeStepper::<Timer<128, 7, 8>>::default();
    let mut seq = InputSequence::new(128);
    let mut native_timeouts = 0;
    let start = Instant::now();
    for _ in 0..cycles {
        let i = seq.next();
        let d = &mut native.dut;
        d.now.next = i.now.into();
        d.sched_valid.next = i.sched.is_some();
        let (sid, delay, meta) = i.sched.unwrap_or((0, 0, 0));
        d.sched_id.next = sid.into();
        d.sched_delay.next = delay.into();
        d.sched_meta.next = meta.into();
        d.cancel_valid.next = i.cancel.is_some();
        d.cancel_id.next = i.cancel.unwrap_or(0).into();
        d.timeout_ready.next = true;
        native.settle();
        native_timeouts += native.dut.timeout_valid.val() as u64;
        native.tick();
    }
    let native_s = start.elapsed().as_secs_f64();

    let mut v = VerilatedModel::new(MODEL)?;
    let [now, sv, sid, sd, sm, cv, cid, ready, tv] =
        ["now", "sched_valid", "sched_id", "sched_delay", "sched_meta", "cancel_valid", "cancel_id", "timeout_ready", "timeout_valid"]
            .map(|p| v.port_or_panic(p));
    let mut seq = InputSequence::new(128);
    let mut verilator_timeouts = 0;
    let start = Instant::now();
    for _ in 0..cycles {
        let i = seq.next();
        v.set(now, i.now);
        let (s_id, delay, meta) = i.sched.unwrap_or((0, 0, 0));
        v.set(sv, i.sched.is_some() as u64);
        v.set(sid, s_id);
        v.set(sd, delay);
        v.set(sm, meta);
        v.set(cv, i.cancel.is_some() as u64);
        v.set(cid, i.cancel.unwrap_or(0));
        v.set(ready, 1);
        v.eval();
        verilator_timeouts += v.get(tv);
        v.tick();
    }
    let verilator_s = start.elapsed().as_secs_f64();
    if native_timeouts != verilator_timeouts {
        return Err(format!("{MODEL}: the two runs disagree ({native_timeouts} vs {verilator_timeouts} timeouts)"));
    }
    let native_rate = cycles as f64 / native_s;
    let verilator_rate = cycles as f64 / verilator_s;
    Ok(CosimBench {
        block: MODEL.into(),
        cycles,
        native_cycles_per_s: native_rate,
        verilator_cycles_per_s: verilator_rate,
        ratio: verilator_rate / native_rate,
        timeouts: native_timeouts,
    })
}

/// One result of `nanotransport bench nic`.
#[derive(Clone, Debug)]
pub struct NicBench {
    pub config: String,
    pub seed: u64,
    /// Cycles measured (after reset and address set-up).
    pub cycles: u64,
    pub wall_s: f64,
    pub verilator_cycles_per_s: f64,
    /// CPU time of the run (user and system, this thread): on a shared machine the wall clock
    /// also counts the time other processes held the cores.
    pub cpu_s: f64,
    /// Beats per cycle on MAC TX and MAC RX (1.0 is line rate).
    pub mac_tx_load: f64,
    pub mac_rx_load: f64,
    /// Messages the CPU queued, those delivered back to it, and those delivered byte-identical to
    /// one queued.
    pub messages_queued: usize,
    pub messages_delivered: usize,
    pub messages_intact: usize,
}

/// Largest message of the speed run: fits a receive size class of every configuration, so no
/// message is refused for want of a buffer.
pub const NIC_BENCH_MAX_MESSAGE: usize = 4096;
/// Cycles between a frame leaving MAC TX and its arrival at MAC RX.
pub const NIC_BENCH_LINK_DELAY: u64 = 64;
/// At most this many cycles (the run queues all its messages up front).
pub const NIC_BENCH_MAX_CYCLES: u64 = 10_000_000;

/// Runs the whole-NIC model of `whole` for `cycles` cycles with its MAC looped back: the CPU
/// keeps a backlog of random messages (1 … 4096 bytes) to the NIC's own address, so the transmit
/// path, MAC TX, MAC RX, the receive path and the CPU receive stream all run at once, DATA and
/// ACK/PULL frames sharing the link (the loop of the whole-NIC lockstep tests, see
/// [`crate::scenarios::self_loop`]).
pub fn bench_nic(whole: &crate::whole_nic::WholeNic, cycles: u64, seed: u64) -> Result<NicBench, String> {
    if cycles == 0 || cycles > NIC_BENCH_MAX_CYCLES {
        return Err(format!("--cycles {cycles}: must be 1 ..= {NIC_BENCH_MAX_CYCLES}"));
    }
    let mut nic = nic_with_ip(whole, NIC_IP)?;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    // A message averages ~2 KB, ~300 beats on MAC TX with its packets' headers and ACKs; queue
    // twice what the run can send so the backlog never runs dry.
    let messages = (cycles / 150 + 32).min(u16::MAX as u64) as u16;
    let (start, tx_beats, rx_beats) = (nic.cycle, nic.tx_beat_cycles.len(), nic.rx_beat_cycles.len());
    let (clock, cpu) = (Instant::now(), thread_cpu_seconds());
    let (sent, _) =
        self_loop(&mut nic, &mut rng, messages, NIC_BENCH_MAX_MESSAGE, start + cycles, NIC_BENCH_LINK_DELAY, &mut |f, _| vec![f.to_vec()]);
    let (wall_s, cpu_s) = (clock.elapsed().as_secs_f64(), thread_cpu_seconds() - cpu);
    let mut unmatched: HashMap<&[u8], usize> = HashMap::new();
    for m in &sent {
        *unmatched.entry(&m.payload).or_default() += 1;
    }
    let messages_intact = nic
        .delivered
        .iter()
        .filter(|m| {
            unmatched.get_mut(m.payload.as_slice()).is_some_and(|n| {
                *n > 0 && {
                    *n -= 1;
                    true
                }
            })
        })
        .count();
    Ok(NicBench {
        config: whole.name().to_string(),
        seed,
        cycles,
        wall_s,
        verilator_cycles_per_s: cycles as f64 / wall_s,
        cpu_s,
        mac_tx_load: (nic.tx_beat_cycles.len() - tx_beats) as f64 / cycles as f64,
        mac_rx_load: (nic.rx_beat_cycles.len() - rx_beats) as f64 / cycles as f64,
        messages_queued: sent.len(),
        messages_delivered: nic.delivered.len(),
        messages_intact,
    })
}

/// CPU time this thread has used so far, in seconds.
fn thread_cpu_seconds() -> f64 {
    // SAFETY: getrusage only writes the struct it is given.
    let usage = unsafe {
        let mut u: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_THREAD, &mut u);
        u
    };
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    seconds(usage.ru_utime) + seconds(usage.ru_stime)
}
