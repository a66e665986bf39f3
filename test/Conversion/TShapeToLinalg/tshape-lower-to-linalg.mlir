// RUN: tshape-opt %s -split-input-file --tshape-lower-to-linalg | FileCheck %s
// RUN: tshape-opt %s -split-input-file --tshape-lower-to-linalg | mlir-opt -split-input-file | FileCheck %s --check-prefix=UPSTREAM

// GPT-3 2.7B at the paper's b = 4, s = 2048, one rank: h = 2560, a = 32,
// d = h/a = 80, f = 4h = 10240, v = 50257, b*s = 8192. Two layers stand for
// the 32 (repeat unrolls; each GEMM gets its layer index).
//   qkv        (8192 x 2560) . (2560 x 3h = 7680)
//   attn_score batch b*a = 128: (2048 x 80) . (80 x 2048)
//   attn_value batch 128: (2048 x 2048) . (2048 x 80)
//   attn_out   (8192 x 2560) . (2560 x 2560)
//   mlp_up     (8192 x 2560) . (2560 x 10240)
//   mlp_down   (8192 x 10240) . (10240 x 2560)
//   logits     (8192 x 2560) . (2560 x 50257), weight = the tied table

// CHECK-LABEL: func.func @gpt3
// CHECK-SAME: -> tensor<4x2048x50257xbf16>
// CHECK-SAME: tshape.tp = 1 : i64
// CHECK: %[[TABLE:.*]] = arith.constant dense<{{.*}}> : tensor<50257x2560xbf16>
// CHECK: linalg.generic
// CHECK: tensor.extract %[[TABLE]]
// CHECK: linalg.matmul indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}] {tshape.layer = 0 : i64, tshape.role = "qkv"{{.*}}} ins(%{{.*}}, %{{.*}} : tensor<8192x2560xbf16>, tensor<7680x2560xbf16>) outs(%{{.*}} : tensor<8192x7680xbf16>)
// CHECK: linalg.batch_matmul {{.*}}{tshape.layer = 0 : i64, tshape.role = "attn_score"{{.*}}} ins(%{{.*}}, %{{.*}} : tensor<128x2048x80xbf16>, tensor<128x2048x80xbf16>) outs(%{{.*}} : tensor<128x2048x2048xbf16>)
// CHECK: linalg.softmax dimension(2)
// CHECK: linalg.batch_matmul {tshape.layer = 0 : i64, tshape.role = "attn_value"{{.*}}} ins(%{{.*}}, %{{.*}} : tensor<128x2048x2048xbf16>, tensor<128x2048x80xbf16>) outs(%{{.*}} : tensor<128x2048x80xbf16>)
// CHECK: {tshape.layer = 0 : i64, tshape.role = "attn_out"{{.*}}} ins(%{{.*}}, %{{.*}} : tensor<8192x2560xbf16>, tensor<2560x2560xbf16>) outs(%{{.*}} : tensor<8192x2560xbf16>)
// CHECK: linalg.add
// CHECK: {tshape.layer = 0 : i64, tshape.role = "mlp_up"{{.*}}} ins(%{{.*}}, %{{.*}} : tensor<8192x2560xbf16>, tensor<10240x2560xbf16>) outs(%{{.*}} : tensor<8192x10240xbf16>)
// CHECK: math.tanh
// CHECK: {tshape.layer = 0 : i64, tshape.role = "mlp_down"{{.*}}} ins(%{{.*}}, %{{.*}} : tensor<8192x10240xbf16>, tensor<2560x10240xbf16>) outs(%{{.*}} : tensor<8192x2560xbf16>)
// CHECK: {tshape.layer = 1 : i64, tshape.role = "qkv"{{.*}}}
// CHECK: {tshape.layer = 1 : i64, tshape.role = "mlp_down"{{.*}}}
// CHECK: {tshape.layer = -1 : i64, tshape.role = "logits"{{.*}}} ins(%{{.*}}, %[[TABLE]] : tensor<8192x2560xbf16>, tensor<50257x2560xbf16>) outs(%{{.*}} : tensor<8192x50257xbf16>)
// CHECK-NOT: tshape.
// CHECK: return %{{.*}} : tensor<4x2048x50257xbf16>
// UPSTREAM-LABEL: func.func @gpt3
// UPSTREAM: tshape.role = "logits"
func.func @gpt3(%tokens: tensor<4x2048xi32>) -> tensor<4x2048x50257xbf16>
    attributes {tshape.parallel = #tshape.parallel<tp = 1>} {
  %x = tshape.embedding %tokens vocab = 50257 : tensor<4x2048xi32> -> tensor<4x2048x2560xbf16>
  %y = tshape.repeat %x layers = 2 : tensor<4x2048x2560xbf16> {
  ^bb0(%in: tensor<4x2048x2560xbf16>):
    %b = tshape.block sequential %in : tensor<4x2048x2560xbf16> {
    ^bb0(%h: tensor<4x2048x2560xbf16>):
      %a = tshape.attention %h heads = 32 kv_heads = 32 causal : tensor<4x2048x2560xbf16> -> tensor<4x2048x2560xbf16>
      %m = tshape.mlp %a inner = 10240 activation = gelu : tensor<4x2048x2560xbf16> -> tensor<4x2048x2560xbf16>
      tshape.yield %m : tensor<4x2048x2560xbf16>
    }
    tshape.yield %b : tensor<4x2048x2560xbf16>
  }
  %l = tshape.lm_head %y vocab = 50257 tied : tensor<4x2048x2560xbf16> -> tensor<4x2048x50257xbf16>
  return %l : tensor<4x2048x50257xbf16>
}

