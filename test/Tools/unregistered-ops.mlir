// Every tshape pass tolerates ops of dialects tshape-opt does not register
// (--allow-unregistered-dialect): it leaves them in place and neither
// crashes nor fails. Before, the lowering dereferenced the null dialect of
// such an op.
// RUN: tshape-opt %s --allow-unregistered-dialect --tshape-lower-to-linalg | FileCheck %s --check-prefix=LOWER
// RUN: tshape-opt %s --allow-unregistered-dialect --tshape-analyze-model -tshape-remarks=none | FileCheck %s --check-prefix=LOWER
// RUN: tshape-opt %s --allow-unregistered-dialect --tshape-optimize-shapes -mlir-print-op-on-diagnostic=false 2>/dev/null | FileCheck %s --check-prefix=KEEP
// RUN: tshape-opt %s --allow-unregistered-dialect --tshape-lower-to-linalg --tshape-gemm-summary -o /dev/null | FileCheck %s --check-prefix=SUMMARY
// RUN: tshape-opt %s --allow-unregistered-dialect --tshape-lower-to-linalg --tshape-gemm-analysis="remarks=none" | FileCheck %s --check-prefix=LOWER
// RUN: tshape-opt %s --allow-unregistered-dialect --tshape-lower-to-linalg --tshape-pad-gemms="force=true" | FileCheck %s --check-prefix=LOWER
// RUN: tshape-opt %s --allow-unregistered-dialect --tshape-lower-to-linalg --tshape-run-gemms="backend=cpu iters=1 warmup=0" -mlir-print-op-on-diagnostic=false 2>/dev/null | FileCheck %s --check-prefix=LOWER
// RUN: tshape-opt %s --allow-unregistered-dialect --tshape-lower-to-linalg --tshape-lower-linalg-to-runtime | FileCheck %s --check-prefix=LOWER
// Without the option, the error names it (MLIR's parser says so).
// RUN: not tshape-opt %s --tshape-gemm-summary -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOFLAG

// LOWER: "frontend.marker"() : () -> ()
// LOWER: linalg.matmul
// LOWER: "frontend.sink"
// KEEP: "frontend.marker"() : () -> ()
// KEEP: tshape.attention
// KEEP: "frontend.sink"
// SUMMARY: | qkv | 0 | 1 | 16 | 192 | 64 |
// NOFLAG: error: operation being parsed with an unregistered dialect. If this is intended, please use -allow-unregistered-dialect with the MLIR tool used

func.func @model(%t: tensor<1x16xi32>) -> tensor<1x16x64xf32> {
  "frontend.marker"() : () -> ()
  %x = tshape.embedding %t vocab = 64 : tensor<1x16xi32> -> tensor<1x16x64xf32>
  %a = tshape.attention %x heads = 2 kv_heads = 2 : tensor<1x16x64xf32> -> tensor<1x16x64xf32>
  %m = tshape.mlp %a inner = 128 activation = gelu : tensor<1x16x64xf32> -> tensor<1x16x64xf32>
  %l = tshape.lm_head %m vocab = 64 : tensor<1x16x64xf32> -> tensor<1x16x64xf32>
  "frontend.sink"(%l) : (tensor<1x16x64xf32>) -> ()
  return %l : tensor<1x16x64xf32>
}
