// GEMMs the cost model has no dtype for (integer, f64) get no prediction.
// force=true pads them anyway, as it pads every unaligned GEMM; without it
// a remark says why they are left alone.
// RUN: tshape-opt %s --tshape-pad-gemms="force=true" -mlir-print-op-on-diagnostic=false 2>/dev/null | FileCheck %s
// RUN: tshape-opt %s --tshape-pad-gemms="force=true" -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=FORCED
// RUN: tshape-opt %s --tshape-pad-gemms -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=KEPT
// RUN: tshape-opt %s --tshape-pad-gemms 2>/dev/null | FileCheck %s --check-prefix=KEPTIR
// KEPTIR-NOT: tensor.pad
// RUN: tshape-opt %s --tshape-pad-gemms="force=true" 2>/dev/null | mlir-opt > /dev/null

// An int8 batched GEMM accumulating in i32: 4 x (100 x 200) . (200 x 60).
// The default target (h100-sxm) aligns to 128 bytes, 128 i8 elements:
// M 100 -> 128, N 60 -> 128, K 200 -> 256. Each operand is padded with a
// zero of its own element type (i8 for A and B, i32 for the accumulator);
// zeros add nothing to the sum, and the slice takes the 4 x 100 x 60
// result back, so the values are unchanged (pad-gemms-exec.mlir runs one).
// CHECK-LABEL: func.func @int8_bmm
// CHECK: %[[Z8:.*]] = arith.constant 0 : i8
// CHECK: %[[A:.*]] = tensor.pad %arg0 low[0, 0, 0] high[0, 28, 56]
// CHECK: tensor.yield %[[Z8]] : i8
// CHECK: tensor<4x100x200xi8> to tensor<4x128x256xi8>
// CHECK: %[[B:.*]] = tensor.pad %arg1 low[0, 0, 0] high[0, 56, 68]
// CHECK: tensor.yield %[[Z8]] : i8
// CHECK: tensor<4x200x60xi8> to tensor<4x256x128xi8>
// CHECK: %[[Z32:.*]] = arith.constant 0 : i32
// CHECK: %[[C:.*]] = tensor.pad %arg2 low[0, 0, 0] high[0, 28, 68]
// CHECK: tensor.yield %[[Z32]] : i32
// CHECK: tensor<4x100x60xi32> to tensor<4x128x128xi32>
// CHECK: %[[R:.*]] = linalg.batch_matmul ins(%[[A]], %[[B]] : tensor<4x128x256xi8>, tensor<4x256x128xi8>) outs(%[[C]] : tensor<4x128x128xi32>)
// CHECK: %[[S:.*]] = tensor.extract_slice %[[R]][0, 0, 0] [4, 100, 60] [1, 1, 1] : tensor<4x128x128xi32> to tensor<4x100x60xi32>
// CHECK: return %[[S]]
// FORCED: remark: tshape-pad-gemms: padded M 100 -> 128, N 60 -> 128, K 200 -> 256 (forced; element type 'i8' has no GEMM model, so no gain is predicted); operand 0 (a function argument), operand 1 (a function argument) could be stored pre-padded to drop its copy
// KEPT: remark: tshape-pad-gemms: not padded: M 100 -> 128, N 60 -> 128, K 200 -> 256: element type 'i8' has no GEMM model to predict a gain (force=true pads it)
func.func @int8_bmm(%a: tensor<4x100x200xi8>, %b: tensor<4x200x60xi8>, %c: tensor<4x100x60xi32>) -> tensor<4x100x60xi32> {
  %r = linalg.batch_matmul ins(%a, %b : tensor<4x100x200xi8>, tensor<4x200x60xi8>) outs(%c : tensor<4x100x60xi32>) -> tensor<4x100x60xi32>
  return %r : tensor<4x100x60xi32>
}

// quantized_matmul subtracts the zero points before multiplying: its body
// is not a multiply-add, so a zero in K would add (0 - za) (b - zb), and K
// is never padded. M and N are (their extra rows and columns are sliced
// away); the scalar zero points pass through unchanged.
// CHECK-LABEL: func.func @quantized
// CHECK: tensor<100x200xi8> to tensor<128x200xi8>
// CHECK: tensor<200x60xi8> to tensor<200x128xi8>
// CHECK: linalg.quantized_matmul ins(%{{.*}}, %{{.*}}, %arg2, %arg3 : tensor<128x200xi8>, tensor<200x128xi8>, i32, i32) outs(%{{.*}} : tensor<128x128xi32>)
// CHECK: tensor.extract_slice %{{.*}}[0, 0] [100, 60] [1, 1]
// FORCED: remark: tshape-pad-gemms: padded M 100 -> 128, N 60 -> 128 (forced; element type 'i8'
// KEPT: remark: tshape-pad-gemms: not padded: M 100 -> 128, N 60 -> 128: element type 'i8'
func.func @quantized(%a: tensor<100x200xi8>, %b: tensor<200x60xi8>, %za: i32, %zb: i32, %c: tensor<100x60xi32>) -> tensor<100x60xi32> {
  %r = linalg.quantized_matmul ins(%a, %b, %za, %zb : tensor<100x200xi8>, tensor<200x60xi8>, i32, i32) outs(%c : tensor<100x60xi32>) -> tensor<100x60xi32>
  return %r : tensor<100x60xi32>
}

// f64 has no GEMM model either: 8-byte elements align to 16.
// CHECK-LABEL: func.func @f64
// CHECK: arith.constant 0.000000e+00 : f64
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<16x32xf64>, tensor<32x32xf64>) outs(%{{.*}} : tensor<16x32xf64>)
// FORCED: remark: tshape-pad-gemms: padded M 10 -> 16, N 30 -> 32, K 20 -> 32 (forced; element type 'f64'
func.func @f64(%a: tensor<10x20xf64>, %b: tensor<20x30xf64>, %c: tensor<10x30xf64>) -> tensor<10x30xf64> {
  %r = linalg.matmul ins(%a, %b : tensor<10x20xf64>, tensor<20x30xf64>) outs(%c : tensor<10x30xf64>) -> tensor<10x30xf64>
  return %r : tensor<10x30xf64>
}

// A complex GEMM has no arith zero to pad with: left alone, and said so.
// CHECK-LABEL: func.func @complex
// CHECK-NOT: tensor.pad
// FORCED: remark: tshape-pad-gemms: not padded: element type 'complex<f32>' has no arith zero to pad with
func.func @complex(%a: tensor<10x20xcomplex<f32>>, %b: tensor<20x30xcomplex<f32>>, %c: tensor<10x30xcomplex<f32>>) -> tensor<10x30xcomplex<f32>> {
  %r = linalg.matmul ins(%a, %b : tensor<10x20xcomplex<f32>>, tensor<20x30xcomplex<f32>>) outs(%c : tensor<10x30xcomplex<f32>>) -> tensor<10x30xcomplex<f32>>
  return %r : tensor<10x30xcomplex<f32>>
}
