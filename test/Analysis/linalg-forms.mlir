// The hand derivations below use the model constants as they were before
// calibration (Inputs/*-uncalibrated.json), so they stay checkable by hand.
// RUN: tshape-opt %s --tshape-gemm-summary -mlir-print-op-on-diagnostic=false -o /dev/null 2>/dev/null | FileCheck %s
// RUN: tshape-opt %s --tshape-gemm-analysis="target-file=%S/Inputs/h100-sxm-uncalibrated.json remarks=all" -verify-diagnostics -mlir-print-op-on-diagnostic=false -o /dev/null
// RUN: tshape-opt %s --tshape-pad-gemms="force=true" 2>/dev/null | FileCheck %s --check-prefix=PAD
// RUN: tshape-opt %s --tshape-gemm-summary=output=%t.json -o /dev/null 2>/dev/null
// RUN: python3 -c "import json; r = json.load(open('%t.json')); [print(g['role'], g['batch'], g['m'], g['n'], g['k'], int(g['flops'])) for g in r['groups']]; print(sorted(r['skipped'].items()))" | FileCheck %s --check-prefix=FLOPS
// Exact FLOPs, 2 x batch x M x N x K (the two contracts summed):
// FLOPS: linalg.matvec 1 4096 1 11008 90177536
// FLOPS-NEXT: linalg.vecmat 1 1 11008 4096 90177536
// FLOPS-NEXT: linalg.batch_matvec 8 128 1 64 131072
// FLOPS-NEXT: linalg.batch_matmul 1 1024 128 512 134217728
// FLOPS-NEXT: linalg.matmul 1 256 128 512 33554432
// FLOPS-NEXT: linalg.contract 1 64 32 128 1048576
// FLOPS-NEXT: linalg.quantized_matmul 1 64 32 128 524288
// FLOPS-NEXT: linalg.dot 1 1 1 4096 8192
// FLOPS-NEXT: linalg.contract 1 1 1 1000 2000
// FLOPS-NEXT: [('convolution', 1), ('reduction', 1)]
// force=true pads the int8 quantized_matmul too, though the model has no
// int8 path to predict it: M 64 -> 128 and N 32 -> 128 (128 one-byte
// elements); its zero points pass through (pad-gemms-integer.mlir).
// PAD: linalg.quantized_matmul ins(%{{.*}}, %{{.*}}, %arg2, %arg3 : tensor<128x128xi8>, tensor<128x128xi8>, i32, i32) outs(%{{.*}} : tensor<128x128xi32>)
// A convolution is never padded as a GEMM, even with force=true.
// PAD: linalg.conv_2d_nhwc_hwcf ins(%{{.*}}, %{{.*}} : tensor<1x58x58x64xf32>, tensor<3x3x64x64xf32>) outs(%{{.*}} : tensor<1x56x56x64xf32>)
// A dot has no M or N dimension to pad; only its K: 1000 -> 1024 (32 f32
// elements); the bf16 dot's K = 4096 is aligned already.
// PAD-LABEL: func.func @dots
// PAD: linalg.dot ins(%{{.*}}, %{{.*}} : tensor<4096xbf16>, tensor<4096xbf16>)
// PAD: linalg.contract {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1024xf32>, tensor<1024xf32>) outs(%{{.*}} : tensor<f32>)

