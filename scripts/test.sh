#!/usr/bin/env bash
# Runs every test (release build: the simulations are the slow part), then prints one
# closing line with the totals over all test binaries.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-tools.sh
# rust-hdl's Verilog generation of the whole-NIC tops (drift test) recurses deeper than the
# 2 MiB default stack of a test thread.
export RUST_MIN_STACK="${RUST_MIN_STACK:-16777216}"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
cargo test --release --workspace --all-targets 2>&1 | tee "$log" || status=$?
awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($(i) ~ /^passed/) p += $(i-1); if ($(i) ~ /^failed/) f += $(i-1) } }
     END { printf "tests: %d passed, %d failed\n", p, f }' "$log"
exit "$status"
