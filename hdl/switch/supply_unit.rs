//! Supply of a link over an inter-arrival time (thesis Algorithm 9 line 4, §4.4.1), in bytes.
//!
//! `supply = floor(rate × inter_arrival)`, with the rate in bytes per nanosecond as a Q8.8
//! fixed-point number (`rate_q8 = Gb/s × 32`, exact for whole Gb/s) and the inter-arrival time in
//! nanoseconds (16 bits: the caller handles gaps of 65 536 ns and more). Two implementations,
//! chosen when the block is built, give the same value for every input:
//! - [`SupplyMode::Multiply`]: a 16 × 16-bit multiplier, product bits 31…8;
//! - [`SupplyMode::LookupTable`]: the thesis' switch prototype (floating point is not available in
//!   a PISA pipeline): a 65 536-entry table, one entry per nanosecond, for one link rate, loaded
//!   from a hex file with `$readmemh` (a ROM, not one Verilog line per entry).
//!
//! # Ports
//! | port            | dir | width | meaning                                                   |
//! |-----------------|-----|-------|-----------------------------------------------------------|
//! | `clock`         | in  | 1     |                                                           |
//! | `inter_arrival` | in  | 16    | nanoseconds                                               |
//! | `rate_q8`       | in  | 16    | bytes per ns × 256 (unused by the table: it holds one rate) |
//! | `supply`        | out | 24    | bytes, registered                                         |
//!
//! # Latency and throughput
//! One cycle (registered output, like a synchronous ROM read); one lookup per cycle.
//!
//! # The table file
//! The Verilog names the file `<name>`; Verilator models built by `sim/build.rs` get the folder
//! of the Verilog source as the macro `NT_MEM_DIR`, synthesis tools find the file next to the
//! sources (add it to the project, or run from its folder). [`supply_table_hex`] writes it.

use crate::ports;
use rust_hdl::prelude::*;

/// How the supply is computed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SupplyMode {
    Multiply,
    /// The table of one link rate (`rate_q8`), read from the hex file named `file`.
    LookupTable {
        rate_q8: u16,
        file: String,
    },
}

/// Supply in bytes of `inter_arrival` ns at `rate_q8` bytes/ns × 256, rounded down.
pub fn supply_bytes(inter_arrival: u16, rate_q8: u16) -> u32 {
    (inter_arrival as u32 * rate_q8 as u32) >> 8
}

/// The table as `$readmemh` reads it: 65 536 lines of 6 hex digits.
pub fn supply_table_hex(rate_q8: u16) -> String {
    let mut s = String::with_capacity(7 << 16);
    for ia in 0..=u16::MAX {
        s.push_str(&format!("{:06x}\n", supply_bytes(ia, rate_q8)));
    }
    s
}

#[ports(
    in clock: Clock;
    in inter_arrival, rate_q8: Bits<16>;
    out supply: Bits<24>;
)]
#[derive(LogicBlock)]
pub struct SupplyUnit {
    _mode: SupplyMode,
}

impl SupplyUnit {
    pub fn new(mode: SupplyMode) -> Self {
        Self {
            clock: Default::default(),
            inter_arrival: Default::default(),
            rate_q8: Default::default(),
            supply: Default::default(),
            _mode: mode,
        }
    }
}

impl Default for SupplyUnit {
    fn default() -> Self {
        Self::new(SupplyMode::Multiply)
    }
}

impl Logic for SupplyUnit {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            let ia = self.inter_arrival.val().to_u64() as u16;
            let rate = match &self._mode {
                SupplyMode::Multiply => self.rate_q8.val().to_u64() as u16,
                SupplyMode::LookupTable { rate_q8, .. } => *rate_q8,
            };
            self.supply.next = (supply_bytes(ia, rate) as u64).into();
        }
    }

    fn connect(&mut self) {
        self.supply.connect();
    }

    fn hdl(&self) -> Verilog {
        match &self._mode {
            SupplyMode::Multiply => Verilog::Custom(
                "\
wire [31:0] product;
assign product = inter_arrival * rate_q8;

always @(posedge clock) begin
   supply <= product[31:8];
end"
                .to_string(),
            ),
            SupplyMode::LookupTable { file, .. } => Verilog::Custom(format!(
                "\
// One entry per nanosecond of inter-arrival time; the table holds a single link rate.
reg [23:0] supply_table [0:65535];

initial begin
`ifdef NT_MEM_DIR
   $readmemh({{`NT_MEM_DIR, \"/{file}\"}}, supply_table);
`else
   $readmemh(\"{file}\", supply_table);
`endif
end

always @(posedge clock) begin
   supply <= supply_table[inter_arrival];
end"
            )),
        }
    }
}
