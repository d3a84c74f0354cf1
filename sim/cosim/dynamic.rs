//! Verilator models built and loaded at run time, for Verilog that was not shipped with this
//! build (parameter sets, see [`crate::param_sets`]).
//!
//! A model is built by [`crate::model_build`] exactly as `build.rs` builds the shipped ones, then
//! linked with its own copy of the Verilator runtime into a shared library in the same cache
//! (`<target>/verilator-models/<module>-<hash>/model.so`, or `NANOTRANSPORT_MODEL_CACHE`), and
//! opened with `libloading`. The first use of a whole NIC takes minutes (Yosys, Verilator and the
//! C++ compiler); later uses, in this or any later process, load the cached library in
//! milliseconds. A loaded model is registered under its module name and opened with
//! [`super::verilated::VerilatedModel::new`] like a linked one.

use super::verilated::{ModelSpec, PortGetter, PortSetter, PortSpec};
use crate::model_build::{check_verilator, link_shared, parse_source, shim_function};
use std::ffi::{c_char, c_int, c_void};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

static LOADED: Mutex<Vec<&'static ModelSpec>> = Mutex::new(Vec::new());

/// The cache of built models: `NANOTRANSPORT_MODEL_CACHE`, else the one `build.rs` used.
pub fn cache_dir() -> PathBuf {
    std::env::var_os("NANOTRANSPORT_MODEL_CACHE").map(PathBuf::from).unwrap_or_else(|| PathBuf::from(env!("NT_MODEL_CACHE")))
}

/// A model loaded at run time, by module name.
pub fn find(name: &str) -> Option<&'static ModelSpec> {
    LOADED.lock().ok()?.iter().copied().find(|m| m.name == name)
}

/// Names of the models loaded at run time.
pub fn names() -> Vec<&'static str> {
    LOADED.lock().map(|l| l.iter().map(|m| m.name).collect()).unwrap_or_default()
}

/// Builds (or finds in the cache) and loads the model of `verilog` (a file named after its top
/// module). Loading the same module again returns the model already loaded if its source is the
/// same file, and is an error otherwise.
pub fn load(verilog: &Path) -> Result<&'static ModelSpec, String> {
    let src = parse_source(verilog)?;
    let source = verilog.display().to_string();
    if let Some(m) = find(&src.top) {
        return if m.source == source { Ok(m) } else { Err(format!("a model named {} is already loaded from {}", src.top, m.source)) };
    }
    let (version, root) = check_verilator()?;
    let so = link_shared(&src, &cache_dir(), &version, &root)?;
    // SAFETY: the library is one this module built from the shim generator; its initialisers
    // only set up the Verilator runtime's own statics.
    let lib = unsafe { libloading::Library::new(&so) }.map_err(|e| format!("{}: {e}", so.display()))?;
    // The library stays loaded for the life of the process: its functions are in the spec.
    let lib: &'static libloading::Library = Box::leak(Box::new(lib));
    let top = &src.top;
    let ports = src
        .ports
        .iter()
        .map(|p| {
            let (set, get) = match (p.wide(), p.input) {
                (false, true) => (PortSetter::Narrow(function(lib, &p.setter(top))?), PortGetter::Narrow(function(lib, &p.getter(top))?)),
                (false, false) => (PortSetter::None, PortGetter::Narrow(function(lib, &p.getter(top))?)),
                (true, true) => (PortSetter::Wide(function(lib, &p.setter(top))?), PortGetter::Wide(function(lib, &p.getter(top))?)),
                (true, false) => (PortSetter::None, PortGetter::Wide(function(lib, &p.getter(top))?)),
            };
            Ok(PortSpec { name: leak(&p.name), input: p.input, width: p.width, set, get })
        })
        .collect::<Result<Vec<_>, String>>()?;
    let spec = ModelSpec {
        name: leak(top),
        source: leak(&source),
        new: function::<unsafe extern "C" fn() -> *mut c_void>(lib, &shim_function(top, "new"))?,
        free: function::<unsafe extern "C" fn(*mut c_void)>(lib, &shim_function(top, "free"))?,
        eval: function::<unsafe extern "C" fn(*mut c_void)>(lib, &shim_function(top, "eval"))?,
        tick: function::<unsafe extern "C" fn(*mut c_void)>(lib, &shim_function(top, "tick"))?,
        trace_open: function::<unsafe extern "C" fn(*mut c_void, *const c_char) -> c_int>(lib, &shim_function(top, "trace_open"))?,
        trace_flush: function::<unsafe extern "C" fn(*mut c_void)>(lib, &shim_function(top, "trace_flush"))?,
        ports: Box::leak(ports.into_boxed_slice()),
    };
    let spec: &'static ModelSpec = Box::leak(Box::new(spec));
    LOADED.lock().map_err(|_| "model registry poisoned".to_string())?.push(spec);
    Ok(spec)
}

/// A function of the library by name, as the function-pointer type `F` the shim gives it.
fn function<F: Copy>(lib: &'static libloading::Library, name: &str) -> Result<F, String> {
    // SAFETY: every name asked for is one the shim generator defines with the signature `F`.
    unsafe { lib.get::<F>(name.as_bytes()) }.map(|s| *s).map_err(|e| format!("{name}: {e}"))
}

fn leak(s: &str) -> &'static str {
    Box::leak(s.to_string().into_boxed_str())
}
