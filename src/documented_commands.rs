//! Every `nanotransport` command line shown in the README and in `docs/` parses with the command
//! line's own definition, so the documentation cannot name a command or a flag that does not
//! exist. A line counts when it sits in a ```sh or ```bash fence and starts with `nanotransport`
//! or `cargo run --release --`; a trailing `# comment` and `\` continuations are understood.

use crate::Cli;
use clap::Parser;
use std::path::{Path, PathBuf};

/// The README and every Markdown file under `docs/`.
fn documents() -> Vec<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![root.join("README.md")];
    if let Ok(entries) = std::fs::read_dir(root.join("docs")) {
        let mut docs: Vec<PathBuf> =
            entries.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|x| x == "md")).collect();
        docs.sort();
        files.extend(docs);
    }
    files
}

/// The shell lines of `text`'s sh/bash fences, continuations joined: (line number, line).
fn shell_lines(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut in_shell = false;
    let mut in_fence = false;
    let mut pending: Option<(usize, String)> = None;
    for (k, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if let Some(info) = trimmed.strip_prefix("```") {
            in_fence = !in_fence;
            in_shell = in_fence && matches!(info.trim(), "sh" | "bash" | "shell");
            continue;
        }
        if !in_shell {
            continue;
        }
        let (start, mut joined) = pending.take().unwrap_or((k + 1, String::new()));
        joined.push_str(line.trim());
        match joined.strip_suffix('\\') {
            Some(head) => pending = Some((start, format!("{head} "))),
            None => out.push((start, joined)),
        }
    }
    out
}

/// The arguments of a nanotransport command line (program name first), or `None` for another
/// shell line.
fn command_args(line: &str) -> Option<Vec<String>> {
    let words = shlex::split(line)?;
    let words: Vec<String> = words.into_iter().take_while(|w| !w.starts_with('#')).collect();
    let program = "nanotransport".to_string();
    match words.as_slice() {
        [first, rest @ ..] if first == "nanotransport" || first.ends_with("/nanotransport") => {
            Some(std::iter::once(program).chain(rest.iter().cloned()).collect())
        }
        [cargo, run, release, dashes, rest @ ..] if cargo == "cargo" && run == "run" && release == "--release" && dashes == "--" => {
            Some(std::iter::once(program).chain(rest.iter().cloned()).collect())
        }
        _ => None,
    }
}

fn check(path: &Path, checked: &mut usize, failures: &mut Vec<String>) {
    let text = std::fs::read_to_string(path).unwrap();
    for (line_no, line) in shell_lines(&text) {
        let Some(args) = command_args(&line) else { continue };
        *checked += 1;
        if let Err(e) = Cli::try_parse_from(&args) {
            use clap::error::ErrorKind::{DisplayHelp, DisplayVersion};
            if !matches!(e.kind(), DisplayHelp | DisplayVersion) {
                let first = e.to_string().lines().next().unwrap_or_default().to_string();
                failures.push(format!("{}:{line_no}: `{line}`: {first}", path.display()));
            }
        }
    }
}

#[test]
fn every_documented_command_line_parses() {
    let (mut checked, mut failures) = (0, Vec::new());
    for path in documents() {
        check(&path, &mut checked, &mut failures);
    }
    println!("{checked} documented command lines checked");
    assert!(failures.is_empty(), "{} documented command lines do not parse:\n{}", failures.len(), failures.join("\n"));
    assert!(checked >= 10, "only {checked} command lines found in the README and docs/");
}

#[test]
fn a_wrong_flag_or_command_is_caught() {
    let doc = "```sh\nnanotransport latency --config ndp-16 \\\n    --json  # one line\nnanotransport latency --no-such-flag\ncargo run --release -- nonsense\nbash scripts/main.sh\n```\n```text\nnanotransport whatever\n```\n";
    let lines = shell_lines(doc);
    assert_eq!(lines.len(), 4, "{lines:?}");
    let parsed: Vec<bool> = lines.iter().filter_map(|(_, l)| command_args(l)).map(|a| Cli::try_parse_from(&a).is_ok()).collect();
    assert_eq!(parsed, [true, false, false], "the continued line parses; the wrong flag and command do not; bash is skipped");
}
