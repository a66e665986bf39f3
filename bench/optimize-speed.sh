#!/usr/bin/env bash
# Benchmark: tshape-optimize-shapes on a GPT-3 175B-sized model (96 layers,
# h 12288, 96 heads), forward, training, and with every parameter varied.
# Prints the median of N runs (default 3) and the search's own summary.
#   bench/optimize-speed.sh [BUILD_DIR] [RUNS]
set -euo pipefail
BUILD=${1:-build}
RUNS=${2:-3}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cat > "$T/gpt3-175b.json" <<'JSON'
{"model_type": "gpt2", "n_embd": 12288, "n_head": 96, "n_layer": 96,
 "vocab_size": 50257, "n_positions": 2048}
JSON
"$BUILD/bin/tshape-translate" --import-hf-config "$T/gpt3-175b.json" -o "$T/m.mlir"
for opts in "" "training=true" "training=true vary=vocab,heads,kv_heads,ffn,hidden"; do
  times=()
  for i in $(seq "$RUNS"); do
    s=$(date +%s.%N)
    "$BUILD/bin/tshape-opt" "$T/m.mlir" --tshape-optimize-shapes="$opts" \
      -mlir-print-op-on-diagnostic=false -o /dev/null 2> "$T/remarks"
    e=$(date +%s.%N)
    times+=("$(awk -v e="$e" -v s="$s" 'BEGIN {print e - s}')")
  done
  med=$(printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  printf '[%s] median %.2f s: ' "${opts:-defaults}" "$med"
  grep -o 'tshape-optimize-shapes on [^:]*: [0-9]* shapes evaluated, [0-9]* feasible' "$T/remarks" | sed 's/.*: //'
done
