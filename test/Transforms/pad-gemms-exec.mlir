// Padding keeps the results: the original and the padded program run on the
// CPU (upstream mlir-runner) on deterministic non-zero inputs, and every
// printed value is identical (zero rows and columns add exact zeros to each
// sum, in the same order, so not even rounding differs).
// RUN: mlir-opt %s %lower_to_llvm | mlir-runner -e main -entry-point-result=void %runner_libs | grep -v "base@" > %t.orig
// RUN: tshape-opt %s --tshape-pad-gemms="force=true multiple=16" 2>%t.remarks | mlir-opt %lower_to_llvm | mlir-runner -e main -entry-point-result=void %runner_libs | grep -v "base@" > %t.padded
// RUN: diff %t.orig %t.padded
// RUN: FileCheck %s --check-prefix=REMARKS < %t.remarks
// RUN: FileCheck %s --check-prefix=VALUES < %t.padded
//
// Five contractions, each padded to multiples of 16:
// REMARKS: padded M 13 -> 16, N 29 -> 32, K 37 -> 48
// REMARKS: padded M 13 -> 16, N 29 -> 32, K 37 -> 48
// REMARKS: padded M 9 -> 16, N 21 -> 32, K 11 -> 16
// The max-plus contraction is not a multiply-add: zeros in K would change
// max(a + b), so only M and N are padded.
// REMARKS: padded M 13 -> 16, N 29 -> 32:
// The int8 batched GEMM (i32 accumulator) has no GEMM model: padded only
// because forced, with i8 and i32 zeros; integer sums are exact, so its
// values must match exactly too.
// REMARKS: padded M 9 -> 16, N 21 -> 32, K 11 -> 16 (forced; element type 'i8'
// Four f32 and one i32 2-D results printed, non-trivial values.
// VALUES-COUNT-5: {{^\[\[ *-?[0-9]}}
// VALUES-NOT: nan

func.func private @printMemrefF32(memref<*xf32>)
func.func private @printMemrefI32(memref<*xi32>)

// sin(0.37 i + 1.13 j + seed): deterministic, non-zero, no RNG needed.
func.func @fill2(%seed: f32, %init: tensor<?x?xf32>) -> tensor<?x?xf32> {
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

func.func @print2(%t: tensor<?x?xf32>) {
  %m = bufferization.to_buffer %t : tensor<?x?xf32> to memref<?x?xf32>
  %u = memref.cast %m : memref<?x?xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

// Plain GEMM.
func.func @nn(%a: tensor<13x37xf32>, %b: tensor<37x29xf32>, %c: tensor<13x29xf32>) -> tensor<13x29xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<13x37xf32>, tensor<37x29xf32>) outs(%c : tensor<13x29xf32>) -> tensor<13x29xf32>
  return %r : tensor<13x29xf32>
}

// B stored [N, K] (an nn.Linear weight), read through indexing_maps.
func.func @nt(%a: tensor<13x37xf32>, %w: tensor<29x37xf32>, %c: tensor<13x29xf32>) -> tensor<13x29xf32> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %w : tensor<13x37xf32>, tensor<29x37xf32>) outs(%c : tensor<13x29xf32>) -> tensor<13x29xf32>
  return %r : tensor<13x29xf32>
}

// Batched, 3 x (9 x 11) . (11 x 21).
func.func @bmm(%a: tensor<3x9x11xf32>, %b: tensor<3x11x21xf32>, %c: tensor<3x9x21xf32>) -> tensor<3x9x21xf32> {
  %r = linalg.batch_matmul ins(%a, %b : tensor<3x9x11xf32>, tensor<3x11x21xf32>) outs(%c : tensor<3x9x21xf32>) -> tensor<3x9x21xf32>
  return %r : tensor<3x9x21xf32>
}

