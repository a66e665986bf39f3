// UNSUPPORTED: asan
// (make check-sanitize: upstream mlir-runner is not instrumented, so it cannot
// load tshape's instrumented runtime; docs/reliability.md.)
// A whole lowered tiny transformer runs under upstream mlir-runner with its
// GEMMs as calls into the tshape runtime (CPU backend), and prints the same
// logits as the plain loop lowering of the same IR. The weights are
// distinct, non-uniform values (weights=pattern), so a transposed or
// misplaced operand would change the output.
//
// RUN: tshape-opt %s --tshape-lower-to-linalg="decompose-softmax=true weights=pattern" | mlir-opt --one-shot-bufferize=bufferize-function-boundaries > %t.buf.mlir
// RUN: tshape-opt %t.buf.mlir --tshape-lower-linalg-to-runtime > %t.rt.mlir
// RUN: FileCheck %s --check-prefix=CALLS < %t.rt.mlir
// RUN: grep -c "call @tshapeRtMatmulF32" %t.rt.mlir | FileCheck %s --check-prefix=NMM
// RUN: grep -c "call @tshapeRtBatchMatmulF32" %t.rt.mlir | FileCheck %s --check-prefix=NBMM
// NMM: {{^}}11{{$}}
// NBMM: {{^}}4{{$}}
// RUN: mlir-opt %t.rt.mlir %lower_to_llvm | mlir-runner -e main -entry-point-result=void %runner_libs,%tshape_runtime_lib | grep -v "base@" > %t.runtime.txt
// RUN: mlir-opt %t.buf.mlir %lower_to_llvm | mlir-runner -e main -entry-point-result=void %runner_libs | grep -v "base@" > %t.loops.txt
// RUN: diff %t.loops.txt %t.runtime.txt
// RUN: FileCheck %s --check-prefix=OUT < %t.runtime.txt
//
// GEMMs per layer: qkv, scores, values, out, gate, up, down = 5 matmuls and
// 2 batch_matmuls; 2 layers plus the logits: 11 matmul and 4 batch_matmul
// calls, declared once each with the C interface.
// CALLS: func.func private @tshapeRtBatchMatmulF32({{.*}}) attributes {llvm.emit_c_interface}
// CALLS: func.func private @tshapeRtMatmulF32({{.*}}) attributes {llvm.emit_c_interface}
// CALLS-NOT: linalg.matmul
// CALLS-NOT: linalg.batch_matmul
// OUT: {{^\[\[\[-?[0-9]}}
// OUT-NOT: nan

func.func private @printMemrefF32(memref<*xf32>)

func.func @tiny(%t: tensor<1x8xi32>) -> tensor<1x8x24xf32> {
  %x = tshape.embedding %t vocab = 24 : tensor<1x8xi32> -> tensor<1x8x16xf32>
  %y = tshape.repeat %x layers = 2 : tensor<1x8x16xf32> {
  ^bb0(%in: tensor<1x8x16xf32>):
    %b = tshape.block sequential %in : tensor<1x8x16xf32> {
    ^bb0(%h: tensor<1x8x16xf32>):
      %a = tshape.attention %h heads = 4 kv_heads = 2 causal : tensor<1x8x16xf32> -> tensor<1x8x16xf32>
      %m = tshape.mlp %a inner = 32 activation = silu gated : tensor<1x8x16xf32> -> tensor<1x8x16xf32>
      tshape.yield %m : tensor<1x8x16xf32>
    }
    tshape.yield %b : tensor<1x8x16xf32>
  }
  %l = tshape.lm_head %y vocab = 24 tied : tensor<1x8x16xf32> -> tensor<1x8x24xf32>
  return %l : tensor<1x8x24xf32>
}

func.func @main() {
  %tokens = arith.constant dense<[[3, 17, 0, 23, 9, 4, 11, 7]]> : tensor<1x8xi32>
  %logits = call @tiny(%tokens) : (tensor<1x8xi32>) -> tensor<1x8x24xf32>
  %m = bufferization.to_buffer %logits : tensor<1x8x24xf32> to memref<1x8x24xf32>
  %u = memref.cast %m : memref<1x8x24xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}
