//! `verilator --lint-only -Wall` and Yosys `synth_xilinx -family xcup` on generated Verilog.

pub use crate::verilog_files::{top_of, verilog_files_under};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Verilator waiver file, relative to the repository root.
pub const WAIVERS: &str = "fpga/verilator_waivers.vlt";

/// Result of one tool on one file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolResult {
    pub ok: bool,
    /// One line: "clean", a cell summary, or the first error.
    pub summary: String,
}

/// Lint and synthesis results for one file.
#[derive(Clone, Debug)]
pub struct FileReport {
    pub file: PathBuf,
    pub verilator: ToolResult,
    /// The design rule: no runtime shift of a vector wider than 64 bits ([`wide_runtime_shifts`]).
    pub rule: ToolResult,
    pub yosys: Option<ToolResult>,
}

impl FileReport {
    pub fn ok(&self) -> bool {
        self.verilator.ok && self.rule.ok && self.yosys.as_ref().is_none_or(|y| y.ok)
    }
}

/// [`wide_runtime_shifts`] as a one-line result.
pub fn design_rule(file: &Path) -> ToolResult {
    let text = std::fs::read_to_string(file).unwrap_or_default();
    verdict("shift-rule", &[&text, SHIFT_SELECTION], || match wide_runtime_shifts(file) {
        Ok(v) if v.is_empty() => ToolResult { ok: true, summary: "clean".into() },
        Ok(v) => ToolResult { ok: false, summary: format!("{} runtime shifts of vectors wider than 64 bits (first: {})", v.len(), v[0]) },
        Err(e) => ToolResult { ok: false, summary: e },
    })
}

/// `run`'s result, or the stored verdict of the same run on the same inputs
/// ([`super::verdicts`]).
fn verdict(kind: &str, inputs: &[&str], run: impl FnOnce() -> ToolResult) -> ToolResult {
    let result = super::verdicts::cached(kind, inputs, || {
        let r = run();
        if r.ok {
            Ok(r.summary)
        } else {
            Err(r.summary)
        }
    });
    match result {
        Ok(summary) => ToolResult { ok: true, summary },
        Err(summary) => ToolResult { ok: false, summary },
    }
}

/// The cells the design rule looks for: shifts by a non-constant amount of results wider than 64
/// bits.
const SHIFT_SELECTION: &str = "t:$shl t:$sshl t:$shr t:$sshr t:$shift %u %u %u %u r:Y_WIDTH>64 %i";

/// The design rule's check (the `hdl` crate's conventions): every shift in `file` of a vector
/// wider than 64 bits by an amount that is not a constant, as Yosys cell names. rust-hdl writes
/// a runtime-indexed update (`replace_bit` at a signal index) as such a shift, and so does a
/// field placed at a runtime offset; constant shifts are folded away by `opt_expr` first. An
/// empty list means the file keeps the rule. `Err` when Yosys cannot read the file.
pub fn wide_runtime_shifts(file: &Path) -> Result<Vec<String>, String> {
    let dir = std::env::temp_dir().join(format!("nt-shifts-{}-{}", std::process::id(), top_of(file)));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let list = dir.join("shifts.txt");
    let script = format!(
        "read_verilog {}; hierarchy -top {}; opt_expr; tee -q -o {} select -list {SHIFT_SELECTION}",
        file.display(),
        top_of(file),
        list.display()
    );
    let out = Command::new("yosys").arg("-q").arg("-p").arg(&script).output().map_err(|e| spawn_error("yosys", e).summary)?;
    let text = std::fs::read_to_string(&list).unwrap_or_default();
    let _ = std::fs::remove_dir_all(&dir);
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(err.lines().find(|l| l.contains("ERROR")).unwrap_or("yosys failed").to_string());
    }
    Ok(text.lines().filter(|l| !l.trim().is_empty()).map(str::to_string).collect())
}

/// Names a missing tool clearly.
fn spawn_error(tool: &str, e: std::io::Error) -> ToolResult {
    ToolResult { ok: false, summary: format!("cannot run {tool} ({e}); install it with scripts/setup-tools.sh") }
}

/// `verilator --lint-only -Wall` with the project's waivers.
pub fn verilator_lint(repo: &Path, file: &Path) -> ToolResult {
    let text = std::fs::read_to_string(file).unwrap_or_default();
    let waivers = std::fs::read_to_string(repo.join(WAIVERS)).unwrap_or_default();
    verdict("verilator-lint", &[&text, &waivers, &top_of(file)], || run_verilator_lint(repo, file))
}

