// Without a GPU (or without a driver, which CUDA reports as
// cudaErrorInsufficientDriver rather than cudaErrorNoDevice), the cuBLAS
// backend fails cleanly and says why.
// UNSUPPORTED: cuda-device
// RUN: not tshape-opt %s --tshape-run-gemms="backend=cublas" 2>&1 | FileCheck %s
// CHECK: error: tshape-run-gemms: backend cublas: {{(no device: no CUDA device|backend unavailable: cannot load the cuBLAS backend)}}
func.func @g(%a: tensor<64x64xbf16>, %c: tensor<64x64xbf16>) -> tensor<64x64xbf16> {
  %0 = linalg.matmul ins(%a, %a : tensor<64x64xbf16>, tensor<64x64xbf16>) outs(%c : tensor<64x64xbf16>) -> tensor<64x64xbf16>
  return %0 : tensor<64x64xbf16>
}
