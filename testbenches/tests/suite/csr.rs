//! AXI4-Lite register file (hdl/nic/csr.rs): unit tests on the natively stepped block, lockstep
//! against the Verilator model of its generated Verilog, and a reference-model run on Verilator
//! with random AXI timing, strobes, channel order and status values.

use nanotransport_hdl::configs::CSR_DEFAULTS_BLOCKS_16;
use nanotransport_hdl::nic::csr::AxiLiteCsr;
use nanotransport_reference::csr::{CsrModel, OKAY, SLVERR};
use nanotransport_sim::cosim::axil::{axil_idle, axil_read, axil_write, axil_write_strobed};
use nanotransport_sim::cosim::lockstep::run_lockstep_with;
use nanotransport_sim::cosim::native::{NativeDut, NativeStepper};
use nanotransport_sim::cosim::ports::{Lockstep, Ports};
use nanotransport_sim::cosim::stimulus::{Drive, Stimulus};
use nanotransport_sim::cosim::verilated::{PortId, VerilatedModel};
use nanotransport_testbenches::seed;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const MODEL: &str = "nt_blocks_16_csr";
const DEFAULTS: [u32; 16] = CSR_DEFAULTS_BLOCKS_16;

/// The wide `cfg` port, which [`Ports`] (64-bit values) cannot carry.
trait CfgIo: Ports {
    fn cfg(&mut self) -> [u32; 16];
}

fn unpack_cfg(words: &[u64]) -> [u32; 16] {
    std::array::from_fn(|i| (words[i / 2] >> (32 * (i % 2))) as u32)
}

fn port_index(ports: &[&str], name: &str) -> usize {
    ports.iter().position(|p| *p == name).unwrap()
}

impl CfgIo for NativeStepper<AxiLiteCsr> {
    fn cfg(&mut self) -> [u32; 16] {
        unpack_cfg(&self.dut.get_output(port_index(AxiLiteCsr::OUTPUTS, "cfg")))
    }
}

impl CfgIo for VerilatedModel {
    fn cfg(&mut self) -> [u32; 16] {
        let p = self.port_or_panic("cfg");
        unpack_cfg(&self.get_words(p))
    }
}

impl CfgIo for Lockstep<AxiLiteCsr> {
    fn cfg(&mut self) -> [u32; 16] {
        let (a, b) = (self.native.cfg(), self.verilated.cfg());
        assert_eq!(a, b, "lockstep divergence on cfg at cycle {}", self.cycle);
        a
    }
}

/// The register file with a status bank in front of it, as in the NIC: every evaluation answers
/// `status_index` with that entry of `status` on `status_value`.
struct WithStatus<I: CfgIo> {
    io: I,
    status: [u32; 256],
}

impl<I: CfgIo> WithStatus<I> {
    fn new(io: I) -> Self {
        WithStatus { io, status: [0; 256] }
    }
    fn set_status(&mut self, regs: &[u32; 256]) {
        self.status = *regs;
    }
    fn cfg(&mut self) -> [u32; 16] {
        self.io.cfg()
    }
}

impl<I: CfgIo> Ports for WithStatus<I> {
    fn port(&self, name: &str) -> Option<PortId> {
        self.io.port(name)
    }
    fn set_port(&mut self, port: PortId, value: u64) {
        self.io.set_port(port, value)
    }
    fn get_port(&mut self, port: PortId) -> u64 {
        self.io.get_port(port)
    }
    fn eval(&mut self) {
        self.io.eval();
        let index = self.io.get("status_index") as usize;
        self.io.set("status_value", self.status[index] as u64);
        self.io.eval();
    }
    fn tick(&mut self) {
        self.eval();
        self.io.tick()
    }
}

fn native_block() -> NativeStepper<AxiLiteCsr> {
    NativeStepper::new(AxiLiteCsr::new(DEFAULTS))
}

fn native() -> WithStatus<NativeStepper<AxiLiteCsr>> {
    WithStatus::new(native_block())
}

/// One cycle of `reset` with every master-side valid low.
fn reset(io: &mut dyn Ports) {
    axil_idle(io);
    io.set("reset", 1);
    io.eval();
    io.tick();
    io.set("reset", 0);
    io.eval();
}