fn run_verilator_lint(repo: &Path, file: &Path) -> ToolResult {
    let out = Command::new("verilator")
        .arg("--lint-only")
        .arg("-Wall")
        .arg(repo.join(WAIVERS))
        .arg("--top-module")
        .arg(top_of(file))
        .arg(file)
        .output();
    match out {
        Err(e) => spawn_error("verilator", e),
        Ok(o) => {
            let text = String::from_utf8_lossy(&o.stderr).to_string() + &String::from_utf8_lossy(&o.stdout);
            let warnings: Vec<&str> = text.lines().filter(|l| l.starts_with("%Warning") || l.starts_with("%Error")).collect();
            if o.status.success() && warnings.is_empty() {
                ToolResult { ok: true, summary: "clean".into() }
            } else {
                ToolResult {
                    ok: false,
                    summary: format!("{} message(s); first: {}", warnings.len(), warnings.first().unwrap_or(&"(none)")),
                }
            }
        }
    }
}

/// Yosys `synth_xilinx -family xcup` without its SAT-based `share` pass (the project's flow,
/// [`crate::synth::xcup_flow`]); the summary counts LUTs, flip-flops and RAM cells.
pub fn yosys_synth(file: &Path) -> ToolResult {
    let text = std::fs::read_to_string(file).unwrap_or_default();
    // The script with the file's place left out: the same text anywhere is the same run.
    let script = crate::synth::xcup_flow(Path::new("FILE"), &top_of(file));
    verdict("xcup-synth", &[&text, &script], || run_yosys_synth(file))
}

fn run_yosys_synth(file: &Path) -> ToolResult {
    let script = format!("{}; stat", crate::synth::xcup_flow(file, &top_of(file)));
    let out = Command::new("yosys").arg("-p").arg(&script).output();
    match out {
        Err(e) => spawn_error("yosys", e),
        Ok(o) if !o.status.success() => {
            let text = String::from_utf8_lossy(&o.stderr).to_string() + &String::from_utf8_lossy(&o.stdout);
            let first = text.lines().find(|l| l.contains("ERROR")).unwrap_or("yosys failed").to_string();
            ToolResult { ok: false, summary: first }
        }
        Ok(o) => {
            let text = String::from_utf8_lossy(&o.stdout);
            ToolResult { ok: true, summary: summarise_stat(&text) }
        }
    }
}

/// Sums the cell counts of Yosys' `stat` for the top (the last "Number of cells" block).
fn summarise_stat(stat: &str) -> String {
    let (mut luts, mut ffs, mut rams, mut cells) = (0u64, 0u64, 0u64, 0u64);
    // `stat` prints per module then a design hierarchy total; take the last listing.
    let last = stat.rfind("Number of cells").map(|i| &stat[i..]).unwrap_or(stat);
    for line in last.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.len() == 4 && words[0] == "Number" && words[2] == "cells:" {
            cells = words[3].parse().unwrap_or(0);
        }
        if words.len() == 2 {
            let n: u64 = words[1].parse().unwrap_or(0);
            let cell = words[0];
            if cell.starts_with("LUT") {
                luts += n;
            } else if cell.starts_with("FD") {
                ffs += n;
            } else if cell.starts_with("RAM") {
                rams += n;
            }
        }
    }
    format!("{cells} cells (LUT {luts}, FF {ffs}, RAM {rams})")
}

/// Lints (and optionally synthesises) every file, on as many threads as the machine has cores
/// (each tool run is a separate process); the reports come back in the order of `files`.
pub fn check_files(repo: &Path, files: &[PathBuf], synthesise: bool) -> Vec<FileReport> {
    each_file(files, |f| FileReport {
        file: f.to_path_buf(),
        verilator: verilator_lint(repo, f),
        rule: design_rule(f),
        yosys: synthesise.then(|| yosys_synth(f)),
    })
}

/// [`yosys_synth`] of every file (no lint), in parallel as [`check_files`].
pub fn synthesise_files(files: &[PathBuf]) -> Vec<(PathBuf, ToolResult)> {
    each_file(files, |f| (f.to_path_buf(), yosys_synth(f)))
}

/// `check` of every file, on as many threads as the machine has cores, in the order of `files`.
fn each_file<T: Send>(files: &[PathBuf], check: impl Fn(&Path) -> T + Sync) -> Vec<T> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results: Vec<std::sync::Mutex<Option<T>>> = files.iter().map(|_| std::sync::Mutex::new(None)).collect();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(files.len().max(1));
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(f) = files.get(i) else { break };
                let r = check(f);
                *results[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
            });
        }
    });
    results.into_iter().map(|r| r.into_inner().unwrap_or_else(|e| e.into_inner()).expect("every file checked")).collect()
}
