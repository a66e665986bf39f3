// UNSUPPORTED: asan
// (make check-sanitize: upstream mlir-runner is not instrumented, so it cannot
// load tshape's instrumented runtime; docs/reliability.md.)
// tshape-lower-linalg-to-runtime converts only what the runtime's entry
// points express (C row-major through the identity map, full-rank A and B
// in either orientation); anything else stays for the loop lowering, with a
// remark, and computes the same values. Before, a broadcast operand gave
// invalid IR (a rank-2 memref cast to rank 3) and a transposed output was
// computed with C's strides swapped, reading and writing out of bounds.
// RUN: tshape-opt %s --tshape-lower-linalg-to-runtime -mlir-print-op-on-diagnostic=false 2>%t.remarks > %t.rt.mlir
// RUN: FileCheck %s --check-prefix=REMARKS < %t.remarks
// RUN: FileCheck %s --check-prefix=IR < %t.rt.mlir
// RUN: mlir-opt %t.rt.mlir %lower_to_llvm | mlir-runner -e main -entry-point-result=void %runner_libs,%tshape_runtime_lib | grep -v "base@" > %t.runtime.txt
// RUN: mlir-opt %s %lower_to_llvm | mlir-runner -e main -entry-point-result=void %runner_libs | grep -v "base@" > %t.loops.txt
// RUN: diff %t.loops.txt %t.runtime.txt
// RUN: FileCheck %s --check-prefix=OUT < %t.runtime.txt
//
// REMARKS: remark: tshape-lower-linalg-to-runtime: left to the loop lowering: operand B is not full-rank (a broadcast operand); the runtime takes full matrices
// REMARKS: remark: tshape-lower-linalg-to-runtime: left to the loop lowering: the result is stored through a non-identity map (for example transposed); the runtime writes C row-major
// The plain GEMM still becomes a call.
// IR: call @tshapeRtMatmulF32
// IR: linalg.batch_matmul
// IR: linalg.matmul indexing_maps
// OUT-COUNT-3: {{^\[\[}}
// OUT-NOT: nan

func.func private @printMemrefF32(memref<*xf32>)

func.func @fill(%m: memref<?x?xf32>, %seed: f32) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} outs(%m : memref<?x?xf32>) {
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
  }
  return
}

func.func @main() {
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %c15 = arith.constant 15 : index
  %s1 = arith.constant 0.5 : f32
  %s2 = arith.constant -1.25 : f32
  %zero = arith.constant 0.0 : f32
  // A [5 x 7] and B [7 x 3].
  %a = memref.alloc() : memref<5x7xf32>
  %b = memref.alloc() : memref<7x3xf32>
  %ad = memref.cast %a : memref<5x7xf32> to memref<?x?xf32>
  %bd = memref.cast %b : memref<7x3xf32> to memref<?x?xf32>
  call @fill(%ad, %s1) : (memref<?x?xf32>, f32) -> ()
  call @fill(%bd, %s2) : (memref<?x?xf32>, f32) -> ()
  // Plain: C [5 x 3] = A . B.
  %c = memref.alloc() : memref<5x3xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<5x3xf32>)
  linalg.matmul ins(%a, %b : memref<5x7xf32>, memref<7x3xf32>) outs(%c : memref<5x3xf32>)
  // Broadcast B: 2 batches of A [2 x 5 x 7] against the one B [7 x 3].
  %a3 = memref.alloc() : memref<2x5x7xf32>
  %a3v = memref.collapse_shape %a3 [[0, 1], [2]] : memref<2x5x7xf32> into memref<10x7xf32>
  %a3d = memref.cast %a3v : memref<10x7xf32> to memref<?x?xf32>
  call @fill(%a3d, %s1) : (memref<?x?xf32>, f32) -> ()
  %cb = memref.alloc() : memref<2x5x3xf32>
  linalg.fill ins(%zero : f32) outs(%cb : memref<2x5x3xf32>)
  linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>] ins(%a3, %b : memref<2x5x7xf32>, memref<7x3xf32>) outs(%cb : memref<2x5x3xf32>)
  // Transposed output: C^T [3 x 5] = (A . B)^T.
  %ct = memref.alloc() : memref<3x5xf32>
  linalg.fill ins(%zero : f32) outs(%ct : memref<3x5xf32>)
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (n, m)>] ins(%a, %b : memref<5x7xf32>, memref<7x3xf32>) outs(%ct : memref<3x5xf32>)
  %u1 = memref.cast %c : memref<5x3xf32> to memref<*xf32>
  %u2 = memref.cast %cb : memref<2x5x3xf32> to memref<*xf32>
  %u3 = memref.cast %ct : memref<3x5xf32> to memref<*xf32>
  call @printMemrefF32(%u1) : (memref<*xf32>) -> ()
  call @printMemrefF32(%u2) : (memref<*xf32>) -> ()
  call @printMemrefF32(%u3) : (memref<*xf32>) -> ()
  memref.dealloc %a : memref<5x7xf32>
  memref.dealloc %b : memref<7x3xf32>
  memref.dealloc %c : memref<5x3xf32>
  memref.dealloc %a3 : memref<2x5x7xf32>
  memref.dealloc %cb : memref<2x5x3xf32>
  memref.dealloc %ct : memref<3x5xf32>
  return
}