// ---------------------------------------------------------------- unit tests (native rust-hdl)

#[test]
fn reset_values_then_write_and_read_back() {
    let mut io = native();
    // Power-up value before any reset is the default too.
    assert_eq!(io.cfg(), DEFAULTS);
    reset(&mut io);
    for i in 0..16u64 {
        assert_eq!(axil_read(&mut io, 4 * i), (DEFAULTS[i as usize] as u64, OKAY), "register {i}");
    }
    let values: [u32; 16] = std::array::from_fn(|i| 0x1000_0001u32.wrapping_mul(i as u32 + 7) ^ 0xA5A5_5A5A);
    for (i, v) in values.iter().enumerate() {
        assert_eq!(axil_write(&mut io, 4 * i as u64, *v), OKAY);
    }
    assert_eq!(io.cfg(), values);
    for (i, v) in values.iter().enumerate() {
        assert_eq!(axil_read(&mut io, 4 * i as u64), (*v as u64, OKAY));
    }
    assert_eq!(io.get("error_count"), 0);
    reset(&mut io);
    assert_eq!(io.cfg(), DEFAULTS);
}

#[test]
fn byte_strobes_write_only_their_lanes() {
    let mut io = native();
    reset(&mut io);
    assert_eq!(axil_write(&mut io, 0x0C, 0x1122_3344), OKAY);
    assert_eq!(axil_write_strobed(&mut io, 0x0C, 0xAABB_CCDD, 0b1010), OKAY);
    assert_eq!(axil_read(&mut io, 0x0C), (0xAA22_CC44, OKAY));
    assert_eq!(axil_write_strobed(&mut io, 0x0C, 0xFFFF_FFFF, 0b0000), OKAY);
    assert_eq!(axil_write_strobed(&mut io, 0x0C, 0x0000_0099, 0b0001), OKAY);
    assert_eq!(axil_read(&mut io, 0x0C), (0xAA22_CC99, OKAY));
    // Neighbours untouched.
    assert_eq!(io.cfg()[2], DEFAULTS[2]);
    assert_eq!(io.cfg()[4], DEFAULTS[4]);
}

#[test]
fn narrow_unaligned_writes_and_reads_are_aligned_down_and_strobed() {
    // What common AXI-Lite masters issue for a one-byte or half-word access.
    let mut io = native();
    reset(&mut io);
    assert_eq!(axil_write(&mut io, 0x18, 0x1122_3344), OKAY);
    assert_eq!(axil_write_strobed(&mut io, 0x19, 0x0000_AB00, 0b0010), OKAY, "byte 1 of register 6");
    assert_eq!(axil_write_strobed(&mut io, 0x1A, 0xCDEF_0000, 0b1100), OKAY, "upper half-word");
    assert_eq!(axil_write_strobed(&mut io, 0x1B, 0x7700_0000, 0b1000), OKAY, "byte 3");
    assert_eq!(axil_read(&mut io, 0x18), (0x77EF_AB44, OKAY));
    for a in 0x19..=0x1B {
        assert_eq!(axil_read(&mut io, a), (0x77EF_AB44, OKAY), "read 0x{a:03x} returns its word");
    }
    let mut status = [0u32; 256];
    status[1] = 0x0102_0304;
    io.set_status(&status);
    assert_eq!(axil_read(&mut io, 0x407), (0x0102_0304, OKAY));
    assert_eq!(io.get("error_count"), 0);
    // Neighbours untouched.
    assert_eq!(io.cfg()[5], DEFAULTS[5]);
    assert_eq!(io.cfg()[7], DEFAULTS[7]);
}

