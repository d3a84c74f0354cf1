//! Builds a Verilator model of every generated Verilog file and links them into this crate.
//!
//! Sources: `verilog-out/<configuration>/<module>.v` (the shipped Verilog) and
//! `sim/cosim/fixtures/*.v` (co-simulation self-test fixtures). For each file this script
//! 1. reads the top module's port list from the Verilog text,
//! 2. verilates it (`--cc --trace`) and compiles it with Verilator's own makefile,
//! 3. writes a C++ shim — `extern "C"` new/free/eval/tick/trace functions and one setter and one
//!    getter per port (ports wider than 64 bits as 32-bit words) — and compiles it.
//!
//! Results are cached in `<target>/verilator-models/<module>-<hash>/`, keyed by the Verilog text,
//! the Verilator version and this script's shim version, so a model is rebuilt only when its
//! Verilog changes. All models and one Verilator runtime go into a single static archive, and
//! `models.rs` (in OUT_DIR) describes every model and port for the safe Rust wrapper.

use sha2::{Digest, Sha256};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Bump when the generated shim or the compile flags change, to invalidate cached models.
const SHIM_VERSION: &str = "5";
const CXX_FLAGS: &[&str] = &[
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

struct Port {
    name: String,
    input: bool,
    width: usize,
}

struct ModelSource {
    path: PathBuf,
    top: String,
    text: String,
    ports: Vec<Port>,
}

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    let verilog_out = manifest.join("../verilog-out");
    let fixtures = manifest.join("cosim/fixtures");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed={}", verilog_out.display());
    println!("cargo:rerun-if-changed={}", fixtures.display());
    println!("cargo:rerun-if-env-changed=VERILATOR_ROOT");

    let mut files = Vec::new();
    if let Ok(configs) = std::fs::read_dir(&verilog_out) {
        for config in configs.flatten() {
            if config.path().is_dir() {
                println!("cargo:rerun-if-changed={}", config.path().display());
                files.extend(verilog_files(&config.path()));
            }
        }
    }
    files.extend(verilog_files(&fixtures));
    files.sort();
    for f in &files {
        println!("cargo:rerun-if-changed={}", f.display());
    }

    let sources: Vec<ModelSource> = files.iter().map(|p| parse_source(p)).collect();
    let (verilator_version, verilator_root) = check_verilator();
    let cache = cache_root(&out_dir);
    std::fs::create_dir_all(&cache).unwrap();

    let mut objects = Vec::new();
    for src in &sources {
        objects.extend(build_model(src, &cache, &verilator_version, &verilator_root));
    }
    objects.extend(build_runtime(&cache, &verilator_version, &verilator_root));

    let archive = out_dir.join("libnt_verilated.a");
    let _ = std::fs::remove_file(&archive);
    let mut ar = Command::new("ar");
    ar.arg("crs").arg(&archive).args(&objects);
    run(&mut ar, "ar");
    println!("cargo:rustc-link-search=native={}", out_dir.display());
    println!("cargo:rustc-link-lib=static=nt_verilated");
    println!("cargo:rustc-link-lib=dylib=stdc++");
    println!("cargo:rustc-link-lib=dylib=pthread");

    std::fs::write(out_dir.join("models.rs"), rust_bindings(&sources)).unwrap();
}

fn verilog_files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|e| e == "v")).collect())
        .unwrap_or_default();
    v.sort();
    v
}

/// Reads the first module's name and ports from rust-hdl's regular output
/// (`input wire  [7:0] a;` / `output reg  y;`).
fn parse_source(path: &Path) -> ModelSource {
    let text = std::fs::read_to_string(path).unwrap();
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
                let msb: usize = range.trim_start_matches('[').split(':').next().unwrap().parse().unwrap();
                (msb + 1, *name)
            }
            _ => panic!("{}: cannot parse port line '{t}'", path.display()),
        };
        ports.push(Port { name: name.to_string(), input, width });
    }
    let top = top.unwrap_or_else(|| panic!("{}: no module", path.display()));
    let stem = path.file_stem().unwrap().to_str().unwrap();
    assert_eq!(stem, top, "{}: the file must be named after its top module", path.display());
    ModelSource { path: path.to_path_buf(), top, text, ports }
}

