// The accumulator case of pad-gemms-accumulator.mlir, executed: a bf16 GEMM
// (13 x 37) . (29 x 37)^T into an f32 accumulator that holds non-zero
// values on entry (a passed-in partial sum), padded to multiples of 16 and
// run with upstream mlir-runner against the unpadded program. Zero rows and
// columns add exact zeros in the same order, so the printed values are
// identical. (The logits shape itself, 2.1 TFLOP, is too large to execute
// on a CPU in a test.)
// RUN: mlir-opt %s %lower_to_llvm | mlir-runner -e main -entry-point-result=void %runner_libs | grep -v "base@" > %t.orig
// RUN: tshape-opt %s --tshape-pad-gemms="force=true multiple=16" 2>%t.remarks | mlir-opt %lower_to_llvm | mlir-runner -e main -entry-point-result=void %runner_libs | grep -v "base@" > %t.padded
// RUN: diff %t.orig %t.padded
// RUN: FileCheck %s --check-prefix=REMARKS < %t.remarks
// RUN: FileCheck %s --check-prefix=VALUES < %t.padded
// REMARKS: padded M 13 -> 16, N 29 -> 32, K 37 -> 48
// VALUES: {{^\[\[-?[0-9]}}
// VALUES-NOT: nan

func.func private @printMemrefF32(memref<*xf32>)

func.func @fill(%seed: f32, %init: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} outs(%init : tensor<?x?xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %ii = arith.index_cast %i : index to i64
    %jj = arith.index_cast %j : index to i64
    %fi = arith.sitofp %ii : i64 to f32
    %fj = arith.sitofp %jj : i64 to f32
    %a = arith.constant 0.37 : f32
    %b = arith.constant 1.13 : f32
    %x = arith.mulf %fi, %a : f32
    %y = arith.mulf %fj, %b : f32
    %s = arith.addf %x, %y : f32
    %t = arith.addf %s, %seed : f32
    %v = math.sin %t : f32
    linalg.yield %v : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

func.func @tobf16(%x: tensor<?x?xf32>, %init: tensor<?x?xbf16>) -> tensor<?x?xbf16> {
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<?x?xf32>) outs(%init : tensor<?x?xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %v = arith.truncf %in : f32 to bf16
    linalg.yield %v : bf16
  } -> tensor<?x?xbf16>
  return %r : tensor<?x?xbf16>
}

func.func @gemm(%a: tensor<13x37xbf16>, %w: tensor<29x37xbf16>, %acc: tensor<13x29xf32>) -> tensor<13x29xf32> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %w : tensor<13x37xbf16>, tensor<29x37xbf16>) outs(%acc : tensor<13x29xf32>) -> tensor<13x29xf32>
  return %r : tensor<13x29xf32>
}

func.func @main() {
  %c13 = arith.constant 13 : index
  %c29 = arith.constant 29 : index
  %c37 = arith.constant 37 : index
  %s1 = arith.constant 0.5 : f32
  %s2 = arith.constant -1.25 : f32
  %s3 = arith.constant 2.0 : f32
  %ea = tensor.empty(%c13, %c37) : tensor<?x?xf32>
  %ew = tensor.empty(%c29, %c37) : tensor<?x?xf32>
  %ec = tensor.empty(%c13, %c29) : tensor<?x?xf32>
  %fa = call @fill(%s1, %ea) : (f32, tensor<?x?xf32>) -> tensor<?x?xf32>
  %fw = call @fill(%s2, %ew) : (f32, tensor<?x?xf32>) -> tensor<?x?xf32>
  %fc = call @fill(%s3, %ec) : (f32, tensor<?x?xf32>) -> tensor<?x?xf32>
  %ba = tensor.empty(%c13, %c37) : tensor<?x?xbf16>
  %bw = tensor.empty(%c29, %c37) : tensor<?x?xbf16>
  %da = call @tobf16(%fa, %ba) : (tensor<?x?xf32>, tensor<?x?xbf16>) -> tensor<?x?xbf16>
  %dw = call @tobf16(%fw, %bw) : (tensor<?x?xf32>, tensor<?x?xbf16>) -> tensor<?x?xbf16>
  %a = tensor.cast %da : tensor<?x?xbf16> to tensor<13x37xbf16>
  %w = tensor.cast %dw : tensor<?x?xbf16> to tensor<29x37xbf16>
  %acc = tensor.cast %fc : tensor<?x?xf32> to tensor<13x29xf32>
  %r = call @gemm(%a, %w, %acc) : (tensor<13x37xbf16>, tensor<29x37xbf16>, tensor<13x29xf32>) -> tensor<13x29xf32>
  %m = bufferization.to_buffer %r : tensor<13x29xf32> to memref<13x29xf32>
  %u = memref.cast %m : memref<13x29xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}
