// RUN: tshape-opt %s --tshape-lower-to-linalg="phase=train" | FileCheck %s
// RUN: tshape-opt %s --tshape-test-gemm-consistency="phase=train" -o /dev/null 2>&1 | FileCheck %s --check-prefix=MODEL
// RUN: tshape-opt %s --tshape-lower-to-linalg="phase=train" | mlir-opt -o /dev/null
// RUN: tshape-opt %s --tshape-lower-to-linalg="phase=decode" | FileCheck %s --check-prefix=DECODE
// RUN: tshape-opt %s --tshape-test-gemm-consistency="phase=decode" -o /dev/null 2>&1 | FileCheck %s --check-prefix=DMODEL
// RUN: tshape-opt %s --tshape-lower-to-linalg="phase=decode" | mlir-opt -o /dev/null
//
// One DeepSeek-V3 layer's multi-head latent attention (h = 7168, a = 128
// heads, r_q = 1536, r_kv = 512, d_n = 128, d_r = 64, d_v = 128) at b = 1,
// s = 4096, tp = 1, beside a dense layer's MLP (f = 18432, as in V3's
// first three layers; the consistency test needs one). Derived by hand,
// T = b*s = 4096 tokens, every GEMM (M, N, K), B stored [N, K]:
//   mla_q_down   (4096, 1536, 7168)                 T x r_q x h
//   mla_q_up     (4096, 24576, 1536)                T x a(d_n+d_r)=128*192 x r_q
//   mla_kv_down  (4096, 576, 7168)                  T x r_kv+d_r x h
//   mla_kv_up    (4096, 32768, 512)                 T x a(d_n+d_v)=128*256 x r_kv
//   attn_score   128 x (4096, 4096, 192)            b*a x s x s x (d_n+d_r)
//   attn_value   128 x (4096, 128, 4096)            b*a x s x d_v x s
//   attn_out     (4096, 7168, 16384)                T x h x a*d_v
// The backward, each GEMM's two gradients in reverse order (Y = X.W^T:
// dgrad (T, K, N), wgrad (K, N, T); O = P.V: dP (s, s, d_v), dV (s, d_v, s);
// S = Q.K^T: dQ (s, 192, s), dK (s, 192, s)):
//   attn_out     dgrad (4096, 16384, 7168)          wgrad (16384, 7168, 4096)
//   attn_value   dp 128 x (4096, 4096, 128)         dv 128 x (4096, 128, 4096)
//   attn_score   dq 128 x (4096, 192, 4096)         dk 128 x (4096, 192, 4096)
//   mla_kv_up    dgrad (4096, 512, 32768)           wgrad (512, 32768, 4096)
//   mla_kv_down  dgrad (4096, 7168, 576)            wgrad (7168, 576, 4096)
//   mla_q_up     dgrad (4096, 1536, 24576)          wgrad (1536, 24576, 4096)
//   mla_q_down   dgrad (4096, 7168, 1536)           wgrad (7168, 1536, 4096)
// 7 + 3 (MLP) forward, 20 backward: 30 kernels, each one contraction.

// MODEL: remark: tshape-test-gemm-consistency: 30 kernels, 30 contractions match the model

