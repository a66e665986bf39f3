// On a GPU: cuBLASLt times each GEMM and reports its own choice, and
// check=true agrees with the fp64 reference within each dtype's tolerance.
// REQUIRES: cuda-device
// RUN: tshape-opt %s --tshape-run-gemms="backend=cublas warmup=3 iters=10 check=true" -mlir-print-op-on-diagnostic=false 2>%t.err | FileCheck %s
// RUN: FileCheck %s --check-prefix=REMARKS < %t.err
// CHECK: linalg.matmul {tshape.measured = {algo_id = {{[0-9]+}} : i64, backend = "cublas", iters = 10 : i64, max_rel_error = {{.*}}, tile_id = {{-?[0-9]+}} : i64, waves_count = {{.*}}}}
// REMARKS-COUNT-4: remark: tshape-run-gemms: check: max relative error
// REMARKS: remark: tshape-run-gemms on NVIDIA {{.*}}: 4 GEMMs measured, 0 skipped
func.func @g(%a: tensor<4096x4096xbf16>, %c: tensor<4096x4096xbf16>,
             %h: tensor<2048x2048xf16>, %hc: tensor<2048x2048xf16>,
             %f: tensor<1024x1024xf32>, %fc: tensor<1024x1024xf32>,
             %x: tensor<8x512x64xbf16>, %y: tensor<8x64x512xbf16>, %z: tensor<8x512x512xbf16>) {
  %0 = linalg.matmul ins(%a, %a : tensor<4096x4096xbf16>, tensor<4096x4096xbf16>) outs(%c : tensor<4096x4096xbf16>) -> tensor<4096x4096xbf16>
  %1 = linalg.matmul ins(%h, %h : tensor<2048x2048xf16>, tensor<2048x2048xf16>) outs(%hc : tensor<2048x2048xf16>) -> tensor<2048x2048xf16>
  %2 = linalg.matmul ins(%f, %f : tensor<1024x1024xf32>, tensor<1024x1024xf32>) outs(%fc : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %3 = linalg.batch_matmul ins(%x, %y : tensor<8x512x64xbf16>, tensor<8x64x512xbf16>) outs(%z : tensor<8x512x512xbf16>) -> tensor<8x512x512xbf16>
  return
}
