// Fused attention beyond self-attention with one head dim
// (docs/cost-model.md#fused-attention): a prefill chunk over the tokens
// cached before it, and MLA's value head dim unlike the query's. Constants:
// the uncalibrated H100 (Inputs/h100-sxm-uncalibrated.json: 132 SMs,
// 0.8 x 989.4 = 791.52 TFLOP/s, 3,350 GB/s x 0.85, blocks of 128, 2 us).
// RUN: tshape-opt %s -split-input-file --tshape-lower-to-linalg --tshape-gemm-analysis="target-file=%S/Inputs/h100-sxm-uncalibrated.json remarks=all" -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s
// RUN: tshape-opt %s -split-input-file --tshape-lower-to-linalg | FileCheck %s --check-prefix=IR
// RUN: tshape-opt %s -split-input-file --tshape-lower-to-linalg="phase=train" --tshape-gemm-analysis="target-file=%S/Inputs/h100-sxm-uncalibrated.json remarks=all" -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=TRAIN
// RUN: tshape-opt %s -split-input-file --tshape-lower-to-linalg --tshape-gemm-analysis="target=a100-80gb remarks=all" -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=A100

// A chunk of s = 2048 prompt tokens after P = 2048 cached (kv_length =
// 4096), 32 heads of d = 128: the scores are 32 x (2048 x 128).(128 x
// 4096). FlashAttention aligns the causal mask to the keys' end: query i
// sees P + i + 1 keys, 2048 x 2048 + 2048 x 2049 / 2 = 6,292,480 pairs per
// head. In blocks of 128: query block j runs key blocks 0..j + 16, 17 +
// ... + 32 = 392 blocks (a 4096 prompt's 528 less its first half's 136) of
// 4 x 128^2 x 128 = 8,388,608 FLOP: 32 x 392 x 8,388,608 / 791.52e12 =
// 132.94 us, over the longest CTA's 32 blocks (44.8 us) and the bytes
// (Q, O and K, V read once of the chunk 67,108,864 + the cached K, V
// 33,554,432 = 100,663,296 at 2,847.5 GB/s: 35.4 us). The K/V tiles: each of the 392
// blocks of the 32 kv heads loads 128 keys of K and V, 2 bytes x 32 x 392
// x 128 x 256 = 822,083,584 bytes, 1/8 from HBM (attention_kv_reuse 8):
// 36.09 us, overlapping by the 2-norm: sqrt(132.94^2 + 36.09^2) + 2 =
// 139.8 us.
// CHECK: attn_score GEMM of layer 0 (32 x 2048x4096x128, bf16) on h100-sxm: predicted 139.8 us
// At phase=train the function is a training step over its own 2048
// tokens (the cache dropped): self-attention, 136 blocks, 49.8 us (below).
// TRAIN: attn_score GEMM of layer 0 (32 x 2048x2048x128, bf16) on h100-sxm: predicted 49.8 us
// IR-LABEL: func.func @chunk
// IR: tshape.attention = {batch = "microbatch", causal, head_dim = "hidden/heads", heads = "heads/tp", kv_heads = "heads/tp", kv_len = "4096", q_len = "seq"{{.*}}tshape.role = "attn_score"{{.*}}outs({{.*}} : tensor<32x2048x4096xbf16>)
// The values: the probabilities over the 2048 cached values and the
// chunk's own (the cache constant concatenated before them).
// IR: tshape.role = "attn_value"{{.*}}ins({{.*}} : tensor<32x2048x4096xbf16>, tensor<32x4096x128xbf16>)
func.func @chunk(%x: tensor<1x2048x4096xbf16>) -> tensor<1x2048x4096xbf16>
    attributes {tshape.run = #tshape.run<prefill, kv_length = 4096>} {
  %a = tshape.attention %x heads = 32 kv_heads = 32 causal fused : tensor<1x2048x4096xbf16> -> tensor<1x2048x4096xbf16>
  return %a : tensor<1x2048x4096xbf16>
}

// -----