#[test]
fn rejected_accesses_answer_slverr_change_nothing_and_count() {
    let mut io = native();
    reset(&mut io);
    let mut status = [0u32; 256];
    status[0] = 0x5151_0000;
    status[255] = 0xDEAD_BEEF;
    io.set_status(&status);
    let before = io.cfg();
    // Status space (also unaligned), reserved configuration, gaps, beyond the status space.
    let bad_writes = [0x400, 0x7FC, 0x040, 0x0FC, 0x100, 0x800, 0xFFC, 0x041, 0x0FE, 0x402];
    for a in bad_writes {
        assert_eq!(axil_write(&mut io, a, 0xFFFF_FFFF), SLVERR, "write 0x{a:03x}");
    }
    assert_eq!(io.cfg(), before);
    let bad_reads = [0x100, 0x3FC, 0x800, 0xFFC, 0x103, 0x3FD];
    for a in bad_reads {
        assert_eq!(axil_read(&mut io, a), (0, SLVERR), "read 0x{a:03x}");
    }
    // Reserved configuration registers read 0 without an error.
    for a in [0x040, 0x0FC, 0x043] {
        assert_eq!(axil_read(&mut io, a), (0, OKAY), "read 0x{a:03x}");
    }
    assert_eq!(axil_read(&mut io, 0x400), (0x5151_0000, OKAY));
    assert_eq!(axil_read(&mut io, 0x7FC), (0xDEAD_BEEF, OKAY));
    let expected = (bad_writes.len() + bad_reads.len()) as u64;
    assert_eq!(io.get("error_count"), expected);

    // A rejected write and a rejected read performed in the same cycle count two.
    io.set("axil$awaddr", 0x300);
    io.set("axil$awvalid", 1);
    io.set("axil$wdata", 1);
    io.set("axil$wstrb", 0xF);
    io.set("axil$wvalid", 1);
    io.set("axil$araddr", 0x301);
    io.set("axil$arvalid", 1);
    io.eval();
    assert_eq!((io.get("axil$awready"), io.get("axil$wready"), io.get("axil$arready")), (1, 1, 1));
    io.tick();
    axil_idle(&mut io);
    io.set("axil$bready", 1);
    io.set("axil$rready", 1);
    io.eval();
    assert_eq!((io.get("axil$bvalid"), io.get("axil$bresp")), (1, SLVERR));
    assert_eq!((io.get("axil$rvalid"), io.get("axil$rresp"), io.get("axil$rdata")), (1, SLVERR, 0));
    assert_eq!(io.get("error_count"), expected + 2);
    io.tick();
    axil_idle(&mut io);
    println!(
        "rejected accesses: error_count = {} after {} writes and {} reads rejected + 1 pair",
        expected + 2,
        bad_writes.len(),
        bad_reads.len()
    );
    reset(&mut io);
    assert_eq!(io.get("error_count"), 0);
}

#[test]
fn status_read_returns_the_value_at_acceptance_with_one_cycle_latency() {
    let mut io = native();
    reset(&mut io);
    let mut status = [0u32; 256];
    status[5] = 0xAAAA_0005;
    io.set_status(&status);
    io.set("axil$araddr", 0x414);
    io.set("axil$arvalid", 1);
    io.eval();
    assert_eq!(io.get("axil$arready"), 1);
    assert_eq!(io.get("axil$rvalid"), 0);
    io.tick(); // AR accepted in this cycle (t)
    io.set("axil$arvalid", 0);
    status[5] = 0xBBBB_0005;
    io.set_status(&status);
    for _ in 0..3 {
        io.eval();
        // t+1 and later: the answer from cycle t, held while rready is low; no new AR taken.
        assert_eq!((io.get("axil$rvalid"), io.get("axil$rdata"), io.get("axil$rresp")), (1, 0xAAAA_0005, OKAY));
        assert_eq!(io.get("axil$arready"), 0);
        io.tick();
    }
    io.set("axil$rready", 1);
    io.eval();
    assert_eq!(io.get("axil$arready"), 1, "a response being taken frees the read channel");
    io.tick();
    io.eval();
    assert_eq!(io.get("axil$rvalid"), 0);
    assert_eq!(axil_read(&mut io, 0x414), (0xBBBB_0005, OKAY));
}

