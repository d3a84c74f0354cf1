//! Verilator models built on first use and loaded as shared libraries: every model the project
//! opens, by module name.
//!
//! A name is looked up among the sources registered at run time (the parameter sets of
//! `nanotransport_sim::whole_nic::WholeNic::from_params`), then the shipped Verilog (`verilog-out/<configuration>/<module>.v`) and
//! the co-simulation fixtures (`sim/cosim/fixtures/<module>.v`), always as they are on disk now,
//! so a model follows `gen`. Its model is built by [`crate::build`] into the cache
//! (`<target>/verilator-models/`, or `NANOTRANSPORT_MODEL_CACHE`) and opened with `libloading`.
//! The first use of a whole NIC takes a minute or two (Yosys, Verilator and the C++ compiler);
//! later uses, in this or any later process, load the cached library in milliseconds. Threads
//! asking for the same model wait for one build; processes wait on the model folder's lock.

use crate::build::{link_shared, parse_source, shim_function, toolchain, Flavour, Toolchain};
use crate::spec::{ModelSpec, PortGetter, PortSetter, PortSpec};
use std::ffi::{c_char, c_int, c_void};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

/// One model's load, shared by every thread that asks for it.
type Slot = Arc<OnceLock<Result<&'static ModelSpec, String>>>;

/// Models by (module, flavour): loaded, or being loaded.
static LOADED: Mutex<Vec<((String, Flavour), Slot)>> = Mutex::new(Vec::new());

/// Sources registered at run time, by module name.
static REGISTERED: Mutex<Vec<(String, PathBuf)>> = Mutex::new(Vec::new());

/// The cache of built models: `NANOTRANSPORT_MODEL_CACHE`, else `<target>/verilator-models`.
pub fn cache_dir() -> PathBuf {
    std::env::var_os("NANOTRANSPORT_MODEL_CACHE").map(PathBuf::from).unwrap_or_else(|| PathBuf::from(env!("NT_MODEL_CACHE")))
}

/// The folders whose `.v` files are models by their file name: every configuration under
/// `verilog-out/` and the fixtures.
fn shipped_folders() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut folders: Vec<PathBuf> = std::fs::read_dir(root.join("verilog-out"))
        .map(|rd| rd.flatten().map(|e| e.path()).filter(|p| p.is_dir()).collect())
        .unwrap_or_default();
    folders.sort();
    folders.push(root.join("sim/cosim/fixtures"));
    folders
}

/// Every model that can be opened: the shipped Verilog, the fixtures and registered sources.
pub fn names() -> Vec<String> {
    let mut names: Vec<String> = shipped_folders()
        .iter()
        .flat_map(|d| std::fs::read_dir(d).into_iter().flatten().flatten())
        .filter_map(|e| {
            let p = e.path();
            (p.extension().is_some_and(|x| x == "v")).then(|| p.file_stem()?.to_str().map(str::to_string)).flatten()
        })
        .collect();
    names.extend(REGISTERED.lock().map(|r| r.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>()).unwrap_or_default());
    names.sort();
    names.dedup();
    names
}

/// The Verilog file of module `name`, if there is one.
pub fn source_of(name: &str) -> Option<PathBuf> {
    if let Some((_, p)) = REGISTERED.lock().ok()?.iter().find(|(n, _)| n == name) {
        return Some(p.clone());
    }
    shipped_source(name)
}

fn shipped_source(name: &str) -> Option<PathBuf> {
    shipped_folders().into_iter().map(|d| d.join(format!("{name}.v"))).find(|p| p.is_file())
}

/// The model of module `name` in `flavour`, built or taken from the cache and loaded on first
/// use; an error names the module and what failed.
pub fn spec(name: &str, flavour: Flavour) -> Result<&'static ModelSpec, String> {
    let path = source_of(name).ok_or_else(|| {
        format!("no Verilator model named '{name}' (no {name}.v under verilog-out/ or sim/cosim/fixtures/); models: {}", names().join(", "))
    })?;
    load(&path, flavour)
}

/// Builds (or finds in the cache) and loads the model of `verilog`, a file named after its top
/// module, and makes the module openable by name. Loading the same module again returns the model
/// already loaded if its source is the same file, and is an error otherwise.
pub fn load(verilog: &Path, flavour: Flavour) -> Result<&'static ModelSpec, String> {
    let top =
        verilog.file_stem().and_then(|s| s.to_str()).ok_or_else(|| format!("{}: not a Verilog file name", verilog.display()))?.to_string();
    {
        let mut registered = REGISTERED.lock().map_err(|_| "model registry poisoned".to_string())?;
        match registered.iter().find(|(n, _)| *n == top) {
            Some((_, p)) if *p != verilog => return Err(format!("a model named {top} is already loaded from {}", p.display())),
            Some(_) => {}
            None => match shipped_source(&top) {
                Some(p) if p != verilog => {
                    return Err(format!("a model named {top} ships in {}; give the module a name of its own", p.display()))
                }
                _ => registered.push((top.clone(), verilog.to_path_buf())),
            },
        }
    }
    let slot = {
        let mut loaded = LOADED.lock().map_err(|_| "model registry poisoned".to_string())?;
        let key = (top.clone(), flavour);
        match loaded.iter().find(|(k, _)| *k == key) {
            Some((_, slot)) => slot.clone(),
            None => {
                let slot = Slot::default();
                loaded.push((key, slot.clone()));
                slot
            }
        }
    };
    slot.get_or_init(|| build_and_open(verilog, flavour)).clone()
}

