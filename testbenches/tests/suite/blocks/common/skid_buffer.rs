//! Unit tests of the block in `hdl/common/skid_buffer.rs`, on the natively stepped block.

use nanotransport_hdl::common::skid_buffer::*;
use rust_hdl::prelude::*;

/// xorshift64: the stalls and idle cycles of the unit test.
struct Rng(u64);
impl Rng {
    fn chance(&mut self, percent: u64) -> bool {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % 100 < percent
    }
}

/// A source that offers 1, 2, 3, … (holding each until taken, sometimes idle) and a sink
/// that stalls at random: every beat arrives once, in order; `s_ready` is the registered
/// "empty"; a beat offered while empty passes in the same cycle.
#[test]
fn random_stalls_keep_order_and_lose_nothing() {
    let seed = 77;
    println!("skid buffer seed {seed}");
    let mut rng = Rng(seed);
    let mut u = SkidBuffer::<16>::default();
    u.connect_all();
    let settle = |u: &mut SkidBuffer<16>| assert!(simulate(u, 100));
    let clock = |u: &mut SkidBuffer<16>| {
        u.clock.next = Clock { clk: true };
        assert!(simulate(u, 100));
        u.clock.next = Clock { clk: false };
        assert!(simulate(u, 100));
    };
    u.reset.next = true;
    settle(&mut u);
    clock(&mut u);
    u.reset.next = false;
    let (mut next_sent, mut next_expected) = (1u64, 1u64);
    let mut offering = false;
    let (mut passed_through, mut kept) = (0, 0);
    for _ in 0..20_000 {
        if !offering && rng.chance(80) {
            offering = true;
        }
        u.s_valid.next = offering;
        u.s_data.next = next_sent.into();
        let sink_ready = rng.chance(60);
        u.m_ready.next = sink_ready;
        settle(&mut u);
        let empty = u.s_ready.val();
        if empty && offering {
            assert!(u.m_valid.val(), "an offered beat is visible in the same cycle");
            assert_eq!(u.m_data.val().to_u64(), next_sent, "an empty buffer passes the beat through");
        }
        if u.m_valid.val() && sink_ready {
            assert_eq!(u.m_data.val().to_u64(), next_expected, "beats leave in order");
            next_expected += 1;
            if empty {
                passed_through += 1;
            } else {
                kept += 1;
            }
        }
        if offering && empty {
            next_sent = (next_sent + 1) & 0xffff;
            offering = false;
        }
        clock(&mut u);
    }
    assert!(next_expected + 1 >= next_sent, "at most one beat held: sent {next_sent}, received {next_expected}");
    assert!(passed_through > 1000 && kept > 1000, "both paths taken: {passed_through} passed, {kept} kept");
}

/// A sink that never stalls sees every beat in the cycle it is offered.
#[test]
fn no_stall_no_latency() {
    let mut u = SkidBuffer::<8>::default();
    u.connect_all();
    u.reset.next = true;
    assert!(simulate(&mut u, 100));
    u.clock.next = Clock { clk: true };
    assert!(simulate(&mut u, 100));
    u.clock.next = Clock { clk: false };
    u.reset.next = false;
    for v in 0..50u64 {
        u.s_valid.next = true;
        u.s_data.next = v.into();
        u.m_ready.next = true;
        assert!(simulate(&mut u, 100));
        assert!(u.s_ready.val() && u.m_valid.val());
        assert_eq!(u.m_data.val().to_u64(), v);
        u.clock.next = Clock { clk: true };
        assert!(simulate(&mut u, 100));
        u.clock.next = Clock { clk: false };
    }
}
