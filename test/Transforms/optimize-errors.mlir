// Bad options and infeasible models are clean errors.
// RUN: not tshape-opt %s --tshape-optimize-shapes="param-tolerance=-0.1" 2>&1 | FileCheck %s --check-prefix=TOL
// TOL: error: tshape-optimize-shapes: param-tolerance must be >= 0, got -0.100000
// RUN: not tshape-opt %s --tshape-optimize-shapes="vary=vocab,depth" 2>&1 | FileCheck %s --check-prefix=VARY
// VARY: error: tshape-optimize-shapes: unknown parameter 'depth' in vary (expected seq, hidden, heads, kv_heads, head_dim, ffn, vocab, experts, topk, moe_ffn, shared_ffn, window, q_lora_rank, kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim, v_head_dim)
// RUN: not tshape-opt %s --tshape-optimize-shapes="min-gain=-1" 2>&1 | FileCheck %s --check-prefix=GAIN
// GAIN: error: tshape-optimize-shapes: min-gain must be >= 0, got -1.000000e+00
// RUN: not tshape-opt %s --tshape-optimize-shapes="min-head-dim=128 max-head-dim=64" 2>&1 | FileCheck %s --check-prefix=RANGE
// RANGE: error: tshape-optimize-shapes: head-dim range [128, 64] is empty
// RUN: not tshape-opt %s --tshape-optimize-shapes="target=tpu" 2>&1 | FileCheck %s --check-prefix=TARGET
// TARGET: error: tshape-optimize-shapes: unknown target 'tpu'
// RUN: not tshape-opt %s -split-input-file --tshape-optimize-shapes 2>&1 | FileCheck %s --check-prefix=MODEL

// Fused attention with head_dim 320: no FlashAttention kernel goes above 256
// on H100, and with an explicit head dim no head count fixes that.
// MODEL: error: tshape-optimize-shapes: the model is infeasible under the search's rules (head_dim 320 has no fused attention kernel on h100-sxm) and no candidate in the neighbourhood fixes it
func.func @fused320(%x: tensor<1x512x2560xbf16>) -> tensor<1x512x2560xbf16> {
  %a = tshape.attention %x heads = 8 kv_heads = 8 head_dim = 320 fused : tensor<1x512x2560xbf16> -> tensor<1x512x2560xbf16>
  %m = tshape.mlp %a inner = 10240 activation = gelu : tensor<1x512x2560xbf16> -> tensor<1x512x2560xbf16>
  return %m : tensor<1x512x2560xbf16>
}

// -----

// Two different layer shapes cannot be searched as one model.
// MODEL: error: tshape-optimize-shapes: the function's layers are not all the same shape (attention ops differ)
func.func @mixed(%x: tensor<1x512x2560xbf16>) -> tensor<1x512x2560xbf16> {
  %a = tshape.attention %x heads = 32 kv_heads = 32 : tensor<1x512x2560xbf16> -> tensor<1x512x2560xbf16>
  %b = tshape.attention %a heads = 20 kv_heads = 20 : tensor<1x512x2560xbf16> -> tensor<1x512x2560xbf16>
  %m = tshape.mlp %b inner = 10240 activation = gelu : tensor<1x512x2560xbf16> -> tensor<1x512x2560xbf16>
  return %m : tensor<1x512x2560xbf16>
}

// -----

// f64 has no GEMM model: a clean error, not a silent guess.
// MODEL: error: tshape-optimize-shapes: element type f64 has no GEMM model (expected bf16, f16, f32 or an f8 type)
func.func @f64(%x: tensor<1x16x64xf64>) -> tensor<1x16x64xf64> {
  %a = tshape.attention %x heads = 1 kv_heads = 1 : tensor<1x16x64xf64> -> tensor<1x16x64xf64>
  %m = tshape.mlp %a inner = 256 activation = gelu : tensor<1x16x64xf64> -> tensor<1x16x64xf64>
  return %m : tensor<1x16x64xf64>
}

// -----

// phase-mix: PHASE:WEIGHT entries, prefill and decode once each.
// RUN: not tshape-opt %s --tshape-optimize-shapes="phase-mix=prefill:1,train:2" -o /dev/null 2>&1 | FileCheck %s --check-prefix=MIXBAD
// MIXBAD: error: tshape-optimize-shapes: phase-mix entry 'train:2' is not PHASE:WEIGHT with PHASE prefill or decode and a positive weight (for example prefill:1,decode:256)
// RUN: not tshape-opt %s --tshape-optimize-shapes="phase-mix=decode:256" -o /dev/null 2>&1 | FileCheck %s --check-prefix=MIXONE
// MIXONE: error: tshape-optimize-shapes: phase-mix needs both prefill and decode
