#!/usr/bin/env bash
# The main job: generate the Verilog of every named configuration, lint and synthesise it,
# and print a summary.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-tools.sh
cargo build --release --quiet
bin=target/release/nanotransport
echo "== generate"
"$bin" gen
echo "== lint (verilator -Wall) and synthesis (yosys synth_xilinx -family xcup)"
"$bin" lint
echo "== co-simulation speed"
"$bin" bench cosim
