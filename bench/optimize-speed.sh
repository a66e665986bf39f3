#!/usr/bin/env bash
# Benchmark: tshape-optimize-shapes on a GPT-3 175B-sized model (96 layers,
# h 12288, 96 heads), forward, training, and with every parameter varied.
# Prints the median of N runs (default 3) and the search's own summary.
#   bench/optimize-speed.sh [BUILD_DIR] [RUNS]
set -euo pipefail
source "$(dirname "$0")/common.sh"
BUILD=${1:-build}
RUNS=${2:-3}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
write_gpt3_175b "$T/gpt3-175b.json"
"$BUILD/bin/tshape-translate" --import-hf-config "$T/gpt3-175b.json" -o "$T/m.mlir"
for opts in "" "phase=train" "phase=train vary=vocab,heads,kv_heads,ffn,hidden"; do
  times=()
  for i in $(seq "$RUNS"); do
    s=$(date +%s.%N)
    "$BUILD/bin/tshape-opt" "$T/m.mlir" --tshape-optimize-shapes="$opts" \
      -mlir-print-op-on-diagnostic=false -o /dev/null 2> "$T/remarks"
    e=$(date +%s.%N)
    times+=("$(elapsed "$s" "$e")")
  done
  med=$(printf '%s\n' "${times[@]}" | median)
  printf '[%s] median %.2f s: ' "${opts:-defaults}" "$med"
  grep -o 'tshape-optimize-shapes on [^:]*: [0-9]* shapes evaluated, [0-9]* feasible' "$T/remarks" | sed 's/.*: //'
done
