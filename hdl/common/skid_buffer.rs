//! Skid buffer: a valid/ready stage whose `s_ready` is a register, with no added latency.
//!
//! A stream's `tready` usually travels back combinationally through every block on the stream,
//! so one cycle holds the sink's decision and every source's reaction to it. Placed between
//! two blocks, this stage ends that path: `s_ready` is "the buffer is empty", a flip-flop. While
//! it is empty a beat passes straight through (`m_*` = `s_*`, latency 0); a beat the sink
//! refuses is kept in the buffer, and the source is stopped from the next cycle until the sink
//! has taken it.
//!
//! # Ports
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock`, `reset` | in | 1 | synchronous reset: the buffer is emptied (a kept beat is dropped) |
//! | `s_valid`, `s_data` | in | 1, `W` | the source's beat |
//! | `s_ready` | out | 1 | the buffer is empty: the source's beat is taken (registered) |
//! | `m_valid`, `m_data` | out | 1, `W` | the kept beat if there is one, else the source's |
//! | `m_ready` | in | 1 | the sink takes `m_*` |
//!
//! # Latency and throughput
//! Latency 0 cycles while empty. One beat per cycle: when the sink stalls, the buffer keeps one
//! beat and `s_ready` falls in the next cycle; the cycle the sink takes the kept beat, the
//! source is still stopped, and it passes again from the next, so a source that keeps its
//! beat valid loses no cycle on the sink's side. Beats leave in order, none is lost or
//! repeated. Yosys xcup (`W` = 64): 65 flip-flops, 131 LUTs (the output and capture
//! multiplexers), one LUT level.

use rust_hdl::prelude::*;

/// Skid buffer over a `W`-bit beat.
#[derive(LogicBlock, Default)]
pub struct SkidBuffer<const W: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_valid: Signal<In, Bit>,
    pub s_ready: Signal<Out, Bit>,
    pub s_data: Signal<In, Bits<W>>,
    pub m_valid: Signal<Out, Bit>,
    pub m_ready: Signal<In, Bit>,
    pub m_data: Signal<Out, Bits<W>>,
    /// A refused beat is kept.
    full: DFF<Bit>,
    kept: DFF<Bits<W>>,
}

impl<const W: usize> Logic for SkidBuffer<W> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, full, kept);
        self.s_ready.next = !self.full.q.val();
        self.m_valid.next = self.full.q.val() | self.s_valid.val();
        self.m_data.next = self.s_data.val();
        if self.full.q.val() {
            self.m_data.next = self.kept.q.val();
            if self.m_ready.val() {
                self.full.d.next = false;
            }
        } else if self.s_valid.val() & (!self.m_ready.val()) {
            self.full.d.next = true;
            self.kept.d.next = self.s_data.val();
        }
        if self.reset.val() {
            self.full.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
