// tshape-run-gemms on the CPU backend: every GEMM is timed on random inputs
// and, with check=true, compared against an fp64 reference.
// RUN: tshape-opt %s --tshape-gemm-analysis=remarks=none --tshape-run-gemms="backend=cpu warmup=1 iters=3 check=true samples=0" -mlir-print-op-on-diagnostic=false 2>%t.err | FileCheck %s
// RUN: FileCheck %s --check-prefix=REMARKS < %t.err
// The analysis, run after, reports the measurement and the prediction error.
// RUN: tshape-opt %s --tshape-run-gemms="iters=2" --tshape-gemm-analysis="remarks=none report=%t.json" -o /dev/null 2>/dev/null
// RUN: FileCheck %s --check-prefix=REPORT < %t.json
// RUN: python3 %S/../Analysis/Inputs/validate_schema.py %tshape_src/docs/report-schema.json %t.json | FileCheck %s --check-prefix=VALID

// CHECK-LABEL: func.func @gemms
// CHECK: linalg.matmul {tshape.analysis = {{.*}}, tshape.measured = {algo_id = -1 : i64, backend = "cpu", iters = 3 : i64, max_rel_error = {{.*}}, max_us = {{.*}}, median_us = {{.*}}, min_us = {{.*}}, prediction_error = {{.*}}, tflops = {{.*}}, tile_id = -1 : i64, tile_m = 0 : i64, tile_n = 0 : i64, waves_count = 0.000000e+00 : f64}}
// CHECK: linalg.matmul indexing_maps = {{.*}} {tshape.analysis = {{.*}}, tshape.measured = {{{.*}}backend = "cpu"
// CHECK: linalg.batch_matmul {tshape.analysis = {{.*}}, tshape.measured = {{{.*}}backend = "cpu"
// CHECK: linalg.matmul {tshape.analysis = {{.*}}, tshape.measured = {{{.*}}backend = "cpu"

// fp32 and bf16/fp16 inputs are exact in their dtype; the CPU accumulates
// in float, so every error is below the tolerance 8 u_out + 2 K 2^-23
// (samples=0: all output elements are compared):
//   fp32, K = 64: 8 x 2^-24 + 128 x 2^-23 = 1.57e-5;
//   bf16, K = 24: 8 x 2^-8 + 48 x 2^-23 = 3.13e-2;
//   fp16, K = 32: 8 x 2^-11 + 64 x 2^-23 = 3.91e-3.
// REMARKS: remark: tshape-run-gemms: check: error {{.*}} <= fp32 tolerance 1.6e-05
// REMARKS: remark: tshape-run-gemms: check: error {{.*}} <= fp32 tolerance 1.6e-05
// REMARKS: remark: tshape-run-gemms: check: error {{.*}} <= bf16 tolerance 3.1e-02
// REMARKS: remark: tshape-run-gemms: check: error {{.*}} <= fp16 tolerance 3.9e-03
// REMARKS: remark: tshape-run-gemms on CPU reference (single thread): 4 GEMMs measured, 0 skipped
// REPORT: "measured_us":
// REPORT: "prediction_error":
// REPORT: "library_waves": 0,
// REPORT-NEXT: "library_tile_id": -1,
// REPORT-NEXT: "library_tile": [
// REPORT-NEXT:   0,
// REPORT-NEXT:   0
// REPORT-NEXT: ]
// VALID: valid
func.func @gemms(%a: tensor<48x64xf32>, %b: tensor<64x40xf32>, %c: tensor<48x40xf32>,
                 %w: tensor<40x64xf32>,
                 %x: tensor<3x16x24xbf16>, %y: tensor<3x24x20xbf16>, %z: tensor<3x16x20xbf16>,
                 %h: tensor<32x32xf16>, %hc: tensor<32x32xf16>) {
  %0 = linalg.matmul ins(%a, %b : tensor<48x64xf32>, tensor<64x40xf32>) outs(%c : tensor<48x40xf32>) -> tensor<48x40xf32>
  // B stored [N, K]: the runtime reads the same layout.
  %1 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %w : tensor<48x64xf32>, tensor<40x64xf32>) outs(%c : tensor<48x40xf32>) -> tensor<48x40xf32>
  %2 = linalg.batch_matmul ins(%x, %y : tensor<3x16x24xbf16>, tensor<3x24x20xbf16>) outs(%z : tensor<3x16x20xbf16>) -> tensor<3x16x20xbf16>
  %3 = linalg.matmul ins(%h, %h : tensor<32x32xf16>, tensor<32x32xf16>) outs(%hc : tensor<32x32xf16>) -> tensor<32x32xf16>
  return
}
