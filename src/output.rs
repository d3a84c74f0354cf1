//! How the commands print: `--json` answers carry the results layout's schema version.

use crate::results;

/// A progress bar on stderr for a run of `len` steps: "prefix [====>   ] message (elapsed)".
pub(crate) fn progress_bar(prefix: String, len: u64) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::new(len);
    bar.set_style(indicatif::ProgressStyle::with_template("{prefix} [{bar:30}] {msg} ({elapsed})").unwrap().progress_chars("=> "));
    bar.set_prefix(prefix);
    bar
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
