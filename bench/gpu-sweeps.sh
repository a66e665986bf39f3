#!/usr/bin/env bash
# The paper's sweeps, measured with cuBLASLt through tshape-run-gemms and
# predicted by tshape-gemm-analysis, on a lent GPU. Writes CSV (and SVG plots
# when gnuplot is installed) under OUT, then calibrates the target on every
# measurement and reports the held-out error before and after.
#   bench/gpu-sweeps.sh [BUILD_DIR] [TARGET] [OUT]
set -euo pipefail
BUILD=${1:-build}
TARGET=${2:-h100-sxm}
OUT=${3:-bench/results}
HERE=$(cd "$(dirname "$0")" && pwd)
if ! nvidia-smi -L > /dev/null 2>&1; then
  echo "gpu-sweeps: no GPU here (nvidia-smi found none); nothing measured" >&2
  exit 1
fi
mkdir -p "$OUT"
nvidia-smi -L > "$OUT/device.txt"
date -u +%Y-%m-%d > "$OUT/date.txt"
run() { # NAME PRE-PASSES: measure and predict one sweep
  local name=$1 pre=$2
  python3 "$HERE/gpu_sweeps.py" "$name" > "$OUT/$name.mlir"
  "$BUILD/bin/tshape-opt" "$OUT/$name.mlir" $pre \
    --tshape-run-gemms="backend=cublas warmup=5 iters=20 check=true samples=512" \
    --tshape-gemm-analysis="target=$TARGET remarks=none report=$OUT/$name.json" \
    -mlir-print-op-on-diagnostic=false -o /dev/null 2> "$OUT/$name.log"
  python3 "$HERE/report_csv.py" "$OUT/$name.json" > "$OUT/$name.csv"
  python3 "$HERE/report_csv.py" "$OUT/$name.json" --calibration | tail -n +2 \
    >> "$OUT/calibration.body"
}
: > "$OUT/calibration.body"
run wave ""
run vocab ""
run swiglu ""
run heads "--tshape-lower-to-linalg"
# The GPT-3 2.7B layer, original and optimized.
"$BUILD/bin/tshape-translate" --import-hf-config examples/gpt3-2.7b.json -o "$OUT/gpt3.mlir"
"$BUILD/bin/tshape-opt" "$OUT/gpt3.mlir" --tshape-optimize-shapes="target=$TARGET" \
  -o "$OUT/gpt3.opt.mlir" 2> "$OUT/gpt3.opt.log"
for v in gpt3 gpt3.opt; do
  "$BUILD/bin/tshape-opt" "$OUT/$v.mlir" --tshape-lower-to-linalg \
    --tshape-run-gemms="backend=cublas warmup=3 iters=10" \
    --tshape-gemm-analysis="target=$TARGET remarks=none report=$OUT/$v.report.json" \
    -o /dev/null 2> "$OUT/$v.log"
  python3 "$HERE/report_csv.py" "$OUT/$v.report.json" > "$OUT/$v.csv"
done
{ echo "batch,m,n,k,dtype,trans_a,trans_b,measured_us"; cat "$OUT/calibration.body"; } \
  > "$OUT/calibration.csv"
rm "$OUT/calibration.body"
"$BUILD/bin/tshape-calibrate" "$OUT/calibration.csv" --target="$TARGET" \
  -o "$OUT/$TARGET-calibrated.json" 2>&1 | tee "$OUT/calibration.txt"
if command -v gnuplot > /dev/null; then
  gnuplot <<GP
set terminal svg size 900,500
set datafile separator ","
set output "$OUT/wave.svg"
set title "bf16 GEMM, M = K = 4096, on $(head -1 "$OUT/device.txt" | cut -d'(' -f1)"
set xlabel "N"; set ylabel "TFLOP/s"; set key top left
plot "$OUT/wave.csv" every ::1 using 5:11 with linespoints title "measured (cuBLASLt)", \
     "" every ::1 using 5:10 with lines title "predicted (tshape)"
GP
fi
echo "gpu-sweeps: results in $OUT"
