//! Every Rust file is as `cargo fmt` writes it with the repository's `rustfmt.toml`.

use nanotransport_testbenches::repo_root;
use std::process::Command;

#[test]
fn every_rust_file_is_formatted() {
    let out = Command::new("cargo")
        .args(["fmt", "--all", "--check"])
        .current_dir(repo_root())
        .output()
        .unwrap_or_else(|e| panic!("cannot run cargo fmt ({e}); scripts/setup-tools.sh installs rustfmt"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let files: Vec<&str> = stdout.lines().filter_map(|l| l.strip_prefix("Diff in ")).collect();
    assert!(out.status.success(), "not formatted (run `cargo fmt --all`): {files:?}\n{}", String::from_utf8_lossy(&out.stderr));
}