fn check_verilator() -> (String, PathBuf) {
    let out = Command::new("verilator").arg("--version").output().unwrap_or_else(|_| {
        panic!("Verilator was not found on PATH. Verilator 5 or newer is required: run `scripts/setup-tools.sh` (installs it with apt-get).")
    });
    let version = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let major: u32 = version
        .split_whitespace()
        .nth(1)
        .and_then(|v| v.split('.').next())
        .and_then(|m| m.parse().ok())
        .unwrap_or(0);
    if major < 5 {
        panic!("found '{version}', but Verilator 5 or newer is required (Ubuntu 22.04 ships 4.038; use Debian 12 or Ubuntu 24.04).");
    }
    let root = std::env::var("VERILATOR_ROOT").ok().filter(|r| !r.is_empty()).unwrap_or_else(|| {
        let out = Command::new("verilator").arg("--getenv").arg("VERILATOR_ROOT").output().unwrap();
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    });
    (version, PathBuf::from(root))
}

/// `<target>/verilator-models`, shared by every profile; OUT_DIR is `<target>/<profile>/build/<pkg>/out`.
fn cache_root(out_dir: &Path) -> PathBuf {
    let target = out_dir.ancestors().nth(4).unwrap_or(out_dir);
    target.join("verilator-models")
}

fn hash_of(parts: &[&str]) -> String {
    let mut h = Sha256::new();
    for p in parts {
        h.update(p.as_bytes());
        h.update([0u8]);
    }
    h.finalize().iter().take(8).map(|b| format!("{b:02x}")).collect()
}

