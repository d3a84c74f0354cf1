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
# Every configuration is linted; of the whole-NIC tops only ndp-16 is synthesised (about 9
# CPU-minutes of Yosys; the others share its blocks or those of nic-128, which is synthesised
# block by block): `nanotransport lint --config ndp-128` etc. synthesise them on demand.
synth=()
for c in $("$bin" configs | awk '{print $1}'); do
    case "$c" in
        homa-*|ndp-128) ;;
        *) synth+=(--config "$c") ;;
    esac
done
"$bin" lint "${synth[@]}"
"$bin" lint --no-synth --config homa-16 --config homa-tr-16 --config homa-128 --config ndp-128
echo "== per-stage latency (Table 3.1) and throughput, on the Verilator models"
for pc in ndp:ndp-16 ndp:ndp-128 homa:homa-16 homa-tr:homa-tr-16 homa:homa-128; do
    p=${pc%%:*} c=${pc#*:}
    "$bin" latency --protocol "$p" --config "$c"
    for d in rx tx; do
        "$bin" throughput --protocol "$p" --config "$c" --direction "$d"
    done
done
echo "== co-simulation speed"
"$bin" bench cosim
"$bin" bench nic --config ndp-16
