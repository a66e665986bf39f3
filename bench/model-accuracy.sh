#!/usr/bin/env bash
# Fits the cost model on the public aiconfigurator timings and publishes its
# held-out accuracy:
#   - tshape-calibrate on the fitting part of each GPU's bf16 GEMMs (from the
#     guess constants), then on its prefill attention (from the GEMM fit);
#     writes targets/TARGET-calibrated.json, the constants the built-in
#     targets carry (test/Predict/builtin-constants.test checks they agree);
#   - tshape-predict --report (JSON) on the held-out part, before (guesses) and
#     after, per regime, with the m -> m+1 direction agreement;
#   - each GPU predicted from another GPU's fit (how the targets without
#     data are derived), on its held-out part;
#   - docs/model-accuracy.md and docs/model-accuracy.svg (predicted against
#     measured, log-log);
#   - the node tier of dgx-a100, dgx-h100 and dgx-b200 fitted on the NCCL
#     files (tshape-calibrate), held-out figures per op;
#   - (H100) the fused MoE layers' constants fitted on the MoE file
#     (tshape-calibrate), held-out figures per dtype, routing and token
#     count (tshape-predict --report).
#
#   bench/model-accuracy.sh [BUILD_DIR] [DATA_DIR]
#
# BUILD_DIR (default build) holds bin/tshape-calibrate and bin/tshape-predict;
# DATA_DIR defaults to ../shared/data/measured beside the clone. About five
# minutes on two cores. Without the data it says so and exits 0.
set -euo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$SRC/build}
DATA=${2:-$SRC/../shared/data/measured}
if [ ! -d "$DATA" ]; then
  echo "model-accuracy.sh: no measured data at $DATA; nothing to do" >&2
  exit 0
fi
for tool in tshape-calibrate tshape-predict; do
  if [ ! -x "$BUILD/bin/$tool" ]; then
    echo "model-accuracy.sh: $BUILD/bin/$tool not built (make build)" >&2
    exit 1
  fi
done
exec python3 "$SRC/bench/model_accuracy.py" --bin "$BUILD/bin" --data "$DATA" \
  --src "$SRC"
