// RUN: tshape-opt %s | tshape-opt | FileCheck %s
// tshape.mla parses, prints and parses again: with a query latent
// (DeepSeek-V3's layout) and without one (DeepSeek-V2-Lite's), in a
// dense-then-MoE stack as DeepSeek's first_k_dense_replace makes.

// CHECK-LABEL: func.func @stack
// CHECK: tshape.mla %{{.*}} heads = 8 q_lora_rank = 96 kv_lora_rank = 32 qk_nope_head_dim = 16 qk_rope_head_dim = 8 v_head_dim = 16 causal fused :
// CHECK: tshape.mlp
// CHECK: tshape.mla %{{.*}} heads = 8 kv_lora_rank = 32 qk_nope_head_dim = 16 qk_rope_head_dim = 8 v_head_dim = 16 causal :
// CHECK: tshape.moe
func.func @stack(%x: tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16>
    attributes {tshape.parallel = #tshape.parallel<tp = 2>} {
  %0 = tshape.repeat %x layers = 1 : tensor<1x16x64xbf16> {
  ^bb0(%in: tensor<1x16x64xbf16>):
    %b = tshape.block sequential %in : tensor<1x16x64xbf16> {
    ^bb0(%i: tensor<1x16x64xbf16>):
      %a = tshape.mla %i heads = 8 q_lora_rank = 96 kv_lora_rank = 32 qk_nope_head_dim = 16 qk_rope_head_dim = 8 v_head_dim = 16 causal fused : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
      %m = tshape.mlp %a inner = 256 activation = silu gated : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
      tshape.yield %m : tensor<1x16x64xbf16>
    }
    tshape.yield %b : tensor<1x16x64xbf16>
  }
  %1 = tshape.repeat %0 layers = 3 : tensor<1x16x64xbf16> {
  ^bb0(%in: tensor<1x16x64xbf16>):
    %b = tshape.block sequential %in : tensor<1x16x64xbf16> {
    ^bb0(%i: tensor<1x16x64xbf16>):
      %a = tshape.mla %i heads = 8 kv_lora_rank = 32 qk_nope_head_dim = 16 qk_rope_head_dim = 8 v_head_dim = 16 causal : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
      %m = tshape.moe %a experts = 8 topk = 2 inner = 128 activation = silu gated : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
      tshape.yield %m : tensor<1x16x64xbf16>
    }
    tshape.yield %b : tensor<1x16x64xbf16>
  }
  return %1 : tensor<1x16x64xbf16>
}
