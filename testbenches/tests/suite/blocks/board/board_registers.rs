//! Unit tests of the block in `hdl/board/board_registers.rs`, on the natively stepped block: a
//! master issuing random reads and writes (W before, with or after its AW) to the NIC's half and
//! the board's half of the map, against a NIC-side target that is ready and answers at random.
//! Expected, access by access: a NIC access reaches the NIC exactly once, unchanged, and its answer
//! comes back; a board read answers its register (0 and SLVERR past the 16); a board write answers
//! SLVERR and never reaches the NIC; a reset in the middle leaves nothing stuck.

use nanotransport_hdl::board::board_registers::{BoardRegisters, BOARD_REGISTERS, BOARD_REGISTER_BASE};
use nanotransport_sim::cosim::native::NativeStepper;
use nanotransport_testbenches::seed;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rust_hdl::prelude::*;

/// One access of the master.
#[derive(Clone, Copy, Debug)]
struct Access {
    write: bool,
    addr: u64,
    data: u32,
    /// For a write: cycles W is offered before (negative) or after its AW.
    w_lead: i32,
}

/// The NIC side: takes AW, W and AR when it is ready (at random), answers a read with a value made
/// from its address and a write with OKAY, one response at a time.
#[derive(Default)]
struct NicTarget {
    aw: Option<u64>,
    w: Option<u32>,
    b_pending: bool,
    r_pending: Option<u64>,
    writes: Vec<(u64, u32)>,
    reads: Vec<u64>,
}

fn nic_value(addr: u64) -> u64 {
    (addr * 2_654_435_761) & 0xFFFF_FFFF
}

fn board_value(index: usize) -> u32 {
    0x1000_0000 | (index as u32 * 0x0101)
}

fn values() -> Bits<512> {
    let mut v = Bits::<512>::default();
    for i in 0..BOARD_REGISTERS {
        for b in 0..32 {
            if board_value(i) >> b & 1 == 1 {
                v = v.replace_bit(32 * i + b, true);
            }
        }
    }
    v
}

/// Runs `access` to completion; returns (response data, response code).
fn run(hw: &mut NativeStepper<BoardRegisters>, nic: &mut NicTarget, a: Access, rng: &mut ChaCha8Rng) -> (u64, u64) {
    let (mut aw_done, mut w_done, mut ar_done) = (false, false, false);
    for cycle in 0..200i32 {
        let u = &mut hw.dut;
        // Master.
        u.s_axil.awaddr.next = a.addr.into();
        u.s_axil.araddr.next = a.addr.into();
        u.s_axil.wdata.next = (a.data as u64).into();
        u.s_axil.wstrb.next = 0xF.into();
        u.s_axil.awvalid.next = a.write && !aw_done && cycle >= a.w_lead.min(0).abs();
        u.s_axil.wvalid.next = a.write && !w_done && cycle >= a.w_lead.max(0);
        u.s_axil.arvalid.next = !a.write && !ar_done;
        u.s_axil.bready.next = rng.gen_bool(0.7);
        u.s_axil.rready.next = rng.gen_bool(0.7);
        // NIC side.
        u.m_axil.awready.next = nic.aw.is_none() && !nic.b_pending && rng.gen_bool(0.6);
        u.m_axil.wready.next = nic.w.is_none() && !nic.b_pending && rng.gen_bool(0.6);
        u.m_axil.arready.next = nic.r_pending.is_none() && rng.gen_bool(0.6);
        u.m_axil.bvalid.next = nic.b_pending;
        u.m_axil.bresp.next = 0.into();
        u.m_axil.rvalid.next = nic.r_pending.is_some();
        u.m_axil.rdata.next = nic_value(nic.r_pending.unwrap_or(0)).into();
        u.m_axil.rresp.next = 0.into();
        hw.settle();
        let u = &hw.dut;
        let fired = |v: bool, r: bool| v && r;
        let (s, m) = (&u.s_axil, &u.m_axil);
        let response = if fired(s.bvalid.val(), s.bready.val()) {
            Some((0, s.bresp.val().index() as u64))
        } else if fired(s.rvalid.val(), s.rready.val()) {
            Some((s.rdata.val().index() as u64, s.rresp.val().index() as u64))
        } else {
            None
        };
        aw_done |= fired(s.awvalid.val(), s.awready.val());
        w_done |= fired(s.wvalid.val(), s.wready.val());
        ar_done |= fired(s.arvalid.val(), s.arready.val());
        if fired(m.awvalid.val(), m.awready.val()) {
            nic.aw = Some(m.awaddr.val().index() as u64);
        }
        if fired(m.wvalid.val(), m.wready.val()) {
            nic.w = Some(m.wdata.val().index() as u32);
        }
        if fired(m.bvalid.val(), m.bready.val()) {
            nic.b_pending = false;
        }
        if fired(m.arvalid.val(), m.arready.val()) {
            let addr = m.araddr.val().index() as u64;
            nic.reads.push(addr);
            nic.r_pending = Some(addr);
        } else if fired(m.rvalid.val(), m.rready.val()) {
            nic.r_pending = None;
        }
        if let (Some(addr), Some(data)) = (nic.aw, nic.w) {
            nic.writes.push((addr, data));
            nic.aw = None;
            nic.w = None;
            nic.b_pending = true;
        }
        hw.tick();
        if let Some(r) = response {
            return r;
        }
    }
    panic!("{a:?}: no response within 200 cycles");
}

