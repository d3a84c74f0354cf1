#!/usr/bin/env bash
# The main job: generate the Verilog of every named configuration, lint and synthesise it,
# measure per-stage latency and throughput of every protocol on the Verilator models, and print
# a summary.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-tools.sh
cargo build --release --quiet
bin=target/release/nanotransport
echo "== generate"
"$bin" gen
echo "== lint (verilator -Wall) and synthesis (yosys synth_xilinx -family xcup)"
# Every configuration is linted; the Homa tops share all their large blocks with ndp-16, so
# only ndp-16 of the whole-NIC tops is synthesised (about 9 CPU-minutes of Yosys each).
synth=()
for c in $("$bin" configs | awk '{print $1}'); do
    case "$c" in
        homa-*) ;;
        *) synth+=(--config "$c") ;;
    esac
done
"$bin" lint "${synth[@]}"
"$bin" lint --no-synth --config homa-16 --config homa-tr-16
echo "== per-stage latency (Table 3.1) and throughput, on the Verilator models"
for p in ndp homa homa-tr; do
    "$bin" latency --protocol "$p"
    for d in rx tx; do
        "$bin" throughput --protocol "$p" --direction "$d"
    done
done
echo "== co-simulation speed"
"$bin" bench cosim
