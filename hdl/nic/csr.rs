//! AXI4-Lite register file of the NIC: 16 read/write configuration registers (in a window of
//! 64) and a window of 256 read-only status registers read through an index (the NIC's
//! [`crate::nic::status_bank::StatusBank`]), with a counter of rejected accesses.
//!
//! # Ports
//! | port                                   | dir | width | meaning                                        |
//! |----------------------------------------|-----|-------|------------------------------------------------|
//! | `clock`, `reset`                       | in  | 1     | synchronous active-high reset (one cycle)      |
//! | `axil` ([`AxiLiteTarget`]; `axil$awaddr`, … in the Verilog) | | | AXI4-Lite, 12-bit byte addresses, 32-bit data: |
//! | `axil.awaddr/awvalid/awready`          | in/in/out | 12/1/1 | write address channel (byte address)   |
//! | `axil.wdata/wstrb/wvalid/wready`       | in/in/in/out | 32/4/1/1 | write data channel, byte strobes  |
//! | `axil.bresp/bvalid/bready`             | out/out/in | 2/1/1 | write response: 0 OKAY, 2 SLVERR        |
//! | `axil.araddr/arvalid/arready`          | in/in/out | 12/1/1 | read address channel (byte address)    |
//! | `axil.rdata/rresp/rvalid/rready`       | out/out/out/in | 32/2/1/1 | read data and response          |
//! | `cfg`                                  | out | 512   | register i at bits 32i..32i+31 (registered)    |
//! | `status_index`                         | out | 8     | status register addressed by `axil.araddr` (combinational) |
//! | `status_value`                         | in  | 32    | that register's value, sampled in the AR cycle |
//! | `error_count`                          | out | 32    | rejected accesses (SLVERR), wrapping           |
//!
//! # Address map (byte addresses, 32-bit registers, word aligned)
//! | address          | access | content                                                       |
//! |------------------|--------|---------------------------------------------------------------|
//! | `0x000`–`0x03F`  | R/W    | configuration register `i = addr/4`, driven on `cfg`           |
//! | `0x040`–`0x0FF`  | R      | reserved configuration registers: read 0; a write is rejected  |
//! | `0x400`–`0x7FF`  | R      | status register `j = (addr-0x400)/4`: `status_index` = j, `status_value` sampled |
//! | anything else    | —      | rejected: SLVERR                                              |
//!
//! **Narrow and unaligned accesses** are accepted as AXI permits: the address is aligned down to
//! its 32-bit word (`addr[1:0]` ignored) and the write strobes select the bytes, so a master's
//! one-byte write to `0x0D` with `wstrb = 0b0010` writes byte 1 of register 3; a read returns the
//! whole word. A write anywhere but the 16 configuration registers changes nothing and answers
//! SLVERR; a read of an unmapped address answers `rdata = 0`, SLVERR. Every rejected access adds
//! one to `error_count` (a rejected read and a rejected write in the same cycle add two). Writes
//! honour `wstrb`: byte lane k of the register is written only when `wstrb[k]` is set.
//!
//! # Write channel
//! AW and W may come in either order or together: each is accepted (and held in its own register)
//! as soon as its holding register is empty and no write response waits, and the write is done in
//! the cycle in which both are present. One write is outstanding at a time.
//! ```text
//!  cycle t    AW and W both handed over (or the later of the two)  -> cfg written at the edge
//!  cycle t+1  bvalid = 1, cfg shows the new value; held until bready
//! ```
//! `awready = !aw_held && (!bvalid || bready) && !reset`, likewise `wready` with `w_held`: a
//! response that is being taken in this cycle no longer blocks, so with `bready` high one write
//! completes **per cycle** (AW and W together every cycle → one B per cycle, latency 1 cycle).
//! `awready`/`wready` depend combinationally on `bready`, and `arready` on `rready` (all three
//! also on `reset`); no ready depends on a valid, so there is no combinational loop through a
//! master whose valids depend on readies.
//!
//! # Read channel
//! `arready = (!rvalid || rready) && !reset`. The address is decoded and the answer registered in
//! the cycle AR is accepted, so:
//! ```text
//!  cycle t    AR handshake: cfg or status_value sampled
//!  cycle t+1  rvalid = 1, rdata/rresp stable until rready
//! ```
//! Latency 1 cycle; throughput **one read per cycle** while `rready` is high. A status read returns
//! the value of `status_value` in cycle t. A read of a configuration register accepted in the same cycle
//! as a write to it returns the old value (the write takes effect at that cycle's edge).
//!
//! # Reset
//! One cycle with `reset` high restores every configuration register to its default, drops the
//! held AW/W and any pending B or R response, and clears `error_count`; `awready`, `wready` and
//! `arready` are low during that cycle so that nothing is accepted and then lost. The
//! configuration registers also hold their defaults from power-up (before the first reset).
//!
//! # Resources
//! Yosys `synth_xilinx -family xcup` (blocks-16 instance): 1911 LUTs, 632 flip-flops, no RAM. The
//! read multiplexers are binary trees of constant slices (one address bit per level).