/// Offers W (or AW) alone for a few cycles, then the other half; checks that the write happens
/// exactly one cycle after the later handshake and that the B response blocks new writes.
fn one_half_first(w_first: bool) {
    let mut io = native();
    reset(&mut io);
    io.set("axil$awaddr", 0x08);
    io.set("axil$wdata", 0x0BAD_F00D);
    io.set("axil$wstrb", 0xF);
    io.set(if w_first { "axil$wvalid" } else { "axil$awvalid" }, 1);
    let (first_ready, second_valid, second_ready) =
        if w_first { ("axil$wready", "axil$awvalid", "axil$awready") } else { ("axil$awready", "axil$wvalid", "axil$wready") };
    io.eval();
    assert_eq!(io.get(first_ready), 1);
    io.tick();
    io.set(if w_first { "axil$wvalid" } else { "axil$awvalid" }, 0);
    // The payload of the first half may change once it is handed over.
    io.set(if w_first { "axil$wdata" } else { "axil$awaddr" }, if w_first { 0x1234 } else { 0x0C });
    for _ in 0..4 {
        io.eval();
        assert_eq!(io.get(first_ready), 0, "the held half blocks its channel");
        assert_eq!(io.get("axil$bvalid"), 0);
        assert_eq!(io.cfg()[2], DEFAULTS[2]);
        io.tick();
    }
    if w_first {
        io.set("axil$awaddr", 0x08);
    } else {
        io.set("axil$wdata", 0x0BAD_F00D);
    }
    io.set(second_valid, 1);
    io.eval();
    assert_eq!(io.get(second_ready), 1);
    io.tick(); // later handshake in cycle t
    io.set(second_valid, 0);
    io.eval(); // t+1
    assert_eq!((io.get("axil$bvalid"), io.get("axil$bresp")), (1, OKAY));
    assert_eq!(io.cfg()[2], 0x0BAD_F00D);
    // While B waits (bready low), neither AW nor W is accepted.
    io.set("axil$awvalid", 1);
    io.set("axil$wvalid", 1);
    io.set("axil$awaddr", 0x10);
    io.set("axil$wdata", 0x4444);
    for _ in 0..3 {
        io.eval();
        assert_eq!((io.get("axil$awready"), io.get("axil$wready"), io.get("axil$bvalid")), (0, 0, 1));
        io.tick();
    }
    // Taking B frees both channels in the same cycle: the next write goes through at once.
    io.set("axil$bready", 1);
    io.eval();
    assert_eq!((io.get("axil$awready"), io.get("axil$wready")), (1, 1));
    io.tick();
    axil_idle(&mut io);
    io.set("axil$bready", 1);
    io.eval();
    assert_eq!((io.get("axil$bvalid"), io.get("axil$bresp")), (1, OKAY));
    assert_eq!(io.cfg()[4], 0x4444);
    io.tick();
    io.eval();
    assert_eq!(io.get("axil$bvalid"), 0);
}

#[test]
fn write_data_before_address() {
    one_half_first(true);
}

#[test]
fn write_address_before_data() {
    one_half_first(false);
}

#[test]
fn one_read_and_one_write_per_cycle_when_ready() {
    let mut io = native();
    reset(&mut io);
    let values: [u32; 16] = std::array::from_fn(|i| 0x0101_0101 * (i as u32 + 1));
    // Back-to-back writes: AW and W offered every cycle, bready high.
    io.set("axil$awvalid", 1);
    io.set("axil$wvalid", 1);
    io.set("axil$wstrb", 0xF);
    io.set("axil$bready", 1);
    let mut b_count = 0;
    let mut cycles = 0;
    for i in 0..=16usize {
        if i < 16 {
            io.set("axil$awaddr", 4 * i as u64);
            io.set("axil$wdata", values[i] as u64);
        } else {
            io.set("axil$awvalid", 0);
            io.set("axil$wvalid", 0);
        }
        io.eval();
        if i < 16 {
            assert_eq!((io.get("axil$awready"), io.get("axil$wready")), (1, 1), "write {i}");
        }
        if i > 0 {
            assert_eq!((io.get("axil$bvalid"), io.get("axil$bresp")), (1, OKAY));
            b_count += 1;
        }
        io.tick();
        cycles += 1;
    }
    assert_eq!(io.cfg(), values);
    println!("writes: {b_count} B responses in {cycles} cycles (AW+W every cycle, bready high)");
    axil_idle(&mut io);

    // Back-to-back reads: AR every cycle, rready high; each answer one cycle after its AR.
    io.set("axil$arvalid", 1);
    io.set("axil$rready", 1);
    let mut r_count = 0;
    for i in 0..=16usize {
        if i < 16 {
            io.set("axil$araddr", 4 * i as u64);
        } else {
            io.set("axil$arvalid", 0);
        }
        io.eval();
        if i < 16 {
            assert_eq!(io.get("axil$arready"), 1);
        }
        if i > 0 {
            assert_eq!((io.get("axil$rvalid"), io.get("axil$rdata"), io.get("axil$rresp")), (1, values[i - 1] as u64, OKAY));
            r_count += 1;
        }
        io.tick();
    }
    io.eval();
    assert_eq!(io.get("axil$rvalid"), 0);
    println!("reads: {r_count} R responses in 17 cycles (AR every cycle, rready high)");
    assert_eq!((b_count, r_count), (16, 16));
}

