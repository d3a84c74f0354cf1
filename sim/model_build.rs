//! Builds Verilator models of generated Verilog: used by `build.rs` for every shipped file (linked
//! statically into this crate) and at run time for parameter sets that have no shipped Verilog
//! ([`crate::cosim::dynamic`], loaded as shared libraries).
//!
//! For each file:
//! 1. read the top module's port list from the Verilog text;
//! 2. turn it into Yosys' processed, flattened netlist ([`netlist`]);
//! 3. verilate it (`--cc --trace`) and compile it with Verilator's own makefile;
//! 4. write a C++ shim — `extern "C"` new/free/eval/tick/trace functions and one setter and one
//!    getter per port (ports wider than 64 bits as 32-bit words) — and compile it.
//!
//! Results are cached in `<cache>/<module>-<hash>/`, keyed by the Verilog text, the Verilator
//! version, the shim version and the compile flags, so a model is rebuilt only when its Verilog
//! changes.

use sha2::{Digest, Sha256};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Bump when the generated shim or the compile flags change, to invalidate cached models.
pub const SHIM_VERSION: &str = "6-netlist";
pub const CXX_FLAGS: &[&str] = &[
    "-std=gnu++17",
    "-O3",
    "-fPIC",
    "-faligned-new",
    "-DVM_COVERAGE=0",
    "-DVM_SC=0",
    "-DVM_TRACE=1",
    "-DVM_TRACE_FST=0",
    "-DVM_TRACE_VCD=1",
    "-Wno-unused-variable",
    "-Wno-unused-parameter",
];

/// One port of a model's top module.
pub struct Port {
    pub name: String,
    pub input: bool,
    pub width: usize,
}

/// A Verilog file to build a model of: its top module and ports.
pub struct ModelSource {
    pub path: PathBuf,
    pub top: String,
    pub text: String,
    pub ports: Vec<Port>,
}


/// Reads the first module's name and ports from rust-hdl's regular output
/// (`input wire  [7:0] a;` / `output reg  y;`).
pub fn parse_source(path: &Path) -> Result<ModelSource, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut top = None;
    let mut ports = Vec::new();
    for line in text.lines() {
        let t = line.trim();
        if top.is_none() {
            if let Some(rest) = t.strip_prefix("module ") {
                top = Some(rest.split('(').next().unwrap().trim().to_string());
            }
            continue;
        }
        if t.starts_with("endmodule") {
            break;
        }
        let mut words = t.trim_end_matches(';').split_whitespace();
        let input = match words.next() {
            Some("input") => true,
            Some("output") => false,
            _ => continue,
        };
        let rest: Vec<&str> = words.filter(|w| *w != "wire" && *w != "reg").collect();
        let (width, name) = match rest.as_slice() {
            [name] => (1, *name),
            [range, name] => {
                let msb: Option<usize> = range.trim_start_matches('[').split(':').next().and_then(|m| m.parse().ok());
                let msb = msb.ok_or_else(|| format!("{}: cannot parse port line '{t}'", path.display()))?;
                (msb + 1, *name)
            }
            _ => return Err(format!("{}: cannot parse port line '{t}'", path.display())),
        };
        ports.push(Port { name: name.to_string(), input, width });
    }
    let top = top.ok_or_else(|| format!("{}: no module", path.display()))?;
    if path.file_stem().and_then(|s| s.to_str()) != Some(top.as_str()) {
        return Err(format!("{}: the file must be named after its top module {top}", path.display()));
    }
    Ok(ModelSource { path: path.to_path_buf(), top, text, ports })
}

