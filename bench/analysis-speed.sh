#!/usr/bin/env bash
# Benchmark: import + lower + analyze a 96-layer GPT-3 175B config with
# training=true, against upstream mlir-opt parsing and printing the same
# lowered IR. Prints medians of N runs (default 5). Usage:
#   bench/analysis-speed.sh [BUILD_DIR] [RUNS]
set -euo pipefail
BUILD=${1:-build}
RUNS=${2:-5}
MLIR_OPT=${MLIR_OPT:-/usr/lib/llvm-22/bin/mlir-opt}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# GPT-3 175B (Brown et al. 2020, Table 2.1): 96 layers, d_model 12288,
# 96 heads (d_head 128), vocab 50257 as in GPT-2.
cat > "$T/gpt3-175b.json" <<'JSON'
{"model_type": "gpt2", "n_embd": 12288, "n_head": 96, "n_layer": 96,
 "vocab_size": 50257, "n_positions": 2048}
JSON

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
now() { date +%s.%N; }
run() { # run CMD...; prints seconds
  local s e; s=$(now); "$@" > /dev/null; e=$(now)
  awk -v e="$e" -v s="$s" 'BEGIN {print e - s}'
}

"$BUILD/bin/tshape-translate" --import-hf-config "$T/gpt3-175b.json" -o "$T/m.mlir"
"$BUILD/bin/tshape-opt" --tshape-lower-to-linalg=training=true "$T/m.mlir" -o "$T/l.mlir"
GEMMS=$(grep -c 'tshape.role' "$T/l.mlir")
SIZE=$(stat -c %s "$T/l.mlir")

imp=(); low=(); ana=(); pp=(); pass=()
for i in $(seq "$RUNS"); do
  imp+=("$(run "$BUILD/bin/tshape-translate" --import-hf-config "$T/gpt3-175b.json" -o "$T/m.mlir")")
  low+=("$(run "$BUILD/bin/tshape-opt" --tshape-lower-to-linalg=training=true "$T/m.mlir" -o "$T/l2.mlir")")
  ana+=("$(run "$BUILD/bin/tshape-opt" "$T/l.mlir" --tshape-gemm-analysis=remarks=none -o /dev/null)")
  pp+=("$(run "$MLIR_OPT" "$T/l.mlir" -o /dev/null)")
  # The analysis pass alone, from -mlir-timing (wall time column).
  pass+=("$("$BUILD/bin/tshape-opt" "$T/l.mlir" --tshape-gemm-analysis=remarks=none \
      -mlir-timing -o /dev/null 2>&1 | awk '/TShapeGemmAnalysis/ {print $1; exit}')")
done
m() { printf '%s\n' "$@" | median; }
IMP=$(m "${imp[@]}"); LOW=$(m "${low[@]}"); ANA=$(m "${ana[@]}")
PP=$(m "${pp[@]}"); PASS=$(m "${pass[@]}")
echo "GPT-3 175B, 96 layers, training=true: $GEMMS GEMMs, lowered IR $SIZE bytes"
printf 'import (tshape-translate)                  %.3f s\n' "$IMP"
printf 'lower (tshape-opt, training=true)          %.3f s\n' "$LOW"
printf 'parse + analyze + print (tshape-opt)       %.3f s\n' "$ANA"
printf 'analysis pass alone (-mlir-timing)         %.3f s\n' "$PASS"
printf 'parse + print (upstream mlir-opt)          %.3f s\n' "$PP"
awk -v a="$PASS" -v p="$PP" 'BEGIN {printf "ratio analysis pass / upstream parse+print %.2f\n", a / p}'
awk -v a="$ANA" -v p="$PP" 'BEGIN {printf "ratio whole tshape-opt run / parse+print   %.2f\n", a / p}'
