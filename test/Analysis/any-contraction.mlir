// The hand derivations below use the model constants as they were before
// calibration (Inputs/*-uncalibrated.json), so they stay checkable by hand.
// RUN: tshape-opt %s --tshape-gemm-analysis="target-file=%S/Inputs/a100-80gb-uncalibrated.json remarks=all" -mlir-print-op-on-diagnostic=false -verify-diagnostics -o /dev/null

// IR from any frontend: a transposed-B matmul written with indexing_maps, a
// linalg.generic contraction, an fp32 GEMM, fp8 on a GPU without FP8 GEMMs,
// an integer GEMM and a dynamic one. Remarks (remarks=all) report the
// predictions that are not flagged; skipped ones say why.

#a = affine_map<(m, n, k) -> (m, k)>
#bt = affine_map<(m, n, k) -> (n, k)>
#c = affine_map<(m, n, k) -> (m, n)>
func.func @frontends(%x: tensor<4096x4096xf16>, %w: tensor<4096x4096xf16>, %y: tensor<4096x4096xf16>,
                     %f: tensor<2048x2048xf32>, %fy: tensor<2048x2048xf32>,
                     %e: tensor<1024x1024xf8E4M3FN>, %ey: tensor<1024x1024xf8E4M3FN>,
                     %i: tensor<64x64xi8>, %iy: tensor<64x64xi32>,
                     %d: tensor<?x4096xf16>, %dy: tensor<?x4096xf16>) {
  // 4096^3 fp16 on A100: 32 x 16 = 512 tiles of 256x128 on 108 SMs: 5
  // waves, the last 80/108 full: 512/540 = 94.8% (5% loss, a remark).
  // expected-remark-re @+1 {{linalg.matmul GEMM (1 x 4096x4096x4096, fp16) on a100-80gb: predicted {{.*}} us, 5% lost; last of 5 waves 74% full (512 tiles on 108 slots)}}
  %0 = linalg.matmul indexing_maps = [#a, #bt, #c] ins(%x, %w : tensor<4096x4096xf16>, tensor<4096x4096xf16>) outs(%y : tensor<4096x4096xf16>) -> tensor<4096x4096xf16>
  // expected-remark-re @+1 {{linalg.generic GEMM (1 x 4096x4096x4096, fp16) on a100-80gb: predicted {{.*}} us, 5% lost}}
  %1 = linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<4096x4096xf16>, tensor<4096x4096xf16>) outs(%y : tensor<4096x4096xf16>) {
  ^bb0(%p: f16, %q: f16, %acc: f16):
    %m = arith.mulf %p, %q : f16
    %s = arith.addf %acc, %m : f16
    linalg.yield %s : f16
  } -> tensor<4096x4096xf16>
  // fp32 without TF32 runs on the CUDA cores (19.5 TFLOP/s). 8 x 16 = 128
  // tiles on 108 SMs: 2 waves, 128/216 = 59% full: 41% loss, a warning.
  // expected-warning-re @+1 {{linalg.matmul GEMM (1 x 2048x2048x2048, fp32) on a100-80gb: predicted {{.*}} us, 41% lost; last of 2 waves 19% full (128 tiles on 108 slots)}}
  %2 = linalg.matmul ins(%f, %f : tensor<2048x2048xf32>, tensor<2048x2048xf32>) outs(%fy : tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
  // expected-remark @+1 {{linalg.matmul GEMM (1 x 1024x1024x1024, fp8) on a100-80gb: fp8 has no GEMM path on a100-80gb; not predicted}}
  %3 = linalg.matmul ins(%e, %e : tensor<1024x1024xf8E4M3FN>, tensor<1024x1024xf8E4M3FN>) outs(%ey : tensor<1024x1024xf8E4M3FN>) -> tensor<1024x1024xf8E4M3FN>
  // expected-remark @+1 {{tshape-gemm-analysis: skipped: element type 'i8' has no GEMM model}}
  %4 = linalg.matmul ins(%i, %i : tensor<64x64xi8>, tensor<64x64xi8>) outs(%iy : tensor<64x64xi32>) -> tensor<64x64xi32>
  // expected-remark @+1 {{tshape-gemm-analysis: skipped: dynamic shape}}
  %5 = linalg.matmul ins(%d, %w : tensor<?x4096xf16>, tensor<4096x4096xf16>) outs(%dy : tensor<?x4096xf16>) -> tensor<?x4096xf16>
  return
}
