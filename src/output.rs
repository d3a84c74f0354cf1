//! How the commands print: `--json` answers carry the results layout's schema version.

use crate::results;

/// A progress bar on stderr for a run of `len` steps: "prefix [====>   ] message (elapsed)".
pub(crate) fn progress_bar(prefix: String, len: u64) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::new(len);
    bar.set_style(indicatif::ProgressStyle::with_template("{prefix} [{bar:30}] {msg} ({elapsed})").unwrap().progress_chars("=> "));
    bar.set_prefix(prefix);
    bar
}

/// Runs `run` with a progress bar on stderr over `total` simulated units (`unit`: "s" or "µs"):
/// `run` is handed the callback the experiment reports its simulated time to.
pub(crate) fn with_progress<T>(prefix: String, total: f64, unit: &str, run: impl FnOnce(&mut dyn FnMut(f64)) -> T) -> T {
    // Positions in thousandths of a unit, so that short runs still move the bar.
    let bar = progress_bar(prefix, (total * 1000.0) as u64);
    let r = run(&mut |t| {
        bar.set_position((t * 1000.0) as u64);
        bar.set_message(format!("{t:.2} {unit} simulated"));
    });
    bar.finish_and_clear();
    r
}

/// Writes `value` as pretty JSON to `path`, making its folder; errors name the path.
pub(crate) fn write_json<T: serde::Serialize + ?Sized>(path: &std::path::Path, value: &T) -> Result<(), String> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    std::fs::write(path, serde_json::to_string_pretty(value).map_err(|e| e.to_string())?).map_err(|e| format!("{}: {e}", path.display()))
}

/// Prints a `--json` answer: one object carrying the layout's `schema_version`
/// ([`results::SCHEMA_VERSION`]).
pub(crate) fn print_json(value: serde_json::Value) {
    let mut object = match value {
        serde_json::Value::Object(m) => m,
        other => serde_json::Map::from_iter([("value".to_string(), other)]),
    };
    object.insert("schema_version".into(), results::SCHEMA_VERSION.into());
    println!("{}", serde_json::Value::Object(object));
}
