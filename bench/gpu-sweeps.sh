#!/usr/bin/env bash
# The paper's sweeps, predicted by tshape-gemm-analysis and measured with
# cuBLASLt through tshape-bench-gemms:
#   - GEMM throughput vs N across wave boundaries (M = K = 4096)
#   - head counts at h = 2560 (b = 4, s = 2048)
#   - vocab 50257 vs 50304, SwiGLU inner 10922 vs 10944 at h = 4096
#   - the GPT-3 2.7B model, original vs --tshape-optimize-shapes
#
#   bench/gpu-sweeps.sh [BUILD_DIR] [TARGET] [OUT]
#
# Three phases (PHASE=all runs them in turn, the default):
#   prepare  (needs tshape-opt) each sweep's MLIR, its predicted report and
#            GEMM list NAME.gemms.csv
#   measure  (needs only tshape-bench-gemms: a -DTSHAPE_RUNTIME_ONLY=ON
#            build in RT_BUILD serves on a GPU machine without LLVM)
#            NAME.measured.csv, with --check against fp64
#   analyze  (needs tshape-calibrate) NAME.csv with prediction and
#            measurement side by side, a calibrated TARGET-calibrated.json
#            with its held-out error before and after, SVG plots (our own
#            stdlib-only routine, bench/plot_svg.py) and summary.md, ready
#            for docs/benchmarks.md
# Environment: BACKEND=cublas (default) or cpu; SMOKE=1 runs the same
# pipeline at toy sizes (test/Bench runs it on the CPU in CI; its numbers
# say nothing about a GPU); RT_BUILD (default BUILD_DIR).
set -euo pipefail
BUILD=${1:-build}
TARGET=${2:-h100-sxm}
OUT=${3:-bench/results}
PHASE=${PHASE:-all}
BACKEND=${BACKEND:-cublas}
SMOKE=${SMOKE:-0}
RT_BUILD=${RT_BUILD:-$BUILD}
HERE=$(cd "$(dirname "$0")" && pwd)
SWEEP=(python3 "$HERE/gpu_sweeps.py")
ITERS=(--warmup=5 --iters=20)
if [ "$SMOKE" = 1 ]; then
  SWEEP+=(--smoke)
  ITERS=(--warmup=1 --iters=3)
fi
case "$PHASE" in
  all|prepare|measure|analyze) ;;
  *) echo "gpu-sweeps: PHASE must be all, prepare, measure or analyze," \
          "got '$PHASE'" >&2; exit 1 ;;
esac
phase() { [ "$PHASE" = all ] || [ "$PHASE" = "$1" ]; }
# Checked first, so that PHASE=all fails before preparing anything.
if phase measure && [ "$BACKEND" = cublas ] && ! nvidia-smi -L > /dev/null 2>&1; then
  echo "gpu-sweeps: no GPU here (nvidia-smi found none); nothing measured" \
       "(BACKEND=cpu SMOKE=1 runs the pipeline on the CPU)" >&2
  exit 1
fi
mkdir -p "$OUT"

if phase prepare; then
  OPT="$BUILD/bin/tshape-opt"
  predict() { # NAME [PASSES...]: the predicted report and GEMM list
    local name=$1
    shift
    "$OPT" "$OUT/$name.mlir" "$@" \
      --tshape-gemm-analysis="target=$TARGET remarks=none report=$OUT/$name.json" \
      -o /dev/null
    python3 "$HERE/report_csv.py" "$OUT/$name.json" > "$OUT/$name.gemms.csv"
    echo "$name" >> "$OUT/sweeps.txt"
  }
  : > "$OUT/sweeps.txt"
  echo "$TARGET" > "$OUT/target.txt"
  "${SWEEP[@]}" wave > "$OUT/wave.mlir"
  predict wave
  for s in vocab swiglu; do
    "${SWEEP[@]}" "$s" > "$OUT/$s.mlir"
    predict "$s" --tshape-lower-to-linalg
  done
  "${SWEEP[@]}" heads-list > "$OUT/heads.txt"
  for a in $(cat "$OUT/heads.txt"); do
    "${SWEEP[@]}" heads "$a" > "$OUT/heads-$a.mlir"
    predict "heads-$a" --tshape-lower-to-linalg
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
  predict gpt3 --tshape-lower-to-linalg
  predict gpt3.opt --tshape-lower-to-linalg
fi

