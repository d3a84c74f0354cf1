//! Bolt switch ingress (thesis Algorithms 7 and 9) on the Verilator models of its generated
//! Verilog: lockstep against rust-hdl, a differential test against the reference model on random
//! traces, and scenario tests that read like the thesis.

use nanotransport_hdl::configs::find_switch_config;
use nanotransport_hdl::switch::bolt_header::*;
use nanotransport_hdl::switch::bolt_ingress::{BoltIngress, BoltParams, TOKEN_BIAS};
use nanotransport_sim::cosim::bolt_ingress_dut::{BoltIngressDut, HwDecision, BOLT_INGRESS_LATENCY};
use nanotransport_sim::cosim::lockstep::run_lockstep_with;
use nanotransport_sim::cosim::native::NativeStepper;
use nanotransport_sim::cosim::stimulus::{Drive, Stimulus};
use nanotransport_sim::model::bolt::{BoltCounts, BoltModel, Decision, Descriptor};
use nanotransport_testbenches::seed;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const MUL: &str = "nt_bolt_ingress_64p_bolt_ingress";
const LUT: &str = "nt_bolt_ingress_64p_lut_bolt_ingress";
const MTU: u32 = 1088;

fn params(config: &str) -> BoltParams {
    find_switch_config(config).unwrap().bolt_params()
}

fn data(flags: u8, egress: u8, ingress: u8, queue: u32, now: u32) -> Descriptor {
    Descriptor { bolt: true, flags: FLAG_DATA | flags, pkt_len: MTU as u16, ingress_port: ingress, egress_port: egress, queue_bytes: queue, now }
}

fn token(d: &HwDecision) -> i64 {
    d.supply_token_stored as i64 - TOKEN_BIAS
}

// ---------------------------------------------------------------- lockstep

fn lockstep(config: &str, model: &str, stimulus: Stimulus, cycles: u64, default_seed: u64) {
    let seed = seed(&format!("{model} lockstep"), default_seed);
    let native = NativeStepper::new(BoltIngress::<64, 6>::new(params(config)));
    match run_lockstep_with(native, model, &stimulus, cycles, seed) {
        Ok(r) => println!("{}: {} cycles, {} output comparisons, no divergence", r.model, r.cycles, r.comparisons),
        Err(e) => panic!("{e}"),
    }
}

/// Few ports (many back-to-back packets to the same port), some out of range, a slow clock.
fn stimulus_dense_ports() -> Stimulus {
    Stimulus::new()
        .drive("reset", Drive::Bernoulli(0.0005))
        .drive("now", Drive::Counter { start: 0xffff_f000, step: 37 })
        .drive("in_valid", Drive::Bernoulli(0.9))
        .drive("in_bolt", Drive::Bernoulli(0.95))
        .drive("in_pkt_len", Drive::Range(60, 1100))
        .drive("in_egress_port", Drive::Range(61, 65))
        .drive("in_queue_bytes", Drive::Range(0, 2 * MTU as u64))
}

/// Every input uniform: random times (mostly long gaps), ports, occupancies.
fn stimulus_uniform() -> Stimulus {
    Stimulus::new().drive("reset", Drive::Bernoulli(0.0005)).drive("in_valid", Drive::Bernoulli(0.9))
}

#[test]
fn lockstep_multiplier() {
    lockstep("bolt-ingress-64p", MUL, stimulus_dense_ports(), 10_000, 701);
    lockstep("bolt-ingress-64p", MUL, stimulus_uniform(), 5_000, 702);
}

#[test]
fn lockstep_table() {
    lockstep("bolt-ingress-64p-lut", LUT, stimulus_dense_ports(), 10_000, 703);
    lockstep("bolt-ingress-64p-lut", LUT, stimulus_uniform(), 5_000, 704);
}
