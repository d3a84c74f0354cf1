//! `nanotransport-models [--jobs N] [CONFIG]...`: builds the Verilator models of the shipped
//! Verilog of the named configurations (default: every one under `verilog-out/`, and the
//! co-simulation fixtures) into the model cache, N at a time (default: the machine's cores).
//! Models are otherwise built on first use; building them ahead lets it happen while the rest of
//! the workspace compiles (`scripts/test.sh`, `scripts/main.sh`).

use nanotransport_models::cache::{modules_of, prebuild};
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut jobs = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let mut configs = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--jobs" => match args.next().and_then(|n| n.parse().ok()).filter(|n| *n > 0) {
                Some(n) => jobs = n,
                None => return fail("--jobs needs a positive number"),
            },
            "-h" | "--help" => {
                println!("Usage: nanotransport-models [--jobs N] [CONFIG]...\nBuilds the Verilator models of the shipped Verilog of CONFIG (default: all) into the model cache.");
                return ExitCode::SUCCESS;
            }
            c if c.starts_with('-') => return fail(&format!("unknown option '{c}'; usage: nanotransport-models [--jobs N] [CONFIG]...")),
            c => configs.push(c.to_string()),
        }
    }
    match modules_of(&configs).and_then(|m| prebuild(&m, jobs)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(&e),
    }
}

fn fail(message: &str) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::from(2)
}
