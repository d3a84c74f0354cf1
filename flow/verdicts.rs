//! Verdicts of pure tool runs, kept between runs: the same input text checked by the same tool
//! versions with the same script gives the same answer, so a test that lints, synthesises or
//! proves unchanged Verilog takes the stored answer instead of minutes of Yosys. Only successful
//! runs are stored (a failure is always re-run and reported afresh); the key covers every input
//! (file text, script, waivers, Verilator's and Yosys' version lines), so any change re-runs the
//! tool. Kept in `<model cache>/verdicts/` (`target/verilator-models/verdicts/`);
//! `NANOTRANSPORT_RERUN_TOOLS=1` re-runs every tool.

use nanotransport_models::build::hash_of;
use nanotransport_models::cache::{cache_dir, tool_versions};

/// The output of `run`, from the store when the same `kind` of run with the same `inputs`
/// succeeded before; otherwise runs it and stores a success.
pub fn cached(kind: &str, inputs: &[&str], run: impl FnOnce() -> Result<String, String>) -> Result<String, String> {
    let Ok(versions) = tool_versions() else { return run() };
    let mut parts = vec![kind, versions.as_str()];
    parts.extend_from_slice(inputs);
    let file = cache_dir().join("verdicts").join(format!("{kind}-{}", hash_of(&parts)));
    if std::env::var_os("NANOTRANSPORT_RERUN_TOOLS").is_none() {
        if let Ok(text) = std::fs::read_to_string(&file) {
            return Ok(text);
        }
    }
    let result = run();
    if let Ok(text) = &result {
        // Written whole and renamed, so a reader never sees half of it.
        let partial = file.with_extension(format!("partial-{}", std::process::id()));
        let stored = file.parent().map(std::fs::create_dir_all).transpose().is_ok()
            && std::fs::write(&partial, text).is_ok()
            && std::fs::rename(&partial, &file).is_ok();
        if !stored {
            let _ = std::fs::remove_file(&partial);
        }
    }
    result
}