#[test]
fn reset_drops_pending_responses_and_held_halves() {
    let mut io = native();
    reset(&mut io);
    assert_eq!(axil_write(&mut io, 0x00, 0x7777), OKAY);
    assert_eq!(axil_write(&mut io, 0x500, 1), SLVERR);
    // A read answer and a write answer left waiting, and a W held without its AW.
    io.set("axil$araddr", 0x04);
    io.set("axil$arvalid", 1);
    io.set("axil$awaddr", 0x04);
    io.set("axil$awvalid", 1);
    io.set("axil$wdata", 5);
    io.set("axil$wstrb", 0xF);
    io.set("axil$wvalid", 1);
    io.eval();
    io.tick();
    axil_idle(&mut io);
    io.set("axil$wvalid", 1);
    io.eval();
    assert_eq!((io.get("axil$bvalid"), io.get("axil$rvalid")), (1, 1));
    io.set("axil$bready", 1);
    io.eval();
    io.tick(); // B taken, W of the next write held
    io.set("axil$bready", 0);
    io.set("axil$wvalid", 0);
    io.set("reset", 1);
    io.set("axil$arvalid", 1);
    io.eval();
    assert_eq!((io.get("axil$awready"), io.get("axil$wready"), io.get("axil$arready")), (0, 0, 0), "nothing is accepted during reset");
    io.tick();
    io.set("reset", 0);
    axil_idle(&mut io);
    io.eval();
    assert_eq!((io.get("axil$bvalid"), io.get("axil$rvalid"), io.get("error_count")), (0, 0, 0));
    assert_eq!(io.cfg(), DEFAULTS);
    // The held W is gone: a lone AW does not complete a write.
    io.set("axil$awaddr", 0x04);
    io.set("axil$awvalid", 1);
    io.eval();
    io.tick();
    io.set("axil$awvalid", 0);
    for _ in 0..3 {
        io.eval();
        assert_eq!(io.get("axil$bvalid"), 0);
        io.tick();
    }
    // Completing it with a W works normally.
    io.set("axil$wvalid", 1);
    io.set("axil$wdata", 0x66);
    io.set("axil$bready", 1);
    io.eval();
    io.tick();
    io.set("axil$wvalid", 0);
    io.eval();
    assert_eq!((io.get("axil$bvalid"), io.get("axil$bresp")), (1, OKAY));
    io.tick();
    assert_eq!(io.cfg()[1], 0x66);
}

// ---------------------------------------------------------------- lockstep (rust-hdl vs Verilator)

fn lockstep_stimulus(addr_range: (u64, u64), handshake: f64) -> Stimulus {
    Stimulus::new()
        .drive("reset", Drive::Bernoulli(0.002))
        .drive("axil$awaddr", Drive::Range(addr_range.0, addr_range.1))
        .drive("axil$araddr", Drive::Range(addr_range.0, addr_range.1))
        .drive("axil$awvalid", Drive::Bernoulli(handshake))
        .drive("axil$wvalid", Drive::Bernoulli(handshake))
        .drive("axil$bready", Drive::Bernoulli(handshake))
        .drive("axil$arvalid", Drive::Bernoulli(handshake))
        .drive("axil$rready", Drive::Bernoulli(handshake))
}

