// RUN: tshape-opt %s -split-input-file --tshape-pad-gemms="target-file=%S/../Analysis/Inputs/h100-sxm-uncalibrated.json" -verify-diagnostics -mlir-print-op-on-diagnostic=false -o /dev/null
// RUN: tshape-opt %s -split-input-file --tshape-pad-gemms="target-file=%S/../Analysis/Inputs/h100-sxm-uncalibrated.json" -mlir-print-op-on-diagnostic=false 2>/dev/null | FileCheck %s
// RUN: tshape-opt %s -split-input-file --tshape-pad-gemms="target-file=%S/../Analysis/Inputs/h100-sxm-uncalibrated.json" -mlir-print-op-on-diagnostic=false 2>/dev/null | mlir-opt -split-input-file > /dev/null

// The derivations use the H100's model constants as they were before
// calibration (Analysis/Inputs/h100-sxm-uncalibrated.json: 0.8 of peak,
// 0.85 of bandwidth, 2 us launch), so they stay checkable by hand;
// pad-gemms-accumulator.mlir runs the calibrated default target.
//
// The GPT-2 logits GEMM, b*s = 8192, h = 768, v = 50257, bf16, weights
// stored [v, h], output initialised by a fill (as tshape-lower-to-linalg
// emits it). N = 50257 rows are 2-byte aligned (0.6x loads): padding N to
// 50304 = 64 x 786 predicts 1345.0 -> 807.8 us. Copies: the weight pad reads
// 50257 x 768 and writes 50304 x 768 bf16 (154.5 MB: 54.24 us at 2847.5 GB/s,
// + 2 us launch); the fill is rebuilt 47 columns wider (0.8 MB, 0.27 us); the
// slice back is a view. Net 1345.0 / (807.8 + 56.5) = 1.56x. The weight is a
// constant: stored pre-padded, its copy would go.
// CHECK-LABEL: func.func @logits
// CHECK: %[[W:.*]] = arith.constant dense<{{.*}}> : tensor<50257x768xbf16>
// CHECK: %[[WP:.*]] = tensor.pad %[[W]] low[0, 0] high[47, 0]
// CHECK: tensor<50257x768xbf16> to tensor<50304x768xbf16>
// CHECK: %[[E:.*]] = tensor.empty() : tensor<8192x50304xbf16>
// CHECK: %[[F:.*]] = linalg.fill ins(%{{.*}} : bf16) outs(%[[E]] : tensor<8192x50304xbf16>)
// CHECK: %[[R:.*]] = linalg.matmul {{.*}}tshape.role = "logits"{{.*}} ins(%{{.*}}, %[[WP]] : tensor<8192x768xbf16>, tensor<50304x768xbf16>) outs(%[[F]] : tensor<8192x50304xbf16>)
// CHECK: %[[S:.*]] = tensor.extract_slice %[[R]][0, 0] [8192, 50257] [1, 1] : tensor<8192x50304xbf16> to tensor<8192x50257xbf16>
// CHECK: return %[[S]]
func.func @logits(%x: tensor<8192x768xbf16>) -> tensor<8192x50257xbf16> {
  %w = arith.constant dense<0.01> : tensor<50257x768xbf16>
  %zero = arith.constant 0.0 : bf16
  %e = tensor.empty() : tensor<8192x50257xbf16>
  %init = linalg.fill ins(%zero : bf16) outs(%e : tensor<8192x50257xbf16>) -> tensor<8192x50257xbf16>
  // expected-remark @+1 {{tshape-pad-gemms: padded N 50257 -> 50304: predicted 1345.0 -> 807.8 us + 56.5 us of pad copies = 1.56x; operand 1 (a constant) could be stored pre-padded to drop its copy}}
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      {tshape.role = "logits", tshape.layer = -1 : i64}
      ins(%x, %w : tensor<8192x768xbf16>, tensor<50257x768xbf16>) outs(%init : tensor<8192x50257xbf16>) -> tensor<8192x50257xbf16>
  return %r : tensor<8192x50257xbf16>
}

// -----

// The same GEMM accumulating into an argument: the output must be copied
// into a padded buffer (824 MB read + 824 MB written, ~580 us), and the
// pads no longer pay. Not padded: the copy is not free.
// CHECK-LABEL: func.func @logits_accumulate
// CHECK-NOT: tensor.pad
func.func @logits_accumulate(%x: tensor<8192x768xbf16>, %acc: tensor<8192x50257xbf16>) -> tensor<8192x50257xbf16> {
  %w = arith.constant dense<0.01> : tensor<50257x768xbf16>
  // expected-remark-re @+1 {{tshape-pad-gemms: not padded: N 50257 -> 50304 predicts 1345.0 -> 807.8 us + {{6[0-9][0-9]}}.{{[0-9]}} us of copies (no net gain)}}
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<8192x768xbf16>, tensor<50257x768xbf16>) outs(%acc : tensor<8192x50257xbf16>) -> tensor<8192x50257xbf16>
  return %r : tensor<8192x50257xbf16>
}

// -----

// A small memory-bound GEMM: padding gains nothing that pays for the copies.
// CHECK-LABEL: func.func @small
// CHECK-NOT: tensor.pad
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<100x200xbf16>, tensor<200x300xbf16>)
func.func @small(%a: tensor<100x200xbf16>, %b: tensor<200x300xbf16>, %c: tensor<100x300xbf16>) -> tensor<100x300xbf16> {
  // expected-remark-re @+1 {{tshape-pad-gemms: not padded: M 100 -> 128, N 300 -> 320, K 200 -> 256 predicts {{.*}} (no net gain)}}
  %r = linalg.matmul ins(%a, %b : tensor<100x200xbf16>, tensor<200x300xbf16>) outs(%c : tensor<100x300xbf16>) -> tensor<100x300xbf16>
  return %r : tensor<100x300xbf16>
}

// -----

// Already aligned: untouched, no remark.
// CHECK-LABEL: func.func @aligned
// CHECK-NOT: tensor.pad
func.func @aligned(%a: tensor<4096x4096xbf16>, %c: tensor<4096x4096xbf16>) -> tensor<4096x4096xbf16> {
  %r = linalg.matmul ins(%a, %a : tensor<4096x4096xbf16>, tensor<4096x4096xbf16>) outs(%c : tensor<4096x4096xbf16>) -> tensor<4096x4096xbf16>
  return %r : tensor<4096x4096xbf16>
}
