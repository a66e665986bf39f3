// RUN: tshape-opt %s -split-input-file --tshape-lower-to-linalg --tshape-gemm-analysis="target=h100-sxm" -verify-diagnostics -mlir-print-op-on-diagnostic=false -o /dev/null

// The paper's head-dim result, from the model alone (b = 4, s = 2048,
// h = 2560, bf16, H100 SXM: K steps of 128 bytes = 64 elements).
//
// a = 32 heads: d = 2560/32 = 80. The scores GEMM has K = d = 80, which
// fills 80/128 = 62.5% of its two 64-element K steps: 37.5% loss > 10%.
// The GEMMs are memory-bound on the s x s scores (74 FLOP/byte < ridge
// 0.858 x 989.4 / (0.841 x 3.350) = 848.9/2.8174 = 301 with the H100 fit),
// so fewer, larger heads cut traffic: d = 128 (20 heads) predicts 1.54x on
// the GEMMs whose sizes change. The head dim
// is implicit (hidden/heads), so the parameter to change is heads, with
// head_dim following: the same change tshape-optimize-shapes makes.
func.func @d80(%x: tensor<4x2048x2560xbf16>) -> tensor<4x2048x2560xbf16> {
  // expected-warning-re @+1 {{attn_score GEMM of layer 0 (128 x 2048x2048x80, bf16) on h100-sxm: predicted {{.*}} us, 38% lost; K = 80 (hidden/heads) fills 62% of its 64-element K steps; memory-bound {{.*}}; heads 32 -> 20 (head_dim 80 -> 128) predicts 1.54x on the GEMMs it sizes}}
  %a = tshape.attention %x heads = 32 kv_heads = 32 causal : tensor<4x2048x2560xbf16> -> tensor<4x2048x2560xbf16>
  return %a : tensor<4x2048x2560xbf16>
}

// -----

// a = 40: d = 64 fills its K step exactly; N = 64 GEMMs are memory-bound
// (tile quantization hidden under the floor). Nothing is flagged.
func.func @d64(%x: tensor<4x2048x2560xbf16>) -> tensor<4x2048x2560xbf16> {
  %a = tshape.attention %x heads = 40 kv_heads = 40 causal : tensor<4x2048x2560xbf16> -> tensor<4x2048x2560xbf16>
  return %a : tensor<4x2048x2560xbf16>
}

// -----

// a = 20: d = 128, two full K steps. Nothing is flagged.
func.func @d128(%x: tensor<4x2048x2560xbf16>) -> tensor<4x2048x2560xbf16> {
  %a = tshape.attention %x heads = 20 kv_heads = 20 causal : tensor<4x2048x2560xbf16> -> tensor<4x2048x2560xbf16>
  return %a : tensor<4x2048x2560xbf16>
}

// -----

// Fused attention: Hopper FlashAttention kernels cover d = 64, 128, 256, so
// d = 80 runs padded to 128 (62.5% useful): flagged. d = 64 is not.
func.func @fused_d80(%x: tensor<4x2048x2560xbf16>) -> tensor<4x2048x2560xbf16> {
  // expected-warning-re @+1 {{attn_score GEMM of layer 0 {{.*}} 38% lost; head_dim 80 runs padded to 128 in the fused attention kernel (62% useful){{.*}}}}
  %a = tshape.attention %x heads = 32 kv_heads = 32 causal fused : tensor<4x2048x2560xbf16> -> tensor<4x2048x2560xbf16>
  return %a : tensor<4x2048x2560xbf16>
}

// -----

func.func @fused_d64(%x: tensor<4x2048x2560xbf16>) -> tensor<4x2048x2560xbf16> {
  %a = tshape.attention %x heads = 40 kv_heads = 40 causal fused : tensor<4x2048x2560xbf16> -> tensor<4x2048x2560xbf16>
  return %a : tensor<4x2048x2560xbf16>
}
