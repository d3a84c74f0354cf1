//! Host side of an AXI4-Lite slave: single writes and reads through [`Io`], for any block with
//! `s_axil_*` ports (the register file, the NIC top).
//!
//! Each call runs one transaction to completion and returns after the clock edge at which the
//! response was taken, leaving every master-side valid and ready low. A call assumes no earlier
//! response is still waiting. It panics if the slave does not answer within
//! [`AXIL_TIMEOUT_CYCLES`] cycles.

use crate::io::Io;

/// Cycles a transaction may take before the helper gives up.
pub const AXIL_TIMEOUT_CYCLES: u64 = 1_000;

/// Drives every master-side handshake signal low.
pub fn axil_idle(io: &mut dyn Io) {
    for port in ["s_axil_awvalid", "s_axil_wvalid", "s_axil_bready", "s_axil_arvalid", "s_axil_rready"] {
        io.set(port, 0);
    }
}

/// Writes all four bytes of `value` at byte address `addr`; returns `bresp`.
pub fn axil_write(io: &mut dyn Io, addr: u64, value: u32) -> u64 {
    axil_write_strobed(io, addr, value, 0xF)
}

/// Writes the bytes of `value` selected by `strb` (bit k = byte k) at `addr`; returns `bresp`.
/// AW and W are offered together; each is withdrawn after its own handshake.
pub fn axil_write_strobed(io: &mut dyn Io, addr: u64, value: u32, strb: u64) -> u64 {
    io.set("s_axil_awaddr", addr);
    io.set("s_axil_awvalid", 1);
    io.set("s_axil_wdata", value as u64);
    io.set("s_axil_wstrb", strb);
    io.set("s_axil_wvalid", 1);
    io.set("s_axil_bready", 0);
    let (mut aw_done, mut w_done) = (false, false);
    for _ in 0..AXIL_TIMEOUT_CYCLES {
        io.eval();
        if aw_done && w_done && io.get("s_axil_bvalid") == 1 {
            let resp = io.get("s_axil_bresp");
            io.tick();
            io.set("s_axil_bready", 0);
            return resp;
        }
        let aw_taken = !aw_done && io.get("s_axil_awready") == 1;
        let w_taken = !w_done && io.get("s_axil_wready") == 1;
        io.tick();
        if aw_taken {
            aw_done = true;
            io.set("s_axil_awvalid", 0);
        }
        if w_taken {
            w_done = true;
            io.set("s_axil_wvalid", 0);
        }
        // Ready for the response only once both halves are handed over.
        if aw_done && w_done {
            io.set("s_axil_bready", 1);
        }
    }
    panic!("AXI4-Lite write to 0x{addr:03x}: no response within {AXIL_TIMEOUT_CYCLES} cycles");
}

/// Reads byte address `addr`; returns `(rdata, rresp)`.
pub fn axil_read(io: &mut dyn Io, addr: u64) -> (u64, u64) {
    io.set("s_axil_araddr", addr);
    io.set("s_axil_arvalid", 1);
    io.set("s_axil_rready", 0);
    let mut ar_done = false;
    for _ in 0..AXIL_TIMEOUT_CYCLES {
        io.eval();
        if ar_done && io.get("s_axil_rvalid") == 1 {
            let answer = (io.get("s_axil_rdata"), io.get("s_axil_rresp"));
            io.tick();
            io.set("s_axil_rready", 0);
            return answer;
        }
        let ar_taken = !ar_done && io.get("s_axil_arready") == 1;
        io.tick();
        if ar_taken {
            ar_done = true;
            io.set("s_axil_arvalid", 0);
            io.set("s_axil_rready", 1);
        }
    }
    panic!("AXI4-Lite read of 0x{addr:03x}: no response within {AXIL_TIMEOUT_CYCLES} cycles");
}
