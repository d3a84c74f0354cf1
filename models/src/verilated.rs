//! Safe wrapper around the Verilator models of the generated Verilog.
//!
//! A model is opened by its module name ([`VerilatedModel::new`]): it is built on first use and
//! loaded ([`crate::cache`]). Its ports are found by name once ([`VerilatedModel::port`]) and
//! then read and written by index. Models are verilated from Yosys' flattened netlist of the
//! Verilog ([`crate::build`]), so a waveform names internal signals by their flattened
//! hierarchical path (`tx.payload.mem`).
//!
//! Waveforms: set `NANOTRANSPORT_VCD=<dir>` and every model opened afterwards writes
//! `<dir>/<module>-<n>.vcd` (viewable in GTKWave or Surfer), or open one with
//! [`VerilatedModel::traced`]. Only such models are built with waveform support (a model of its
//! own in the cache): it costs build time and speed.
//!
//! A model is `Send` but not `Sync`: it may move to another thread (the network testbench steps
//! its NICs on worker threads), but only one thread uses it at a time.

use crate::build::Flavour;
use std::ffi::{c_void, CString};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

pub use crate::spec::{ModelSpec, PortGetter, PortSetter, PortSpec};

/// Names of every model that can be opened.
pub fn model_names() -> Vec<String> {
    crate::cache::names()
}

/// The model of module `name` (without waveform support), built and loaded on first use.
pub fn model_spec(name: &str) -> Result<&'static ModelSpec, String> {
    crate::cache::spec(name, Flavour::PLAIN)
}

/// Index of a port within its model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PortId(pub usize);

static TRACE_SEQUENCE: AtomicUsize = AtomicUsize::new(0);

/// A live Verilator model.
pub struct VerilatedModel {
    handle: *mut c_void,
    spec: &'static ModelSpec,
}

impl VerilatedModel {
    /// Instantiates the model of module `name` (built on first use); the error lists the models
    /// that exist, or says what failed to build. With `NANOTRANSPORT_VCD=<dir>` set, the model
    /// writes a waveform into that folder.
    pub fn new(name: &str) -> Result<Self, String> {
        match std::env::var_os("NANOTRANSPORT_VCD") {
            Some(dir) => {
                let n = TRACE_SEQUENCE.fetch_add(1, Ordering::Relaxed);
                std::fs::create_dir_all(&dir).map_err(|e| format!("NANOTRANSPORT_VCD: {e}"))?;
                Self::traced(name, &Path::new(&dir).join(format!("{name}-{n}.vcd")))
            }
            None => Ok(Self::open(crate::cache::spec(name, Flavour::PLAIN)?)),
        }
    }

    /// Instantiates the model of module `name` with waveform support and starts a VCD dump of
    /// every signal into `path`.
    pub fn traced(name: &str, path: &Path) -> Result<Self, String> {
        let mut model = Self::open(crate::cache::spec(name, Flavour::TRACED)?);
        model.trace_to(path)?;
        Ok(model)
    }

    fn open(spec: &'static ModelSpec) -> Self {
        // SAFETY: the constructor has no preconditions; the handle is freed in Drop.
        let handle = unsafe { (spec.new)() };
        VerilatedModel { handle, spec }
    }

