//! The code's structure: no module of a crate uses, directly or through others, a module that
//! uses it back. Cargo keeps the crates themselves acyclic; inside a crate nothing does, so this
//! test reads every `crate::…` and `super::…` path outside comments in each crate's sources,
//! resolves it to the file of the module it names, and looks for circles among those files.

use nanotransport_testbenches::repo_root;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Each crate's root folder and its root file (the test crate itself, `testbenches`, aside).
const CRATES: [(&str, &str); 8] = [
    ("hdl", "lib.rs"),
    ("hdl/derive", "lib.rs"),
    ("reference", "lib.rs"),
    ("models/src", "lib.rs"),
    ("sim", "lib.rs"),
    ("net", "lib.rs"),
    ("flow", "lib.rs"),
    ("src", "main.rs"),
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        // A folder with a manifest of its own is another crate (hdl/derive inside hdl).
        if path.is_dir() && !path.join("Cargo.toml").exists() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module path of a file relative to its crate's root folder (`nic/reassembly.rs` →
/// `["nic", "reassembly"]`; `mod.rs` and the root file name their folder).
fn module_of(relative: &Path, root_file: &str) -> Vec<String> {
    let mut parts: Vec<String> = relative.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    let last = parts.pop().unwrap_or_default();
    if last != "mod.rs" && last != root_file {
        parts.push(last.trim_end_matches(".rs").to_string());
    }
    parts
}

/// The file among `modules` that the path `segments` lands in: its longest prefix that is a module.
fn resolve(segments: &[String], modules: &BTreeMap<Vec<String>, PathBuf>) -> Option<PathBuf> {
    (1..=segments.len()).rev().find_map(|k| modules.get(&segments[..k]).cloned())
}

/// Files each file uses, by the `crate::` and `super::` paths of its code lines.
fn uses(dir: &Path, root_file: &str) -> BTreeMap<PathBuf, BTreeSet<PathBuf>> {
    let mut files = Vec::new();
    rust_files(dir, &mut files);
    let modules: BTreeMap<Vec<String>, PathBuf> =
        files.iter().map(|f| (module_of(f.strip_prefix(dir).unwrap(), root_file), f.clone())).collect();
    let path = regex::Regex::new(r"\b(crate|super)((?:::[A-Za-z_][A-Za-z0-9_]*)+)(::\{([^}]*)\})?").unwrap();
    let mut graph = BTreeMap::new();
    for file in &files {
        let here = module_of(file.strip_prefix(dir).unwrap(), root_file);
        let mut used = BTreeSet::new();
        for line in std::fs::read_to_string(file).unwrap().lines().filter(|l| !l.trim_start().starts_with("//")) {
            for c in path.captures_iter(line) {
                let mut base: Vec<String> = if &c[1] == "crate" {
                    Vec::new()
                } else {
                    // `super` is the parent of this file's module (for `a/mod.rs`, module `a`, the
                    // crate root; for `a/b.rs`, module `a::b`, the module `a`).
                    here[..here.len().saturating_sub(1)].to_vec()
                };
                base.extend(c[2].split("::").filter(|s| !s.is_empty()).map(String::from));
                let groups: Vec<Vec<String>> = match c.get(4) {
                    Some(list) => list
                        .as_str()
                        .split(',')
                        .map(|item| item.trim().split("::").map(String::from).filter(|s| !s.is_empty() && s != "self").collect())
                        .collect(),
                    None => vec![Vec::new()],
                };
                for tail in groups {
                    let full: Vec<String> = base.iter().cloned().chain(tail).collect();
                    if let Some(target) = resolve(&full, &modules).filter(|t| t != file) {
                        used.insert(target);
                    }
                }
            }
        }
        graph.insert(file.clone(), used);
    }
    graph
}

/// The circles of `graph`: its strongly connected components of more than one file.
fn circles(graph: &BTreeMap<PathBuf, BTreeSet<PathBuf>>) -> Vec<Vec<PathBuf>> {
    let reach = |from: &PathBuf| {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from.clone()];
        while let Some(f) = stack.pop() {
            for next in graph.get(&f).into_iter().flatten() {
                if seen.insert(next.clone()) {
                    stack.push(next.clone());
                }
            }
        }
        seen
    };
    let reaches: BTreeMap<&PathBuf, BTreeSet<PathBuf>> = graph.keys().map(|f| (f, reach(f))).collect();
    let mut found: Vec<Vec<PathBuf>> = Vec::new();
    for (f, r) in &reaches {
        let circle: Vec<PathBuf> = r.iter().filter(|g| reaches.get(g).is_some_and(|back| back.contains(*f))).cloned().collect();
        if circle.len() > 1 && !found.iter().any(|c| c.contains(f)) {
            found.push(circle);
        }
    }
    found
}

#[test]
fn no_module_uses_a_module_that_uses_it_back() {
    let root = repo_root();
    let (mut files, mut edges) = (0, 0);
    let mut all = Vec::new();
    for (dir, root_file) in CRATES {
        let graph = uses(&root.join(dir), root_file);
        files += graph.len();
        edges += graph.values().map(BTreeSet::len).sum::<usize>();
        all.extend(circles(&graph));
    }
    println!("{files} files, {edges} module uses read");
    assert!(files > 100 && edges > 150, "only {files} files and {edges} uses read");
    assert!(all.is_empty(), "module circles: {all:#?}");
}

/// Every workspace member is read (a new crate must be added to [`CRATES`]).
#[test]
fn every_workspace_crate_is_read() {
    let manifest = std::fs::read_to_string(repo_root().join("Cargo.toml")).unwrap();
    let members = regex::Regex::new(r"members = \[([^\]]*)\]").unwrap().captures(&manifest).expect("a members list")[1].to_string();
    for member in members.split(',').map(|m| m.trim().trim_matches('"')).filter(|m| !m.is_empty() && *m != "testbenches") {
        assert!(
            CRATES.iter().any(|(dir, _)| *dir == member || dir.starts_with(&format!("{member}/"))),
            "workspace member {member} is not in CRATES"
        );
    }
}

#[test]
fn a_circle_is_found() {
    let p = |s: &str| PathBuf::from(s);
    let graph: BTreeMap<PathBuf, BTreeSet<PathBuf>> =
        [(p("a"), [p("b")].into()), (p("b"), [p("c")].into()), (p("c"), [p("a")].into()), (p("d"), [p("a")].into())].into();
    let found = circles(&graph);
    assert_eq!(found, vec![vec![p("a"), p("b"), p("c")]]);
    let modules: BTreeMap<Vec<String>, PathBuf> = [(vec!["nic".to_string(), "reassembly".to_string()], p("nic/reassembly.rs"))].into();
    let path: Vec<String> = ["nic", "reassembly", "MAX"].map(String::from).to_vec();
    assert_eq!(resolve(&path, &modules), Some(p("nic/reassembly.rs")));
    assert_eq!(module_of(Path::new("nic/mod.rs"), "lib.rs"), vec!["nic".to_string()]);
}
