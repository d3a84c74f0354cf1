//! Stateful register extern (RW / RAW / PRAW / ifElseRAW): back-to-back requests to the same
//! entry against the reference model, on the natively stepped block and on Verilator; lockstep.

use nanotransport_hdl::pisa::register_extern::*;
use nanotransport_reference::pisa::{RegisterArray, RegisterRequest};
use nanotransport_sim::cosim::lockstep::{expect_agreement, run_lockstep};
use nanotransport_sim::cosim::native::NativeStepper;
use nanotransport_sim::cosim::ports::Ports;
use nanotransport_sim::cosim::stimulus::{Drive, Stimulus};
use nanotransport_sim::cosim::verilated::VerilatedModel;
use nanotransport_testbenches::seed;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn request(io: &mut dyn Ports, r: Option<&RegisterRequest>) {
    let r = r.copied();
    io.set("req_valid", r.is_some() as u64);
    let r = r.unwrap_or_default();
    io.set("req_index", r.index as u64);
    io.set("req_pred", r.pred as u64);
    io.set("req_op_true", r.op_true);
    io.set("req_value_true", r.value_true);
    io.set("req_op_false", r.op_false);
    io.set("req_value_false", r.value_false);
}

/// Drives `requests` (None = idle cycle) and checks every response against the model, one cycle
/// after its request. Returns the number of responses checked.
fn run(io: &mut dyn Ports, entries: usize, requests: &[Option<RegisterRequest>]) -> u64 {
    let mut model = RegisterArray::new(entries, 16);
    io.set("reset", 1);
    request(io, None);
    io.eval();
    io.tick();
    io.set("reset", 0);
    let mut pending: Option<(usize, u64, u64)> = None;
    let mut checked = 0;
    for (cycle, r) in requests.iter().chain([None].iter()).enumerate() {
        request(io, r.as_ref());
        io.eval();
        match pending {
            Some((index, old, new)) => {
                assert_eq!(io.get("resp_valid"), 1, "cycle {cycle}");
                assert_eq!(io.get("resp_index"), index as u64, "cycle {cycle}");
                assert_eq!((io.get("resp_old"), io.get("resp_new")), (old, new), "cycle {cycle}: entry {index}");
                checked += 1;
            }
            None => assert_eq!(io.get("resp_valid"), 0, "cycle {cycle}"),
        }
        pending = r.as_ref().map(|r| {
            let (o, n) = model.apply(r);
            (r.index, o, n)
        });
        io.tick();
    }
    checked
}

fn write(index: usize, v: u64) -> RegisterRequest {
    RegisterRequest { index, pred: true, op_true: OP_WRITE, value_true: v, ..Default::default() }
}

/// Random requests: every entry written first, then mostly the same two or three entries.
fn random_requests(rng: &mut ChaCha8Rng, entries: usize, n: usize) -> Vec<Option<RegisterRequest>> {
    let mut v: Vec<_> = (0..entries).map(|i| Some(write(i, rng.gen::<u16>() as u64))).collect();
    for _ in 0..n {
        if rng.gen_bool(0.1) {
            v.push(None);
            continue;
        }
        let index = if rng.gen_bool(0.8) { rng.gen_range(0..3) } else { rng.gen_range(0..entries) };
        let value = |rng: &mut ChaCha8Rng| if rng.gen_bool(0.5) { rng.gen_range(0..4) } else { rng.gen::<u16>() as u64 };
        v.push(Some(RegisterRequest {
            index,
            pred: rng.gen(),
            op_true: rng.gen_range(0..4),
            value_true: value(rng),
            op_false: rng.gen_range(0..4),
            value_false: value(rng),
        }));
    }
    v
}

/// NDP's credit: ifElseRAW(new message, WRITE BDP+1, ADD 1), three packets of one message back
/// to back, then a PRAW whose predicate is false, then RW reads. Responses 1 cycle after each
/// request, forwarded values correct.
#[test]
fn unit_back_to_back_same_entry() {
    let credit =
        |new_msg: bool| RegisterRequest { index: 5, pred: new_msg, op_true: OP_WRITE, value_true: 9, op_false: OP_ADD, value_false: 1 };
    let reqs = vec![
        Some(credit(true)),
        Some(credit(false)),
        Some(credit(false)),
        Some(RegisterRequest { index: 5, pred: false, op_true: OP_ADD, value_true: 100, op_false: OP_KEEP, value_false: 0 }),
        Some(RegisterRequest { index: 5, pred: true, op_true: OP_MAX, value_true: 10, ..Default::default() }),
        Some(RegisterRequest { index: 5, pred: true, op_true: OP_MAX, value_true: 20, ..Default::default() }),
        None,
        Some(RegisterRequest { index: 5, pred: true, op_true: OP_KEEP, ..Default::default() }),
    ];
    let mut native = NativeStepper::<RegisterExtern<16, 4>>::default();
    assert_eq!(run(&mut native, 16, &reqs), 7);
    // The last read sees 20 (9, 10, 11, 11, 11, 20).
    let mut model = RegisterArray::new(16, 16);
    let values: Vec<u64> = reqs.iter().flatten().map(|r| model.apply(r).1).collect();
    assert_eq!(values, vec![9, 10, 11, 11, 11, 20, 20]);
}

#[test]
fn model_random_same_index_on_verilator() {
    let s = seed("pisa_register_extern_model", 521);
    let mut rng = ChaCha8Rng::seed_from_u64(s);
    for (model, entries) in [("nt_blocks_16_register_extern", 16), ("nt_blocks_128_register_extern", 128)] {
        let reqs = random_requests(&mut rng, entries, 200_000);
        let mut v = VerilatedModel::new(model).unwrap();
        let checked = run(&mut v, entries, &reqs);
        println!("{model}: {checked} responses checked against the model");
        assert_eq!(checked, reqs.iter().flatten().count() as u64, "{model}: every request's response checked");
    }
}

#[test]
fn lockstep_model_requests() {
    let s = seed("pisa_register_extern_lockstep", 522);
    let mut rng = ChaCha8Rng::seed_from_u64(s);
    let reqs = random_requests(&mut rng, 16, 12_000);
    let mut io = nanotransport_sim::cosim::ports::Lockstep::<RegisterExtern<16, 4>>::new("nt_blocks_16_register_extern").unwrap();
    let checked = run(&mut io, 16, &reqs);
    println!("register extern lockstep: {} cycles, {} comparisons, {checked} responses checked", io.cycle, io.comparisons);
    assert_eq!(checked, reqs.iter().flatten().count() as u64, "every request's response checked");
}

#[test]
fn lockstep_random_stimulus() {
    let stim = Stimulus::new()
        .drive("reset", Drive::Bernoulli(0.002))
        .drive("req_valid", Drive::Bernoulli(0.8))
        .drive("req_index", Drive::Range(0, 2));
    for (model, s) in [("nt_blocks_16_register_extern", 523), ("nt_blocks_128_register_extern", 524)] {
        let s = seed(model, s);
        let r = if model.contains("128") {
            run_lockstep::<RegisterExtern<16, 7>>(model, &stim, 10_000, s)
        } else {
            run_lockstep::<RegisterExtern<16, 4>>(model, &stim, 10_000, s)
        };
        expect_agreement(r);
    }
}
