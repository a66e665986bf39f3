// RUN: tshape-opt %s --tshape-lower-to-linalg | FileCheck %s
// RUN: tshape-opt %s --tshape-lower-to-linalg | mlir-opt | FileCheck %s
// RUN: tshape-opt %s --tshape-lower-to-linalg --tshape-gemm-analysis=remarks=all -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=ANALYSIS

// Module-level tshape attributes become builtin-typed on lowering, so that
// upstream tools accept the result; the analysis still finds its target.
// CHECK: module attributes {tshape.target = "a100-80gb", tshape.tp = 2 : i64}
// A 16 x 128 x 64 GEMM is far below one launch (2 us): a remark, not a flag.
// ANALYSIS: remark: mlp_up GEMM of layer 0 (1 x 16x128x64, bf16) on a100-80gb: {{.*}}launch-bound
module attributes {tshape.parallel = #tshape.parallel<tp = 2>,
                   tshape.target = #tshape.target<"a100-80gb">} {
  func.func @m(%x: tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16> {
    %0 = tshape.mlp %x inner = 256 activation = relu : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
    return %0 : tensor<1x16x64xbf16>
  }
}
