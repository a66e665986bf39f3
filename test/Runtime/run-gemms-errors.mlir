// Clean errors (exit 1, the cause named), never a crash.
// RUN: not tshape-opt %s --tshape-run-gemms="backend=tpu" 2>&1 | FileCheck %s --check-prefix=BACKEND
// backend= is an enum option (cpu or cublas): the option parser rejects
// any other word before the pass runs.
// BACKEND: for the --backend option: Cannot find option named 'tpu'!
// RUN: not tshape-opt %s --tshape-run-gemms="iters=0" 2>&1 | FileCheck %s --check-prefix=ITERS
// ITERS: error: tshape-run-gemms: iters must be >= 1 and warmup >= 0
// RUN: not tshape-opt %s --tshape-run-gemms="runtime-lib=/nonexistent/libtshape_runtime.so" 2>&1 | FileCheck %s --check-prefix=LIB
// LIB: error: tshape-run-gemms: cannot load the runtime '/nonexistent/libtshape_runtime.so'
// Too big for the CPU backend: skipped with a remark, not run for hours.
// RUN: tshape-opt %s --split-input-file --tshape-run-gemms="max-gflop=0.0001" -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=SKIP
// 2 x 64^3 = 524,288 FLOP = 0.000524 GFLOP, run 2 + 10 times (warm-up and
// timed) = 0.00629 GFLOP > the pass's total budget of 0.0001.
// SKIP: remark: tshape-run-gemms: skipped: its 12 runs of 0.000524 GFLOP would take the total to 0.00629 GFLOP, over max-gflop=0.0001 (raise it, or lower iters)
// SKIP: remark: tshape-run-gemms on CPU reference (single thread): 0 GEMMs measured, 1 skipped
func.func @g(%a: tensor<64x64xf32>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %0 = linalg.matmul ins(%a, %a : tensor<64x64xf32>, tensor<64x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

// -----
// Not timed, each with a remark and counted as skipped: a dynamic shape and
// element types the runtime has no GEMM for.
// RUN: tshape-opt %s --split-input-file --tshape-run-gemms -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=ODD
// ODD: remark: tshape-run-gemms: skipped: dynamic shape: only static GEMMs are read
// ODD: remark: tshape-run-gemms: skipped: element type 'i8' has no GEMM in the runtime (bf16, f16, f32 incl. tf32, f8E4M3FN)
// ODD: remark: tshape-run-gemms: skipped: element type 'f64' has no GEMM in the runtime
// ODD: remark: tshape-run-gemms on CPU reference (single thread): 0 GEMMs measured, 3 skipped
func.func @odd(%a: tensor<?x64xf32>, %b: tensor<64x32xf32>, %c: tensor<?x32xf32>,
               %i: tensor<16x16xi8>, %ic: tensor<16x16xi32>,
               %d: tensor<16x16xf64>, %e: tensor<16x16xf64>) {
  %0 = linalg.matmul ins(%a, %b : tensor<?x64xf32>, tensor<64x32xf32>) outs(%c : tensor<?x32xf32>) -> tensor<?x32xf32>
  %1 = linalg.matmul ins(%i, %i : tensor<16x16xi8>, tensor<16x16xi8>) outs(%ic : tensor<16x16xi32>) -> tensor<16x16xi32>
  %2 = linalg.matmul ins(%d, %d : tensor<16x16xf64>, tensor<16x16xf64>) outs(%e : tensor<16x16xf64>) -> tensor<16x16xf64>
  return
}