#[test]
fn lockstep_random_cycles() {
    let seed = seed("csr lockstep", 0xC5_0001);
    let runs =
        [("config space", lockstep_stimulus((0, 0x43), 0.5), 10_000u64), ("whole map", lockstep_stimulus((0, 0x8FF), 0.7), 10_000u64)];
    let mut total = 0;
    for (k, (what, stimulus, cycles)) in runs.into_iter().enumerate() {
        match run_lockstep_with(native_block(), MODEL, &stimulus, cycles, seed + k as u64) {
            Ok(r) => {
                println!("{MODEL} ({what}): {} cycles, {} output comparisons, no divergence", r.cycles, r.comparisons);
                total += r.cycles;
            }
            Err(e) => panic!("{e}"),
        }
    }
    assert!(total >= 20_000);
}

#[test]
fn lockstep_transactions_through_the_host_helper() {
    let seed = seed("csr lockstep transactions", 0xC5_0002);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut io = WithStatus::new(Lockstep::<AxiLiteCsr>::with_stepper(native_block(), MODEL).unwrap());
    let mut model = CsrModel::new(DEFAULTS);
    let mut status = [0u32; 256];
    reset(&mut io);
    let mut transactions = 0;
    for _ in 0..300 {
        if rng.gen_bool(0.2) {
            status[rng.gen_range(0..256)] = rng.gen();
            io.set_status(&status);
        }
        let addr = random_addr(&mut rng);
        if rng.gen_bool(0.5) {
            let (data, strb) = (rng.gen::<u32>(), random_strb(&mut rng));
            assert_eq!(axil_write_strobed(&mut io, addr, data, strb as u64), model.write(addr, data, strb), "write 0x{addr:03x}");
        } else {
            let (data, resp) = model.read(addr, &status);
            assert_eq!(axil_read(&mut io, addr), (data as u64, resp), "read 0x{addr:03x}");
        }
        transactions += 1;
        assert_eq!(io.cfg(), model.config);
        assert_eq!(io.get("error_count"), model.errors as u64);
    }
    println!(
        "{MODEL}: {transactions} helper transactions in lockstep, {} cycles, {} output comparisons, error_count {}",
        io.io.cycle, io.io.comparisons, model.errors
    );
}

// ---------------------------------------------------------------- reference model on Verilator

fn random_addr(rng: &mut ChaCha8Rng) -> u64 {
    match rng.gen_range(0..100) {
        0..=44 => 4 * rng.gen_range(0..16),
        45..=69 => 0x400 + 4 * rng.gen_range(0..256),
        70..=79 => (4 * rng.gen_range(0..16) + [0, 0x400][rng.gen_range(0..2)]) | rng.gen_range(1..4),
        80..=89 => [0x040, 0x0FC, 0x100, 0x3FC, 0x800, 0xFFC][rng.gen_range(0..6)],
        _ => rng.gen_range(0..4096),
    }
}

fn random_strb(rng: &mut ChaCha8Rng) -> u8 {
    if rng.gen_bool(0.5) {
        0xF
    } else {
        rng.gen_range(0..16)
    }
}

/// valid/ready/payload of one AXI channel, checked cycle by cycle: once valid is shown it stays
/// until the handshake, with the same payload.
#[derive(Default)]
struct ChannelMonitor {
    name: &'static str,
    waiting: Option<Vec<u64>>,
}

impl ChannelMonitor {
    fn new(name: &'static str) -> Self {
        ChannelMonitor { name, waiting: None }
    }
    fn observe(&mut self, cycle: u64, valid: bool, ready: bool, payload: Vec<u64>) {
        if let Some(p) = &self.waiting {
            assert!(valid, "cycle {cycle}: {} valid withdrawn before its handshake", self.name);
            assert_eq!(*p, payload, "cycle {cycle}: {} payload changed while waiting", self.name);
        }
        self.waiting = (valid && !ready).then_some(payload);
    }
}

struct PendingWrite {
    addr: u64,
    data: u32,
    strb: u8,
    aw_at: u64,
    w_at: u64,
    aw_done: bool,
    w_done: bool,
}

struct PendingRead {
    addr: u64,
    ar_at: u64,
}