use crate::common::bundles::AxiLiteTarget;
use crate::{locals, ports, registers, Blank};
use rust_hdl::prelude::*;

/// Configuration registers.
pub const CSR_CONFIG_REGS: usize = 16;
/// Configuration registers the map reserves room for (0x000–0x0FF).
pub const CSR_CONFIG_WINDOW: usize = 64;
/// Status (read-only) registers.
pub const CSR_STATUS_REGS: usize = 256;
/// Byte address of status register 0.
pub const CSR_STATUS_BASE: u64 = 0x400;
/// AXI response OKAY.
pub const AXI_RESP_OKAY: u64 = 0;
/// AXI response SLVERR.
pub const AXI_RESP_SLVERR: u64 = 2;

/// The 16 configuration registers packed as on `cfg` (register i at bits 32i..32i+31).
pub fn pack_config(values: &[u32; CSR_CONFIG_REGS]) -> Bits<512> {
    let mut packed = Bits::<512>::default();
    for (i, v) in values.iter().enumerate() {
        for b in 0..32 {
            if (v >> b) & 1 == 1 {
                packed = packed.replace_bit(32 * i + b, true);
            }
        }
    }
    packed
}

/// AXI4-Lite register file (see the module documentation for the address map and timing).
#[ports(
    in clock: Clock;
    in reset: Bit;
    /// 16 read/write configuration registers, register i at bits 32i..32i+31 (byte address 4i).
    out cfg: Bits<512>;
    /// Index of the status register addressed by the read channel (byte address 0x400 + 4j).
    out status_index: Bits<8>;
    /// Value of status register `status_index`.
    in status_value: Bits<32>;
    /// Rejected accesses (SLVERR responses), wrapping.
    out error_count: Bits<32>;
)]
#[registers(
    aw_held, w_held, b_valid, r_valid: Bit;
    aw_addr: Bits<12>;
    w_data, r_data, errors: Bits<32>;
    w_strb: Bits<4>;
    b_resp, r_resp: Bits<2>;
)]
#[locals(
    // Write path.
    b_free, aw_take, w_take, have_aw, have_w, write_go, wr_ok, wr_err: Bit;
    wr_addr: Bits<12>;
    wr_data, lane0, lane1, lane2, lane3, wr_mask: Bits<32>;
    wr_strb, wr_index: Bits<4>;
    // Read path.
    ar_take, rd_cfg_hit, rd_status_hit, rd_cfg_implemented, rd_err: Bit;
    rd_cfg_index: Bits<4>;
    rd_cfg_256: Bits<256>;
    rd_cfg_128: Bits<128>;
    rd_cfg_64: Bits<64>;
    rd_cfg_value, err_inc: Bits<32>;
)]
#[derive(LogicBlock, Blank)]
pub struct AxiLiteCsr {
    /// The register port (`axil$awaddr`, … in the Verilog).
    pub axil: AxiLiteTarget,
    // Registers.
    cfg_regs: DFFWithInit<Bits<512>>,
    defaults: Constant<Bits<512>>,
    byte_ones: Constant<Bits<32>>,
}

impl AxiLiteCsr {
    /// A register file whose configuration registers reset (and power up) to `defaults`.
    pub fn new(defaults: [u32; CSR_CONFIG_REGS]) -> Self {
        let packed = pack_config(&defaults);
        Self { cfg_regs: DFFWithInit::new(packed), defaults: Constant::new(packed), byte_ones: Constant::new(0xFF.into()), ..Self::blank() }
    }
}

