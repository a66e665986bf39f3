// The hand derivations below use the model constants as they were before
// calibration (Inputs/*-uncalibrated.json), so they stay checkable by hand.
// Choosing the GPU: target=, target-file=, and the module's #tshape.target.
// RUN: tshape-opt %s --tshape-gemm-analysis="target-file=%S/Inputs/a100-80gb-uncalibrated.json remarks=all" -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=A100
// RUN: tshape-opt %s --tshape-gemm-analysis="remarks=all" -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=ATTR
// RUN: tshape-opt %s --tshape-gemm-analysis="target-file=%S/Inputs/h100-half.json remarks=all" -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=FILE

// 4096^3 bf16: 16 x 32 = 512 tiles of 256x128.
// A100 (108 SMs): 5 waves, 512/540 = 94.8% full.
// A100: on a100-80gb: predicted {{.*}} us, 5% lost; last of 5 waves 74% full (512 tiles on 108 slots)
// The module names the H200 (132 SMs): 4 waves, 512/528 = 97% (a remark).
// Its constants are the H100 fit, whose wave smoothing (0.847) recovers most
// of the last wave's idle time: under 1% lost.
// ATTR: on h200: predicted {{.*}} us, 0% lost; last of 4 waves 88% full (512 tiles on 132 slots)
// The file: 66 SMs: 8 waves of 66, 512/528 = 97%; smoothed as above.
// FILE: on h100-half-sms: predicted {{.*}} us, 0% lost; last of 8 waves 76% full (512 tiles on 66 slots)
module attributes {tshape.target = #tshape.target<"h200">} {
  func.func @g(%a: tensor<4096x4096xbf16>, %c: tensor<4096x4096xbf16>) -> tensor<4096x4096xbf16> {
    %0 = linalg.matmul ins(%a, %a : tensor<4096x4096xbf16>, tensor<4096x4096xbf16>) outs(%c : tensor<4096x4096xbf16>) -> tensor<4096x4096xbf16>
    return %0 : tensor<4096x4096xbf16>
  }
}

// The global -tshape-remarks=all gives the same remarks as remarks=all.
// RUN: tshape-opt %s --tshape-gemm-analysis -tshape-remarks=all -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=ATTR
// RUN: tshape-opt %s --tshape-gemm-analysis -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --allow-empty --check-prefix=QUIET
// QUIET-NOT: remark
