//! Builds Verilator models of generated Verilog on first use, for every model the project opens:
//! the shipped files under `verilog-out/`, the co-simulation fixtures and parameter sets
//! generated at run time. [`crate::cache`] loads the result as a shared library.
//!
//! For each file:
//! 1. read the top module's port list from the Verilog text;
//! 2. turn it into Yosys' processed, flattened netlist (`netlist`);
//! 3. verilate it (`--cc`, plus `--trace` only for a [`Flavour::TRACED`] model) and compile it
//!    with Verilator's own makefile (through `ccache` when it is on PATH);
//! 4. write a C++ shim — `extern "C"` new/free/eval/tick/trace functions and one setter and one
//!    getter per port (ports wider than 64 bits as 32-bit words) — and compile it;
//! 5. link the model with its own copy of the Verilator runtime into `model.so` (`-Bsymbolic`
//!    keeps each library's references inside it).
//!
//! Results are cached in `<cache>/<module>-<hash>/` (`<module>-trace-<hash>/` for a traced
//! model), keyed by the Verilog text, the tool versions, the shim version and the compile flags,
//! so a model is rebuilt only when its Verilog changes; building a new version of a module
//! removes the superseded ones. A failed build leaves no stamp, so it is never taken from the
//! cache; its tool output stays in `build.log` beside it until the next attempt.

use sha2::{Digest, Sha256};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Bump when the generated shim or the compile flags change, to invalidate cached models.
pub const SHIM_VERSION: &str = "7-on-demand";

/// C++ optimisation of the generated model code (Verilator's `OPT_FAST`/`OPT_SLOW`), of the shim
/// and of the runtime: what a model costs to build against how fast it then runs (measured, see
/// the README's test section). `NANOTRANSPORT_MODEL_OPT` (`-O0` … `-O3`, `-Os`) overrides it, for
/// a model kept in the cache beside the default one.
pub const OPT_LEVEL: &str = "-O3";

/// The optimisation models are built with: [`OPT_LEVEL`] or `NANOTRANSPORT_MODEL_OPT`.
pub fn opt_level() -> Result<&'static str, String> {
    match std::env::var("NANOTRANSPORT_MODEL_OPT").ok().as_deref() {
        None | Some("") => Ok(OPT_LEVEL),
        Some(level) => ["-O0", "-O1", "-O2", "-O3", "-Os"]
            .into_iter()
            .find(|l| *l == level)
            .ok_or_else(|| format!("NANOTRANSPORT_MODEL_OPT={level}: expected one of -O0, -O1, -O2, -O3, -Os")),
    }
}

/// How a model is compiled: with or without waveform support. Models are built without it unless
/// a waveform is asked for (`NANOTRANSPORT_VCD`, [`crate::verilated::VerilatedModel::traced`]):
/// `--trace` makes the C++ larger, slower to compile and slower to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Flavour {
    pub trace: bool,
}

impl Flavour {
    pub const PLAIN: Flavour = Flavour { trace: false };
    pub const TRACED: Flavour = Flavour { trace: true };

    /// Flags of the shim's and the runtime's compiles.
    pub fn cxx_flags(&self, opt: &'static str) -> Vec<&'static str> {
        let trace = if self.trace { "-DVM_TRACE=1" } else { "-DVM_TRACE=0" };
        let vcd = if self.trace { "-DVM_TRACE_VCD=1" } else { "-DVM_TRACE_VCD=0" };
        vec![
            "-std=gnu++17",
            opt,
            "-fPIC",
            "-faligned-new",
            "-DVM_COVERAGE=0",
            "-DVM_SC=0",
            trace,
            "-DVM_TRACE_FST=0",
            vcd,
            "-Wno-unused-variable",
            "-Wno-unused-parameter",
        ]
    }

    /// What tells flavours apart in a cache folder's name.
    fn tag(&self) -> &'static str {
        if self.trace {
            "trace-"
        } else {
            ""
        }
    }

    /// The Verilator runtime's sources a model of this flavour links.
    fn runtime_units(&self) -> &'static [&'static str] {
        if self.trace {
            &["verilated", "verilated_vcd_c", "verilated_threads"]
        } else {
            &["verilated", "verilated_threads"]
        }
    }
}