#[test]
fn every_access_reaches_its_side_once_and_is_answered() {
    let s = seed("board_registers_random_accesses", 811);
    println!("seed {s}");
    let mut rng = ChaCha8Rng::seed_from_u64(s);
    let mut hw = NativeStepper::new(BoardRegisters::default());
    hw.dut.values.next = values();
    hw.reset();
    let mut nic = NicTarget::default();
    let (mut nic_writes, mut nic_reads) = (Vec::new(), Vec::new());
    for _ in 0..2_000 {
        let addr = match rng.gen_range(0..4) {
            0 => BOARD_REGISTER_BASE + 4 * rng.gen_range(0..BOARD_REGISTERS as u64),
            1 => rng.gen_range(0x840..0x1000) & !3,
            _ => rng.gen_range(0..0x800) & !3,
        };
        let a = Access { write: rng.gen_bool(0.5), addr, data: rng.gen(), w_lead: rng.gen_range(-3..=3) };
        let got = run(&mut hw, &mut nic, a, &mut rng);
        let board = addr >= BOARD_REGISTER_BASE;
        let expected = match (a.write, board) {
            (true, true) => (0, 2),
            (true, false) => {
                nic_writes.push((addr, a.data));
                (0, 0)
            }
            (false, false) => {
                nic_reads.push(addr);
                (nic_value(addr), 0)
            }
            (false, true) if addr < BOARD_REGISTER_BASE + 4 * BOARD_REGISTERS as u64 => {
                (board_value(((addr - BOARD_REGISTER_BASE) / 4) as usize) as u64, 0)
            }
            (false, true) => (0, 2),
        };
        assert_eq!(got, expected, "{a:?}");
    }
    println!("{} NIC writes, {} NIC reads among 2 000 accesses", nic_writes.len(), nic_reads.len());
    assert!(nic_writes.len() > 300 && nic_reads.len() > 300);
    assert_eq!(nic.writes, nic_writes, "the NIC sees exactly the NIC's writes, in order");
    assert_eq!(nic.reads, nic_reads, "the NIC sees exactly the NIC's reads, in order");
}

#[test]
fn a_reset_in_the_middle_of_an_access_leaves_nothing_stuck() {
    let mut rng = ChaCha8Rng::seed_from_u64(seed("board_registers_reset", 812));
    let mut hw = NativeStepper::new(BoardRegisters::default());
    hw.dut.values.next = values();
    hw.reset();
    // A board read and a board write left without their responses taken.
    let u = &mut hw.dut;
    u.s_axil.araddr.next = BOARD_REGISTER_BASE.into();
    u.s_axil.arvalid.next = true;
    u.s_axil.awaddr.next = BOARD_REGISTER_BASE.into();
    u.s_axil.awvalid.next = true;
    u.s_axil.rready.next = false;
    u.s_axil.bready.next = false;
    hw.settle();
    hw.tick();
    hw.dut.s_axil.arvalid.next = false;
    hw.dut.s_axil.awvalid.next = false;
    hw.settle();
    assert!(!hw.dut.s_axil.arready.val() && !hw.dut.s_axil.awready.val(), "one read and one write at a time");
    hw.reset();
    hw.settle();
    assert!(!hw.dut.s_axil.rvalid.val() && !hw.dut.s_axil.bvalid.val(), "responses dropped by the reset");
    let mut nic = NicTarget::default();
    let a = Access { write: false, addr: BOARD_REGISTER_BASE + 4, data: 0, w_lead: 0 };
    assert_eq!(run(&mut hw, &mut nic, a, &mut rng), (board_value(1) as u64, 0));
}
