#!/usr/bin/env bash
# Runs every test (release build: the simulations are the slow part).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-tools.sh
cargo test --release --workspace
