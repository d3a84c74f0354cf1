//! Generated Verilog files as the tools find them: every file of a folder, and a file's top
//! module.

use std::path::{Path, PathBuf};

/// The top module of a generated file: its stem.
pub fn top_of(file: &Path) -> String {
    file.file_stem().and_then(|s| s.to_str()).unwrap_or_default().to_string()
}

/// Every `.v` file under `dir`, one level of folders deep, sorted.
pub fn verilog_files_under(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    if let Ok(rd) = std::fs::read_dir(dir) {
        dirs.extend(rd.flatten().map(|e| e.path()).filter(|p| p.is_dir()));
    }
    for d in dirs {
        if let Ok(rd) = std::fs::read_dir(&d) {
            files.extend(rd.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|e| e == "v")));
        }
    }
    files.sort();
    files
}
