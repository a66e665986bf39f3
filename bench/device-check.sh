#!/usr/bin/env bash
# The GPU check in one call on a lent device machine (CUDA, CMake and ninja;
# no LLVM, no ../shared, nothing reachable): build the runtime alone, time
# the prepared GEMM lists with cuBLASLt and check them against fp64, time
# the same lists with PyTorch as a cross-check, and pack everything into one
# file, since a call brings back only a few.
#
#   bench/device-check.sh PREPARED OUT
#
# PREPARED (carried to the device; keep it in an ignored folder):
#   results/      PHASE=prepare of bench/gpu-sweeps.sh (the paper's sweeps)
#   lists/*.gemms.csv  further GEMM lists, e.g. bench/aic_gemm_list.py's
# OUT: device-log.txt and device-results.tar.gz (results/ measured, each
# list's NAME.measured.csv and NAME.torch.csv, device.txt, date.txt).
#
# Each stage has its own time limit and a failing stage does not stop the
# others: a lent GPU's minutes are few. Back here:
#   tar xzf OUT/device-results.tar.gz -C DIR
#   PHASE=analyze bench/gpu-sweeps.sh build TARGET DIR/results
#   python3 bench/compare_lists.py DIR/lists/NAME.*  (per list)
set -uo pipefail
IN=${1:?usage: bench/device-check.sh PREPARED OUT}
OUT=${2:?usage: bench/device-check.sh PREPARED OUT}
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/.." && pwd)
BUILD=${RT_BUILD:-$SRC/build-rt}
WORK=$(mktemp -d)
mkdir -p "$OUT"
exec > >(tee "$OUT/device-log.txt") 2>&1
stage() { echo; echo "== $(date -u +%H:%M:%S) $*"; }
failed=()

stage device
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm,power.limit \
  --format=csv || failed+=(nvidia-smi)
nvidia-smi -L | head -1 | sed 's/ (UUID.*//' > "$WORK/device.txt"
date -u +%Y-%m-%d > "$WORK/date.txt"
command -v nvcc cmake ninja g++ python3
CUDA_ROOT=
for d in /usr/local/cuda "$(dirname "$(dirname "$(command -v nvcc 2>/dev/null || echo /x/x)")")"; do
  [ -e "$d/include/cublasLt.h" ] && { CUDA_ROOT=$d; break; }
done
echo "CUDA root: ${CUDA_ROOT:-not found (cublasLt.h)}"

stage "build (runtime only)"
GEN=(); command -v ninja > /dev/null && GEN=(-G Ninja)
timeout 120 cmake "${GEN[@]}" -S "$SRC" -B "$BUILD" -DTSHAPE_RUNTIME_ONLY=ON \
  -DCMAKE_BUILD_TYPE=Release ${CUDA_ROOT:+-DCUDAToolkit_ROOT=$CUDA_ROOT} &&
  timeout 150 cmake --build "$BUILD" -j"$(nproc)" || failed+=(build)
if [ ! -e "$BUILD/lib/libtshape_runtime_cublas.so" ]; then
  echo "no cuBLASLt backend was built (CUDA not found?): nothing to time"
  failed+=(cublas-backend)
else
  stage "paper sweeps (bench/gpu-sweeps.sh PHASE=measure)"
  cp -r "$IN/results" "$WORK/results"
  PHASE=measure RT_BUILD="$BUILD" timeout 150 "$HERE/gpu-sweeps.sh" \
    build "$(cat "$WORK/results/target.txt")" "$WORK/results" ||
    failed+=(sweeps)
  mkdir -p "$WORK/lists"
  for l in "$IN"/lists/*.gemms.csv; do
    [ -e "$l" ] || continue
    name=$(basename "$l" .gemms.csv)
    cp "$l" "$WORK/lists/"
    stage "list $name: tshape-bench-gemms --check"
    timeout 150 "$BUILD/bin/tshape-bench-gemms" --check "$l" \
      -o "$WORK/lists/$name.measured.csv" || failed+=("$name")
    stage "list $name: PyTorch"
    timeout 75 python3 "$HERE/torch_gemms.py" "$l" \
      > "$WORK/lists/$name.torch.csv" || failed+=("$name-torch")
  done
fi

stage pack
tar czf "$OUT/device-results.tar.gz" -C "$WORK" . && ls -l "$OUT"
if [ ${#failed[@]} -gt 0 ]; then
  echo "device-check: failed stages: ${failed[*]}"
  exit 1
fi
echo "device-check: every stage passed"
