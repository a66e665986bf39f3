// RUN: tshape-opt %s --tshape-lower-to-linalg="phase=train" | FileCheck %s
// RUN: tshape-opt %s --tshape-test-gemm-consistency="phase=train" -o /dev/null 2>&1 | FileCheck %s --check-prefix=MODEL
// RUN: tshape-opt %s --tshape-lower-to-linalg="phase=train" | mlir-opt -o /dev/null
// RUN: tshape-opt %s --tshape-lower-to-linalg="phase=train fuse-gated-mlp=true" | FileCheck %s --check-prefix=FUSED
//
// One Mixtral-8x7B layer (h = 4096, 32 heads, 8 kv heads, 8 experts of
// inner 14336, top-2) at b = 4, s = 4096. Derived by hand: b*s = 16384
// tokens; each routed 2 times over 8 experts, so each expert gets
// 16384 * 2 / 8 = 4096 tokens. The router is (16384 x 4096).(4096 x 8);
// the experts' gate and up are one grouped GEMM each over the 8 experts,
// 8 x (4096 x 4096).(4096 x 14336), the down 8 x (4096 x 14336).(14336 x
// 4096). The backward: each GEMM's dgrad and wgrad, in reverse order
// (down, up, gate, router). With Y = X.W^T (X: M x K, W: N x K), the
// dgrad is dX = dY.W (M x N).(N x K) -> M x K and the wgrad X^T.dY
// (K x M).(M x N) -> K x N, per expert for the grouped GEMMs:
//   down (M 4096, N 4096, K 14336): dgrad 8 x (4096x4096).(4096x14336)
//     -> 8x4096x14336; wgrad 8 x (14336x4096).(4096x4096) -> 8x14336x4096
//   up, gate (M 4096, N 14336, K 4096): dgrad 8 x (4096x14336).
//     (14336x4096) -> 8x4096x4096; wgrad 8 x (4096x4096).(4096x14336)
//     -> 8x4096x14336
//   router (M 16384, N 8, K 4096): dgrad (16384x8).(8x4096) ->
//     16384x4096; wgrad (4096x16384).(16384x8) -> 4096x8
// (the wgrad's X^T is X read through its indexing map: its operand is X).

// Kernels: forward qkv, attention, out, router, gate, up, down = 7; backward
// 2 x 6 GEMM gradients + the attention's backward kernel = 13; 20 in all.
// Contractions: the attention lowers to 2 forward and 4 backward GEMMs, so
// 8 + 16 = 24.
// MODEL: remark: tshape-test-gemm-consistency: 20 kernels, 24 contractions match the model

// CHECK-LABEL: func.func @mixtral_layer
// CHECK: linalg.matmul {{.*}}tshape.role = "moe_router"{{.*}}ins({{.*}} : tensor<16384x4096xbf16>, tensor<8x4096xbf16>) outs({{.*}} : tensor<16384x8xbf16>)
// CHECK: linalg.batch_matmul {{.*}}tshape.role = "moe_expert_gate", tshape.sizes = {batch = "experts/ep", k = "hidden", m = "ceildiv(microbatch*seq*topk,experts/ep)"{{.*}}ins({{.*}} : tensor<8x4096x4096xbf16>, tensor<8x14336x4096xbf16>) outs({{.*}} : tensor<8x4096x14336xbf16>)
// CHECK: linalg.batch_matmul {{.*}}tshape.role = "moe_expert_up"{{.*}}ins({{.*}} : tensor<8x4096x4096xbf16>, tensor<8x14336x4096xbf16>) outs({{.*}} : tensor<8x4096x14336xbf16>)
// CHECK: linalg.batch_matmul {{.*}}tshape.role = "moe_expert_down"{{.*}}ins({{.*}} : tensor<8x4096x14336xbf16>, tensor<8x4096x14336xbf16>) outs({{.*}} : tensor<8x4096x4096xbf16>)
// CHECK: linalg.batch_matmul {{.*}}tshape.role = "moe_expert_down_dgrad"{{.*}}ins({{.*}} : tensor<8x4096x4096xbf16>, tensor<8x4096x14336xbf16>) outs({{.*}} : tensor<8x4096x14336xbf16>)
// CHECK: linalg.batch_matmul {{.*}}tshape.role = "moe_expert_down_wgrad"{{.*}}ins({{.*}} : tensor<8x4096x14336xbf16>, tensor<8x4096x4096xbf16>) outs({{.*}} : tensor<8x14336x4096xbf16>)
// CHECK: linalg.batch_matmul {{.*}}tshape.role = "moe_expert_up_dgrad"{{.*}}ins({{.*}} : tensor<8x4096x14336xbf16>, tensor<8x14336x4096xbf16>) outs({{.*}} : tensor<8x4096x4096xbf16>)
// CHECK: linalg.batch_matmul {{.*}}tshape.role = "moe_expert_up_wgrad"{{.*}}ins({{.*}} : tensor<8x4096x4096xbf16>, tensor<8x4096x14336xbf16>) outs({{.*}} : tensor<8x4096x14336xbf16>)
// CHECK: linalg.batch_matmul {{.*}}tshape.role = "moe_expert_gate_dgrad"{{.*}}ins({{.*}} : tensor<8x4096x14336xbf16>, tensor<8x14336x4096xbf16>) outs({{.*}} : tensor<8x4096x4096xbf16>)
// CHECK: linalg.batch_matmul {{.*}}tshape.role = "moe_expert_gate_wgrad"{{.*}}ins({{.*}} : tensor<8x4096x4096xbf16>, tensor<8x4096x14336xbf16>) outs({{.*}} : tensor<8x4096x14336xbf16>)
// CHECK: linalg.matmul {{.*}}tshape.role = "moe_router_dgrad"{{.*}}ins({{.*}} : tensor<16384x8xbf16>, tensor<8x4096xbf16>) outs({{.*}} : tensor<16384x4096xbf16>)
// CHECK: linalg.matmul {{.*}}tshape.role = "moe_router_wgrad"{{.*}}ins({{.*}} : tensor<16384x4096xbf16>, tensor<16384x8xbf16>) outs({{.*}} : tensor<4096x8xbf16>)

// FUSED: linalg.batch_matmul {{.*}}tshape.role = "moe_expert_gate_up"{{.*}}outs({{.*}} : tensor<8x4096x28672xbf16>)
func.func @mixtral_layer(%x: tensor<4x4096x4096xbf16>) -> tensor<4x4096x4096xbf16> {
  %b = tshape.block sequential %x : tensor<4x4096x4096xbf16> {
  ^bb0(%i: tensor<4x4096x4096xbf16>):
    %a = tshape.attention %i heads = 32 kv_heads = 8 causal fused : tensor<4x4096x4096xbf16> -> tensor<4x4096x4096xbf16>
    %m = tshape.moe %a experts = 8 topk = 2 inner = 14336 activation = silu gated : tensor<4x4096x4096xbf16> -> tensor<4x4096x4096xbf16>
    tshape.yield %m : tensor<4x4096x4096xbf16>
  }
  return %b : tensor<4x4096x4096xbf16>
}