// The same chunk with no cache (kv_length = s) is today's self-attention:
// 136 blocks, 32 x 136 x 8,388,608 / 791.52e12 = 46.12 us; K/V tiles
// 2 x 32 x 136 x 128 x 256 / 8 = 35,651,584 bytes: 12.52 us;
// sqrt(46.12^2 + 12.52^2) + 2 = 49.8 us.
// CHECK: attn_score GEMM of layer 0 (32 x 2048x2048x128, bf16) on h100-sxm: predicted 49.8 us
func.func @nocache(%x: tensor<1x2048x4096xbf16>) -> tensor<1x2048x4096xbf16>
    attributes {tshape.run = #tshape.run<prefill, kv_length = 2048>} {
  %a = tshape.attention %x heads = 32 kv_heads = 32 causal fused : tensor<1x2048x4096xbf16> -> tensor<1x2048x4096xbf16>
  return %a : tensor<1x2048x4096xbf16>
}

// -----

// DeepSeek-V3's MLA at tp = 8, s = 4096: 16 heads per rank, query/key head
// dim 128 + 64 = 192, value head dim 128. FlashAttention 3 has a 192/128
// kernel on Hopper (hopper/flash_api.cpp), so nothing is padded. FLOPs
// 2 x (192 + 128) per pair: 2 x 16 x (4096 x 4097 / 2) x 320 =
// 85,920,317,440. FA3's tile at 192 over a paged cache is 128 x 96
// (hopper/tile_size.h): query block j (tokens 128j..128j+127) runs key
// blocks 0..floor((128j + 127) / 96), 715 pairs of 2 x 128 x 96 x 320 =
// 7,864,320 FLOP: 16 x 715 x 7,864,320 / 791.52e12 = 113.66 us, over the
// longest CTA (43 pairs: 56.4 us) and the bytes (Q, O, K, V once: 16 x 640
// x 2 bytes x 4096 = 83,886,080: 29.5 us). K/V tiles of 192 + 128: 2 x 16
// x 715 x 96 x 320 / 8 = 87,859,200 bytes: 30.85 us; sqrt(113.66^2 +
// 30.85^2) + 2 = 119.8 us. A training step prices the same forward kernel.
// CHECK: attn_score GEMM of layer 0 (16 x 4096x4096x192, bf16) on h100-sxm: predicted 119.8 us, 0% lost
// CHECK: attn_value GEMM of layer 0 (16 x 4096x128x4096, bf16) on h100-sxm: predicted 0.0 us
// TRAIN: attn_score GEMM of layer 0 (16 x 4096x4096x192, bf16) on h100-sxm: predicted 119.8 us, 0% lost
// TRAIN-NOT: predicted as separate GEMMs
// On A100, FlashAttention 2 has no 192/128 pair: the value is padded to
// the query's 192, (192 + 128) / (192 + 192) = 83% useful.
// A100: attn_score GEMM of layer 0 (16 x 4096x4096x192, bf16) on a100-80gb: predicted {{.*}}, 17% lost; head_dim 192 (v_head_dim 128) runs padded to 192/192 in the fused attention kernel (83% useful)
// IR-LABEL: func.func @mla
// IR: tshape.attention = {batch = "microbatch", causal, head_dim = "qk_nope_head_dim+qk_rope_head_dim", heads = "heads/tp", kv_heads = "heads/tp", kv_len = "seq", q_len = "seq", v_head_dim = "v_head_dim"
func.func @mla(%x: tensor<1x4096x7168xbf16>) -> tensor<1x4096x7168xbf16>
    attributes {tshape.parallel = #tshape.parallel<tp = 8>} {
  %a = tshape.mla %x heads = 128 q_lora_rank = 1536 kv_lora_rank = 512 qk_nope_head_dim = 128 qk_rope_head_dim = 64 v_head_dim = 128 causal fused : tensor<1x4096x7168xbf16> -> tensor<1x4096x7168xbf16>
  return %a : tensor<1x4096x7168xbf16>
}
