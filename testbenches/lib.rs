//! Shared helpers for the scenario tests in tests/.

use std::path::PathBuf;

/// The repository root.
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// The seed of a random test: `NANOTRANSPORT_SEED` if set, else `default`. Always printed, so a
/// failure can be replayed with `NANOTRANSPORT_SEED=<seed> cargo test …`.
pub fn seed(test: &str, default: u64) -> u64 {
    let seed = std::env::var("NANOTRANSPORT_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(default);
    println!("{test}: seed {seed}");
    seed
}
pub mod io;
pub mod axil;
pub mod rx;
