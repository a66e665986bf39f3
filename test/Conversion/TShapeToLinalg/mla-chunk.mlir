// RUN: tshape-opt %s --tshape-lower-to-linalg | FileCheck %s
// RUN: tshape-opt %s --tshape-test-gemm-consistency -o /dev/null 2>&1 | FileCheck %s --check-prefix=MODEL
// RUN: tshape-opt %s --tshape-lower-to-linalg | mlir-opt -o /dev/null
// RUN: tshape-opt %s --tshape-lower-to-linalg --tshape-gemm-analysis="target-file=%S/../../Analysis/Inputs/h100-sxm-uncalibrated.json remarks=all" -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=PRICE
//
// A prefill chunk of DeepSeek-V3's MLA over a cache, as vLLM's MLA common
// backend runs it (docs/inference.md#mla-chunked-prefill): one layer (h =
// 7168, a = 128 heads, r_q = 1536, r_kv = 512, d_n = 128, d_r = 64,
// d_v = 128) at b = 1, tp = 1, a chunk of q = 2048 tokens after C = 4096
// cached ones (kv length 6144), attention fused. Derived by hand, every
// GEMM (M, N, K), B stored [N, K]:
//   mla_q_down   (2048, 1536, 7168)        b q x r_q x h
//   mla_q_up     (2048, 24576, 1536)       b q x a(d_n+d_r) x r_q
//   mla_kv_down  (2048, 576, 7168)         b q x r_kv+d_r x h
//   mla_kv_up    (2048, 32768, 512)        b q x a(d_n+d_v) x r_kv: the chunk's own
//   attention    causal over the chunk's own 2048 keys:
//     attn_score 128 x (2048, 2048, 192), attn_value 128 x (2048, 128, 2048)
//   mla_context_up (4096, 32768, 512)      b C x a(d_n+d_v) x r_kv: the cached
//                                          latents through the same kv_up weight
//   mla_context_attention, not causal, over the 4096 context keys:
//     attn_score 128 x (2048, 4096, 192), attn_value 128 x (2048, 128, 4096)
//   the merge: a linalg.add of the two [128, 2048, 128] outputs, carrying
//     the block's merge kernel (one piece: 65,536 / b >= 4096 tokens)
//   attn_out     (2048, 7168, 16384)
// 9 MLA kernels (the merge, an elementwise kernel, has no contraction) + 3
// MLP: 11 kernels with a contraction, 13 contractions.

// The analysis of the lowered IR prices both attention kernels from the
// kernels their score GEMMs carry (one layer, two kernels), and traces the
// context's up-projection like any weight GEMM. On the uncalibrated H100
// (791.52 TFLOP/s attention rate, 2,847.5 GB/s, FA3's 128 x 96 tiles at
// head dim 192, K/V tile reuse 8, 2 us per call), 128 heads,
// 2 x 128 x 96 x 320 = 7,864,320 FLOP per tile:
//   own, causal, 16 query blocks x 22 key blocks, of which query block j
//     runs key blocks 0..floor((128 j + 127) / 96): 187 tiles per head:
//     128 x 187 x 7,864,320 / 791.52e12 = 237.82 us; K/V tiles 2 x 128 x
//     187 x 96 x 320 / 8 = 183,828,480 bytes: 64.56 us; sqrt(237.82^2 +
//     64.56^2) + 2 = 248.43 us;
//   context, 16 x ceil(4096 / 96) = 16 x 43 = 688 tiles per head:
//     874.98 us; K/V tiles 676,331,520 bytes: 237.52 us; sqrt(...) + 2 =
//     908.64 us (its Q, O and K, V bytes, 176.76 us, stay under the
//     matrix work).
// PRICE: remark: attn_score GEMM of layer 0 (128 x 2048x2048x192, bf16) on h100-sxm: predicted 248.4 us
// PRICE: remark: mla_context_up GEMM of layer 0 (1 x 4096x32768x512, bf16)
// PRICE: remark: attn_score GEMM of layer 0 (128 x 2048x4096x192, bf16) on h100-sxm: predicted 908.6 us
// The merge, from the kernel the add carries (as the inference report
// prices it): b q a = 2048 x 128 = 262,144 rows x (3 x 128 x 2 bytes + 8
// bytes of LSEs) = 203,423,744 bytes at 2847.5 GB/s = 71.44 us, + 2 us.
// PRICE: remark: mla_merge kernel of layer 0 (1 x 262144x128x0, bf16) on h100-sxm: predicted 73.4 us, 0% lost; memory-bound elementwise: 203423744 bytes in 1 launch

// MODEL: remark: tshape-test-gemm-consistency: 11 kernels, 13 contractions match the model; 1 elementwise kernel carried as it states