/// The tools models are built with.
#[derive(Clone, Debug)]
pub struct Toolchain {
    /// Verilator's and Yosys' version lines: part of every model's key.
    pub versions: String,
    pub verilator_root: PathBuf,
    /// `ccache` is on PATH: every C++ compile goes through it.
    pub ccache: bool,
    /// C++ optimisation ([`opt_level`]).
    pub opt: &'static str,
}

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

/// Verilator's and Yosys' version lines; a one-line error naming a missing tool and the command
/// that installs it.
pub fn tool_versions() -> Result<(String, String), String> {
    let out = Command::new("verilator").arg("--version").output().map_err(|_| {
        "Verilator was not found on PATH; Verilator 5 or newer is required: run `bash scripts/setup-tools.sh` (installs it with apt-get)".to_string()
    })?;
    let verilator = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let yosys = Command::new("yosys")
        .arg("-V")
        .output()
        .map_err(|_| "Yosys was not found on PATH: run `bash scripts/setup-tools.sh` (installs it with apt-get)".to_string())?;
    Ok((verilator, String::from_utf8_lossy(&yosys.stdout).trim().to_string()))
}

/// The tools models are built with; a one-line error naming the missing tool and the command
/// that installs it when Verilator or Yosys is missing or Verilator is older than 5.
pub fn toolchain() -> Result<Toolchain, String> {
    // The models are verilated from Yosys' netlist, so its version is part of every model's key.
    let (version, yosys) = tool_versions()?;
    if !verilator_is_supported(&version) {
        return Err(format!(
            "found '{version}', but Verilator 5 or newer is required (Ubuntu 22.04 ships 4.038): use Debian 12 or Ubuntu 24.04, or install Verilator 5 from source"
        ));
    }
    let root = match std::env::var("VERILATOR_ROOT").ok().filter(|r| !r.is_empty()) {
        Some(r) => r,
        None => {
            let out =
                Command::new("verilator").arg("--getenv").arg("VERILATOR_ROOT").output().map_err(|e| format!("verilator --getenv: {e}"))?;
            String::from_utf8_lossy(&out.stdout).trim().to_string()
        }
    };
    let ccache = Command::new("ccache").arg("--version").output().is_ok_and(|o| o.status.success());
    Ok(Toolchain { versions: format!("{version}; {yosys}"), verilator_root: PathBuf::from(root), ccache, opt: opt_level()? })
}

/// Verilator's `--version` line names version 5 or newer.
pub fn verilator_is_supported(version_line: &str) -> bool {
    let major: u32 = version_line.split_whitespace().nth(1).and_then(|v| v.split('.').next()).and_then(|m| m.parse().ok()).unwrap_or(0);
    major >= 5
}

pub fn hash_of(parts: &[&str]) -> String {
    let mut h = Sha256::new();
    for p in parts {
        h.update(p.as_bytes());
        h.update([0u8]);
    }
    h.finalize().iter().take(8).map(|b| format!("{b:02x}")).collect()
}

/// Runs one build step, appending its output to `log`. A failure is one line: the step, its
/// first error line and where the whole output is.
fn run(cmd: &mut Command, what: &str, log: &Path) -> Result<(), String> {
    let out = cmd.output().map_err(|e| format!("{what}: cannot start {:?}: {e}", cmd.get_program()))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if let Ok(mut f) = std::fs::OpenOptions::new().create(true).append(true).open(log) {
        use std::io::Write as _;
        let _ = writeln!(f, "== {what}: {cmd:?}\n{stdout}{stderr}");
    }
    if out.status.success() {
        return Ok(());
    }
    let first = stderr
        .lines()
        .chain(stdout.lines())
        .find(|l| l.contains("rror"))
        .or_else(|| stderr.lines().chain(stdout.lines()).find(|l| !l.trim().is_empty()))
        .unwrap_or("no output")
        .trim();
    let first: String = first.chars().take(240).collect();
    Err(format!("{what} failed ({}): {first} (whole output: {})", out.status, log.display()))
}

/// The C++ compiler, behind `ccache` when there is one.
fn cxx_command(tools: &Toolchain) -> Command {
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "g++".into());
    if tools.ccache {
        let mut c = Command::new("ccache");
        c.arg(cxx);
        c
    } else {
        Command::new(cxx)
    }
}