// CHECK-LABEL: func.func @dsv3_layer
// CHECK: linalg.matmul {{.*}}tshape.role = "mla_q_down", tshape.sizes = {k = "hidden", m = "microbatch*seq", n = "q_lora_rank"{{.*}}ins({{.*}} : tensor<4096x7168xbf16>, tensor<1536x7168xbf16>) outs({{.*}} : tensor<4096x1536xbf16>)
// CHECK: linalg.matmul {{.*}}tshape.role = "mla_q_up", tshape.sizes = {k = "q_lora_rank", m = "microbatch*seq", n = "heads/tp*(qk_nope_head_dim+qk_rope_head_dim)"{{.*}}ins({{.*}} : tensor<4096x1536xbf16>, tensor<24576x1536xbf16>) outs({{.*}} : tensor<4096x24576xbf16>)
// CHECK: linalg.matmul {{.*}}tshape.role = "mla_kv_down", tshape.sizes = {k = "hidden", m = "microbatch*seq", n = "kv_lora_rank+qk_rope_head_dim"{{.*}}ins({{.*}} : tensor<4096x7168xbf16>, tensor<576x7168xbf16>) outs({{.*}} : tensor<4096x576xbf16>)
// CHECK: linalg.matmul {{.*}}tshape.role = "mla_kv_up", tshape.sizes = {k = "kv_lora_rank", m = "microbatch*seq", n = "heads/tp*(qk_nope_head_dim+v_head_dim)"{{.*}}ins({{.*}} : tensor<4096x512xbf16>, tensor<32768x512xbf16>) outs({{.*}} : tensor<4096x32768xbf16>)
// CHECK: linalg.batch_matmul {{.*}}tshape.role = "attn_score", tshape.sizes = {batch = "microbatch*(heads/tp)", k = "qk_nope_head_dim+qk_rope_head_dim", m = "seq", n = "seq"{{.*}}ins({{.*}} : tensor<128x4096x192xbf16>, tensor<128x4096x192xbf16>) outs({{.*}} : tensor<128x4096x4096xbf16>)
// CHECK: linalg.batch_matmul {{.*}}tshape.role = "attn_value", tshape.sizes = {batch = "microbatch*(heads/tp)", k = "seq", m = "seq", n = "v_head_dim"{{.*}}ins({{.*}} : tensor<128x4096x4096xbf16>, tensor<128x4096x128xbf16>) outs({{.*}} : tensor<128x4096x128xbf16>)
// CHECK: linalg.matmul {{.*}}tshape.role = "attn_out", tshape.sizes = {k = "heads/tp*v_head_dim", m = "microbatch*seq", n = "hidden"{{.*}}ins({{.*}} : tensor<4096x16384xbf16>, tensor<7168x16384xbf16>) outs({{.*}} : tensor<4096x7168xbf16>)
// CHECK: tshape.role = "mlp_down_wgrad"
// CHECK: tshape.role = "attn_out_dgrad"{{.*}}outs({{.*}} : tensor<4096x16384xbf16>)
// CHECK: tshape.role = "attn_out_wgrad"{{.*}}outs({{.*}} : tensor<16384x7168xbf16>)
// CHECK: tshape.role = "attn_value_dp"{{.*}}ins({{.*}} : tensor<128x4096x128xbf16>, tensor<128x4096x128xbf16>) outs({{.*}} : tensor<128x4096x4096xbf16>)
// CHECK: tshape.role = "attn_value_dv"{{.*}}ins({{.*}} : tensor<128x4096x4096xbf16>, tensor<128x4096x128xbf16>) outs({{.*}} : tensor<128x4096x128xbf16>)
// CHECK: tshape.role = "attn_score_dq"{{.*}}ins({{.*}} : tensor<128x4096x4096xbf16>, tensor<128x4096x192xbf16>) outs({{.*}} : tensor<128x4096x192xbf16>)
// CHECK: tshape.role = "attn_score_dk"{{.*}}ins({{.*}} : tensor<128x4096x4096xbf16>, tensor<128x4096x192xbf16>) outs({{.*}} : tensor<128x4096x192xbf16>)
// CHECK: tshape.role = "mla_kv_up_dgrad"{{.*}}ins({{.*}} : tensor<4096x32768xbf16>, tensor<32768x512xbf16>) outs({{.*}} : tensor<4096x512xbf16>)
// CHECK: tshape.role = "mla_kv_up_wgrad"{{.*}}ins({{.*}} : tensor<4096x512xbf16>, tensor<4096x32768xbf16>) outs({{.*}} : tensor<512x32768xbf16>)
// CHECK: tshape.role = "mla_kv_down_dgrad"{{.*}}ins({{.*}} : tensor<4096x576xbf16>, tensor<576x7168xbf16>) outs({{.*}} : tensor<4096x7168xbf16>)
// CHECK: tshape.role = "mla_kv_down_wgrad"{{.*}}outs({{.*}} : tensor<7168x576xbf16>)
// CHECK: tshape.role = "mla_q_up_dgrad"{{.*}}ins({{.*}} : tensor<4096x24576xbf16>, tensor<24576x1536xbf16>) outs({{.*}} : tensor<4096x1536xbf16>)
// CHECK: tshape.role = "mla_q_up_wgrad"{{.*}}outs({{.*}} : tensor<1536x24576xbf16>)
// CHECK: tshape.role = "mla_q_down_dgrad"{{.*}}ins({{.*}} : tensor<4096x1536xbf16>, tensor<1536x7168xbf16>) outs({{.*}} : tensor<4096x7168xbf16>)
// CHECK: tshape.role = "mla_q_down_wgrad"{{.*}}ins({{.*}} : tensor<4096x7168xbf16>, tensor<4096x1536xbf16>) outs({{.*}} : tensor<7168x1536xbf16>)

