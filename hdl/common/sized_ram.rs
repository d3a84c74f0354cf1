//! A simple dual-port RAM of any depth: rust-hdl's `RAM<D, N>` with `depth ≤ 2^N` words instead
//! of always `2^N`. The payload memories use it so that a memory holds what its size classes can
//! fill and no more: a power-of-two array rounds 816 KiB of receive buffers up to 1 MiB, and a
//! synthesis tool maps what is declared (ndp-16: 512 BRAM36 for the two payload memories, 356
//! at their used depths).
//!
//! # Ports
//! rust-hdl's `RAM` ports with one clock for both (the NIC has one clock domain):
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | both ports act at its rising edge |
//! | `read_address` | in | N | read the word at `read_address` |
//! | `read_data` | out | D | the word read at the last rising edge |
//! | `write_address`, `write_data`, `write_enable` | in | N, D, 1 | write at the rising edge |
//!
//! # Latency and throughput
//! One read and one write per cycle; a read answers one cycle later and sees writes of earlier
//! cycles (a write to the address read in the same cycle is not forwarded: the old word is read).
//!
//! # Addresses at or above the depth
//! A write there changes nothing and a read there gives 0, in the model and in the Verilog
//! (`read_data` is registered from a guarded select). The blocks that use it never form such
//! an address (their buffer layouts end at the depth); the guard makes the outcome defined.

use rust_hdl::core::timing::TimingInfo;
use rust_hdl::prelude::*;
use std::collections::BTreeMap;

/// Depth of the `sized_ram` block of the `blocks-16` bundle (lockstep): 11 of 16 addresses.
pub const SIZED_RAM_TEST_DEPTH: u64 = 11;

/// A RAM of `depth` words of type `D` addressed with `N` bits.
#[derive(LogicBlock)]
pub struct SizedRam<D: Synth, const N: usize> {
    pub clock: Signal<In, Clock>,
    pub read_address: Signal<In, Bits<N>>,
    pub read_data: Signal<Out, D>,
    pub write_address: Signal<In, Bits<N>>,
    pub write_data: Signal<In, D>,
    pub write_enable: Signal<In, bool>,
    _depth: u64,
    _sim: Box<BTreeMap<Bits<N>, D>>,
}

impl<D: Synth, const N: usize> SizedRam<D, N> {
    /// A RAM of `depth` words, `1 ..= 2^N`; panics with a one-line message otherwise.
    pub fn new(depth: u64) -> Self {
        assert!(depth >= 1 && (N >= 64 || depth <= 1u64 << N), "sized RAM: depth {depth} words, valid 1..=2^{N}");
        Self {
            clock: Default::default(),
            read_address: Default::default(),
            read_data: Default::default(),
            write_address: Default::default(),
            write_data: Default::default(),
            write_enable: Default::default(),
            _depth: depth,
            _sim: Box::default(),
        }
    }

    /// Words it holds.
    pub fn depth(&self) -> u64 {
        self._depth
    }

    fn holds(&self, address: Bits<N>) -> bool {
        address.index() < self._depth as usize
    }
}

impl<D: Synth, const N: usize> Default for SizedRam<D, N> {
    /// A RAM of all `2^N` words.
    fn default() -> Self {
        Self::new(1u64 << N.min(63))
    }
}

impl<D: Synth, const N: usize> Logic for SizedRam<D, N> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            let address = self.read_address.val();
            self.read_data.next = if self.holds(address) { *self._sim.get(&address).unwrap_or(&D::default()) } else { D::default() };
            if self.write_enable.val() && self.holds(self.write_address.val()) {
                self._sim.insert(self.write_address.val(), self.write_data.val());
            }
        }
    }

    fn connect(&mut self) {
        self.read_data.connect();
    }

    fn hdl(&self) -> Verilog {
        let last = self._depth - 1;
        // A whole power of two needs no guard: every address is in the array.
        let (read, write) = if self._depth == 1u64 << N {
            ("read_data <= mem[read_address];".to_string(), "if (write_enable) begin".to_string())
        } else {
            (
                format!("read_data <= (read_address <= {N}'d{last}) ? mem[read_address] : {}'d0;", D::BITS),
                format!("if (write_enable && write_address <= {N}'d{last}) begin"),
            )
        };
        Verilog::Custom(format!(
            "\
reg[{msb}:0] mem[{last}:0];

always @(posedge clock) begin
   {read}
end

always @(posedge clock) begin
   {write}
      mem[write_address] <= write_data;
   end
end
",
            msb = D::BITS - 1,
        ))
    }

    fn timing(&self) -> Vec<TimingInfo> {
        vec![
            TimingInfo {
                name: "ram_read".into(),
                clock: "clock".into(),
                inputs: vec!["read_address".into()],
                outputs: vec!["read_data".into()],
            },
            TimingInfo {
                name: "ram_write".into(),
                clock: "clock".into(),
                inputs: vec!["write_address".into(), "write_data".into(), "write_enable".into()],
                outputs: vec![],
            },
        ]
    }
}