fn run(cmd: &mut Command, what: &str) {
    let out = cmd.output().unwrap_or_else(|e| panic!("{what}: cannot start: {e}"));
    if !out.status.success() {
        panic!(
            "{what} failed:\n{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

fn cxx() -> String {
    std::env::var("CXX").unwrap_or_else(|_| "g++".into())
}

fn include_flags(root: &Path) -> Vec<String> {
    vec![format!("-I{}/include", root.display()), format!("-I{}/include/vltstd", root.display())]
}

/// Verilates and compiles one model (cached); returns its object files.
fn build_model(src: &ModelSource, cache: &Path, version: &str, root: &Path) -> Vec<PathBuf> {
    // Files read by `$readmemh` are found at run time through NT_MEM_DIR, the source's folder;
    // only models that read such files depend on where the source lives.
    let mem_dir = src.path.parent().map(|d| d.canonicalize().unwrap_or(d.to_path_buf())).unwrap_or_default();
    let mem_define = format!("-DNT_MEM_DIR=\"{}\"", mem_dir.display());
    let reads_files = src.text.contains("$readmem");
    let hash = if reads_files {
        hash_of(&[&src.text, version, SHIM_VERSION, &CXX_FLAGS.join(" "), &mem_define])
    } else {
        hash_of(&[&src.text, version, SHIM_VERSION, &CXX_FLAGS.join(" ")])
    };
    let dir = cache.join(format!("{}-{hash}", src.top));
    let obj = dir.join("obj");
    let stamp = dir.join("built.stamp");
    let prefix = format!("V{}", src.top);
    if !stamp.exists() {
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&obj).unwrap();
        let mut v = Command::new("verilator");
        v.args(["--cc", "--trace", "-O3", "--x-assign", "0", "--x-initial", "0"])
            .args(["-Wno-fatal", "-Wno-lint", "-Wno-style"])
            .arg(&mem_define)
            .arg("--prefix")
            .arg(&prefix)
            .arg("--top-module")
            .arg(&src.top)
            .arg("-Mdir")
            .arg(&obj)
            .arg(&src.path);
        run(&mut v, &format!("verilator on {}", src.path.display()));
        let mut make = Command::new("make");
        make.arg("-C")
            .arg(&obj)
            .arg("-f")
            .arg(format!("{prefix}.mk"))
            .arg(format!("{prefix}__ALL.a"))
            .arg("OPT_FAST=-O3")
            .arg(format!("CXX={}", cxx()))
            .arg("-j2");
        run(&mut make, &format!("compiling the Verilator model of {}", src.top));
        let shim = dir.join("shim.cpp");
        std::fs::write(&shim, cpp_shim(src)).unwrap();
        let mut cc = Command::new(cxx());
        cc.args(CXX_FLAGS)
            .args(include_flags(root))
            .arg(format!("-I{}", obj.display()))
            .arg("-c")
            .arg(&shim)
            .arg("-o")
            .arg(dir.join("shim.o"));
        run(&mut cc, &format!("compiling the shim of {}", src.top));
        std::fs::write(&stamp, &hash).unwrap();
    }
    let mut objects = vec![dir.join("shim.o")];
    for e in std::fs::read_dir(&obj).unwrap().flatten() {
        let p = e.path();
        let name = p.file_name().unwrap().to_str().unwrap().to_string();
        if name.ends_with(".o") && name.starts_with(&prefix) {
            objects.push(p);
        }
    }
    objects.sort();
    objects
}

/// Compiles the Verilator runtime once (cached by Verilator version and flags).
fn build_runtime(cache: &Path, version: &str, root: &Path) -> Vec<PathBuf> {
    let hash = hash_of(&[version, SHIM_VERSION, &CXX_FLAGS.join(" "), &root.display().to_string()]);
    let dir = cache.join(format!("runtime-{hash}"));
    let units = ["verilated", "verilated_vcd_c", "verilated_threads"];
    let stamp = dir.join("built.stamp");
    if !stamp.exists() {
        std::fs::create_dir_all(&dir).unwrap();
        for u in units {
            let mut cc = Command::new(cxx());
            cc.args(CXX_FLAGS)
                .args(include_flags(root))
                .arg("-c")
                .arg(root.join("include").join(format!("{u}.cpp")))
                .arg("-o")
                .arg(dir.join(format!("{u}.o")));
            run(&mut cc, &format!("compiling the Verilator runtime ({u}.cpp)"));
        }
        std::fs::write(&stamp, &hash).unwrap();
    }
    units.iter().map(|u| dir.join(format!("{u}.o"))).collect()
}

/// C++ member name Verilator gives a port (`$` is escaped as `__024`).
fn cpp_member(port: &str) -> String {
    port.replace('$', "__024")
}

/// Rust/C symbol fragment for a port.
fn symbol(port: &str) -> String {
    port.replace('$', "__")
}

fn cpp_shim(src: &ModelSource) -> String {
    let top = &src.top;
    let class = format!("V{top}");
    let has_clock = src.ports.iter().any(|p| p.name == "clock" && p.input && p.width == 1);
    let mut s = String::new();
    writeln!(s, "// Shim for {top}: generated by sim/build.rs.").unwrap();
    writeln!(s, "#include <cstdint>\n#include \"verilated.h\"\n#include \"verilated_vcd_c.h\"\n#include \"{class}.h\"").unwrap();
    writeln!(
        s,
        "namespace {{ struct Handle {{ VerilatedContext* ctx; {class}* model; VerilatedVcdC* vcd; uint64_t time; bool fall_pending; }}; }}"
    )
    .unwrap();
    writeln!(s, "extern \"C\" {{").unwrap();
    writeln!(
        s,
        "void* {top}_new() {{ auto* h = new Handle; h->ctx = new VerilatedContext; h->ctx->traceEverOn(true); \
         h->model = new {class}(h->ctx, \"{top}\"); h->vcd = nullptr; h->time = 0; h->fall_pending = false; h->model->eval(); return h; }}"
    )
    .unwrap();
    writeln!(
        s,
        "void {top}_free(void* p) {{ auto* h = static_cast<Handle*>(p); if (h->vcd) {{ h->vcd->close(); delete h->vcd; }} \
         h->model->final(); delete h->model; delete h->ctx; delete h; }}"
    )
    .unwrap();
    writeln!(
        s,
        "void {top}_eval(void* p) {{ auto* h = static_cast<Handle*>(p); h->model->eval(); h->fall_pending = false; }}"
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
        "void {top}_tick(void* p) {{ auto* h = static_cast<Handle*>(p); if (h->vcd) h->vcd->dump(h->time); {edges} }}"
    )
    .unwrap();
    writeln!(
        s,
        "int {top}_trace_open(void* p, const char* path) {{ auto* h = static_cast<Handle*>(p); if (h->vcd) return 1; \
         h->vcd = new VerilatedVcdC; h->model->trace(h->vcd, 99); h->vcd->open(path); return h->vcd->isOpen() ? 0 : 2; }}"
    )
    .unwrap();
    writeln!(
        s,
        "void {top}_trace_flush(void* p) {{ auto* h = static_cast<Handle*>(p); if (h->vcd) h->vcd->flush(); }}"
    )
    .unwrap();
    for p in &src.ports {
        let m = cpp_member(&p.name);
        let f = symbol(&p.name);
        if p.width <= 64 {
            if p.input {
                writeln!(s, "void {top}_set_{f}(void* p, uint64_t v) {{ static_cast<Handle*>(p)->model->{m} = v; }}").unwrap();
            }
            writeln!(s, "uint64_t {top}_get_{f}(void* p) {{ return static_cast<Handle*>(p)->model->{m}; }}").unwrap();
        } else {
            if p.input {
                writeln!(
                    s,
                    "void {top}_set_{f}(void* p, uint32_t i, uint32_t v) {{ static_cast<Handle*>(p)->model->{m}[i] = v; }}"
                )
                .unwrap();
            }
            writeln!(
                s,
                "uint64_t {top}_get_{f}(void* p, uint32_t i) {{ return static_cast<Handle*>(p)->model->{m}[i]; }}"
            )
            .unwrap();
        }
    }
    writeln!(s, "}}").unwrap();
    s
}

fn rust_bindings(sources: &[ModelSource]) -> String {
    let mut s = String::new();
    writeln!(s, "// Generated by sim/build.rs: one entry per Verilator model.").unwrap();
    writeln!(s, "#[allow(improper_ctypes)]\nextern \"C\" {{").unwrap();
    for src in sources {
        let t = &src.top;
        writeln!(s, "    fn {t}_new() -> *mut c_void;").unwrap();
        writeln!(s, "    fn {t}_free(p: *mut c_void);").unwrap();
        writeln!(s, "    fn {t}_eval(p: *mut c_void);").unwrap();
        writeln!(s, "    fn {t}_tick(p: *mut c_void);").unwrap();
        writeln!(s, "    fn {t}_trace_open(p: *mut c_void, path: *const c_char) -> c_int;").unwrap();
        writeln!(s, "    fn {t}_trace_flush(p: *mut c_void);").unwrap();
        for p in &src.ports {
            let f = symbol(&p.name);
            if p.width <= 64 {
                if p.input {
                    writeln!(s, "    fn {t}_set_{f}(p: *mut c_void, v: u64);").unwrap();
                }
                writeln!(s, "    fn {t}_get_{f}(p: *mut c_void) -> u64;").unwrap();
            } else {
                if p.input {
                    writeln!(s, "    fn {t}_set_{f}(p: *mut c_void, i: u32, v: u32);").unwrap();
                }
                writeln!(s, "    fn {t}_get_{f}(p: *mut c_void, i: u32) -> u64;").unwrap();
            }
        }
    }
    writeln!(s, "}}\n").unwrap();
    writeln!(s, "/// Every Verilator model linked into this crate.\npub static MODELS: &[ModelSpec] = &[").unwrap();
    for src in sources {
        let t = &src.top;
        writeln!(
            s,
            "    ModelSpec {{ name: \"{t}\", source: {:?}, new: {t}_new, free: {t}_free, eval: {t}_eval, tick: {t}_tick, \
             trace_open: {t}_trace_open, trace_flush: {t}_trace_flush, ports: &[",
            src.path.display().to_string()
        )
        .unwrap();
        for p in &src.ports {
            let f = symbol(&p.name);
            let (set, get) = if p.width <= 64 {
                (
                    if p.input { format!("PortSetter::Narrow({t}_set_{f})") } else { "PortSetter::None".into() },
                    format!("PortGetter::Narrow({t}_get_{f})"),
                )
            } else {
                (
                    if p.input { format!("PortSetter::Wide({t}_set_{f})") } else { "PortSetter::None".into() },
                    format!("PortGetter::Wide({t}_get_{f})"),
                )
            };
            writeln!(
                s,
                "        PortSpec {{ name: \"{}\", input: {}, width: {}, set: {set}, get: {get} }},",
                p.name, p.input, p.width
            )
            .unwrap();
        }
        writeln!(s, "    ] }},").unwrap();
    }
    writeln!(s, "];").unwrap();
    s
}
