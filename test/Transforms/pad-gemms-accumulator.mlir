// A bf16 GEMM whose f32 accumulator is passed in as an argument (IREE's
// usual form): every operand is padded with a zero of its own element type.
// Before, one bf16 zero padded every operand, and tensor.pad of the f32
// accumulator with a bf16 value was invalid IR.
//
// The executed check at a CPU-sized shape is pad-gemms-accumulator-exec.mlir.
//
// The README's logits shape (b*s = 8192, h = 2560, vocab 50257, weights
// stored [N, K]): N 50257 -> 50304 is a net gain without force, and the
// padded module verifies under upstream mlir-opt.
// RUN: tshape-opt %s --tshape-pad-gemms -mlir-print-op-on-diagnostic=false 2>&1 >%t.mlir | FileCheck %s --check-prefix=REMARK
// RUN: mlir-opt %t.mlir -o /dev/null
// RUN: FileCheck %s < %t.mlir
// REMARK: remark: tshape-pad-gemms: padded N 50257 -> 50304
// CHECK: %[[ZB:.*]] = arith.constant 0.000000e+00 : bf16
// CHECK: tensor.pad %arg1 low[0, 0] high[47, 0]
// CHECK: tensor.yield %[[ZB]] : bf16
// CHECK: %[[ZF:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: tensor.pad %arg2 low[0, 0] high[0, 47]
// CHECK: tensor.yield %[[ZF]] : f32
// CHECK: linalg.matmul {{.*}} ins(%arg0, %{{.*}} : tensor<8192x2560xbf16>, tensor<50304x2560xbf16>) outs(%{{.*}} : tensor<8192x50304xf32>)
// CHECK: tensor.extract_slice {{.*}}[0, 0] [8192, 50257] [1, 1] : tensor<8192x50304xf32> to tensor<8192x50257xf32>
func.func @logits(%x: tensor<8192x2560xbf16>, %w: tensor<50257x2560xbf16>, %acc: tensor<8192x50257xf32>) -> tensor<8192x50257xf32> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<8192x2560xbf16>, tensor<50257x2560xbf16>) outs(%acc : tensor<8192x50257xf32>) -> tensor<8192x50257xf32>
  return %r : tensor<8192x50257xf32>
}