/// The tool versions a model depends on (Verilator's and Yosys' version lines) and Verilator's
/// root folder; an error when either is missing or Verilator is older than 5.
pub fn check_verilator() -> Result<(String, PathBuf), String> {
    let out = Command::new("verilator").arg("--version").output().map_err(|_| {
        "Verilator was not found on PATH. Verilator 5 or newer is required: run `scripts/setup-tools.sh` (installs it with apt-get).".to_string()
    })?;
    let version = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let major: u32 = version
        .split_whitespace()
        .nth(1)
        .and_then(|v| v.split('.').next())
        .and_then(|m| m.parse().ok())
        .unwrap_or(0);
    if major < 5 {
        return Err(format!("found '{version}', but Verilator 5 or newer is required (Ubuntu 22.04 ships 4.038; use Debian 12 or Ubuntu 24.04)."));
    }
    let root = match std::env::var("VERILATOR_ROOT").ok().filter(|r| !r.is_empty()) {
        Some(r) => r,
        None => {
            let out = Command::new("verilator").arg("--getenv").arg("VERILATOR_ROOT").output().map_err(|e| format!("verilator --getenv: {e}"))?;
            String::from_utf8_lossy(&out.stdout).trim().to_string()
        }
    };
    // The models are verilated from Yosys' netlist, so its version is part of every model's key.
    let yosys = Command::new("yosys").arg("-V").output().map_err(|_| {
        "Yosys was not found on PATH: run `scripts/setup-tools.sh` (installs it with apt-get).".to_string()
    })?;
    let yosys = String::from_utf8_lossy(&yosys.stdout).trim().to_string();
    Ok((format!("{version}; {yosys}"), PathBuf::from(root)))
}

pub fn hash_of(parts: &[&str]) -> String {
    let mut h = Sha256::new();
    for p in parts {
        h.update(p.as_bytes());
        h.update([0u8]);
    }
    h.finalize().iter().take(8).map(|b| format!("{b:02x}")).collect()
}

