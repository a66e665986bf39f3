// The README's logits GEMM with its f32 accumulator passed in, executed at
// the logits' own N = 50257 and K = 2560 (vocab and hidden of GPT-3 2.7B)
// with M cut from 8192 to 8 rows so that the CPU runs it in seconds
// (2 x 8 x 50257 x 2560 = 2.06 GFLOP per program): padded (M 8 -> 64,
// N 50257 -> 50304, each operand with a zero of its own type) and unpadded,
// under upstream mlir-runner, printing identical values.
// RUN: mlir-opt %s %lower_to_llvm | mlir-runner -e main -entry-point-result=void %runner_libs | grep -v "base@" > %t.orig
// RUN: tshape-opt %s --tshape-pad-gemms="force=true multiple=64" 2>%t.remarks | mlir-opt %lower_to_llvm | mlir-runner -e main -entry-point-result=void %runner_libs | grep -v "base@" > %t.padded
// RUN: diff %t.orig %t.padded
// RUN: FileCheck %s --check-prefix=REMARKS < %t.remarks
// RUN: FileCheck %s --check-prefix=VALUES < %t.padded
// REMARKS: padded M 8 -> 64, N 50257 -> 50304
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

func.func @logits(%x: tensor<8x2560xbf16>, %w: tensor<50257x2560xbf16>, %acc: tensor<8x50257xf32>) -> tensor<8x50257xf32> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<8x2560xbf16>, tensor<50257x2560xbf16>) outs(%acc : tensor<8x50257xf32>) -> tensor<8x50257xf32>
  return %r : tensor<8x50257xf32>
}

func.func @main() {
  %c8 = arith.constant 8 : index
  %ch = arith.constant 2560 : index
  %cv = arith.constant 50257 : index
  %s1 = arith.constant 0.5 : f32
  %s2 = arith.constant -1.25 : f32
  %s3 = arith.constant 2.0 : f32
  %ex = tensor.empty(%c8, %ch) : tensor<?x?xf32>
  %ew = tensor.empty(%cv, %ch) : tensor<?x?xf32>
  %ec = tensor.empty(%c8, %cv) : tensor<?x?xf32>
  %fx = call @fill(%s1, %ex) : (f32, tensor<?x?xf32>) -> tensor<?x?xf32>
  %fw = call @fill(%s2, %ew) : (f32, tensor<?x?xf32>) -> tensor<?x?xf32>
  %fc = call @fill(%s3, %ec) : (f32, tensor<?x?xf32>) -> tensor<?x?xf32>
  %bx = tensor.empty(%c8, %ch) : tensor<?x?xbf16>
  %bw = tensor.empty(%cv, %ch) : tensor<?x?xbf16>
  %dx = call @tobf16(%fx, %bx) : (tensor<?x?xf32>, tensor<?x?xbf16>) -> tensor<?x?xbf16>
  %dw = call @tobf16(%fw, %bw) : (tensor<?x?xf32>, tensor<?x?xbf16>) -> tensor<?x?xbf16>
  %x = tensor.cast %dx : tensor<?x?xbf16> to tensor<8x2560xbf16>
  %w = tensor.cast %dw : tensor<?x?xbf16> to tensor<50257x2560xbf16>
  %acc = tensor.cast %fc : tensor<?x?xf32> to tensor<8x50257xf32>
  %r = call @logits(%x, %w, %acc) : (tensor<8x2560xbf16>, tensor<50257x2560xbf16>, tensor<8x50257xf32>) -> tensor<8x50257xf32>
  %m = bufferization.to_buffer %r : tensor<8x50257xf32> to memref<8x50257xf32>
  %u = memref.cast %m : memref<8x50257xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}
