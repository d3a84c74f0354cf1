#!/usr/bin/env bash
# Runs every test. The Verilator models are built in the background from the start (a small
# command that compiles in seconds) while the workspace's tests compile (release: the simulations
# are the slow part); the tests then run with cargo-nextest when it is installed (each test in
# its own process, one per core, its time printed), else with `cargo test`. A model not built yet
# when a test needs it is built by that test (models are cached in target/verilator-models/ and
# shared under a lock). Ends with the time of each phase, the slowest tests and the totals.
#   bash scripts/test.sh              # every test
#   bash scripts/test.sh --quick      # development tier: leaves out the tests that take minutes
#   bash scripts/test.sh [--quick] [NEXTEST ARGS...]   # e.g. -E 'test(/timer/)'
set -euo pipefail
cd "$(dirname "$0")/.."
quick=0
extra=()
for a in "$@"; do
    case "$a" in
        --quick) quick=1 ;;
        *) extra+=("$a") ;;
    esac
done
bash scripts/setup-tools.sh
# rust-hdl's Verilog generation of the whole-NIC tops (drift test) recurses deeper than the
# 2 MiB default stack of a test thread.
export RUST_MIN_STACK="${RUST_MIN_STACK:-16777216}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

t0=$(date +%s)
cargo build --release --quiet -p nanotransport-models
# Below the compiler's priority: the compile is on the critical path, the models fill idle cores.
( nice -n 10 target/release/nanotransport-models > "$work/models.log" 2>&1; echo "$? $(date +%s)" > "$work/models.done" ) &
models_pid=$!
cargo test --release --workspace --all-targets --no-run 2>&1 | grep -v '^  Executable' || { echo "build failed" >&2; exit 1; }
t1=$(date +%s)

status=0
if cargo nextest --version >/dev/null 2>&1; then
    filter=()
    if [ "$quick" = 1 ]; then
        filter=(-E 'not (test(/^fuzz::/) | test(/^incast_orderings::/) | test(/^formal::/) | test(/^four_state::/) | test(/^lint::/) | test(/^param_sets::/))')
    fi
    cargo nextest run --release --workspace --all-targets --no-fail-fast "${filter[@]}" "${extra[@]}" 2>&1 | tee "$work/tests.log" || status=$?
    t2=$(date +%s)
    echo
    echo "slowest tests (seconds):"
    sed -nE 's/^ *(PASS|FAIL) \[ *([0-9.]+)s\] +(\( *[0-9]+\/[0-9]+\) +)?(\S+) +(.*)$/\2 \5/p' "$work/tests.log" | sort -rn | head -15 | awk '{ printf "  %8.1f  %s\n", $1, $2 }' || true
    echo "time per test binary and module (seconds, summed over its tests; the 10 largest):"
    sed -nE 's/^ *(PASS|FAIL) \[ *([0-9.]+)s\] +(\( *[0-9]+\/[0-9]+\) +)?(\S+) +([^: ]+).*$/\2 \4 \5/p' "$work/tests.log" | awk '{ t[$2 " " $3] += $1 } END { for (b in t) printf "  %8.1f  %s\n", t[b], b }' | sort -rn | head -10 || true
    passed=$(grep -cE '^ *PASS \[' "$work/tests.log" || true)
    # A failing test is listed twice (as it ends and in the summary): count each one once.
    failed=$(sed -nE 's/^ *FAIL \[ *[0-9.]+s\] +(\( *[0-9]+\/[0-9]+\) +)?(.*)$/\2/p' "$work/tests.log" | sort -u | wc -l)
else
    echo "cargo-nextest is not installed: running with cargo test (no per-test times)" >&2
    [ "$quick" = 1 ] && echo "--quick needs cargo-nextest; running every test" >&2
    cargo test --release --workspace --all-targets -- "${extra[@]}" 2>&1 | tee "$work/tests.log" || status=$?
    t2=$(date +%s)
    passed=$(awk '/^test result:/ { for (i = 1; i <= NF; i++) if ($(i) ~ /^passed/) p += $(i-1) } END { print p + 0 }' "$work/tests.log")
    failed=$(awk '/^test result:/ { for (i = 1; i <= NF; i++) if ($(i) ~ /^failed/) f += $(i-1) } END { print f + 0 }' "$work/tests.log")
fi
wait "$models_pid" || true
read -r models_status models_end < "$work/models.done"
if [ "$models_status" != 0 ]; then
    echo "building the Verilator models ahead failed:" >&2
    tail -n 3 "$work/models.log" >&2
fi
end=$(( t2 > models_end ? t2 : models_end ))
echo "time: Rust build $((t1 - t0)) s; Verilator models $((models_end - t0)) s (beside the build, then the tests); tests $((t2 - t1)) s; total $((end - t0)) s"
echo "tests: $passed passed, $failed failed"
exit "$status"