#[derive(Default, Debug)]
struct Totals {
    cycles: u64,
    writes_okay: u64,
    writes_slverr: u64,
    reads_okay: u64,
    reads_slverr: u64,
    resets: u64,
    w_before_aw: u64,
    aw_before_w: u64,
    b_stall_cycles: u64,
    r_stall_cycles: u64,
}

#[test]
fn reference_model_random_traffic_on_verilator() {
    let seed = seed("csr reference model", 0xC5_0003);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut verilated = WithStatus::new(VerilatedModel::new(MODEL).unwrap());
    let io = &mut verilated;
    let mut model = CsrModel::new(DEFAULTS);
    let mut status = [0u32; 256];
    let mut t = Totals::default();
    let cycles = 200_000u64;
    io.set_status(&status);
    reset(io);
    let mut monitors = ["AW", "W", "B", "AR", "R"].map(ChannelMonitor::new);
    let (mut write, mut read): (Option<PendingWrite>, Option<PendingRead>) = (None, None);
    // Expected responses: (cycle it must first show, response[, data]).
    let mut b_expect: Option<(u64, u64)> = None;
    let mut r_expect: Option<(u64, u32, u64)> = None;
    let (mut p_b, mut p_r, mut p_new) = (1.0, 1.0, 0.5);
    for c in 0..cycles {
        if c % 4_000 == 0 {
            p_b = [0.1, 0.5, 0.9, 1.0][rng.gen_range(0..4)];
            p_r = [0.1, 0.5, 0.9, 1.0][rng.gen_range(0..4)];
            p_new = [0.1, 0.5, 1.0][rng.gen_range(0..3)];
        }
        if rng.gen_bool(0.0005) {
            reset(io);
            model.reset();
            (write, read, b_expect, r_expect) = (None, None, None, None);
            monitors.iter_mut().for_each(|m| m.waiting = None);
            t.resets += 1;
            assert_eq!(io.cfg(), DEFAULTS);
            assert_eq!(io.get("error_count"), 0);
            continue;
        }
        if rng.gen_bool(0.3) {
            for _ in 0..rng.gen_range(1..8) {
                status[rng.gen_range(0..256)] = rng.gen();
            }
            io.set_status(&status);
        }
        // Masters: start transactions, offer AW/W/AR after random delays.
        if write.is_none() && rng.gen_bool(p_new) {
            let (da, dw) = (rng.gen_range(0..4) * rng.gen_range(0..3), rng.gen_range(0..4) * rng.gen_range(0..3));
            t.w_before_aw += (dw < da) as u64;
            t.aw_before_w += (da < dw) as u64;
            write = Some(PendingWrite {
                addr: random_addr(&mut rng),
                data: rng.gen(),
                strb: random_strb(&mut rng),
                aw_at: c + da,
                w_at: c + dw,
                aw_done: false,
                w_done: false,
            });
        }
        if read.is_none() && rng.gen_bool(p_new) {
            read = Some(PendingRead { addr: random_addr(&mut rng), ar_at: c + rng.gen_range(0..3) });
        }
        let aw_valid = write.as_ref().is_some_and(|w| !w.aw_done && c >= w.aw_at);
        let w_valid = write.as_ref().is_some_and(|w| !w.w_done && c >= w.w_at);
        let ar_valid = read.as_ref().is_some_and(|r| c >= r.ar_at);
        // Payloads are random garbage whenever their valid is low.
        io.set("axil$awaddr", if aw_valid { write.as_ref().unwrap().addr } else { rng.gen_range(0..4096) });
        io.set("axil$wdata", if w_valid { write.as_ref().unwrap().data as u64 } else { rng.gen::<u32>() as u64 });
        io.set("axil$wstrb", if w_valid { write.as_ref().unwrap().strb as u64 } else { rng.gen_range(0..16) });
        io.set("axil$araddr", if ar_valid { read.as_ref().unwrap().addr } else { rng.gen_range(0..4096) });
        io.set("axil$awvalid", aw_valid as u64);
        io.set("axil$wvalid", w_valid as u64);
        io.set("axil$arvalid", ar_valid as u64);
        let bready = rng.gen_bool(p_b);
        let rready = rng.gen_bool(p_r);
        io.set("axil$bready", bready as u64);
        io.set("axil$rready", rready as u64);
        io.eval();

        // State visible this cycle matches the model (all earlier writes done, errors counted).
        assert_eq!(io.cfg(), model.config, "cycle {c}: cfg");
        assert_eq!(io.get("error_count"), model.errors as u64, "cycle {c}: error_count");

        let (awready, wready, arready) = (io.get("axil$awready") == 1, io.get("axil$wready") == 1, io.get("axil$arready") == 1);
        let (bvalid, bresp) = (io.get("axil$bvalid") == 1, io.get("axil$bresp"));
        let (rvalid, rdata, rresp) = (io.get("axil$rvalid") == 1, io.get("axil$rdata"), io.get("axil$rresp"));
        let w = write.as_ref();
        monitors[0].observe(c, aw_valid, awready, vec![w.map_or(0, |w| w.addr)]);
        monitors[1].observe(c, w_valid, wready, vec![w.map_or(0, |w| w.data as u64), w.map_or(0, |w| w.strb as u64)]);
        monitors[2].observe(c, bvalid, bready, vec![bresp]);
        monitors[3].observe(c, ar_valid, arready, vec![read.as_ref().map_or(0, |r| r.addr)]);
        monitors[4].observe(c, rvalid, rready, vec![rdata, rresp]);
        if bvalid && !bready {
            assert!(!awready && !wready, "cycle {c}: AW/W accepted while a write response waits");
        }
        if rvalid && !rready {
            assert!(!arready, "cycle {c}: AR accepted while a read response waits");
        }

        // Responses: exactly when due, with the model's answer.
        match b_expect {
            Some((due, resp)) if c >= due => {
                assert!(bvalid, "cycle {c}: write response due at cycle {due} not shown");
                assert_eq!(bresp, resp, "cycle {c}: bresp");
                if bready {
                    b_expect = None;
                } else {
                    t.b_stall_cycles += 1;
                }
            }
            _ => assert!(!bvalid, "cycle {c}: unexpected write response"),
        }
        match r_expect {
            Some((due, data, resp)) if c >= due => {
                assert!(rvalid, "cycle {c}: read response due at cycle {due} not shown");
                assert_eq!((rdata, rresp), (data as u64, resp), "cycle {c}: read answer");
                if rready {
                    r_expect = None;
                } else {
                    t.r_stall_cycles += 1;
                }
            }
            _ => assert!(!rvalid, "cycle {c}: unexpected read response"),
        }

        // Handshakes of this cycle: the read samples the state before this cycle's write.
        if ar_valid && arready {
            assert!(r_expect.is_none());
            let r = read.take().unwrap();
            let (data, resp) = model.read(r.addr, &status);
            if resp == OKAY {
                t.reads_okay += 1
            } else {
                t.reads_slverr += 1
            }
            r_expect = Some((c + 1, data, resp));
        }
        if let Some(wr) = write.as_mut() {
            wr.aw_done |= aw_valid && awready;
            wr.w_done |= w_valid && wready;
            if wr.aw_done && wr.w_done {
                assert!(b_expect.is_none());
                let resp = model.write(wr.addr, wr.data, wr.strb);
                if resp == OKAY {
                    t.writes_okay += 1
                } else {
                    t.writes_slverr += 1
                }
                b_expect = Some((c + 1, resp));
                write = None;
            }
        }
        io.tick();
        t.cycles += 1;
    }
    println!("{MODEL} reference run: {t:?}, final error_count {}", model.errors);
    let transactions = t.writes_okay + t.writes_slverr + t.reads_okay + t.reads_slverr;
    println!("{MODEL}: {transactions} transactions checked against the model in {} cycles", t.cycles);
    assert!(t.writes_okay > 1_000 && t.writes_slverr > 1_000 && t.reads_okay > 1_000 && t.reads_slverr > 1_000);
    assert!(t.w_before_aw > 100 && t.aw_before_w > 100 && t.resets > 10 && t.b_stall_cycles > 100 && t.r_stall_cycles > 100);
}