/// All-zero configuration defaults (instantiate with [`AxiLiteCsr::new`] to choose them).
impl Default for AxiLiteCsr {
    fn default() -> Self {
        Self::new([0; CSR_CONFIG_REGS])
    }
}

impl Logic for AxiLiteCsr {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, cfg_regs, aw_held, aw_addr, w_held, w_data, w_strb, b_valid, b_resp, r_valid, r_data, r_resp, errors);

        // ---- Write: AW and W are each held until both are present.
        self.b_free.next = (!self.b_valid.q.val()) | self.axil.bready.val();
        self.axil.awready.next = ((!self.aw_held.q.val()) & self.b_free.val()) & (!self.reset.val());
        self.axil.wready.next = ((!self.w_held.q.val()) & self.b_free.val()) & (!self.reset.val());
        self.aw_take.next = self.axil.awvalid.val() & (((!self.aw_held.q.val()) & self.b_free.val()) & (!self.reset.val()));
        self.w_take.next = self.axil.wvalid.val() & (((!self.w_held.q.val()) & self.b_free.val()) & (!self.reset.val()));
        self.have_aw.next = self.aw_held.q.val() | self.aw_take.val();
        self.have_w.next = self.w_held.q.val() | self.w_take.val();
        self.write_go.next = (self.have_aw.val() & self.have_w.val()) & self.b_free.val();

        self.wr_addr.next = self.axil.awaddr.val();
        if self.aw_held.q.val() {
            self.wr_addr.next = self.aw_addr.q.val();
        }
        self.wr_data.next = self.axil.wdata.val();
        self.wr_strb.next = self.axil.wstrb.val();
        if self.w_held.q.val() {
            self.wr_data.next = self.w_data.q.val();
            self.wr_strb.next = self.w_strb.q.val();
        }
        if self.aw_take.val() {
            self.aw_addr.d.next = self.axil.awaddr.val();
        }
        if self.w_take.val() {
            self.w_data.d.next = self.axil.wdata.val();
            self.w_strb.d.next = self.axil.wstrb.val();
        }
        self.aw_held.d.next = self.have_aw.val() & (!self.write_go.val());
        self.w_held.d.next = self.have_w.val() & (!self.write_go.val());

        // Only the configuration words 0x000-0x03F are writable; addr[1:0] is ignored (aligned
        // down), the strobes pick the bytes.
        self.wr_ok.next = self.wr_addr.val().get_bits::<6>(6) == 0;
        self.wr_err.next = self.write_go.val() & (!self.wr_ok.val());
        self.lane0.next = 0.into();
        self.lane1.next = 0.into();
        self.lane2.next = 0.into();
        self.lane3.next = 0.into();
        if self.wr_strb.val().get_bit(0) {
            self.lane0.next = self.byte_ones.val();
        }
        if self.wr_strb.val().get_bit(1) {
            self.lane1.next = self.byte_ones.val() << 8;
        }
        if self.wr_strb.val().get_bit(2) {
            self.lane2.next = self.byte_ones.val() << 16;
        }
        if self.wr_strb.val().get_bit(3) {
            self.lane3.next = self.byte_ones.val() << 24;
        }
        self.wr_mask.next = (self.lane0.val() | self.lane1.val()) | (self.lane2.val() | self.lane3.val());
        // One compare per register and constant shifts (wiring), not a 512-bit barrel shifter.
        self.wr_index.next = self.wr_addr.val().get_bits::<4>(2);
        for i in 0..CSR_CONFIG_REGS {
            if (self.write_go.val() & self.wr_ok.val()) & (self.wr_index.val() == i.to_bits()) {
                self.cfg_regs.d.next = (self.cfg_regs.q.val() & (!(bit_cast::<512, 32>(self.wr_mask.val()) << (i * 32).to_bits::<10>())))
                    | (bit_cast::<512, 32>(self.wr_data.val() & self.wr_mask.val()) << (i * 32).to_bits::<10>());
            }
        }
        if self.write_go.val() {
            self.b_resp.d.next = 0.into();
            if !self.wr_ok.val() {
                self.b_resp.d.next = 2.into();
            }
        }
        self.b_valid.d.next = self.write_go.val() | (self.b_valid.q.val() & (!self.axil.bready.val()));
        self.axil.bvalid.next = self.b_valid.q.val();
        self.axil.bresp.next = self.b_resp.q.val();
        self.cfg.next = self.cfg_regs.q.val();

        // ---- Read: decode and register the answer in the cycle AR is accepted.
        self.axil.arready.next = ((!self.r_valid.q.val()) | self.axil.rready.val()) & (!self.reset.val());
        self.ar_take.next = self.axil.arvalid.val() & (((!self.r_valid.q.val()) | self.axil.rready.val()) & (!self.reset.val()));
        // addr[1:0] is ignored: a read returns the whole word its address falls in.
        self.rd_cfg_hit.next = self.axil.araddr.val().get_bits::<4>(8) == 0;
        self.rd_cfg_implemented.next = self.axil.araddr.val().get_bits::<2>(6) == 0;
        self.rd_status_hit.next = self.axil.araddr.val().get_bits::<2>(10) == 1;
        self.rd_cfg_index.next = self.axil.araddr.val().get_bits::<4>(2);
        self.status_index.next = self.axil.araddr.val().get_bits::<8>(2);
        // Read multiplexers as binary trees of constant slices, one index bit per level.
        self.rd_cfg_256.next = self.cfg_regs.q.val().get_bits::<256>(0);
        if self.rd_cfg_index.val().get_bit(3) {
            self.rd_cfg_256.next = self.cfg_regs.q.val().get_bits::<256>(256);
        }
        self.rd_cfg_128.next = self.rd_cfg_256.val().get_bits::<128>(0);
        if self.rd_cfg_index.val().get_bit(2) {
            self.rd_cfg_128.next = self.rd_cfg_256.val().get_bits::<128>(128);
        }
        self.rd_cfg_64.next = self.rd_cfg_128.val().get_bits::<64>(0);
        if self.rd_cfg_index.val().get_bit(1) {
            self.rd_cfg_64.next = self.rd_cfg_128.val().get_bits::<64>(64);
        }
        self.rd_cfg_value.next = self.rd_cfg_64.val().get_bits::<32>(0);
        if self.rd_cfg_index.val().get_bit(0) {
            self.rd_cfg_value.next = self.rd_cfg_64.val().get_bits::<32>(32);
        }
        self.rd_err.next = self.ar_take.val() & (!(self.rd_cfg_hit.val() | self.rd_status_hit.val()));
        if self.ar_take.val() {
            self.r_data.d.next = 0.into();
            self.r_resp.d.next = 2.into();
            if self.rd_cfg_hit.val() {
                self.r_data.d.next = 0.into();
                if self.rd_cfg_implemented.val() {
                    self.r_data.d.next = self.rd_cfg_value.val();
                }
                self.r_resp.d.next = 0.into();
            }
            if self.rd_status_hit.val() {
                self.r_data.d.next = self.status_value.val();
                self.r_resp.d.next = 0.into();
            }
        }
        self.r_valid.d.next = self.ar_take.val() | (self.r_valid.q.val() & (!self.axil.rready.val()));
        self.axil.rvalid.next = self.r_valid.q.val();
        self.axil.rdata.next = self.r_data.q.val();
        self.axil.rresp.next = self.r_resp.q.val();

        // ---- Rejected accesses.
        self.err_inc.next = 0.into();
        if self.wr_err.val() | self.rd_err.val() {
            self.err_inc.next = 1.into();
        }
        if self.wr_err.val() & self.rd_err.val() {
            self.err_inc.next = 2.into();
        }
        self.errors.d.next = self.errors.q.val() + self.err_inc.val();
        self.error_count.next = self.errors.q.val();

        if self.reset.val() {
            self.cfg_regs.d.next = self.defaults.val();
            self.aw_held.d.next = false;
            self.w_held.d.next = false;
            self.b_valid.d.next = false;
            self.b_resp.d.next = 0.into();
            self.r_valid.d.next = false;
            self.r_data.d.next = 0.into();
            self.r_resp.d.next = 0.into();
            self.errors.d.next = 0.into();
        }
    }
}