// Every matmul-like form is read as a GEMM with its batch, M, N and K, or
// reported with the reason it is not. FLOPs = 2 x batch x M x N x K.
//
// GEMV (decode): matvec (4096 x 11008) . x is M = 4096, N = 1, K = 11008:
// 2 x 4096 x 11008 = 90,177,536 FLOPs = 0.1 GFLOP. vecmat is M = 1,
// N = 11008, K = 4096 (same FLOPs). batch_matvec: 8 x (128 x 64) . x:
// batch 8, M = 128, N = 1, K = 64: 131,072 FLOPs.
// CHECK: | linalg.matvec | - | 1 | 4096 | 1 | 11008 | 0.1 |
// CHECK: | linalg.vecmat | - | 1 | 1 | 11008 | 4096 | 0.1 |
// CHECK: | linalg.batch_matvec | - | 8 | 128 | 1 | 64 | 0.0 |
// A broadcast operand is a GEMM with shared weights: batch_matmul whose B
// has no batch dimension is (4 x 256 = 1024) x 512 . 512 x 128; a matmul whose
// A is one row broadcast over M = 256 still computes 256 x 128 outputs
// (2 x 256 x 128 x 512 = 33,554,432 FLOPs); contract with a 1-D B
// broadcast over N = 32 likewise.
// CHECK: | linalg.batch_matmul | - | 1 | 1024 | 128 | 512 | 0.1 |
// CHECK: | linalg.matmul | - | 1 | 256 | 128 | 512 | 0.0 |
// The contract in the transposed-B form, (64 x 128) . (32 x 128)^T, has
// the same role and shape, so the summary merges the two contracts.
// CHECK: | linalg.contract | - | 1 | 64 | 32 | 128 | 0.0 |
// quantized_matmul: the zero points are scalars outside the index
// structure; (64 x 128) . (128 x 32).
// CHECK: | linalg.quantized_matmul | - | 1 | 64 | 32 | 128 | 0.0 |
// A dot product is read as a GEMM of one output, M = N = 1, K = the vector
// length: linalg.dot of two 4096-element vectors is 1 x 1 x 4096
// (2 x 4096 = 8,192 FLOPs), and a linalg.contract with the dot maps
// (k) -> (k), (k) -> (k), (k) -> () is the same form.
// CHECK: | linalg.dot | - | 1 | 1 | 1 | 4096 | 0.0 |
// CHECK: | linalg.contract | - | 1 | 1 | 1 | 1000 | 0.0 |
// A convolution and a plain reduction are not GEMMs: counted, not read.
// CHECK: 10 GEMMs, 0.00 TFLOP in all; not read as GEMMs: 1 convolution, 1 reduction

func.func @gemv(%a: tensor<4096x11008xbf16>, %x: tensor<11008xbf16>, %y: tensor<4096xbf16>, %xt: tensor<4096xbf16>, %z: tensor<11008xbf16>, %ba: tensor<8x128x64xbf16>, %bx: tensor<8x64xbf16>, %by: tensor<8x128xbf16>) -> (tensor<4096xbf16>, tensor<11008xbf16>, tensor<8x128xbf16>) {
  // expected-warning @+1 {{linalg.matvec GEMM (1 x 4096x1x11008, bf16)}}
  %0 = linalg.matvec ins(%a, %x : tensor<4096x11008xbf16>, tensor<11008xbf16>) outs(%y : tensor<4096xbf16>) -> tensor<4096xbf16>
  // expected-remark @+1 {{linalg.vecmat GEMM (1 x 1x11008x4096, bf16)}}
  %1 = linalg.vecmat ins(%xt, %a : tensor<4096xbf16>, tensor<4096x11008xbf16>) outs(%z : tensor<11008xbf16>) -> tensor<11008xbf16>
  // expected-remark @+1 {{linalg.batch_matvec GEMM (8 x 128x1x64, bf16)}}
  %2 = linalg.batch_matvec ins(%ba, %bx : tensor<8x128x64xbf16>, tensor<8x64xbf16>) outs(%by : tensor<8x128xbf16>) -> tensor<8x128xbf16>
  return %0, %1, %2 : tensor<4096xbf16>, tensor<11008xbf16>, tensor<8x128xbf16>
}

func.func @bcast(%a: tensor<4x256x512xf32>, %b: tensor<512x128xf32>, %c: tensor<4x256x128xf32>, %v: tensor<512xf32>, %d: tensor<256x128xf32>, %m: tensor<64x128xf32>, %w: tensor<128xf32>, %e: tensor<64x32xf32>) -> (tensor<4x256x128xf32>, tensor<256x128xf32>, tensor<64x32xf32>) {
  // expected-remark @+1 {{linalg.batch_matmul GEMM (1 x 1024x128x512, fp32)}}
  %0 = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (k, n)>, affine_map<(b, m, n, k) -> (b, m, n)>] ins(%a, %b : tensor<4x256x512xf32>, tensor<512x128xf32>) outs(%c : tensor<4x256x128xf32>) -> tensor<4x256x128xf32>
  // expected-warning @+1 {{linalg.matmul GEMM (1 x 256x128x512, fp32)}}
  %1 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>] ins(%v, %b : tensor<512xf32>, tensor<512x128xf32>) outs(%d : tensor<256x128xf32>) -> tensor<256x128xf32>
  // Merged with the contract of @others (same role and shape): one warning.
  // expected-warning @+1 {{linalg.contract GEMM (x2) (1 x 64x32x128, fp32)}}
  %2 = linalg.contract indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k)>, affine_map<(m, n, k) -> (m, n)>] ins(%m, %w : tensor<64x128xf32>, tensor<128xf32>) outs(%e : tensor<64x32xf32>) -> tensor<64x32xf32>
  return %0, %1, %2 : tensor<4x256x128xf32>, tensor<256x128xf32>, tensor<64x32xf32>
}

