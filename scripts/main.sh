#!/usr/bin/env bash
# The main job, a first look in one folder (default report/, or the first argument): generate
# and lint the Verilog of every named configuration, measure per-stage latency and throughput
# of every protocol on its whole-NIC Verilator model, run the thesis' Fig. 3.2 incast
# (three protocols × 120 KB and 63 KB buffers) and Flexplane's bulk transfer and RPC workload
# on TCP hosts. The page is report/results.md, rendered from
# report/results.json. `bash scripts/main.sh docs` refreshes the committed results (docs/) and
# the README's headline block.
#   bash scripts/main.sh [DIR] [--synth]   # --synth: also whole-NIC Yosys synthesis beside Table 3.2 (about half an hour)
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
t0=$(date +%s)
# The report's whole-NIC models (the incast receivers on the 128-message NICs, its senders on the
# 16-message ones) are built while the project compiles (the model builder depends
# on no hardware crate and compiles in seconds).
cargo build --release --quiet -p nanotransport-models
nice -n 10 target/release/nanotransport-models ndp-128 homa-128 homa-tr-128 ndp-16 homa-16 homa-tr-16 &
models=$!
cargo build --release --quiet
wait "$models" || echo "building the report's models ahead failed; the report builds them itself" >&2
t1=$(date +%s)
echo "built in $((t1 - t0)) s (Rust and the report's Verilator models)" >&2
# Whole-NIC Verilog generation recurses deeply.
export RUST_MIN_STACK="${RUST_MIN_STACK:-16777216}"
readme=()
if [ "$out" = docs ]; then readme=(--readme README.md); fi
target/release/nanotransport report --out "$out" "${synth[@]}" "${readme[@]}"
echo "report in $(( $(date +%s) - t1 )) s" >&2
