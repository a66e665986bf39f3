// RUN: not tshape-opt %s --tshape-pad-gemms="multiple=-8" 2>&1 | FileCheck %s --check-prefix=MULT
// MULT: error: tshape-pad-gemms: multiple must be >= 0 (0: the target's best alignment), got -8
// RUN: not tshape-opt %s --tshape-pad-gemms="target=tpu" 2>&1 | FileCheck %s --check-prefix=TARGET
// TARGET: error: tshape-pad-gemms: unknown target 'tpu'
// RUN: tshape-opt %s --tshape-pad-gemms="force=true multiple=8" -mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=FORCE
// With force, even a losing pad is done, and the remark says so.
// FORCE: remark: tshape-pad-gemms: padded M 10 -> 16, N 10 -> 16, K 10 -> 16: {{.*}} (forced); operand 0 (a function argument)
// FORCE: tensor.extract_slice
func.func @g(%a: tensor<10x10xf32>, %c: tensor<10x10xf32>) -> tensor<10x10xf32> {
  %r = linalg.matmul ins(%a, %a : tensor<10x10xf32>, tensor<10x10xf32>) outs(%c : tensor<10x10xf32>) -> tensor<10x10xf32>
  return %r : tensor<10x10xf32>
}
