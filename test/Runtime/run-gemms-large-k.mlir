// The check accepts the CPU backend's own results at K = 65536 for fp32 and
// bf16 (before, a fixed 1e-4 relative tolerance rejected fp32 from K of
// about 512 on). The error is measured in units of the typical output
// magnitude sqrt(K) rms(A) rms(B) against an fp64 reference; the tolerance
// 8 u_out + 2 K 2^-23 bounds the fp32 accumulation error in any order:
//   fp32: 8 x 2^-24 + 2 x 65536 x 2^-23 = 1.56e-2;
//   bf16: 8 x 2^-8 + 1.56e-2 = 4.69e-2.
// A wrong layout gives an error of order 1 (RuntimeTest.cpp injects an
// error just above the tolerance and sees it rejected).
// RUN: tshape-opt %s --split-input-file --tshape-run-gemms="backend=cpu warmup=0 iters=1 check=true samples=0 max-gflop=0.1" -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s
// CHECK: remark: tshape-run-gemms: check: error {{[0-9.e-]+}} <= fp32 tolerance 1.6e-02
// CHECK: remark: tshape-run-gemms: check: error {{[0-9.e-]+}} <= bf16 tolerance 4.7e-02
// CHECK: remark: tshape-run-gemms on CPU reference (single thread): 2 GEMMs measured, 0 skipped
// The second part's GEMM is over this RUN's budget of 0.1 GFLOP.
// CHECK: 0 GEMMs measured, 1 skipped
func.func @large_k(%a: tensor<8x65536xf32>, %b: tensor<65536x8xf32>, %c: tensor<8x8xf32>,
                   %x: tensor<8x65536xbf16>, %y: tensor<65536x8xbf16>, %z: tensor<8x8xbf16>) {
  %0 = linalg.matmul ins(%a, %b : tensor<8x65536xf32>, tensor<65536x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  %1 = linalg.matmul ins(%x, %y : tensor<8x65536xbf16>, tensor<65536x8xbf16>) outs(%z : tensor<8x8xbf16>) -> tensor<8x8xbf16>
  return
}

// -----

// At its defaults (cpu: warm-up 2, 10 timed runs, a total budget of 8 GFLOP)
// the pass finishes in seconds: a 3456 x 1024 x 2048 f16 GEMM is 2 x 3456 x
// 1024 x 2048 = 14.5 GFLOP a run, so its 12 runs (174 GFLOP, minutes on the
// CPU reference) are skipped with the budget in the remark.
// RUN: tshape-opt %s --split-input-file --tshape-run-gemms -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=BUDGET
// BUDGET: remark: tshape-run-gemms: skipped: its 12 runs of 14.5 GFLOP would take the total to 174 GFLOP, over max-gflop=8 (raise it, or lower iters)
func.func @big(%a: tensor<3456x2048xf16>, %b: tensor<2048x1024xf16>, %c: tensor<3456x1024xf16>) {
  %0 = linalg.matmul ins(%a, %b : tensor<3456x2048xf16>, tensor<2048x1024xf16>) outs(%c : tensor<3456x1024xf16>) -> tensor<3456x1024xf16>
  return
}
