#!/usr/bin/env bash
# The paper's sweeps, measured through tshape-run-gemms and predicted by
# tshape-gemm-analysis, on a lent GPU:
#   - GEMM throughput vs N across wave boundaries (M = K = 4096)
#   - head counts at h = 2560 (b = 4, s = 2048)
#   - vocab 50257 vs 50304, SwiGLU inner 10922 vs 10944 at h = 4096
#   - the GPT-3 2.7B model, original vs --tshape-optimize-shapes
# Writes under OUT: per-sweep MLIR, JSON reports and CSV; SVG plots (our own
# stdlib-only plotting routine, bench/plot_svg.py); a calibrated target
# file with its held-out error before and after (tshape-calibrate); and
# summary.md, ready for docs/benchmarks.md.
#
#   bench/gpu-sweeps.sh [BUILD_DIR] [TARGET] [OUT]
#
# Environment: BACKEND=cublas (default) or cpu; SMOKE=1 runs the same
# pipeline at toy sizes (for the CPU backend: test/Bench checks the
# pipeline in CI; its numbers say nothing about a GPU).
set -euo pipefail
BUILD=${1:-build}
TARGET=${2:-h100-sxm}
OUT=${3:-bench/results}
BACKEND=${BACKEND:-cublas}
SMOKE=${SMOKE:-0}
HERE=$(cd "$(dirname "$0")" && pwd)
OPT="$BUILD/bin/tshape-opt"
SWEEP=(python3 "$HERE/gpu_sweeps.py")
ITERS="warmup=5 iters=20"
if [ "$SMOKE" = 1 ]; then
  SWEEP+=(--smoke)
  ITERS="warmup=1 iters=3"
fi
if [ "$BACKEND" = cublas ] && ! nvidia-smi -L > /dev/null 2>&1; then
  echo "gpu-sweeps: no GPU here (nvidia-smi found none); nothing measured" \
       "(BACKEND=cpu SMOKE=1 runs the pipeline on the CPU)" >&2
  exit 1
fi
mkdir -p "$OUT"
if [ "$BACKEND" = cublas ]; then
  nvidia-smi -L | head -1 | sed 's/ (UUID.*//' > "$OUT/device.txt"
else
  echo "CPU reference backend$([ "$SMOKE" = 1 ] && echo ', toy sizes')" \
    > "$OUT/device.txt"
fi
date -u +%Y-%m-%d > "$OUT/date.txt"
echo "$BACKEND" > "$OUT/backend.txt"
echo "$TARGET" > "$OUT/target.txt"
echo "BACKEND=$BACKEND SMOKE=$SMOKE bench/gpu-sweeps.sh $BUILD $TARGET $OUT" \
  > "$OUT/command.txt"

measure() { # NAME [PASSES...]: run, time and predict $OUT/NAME.mlir
  local name=$1
  shift
  "$OPT" "$OUT/$name.mlir" "$@" \
    --tshape-run-gemms="backend=$BACKEND $ITERS check=true samples=512" \
    --tshape-gemm-analysis="target=$TARGET remarks=none report=$OUT/$name.json" \
    -mlir-print-op-on-diagnostic=false -o /dev/null 2> "$OUT/$name.log" || {
      echo "gpu-sweeps: $name failed:" >&2
      cat "$OUT/$name.log" >&2
      exit 1
    }
  python3 "$HERE/report_csv.py" "$OUT/$name.json" > "$OUT/$name.csv"
  python3 "$HERE/report_csv.py" "$OUT/$name.json" --calibration | tail -n +2 \
    >> "$OUT/calibration.body"
}

: > "$OUT/calibration.body"
for s in wave vocab swiglu; do
  "${SWEEP[@]}" "$s" > "$OUT/$s.mlir"
  measure "$s"
done
"${SWEEP[@]}" heads-list > "$OUT/heads.txt"
echo "heads,measured_tflops,predicted_tflops" > "$OUT/heads.csv"
for a in $(cat "$OUT/heads.txt"); do
  "${SWEEP[@]}" heads "$a" > "$OUT/heads-$a.mlir"
  measure "heads-$a" --tshape-lower-to-linalg
  python3 - "$OUT/heads-$a.csv" "$a" >> "$OUT/heads.csv" <<'PY'
import csv, sys
rs = list(csv.DictReader(open(sys.argv[1])))
f = sum(2.0 * int(r["batch"]) * int(r["m"]) * int(r["n"]) * int(r["k"])
        for r in rs)
t = lambda c: f / (sum(float(r[c]) for r in rs) * 1e6)
print(f"{sys.argv[2]},{t('measured_us'):.3f},{t('predicted_us'):.3f}")
PY
done

# A whole model, original and optimized: GPT-3 2.7B (head_dim 80, vocab
# 50257), or a toy model with the same defects under SMOKE.
if [ "$SMOKE" = 1 ]; then
  echo "Toy GPT (h = 320, 4 heads of 80, vocab 1001, s = 128)" > "$OUT/model.txt"
  cat > "$OUT/model.json" <<'JSON'
{"model_type": "gpt2", "n_embd": 320, "n_head": 4, "n_layer": 2,
 "vocab_size": 1001, "n_positions": 128}
JSON
  IMPORT=(--import-hf-config "$OUT/model.json" --seq=128 --microbatch=1)
else
  echo "GPT-3 2.7B (b = 4, s = 2048)" > "$OUT/model.txt"
  IMPORT=(--import-hf-config "$HERE/../examples/gpt3-2.7b.json")
fi
"$BUILD/bin/tshape-translate" "${IMPORT[@]}" -o "$OUT/gpt3.mlir"
"$OPT" "$OUT/gpt3.mlir" --tshape-optimize-shapes="target=$TARGET" \
  -o "$OUT/gpt3.opt.mlir" 2> "$OUT/gpt3.opt.log"
for v in gpt3 gpt3.opt; do
  measure "$v" --tshape-lower-to-linalg
done

{ echo "batch,m,n,k,dtype,trans_a,trans_b,measured_us"; cat "$OUT/calibration.body"; } \
  > "$OUT/calibration.csv"
rm "$OUT/calibration.body"
"$BUILD/bin/tshape-calibrate" "$OUT/calibration.csv" --target="$TARGET" \
  -o "$OUT/$TARGET-calibrated.json" > "$OUT/calibration.txt" 2>&1

DEV=$(cat "$OUT/device.txt")
python3 "$HERE/plot_svg.py" line "$OUT/wave.csv" n \
  measured_tflops,predicted_tflops \
  "bf16 GEMM, M = K = $(sed -n 2p "$OUT/wave.csv" | cut -d, -f4), on $DEV" \
  N TFLOP/s "$OUT/wave.svg"
python3 "$HERE/plot_svg.py" bars "$OUT/heads.csv" heads \
  measured_tflops,predicted_tflops "Attention GEMMs by head count, on $DEV" \
  TFLOP/s "$OUT/heads.svg"
python3 "$HERE/summarize.py" "$OUT" > "$OUT/summary.md"
echo "gpu-sweeps: results in $OUT (summary.md, wave.svg, heads.svg," \
     "$TARGET-calibrated.json)"
