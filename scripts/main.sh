#!/usr/bin/env bash
# The main job, a first look in one folder (default report/, or the first argument): generate
# and lint the Verilog of every named configuration, measure per-stage latency and throughput
# of every protocol on its whole-NIC Verilator model, and run the thesis' Fig. 3.2 incast
# (three protocols × 120 KB and 63 KB buffers). The page is report/report.md.
#   bash scripts/main.sh [DIR] [--synth]   # --synth: also Yosys synth_xilinx on every file (long)
set -euo pipefail
cd "$(dirname "$0")/.."
out=report
synth=()
for a in "$@"; do
    case "$a" in
        --synth) synth=(--synth) ;;
        *) out="$a" ;;
    esac
done
bash scripts/setup-tools.sh
cargo build --release --quiet
# Whole-NIC Verilog generation recurses deeply.
export RUST_MIN_STACK="${RUST_MIN_STACK:-16777216}"
time target/release/nanotransport report --out "$out" "${synth[@]}"
