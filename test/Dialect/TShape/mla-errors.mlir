// RUN: tshape-opt %s -split-input-file -verify-diagnostics
// One case per numbered rule of tshape.mla (docs/dialect.md). Rule LA1
// (a model with an mla block states its ranks and head dims) is the
// model's, tested in unittests/MlaTest.cpp (the importer asks for the keys
// first).

// T1: activations are a static batch x seq x hidden tensor.
func.func @t1(%x: tensor<16x64xbf16>) -> tensor<16x64xbf16> {
  // expected-error @+1 {{rule T1: input must be a static batch x seq x hidden tensor with positive sizes, got 'tensor<16x64xbf16>'}}
  %0 = tshape.mla %x heads = 8 kv_lora_rank = 32 qk_nope_head_dim = 16 qk_rope_head_dim = 8 v_head_dim = 16 : tensor<16x64xbf16> -> tensor<16x64xbf16>
  return %0 : tensor<16x64xbf16>
}

// -----

// T2: the result has the input's type.
func.func @t2(%x: tensor<1x16x64xbf16>) -> tensor<1x16x32xbf16> {
  // expected-error @+1 {{rule T2: result type 'tensor<1x16x32xbf16>' must equal the input type 'tensor<1x16x64xbf16>'}}
  %0 = tshape.mla %x heads = 8 kv_lora_rank = 32 qk_nope_head_dim = 16 qk_rope_head_dim = 8 v_head_dim = 16 : tensor<1x16x64xbf16> -> tensor<1x16x32xbf16>
  return %0 : tensor<1x16x32xbf16>
}

// -----

// LA2: a given q_lora_rank is positive (absent: no query latent).
func.func @l2(%x: tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16> {
  // expected-error @+1 {{rule LA2: q_lora_rank must be positive, got 0; omit it for queries projected from the hidden size directly (no query latent)}}
  %0 = tshape.mla %x heads = 8 q_lora_rank = 0 kv_lora_rank = 32 qk_nope_head_dim = 16 qk_rope_head_dim = 8 v_head_dim = 16 : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
  return %0 : tensor<1x16x64xbf16>
}

// -----

// S1: kv_lora_rank is positive.
func.func @s1kv(%x: tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16> {
  // expected-error @+1 {{rule S1: kv_lora_rank must be positive, got 0}}
  %0 = tshape.mla %x heads = 8 kv_lora_rank = 0 qk_nope_head_dim = 16 qk_rope_head_dim = 8 v_head_dim = 16 : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
  return %0 : tensor<1x16x64xbf16>
}

// -----

// S1: qk_rope_head_dim is positive.
func.func @s1rope(%x: tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16> {
  // expected-error @+1 {{rule S1: qk_rope_head_dim must be positive, got 0}}
  %0 = tshape.mla %x heads = 8 kv_lora_rank = 32 qk_nope_head_dim = 16 qk_rope_head_dim = 0 v_head_dim = 16 : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
  return %0 : tensor<1x16x64xbf16>
}

// -----

// S1: qk_nope_head_dim is positive.
func.func @s1nope(%x: tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16> {
  // expected-error @+1 {{rule S1: qk_nope_head_dim must be positive, got -1}}
  %0 = tshape.mla %x heads = 8 kv_lora_rank = 32 qk_nope_head_dim = -1 qk_rope_head_dim = 8 v_head_dim = 16 : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
  return %0 : tensor<1x16x64xbf16>
}

// -----

// S1: v_head_dim is positive.
func.func @s1v(%x: tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16> {
  // expected-error @+1 {{rule S1: v_head_dim must be positive, got 0}}
  %0 = tshape.mla %x heads = 8 kv_lora_rank = 32 qk_nope_head_dim = 16 qk_rope_head_dim = 8 v_head_dim = 0 : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
  return %0 : tensor<1x16x64xbf16>
}

// -----

// S1: heads is positive.
func.func @s1heads(%x: tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16> {
  // expected-error @+1 {{rule S1: heads must be positive, got 0}}
  %0 = tshape.mla %x heads = 0 kv_lora_rank = 32 qk_nope_head_dim = 16 qk_rope_head_dim = 8 v_head_dim = 16 : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
  return %0 : tensor<1x16x64xbf16>
}

// -----

// A3: heads are divisible by the tensor-parallel degree (the latent ranks
// are not split: Megatron-LM duplicates the down projections).
func.func @a3(%x: tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16> attributes {tshape.parallel = #tshape.parallel<tp = 3>} {
  // expected-error @+1 {{rule A3: heads 8 is not divisible by tensor-parallel degree 3; use heads 6 or 9, or tp dividing 8}}
  %0 = tshape.mla %x heads = 8 kv_lora_rank = 32 qk_nope_head_dim = 16 qk_rope_head_dim = 8 v_head_dim = 16 : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
  return %0 : tensor<1x16x64xbf16>
}

// -----

// S2: the op's GEMM and parameter counts fit in int64 (q_lora_rank 2^62:
// its down projection alone has 64 x 2^62 weights).
func.func @s2(%x: tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16> {
  // expected-error @+1 {{rule S2: sizes overflow 64-bit arithmetic: the GEMM FLOP or parameter count of this op exceeds 2^63-1}}
  %0 = tshape.mla %x heads = 8 q_lora_rank = 4611686018427387904 kv_lora_rank = 32 qk_nope_head_dim = 16 qk_rope_head_dim = 8 v_head_dim = 16 : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
  return %0 : tensor<1x16x64xbf16>
}

// -----

// Not A1: hidden need not be divisible by heads (MLA states its head
// dims; none is hidden/heads).
func.func @ok(%x: tensor<1x16x60xbf16>) -> tensor<1x16x60xbf16> {
  %0 = tshape.mla %x heads = 8 kv_lora_rank = 32 qk_nope_head_dim = 16 qk_rope_head_dim = 8 v_head_dim = 16 : tensor<1x16x60xbf16> -> tensor<1x16x60xbf16>
  return %0 : tensor<1x16x60xbf16>
}