// -----

// GQA (Mistral-7B: h = 4096, a = 32, g = 8, d = 128) on t = 2 ranks, gated
// SiLU MLP f = 14336, b = 1, s = 4096. Per rank: a/t = 16, g/t = 4,
//   qkv      (4096 x 4096) . (4096 x (16 + 2*4)*128 = 3072)
//   K and V are broadcast from 4 to 16 heads (groups of 16/4 = 4)
//   scores   batch b*a/t = 16: (4096 x 128) . (128 x 4096)
//   attn_out (4096 x 16*128 = 2048) . (2048 x 4096)
//   gate, up (4096 x 4096) . (4096 x f/t = 7168); down (4096 x 7168) . (7168 x 4096)
// CHECK-LABEL: func.func @mistral_tp2
// CHECK-SAME: tshape.tp = 2 : i64
// CHECK: tshape.role = "qkv"{{.*}}} ins(%{{.*}}, %{{.*}} : tensor<4096x4096xbf16>, tensor<3072x4096xbf16>) outs(%{{.*}} : tensor<4096x3072xbf16>)
// CHECK: linalg.broadcast ins(%{{.*}} : tensor<1x4x4096x128xbf16>) outs(%{{.*}} : tensor<1x4x4x4096x128xbf16>) dimensions = [2]
// CHECK: tshape.role = "attn_score"{{.*}}} ins(%{{.*}}, %{{.*}} : tensor<16x4096x128xbf16>, tensor<16x4096x128xbf16>) outs(%{{.*}} : tensor<16x4096x4096xbf16>)
// CHECK: tshape.role = "attn_out"{{.*}}} ins(%{{.*}}, %{{.*}} : tensor<4096x2048xbf16>, tensor<4096x2048xbf16>) outs(%{{.*}} : tensor<4096x4096xbf16>)
// CHECK: tshape.role = "mlp_gate"{{.*}}} ins(%{{.*}}, %{{.*}} : tensor<4096x4096xbf16>, tensor<7168x4096xbf16>) outs(%{{.*}} : tensor<4096x7168xbf16>)
// CHECK: tshape.role = "mlp_up"{{.*}}} ins(%{{.*}}, %{{.*}} : tensor<4096x4096xbf16>, tensor<7168x4096xbf16>) outs(%{{.*}} : tensor<4096x7168xbf16>)
// CHECK: arith.divf
// CHECK: linalg.mul
// CHECK: tshape.role = "mlp_down"{{.*}}} ins(%{{.*}}, %{{.*}} : tensor<4096x7168xbf16>, tensor<4096x7168xbf16>) outs(%{{.*}} : tensor<4096x4096xbf16>)
// Per-rank logits: v/t = 16000.
// CHECK: tshape.role = "logits"{{.*}}} ins(%{{.*}}, %{{.*}} : tensor<4096x4096xbf16>, tensor<16000x4096xbf16>) outs(%{{.*}} : tensor<4096x16000xbf16>)
// CHECK: return %{{.*}} : tensor<1x4096x16000xbf16>
func.func @mistral_tp2(%x: tensor<1x4096x4096xbf16>) -> tensor<1x4096x32000xbf16>
    attributes {tshape.parallel = #tshape.parallel<tp = 2>} {
  %b = tshape.block sequential %x : tensor<1x4096x4096xbf16> {
  ^bb0(%h: tensor<1x4096x4096xbf16>):
    %a = tshape.attention %h heads = 32 kv_heads = 8 causal : tensor<1x4096x4096xbf16> -> tensor<1x4096x4096xbf16>
    %m = tshape.mlp %a inner = 14336 activation = silu gated : tensor<1x4096x4096xbf16> -> tensor<1x4096x4096xbf16>
    tshape.yield %m : tensor<1x4096x4096xbf16>
  }
  %l = tshape.lm_head %b vocab = 32000 : tensor<1x4096x4096xbf16> -> tensor<1x4096x32000xbf16>
  return %l : tensor<1x4096x32000xbf16>
}

