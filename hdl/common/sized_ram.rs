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
//! # Structure
//! A depth of 2^N is one array. Any other depth is built from power-of-two banks, one per set bit
//! of the depth, largest first ([`banks_of`]; 816 KiB of 64-bit words: 2^16 + 2^15 + 2^12 + 2^11):
//! each bank maps onto block RAM as a power-of-two memory does, its word is the address's low
//! bits, and the read picks the bank's output by the address bits above the smallest bank,
//! registered with the read address as they are and decoded after the read (an AND-OR of the
//! bank outputs, as a power-of-two memory built of several tiles selects its tile): nothing is
//! added before the address register, where the blocks' address logic ends. A single deep array
//! of another depth is mapped by Yosys to 512-deep tiles behind a 204-way read multiplexer:
//! three more logic levels.
//!
//! # Addresses at or above the depth
//! A write there changes nothing and a read there gives 0, in the model and in the Verilog
//! (the registered high address bits match no bank). The blocks that use it never form such an
//! address (their buffer layouts end at the depth); the guard makes the outcome defined.

use rust_hdl::core::timing::TimingInfo;
use rust_hdl::prelude::*;
use std::collections::BTreeMap;

/// The banks a memory of `depth` words on `n` address bits is built from: one per set bit of the
/// depth, largest first, as (address bits of the bank, first word). Each bank starts at a multiple
/// of twice its size, so a word's index in its bank is the address's low bits.
pub fn banks_of(depth: u64, n: usize) -> Vec<(u32, u64)> {
    let mut base = 0;
    (0..n.min(63) as u32)
        .rev()
        .filter(|k| depth >> k & 1 == 1)
        .map(|k| {
            let bank = (k, base);
            base += 1 << k;
            bank
        })
        .collect()
}

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
        let (w, depth) = (D::BITS, self._depth);
        let msb = w - 1;
        // A whole power of two: one array, every address in it.
        if N < 64 && depth == 1u64 << N {
            return Verilog::Custom(format!(
                "\
reg[{msb}:0] mem[{last}:0];

always @(posedge clock) begin
   read_data <= mem[read_address];
end

always @(posedge clock) begin
   if (write_enable) begin
      mem[write_address] <= write_data;
   end
end
",
                last = depth - 1
            ));
        }
        let banks = banks_of(depth, N);
        let index = |k: u32, address: &str| if k == 0 { "0".to_string() } else { format!("{address}[{}:0]", k - 1) };
        // The smallest bank's size: the address bits above it pick the bank. They are registered
        // with the read as they are (no logic before the register, as a power-of-two memory's
        // tile select) and decoded after the read.
        let low = banks.last().map_or(0, |(k, _)| *k);
        let high_bits = N as u32 - low;
        let mut v = String::new();
        for (i, (k, _)) in banks.iter().enumerate() {
            v += &format!("reg[{msb}:0] mem{i}[{}:0];\nreg[{msb}:0] bank_data{i};\n", (1u64 << k) - 1);
        }
        v += &format!("reg[{}:0] read_high;\n", high_bits - 1);
        // An address is in bank (k, base) when its bits above k are base's: banks are aligned to
        // twice their size, so a bank is picked by equality on a few high bits (no comparator).
        let in_bank = |k: u32, base: u64, address: &str, offset: u32| {
            format!("({address}[{}:{}] == {}'d{})", N as u32 - 1 - offset, k - offset, N as u32 - k, base >> k)
        };
        for (i, (k, base)) in banks.iter().enumerate() {
            v += &format!("wire read_hit{i} = {};\n", in_bank(*k, *base, "read_high", low));
        }
        v += "\nalways @(posedge clock) begin\n";
        for (i, (k, _)) in banks.iter().enumerate() {
            v += &format!("   bank_data{i} <= mem{i}[{}];\n", index(*k, "read_address"));
        }
        v += &format!("   read_high <= read_address[{}:{low}];\nend\n\nalways @(posedge clock) begin\n", N - 1);
        for (i, (k, base)) in banks.iter().enumerate() {
            v += &format!(
                "   if (write_enable && {}) begin\n      mem{i}[{}] <= write_data;\n   end\n",
                in_bank(*k, *base, "write_address", 0),
                index(*k, "write_address")
            );
        }
        // The bank read last cycle (the banks are disjoint: an AND-OR, no priority); 0 beyond the depth.
        let terms = (0..banks.len()).map(|i| format!("({{{w}{{read_hit{i}}}}} & bank_data{i})")).collect::<Vec<_>>();
        v += &format!("end\n\nalways @(*) begin\n   read_data = {};\nend\n", terms.join("\n      | "));
        Verilog::Custom(v)
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
