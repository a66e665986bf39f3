// The hand derivations below use the model constants as they were before
// calibration (Inputs/*-uncalibrated.json), so they stay checkable by hand.
// RUN: tshape-opt %s --tshape-gemm-analysis="target-file=%S/Inputs/h100-sxm-uncalibrated.json remarks=none" | FileCheck %s

// Plain linalg (no tshape roles): N sweeps across wave boundaries at
// M = 1024, K = 4096, bf16 on H100 SXM. Compute-bound (35 GFLOP in 44.7 us
// ideal vs 51.6 MB in 18 us). With 256x128 tiles, 4 row tiles and N/128
// column tiles run on 132 SMs x 1 tile:
//   N = 4224: 4 x 33 = 132 tiles -> 1 wave, 100% full
//   N = 4352: 4 x 34 = 136 tiles -> 2 waves, 136/264 = 0.515 (time doubles)
//   N = 8448: 4 x 66 = 264 tiles -> 2 waves, 100% (same time, 2x the work)
//   N = 8576: 4 x 67 = 268 tiles -> 3 waves, 268/396 = 0.677
// Predicted times: ideal 2*1024*4224*4096/791.52e12 = 44.766 us per wave,
// + 2 us launch: 46.766, 91.533, 91.533, 136.299 us. TFLOP/s therefore
// rises and falls: a sawtooth in N.

// CHECK-LABEL: func.func @sweep
// CHECK: tshape.analysis = {{{.*}}predicted_us = 46.766{{[0-9]*}} : f64{{.*}}tile = array<i64: 256, 128>{{.*}}wave_efficiency = 1.000000e+00 : f64, waves = 1 : i64}
// CHECK: tshape.analysis = {{{.*}}flagged = true{{.*}}predicted_us = 91.532{{[0-9]*}} : f64{{.*}}wave_efficiency = 0.51515{{[0-9]*}} : f64, waves = 2 : i64}
// CHECK: tshape.analysis = {{{.*}}flagged = false{{.*}}predicted_us = 91.532{{[0-9]*}} : f64{{.*}}wave_efficiency = 1.000000e+00 : f64, waves = 2 : i64}
// CHECK: tshape.analysis = {{{.*}}flagged = true{{.*}}predicted_us = 136.299{{[0-9]*}} : f64{{.*}}wave_efficiency = 0.67676{{[0-9]*}} : f64, waves = 3 : i64}
func.func @sweep(%a: tensor<1024x4096xbf16>,
    %b1: tensor<4096x4224xbf16>, %c1: tensor<1024x4224xbf16>,
    %b2: tensor<4096x4352xbf16>, %c2: tensor<1024x4352xbf16>,
    %b3: tensor<4096x8448xbf16>, %c3: tensor<1024x8448xbf16>,
    %b4: tensor<4096x8576xbf16>, %c4: tensor<1024x8576xbf16>) {
  %0 = linalg.matmul ins(%a, %b1 : tensor<1024x4096xbf16>, tensor<4096x4224xbf16>) outs(%c1 : tensor<1024x4224xbf16>) -> tensor<1024x4224xbf16>
  %1 = linalg.matmul ins(%a, %b2 : tensor<1024x4096xbf16>, tensor<4096x4352xbf16>) outs(%c2 : tensor<1024x4352xbf16>) -> tensor<1024x4352xbf16>
  %2 = linalg.matmul ins(%a, %b3 : tensor<1024x4096xbf16>, tensor<4096x8448xbf16>) outs(%c3 : tensor<1024x8448xbf16>) -> tensor<1024x8448xbf16>
  %3 = linalg.matmul ins(%a, %b4 : tensor<1024x4096xbf16>, tensor<4096x8576xbf16>) outs(%c4 : tensor<1024x8576xbf16>) -> tensor<1024x8576xbf16>
  return
}
