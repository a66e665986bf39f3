// RUN: tshape-opt %s | tshape-opt | FileCheck %s
// Every op parses, prints and parses again to the same IR.

// CHECK-LABEL: func.func @gpt3_2p7b
// CHECK-SAME: tshape.parallel = #tshape.parallel<tp = 1>
func.func @gpt3_2p7b(%tokens: tensor<4x2048xi32>) -> tensor<4x2048x50257xbf16>
    attributes {tshape.parallel = #tshape.parallel<tp = 1>} {
  // CHECK: %[[X:.*]] = tshape.embedding %{{.*}} vocab = 50257 : tensor<4x2048xi32> -> tensor<4x2048x2560xbf16>
  %x = tshape.embedding %tokens vocab = 50257
      : tensor<4x2048xi32> -> tensor<4x2048x2560xbf16>
  // CHECK: %[[R:.*]] = tshape.repeat %[[X]] layers = 32 : tensor<4x2048x2560xbf16> {
  %y = tshape.repeat %x layers = 32 : tensor<4x2048x2560xbf16> {
  ^bb0(%in: tensor<4x2048x2560xbf16>):
    // CHECK: tshape.block sequential
    %b = tshape.block sequential %in : tensor<4x2048x2560xbf16> {
    ^bb0(%h: tensor<4x2048x2560xbf16>):
      // CHECK: %[[A:.*]] = tshape.attention %{{.*}} heads = 32 kv_heads = 32 causal : tensor<4x2048x2560xbf16> -> tensor<4x2048x2560xbf16>
      %a = tshape.attention %h heads = 32 kv_heads = 32 causal
          : tensor<4x2048x2560xbf16> -> tensor<4x2048x2560xbf16>
      // CHECK: %[[M:.*]] = tshape.mlp %[[A]] inner = 10240 activation = gelu : tensor<4x2048x2560xbf16> -> tensor<4x2048x2560xbf16>
      %m = tshape.mlp %a inner = 10240 activation = gelu
          : tensor<4x2048x2560xbf16> -> tensor<4x2048x2560xbf16>
      // CHECK: tshape.yield %[[M]] : tensor<4x2048x2560xbf16>
      tshape.yield %m : tensor<4x2048x2560xbf16>
    }
    tshape.yield %b : tensor<4x2048x2560xbf16>
  }
  // CHECK: tshape.lm_head %[[R]] vocab = 50257 tied : tensor<4x2048x2560xbf16> -> tensor<4x2048x50257xbf16>
  %logits = tshape.lm_head %y vocab = 50257 tied
      : tensor<4x2048x2560xbf16> -> tensor<4x2048x50257xbf16>
  return %logits : tensor<4x2048x50257xbf16>
}

// Gemma-style explicit head_dim, GQA, fused attention, a gated MLP, fp16.
// CHECK-LABEL: func.func @gated_gqa
func.func @gated_gqa(%x: tensor<1x4096x3072xf16>) -> tensor<1x4096x3072xf16> {
  // CHECK: tshape.attention %{{.*}} heads = 16 kv_heads = 4 head_dim = 256 causal fused
  %a = tshape.attention %x heads = 16 kv_heads = 4 head_dim = 256 causal fused
      : tensor<1x4096x3072xf16> -> tensor<1x4096x3072xf16>
  // CHECK: tshape.mlp %{{.*}} inner = 24576 activation = gelu gated
  %m = tshape.mlp %a inner = 24576 activation = gelu gated
      : tensor<1x4096x3072xf16> -> tensor<1x4096x3072xf16>
  return %m : tensor<1x4096x3072xf16>
}

// Falcon-style parallel block with multi-query attention on 2 ranks, tf32.
// CHECK-LABEL: func.func @parallel_mqa
// CHECK-SAME: tshape.math = #tshape.math<tf32>
// CHECK-SAME: tshape.parallel = #tshape.parallel<tp = 2>
func.func @parallel_mqa(%x: tensor<2x512x4544xf32>) -> tensor<2x512x4544xf32>
    attributes {tshape.parallel = #tshape.parallel<tp = 2>,
                tshape.math = #tshape.math<tf32>} {
  // CHECK: tshape.block parallel
  %y = tshape.block parallel %x : tensor<2x512x4544xf32> {
  ^bb0(%in: tensor<2x512x4544xf32>):
    // CHECK: heads = 72 kv_heads = 1 head_dim = 64
    %a = tshape.attention %in heads = 72 kv_heads = 1 head_dim = 64
        : tensor<2x512x4544xf32> -> tensor<2x512x4544xf32>
    // CHECK: activation = relu
    %m = tshape.mlp %in inner = 18176 activation = relu
        : tensor<2x512x4544xf32> -> tensor<2x512x4544xf32>
    // CHECK: tshape.yield %{{.*}}, %{{.*}} : tensor<2x512x4544xf32>, tensor<2x512x4544xf32>
    tshape.yield %a, %m : tensor<2x512x4544xf32>, tensor<2x512x4544xf32>
  }
  return %y : tensor<2x512x4544xf32>
}

// BERT-style encoder (no causal flag), fp8 activations, silu.
// CHECK-LABEL: func.func @encoder_fp8
func.func @encoder_fp8(%x: tensor<8x512x768xf8E4M3FN>) -> tensor<8x512x768xf8E4M3FN> {
  // CHECK: tshape.attention %{{.*}} heads = 12 kv_heads = 12 : tensor<8x512x768xf8E4M3FN>
  %a = tshape.attention %x heads = 12 kv_heads = 12
      : tensor<8x512x768xf8E4M3FN> -> tensor<8x512x768xf8E4M3FN>
  // CHECK: activation = silu
  %m = tshape.mlp %a inner = 3072 activation = silu
      : tensor<8x512x768xf8E4M3FN> -> tensor<8x512x768xf8E4M3FN>
  return %m : tensor<8x512x768xf8E4M3FN>
}
