//! Transaction-level reference of the AXI4-Lite register file (hdl/nic/csr.rs).
//!
//! One write or read at a time, as a host sees them: the answer (data and response) and the
//! effect on the configuration registers and the rejected-access counter. Timing is not modelled;
//! the test applies a write at the cycle the block performs it, so a read accepted in that same
//! cycle is answered from the state before the write.

/// AXI response OKAY.
pub const OKAY: u64 = 0;
/// AXI response SLVERR.
pub const SLVERR: u64 = 2;

/// Where a byte address lands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CsrTarget {
    Config(usize),
    /// A configuration address the map reserves (0x040–0x0FF): reads 0, a write is rejected.
    ReservedConfig,
    Status(usize),
    /// Unmapped.
    Rejected,
}

/// Decodes a 12-bit byte address; an unaligned address means the word it falls in (AXI's
/// narrow transfers: the strobes pick the bytes).
pub fn decode(addr: u64) -> CsrTarget {
    match addr & !3 {
        a @ 0x000..=0x03C => CsrTarget::Config(a as usize / 4),
        0x040..=0x0FC => CsrTarget::ReservedConfig,
        a @ 0x400..=0x7FC => CsrTarget::Status((a as usize - 0x400) / 4),
        _ => CsrTarget::Rejected,
    }
}

/// The register file's state.
#[derive(Clone, Debug)]
pub struct CsrModel {
    defaults: [u32; 16],
    pub config: [u32; 16],
    /// Rejected accesses, wrapping at 2^32.
    pub errors: u32,
}

impl CsrModel {
    pub fn new(defaults: [u32; 16]) -> Self {
        CsrModel { defaults, config: defaults, errors: 0 }
    }

    /// Synchronous reset: defaults back, counter cleared.
    pub fn reset(&mut self) {
        self.config = self.defaults;
        self.errors = 0;
    }

    /// A write with byte strobes `strb` (bit k enables byte k); returns the response.
    pub fn write(&mut self, addr: u64, data: u32, strb: u8) -> u64 {
        match decode(addr) {
            CsrTarget::Config(i) => {
                let mask = (0..4).filter(|k| (strb >> k) & 1 == 1).fold(0u32, |m, k| m | (0xFF << (8 * k)));
                self.config[i] = (self.config[i] & !mask) | (data & mask);
                OKAY
            }
            CsrTarget::ReservedConfig | CsrTarget::Status(_) | CsrTarget::Rejected => {
                self.errors = self.errors.wrapping_add(1);
                SLVERR
            }
        }
    }

    /// A read, with `status` the status registers in the cycle the read is accepted; returns
    /// (data, response).
    pub fn read(&mut self, addr: u64, status: &[u32; 256]) -> (u32, u64) {
        match decode(addr) {
            CsrTarget::Config(i) => (self.config[i], OKAY),
            CsrTarget::ReservedConfig => (0, OKAY),
            CsrTarget::Status(j) => (status[j], OKAY),
            CsrTarget::Rejected => {
                self.errors = self.errors.wrapping_add(1);
                (0, SLVERR)
            }
        }
    }
}
