// RUN: tshape-opt %s --tshape-lower-to-linalg | FileCheck %s
// RUN: tshape-opt %s --tshape-test-gemm-consistency -o /dev/null 2>&1 | FileCheck %s --check-prefix=MODEL
// RUN: tshape-opt %s --tshape-lower-to-linalg | mlir-opt -o /dev/null
// RUN: tshape-opt %s --tshape-lower-to-linalg --tshape-gemm-analysis="target-file=%S/../../Analysis/Inputs/h100-sxm-uncalibrated.json remarks=all" -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=PRICE
//
// A prefill chunk of DeepSeek-V3's MLA over a cache long enough for vLLM's
// context workspace to split it (docs/inference.md#the-mla-context-workspace):
// one layer (h = 7168, a = 128 heads, r_q = 1536, r_kv = 512, d_n = 128,
// d_r = 64, d_v = 128) at b = 4, tp = 1, a chunk of q = 256 tokens after
// C = 40,000 cached ones (kv length 40,256), attention fused.
//
// The workspace holds 65,536 tokens, shared by the 4 sequences:
// max_context_chunk = floor(65,536 / 4) = 16,384 tokens per sequence, so
// num_chunks = ceil(40,000 / 16,384) = 3 pieces of 16,384, 16,384 and
// 40,000 - 2 x 16,384 = 7,232 tokens. Per piece, derived by hand (M, N, K;
// B stored [N, K]):
//   mla_context_up   (4 x 16,384 = 65,536, 128 x (128 + 128) = 32,768, 512)
//   mla_context_up   (65,536, 32,768, 512)
//   mla_context_up   (4 x 7,232 = 28,928, 32,768, 512)
// each followed by the chunk's 256 queries over that piece's keys, not
// causal: attn_score 4 x 128 = 512 x (256, piece, 192), attn_value
// 512 x (256, 128, piece); and a linalg.add merging the piece's output
// into the running one (3 adds of [512, 256, 128]). The last add carries
// the block's merge kernel: rows b q a = 4 x 256 x 128 = 131,072, width
// d_v = 128, 3 launches, 3 tensors (two read, one written), and 8 bytes of
// fp32 LSEs read per row plus 4 written by all but the last merge:
// 8 + 4 x 2/3 = 10.667 bytes per row on average.
// Kernels with a contraction: q_down, q_up, kv_down, kv_up, attention,
// 3 x (context_up, context attention), attn_out = 12, + 3 MLP = 15 (the
// merge has none); contractions: 8 GEMMs + 4 attentions x 2 + 3 MLP = 19;
// and the merge kernel on the last add is the block's, entry for entry.

// MODEL: remark: tshape-test-gemm-consistency: 15 kernels, 19 contractions match the model; 1 elementwise kernel carried as it states

