//! Tells the crate where the Verilator model cache is: `<target>/verilator-models`, shared by
//! every profile. Models themselves are built on first use (`src/build.rs`, `src/cache.rs`),
//! so the Rust build needs no Verilator and a test builds only the models it opens.

use std::path::{Path, PathBuf};

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    let cache = cache_root(&out_dir);
    println!("cargo:rustc-env=NT_MODEL_CACHE={}", cache.display());
}

/// OUT_DIR is `<target>/<profile>/build/<pkg>/out`.
fn cache_root(out_dir: &Path) -> PathBuf {
    let target = out_dir.ancestors().nth(4).unwrap_or(out_dir);
    target.join("verilator-models")
}
