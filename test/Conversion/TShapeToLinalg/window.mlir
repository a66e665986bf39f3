// RUN: tshape-opt %s --tshape-lower-to-linalg | FileCheck %s
// RUN: tshape-opt %s --tshape-lower-to-linalg="phase=train" | FileCheck %s --check-prefix=TRAIN
// RUN: tshape-opt %S/Inputs/local-global.mlir --tshape-test-gemm-consistency="phase=train" -o /dev/null 2>&1 | FileCheck %s --check-prefix=MODEL --allow-empty
// RUN: tshape-opt %S/Inputs/local-global.mlir --tshape-lower-to-linalg="phase=train" | FileCheck %s --check-prefix=STACK
// RUN: tshape-opt %s --tshape-lower-to-linalg="phase=train" | mlir-opt -o /dev/null
// Windowed attention (docs/lowering.md#windows), by hand. b = 1, s = 16,
// h = 64, a = g = 4, d = 16. A sliding window W = 4 bands the 16 queries
// into ceildiv(16, 4) = 4 blocks of 4, each over the 4 keys before it and
// its own 4: scores batch b*a*4 = 16, M = 4, N = 2W = 8, K = d = 16
// (2*16*4*8*16 = 16384 FLOPs, half of the unbanded 2*4*16*16*16 =
// 32768). Values: M = 4, N = d = 16, K = 8.
// A chunk of W = 8 (Llama 4): 2 blocks of 8 over their own 8 keys:
// batch 4*2 = 8, M = N = 8. A global layer (no window): 4 x 16x16x16.

func.func @local(%x: tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16> {
  %0 = tshape.attention %x heads = 4 kv_heads = 4 causal window = 4 : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
  return %0 : tensor<1x16x64xbf16>
}
// CHECK-LABEL: func.func @local
// CHECK: linalg.batch_matmul {{.*}}tshape.role = "attn_score"{{.*}}tshape.sizes = {batch = "microbatch*(heads/tp)*ceildiv(seq,window)", k = "hidden/heads", m = "window", n = "2*window"{{.*}} ins(%{{.*}}, %{{.*}} : tensor<16x4x16xbf16>, tensor<16x8x16xbf16>) outs(%{{.*}} : tensor<16x4x8xbf16>)
// CHECK: linalg.batch_matmul {{.*}}tshape.role = "attn_value"{{.*}} ins(%{{.*}}, %{{.*}} : tensor<16x4x8xbf16>, tensor<16x8x16xbf16>) outs(%{{.*}} : tensor<16x4x16xbf16>)

func.func @chunk(%x: tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16> {
  %0 = tshape.attention %x heads = 4 kv_heads = 4 causal window = 8 chunked : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
  return %0 : tensor<1x16x64xbf16>
}
// CHECK-LABEL: func.func @chunk
// CHECK: tshape.role = "attn_score"{{.*}} ins(%{{.*}}, %{{.*}} : tensor<8x8x16xbf16>, tensor<8x8x16xbf16>) outs(%{{.*}} : tensor<8x8x8xbf16>)

func.func @global(%x: tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16> {
  %0 = tshape.attention %x heads = 4 kv_heads = 4 causal : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
  return %0 : tensor<1x16x64xbf16>
}
// CHECK-LABEL: func.func @global
// CHECK: tshape.role = "attn_score"{{.*}} ins(%{{.*}}, %{{.*}} : tensor<4x16x16xbf16>, tensor<4x16x16xbf16>) outs(%{{.*}} : tensor<4x16x16xbf16>)

// Training: the gradients of the banded GEMMs keep the band (dQ = dS.K:
// 16 x 4x16x8; dK = dS^T.Q: 16 x 8x16x4), and the key gradients of the
// overlapping blocks are summed back to the 16 keys.
// TRAIN-LABEL: func.func @local
// TRAIN: tshape.role = "attn_score_dq"{{.*}} ins(%{{.*}}, %{{.*}} : tensor<16x4x8xbf16>, tensor<16x8x16xbf16>) outs(%{{.*}} : tensor<16x4x16xbf16>)
// TRAIN: tshape.role = "attn_score_dk"{{.*}} ins(%{{.*}}, %{{.*}} : tensor<16x4x8xbf16>, tensor<16x4x16xbf16>) outs(%{{.*}} : tensor<16x8x16xbf16>)
// A local and a global layer in one function (a heterogeneous stack) match
// their model: no error from the consistency test; GQA 4/2 broadcast to
// 4 heads: local scores 4 x 4 blocks = 16 x 4x8x16, global 4 x 16x16x16.
// MODEL-NOT: error
// STACK: tshape.layer = 0 : i64, tshape.role = "attn_score"{{.*}} ins(%{{.*}}, %{{.*}} : tensor<16x4x16xbf16>, tensor<16x8x16xbf16>)
// STACK: tshape.layer = 1 : i64, tshape.role = "attn_score"{{.*}} ins(%{{.*}}, %{{.*}} : tensor<4x16x16xbf16>, tensor<4x16x16xbf16>)
// STACK: tshape.layer = 2 : i64, tshape.role = "attn_score"{{.*}} ins(%{{.*}}, %{{.*}} : tensor<16x4x16xbf16>, tensor<16x8x16xbf16>)