/// The tools, checked once per process.
fn tools() -> Result<&'static Toolchain, String> {
    static TOOLS: OnceLock<Result<Toolchain, String>> = OnceLock::new();
    TOOLS.get_or_init(toolchain).as_ref().map_err(Clone::clone)
}

/// Verilator's and Yosys' version lines (checked once per process).
pub fn tool_versions() -> Result<String, String> {
    tools().map(|t| t.versions.clone())
}

fn build_and_open(verilog: &Path, flavour: Flavour) -> Result<&'static ModelSpec, String> {
    let src = parse_source(verilog)?;
    let tools = tools()?;
    let so = link_shared(&src, &cache_dir(), tools, flavour)?;
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
        source: leak(&verilog.display().to_string()),
        traced: flavour.trace,
        new: function::<unsafe extern "C" fn() -> *mut c_void>(lib, &shim_function(top, "new"))?,
        free: function::<unsafe extern "C" fn(*mut c_void)>(lib, &shim_function(top, "free"))?,
        eval: function::<unsafe extern "C" fn(*mut c_void)>(lib, &shim_function(top, "eval"))?,
        tick: function::<unsafe extern "C" fn(*mut c_void)>(lib, &shim_function(top, "tick"))?,
        trace_open: function::<unsafe extern "C" fn(*mut c_void, *const c_char) -> c_int>(lib, &shim_function(top, "trace_open"))?,
        trace_flush: function::<unsafe extern "C" fn(*mut c_void)>(lib, &shim_function(top, "trace_flush"))?,
        ports: Box::leak(ports.into_boxed_slice()),
    };
    Ok(Box::leak(Box::new(spec)))
}

/// A function of the library by name, as the function-pointer type `F` the shim gives it.
fn function<F: Copy>(lib: &'static libloading::Library, name: &str) -> Result<F, String> {
    // SAFETY: every name asked for is one the shim generator defines with the signature `F`.
    unsafe { lib.get::<F>(name.as_bytes()) }.map(|s| *s).map_err(|e| format!("{name}: {e}"))
}

fn leak(s: &str) -> &'static str {
    Box::leak(s.to_string().into_boxed_str())
}

/// The modules of a configuration's shipped Verilog (`verilog-out/<config>/*.v`), or of every
/// configuration and the fixtures when `configs` is empty; an unknown configuration is an error.
pub fn modules_of(configs: &[String]) -> Result<Vec<String>, String> {
    let folders = shipped_folders();
    let chosen: Vec<PathBuf> = if configs.is_empty() {
        folders
    } else {
        configs
            .iter()
            .map(|c| {
                folders.iter().find(|f| f.file_name().is_some_and(|n| n == c.as_str())).cloned().ok_or_else(|| {
                    let known: Vec<String> = folders.iter().filter_map(|f| f.file_name()?.to_str().map(str::to_string)).collect();
                    format!("no configuration '{c}' under verilog-out/; configurations: {}", known.join(", "))
                })
            })
            .collect::<Result<_, _>>()?
    };
    let mut files: Vec<(u64, String)> = chosen
        .iter()
        .flat_map(|d| std::fs::read_dir(d).into_iter().flatten().flatten())
        .filter(|e| e.path().extension().is_some_and(|x| x == "v"))
        .filter_map(|e| Some((e.metadata().ok()?.len(), e.path().file_stem()?.to_str()?.to_string())))
        .collect();
    // Largest first: the whole NICs take the longest, so they start first.
    files.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    Ok(files.into_iter().map(|(_, m)| m).collect())
}

/// Builds (or finds in the cache) the models of `modules`, `jobs` at a time, printing one line per
/// model to stderr; the error lists every model that failed.
pub fn prebuild(modules: &[String], jobs: usize) -> Result<(), String> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    let started = std::time::Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..jobs.max(1) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(module) = modules.get(i) else { break };
                let clock = std::time::Instant::now();
                match spec(module, Flavour::PLAIN) {
                    Ok(_) => eprintln!(
                        "model {}/{} {module}: ready in {:.1} s ({:.0} s so far)",
                        i + 1,
                        modules.len(),
                        clock.elapsed().as_secs_f64(),
                        started.elapsed().as_secs_f64()
                    ),
                    Err(e) => failures.lock().unwrap_or_else(|e| e.into_inner()).push(e),
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap_or_else(|e| e.into_inner());
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("; "))
    }
}
