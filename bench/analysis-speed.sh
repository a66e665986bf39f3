#!/usr/bin/env bash
# Benchmark: import + lower + analyze a 96-layer GPT-3 175B config with
# phase=train, against upstream mlir-opt parsing and printing the same
# lowered IR. Prints medians of N runs (default 5). Usage:
#   bench/analysis-speed.sh [BUILD_DIR] [RUNS]
set -euo pipefail
source "$(dirname "$0")/common.sh"
BUILD=${1:-build}
RUNS=${2:-5}
MLIR_OPT=${MLIR_OPT:-/usr/lib/llvm-22/bin/mlir-opt}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
write_gpt3_175b "$T/gpt3-175b.json"

now() { date +%s.%N; }
run() { # run CMD...; prints seconds
  local s e; s=$(now); "$@" > /dev/null; e=$(now)
  elapsed "$s" "$e"
}

"$BUILD/bin/tshape-translate" --import-hf-config "$T/gpt3-175b.json" -o "$T/m.mlir"
"$BUILD/bin/tshape-opt" --tshape-lower-to-linalg=phase=train "$T/m.mlir" -o "$T/l.mlir"
GEMMS=$(grep -c 'tshape.role' "$T/l.mlir")
SIZE=$(stat -c %s "$T/l.mlir")

imp=(); low=(); ana=(); pp=(); pass=()
for i in $(seq "$RUNS"); do
  imp+=("$(run "$BUILD/bin/tshape-translate" --import-hf-config "$T/gpt3-175b.json" -o "$T/m.mlir")")
  low+=("$(run "$BUILD/bin/tshape-opt" --tshape-lower-to-linalg=phase=train "$T/m.mlir" -o "$T/l2.mlir")")
  ana+=("$(run "$BUILD/bin/tshape-opt" "$T/l.mlir" --tshape-gemm-analysis=remarks=none -o /dev/null)")
  pp+=("$(run "$MLIR_OPT" "$T/l.mlir" -o /dev/null)")
  # The analysis pass alone, from -mlir-timing (wall time column).
  pass+=("$("$BUILD/bin/tshape-opt" "$T/l.mlir" --tshape-gemm-analysis=remarks=none \
      -mlir-timing -o /dev/null 2>&1 | awk '/TShapeGemmAnalysis/ {print $1; exit}')")
done
m() { printf '%s\n' "$@" | median; }
IMP=$(m "${imp[@]}"); LOW=$(m "${low[@]}"); ANA=$(m "${ana[@]}")
PP=$(m "${pp[@]}"); PASS=$(m "${pass[@]}")
echo "GPT-3 175B, 96 layers, phase=train: $GEMMS GEMMs, lowered IR $SIZE bytes"
printf 'import (tshape-translate)                  %.3f s\n' "$IMP"
printf 'lower (tshape-opt, phase=train)          %.3f s\n' "$LOW"
printf 'parse + analyze + print (tshape-opt)       %.3f s\n' "$ANA"
printf 'analysis pass alone (-mlir-timing)         %.3f s\n' "$PASS"
printf 'parse + print (upstream mlir-opt)          %.3f s\n' "$PP"
awk -v a="$PASS" -v p="$PP" 'BEGIN {printf "ratio analysis pass / upstream parse+print %.2f\n", a / p}'
awk -v a="$ANA" -v p="$PP" 'BEGIN {printf "ratio whole tshape-opt run / parse+print   %.2f\n", a / p}'