fn run(cmd: &mut Command, what: &str) -> Result<(), String> {
    let out = cmd.output().map_err(|e| format!("{what}: cannot start: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "{what} failed:\n{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(())
}

fn cxx() -> String {
    std::env::var("CXX").unwrap_or_else(|_| "g++".into())
}

fn include_flags(root: &Path) -> Vec<String> {
    vec![format!("-I{}/include", root.display()), format!("-I{}/include/vltstd", root.display())]
}

/// Where a source's cached model lives and whether it is built, without building it.
pub fn model_dir(src: &ModelSource, cache: &Path, version: &str) -> PathBuf {
    cache.join(format!("{}-{}", src.top, model_hash(src, version)))
}

fn mem_define(src: &ModelSource) -> String {
    // Files read by `$readmemh` are found at run time through NT_MEM_DIR, the source's folder.
    let mem_dir = src.path.parent().map(|d| d.canonicalize().unwrap_or(d.to_path_buf())).unwrap_or_default();
    format!("-DNT_MEM_DIR=\"{}\"", mem_dir.display())
}

fn reads_files(src: &ModelSource) -> bool {
    src.text.contains("$readmem")
}

fn model_hash(src: &ModelSource, version: &str) -> String {
    // Only models that read memory files depend on where the source lives.
    let flags = CXX_FLAGS.join(" ");
    let mut parts = vec![src.text.as_str(), version, SHIM_VERSION, flags.as_str(), MAKE_FLAGS, NETLIST_SCRIPT];
    let define = mem_define(src);
    if reads_files(src) {
        parts.push(&define);
    }
    hash_of(&parts)
}

/// Flags of Verilator's makefile: position-independent code, so a model can also be linked
/// into a shared library and loaded at run time ([`link_shared`]).
const MAKE_FLAGS: &str = "USER_CPPFLAGS=-fPIC";

/// Verilates and compiles one model (cached in `cache`); returns its object files.
pub fn build_model(src: &ModelSource, cache: &Path, version: &str, root: &Path) -> Result<Vec<PathBuf>, String> {
    let dir = model_dir(src, cache, version);
    let obj = dir.join("obj");
    let stamp = dir.join("built.stamp");
    let prefix = format!("V{}", src.top);
    let io = |e: std::io::Error| format!("{}: {e}", dir.display());
    // One builder per model at a time, across processes (e.g. sweep shards started together).
    let _lock = lock_file(&dir)?;
    if !stamp.exists() {
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&obj).map_err(io)?;
        // A model that reads memory files is verilated from its source, which names them.
        let verilated = if reads_files(src) { src.path.clone() } else { netlist(src, &dir)? };
        let mut v = Command::new("verilator");
        v.args(["--cc", "--trace", "-O3", "--x-assign", "0", "--x-initial", "0"])
            .args(["-Wno-fatal", "-Wno-lint", "-Wno-style"])
            .arg(mem_define(src))
            .arg("--prefix")
            .arg(&prefix)
            .arg("--top-module")
            .arg(&src.top)
            .arg("-Mdir")
            .arg(&obj)
            .arg(&verilated);
        run(&mut v, &format!("verilator on {}", src.path.display()))?;
        let mut make = Command::new("make");
        make.arg("-C")
            .arg(&obj)
            .arg("-f")
            .arg(format!("{prefix}.mk"))
            .arg(format!("{prefix}__ALL.a"))
            .arg("OPT_FAST=-O3")
            .arg(MAKE_FLAGS)
            .arg(format!("CXX={}", cxx()))
            .arg("-j2");
        run(&mut make, &format!("compiling the Verilator model of {}", src.top))?;
        let shim = dir.join("shim.cpp");
        std::fs::write(&shim, cpp_shim(src)).map_err(io)?;
        let mut cc = Command::new(cxx());
        cc.args(CXX_FLAGS)
            .args(include_flags(root))
            .arg(format!("-I{}", obj.display()))
            .arg("-c")
            .arg(&shim)
            .arg("-o")
            .arg(dir.join("shim.o"));
        run(&mut cc, &format!("compiling the shim of {}", src.top))?;
        std::fs::write(&stamp, model_hash(src, version)).map_err(io)?;
    }
    let mut objects = vec![dir.join("shim.o")];
    for e in std::fs::read_dir(&obj).map_err(io)?.flatten() {
        let p = e.path();
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string();
        if name.ends_with(".o") && name.starts_with(&prefix) {
            objects.push(p);
        }
    }
    objects.sort();
    Ok(objects)
}

/// An exclusive lock on `<dir>.lock`, held until the returned file is dropped.
fn lock_file(dir: &Path) -> Result<std::fs::File, String> {
    let path = dir.with_extension("lock");
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    }
    let f = std::fs::File::create(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    f.lock().map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(f)
}

/// The Yosys script of [`netlist`]. A RAM's write enable comes out of `proc` as a multiplexer
/// of all-ones and zeros; mapping that multiplexer to single-bit ones and folding them lets every
/// enable bit be the same signal, so `write_verilog` writes whole words (otherwise each data bit
/// is its own write, which Verilator turns into one delayed update per bit of the memory).
pub const NETLIST_SCRIPT: &str = "read_verilog {source}; hierarchy -top {top}; proc; flatten; opt_clean; \
     select -set en t:$memwr_v2 %ci2:-$memwr_v2[DATA,ADDR,CLK] t:$mux %i; simplemap @en; opt_expr -mux_bool; opt_clean; \
     memory_collect; write_verilog -noattr {out}";

/// Yosys' processed, flattened netlist of a source (`proc; flatten; opt_clean`): one process per
/// register and one assignment per net, so Verilator re-evaluates only the logic whose inputs
/// changed instead of a module's whole combinational block (no UNOPTFLAT loops), and the model
/// is the netlist synthesis starts from. Lockstep tests compare it with rust-hdl's simulation.
fn netlist(src: &ModelSource, dir: &Path) -> Result<PathBuf, String> {
    let out = dir.join("netlist.v");
    let script = NETLIST_SCRIPT
        .replace("{source}", &src.path.display().to_string())
        .replace("{top}", &src.top)
        .replace("{out}", &out.display().to_string());
    let mut y = Command::new("yosys");
    y.arg("-q").arg("-p").arg(script);
    run(&mut y, &format!("yosys netlist of {}", src.path.display()))?;
    Ok(out)
}

/// Compiles the Verilator runtime once (cached by Verilator version and flags).
pub fn build_runtime(cache: &Path, version: &str, root: &Path) -> Result<Vec<PathBuf>, String> {
    let hash = hash_of(&[version, SHIM_VERSION, &CXX_FLAGS.join(" "), &root.display().to_string()]);
    let dir = cache.join(format!("runtime-{hash}"));
    let units = ["verilated", "verilated_vcd_c", "verilated_threads"];
    let stamp = dir.join("built.stamp");
    if !stamp.exists() {
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        for u in units {
            let mut cc = Command::new(cxx());
            cc.args(CXX_FLAGS)
                .args(include_flags(root))
                .arg("-c")
                .arg(root.join("include").join(format!("{u}.cpp")))
                .arg("-o")
                .arg(dir.join(format!("{u}.o")));
            run(&mut cc, &format!("compiling the Verilator runtime ({u}.cpp)"))?;
        }
        std::fs::write(&stamp, &hash).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    Ok(units.iter().map(|u| dir.join(format!("{u}.o"))).collect())
}

/// Links a model's objects with its own copy of the runtime into `<model dir>/model.so` (cached);
/// `-Bsymbolic` keeps the library's references inside it, away from the executable's runtime.
pub fn link_shared(src: &ModelSource, cache: &Path, version: &str, root: &Path) -> Result<PathBuf, String> {
    let mut objects = build_model(src, cache, version, root)?;
    objects.extend(build_runtime(cache, version, root)?);
    let dir = model_dir(src, cache, version);
    let so = dir.join("model.so");
    let _lock = lock_file(&dir)?;
    if !so.exists() {
        let partial = so.with_extension("so.partial");
        let mut ld = Command::new(cxx());
        ld.arg("-shared").arg("-Wl,-Bsymbolic").arg("-o").arg(&partial).args(&objects).arg("-lpthread");
        run(&mut ld, &format!("linking the model library of {}", src.top))?;
        std::fs::rename(&partial, &so).map_err(|e| format!("{}: {e}", so.display()))?;
    }
    Ok(so)
}

/// C++ member name Verilator gives a port (`$` is escaped as `__024`).
pub fn cpp_member(port: &str) -> String {
    port.replace('$', "__024")
}

/// Rust/C symbol fragment for a port.
fn symbol(port: &str) -> String {
    port.replace('$', "__")
}

/// The shim's model functions (also the field names of the Rust model description) with their
/// Rust signatures; each is named [`shim_function`]`(top, what)`.
pub const SHIM_FUNCTIONS: [(&str, &str); 6] = [
    ("new", "() -> *mut c_void"),
    ("free", "(p: *mut c_void)"),
    ("eval", "(p: *mut c_void)"),
    ("tick", "(p: *mut c_void)"),
    ("trace_open", "(p: *mut c_void, path: *const c_char) -> c_int"),
    ("trace_flush", "(p: *mut c_void)"),
];

/// Name of one of the shim's model functions ([`SHIM_FUNCTIONS`]): `<top>_<what>`. The C++ shim,
/// the static bindings and the run-time loader all name them through it.
pub fn shim_function(top: &str, what: &str) -> String {
    format!("{top}_{what}")
}

impl Port {
    /// The shim's setter of this port (inputs only): `(void*, u64)`, or `(void*, u32 word, u32)`
    /// when [`Port::wide`].
    pub fn setter(&self, top: &str) -> String {
        format!("{top}_set_{}", symbol(&self.name))
    }
    /// The shim's getter: `(void*) -> u64`, or `(void*, u32 word) -> u64` when [`Port::wide`].
    pub fn getter(&self, top: &str) -> String {
        format!("{top}_get_{}", symbol(&self.name))
    }
    /// Wider than 64 bits: read and written as 32-bit words.
    pub fn wide(&self) -> bool {
        self.width > 64
    }
}

pub fn cpp_shim(src: &ModelSource) -> String {
    let top = &src.top;
    let class = format!("V{top}");
    let has_clock = src.ports.iter().any(|p| p.name == "clock" && p.input && p.width == 1);
    let [f_new, f_free, f_eval, f_tick, f_trace_open, f_trace_flush] = SHIM_FUNCTIONS.map(|(what, _)| shim_function(top, what));
    let mut s = String::new();
    writeln!(s, "// Shim for {top}: generated by sim/model_build.rs.").unwrap();
    writeln!(s, "#include <cstdint>\n#include \"verilated.h\"\n#include \"verilated_vcd_c.h\"\n#include \"{class}.h\"").unwrap();
    writeln!(
        s,
        "namespace {{ struct Handle {{ VerilatedContext* ctx; {class}* model; VerilatedVcdC* vcd; uint64_t time; bool fall_pending; }}; }}"
    )
    .unwrap();
    writeln!(s, "extern \"C\" {{").unwrap();
    writeln!(
        s,
        "void* {f_new}() {{ auto* h = new Handle; h->ctx = new VerilatedContext; h->ctx->traceEverOn(true); \
         h->model = new {class}(h->ctx, \"{top}\"); h->vcd = nullptr; h->time = 0; h->fall_pending = false; h->model->eval(); return h; }}"
    )
    .unwrap();
    writeln!(
        s,
        "void {f_free}(void* p) {{ auto* h = static_cast<Handle*>(p); if (h->vcd) {{ h->vcd->close(); delete h->vcd; }} \
         h->model->final(); delete h->model; delete h->ctx; delete h; }}"
    )
    .unwrap();
    writeln!(
        s,
        "void {f_eval}(void* p) {{ auto* h = static_cast<Handle*>(p); h->model->eval(); h->fall_pending = false; }}"
    )
    .unwrap();
    let edges = if has_clock {
        // Every generated block is rising-edge only, so the falling edge needs no evaluation of its
        // own: the next eval() (after the next inputs are written) settles it with them. Verilator
        // sees an edge only across an eval, so two ticks in a row evaluate the low clock first.
        "if (h->fall_pending) h->model->eval(); \
         h->model->clock = 1; h->model->eval(); h->time += 1; if (h->vcd) h->vcd->dump(h->time); \
         h->model->clock = 0; h->time += 1; h->fall_pending = true;"
    } else {
        "h->model->eval(); h->time += 2; if (h->vcd) h->vcd->dump(h->time);"
    };
    writeln!(
        s,
        "void {f_tick}(void* p) {{ auto* h = static_cast<Handle*>(p); if (h->vcd) h->vcd->dump(h->time); {edges} }}"
    )
    .unwrap();
    writeln!(
        s,
        "int {f_trace_open}(void* p, const char* path) {{ auto* h = static_cast<Handle*>(p); if (h->vcd) return 1; \
         h->vcd = new VerilatedVcdC; h->model->trace(h->vcd, 99); h->vcd->open(path); return h->vcd->isOpen() ? 0 : 2; }}"
    )
    .unwrap();
    writeln!(
        s,
        "void {f_trace_flush}(void* p) {{ auto* h = static_cast<Handle*>(p); if (h->vcd) h->vcd->flush(); }}"
    )
    .unwrap();
    for p in &src.ports {
        let m = cpp_member(&p.name);
        let (set, get) = (p.setter(top), p.getter(top));
        if !p.wide() {
            if p.input {
                writeln!(s, "void {set}(void* p, uint64_t v) {{ static_cast<Handle*>(p)->model->{m} = v; }}").unwrap();
            }
            writeln!(s, "uint64_t {get}(void* p) {{ return static_cast<Handle*>(p)->model->{m}; }}").unwrap();
        } else {
            if p.input {
                writeln!(s, "void {set}(void* p, uint32_t i, uint32_t v) {{ static_cast<Handle*>(p)->model->{m}[i] = v; }}").unwrap();
            }
            writeln!(s, "uint64_t {get}(void* p, uint32_t i) {{ return static_cast<Handle*>(p)->model->{m}[i]; }}").unwrap();
        }
    }
    writeln!(s, "}}").unwrap();
    s
}