// Max-plus "GEMM": c = max_k (a + b).
func.func @maxplus(%a: tensor<13x37xf32>, %b: tensor<37x29xf32>, %c: tensor<13x29xf32>) -> tensor<13x29xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<13x37xf32>, tensor<37x29xf32>) outs(%c : tensor<13x29xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %s = arith.addf %x, %y : f32
    %m = arith.maximumf %acc, %s : f32
    linalg.yield %m : f32
  } -> tensor<13x29xf32>
  return %r : tensor<13x29xf32>
}

// Batched int8, 3 x (9 x 11) . (11 x 21), accumulating in i32.
func.func @ibmm(%a: tensor<3x9x11xi8>, %b: tensor<3x11x21xi8>, %c: tensor<3x9x21xi32>) -> tensor<3x9x21xi32> {
  %r = linalg.batch_matmul ins(%a, %b : tensor<3x9x11xi8>, tensor<3x11x21xi8>) outs(%c : tensor<3x9x21xi32>) -> tensor<3x9x21xi32>
  return %r : tensor<3x9x21xi32>
}

// int8 inputs: trunc(100 x) of values in [-1, 1].
func.func @to_i8(%t: tensor<?x?xf32>, %init: tensor<?x?xi8>) -> tensor<?x?xi8> {
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%t : tensor<?x?xf32>) outs(%init : tensor<?x?xi8>) {
  ^bb0(%x: f32, %out: i8):
    %h = arith.constant 100.0 : f32
    %y = arith.mulf %x, %h : f32
    %v = arith.fptosi %y : f32 to i8
    linalg.yield %v : i8
  } -> tensor<?x?xi8>
  return %r : tensor<?x?xi8>
}

func.func @print2i(%t: tensor<?x?xi32>) {
  %m = bufferization.to_buffer %t : tensor<?x?xi32> to memref<?x?xi32>
  %u = memref.cast %m : memref<?x?xi32> to memref<*xi32>
  call @printMemrefI32(%u) : (memref<*xi32>) -> ()
  return
}