    /// The model's description (name, source file, ports).
    pub fn spec(&self) -> &'static ModelSpec {
        self.spec
    }

    /// Starts a VCD waveform dump of every signal into `path`; only a model opened with waveform
    /// support ([`Self::traced`], `NANOTRANSPORT_VCD`) can.
    pub fn trace_to(&mut self, path: &Path) -> Result<(), String> {
        let c = CString::new(path.to_string_lossy().as_bytes()).map_err(|e| e.to_string())?;
        // SAFETY: handle is live; the path is a valid C string for the duration of the call.
        match unsafe { (self.spec.trace_open)(self.handle, c.as_ptr()) } {
            0 => Ok(()),
            1 => Err(format!("{}: a waveform dump is already open", self.spec.name)),
            3 => Err(format!(
                "{}: opened without waveform support; open it with VerilatedModel::traced or set NANOTRANSPORT_VCD",
                self.spec.name
            )),
            _ => Err(format!("{}: cannot open {}", self.spec.name, path.display())),
        }
    }

    /// Finds a port by name.
    pub fn port(&self, name: &str) -> Option<PortId> {
        self.spec.ports.iter().position(|p| p.name == name).map(PortId)
    }

    /// Finds a port by name, panicking with the list of ports if it does not exist.
    pub fn port_or_panic(&self, name: &str) -> PortId {
        self.port(name).unwrap_or_else(|| {
            let names: Vec<_> = self.spec.ports.iter().map(|p| p.name).collect();
            panic!("{} has no port '{name}'; ports: {}", self.spec.name, names.join(", "))
        })
    }

    /// Finds ports by name, in order (panicking as [`Self::port_or_panic`]).
    pub fn ports<const N: usize>(&self, names: [&str; N]) -> [PortId; N] {
        names.map(|n| self.port_or_panic(n))
    }

    /// Writes `values` to `ports` (each at most 64 bits), in order.
    pub fn set_all(&mut self, ports: &[PortId], values: &[u64]) {
        for (p, v) in ports.iter().zip(values) {
            self.set(*p, *v);
        }
    }

    /// Reads `ports` (each at most 64 bits), in order.
    pub fn get_all<const N: usize>(&self, ports: &[PortId; N]) -> [u64; N] {
        std::array::from_fn(|i| self.get(ports[i]))
    }

    /// Writes an input port of at most 64 bits (wider ports: [`Self::set_words`]).
    pub fn set(&mut self, port: PortId, value: u64) {
        let p = &self.spec.ports[port.0];
        match p.set {
            // SAFETY: handle is live and the function belongs to this model.
            PortSetter::Narrow(f) => unsafe { f(self.handle, value & width_mask(p.width)) },
            PortSetter::Wide(_) => self.set_words(port, &[value]),
            PortSetter::None => panic!("{}.{} is an output", self.spec.name, p.name),
        }
    }

    /// Reads a port of at most 64 bits (wider ports: [`Self::get_words`]).
    pub fn get(&self, port: PortId) -> u64 {
        let p = &self.spec.ports[port.0];
        match p.get {
            // SAFETY: handle is live and the function belongs to this model.
            PortGetter::Narrow(f) => unsafe { f(self.handle) & width_mask(p.width) },
            PortGetter::Wide(_) => panic!("{}.{} is {} bits wide: use get_words", self.spec.name, p.name, p.width),
        }
    }

    /// Writes a port of any width from little-endian 64-bit words (missing words are zero).
    pub fn set_words(&mut self, port: PortId, words: &[u64]) {
        let p = &self.spec.ports[port.0];
        match p.set {
            PortSetter::Narrow(_) => self.set(port, words.first().copied().unwrap_or(0)),
            PortSetter::Wide(f) => {
                for i in 0..p.width.div_ceil(32) {
                    let word64 = words.get(i / 2).copied().unwrap_or(0);
                    let mut word = (word64 >> (32 * (i % 2))) as u32;
                    let top_bits = p.width - 32 * i;
                    if top_bits < 32 {
                        word &= (1u32 << top_bits) - 1;
                    }
                    // SAFETY: i is within the port's word count.
                    unsafe { f(self.handle, i as u32, word) };
                }
            }
            PortSetter::None => panic!("{}.{} is an output", self.spec.name, p.name),
        }
    }

    /// Reads a port of any width as little-endian 64-bit words.
    pub fn get_words(&self, port: PortId) -> Vec<u64> {
        let p = &self.spec.ports[port.0];
        match p.get {
            PortGetter::Narrow(_) => vec![self.get(port)],
            PortGetter::Wide(f) => {
                let mut words = vec![0u64; p.width.div_ceil(64)];
                for i in 0..p.width.div_ceil(32) {
                    // SAFETY: i is within the port's word count.
                    let w = unsafe { f(self.handle, i as u32) } & 0xffff_ffff;
                    words[i / 2] |= w << (32 * (i % 2));
                }
                words
            }
        }
    }

    /// Settles combinational logic after inputs changed.
    pub fn eval(&mut self) {
        // SAFETY: handle is live.
        unsafe { (self.spec.eval)(self.handle) }
    }

    /// One clock cycle: rising then falling edge of `clock` (just `eval` for blocks without one).
    pub fn tick(&mut self) {
        // SAFETY: handle is live.
        unsafe { (self.spec.tick)(self.handle) }
    }

    /// Flushes an open waveform dump to disk.
    pub fn flush_trace(&mut self) {
        // SAFETY: handle is live.
        unsafe { (self.spec.trace_flush)(self.handle) }
    }
}

// SAFETY: a model owns its Verilator context (the shim creates one per model) and keeps no
// state in thread-local storage between calls: Verilator's per-thread state serves only
// multithreaded models and save/restore, which these models do not use. Moving it to another
// thread between calls is therefore sound; `&mut self` on every call keeps one user at a time.
unsafe impl Send for VerilatedModel {}

impl Drop for VerilatedModel {
    fn drop(&mut self) {
        // SAFETY: handle came from `new` of the same spec and is freed exactly once.
        unsafe { (self.spec.free)(self.handle) }
    }
}

fn width_mask(width: usize) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}