func.func @others(%a: tensor<64x128xi8>, %b: tensor<128x32xi8>, %za: i32, %zb: i32, %c: tensor<64x32xi32>, %i: tensor<1x58x58x64xf32>, %f: tensor<3x3x64x64xf32>, %o: tensor<1x56x56x64xf32>, %x: tensor<64x128xf32>, %y: tensor<32x128xf32>, %z: tensor<64x32xf32>, %r: tensor<64xf32>) -> (tensor<64x32xi32>, tensor<1x56x56x64xf32>, tensor<64x32xf32>, tensor<64xf32>) {
  // The cost model has no int8 path yet: read, then skipped by the analysis.
  // expected-remark @+1 {{tshape-gemm-analysis: skipped: element type 'i8' has no GEMM model}}
  %0 = linalg.quantized_matmul ins(%a, %b, %za, %zb : tensor<64x128xi8>, tensor<128x32xi8>, i32, i32) outs(%c : tensor<64x32xi32>) -> tensor<64x32xi32>
  // 3 x 3 taps over 64 channels, 56 x 56 outputs: an implicit GEMM of
  // M = 3136, N = 64, K = 576, never a plain one of M = 1.
  // expected-remark @+1 {{tshape-gemm-analysis: skipped: convolution: its input window (indexed by sums of loop dimensions) is not a matrix operand; convolutions are not analyzed as GEMMs}}
  %1 = linalg.conv_2d_nhwc_hwcf ins(%i, %f : tensor<1x58x58x64xf32>, tensor<3x3x64x64xf32>) outs(%o : tensor<1x56x56x64xf32>) -> tensor<1x56x56x64xf32>
  %2 = linalg.contract indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%x, %y : tensor<64x128xf32>, tensor<32x128xf32>) outs(%z : tensor<64x32xf32>) -> tensor<64x32xf32>
  // expected-remark @+1 {{tshape-gemm-analysis: skipped: a reduction that is not a contraction (no operand pair multiplies over it): not a GEMM}}
  %3 = linalg.reduce ins(%x : tensor<64x128xf32>) outs(%r : tensor<64xf32>) dimensions = [1]
    (%p: f32, %q: f32) {
      %s = arith.addf %p, %q : f32
      linalg.yield %s : f32
    }
  return %0, %1, %2, %3 : tensor<64x32xi32>, tensor<1x56x56x64xf32>, tensor<64x32xf32>, tensor<64xf32>
}

// A dot is a 1 x 1 x K GEMM: its one output fills a sliver of a tile, so
// the model predicts it almost all lost. The bf16 dot is less work than a
// kernel launch: reported launch-bound, not flagged; the f32 one is flagged.
func.func @dots(%a: tensor<4096xbf16>, %b: tensor<4096xbf16>, %c: tensor<bf16>, %x: tensor<1000xf32>, %y: tensor<1000xf32>, %z: tensor<f32>) -> (tensor<bf16>, tensor<f32>) {
  // expected-remark @+1 {{linalg.dot GEMM (1 x 1x1x4096, bf16) on h100-sxm: predicted 3.7 us, 100% lost; launch-bound}}
  %0 = linalg.dot ins(%a, %b : tensor<4096xbf16>, tensor<4096xbf16>) outs(%c : tensor<bf16>) -> tensor<bf16>
  // expected-warning @+1 {{linalg.contract GEMM (1 x 1x1x1000, fp32)}}
  %1 = linalg.contract indexing_maps = [affine_map<(k) -> (k)>, affine_map<(k) -> (k)>, affine_map<(k) -> ()>] ins(%x, %y : tensor<1000xf32>, tensor<1000xf32>) outs(%z : tensor<f32>) -> tensor<f32>
  return %0, %1 : tensor<bf16>, tensor<f32>
}
