#!/usr/bin/env bash
# Fuzzes memwall's entry points with cargo-fuzz (libFuzzer). Nightly is used
# for the fuzzing only; the project builds and tests on stable.
#
#   scripts/fuzz.sh                 # every target, 60 s each
#   scripts/fuzz.sh 600             # every target, 600 s each
#   scripts/fuzz.sh 60 link hf      # some targets
#   RUNS=2000000 scripts/fuzz.sh    # a fixed number of executions per target
#
# Each target's log goes to fuzz/logs/<target>.log; its last line holds the
# execution count. A crash stops the target and leaves its input in
# fuzz/artifacts/<target>/.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-60}"
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(link plan_json scenario serving_scenario tenants hf calibrate)
fi

rustup toolchain list | grep -q nightly || rustup toolchain install nightly --profile minimal
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked

# Starting corpus: the shipped examples of each input kind.
cargo run -q -p memwall-fuzz-bodies --bin seeds -- fuzz/corpus
mkdir -p fuzz/logs
failed=()
for t in "${targets[@]}"; do
  limit=(-max_total_time="$seconds")
  if [ -n "${RUNS:-}" ]; then limit=(-runs="$RUNS"); fi
  echo "== $t (${RUNS:-${seconds}s})"
  # The summary lines only; the target's own exit status decides (a
  # crash, timeout or out-of-memory stops it non-zero).
  status=0
  cargo +nightly fuzz run "$t" "fuzz/corpus/$t" -- "${limit[@]}" -rss_limit_mb=2048 \
    -timeout=10 -print_final_stats=1 >"fuzz/logs/$t.log" 2>&1 || status=$?
  grep -E "^(#[0-9]+.*DONE|==[0-9]+== ERROR|stat::number_of_executed_units)" "fuzz/logs/$t.log" || true
  if [ "$status" -ne 0 ]; then
    echo "!! $t stopped with status $status; its input is in fuzz/artifacts/$t/"
    failed+=("$t")
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "failed: ${failed[*]}"
  exit 1
fi
