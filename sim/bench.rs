//! Co-simulation speed: the same stimulus through the natively stepped rust-hdl block and its
//! Verilator model, measured in one run (a report, not a test: machines are noisy).

use crate::cosim::native::NativeStepper;
use crate::cosim::verilated::VerilatedModel;
use nanotransport_hdl::nic::timer::Timer;
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

/// The timer with 128 entries (configuration nic-128), `cycles` cycles in each model.
pub fn bench_timer_128(cycles: u64) -> Result<CosimBench, String> {
    const MODEL: &str = "nt_nic_128_timer";
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
    let [now, sv, sid, sd, sm, cv, cid, ready, tv] = [
        "now", "sched_valid", "sched_id", "sched_delay", "sched_meta", "cancel_valid", "cancel_id",
        "timeout_ready", "timeout_valid",
    ]
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
        return Err(format!(
            "{MODEL}: the two runs disagree ({native_timeouts} vs {verilator_timeouts} timeouts)"
        ));
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
