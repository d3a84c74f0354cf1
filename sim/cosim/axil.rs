//! The host side of an AXI4-Lite slave, for any device with an AXI4-Lite port (a whole NIC's flat
//! `s_axil_*`, the register file's bundle `axil$*`) behind [`Ports`]: one [`AxilMaster`] that a driver steps cycle by cycle beside its
//! other traffic ([`crate::nic::NicSim`]), and blocking single accesses built on it
//! ([`axil_write`], [`axil_read`]).
//!
//! Timing of one access: AW and W are offered together, each withdrawn in the cycle after its own
//! handshake; `bready` rises only once both are handed over (`rready` once AR is), and the
//! response is taken in the first cycle it is valid after that. A blocking call returns after the
//! clock edge at which the response was taken, with every master-side valid and ready low; it
//! assumes no earlier response is still waiting and panics if the slave does not answer within
//! [`AXIL_TIMEOUT_CYCLES`] cycles.

use super::ports::Ports;
use super::verilated::PortId;

/// Cycles an access may take before a blocking call gives up.
pub const AXIL_TIMEOUT_CYCLES: u64 = 1_000;

/// One AXI4-Lite access in progress.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Access {
    Idle,
    Write { addr: u64, value: u64, strb: u64, aw_done: bool, w_done: bool },
    Read { addr: u64, ar_done: bool },
}

/// The master-side ports, found once.
#[derive(Clone, Copy, Debug)]
pub struct AxilPorts {
    awaddr: PortId,
    awvalid: PortId,
    awready: PortId,
    wdata: PortId,
    wstrb: PortId,
    wvalid: PortId,
    wready: PortId,
    bresp: PortId,
    bvalid: PortId,
    bready: PortId,
    araddr: PortId,
    arvalid: PortId,
    arready: PortId,
    rdata: PortId,
    rresp: PortId,
    rvalid: PortId,
    rready: PortId,
}

impl AxilPorts {
    /// The AXI4-Lite ports of `io`: a NIC's flat `s_axil_*` or a block's bundle `axil$*`; the
    /// error names the first one missing.
    pub fn of(io: &dyn Ports) -> Result<Self, String> {
        let prefix = if io.port("s_axil_awaddr").is_some() { "s_axil_" } else { "axil$" };
        let q = |n: &str| io.port(&format!("{prefix}{n}")).ok_or_else(|| format!("no port {prefix}{n}"));
        Ok(AxilPorts {
            awaddr: q("awaddr")?,
            awvalid: q("awvalid")?,
            awready: q("awready")?,
            wdata: q("wdata")?,
            wstrb: q("wstrb")?,
            wvalid: q("wvalid")?,
            wready: q("wready")?,
            bresp: q("bresp")?,
            bvalid: q("bvalid")?,
            bready: q("bready")?,
            araddr: q("araddr")?,
            arvalid: q("arvalid")?,
            arready: q("arready")?,
            rdata: q("rdata")?,
            rresp: q("rresp")?,
            rvalid: q("rvalid")?,
            rready: q("rready")?,
        })
    }
}

/// An AXI4-Lite master stepped with the device: [`Self::drive`] before the device settles,
/// [`Self::observe`] after, then the clock edge.
#[derive(Clone, Debug)]
pub struct AxilMaster {
    ports: AxilPorts,
    access: Access,
    /// The last response taken: (RDATA, RRESP) of a read, (0, BRESP) of a write.
    response: Option<(u64, u64)>,
}

impl AxilMaster {
    pub fn new(ports: AxilPorts) -> Self {
        AxilMaster { ports, access: Access::Idle, response: None }
    }

    /// Starts writing the bytes of `value` selected by `strb` (bit k = byte k) at byte address
    /// `addr`.
    pub fn start_write(&mut self, addr: u64, value: u32, strb: u64) {
        self.access = Access::Write { addr, value: value as u64, strb, aw_done: false, w_done: false };
        self.response = None;
    }

    /// Starts reading byte address `addr`.
    pub fn start_read(&mut self, addr: u64) {
        self.access = Access::Read { addr, ar_done: false };
        self.response = None;
    }

    /// No access in progress.
    pub fn idle(&self) -> bool {
        self.access == Access::Idle
    }