fn include_flags(root: &Path) -> Vec<String> {
    vec![format!("-I{}/include", root.display()), format!("-I{}/include/vltstd", root.display())]
}

/// Where a source's cached model lives, whether built or not.
pub fn model_dir(src: &ModelSource, cache: &Path, tools: &Toolchain, flavour: Flavour) -> PathBuf {
    cache.join(format!("{}-{}{}", src.top, flavour.tag(), model_hash(src, tools, flavour)))
}

fn mem_define(src: &ModelSource) -> String {
    // Files read by `$readmemh` are found at run time through NT_MEM_DIR, the source's folder.
    let mem_dir = src.path.parent().map(|d| d.canonicalize().unwrap_or(d.to_path_buf())).unwrap_or_default();
    format!("-DNT_MEM_DIR=\"{}\"", mem_dir.display())
}

fn reads_files(src: &ModelSource) -> bool {
    src.text.contains("$readmem")
}

fn model_hash(src: &ModelSource, tools: &Toolchain, flavour: Flavour) -> String {
    let flags = flavour.cxx_flags(tools.opt).join(" ");
    let mut parts = vec![src.text.as_str(), tools.versions.as_str(), SHIM_VERSION, flags.as_str(), MAKE_FLAGS, NETLIST_SCRIPT];
    // Only models that read memory files depend on where the source lives.
    let define = mem_define(src);
    if reads_files(src) {
        parts.push(&define);
    }
    hash_of(&parts)
}

/// Flags of Verilator's makefile: position-independent code, so the model links into a shared
/// library.
const MAKE_FLAGS: &str = "USER_CPPFLAGS=-fPIC";

