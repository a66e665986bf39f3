// RUN: tshape-opt %s | tshape-opt | FileCheck %s
// The window attributes round-trip: a sliding window, a chunk, none.

// CHECK-LABEL: func.func @windows
func.func @windows(%x: tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16> {
  // CHECK: tshape.attention %{{.*}} heads = 4 kv_heads = 2 causal window = 8 :
  %0 = tshape.attention %x heads = 4 kv_heads = 2 causal window = 8 : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
  // CHECK: tshape.attention %{{.*}} heads = 4 kv_heads = 2 causal window = 8 chunked :
  %1 = tshape.attention %0 heads = 4 kv_heads = 2 causal window = 8 chunked : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
  // CHECK: tshape.attention %{{.*}} heads = 4 kv_heads = 2 causal :
  %2 = tshape.attention %1 heads = 4 kv_heads = 2 causal : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
  return %2 : tensor<1x16x64xbf16>
}
