// RUN: tshape-opt %s -split-input-file | FileCheck %s
// RUN: tshape-opt %s -split-input-file --tshape-lower-to-linalg | FileCheck %s --check-prefix=LOWER
//
// #tshape.parallel states every parallel degree (model::Parallelism): tp is
// always printed, pp, dp, ep and cp only when they are not 1. Only tp splits
// a GEMM size today, so the lowered GEMMs of tp = 2 are the same whatever
// the other degrees are.

// CHECK-LABEL: func.func @degrees
// CHECK-SAME: tshape.parallel = #tshape.parallel<tp = 2, pp = 4, dp = 8>
// LOWER-LABEL: func.func @degrees
// LOWER-SAME: tshape.tp = 2
// The MLP's up projection on one of 2 ranks: N = ffn/tp = 1024/2 = 512.
// LOWER: linalg.matmul {{.*}}tshape.role = "mlp_up", tshape.sizes = {k = "hidden", m = "microbatch*seq", n = "ffn/tp", params = {ffn = 1024 : i64, hidden = 256 : i64, microbatch = 1 : i64, seq = 8 : i64, tp = 2 : i64}}
func.func @degrees(%x: tensor<1x8x256xbf16>) -> tensor<1x8x256xbf16>
    attributes {tshape.parallel = #tshape.parallel<dp = 8, tp = 2, pp = 4>} {
  %y = tshape.mlp %x inner = 1024 activation = gelu
      : tensor<1x8x256xbf16> -> tensor<1x8x256xbf16>
  return %y : tensor<1x8x256xbf16>
}

// -----

// Degrees of 1 are left out when printed; tp stays.
// CHECK-LABEL: func.func @ones
// CHECK-SAME: tshape.parallel = #tshape.parallel<tp = 1>}
func.func @ones(%x: tensor<1x8x256xbf16>) -> tensor<1x8x256xbf16>
    attributes {tshape.parallel = #tshape.parallel<tp = 1, pp = 1, cp = 1>} {
  %y = tshape.mlp %x inner = 1024 activation = gelu
      : tensor<1x8x256xbf16> -> tensor<1x8x256xbf16>
  return %y : tensor<1x8x256xbf16>
}
