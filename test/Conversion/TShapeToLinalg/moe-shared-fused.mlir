// RUN: tshape-opt %s --tshape-lower-to-linalg="phase=train fuse-gated-mlp=true" | FileCheck %s --check-prefix=FUSED
// RUN: tshape-opt %s --tshape-lower-to-linalg="phase=train fuse-gated-mlp=true" | mlir-opt -o /dev/null
// RUN: tshape-opt %s --tshape-test-gemm-consistency="phase=train fuse-gated-mlp=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=MODEL
// RUN: tshape-opt %s --tshape-lower-to-linalg="phase=train" | FileCheck %s --check-prefix=UNFUSED
// RUN: tshape-opt %s --tshape-test-gemm-consistency="phase=train" -o /dev/null 2>&1 | FileCheck %s --check-prefix=MODEL
//
// A MoE layer with a shared expert (Qwen1.5-MoE's shapes: h = 2048, 60
// experts of 1408, top-4, one shared expert of 5632) at b = 1, s = 512:
// 512 tokens, after a fused attention layer. With fuse-gated-mlp the shared expert's gate and up are one
// GEMM, as the routed experts' are (Megatron-LM's SharedExpertMLP runs
// one linear_fc1): (512 x 2048).(2048 x 2 x 5632) -> 512 x 11264; its
// dgrad dY.W (512 x 11264).(11264 x 2048) -> 512 x 2048 and wgrad X^T.dY
// (2048 x 512).(512 x 11264) -> 2048 x 11264. Unfused, gate and up are
// 512 x 5632 each, and up reads the gate's x (tshape.input_shared: one
// FP8 cast for both).

// MODEL: match the model

// FUSED-LABEL: func.func @shared_layer
// FUSED: linalg.matmul {{.*}}tshape.role = "moe_shared_gate_up"{{.*}}ins({{.*}} : tensor<512x2048xbf16>, tensor<11264x2048xbf16>) outs({{.*}} : tensor<512x11264xbf16>)
// FUSED-NOT: "moe_shared_gate"
// FUSED-NOT: "moe_shared_up"
// FUSED: linalg.matmul {{.*}}tshape.role = "moe_shared_gate_up_dgrad"{{.*}}ins({{.*}} : tensor<512x11264xbf16>, tensor<11264x2048xbf16>) outs({{.*}} : tensor<512x2048xbf16>)
// FUSED: linalg.matmul {{.*}}tshape.role = "moe_shared_gate_up_wgrad"{{.*}}ins({{.*}} : tensor<512x2048xbf16>, tensor<512x11264xbf16>) outs({{.*}} : tensor<2048x11264xbf16>)

// UNFUSED: linalg.matmul {{.*}}tshape.role = "moe_shared_gate"{{.*}}outs({{.*}} : tensor<512x5632xbf16>)
// UNFUSED: linalg.matmul {{.*}}tshape.input_shared{{.*}}tshape.role = "moe_shared_up"{{.*}}outs({{.*}} : tensor<512x5632xbf16>)
func.func @shared_layer(%x: tensor<1x512x2048xbf16>) -> tensor<1x512x2048xbf16> {
  %b = tshape.block sequential %x : tensor<1x512x2048xbf16> {
  ^bb0(%i: tensor<1x512x2048xbf16>):
    %a = tshape.attention %i heads = 16 kv_heads = 16 causal fused : tensor<1x512x2048xbf16> -> tensor<1x512x2048xbf16>
    %m = tshape.moe %a experts = 60 topk = 4 inner = 1408 activation = silu gated shared_experts = 1 shared_inner = 5632 : tensor<1x512x2048xbf16> -> tensor<1x512x2048xbf16>
    tshape.yield %m : tensor<1x512x2048xbf16>
  }
  return %b : tensor<1x512x2048xbf16>
}
