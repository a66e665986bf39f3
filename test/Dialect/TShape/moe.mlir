// RUN: tshape-opt %s | tshape-opt | FileCheck %s
// tshape.moe parses, prints and parses again, in a heterogeneous stack:
// one dense layer, then a repeat of a two-layer pattern (dense, MoE), as
// DeepSeek's first_k_dense_replace then Llama 4's interleave step 2.

// CHECK-LABEL: func.func @stack
// CHECK: tshape.repeat %{{.*}} layers = 1
// CHECK: tshape.mlp
// CHECK: tshape.repeat %{{.*}} layers = 3
// CHECK: tshape.mlp
// CHECK: tshape.moe %{{.*}} experts = 8 topk = 2 inner = 128 activation = silu gated shared_experts = 1 shared_inner = 64 capacity = 125 :
func.func @stack(%x: tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16>
    attributes {tshape.parallel = #tshape.parallel<tp = 1, ep = 2, dp = 2>} {
  %0 = tshape.repeat %x layers = 1 : tensor<1x16x64xbf16> {
  ^bb0(%in: tensor<1x16x64xbf16>):
    %b = tshape.block sequential %in : tensor<1x16x64xbf16> {
    ^bb0(%i: tensor<1x16x64xbf16>):
      %a = tshape.attention %i heads = 4 kv_heads = 4 causal : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
      %m = tshape.mlp %a inner = 256 activation = silu gated : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
      tshape.yield %m : tensor<1x16x64xbf16>
    }
    tshape.yield %b : tensor<1x16x64xbf16>
  }
  %1 = tshape.repeat %0 layers = 3 : tensor<1x16x64xbf16> {
  ^bb0(%in: tensor<1x16x64xbf16>):
    %b = tshape.block sequential %in : tensor<1x16x64xbf16> {
    ^bb0(%i: tensor<1x16x64xbf16>):
      %a = tshape.attention %i heads = 4 kv_heads = 4 causal : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
      %m = tshape.mlp %a inner = 256 activation = silu gated : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
      tshape.yield %m : tensor<1x16x64xbf16>
    }
    %c = tshape.block sequential %b : tensor<1x16x64xbf16> {
    ^bb0(%i: tensor<1x16x64xbf16>):
      %a = tshape.attention %i heads = 4 kv_heads = 4 causal : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
      %m = tshape.moe %a experts = 8 topk = 2 inner = 128 activation = silu gated shared_experts = 1 shared_inner = 64 capacity = 125 : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
      tshape.yield %m : tensor<1x16x64xbf16>
    }
    tshape.yield %c : tensor<1x16x64xbf16>
  }
  return %1 : tensor<1x16x64xbf16>
}
