//! First-word-fall-through FIFO on a synchronous RAM, with a synchronous reset.
//!
//! # Ports
//! | port         | dir | width | meaning                                                     |
//! |--------------|-----|-------|-------------------------------------------------------------|
//! | `clock`, `reset` | in | 1  | synchronous reset empties the FIFO                          |
//! | `push`       | in  | 1     | store `push_data` (ignored when `level` = 2^AW: the caller checks `level`) |
//! | `push_data`  | in  | `D`   |                                                             |
//! | `pop`        | in  | 1     | take the head (ignored when `head_valid` is low)            |
//! | `head_valid` | out | 1     | `head_data` holds the oldest entry                          |
//! | `head_data`  | out | `D`   |                                                             |
//! | `level`      | out | 16    | entries stored (including the ones not yet at the head)     |
//!
//! # Latency and throughput
//! An entry pushed in cycle t can be at the head from cycle t + 2 (the RAM reads before it
//! writes, so the entry is read one edge after it is written). One push and one pop per cycle.

use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct StreamFifo<D: Synth, const AW: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub push: Signal<In, Bit>,
    pub push_data: Signal<In, D>,
    pub pop: Signal<In, Bit>,
    pub head_valid: Signal<Out, Bit>,
    pub head_data: Signal<Out, D>,
    pub level: Signal<Out, Bits<16>>,
    storage: RAM<D, AW>,
    write_ptr: DFF<Bits<AW>>,
    read_ptr: DFF<Bits<AW>>,
    stored: DFF<Bits<16>>,
    readable: DFF<Bits<16>>,
    pushed_last_cycle: DFF<Bit>,
    /// `readable != 0`, registered: `head_valid` comes straight from a flip-flop.
    nonempty: DFF<Bit>,
    depth: Constant<Bits<16>>,
    do_push: Signal<Local, Bit>,
    do_pop: Signal<Local, Bit>,
}

impl<D: Synth, const AW: usize> Default for StreamFifo<D, AW> {
    fn default() -> Self {
        assert!(AW <= 15, "levels are 16 bits");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            push: Default::default(),
            push_data: Default::default(),
            pop: Default::default(),
            head_valid: Default::default(),
            head_data: Default::default(),
            level: Default::default(),
            storage: Default::default(),
            write_ptr: Default::default(),
            read_ptr: Default::default(),
            stored: Default::default(),
            readable: Default::default(),
            pushed_last_cycle: Default::default(),
            nonempty: Default::default(),
            depth: Constant::new(((1u64 << AW) as u64).into()),
            do_push: Default::default(),
            do_pop: Default::default(),
        }
    }
}

impl<D: Synth, const AW: usize> Logic for StreamFifo<D, AW> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, write_ptr, read_ptr, stored, readable, pushed_last_cycle, nonempty);
        self.storage.read_clock.next = self.clock.val();
        self.storage.write_clock.next = self.clock.val();
        self.do_push.next = self.push.val() & (self.stored.q.val() < self.depth.val());
        self.do_pop.next = self.pop.val() & self.nonempty.q.val();
        self.storage.write_address.next = self.write_ptr.q.val();
        self.storage.write_data.next = self.push_data.val();
        self.storage.write_enable.next = self.do_push.val();
        self.storage.read_address.next = self.read_ptr.q.val();
        if self.do_pop.val() {
            self.storage.read_address.next = self.read_ptr.q.val() + 1;
            self.read_ptr.d.next = self.read_ptr.q.val() + 1;
        }
        if self.do_push.val() {
            self.write_ptr.d.next = self.write_ptr.q.val() + 1;
        }
        self.pushed_last_cycle.d.next = self.do_push.val();
        self.stored.d.next = (self.stored.q.val() + bit_cast::<16, 1>(self.do_push.val().into()))
            - bit_cast::<16, 1>(self.do_pop.val().into());
        self.readable.d.next = (self.readable.q.val() + bit_cast::<16, 1>(self.pushed_last_cycle.q.val().into()))
            - bit_cast::<16, 1>(self.do_pop.val().into());
        // Non-empty next cycle: an entry becomes readable, or more than the popped one is left
        // (from registers but the pop, so the consumer's `pop` is the only late input).
        self.nonempty.d.next = (self.pushed_last_cycle.q.val() | (self.readable.q.val() > 1))
            | (self.nonempty.q.val() & (!self.do_pop.val()));
        self.head_valid.next = self.nonempty.q.val();
        self.head_data.next = self.storage.read_data.val();
        self.level.next = self.stored.q.val();
        if self.reset.val() {
            self.write_ptr.d.next = 0.into();
            self.read_ptr.d.next = 0.into();
            self.stored.d.next = 0.into();
            self.readable.d.next = 0.into();
            self.pushed_last_cycle.d.next = false;
            self.nonempty.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fall_through_order_and_two_cycle_latency() {
        let mut f = StreamFifo::<Bits<8>, 2>::default();
        f.connect_all();
        let cycle = |f: &mut StreamFifo<Bits<8>, 2>, push: Option<u64>, pop: bool| -> Option<u64> {
            f.reset.next = false;
            f.push.next = push.is_some();
            f.push_data.next = push.unwrap_or(0).into();
            f.pop.next = pop;
            assert!(simulate(f, 100));
            let head = f.head_valid.val().then(|| f.head_data.val().to_u64());
            f.clock.next = Clock { clk: true };
            assert!(simulate(f, 100));
            f.clock.next = Clock { clk: false };
            assert!(simulate(f, 100));
            head
        };
        f.reset.next = true;
        f.clock.next = Clock { clk: true };
        assert!(simulate(&mut f, 100));
        f.clock.next = Clock { clk: false };
        assert!(simulate(&mut f, 100));
        assert_eq!(cycle(&mut f, Some(1), true), None);
        assert_eq!(cycle(&mut f, Some(2), true), None);
        // Pushed two cycles ago: at the head now, popped; one per cycle from here.
        assert_eq!(cycle(&mut f, Some(3), true), Some(1));
        assert_eq!(cycle(&mut f, Some(4), true), Some(2));
        assert_eq!(cycle(&mut f, Some(5), false), Some(3));
        assert_eq!(cycle(&mut f, Some(6), false), Some(3));
        assert_eq!(cycle(&mut f, Some(7), false), Some(3), "full: the push of 7 is ignored");
        assert_eq!(f.level.val().to_u64(), 4);
        let drained: Vec<_> = (0..6).map(|_| cycle(&mut f, None, true)).collect();
        assert_eq!(drained, vec![Some(3), Some(4), Some(5), Some(6), None, None]);
    }
}