if phase measure; then
  if [ ! -s "$OUT/sweeps.txt" ]; then
    echo "gpu-sweeps: $OUT/sweeps.txt is missing: run PHASE=prepare first" >&2
    exit 1
  fi
  if [ "$BACKEND" = cublas ]; then
    nvidia-smi -L | head -1 | sed 's/ (UUID.*//' > "$OUT/device.txt"
  else
    echo "CPU reference backend$([ "$SMOKE" = 1 ] && echo ', toy sizes')" \
      > "$OUT/device.txt"
  fi
  date -u +%Y-%m-%d > "$OUT/date.txt"
  echo "$BACKEND" > "$OUT/backend.txt"
  echo "PHASE=$PHASE BACKEND=$BACKEND SMOKE=$SMOKE bench/gpu-sweeps.sh" \
       "$BUILD $TARGET $OUT" > "$OUT/command.txt"
  # A sweep whose list fails in part (tshape-bench-gemms leaves the failing
  # GEMMs out and exits 1) does not stop the others; the phase fails at its
  # end, naming them.
  failed=()
  for name in $(cat "$OUT/sweeps.txt"); do
    "$RT_BUILD/bin/tshape-bench-gemms" --backend="$BACKEND" "${ITERS[@]}" \
      --check "$OUT/$name.gemms.csv" -o "$OUT/$name.measured.csv" ||
      failed+=("$name")
  done
  if [ ${#failed[@]} -gt 0 ]; then
    echo "gpu-sweeps: GEMMs failed in ${failed[*]} (see above)" >&2
    exit 1
  fi
fi

if phase analyze; then
  # A sweep that was not measured (a measure phase stopped at a time limit)
  # is left out of the analysis and named in missing.txt and the summary.
  measured=()
  : > "$OUT/missing.txt"
  for name in $(cat "$OUT/sweeps.txt"); do
    if [ -s "$OUT/$name.measured.csv" ]; then
      measured+=("$name")
      python3 "$HERE/join.py" "$OUT/$name.gemms.csv" \
        "$OUT/$name.measured.csv" > "$OUT/$name.csv"
    else
      echo "$name" >> "$OUT/missing.txt"
    fi
  done
  if [ ${#measured[@]} = 0 ]; then
    echo "gpu-sweeps: no sweep in $OUT was measured: run PHASE=measure" >&2
    exit 1
  fi
  echo "heads,measured_tflops,predicted_tflops" > "$OUT/heads.csv"
  for a in $(cat "$OUT/heads.txt"); do
    [ -s "$OUT/heads-$a.csv" ] || continue
    python3 - "$OUT/heads-$a.csv" "$a" >> "$OUT/heads.csv" <<'PY'
import csv, sys
rs = list(csv.DictReader(open(sys.argv[1])))
f = sum(2.0 * int(r["batch"]) * int(r["m"]) * int(r["n"]) * int(r["k"])
        for r in rs)
t = lambda c: f / (sum(float(r[c]) for r in rs) * 1e6)
print(f"{sys.argv[2]},{t('measured_us'):.3f},{t('predicted_us'):.3f}")
PY
  done
  # Every measurement calibrates (tshape-calibrate reads the first eight
  # columns of tshape-bench-gemms' output).
  first=1
  for name in "${measured[@]}"; do
    if [ $first = 1 ]; then cat "$OUT/$name.measured.csv"; first=0
    else tail -n +2 "$OUT/$name.measured.csv"; fi
  done > "$OUT/calibration.csv"
  "$BUILD/bin/tshape-calibrate" "$OUT/calibration.csv" --target="$TARGET" \
    -o "$OUT/$TARGET-calibrated.json" > "$OUT/calibration.txt" 2>&1

  DEV=$(cat "$OUT/device.txt")
  if [ -s "$OUT/wave.csv" ]; then
    python3 "$HERE/plot_svg.py" line "$OUT/wave.csv" n \
      measured_tflops,predicted_tflops \
      "bf16 GEMM, M = K = $(sed -n 2p "$OUT/wave.csv" | cut -d, -f4), on $DEV" \
      N TFLOP/s "$OUT/wave.svg"
  fi
  if [ "$(wc -l < "$OUT/heads.csv")" -gt 1 ]; then
    python3 "$HERE/plot_svg.py" bars "$OUT/heads.csv" heads \
      measured_tflops,predicted_tflops "Attention GEMMs by head count, on $DEV" \
      TFLOP/s "$OUT/heads.svg"
  fi
  python3 "$HERE/summarize.py" "$OUT" > "$OUT/summary.md"
  echo "gpu-sweeps: results in $OUT (summary.md, the SVG plots of the measured sweeps," \
       "$TARGET-calibrated.json)"
fi
