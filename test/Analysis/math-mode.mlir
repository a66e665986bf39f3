// The hand derivations below use the model constants as they were before
// calibration (Inputs/*-uncalibrated.json), so they stay checkable by hand.
// RUN: tshape-opt %s -split-input-file --tshape-gemm-analysis="target-file=%S/Inputs/a100-80gb-uncalibrated.json remarks=all" -verify-diagnostics -mlir-print-op-on-diagnostic=false -o /dev/null

// f32 GEMMs use TF32 tensor cores only where the model says so:
// #tshape.math<tf32> (or the lowered tshape.tf32). An explicit
// #tshape.math<ieee> means plain fp32 on the CUDA cores, not TF32.
// 1024^3 on A100: 4 x 8 = 32 tiles of 256x128, split-K 2 -> 64 CTAs on
// 108 SMs, one wave 64/108 full. fp32 runs at 19.5 TFLOP/s x 0.8:
// 2 x 1024^3 / 15.6e12 = 137.7 us / (64/108) + 2 = 234.3 us; TF32 at
// 156 x 0.8: 17.2 us / (64/108) + 2 = 31.0 us.
func.func @ieee(%a: tensor<1024x1024xf32>, %c: tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
    attributes {tshape.math = #tshape.math<ieee>} {
  // expected-warning-re @+1 {{linalg.matmul GEMM (1 x 1024x1024x1024, fp32) on a100-80gb: predicted 234.3 us{{.*}}}}
  %0 = linalg.matmul ins(%a, %a : tensor<1024x1024xf32>, tensor<1024x1024xf32>) outs(%c : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %0 : tensor<1024x1024xf32>
}

// -----

func.func @tf32(%a: tensor<1024x1024xf32>, %c: tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
    attributes {tshape.math = #tshape.math<tf32>} {
  // expected-warning-re @+1 {{linalg.matmul GEMM (1 x 1024x1024x1024, tf32) on a100-80gb: predicted 31.0 us{{.*}}}}
  %0 = linalg.matmul ins(%a, %a : tensor<1024x1024xf32>, tensor<1024x1024xf32>) outs(%c : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %0 : tensor<1024x1024xf32>
}

// -----

// The lowered form, on the module.
module attributes {tshape.tf32} {
  func.func @lowered(%a: tensor<1024x1024xf32>, %c: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
    // expected-warning-re @+1 {{linalg.matmul GEMM (1 x 1024x1024x1024, tf32) on a100-80gb: predicted 31.0 us{{.*}}}}
    %0 = linalg.matmul ins(%a, %a : tensor<1024x1024xf32>, tensor<1024x1024xf32>) outs(%c : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
    return %0 : tensor<1024x1024xf32>
  }
}
