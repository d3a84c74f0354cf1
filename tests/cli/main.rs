//! The `nanotransport` command line, run as a user runs it, in one test binary: every command's
//! help and one-line errors ([`cli`]), the incast commands ([`incast_cli`]), `synth` and
//! `fpga ooc` ([`synth`]), `fpga board` ([`board`]).

mod board;
mod cli;
mod incast_cli;
mod synth;

use std::process::Output;

/// Runs `nanotransport ARGS` from the repository root and waits for it.
pub fn nanotransport(args: &[&str]) -> Output {
    assert_cmd::Command::cargo_bin("nanotransport").unwrap().args(args).current_dir(env!("CARGO_MANIFEST_DIR")).output().unwrap()
}

/// The command's `--json` answer: one JSON object on stdout carrying the layout's schema version.
pub fn json_output(o: &Output) -> serde_json::Value {
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!("not JSON ({e}): {}\nstderr: {}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
    });
    assert_eq!(v["schema_version"], 3, "every --json answer carries schema_version: {v}");
    v
}

/// A new empty folder, removed with everything in it when dropped.
pub fn temp_dir() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

/// The command failed (not by a signal) with a one-line message naming each of `mentions`.
pub fn assert_one_line_error(o: &Output, mentions: &[&str]) {
    assert_ne!(o.status.code(), Some(0));
    assert!(o.status.code().is_some(), "ended by a signal");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    for m in mentions {
        assert!(err.contains(m), "'{m}' not in: {err}");
    }
}
