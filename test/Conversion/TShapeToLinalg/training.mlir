// RUN: tshape-opt %s --tshape-lower-to-linalg="phase=train" | FileCheck %s
// RUN: tshape-opt %s --tshape-lower-to-linalg="phase=train" | mlir-opt | FileCheck %s --check-prefix=UPSTREAM

// GPT-3 2.7B layer at b = 4, s = 2048 (b*s = 8192, h = 2560, a = 32,
// d = 80, f = 10240, v = 50257). For a weight GEMM Y = X . W^T,
// (M x K) . (K x N) forward, the backward adds
//   dgrad dX = dY . W   : (M x N) . (N x K)
//   wgrad dW = X^T . dY : (K x M) . (M x N), A read transposed.
// The backward runs logits first, then the layer in reverse order.

// CHECK-LABEL: func.func @gpt3_layer
// Weight gradients are results: logits, mlp_down, mlp_up, attn_out, qkv.
// CHECK-SAME: -> (tensor<4x2048x50257xbf16>, tensor<2560x50257xbf16>, tensor<10240x2560xbf16>, tensor<2560x10240xbf16>, tensor<2560x2560xbf16>, tensor<2560x7680xbf16>)
// CHECK: tshape.role = "logits"{{.*}}}
// logits (8192 x 2560).(2560 x 50257): dgrad (8192 x 50257).(50257 x 2560)
// CHECK: tshape.role = "logits_dgrad"{{.*}}} ins(%{{.*}}, %{{.*}} : tensor<8192x50257xbf16>, tensor<50257x2560xbf16>) outs(%{{.*}} : tensor<8192x2560xbf16>)
// wgrad (2560 x 8192).(8192 x 50257), X stored 8192 x 2560
// CHECK: tshape.role = "logits_wgrad"{{.*}}} ins(%{{.*}}, %{{.*}} : tensor<8192x2560xbf16>, tensor<8192x50257xbf16>) outs(%{{.*}} : tensor<2560x50257xbf16>)
// CHECK: tshape.role = "mlp_down_dgrad"{{.*}}} ins(%{{.*}}, %{{.*}} : tensor<8192x2560xbf16>, tensor<2560x10240xbf16>) outs(%{{.*}} : tensor<8192x10240xbf16>)
// CHECK: tshape.role = "mlp_down_wgrad"{{.*}}} ins(%{{.*}}, %{{.*}} : tensor<8192x10240xbf16>, tensor<8192x2560xbf16>) outs(%{{.*}} : tensor<10240x2560xbf16>)
// CHECK: tshape.role = "mlp_up_dgrad"{{.*}}} ins(%{{.*}}, %{{.*}} : tensor<8192x10240xbf16>, tensor<10240x2560xbf16>) outs(%{{.*}} : tensor<8192x2560xbf16>)
// CHECK: tshape.role = "mlp_up_wgrad"{{.*}}}
// CHECK: tshape.role = "attn_out_dgrad"{{.*}}}
// CHECK: tshape.role = "attn_out_wgrad"{{.*}}}
// O = P . V: dP = dO . V^T (2048 x 80).(80 x 2048); dV = P^T . dO (2048 x 2048).(2048 x 80)
// CHECK: tshape.role = "attn_value_dp"{{.*}}} ins(%{{.*}}, %{{.*}} : tensor<128x2048x80xbf16>, tensor<128x2048x80xbf16>) outs(%{{.*}} : tensor<128x2048x2048xbf16>)
// CHECK: tshape.role = "attn_value_dv"{{.*}}} ins(%{{.*}}, %{{.*}} : tensor<128x2048x2048xbf16>, tensor<128x2048x80xbf16>) outs(%{{.*}} : tensor<128x2048x80xbf16>)
// S = Q . K^T: dQ = dS . K, dK = dS^T . Q, both (2048 x 2048).(2048 x 80)
// CHECK: tshape.role = "attn_score_dq"{{.*}}} ins(%{{.*}}, %{{.*}} : tensor<128x2048x2048xbf16>, tensor<128x2048x80xbf16>) outs(%{{.*}} : tensor<128x2048x80xbf16>)
// CHECK: tshape.role = "attn_score_dk"{{.*}}} ins(%{{.*}}, %{{.*}} : tensor<128x2048x2048xbf16>, tensor<128x2048x80xbf16>) outs(%{{.*}} : tensor<128x2048x80xbf16>)
// dQ, dK, dV are joined back into dQKV (8192 x 7680)
// CHECK: tensor.concat dim(1) {{.*}} -> tensor<8192x7680xbf16>
// CHECK: tshape.role = "qkv_dgrad"{{.*}}} ins(%{{.*}}, %{{.*}} : tensor<8192x7680xbf16>, tensor<7680x2560xbf16>) outs(%{{.*}} : tensor<8192x2560xbf16>)
// CHECK: tshape.role = "qkv_wgrad"{{.*}}} ins(%{{.*}}, %{{.*}} : tensor<8192x2560xbf16>, tensor<8192x7680xbf16>) outs(%{{.*}} : tensor<2560x7680xbf16>)
// CHECK: return
// UPSTREAM: tshape.role = "qkv_wgrad"
func.func @gpt3_layer(%tokens: tensor<4x2048xi32>) -> tensor<4x2048x50257xbf16> {
  %x = tshape.embedding %tokens vocab = 50257 : tensor<4x2048xi32> -> tensor<4x2048x2560xbf16>
  %b = tshape.block sequential %x : tensor<4x2048x2560xbf16> {
  ^bb0(%h: tensor<4x2048x2560xbf16>):
    %a = tshape.attention %h heads = 32 kv_heads = 32 causal : tensor<4x2048x2560xbf16> -> tensor<4x2048x2560xbf16>
    %m = tshape.mlp %a inner = 10240 activation = gelu : tensor<4x2048x2560xbf16> -> tensor<4x2048x2560xbf16>
    tshape.yield %m : tensor<4x2048x2560xbf16>
  }
  %l = tshape.lm_head %b vocab = 50257 : tensor<4x2048x2560xbf16> -> tensor<4x2048x50257xbf16>
  return %l : tensor<4x2048x50257xbf16>
}