// CHECK-LABEL: func.func @dsv3_pieces
// CHECK: linalg.matmul {{.*}}tshape.role = "mla_kv_up"{{.*}}outs({{.*}} : tensor<1024x32768xbf16>)
// CHECK: tshape.attention = {batch = "microbatch", causal, {{.*}}kv_len = "seq", q_len = "seq"{{.*}}tshape.role = "attn_score"{{.*}}outs({{.*}} : tensor<512x256x256xbf16>)
// CHECK: %[[OWN:.*]] = linalg.batch_matmul {{.*}}tshape.role = "attn_value"{{.*}}outs({{.*}} : tensor<512x256x128xbf16>)
// CHECK: linalg.matmul {{.*}}tshape.role = "mla_context_up", tshape.sizes = {k = "kv_lora_rank", m = "microbatch*16384", n = "heads/tp*(qk_nope_head_dim+v_head_dim)"{{.*}}ins({{.*}} : tensor<65536x512xbf16>, tensor<32768x512xbf16>) outs({{.*}} : tensor<65536x32768xbf16>)
// CHECK: tshape.attention = {batch = "microbatch", cross, {{.*}}kv_len = "16384", q_len = "seq"{{.*}}tshape.role = "attn_score"{{.*}}ins({{.*}} : tensor<512x256x192xbf16>, tensor<512x16384x192xbf16>) outs({{.*}} : tensor<512x256x16384xbf16>)
// CHECK: %[[C0:.*]] = linalg.batch_matmul {{.*}}tshape.role = "attn_value"{{.*}}ins({{.*}} : tensor<512x256x16384xbf16>, tensor<512x16384x128xbf16>) outs({{.*}} : tensor<512x256x128xbf16>)
// CHECK: %[[M0:.*]] = linalg.add ins(%[[OWN]], %[[C0]] : tensor<512x256x128xbf16>, tensor<512x256x128xbf16>)
// CHECK-NOT: tshape.elementwise
// CHECK: linalg.matmul {{.*}}tshape.role = "mla_context_up"{{.*}}m = "microbatch*16384"{{.*}}outs({{.*}} : tensor<65536x32768xbf16>)
// CHECK: kv_len = "16384"{{.*}}tshape.role = "attn_score"
// CHECK: %[[C1:.*]] = linalg.batch_matmul {{.*}}tshape.role = "attn_value"{{.*}}outs({{.*}} : tensor<512x256x128xbf16>)
// CHECK: %[[M1:.*]] = linalg.add ins(%[[M0]], %[[C1]] :
// CHECK-NOT: tshape.elementwise
// CHECK: linalg.matmul {{.*}}tshape.role = "mla_context_up"{{.*}}m = "microbatch*7232"{{.*}}ins({{.*}} : tensor<28928x512xbf16>, tensor<32768x512xbf16>) outs({{.*}} : tensor<28928x32768xbf16>)
// CHECK: kv_len = "7232"{{.*}}tshape.role = "attn_score"{{.*}}ins({{.*}} : tensor<512x256x192xbf16>, tensor<512x7232x192xbf16>)
// CHECK: %[[C2:.*]] = linalg.batch_matmul {{.*}}tshape.role = "attn_value"{{.*}}ins({{.*}} : tensor<512x256x7232xbf16>, tensor<512x7232x128xbf16>)
// CHECK: linalg.add {tshape.elementwise = {count = 3 : i64, layer = 0 : i64, params = {{{.*}}heads = 128 : i64{{.*}}microbatch = 4 : i64{{.*}}}, role = "mla_merge", row_bytes = 10.666{{[0-9]*}} : f64, rows = "microbatch*seq*(heads/tp)", tensors = 3 : i64, width = "v_head_dim"}} ins(%[[M1]], %[[C2]] :
// CHECK-NOT: mla_context_up
// CHECK: tshape.role = "attn_out"

// The analysis of the lowered IR prices the merge from the kernel the add
// carries, as the inference report prices it (predictKernel): 3 launches
// x 131,072 rows x (3 x 128 x 2 bytes + 10.667) = 3 x 131,072 x 778.667
// = 306,184,192 bytes at 3350 GB/s x 0.85 = 2847.5 GB/s: 107.53 us, + 3 x
// 2 us of launches = 113.53 us. Each full piece's GEMM is 65,536 x 32,768
// x 512, the last 28,928 x 32,768 x 512.
// PRICE: remark: mla_context_up GEMM of layer 0 (x2) (1 x 65536x32768x512, bf16)
// PRICE: remark: attn_score GEMM of layer 0 (x2) (512 x 256x16384x192, bf16)
// PRICE: remark: mla_context_up GEMM of layer 0 (1 x 28928x32768x512, bf16)
// PRICE: remark: mla_merge kernel of layer 0 (3 x 131072x128x0, bf16) on h100-sxm: predicted 113.5 us, 0% lost; memory-bound elementwise: 306184192 bytes in 3 launches
func.func @dsv3_pieces(%x: tensor<4x256x7168xbf16>) -> tensor<4x256x7168xbf16> attributes {tshape.run = #tshape.run<prefill, kv_length = 40256>} {
  %b = tshape.block sequential %x : tensor<4x256x7168xbf16> {
  ^bb0(%i: tensor<4x256x7168xbf16>):
    %a = tshape.mla %i heads = 128 q_lora_rank = 1536 kv_lora_rank = 512 qk_nope_head_dim = 128 qk_rope_head_dim = 64 v_head_dim = 128 causal fused : tensor<4x256x7168xbf16> -> tensor<4x256x7168xbf16>
    %m = tshape.mlp %a inner = 18432 activation = silu gated : tensor<4x256x7168xbf16> -> tensor<4x256x7168xbf16>
    tshape.yield %m : tensor<4x256x7168xbf16>
  }
  return %b : tensor<4x256x7168xbf16>
}