// -----

// Fused attention (FlashAttention) keeps the two batched GEMMs with their
// shapes and marks them with the layer they fuse in. Multi-query (g = 1) on
// t = 4: the one kv head is replicated, qkv N = (16/4 + 2*1) * 64 = 384.
// CHECK-LABEL: func.func @fused_mqa
// CHECK: tshape.role = "qkv"{{.*}}} ins(%{{.*}}, %{{.*}} : tensor<512x1024xf16>, tensor<384x1024xf16>)
// A fused attention's score GEMM carries the kernel (causal: the kernel
// skips the masked half); both GEMMs carry its group.
// CHECK: {tshape.attention = {batch = "microbatch", causal, {{.*}}}, tshape.fused_attention = 0 : i64, tshape.layer = 0 : i64, tshape.role = "attn_score"{{.*}}}
// CHECK: {tshape.fused_attention = 0 : i64, tshape.layer = 0 : i64, tshape.role = "attn_value"{{.*}}}
module attributes {tshape.parallel = #tshape.parallel<tp = 4>} {
  func.func @fused_mqa(%x: tensor<1x512x1024xf16>) -> tensor<1x512x1024xf16> {
    %a = tshape.attention %x heads = 16 kv_heads = 1 causal fused : tensor<1x512x1024xf16> -> tensor<1x512x1024xf16>
    return %a : tensor<1x512x1024xf16>
  }
}

// -----

// Explicit head_dim (Gemma-7B: h = 3072, a = 16, d = 256, a*d = 4096 != h):
// attn_out K is a*d = 4096, not h.
// CHECK-LABEL: func.func @gemma
// CHECK: tshape.role = "qkv"{{.*}}} ins(%{{.*}}, %{{.*}} : tensor<64x3072xbf16>, tensor<12288x3072xbf16>)
// CHECK: tshape.role = "attn_out"{{.*}}} ins(%{{.*}}, %{{.*}} : tensor<64x4096xbf16>, tensor<3072x4096xbf16>)
func.func @gemma(%x: tensor<1x64x3072xbf16>) -> tensor<1x64x3072xbf16> {
  %a = tshape.attention %x heads = 16 kv_heads = 16 head_dim = 256 causal : tensor<1x64x3072xbf16> -> tensor<1x64x3072xbf16>
  return %a : tensor<1x64x3072xbf16>
}

// -----

// A parallel block (GPT-J): attention and MLP both read x; y = x + a + m.
// CHECK-LABEL: func.func @parallel_block
// CHECK: %[[X2:.*]] = tensor.collapse_shape %arg0
// CHECK: tshape.role = "qkv"{{.*}}} ins(%[[X2]],
// CHECK: %[[ATT:.*]] = linalg.matmul {{.*}}tshape.role = "attn_out"
// CHECK: tshape.role = "mlp_up"{{.*}}} ins(%[[X2]],
// CHECK: %[[MLP:.*]] = linalg.matmul {{.*}}tshape.role = "mlp_down"
// CHECK: %[[XA:.*]] = linalg.add ins(%[[X2]], %[[ATT]]
// CHECK: linalg.add ins(%[[XA]], %[[MLP]]
func.func @parallel_block(%x: tensor<1x32x256xbf16>) -> tensor<1x32x256xbf16> {
  %y = tshape.block parallel %x : tensor<1x32x256xbf16> {
  ^bb0(%in: tensor<1x32x256xbf16>):
    %a = tshape.attention %in heads = 4 kv_heads = 4 causal : tensor<1x32x256xbf16> -> tensor<1x32x256xbf16>
    %m = tshape.mlp %in inner = 1024 activation = relu : tensor<1x32x256xbf16> -> tensor<1x32x256xbf16>
    tshape.yield %a, %m : tensor<1x32x256xbf16>, tensor<1x32x256xbf16>
  }
  return %y : tensor<1x32x256xbf16>
}

// -----

// tf32 math becomes the builtin unit attribute tshape.tf32.
// CHECK-LABEL: func.func @tf32
// CHECK-SAME: tshape.tf32
// CHECK: tshape.role = "mlp_up"{{.*}}} ins(%{{.*}}, %{{.*}} : tensor<16x64xf32>, tensor<256x64xf32>)
func.func @tf32(%x: tensor<1x16x64xf32>) -> tensor<1x16x64xf32>
    attributes {tshape.math = #tshape.math<tf32>} {
  %m = tshape.mlp %x inner = 256 activation = gelu : tensor<1x16x64xf32> -> tensor<1x16x64xf32>
  return %m : tensor<1x16x64xf32>
}