// A decode step (phase=decode: the last of the 4096 tokens, the other 4095
// cached, kv length 4096) in the absorbed form: T = b = 1 token;
//   mla_q_down (1, 1536, 7168), mla_q_up (1, 24576, 1536),
//   mla_kv_down (1, 576, 7168): the new token's latent and rotary key;
//   mla_q_absorb 128 x (1, 512, 128): each head's d_n query through W_UK
//     [d_n, r_kv] (B stored [K, N]), no mla_kv_up;
//   the attention as one kernel over one latent key/value head:
//     attn_score b*1 x (a*1 = 128, 4096, r_kv+d_r = 576),
//     attn_value b*1 x (128, r_kv = 512, 4096), the values the first 512
//     of the cached 576;
//   mla_out_absorb 128 x (1, 128, 512): W_UV [d_v, r_kv];
//   attn_out (1, 7168, 16384). 8 + 3 (MLP) contractions, 10 kernels (the
//   attention one, carried by its score GEMM).
// DMODEL: remark: tshape-test-gemm-consistency: 10 kernels, 11 contractions match the model
// DECODE-LABEL: func.func @dsv3_layer
// DECODE: tshape.role = "mla_q_down"{{.*}}outs({{.*}} : tensor<1x1536xbf16>)
// DECODE: tshape.role = "mla_q_up"{{.*}}outs({{.*}} : tensor<1x24576xbf16>)
// DECODE: tshape.role = "mla_kv_down"{{.*}}outs({{.*}} : tensor<1x576xbf16>)
// DECODE-NOT: mla_kv_up
// DECODE: linalg.batch_matmul {{.*}}tshape.role = "mla_q_absorb", tshape.sizes = {batch = "heads/tp", k = "qk_nope_head_dim", m = "microbatch", n = "kv_lora_rank"{{.*}}ins({{.*}} : tensor<128x1x128xbf16>, tensor<128x128x512xbf16>) outs({{.*}} : tensor<128x1x512xbf16>)
// DECODE: tensor.concat dim(1) {{.*}} : (tensor<1x4095x576xbf16>, tensor<1x1x576xbf16>) -> tensor<1x4096x576xbf16>
// DECODE: linalg.batch_matmul {{.*}}tshape.attention = {batch = "microbatch", causal, grouped, head_dim = "kv_lora_rank+qk_rope_head_dim", heads = "heads/tp", kv_heads = "1", kv_len = "seq", q_len = "1", v_head_dim = "kv_lora_rank"{{.*}}tshape.role = "attn_score"{{.*}}ins({{.*}} : tensor<1x128x576xbf16>, tensor<1x4096x576xbf16>) outs({{.*}} : tensor<1x128x4096xbf16>)
// DECODE: linalg.batch_matmul {{.*}}tshape.role = "attn_value"{{.*}}ins({{.*}} : tensor<1x128x4096xbf16>, tensor<1x4096x512xbf16>) outs({{.*}} : tensor<1x128x512xbf16>)
// DECODE: linalg.batch_matmul {{.*}}tshape.role = "mla_out_absorb", tshape.sizes = {batch = "heads/tp", k = "kv_lora_rank", m = "microbatch", n = "v_head_dim"{{.*}}ins({{.*}} : tensor<128x1x512xbf16>, tensor<128x128x512xbf16>) outs({{.*}} : tensor<128x1x128xbf16>)
// DECODE: tshape.role = "attn_out"{{.*}}ins({{.*}} : tensor<1x16384xbf16>, tensor<7168x16384xbf16>) outs({{.*}} : tensor<1x7168xbf16>)
func.func @dsv3_layer(%x: tensor<1x4096x7168xbf16>) -> tensor<1x4096x7168xbf16> {
  %b = tshape.block sequential %x : tensor<1x4096x7168xbf16> {
  ^bb0(%i: tensor<1x4096x7168xbf16>):
    %a = tshape.mla %i heads = 128 q_lora_rank = 1536 kv_lora_rank = 512 qk_nope_head_dim = 128 qk_rope_head_dim = 64 v_head_dim = 128 causal : tensor<1x4096x7168xbf16> -> tensor<1x4096x7168xbf16>
    %m = tshape.mlp %a inner = 18432 activation = silu gated : tensor<1x4096x7168xbf16> -> tensor<1x4096x7168xbf16>
    tshape.yield %m : tensor<1x4096x7168xbf16>
  }
  return %b : tensor<1x4096x7168xbf16>
}