func.func @rand(%seed: f32, %rows: index, %cols: index) -> tensor<?x?xf32> {
  %e = tensor.empty(%rows, %cols) : tensor<?x?xf32>
  %r = call @fill2(%seed, %e) : (f32, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

func.func @main() {
  %c3 = arith.constant 3 : index
  %c9 = arith.constant 9 : index
  %c11 = arith.constant 11 : index
  %c13 = arith.constant 13 : index
  %c21 = arith.constant 21 : index
  %c27 = arith.constant 27 : index
  %c29 = arith.constant 29 : index
  %c33 = arith.constant 33 : index
  %c37 = arith.constant 37 : index
  %s1 = arith.constant 0.5 : f32
  %s2 = arith.constant 2.0 : f32
  %s3 = arith.constant -1.25 : f32
  %s4 = arith.constant 0.75 : f32
  %zero = arith.constant 0.0 : f32
  %low = arith.constant -1.0e30 : f32

  %da = call @rand(%s1, %c13, %c37) : (f32, index, index) -> tensor<?x?xf32>
  %db = call @rand(%s2, %c37, %c29) : (f32, index, index) -> tensor<?x?xf32>
  %dw = call @rand(%s3, %c29, %c37) : (f32, index, index) -> tensor<?x?xf32>
  %a = tensor.cast %da : tensor<?x?xf32> to tensor<13x37xf32>
  %b = tensor.cast %db : tensor<?x?xf32> to tensor<37x29xf32>
  %w = tensor.cast %dw : tensor<?x?xf32> to tensor<29x37xf32>
  %e = tensor.empty() : tensor<13x29xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<13x29xf32>) -> tensor<13x29xf32>
  %cl = linalg.fill ins(%low : f32) outs(%e : tensor<13x29xf32>) -> tensor<13x29xf32>

  %r1 = call @nn(%a, %b, %c) : (tensor<13x37xf32>, tensor<37x29xf32>, tensor<13x29xf32>) -> tensor<13x29xf32>
  %r2 = call @nt(%a, %w, %c) : (tensor<13x37xf32>, tensor<29x37xf32>, tensor<13x29xf32>) -> tensor<13x29xf32>

  %dba = call @rand(%s4, %c27, %c11) : (f32, index, index) -> tensor<?x?xf32>
  %dbb = call @rand(%s2, %c33, %c21) : (f32, index, index) -> tensor<?x?xf32>
  %ba2 = tensor.cast %dba : tensor<?x?xf32> to tensor<27x11xf32>
  %bb2 = tensor.cast %dbb : tensor<?x?xf32> to tensor<33x21xf32>
  %ba = tensor.expand_shape %ba2 [[0, 1], [2]] output_shape [3, 9, 11] : tensor<27x11xf32> into tensor<3x9x11xf32>
  %bb = tensor.expand_shape %bb2 [[0, 1], [2]] output_shape [3, 11, 21] : tensor<33x21xf32> into tensor<3x11x21xf32>
  %be = tensor.empty() : tensor<3x9x21xf32>
  %bc = linalg.fill ins(%zero : f32) outs(%be : tensor<3x9x21xf32>) -> tensor<3x9x21xf32>
  %r3 = call @bmm(%ba, %bb, %bc) : (tensor<3x9x11xf32>, tensor<3x11x21xf32>, tensor<3x9x21xf32>) -> tensor<3x9x21xf32>
  %r3f = tensor.collapse_shape %r3 [[0, 1], [2]] : tensor<3x9x21xf32> into tensor<27x21xf32>

  %r4 = call @maxplus(%a, %b, %cl) : (tensor<13x37xf32>, tensor<37x29xf32>, tensor<13x29xf32>) -> tensor<13x29xf32>

  %ie1 = tensor.empty(%c27, %c11) : tensor<?x?xi8>
  %ie2 = tensor.empty(%c33, %c21) : tensor<?x?xi8>
  %dia = call @to_i8(%dba, %ie1) : (tensor<?x?xf32>, tensor<?x?xi8>) -> tensor<?x?xi8>
  %dib = call @to_i8(%dbb, %ie2) : (tensor<?x?xf32>, tensor<?x?xi8>) -> tensor<?x?xi8>
  %ia2 = tensor.cast %dia : tensor<?x?xi8> to tensor<27x11xi8>
  %ib2 = tensor.cast %dib : tensor<?x?xi8> to tensor<33x21xi8>
  %ia = tensor.expand_shape %ia2 [[0, 1], [2]] output_shape [3, 9, 11] : tensor<27x11xi8> into tensor<3x9x11xi8>
  %ib = tensor.expand_shape %ib2 [[0, 1], [2]] output_shape [3, 11, 21] : tensor<33x21xi8> into tensor<3x11x21xi8>
  %izero = arith.constant 0 : i32
  %ie = tensor.empty() : tensor<3x9x21xi32>
  %ic = linalg.fill ins(%izero : i32) outs(%ie : tensor<3x9x21xi32>) -> tensor<3x9x21xi32>
  %r5 = call @ibmm(%ia, %ib, %ic) : (tensor<3x9x11xi8>, tensor<3x11x21xi8>, tensor<3x9x21xi32>) -> tensor<3x9x21xi32>
  %r5f = tensor.collapse_shape %r5 [[0, 1], [2]] : tensor<3x9x21xi32> into tensor<27x21xi32>

  %p1 = tensor.cast %r1 : tensor<13x29xf32> to tensor<?x?xf32>
  %p2 = tensor.cast %r2 : tensor<13x29xf32> to tensor<?x?xf32>
  %p3 = tensor.cast %r3f : tensor<27x21xf32> to tensor<?x?xf32>
  %p4 = tensor.cast %r4 : tensor<13x29xf32> to tensor<?x?xf32>
  call @print2(%p1) : (tensor<?x?xf32>) -> ()
  call @print2(%p2) : (tensor<?x?xf32>) -> ()
  call @print2(%p3) : (tensor<?x?xf32>) -> ()
  call @print2(%p4) : (tensor<?x?xf32>) -> ()
  %p5 = tensor.cast %r5f : tensor<27x21xi32> to tensor<?x?xi32>
  call @print2i(%p5) : (tensor<?x?xi32>) -> ()
  return
}
