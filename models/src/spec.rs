//! What a loaded Verilator model offers: its entry points and its ports, as the shared library
//! of [`crate::build`] exports them ([`crate::cache`] fills these in, [`crate::verilated`] drives
//! them).

use std::ffi::{c_char, c_int, c_void};

/// Writes a port of at most 64 bits, or one 32-bit word of a wider port.
#[derive(Clone, Copy)]
pub enum PortSetter {
    None,
    Narrow(unsafe extern "C" fn(*mut c_void, u64)),
    Wide(unsafe extern "C" fn(*mut c_void, u32, u32)),
}

/// Reads a port of at most 64 bits, or one 32-bit word of a wider port.
#[derive(Clone, Copy)]
pub enum PortGetter {
    Narrow(unsafe extern "C" fn(*mut c_void) -> u64),
    Wide(unsafe extern "C" fn(*mut c_void, u32) -> u64),
}

/// One port of a model.
pub struct PortSpec {
    pub name: &'static str,
    pub input: bool,
    pub width: usize,
    pub set: PortSetter,
    pub get: PortGetter,
}

/// One loaded Verilator model.
pub struct ModelSpec {
    pub name: &'static str,
    /// Verilog file the model was built from.
    pub source: &'static str,
    /// Built with waveform support.
    pub traced: bool,
    pub new: unsafe extern "C" fn() -> *mut c_void,
    pub free: unsafe extern "C" fn(*mut c_void),
    pub eval: unsafe extern "C" fn(*mut c_void),
    pub tick: unsafe extern "C" fn(*mut c_void),
    pub trace_open: unsafe extern "C" fn(*mut c_void, *const c_char) -> c_int,
    pub trace_flush: unsafe extern "C" fn(*mut c_void),
    pub ports: &'static [PortSpec],
}