/// Verilates and compiles one model (cached in `cache`); returns its object files. The caller
/// holds the model folder's lock.
fn build_model(src: &ModelSource, dir: &Path, tools: &Toolchain, flavour: Flavour) -> Result<Vec<PathBuf>, String> {
    let obj = dir.join("obj");
    let stamp = dir.join("built.stamp");
    let log = dir.join("build.log");
    let prefix = format!("V{}", src.top);
    let io = |e: std::io::Error| format!("{}: {e}", dir.display());
    if !stamp.exists() {
        let _ = std::fs::remove_dir_all(dir);
        std::fs::create_dir_all(&obj).map_err(io)?;
        // A model that reads memory files is verilated from its source, which names them.
        let verilated = if reads_files(src) { src.path.clone() } else { netlist(src, dir, &log)? };
        let mut v = Command::new("verilator");
        v.args(["--cc", "-O3", "--x-assign", "0", "--x-initial", "0"])
            .args(flavour.trace.then_some("--trace"))
            .args(["-Wno-fatal", "-Wno-lint", "-Wno-style"])
            .arg(mem_define(src))
            .arg("--prefix")
            .arg(&prefix)
            .arg("--top-module")
            .arg(&src.top)
            .arg("-Mdir")
            .arg(&obj)
            .arg(&verilated);
        run(&mut v, &format!("verilator on {}", src.path.display()), &log)?;
        let mut make = Command::new("make");
        make.arg("-C")
            .arg(&obj)
            .arg("-f")
            .arg(format!("{prefix}.mk"))
            .arg(format!("{prefix}__ALL.a"))
            .arg(format!("OPT_FAST={}", tools.opt))
            .arg(format!("OPT_SLOW={}", tools.opt))
            .arg(format!("OPT_GLOBAL={}", tools.opt))
            .arg(MAKE_FLAGS)
            .arg(format!("CXX={}", std::env::var("CXX").unwrap_or_else(|_| "g++".into())))
            .arg("-j2");
        if tools.ccache {
            make.arg("OBJCACHE=ccache");
        }
        run(&mut make, &format!("compiling the Verilator model of {}", src.top), &log)?;
        let shim = dir.join("shim.cpp");
        std::fs::write(&shim, cpp_shim(src)).map_err(io)?;
        let mut cc = cxx_command(tools);
        cc.args(flavour.cxx_flags(tools.opt))
            .args(include_flags(&tools.verilator_root))
            .arg(format!("-I{}", obj.display()))
            .arg("-c")
            .arg(&shim)
            .arg("-o")
            .arg(dir.join("shim.o"));
        run(&mut cc, &format!("compiling the shim of {}", src.top), &log)?;
        std::fs::write(&stamp, model_hash(src, tools, flavour)).map_err(io)?;
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

/// An exclusive lock on `<dir>.lock`, held until the returned file is dropped: one builder per
/// model at a time, across threads and processes (tests run in parallel, sweep shards together).
fn lock_file(dir: &Path) -> Result<std::fs::File, String> {
    let path = dir.with_extension("lock");
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    }
    let f = std::fs::File::create(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    f.lock().map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(f)
}

/// The Yosys script of `netlist`. A RAM's write enable comes out of `proc` as a multiplexer
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
fn netlist(src: &ModelSource, dir: &Path, log: &Path) -> Result<PathBuf, String> {
    let out = dir.join("netlist.v");
    let script = NETLIST_SCRIPT
        .replace("{source}", &src.path.display().to_string())
        .replace("{top}", &src.top)
        .replace("{out}", &out.display().to_string());
    let mut y = Command::new("yosys");
    y.arg("-q").arg("-p").arg(script);
    run(&mut y, &format!("yosys netlist of {}", src.path.display()), log)?;
    Ok(out)
}

/// Compiles the Verilator runtime once per flavour (cached by tool versions and flags).
fn build_runtime(cache: &Path, tools: &Toolchain, flavour: Flavour) -> Result<Vec<PathBuf>, String> {
    let flags = flavour.cxx_flags(tools.opt).join(" ");
    let hash = hash_of(&[&tools.versions, SHIM_VERSION, &flags, &tools.verilator_root.display().to_string()]);
    let dir = cache.join(format!("runtime-{}{hash}", flavour.tag()));
    let _lock = lock_file(&dir)?;
    let units = flavour.runtime_units();
    let stamp = dir.join("built.stamp");
    if !stamp.exists() {
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let log = dir.join("build.log");
        for u in units {
            let mut cc = cxx_command(tools);
            cc.args(flavour.cxx_flags(tools.opt))
                .args(include_flags(&tools.verilator_root))
                .arg("-c")
                .arg(tools.verilator_root.join("include").join(format!("{u}.cpp")))
                .arg("-o")
                .arg(dir.join(format!("{u}.o")));
            run(&mut cc, &format!("compiling the Verilator runtime ({u}.cpp)"), &log)?;
        }
        std::fs::write(&stamp, &hash).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    Ok(units.iter().map(|u| dir.join(format!("{u}.o"))).collect())
}

/// Builds (or finds in the cache) the model of `src` as a shared library, `<model dir>/model.so`:
/// the model's objects linked with their own copy of the runtime. Removes the cached versions of
/// the same module and flavour that this one supersedes.
pub fn link_shared(src: &ModelSource, cache: &Path, tools: &Toolchain, flavour: Flavour) -> Result<PathBuf, String> {
    let dir = model_dir(src, cache, tools, flavour);
    let so = dir.join("model.so");
    let _lock = lock_file(&dir)?;
    if !so.exists() {
        let mut objects = build_model(src, &dir, tools, flavour)?;
        objects.extend(build_runtime(cache, tools, flavour)?);
        let partial = so.with_extension("so.partial");
        let mut ld = cxx_command(tools);
        ld.arg("-shared").arg("-Wl,-Bsymbolic").arg("-o").arg(&partial).args(&objects).arg("-lpthread");
        run(&mut ld, &format!("linking the model library of {}", src.top), &dir.join("build.log"))?;
        std::fs::rename(&partial, &so).map_err(|e| format!("{}: {e}", so.display()))?;
        prune_superseded(cache, &src.top, flavour, &dir);
    }
    Ok(so)
}

/// Removes the cached models of `top` and `flavour` other than `current`: older versions of its
/// Verilog, tools or flags. A folder another process holds locked is left alone.
fn prune_superseded(cache: &Path, top: &str, flavour: Flavour, current: &Path) {
    let prefix = format!("{top}-{}", flavour.tag());
    let Ok(entries) = std::fs::read_dir(cache) else { return };
    for e in entries.flatten() {
        let path = e.path();
        let name = e.file_name().to_string_lossy().to_string();
        let Some(hash) = name.strip_prefix(&prefix) else { continue };
        let is_version = hash.len() == 16 && hash.chars().all(|c| c.is_ascii_hexdigit());
        if !is_version || path == current || !path.is_dir() {
            continue;
        }
        let lock = path.with_extension("lock");
        if let Ok(f) = std::fs::File::create(&lock) {
            if f.try_lock().is_ok() {
                let _ = std::fs::remove_dir_all(&path);
                let _ = std::fs::remove_file(&lock);
            }
        }
    }
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

/// The C++ shim of a model. Waveform code is compiled only into a traced model (`VM_TRACE`, set by
/// [`Flavour::cxx_flags`]); an untraced model's `trace_open` answers 3.
pub fn cpp_shim(src: &ModelSource) -> String {
    let top = &src.top;
    let class = format!("V{top}");
    let has_clock = src.ports.iter().any(|p| p.name == "clock" && p.input && p.width == 1);
    let [f_new, f_free, f_eval, f_tick, f_trace_open, f_trace_flush] = SHIM_FUNCTIONS.map(|(what, _)| shim_function(top, what));
    let mut s = String::new();
    writeln!(s, "// Shim for {top}: generated by models/src/build.rs.").unwrap();
    writeln!(
        s,
        "#include <cstdint>\n#include \"verilated.h\"\n#include \"{class}.h\"\n\
         #if VM_TRACE\n#include \"verilated_vcd_c.h\"\n#define NT_DUMP(h) if (h->vcd) h->vcd->dump(h->time)\n\
         #else\nclass VerilatedVcdC;\n#define NT_DUMP(h)\n#endif"
    )
    .unwrap();
    writeln!(
        s,
        "namespace {{ struct Handle {{ VerilatedContext* ctx; {class}* model; VerilatedVcdC* vcd; uint64_t time; bool fall_pending; }}; }}"
    )
    .unwrap();
    writeln!(s, "extern \"C\" {{").unwrap();
    writeln!(
        s,
        "void* {f_new}() {{ auto* h = new Handle; h->ctx = new VerilatedContext; h->ctx->traceEverOn(VM_TRACE); \
         h->model = new {class}(h->ctx, \"{top}\"); h->vcd = nullptr; h->time = 0; h->fall_pending = false; h->model->eval(); return h; }}"
    )
    .unwrap();
    writeln!(
        s,
        "void {f_free}(void* p) {{ auto* h = static_cast<Handle*>(p);\n#if VM_TRACE\n if (h->vcd) {{ h->vcd->close(); delete h->vcd; }}\n#endif\n \
         h->model->final(); delete h->model; delete h->ctx; delete h; }}"
    )
    .unwrap();
    writeln!(s, "void {f_eval}(void* p) {{ auto* h = static_cast<Handle*>(p); h->model->eval(); h->fall_pending = false; }}").unwrap();
    let edges = if has_clock {
        // Every generated block is rising-edge only, so the falling edge needs no evaluation of its
        // own: the next eval() (after the next inputs are written) settles it with them. Verilator
        // sees an edge only across an eval, so two ticks in a row evaluate the low clock first.
        "if (h->fall_pending) h->model->eval(); \
         h->model->clock = 1; h->model->eval(); h->time += 1; NT_DUMP(h); \
         h->model->clock = 0; h->time += 1; h->fall_pending = true;"
    } else {
        "h->model->eval(); h->time += 2; NT_DUMP(h);"
    };
    writeln!(s, "void {f_tick}(void* p) {{ auto* h = static_cast<Handle*>(p); NT_DUMP(h); {edges} }}").unwrap();
    writeln!(
        s,
        "int {f_trace_open}(void* p, const char* path) {{ auto* h = static_cast<Handle*>(p);\n#if VM_TRACE\n if (h->vcd) return 1; \
         h->vcd = new VerilatedVcdC; h->model->trace(h->vcd, 99); h->vcd->open(path); return h->vcd->isOpen() ? 0 : 2;\n\
         #else\n (void)h; (void)path; return 3;\n#endif\n}}"
    )
    .unwrap();
    writeln!(
        s,
        "void {f_trace_flush}(void* p) {{ auto* h = static_cast<Handle*>(p);\n#if VM_TRACE\n if (h->vcd) h->vcd->flush();\n#else\n (void)h;\n#endif\n}}"
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