    /// The response of the access that ended, once (then `None`).
    pub fn take_response(&mut self) -> Option<(u64, u64)> {
        self.response.take()
    }

    /// Drives every master-side signal for this cycle.
    pub fn drive(&self, io: &mut dyn Ports) {
        let p = &self.ports;
        let (aw, w, b, ar, r) = match self.access {
            Access::Write { addr, value, strb, aw_done, w_done } => {
                io.set_port(p.awaddr, addr);
                io.set_port(p.wdata, value);
                io.set_port(p.wstrb, strb);
                (!aw_done, !w_done, aw_done && w_done, false, false)
            }
            Access::Read { addr, ar_done } => {
                io.set_port(p.araddr, addr);
                (false, false, false, !ar_done, ar_done)
            }
            Access::Idle => (false, false, false, false, false),
        };
        io.set_port(p.awvalid, aw as u64);
        io.set_port(p.wvalid, w as u64);
        io.set_port(p.bready, b as u64);
        io.set_port(p.arvalid, ar as u64);
        io.set_port(p.rready, r as u64);
    }

    /// Takes this cycle's handshakes (after the device settled, before the clock edge).
    pub fn observe(&mut self, io: &mut dyn Ports) {
        let p = self.ports;
        match &mut self.access {
            Access::Write { aw_done, w_done, .. } => {
                if *aw_done && *w_done {
                    if io.get_port(p.bvalid) == 1 {
                        self.response = Some((0, io.get_port(p.bresp)));
                        self.access = Access::Idle;
                    }
                } else {
                    // A half not handed over yet was offered this cycle (see `drive`).
                    *aw_done = *aw_done || io.get_port(p.awready) == 1;
                    *w_done = *w_done || io.get_port(p.wready) == 1;
                }
            }
            Access::Read { ar_done, .. } => {
                if *ar_done {
                    if io.get_port(p.rvalid) == 1 {
                        self.response = Some((io.get_port(p.rdata), io.get_port(p.rresp)));
                        self.access = Access::Idle;
                    }
                } else {
                    *ar_done = io.get_port(p.arready) == 1;
                }
            }
            Access::Idle => {}
        }
    }
}

/// Drives every master-side handshake signal low.
pub fn axil_idle(io: &mut dyn Ports) {
    let master = AxilMaster::new(AxilPorts::of(io).unwrap_or_else(|e| panic!("{e}")));
    master.drive(io);
}

/// Writes all four bytes of `value` at byte address `addr`; returns `bresp`.
pub fn axil_write(io: &mut dyn Ports, addr: u64, value: u32) -> u64 {
    axil_write_strobed(io, addr, value, 0xF)
}

/// Writes the bytes of `value` selected by `strb` (bit k = byte k) at `addr`; returns `bresp`.
pub fn axil_write_strobed(io: &mut dyn Ports, addr: u64, value: u32, strb: u64) -> u64 {
    let mut master = AxilMaster::new(AxilPorts::of(io).unwrap_or_else(|e| panic!("{e}")));
    master.start_write(addr, value, strb);
    complete(io, &mut master)
        .unwrap_or_else(|| panic!("AXI4-Lite write to 0x{addr:03x}: no response within {AXIL_TIMEOUT_CYCLES} cycles"))
        .1
}

/// Reads byte address `addr`; returns `(rdata, rresp)`.
pub fn axil_read(io: &mut dyn Ports, addr: u64) -> (u64, u64) {
    let mut master = AxilMaster::new(AxilPorts::of(io).unwrap_or_else(|e| panic!("{e}")));
    master.start_read(addr);
    complete(io, &mut master).unwrap_or_else(|| panic!("AXI4-Lite read of 0x{addr:03x}: no response within {AXIL_TIMEOUT_CYCLES} cycles"))
}

/// Steps the device until the master's access ends; leaves the master's signals low.
fn complete(io: &mut dyn Ports, master: &mut AxilMaster) -> Option<(u64, u64)> {
    for _ in 0..AXIL_TIMEOUT_CYCLES {
        master.drive(io);
        io.eval();
        master.observe(io);
        io.tick();
        if let Some(r) = master.take_response() {
            master.drive(io);
            return Some(r);
        }
    }
    None
}