// Unfused (no `fused`), each attention is its score and value GEMMs: 13
// kernels, 13 contractions.
// RUN: sed 's/ causal fused :/ causal :/' %s | tshape-opt --tshape-test-gemm-consistency -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNFUSED
// UNFUSED: remark: tshape-test-gemm-consistency: 13 kernels, 13 contractions match the model

// CHECK-LABEL: func.func @dsv3_chunk
// CHECK: tshape.role = "mla_q_down"{{.*}}outs({{.*}} : tensor<2048x1536xbf16>)
// CHECK: tshape.role = "mla_q_up"{{.*}}outs({{.*}} : tensor<2048x24576xbf16>)
// CHECK: tshape.role = "mla_kv_down"{{.*}}outs({{.*}} : tensor<2048x576xbf16>)
// CHECK: linalg.matmul {{.*}}tshape.role = "mla_kv_up"{{.*}}ins({{.*}} : tensor<2048x512xbf16>, tensor<32768x512xbf16>) outs({{.*}} : tensor<2048x32768xbf16>)
// CHECK: linalg.batch_matmul {{.*}}tshape.attention = {batch = "microbatch", causal, head_dim = "qk_nope_head_dim+qk_rope_head_dim", heads = "heads/tp", kv_heads = "heads/tp", kv_len = "seq", q_len = "seq", v_head_dim = "v_head_dim"{{.*}}tshape.role = "attn_score"{{.*}}ins({{.*}} : tensor<128x2048x192xbf16>, tensor<128x2048x192xbf16>) outs({{.*}} : tensor<128x2048x2048xbf16>)
// CHECK: %[[OWN:.*]] = linalg.batch_matmul {{.*}}tshape.role = "attn_value"{{.*}}outs({{.*}} : tensor<128x2048x128xbf16>)
// CHECK: linalg.matmul {{.*}}tshape.role = "mla_context_up", tshape.sizes = {k = "kv_lora_rank", m = "microbatch*4096", n = "heads/tp*(qk_nope_head_dim+v_head_dim)"{{.*}}ins({{.*}} : tensor<4096x512xbf16>, tensor<32768x512xbf16>) outs({{.*}} : tensor<4096x32768xbf16>)
// CHECK: linalg.batch_matmul {{.*}}tshape.attention = {batch = "microbatch", cross, head_dim = "qk_nope_head_dim+qk_rope_head_dim", heads = "heads/tp", kv_heads = "heads/tp", kv_len = "4096", q_len = "seq", v_head_dim = "v_head_dim"{{.*}}tshape.role = "attn_score"{{.*}}ins({{.*}} : tensor<128x2048x192xbf16>, tensor<128x4096x192xbf16>) outs({{.*}} : tensor<128x2048x4096xbf16>)
// CHECK: %[[CTX:.*]] = linalg.batch_matmul {{.*}}tshape.role = "attn_value"{{.*}}ins({{.*}} : tensor<128x2048x4096xbf16>, tensor<128x4096x128xbf16>) outs({{.*}} : tensor<128x2048x128xbf16>)
// CHECK: linalg.add {tshape.elementwise = {count = 1 : i64, layer = 0 : i64, {{.*}}role = "mla_merge", row_bytes = 8.000000e+00 : f64, rows = "microbatch*seq*(heads/tp)", tensors = 3 : i64, width = "v_head_dim"}} ins(%[[OWN]], %[[CTX]] : tensor<128x2048x128xbf16>, tensor<128x2048x128xbf16>)
// CHECK: tshape.role = "attn_out"{{.*}}ins({{.*}} : tensor<2048x16384xbf16>, tensor<7168x16384xbf16>) outs({{.*}} : tensor<2048x7168xbf16>)
func.func @dsv3_chunk(%x: tensor<1x2048x7168xbf16>) -> tensor<1x2048x7168xbf16> attributes {tshape.run = #tshape.run<prefill, kv_length = 6144>} {
  %b = tshape.block sequential %x : tensor<1x2048x7168xbf16> {
  ^bb0(%i: tensor<1x2048x7168xbf16>):
    %a = tshape.mla %i heads = 128 q_lora_rank = 1536 kv_lora_rank = 512 qk_nope_head_dim = 128 qk_rope_head_dim = 64 v_head_dim = 128 causal fused : tensor<1x2048x7168xbf16> -> tensor<1x2048x7168xbf16>
    %m = tshape.mlp %a inner = 18432 activation = silu gated : tensor<1x2048x7168xbf16> -> tensor<1x2048x7168xbf16>
    tshape.yield %m : tensor<1x2048x7168xbf16>
  }
  return %b : tensor<1x2048x7168xbf16>
}
