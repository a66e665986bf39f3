// On a GPU: cuBLASLt times each GEMM and reports its own choice, and
// check=true agrees with the fp64 reference within each dtype's tolerance.
// The shapes are non-square (M != N != K) in every layout the IR produces,
// so a swapped dimension, transpose or batch stride in the row-major ->
// column-major mapping shows up as a failed check rather than hiding
// behind a square shape.
// REQUIRES: cuda-device
// RUN: tshape-opt %s --tshape-run-gemms="backend=cublas warmup=3 iters=10 check=true samples=4096" -mlir-print-op-on-diagnostic=false 2>%t.err | FileCheck %s
// RUN: FileCheck %s --check-prefix=REMARKS < %t.err
// The analysis after it sets cuBLASLt's choice beside its own prediction.
// RUN: tshape-opt %s --tshape-run-gemms="backend=cublas iters=5" --tshape-gemm-analysis="target=h100-sxm remarks=none report=%t.json" -o /dev/null 2>/dev/null
// RUN: FileCheck %s --check-prefix=REPORT < %t.json
// RUN: python3 %S/../Analysis/Inputs/validate_schema.py %tshape_src/docs/report-schema.json %t.json | FileCheck %s --check-prefix=VALID

// CHECK: linalg.matmul {tshape.measured = {algo_id = {{[0-9]+}} : i64, backend = "cublas", iters = 10 : i64, max_rel_error = {{.*}}, tile_id = {{-?[0-9]+}} : i64, tile_m = {{[0-9]+}} : i64, tile_n = {{[0-9]+}} : i64, waves_count = {{.*}}}}
// CHECK-COUNT-8: tshape.measured = {{{.*}}backend = "cublas"
// Every check is within tolerance (an error would stop the pass).
// REMARKS-COUNT-9: remark: tshape-run-gemms: check: max relative error
// REMARKS: remark: tshape-run-gemms on NVIDIA {{.*}}: 9 GEMMs measured, 0 skipped
// REPORT: "measured_us":
// REPORT: "library_tile_id":
// REPORT: "library_tile": [
// VALID: valid
func.func @g(%a: tensor<4096x4096xbf16>, %c: tensor<4096x4096xbf16>,
             %h: tensor<2048x2048xf16>, %hc: tensor<2048x2048xf16>,
             %f: tensor<1024x1024xf32>, %fc: tensor<1024x1024xf32>,
             %x: tensor<8x384x64xbf16>, %y: tensor<8x64x512xbf16>, %z: tensor<8x384x512xbf16>,
             %tok: tensor<2048x2560xbf16>, %w: tensor<7680x2560xbf16>, %o: tensor<2048x7680xbf16>,
             %xt: tensor<4096x1024xbf16>, %dy: tensor<4096x3072xbf16>, %dw: tensor<1024x3072xbf16>,
             %a8: tensor<1536x1024xf8E4M3FN>, %b8: tensor<1024x2560xf8E4M3FN>, %w8: tensor<2560x1024xf8E4M3FN>,
             %o8: tensor<1536x2560xbf16>) {
  // Square, one per dtype.
  %0 = linalg.matmul ins(%a, %a : tensor<4096x4096xbf16>, tensor<4096x4096xbf16>) outs(%c : tensor<4096x4096xbf16>) -> tensor<4096x4096xbf16>
  %1 = linalg.matmul ins(%h, %h : tensor<2048x2048xf16>, tensor<2048x2048xf16>) outs(%hc : tensor<2048x2048xf16>) -> tensor<2048x2048xf16>
  %2 = linalg.matmul ins(%f, %f : tensor<1024x1024xf32>, tensor<1024x1024xf32>) outs(%fc : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  // Batched, M = 384, N = 512, K = 64 (attention scores).
  %3 = linalg.batch_matmul ins(%x, %y : tensor<8x384x64xbf16>, tensor<8x64x512xbf16>) outs(%z : tensor<8x384x512xbf16>) -> tensor<8x384x512xbf16>
  // nn.Linear: B stored [N, K] (transB), M = 2048, N = 7680, K = 2560.
  %4 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%tok, %w : tensor<2048x2560xbf16>, tensor<7680x2560xbf16>) outs(%o : tensor<2048x7680xbf16>) -> tensor<2048x7680xbf16>
  // Weight gradient: A stored [K, M] (transA), M = 1024, N = 3072, K = 4096.
  %5 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%xt, %dy : tensor<4096x1024xbf16>, tensor<4096x3072xbf16>) outs(%dw : tensor<1024x3072xbf16>) -> tensor<1024x3072xbf16>
  // FP8 e4m3 -> bf16, M = 1536, N = 2560, K = 1024: row-major B (run in TN
  // after a host rearrangement), and B stored [N, K] (TN already).
  %6 = linalg.matmul ins(%a8, %b8 : tensor<1536x1024xf8E4M3FN>, tensor<1024x2560xf8E4M3FN>) outs(%o8 : tensor<1536x2560xbf16>) -> tensor<1536x2560xbf16>
  %7 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%a8, %w8 : tensor<1536x1024xf8E4M3FN>, tensor<2560x1024xf8E4M3FN>) outs(%o8 : tensor<1536x2560xbf16>) -> tensor<1536x2560xbf16>
  // Skinny decode GEMM: M = 8.
  %s = tensor.empty() : tensor<8x4096xbf16>
  %so = tensor.empty() : tensor<8x4096xbf16>
  %8 = linalg.matmul ins(%s, %a : tensor<8x4096xbf16>, tensor<4096x4096xbf16>) outs(%so : tensor<8x4096xbf16>) -> tensor<8x4096xbf16>
  return
}
