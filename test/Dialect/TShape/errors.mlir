// RUN: tshape-opt %s -split-input-file -verify-diagnostics
// One case per numbered verifier rule (docs/dialect.md, "Verifier rules").

// S1: every size is positive.
func.func @s1_heads(%x: tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16> {
  // expected-error @+1 {{rule S1: heads must be positive, got 0}}
  %0 = tshape.attention %x heads = 0 kv_heads = 1 : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
  return %0 : tensor<1x16x64xbf16>
}

// -----

func.func @s1_inner(%x: tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16> {
  // expected-error @+1 {{rule S1: ffn must be positive, got -256}}
  %0 = tshape.mlp %x inner = -256 activation = gelu : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
  return %0 : tensor<1x16x64xbf16>
}

// -----

func.func @s1_vocab(%x: tensor<1x16x64xbf16>) -> tensor<1x16x0xbf16> {
  // expected-error @+1 {{rule S1: vocab must be positive, got 0}}
  %0 = tshape.lm_head %x vocab = 0 : tensor<1x16x64xbf16> -> tensor<1x16x0xbf16>
  return %0 : tensor<1x16x0xbf16>
}

// -----

func.func @s1_layers(%x: tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16> {
  // expected-error @+1 {{rule S1: layers must be positive, got 0}}
  %0 = tshape.repeat %x layers = 0 : tensor<1x16x64xbf16> {
  ^bb0(%in: tensor<1x16x64xbf16>):
    tshape.yield %in : tensor<1x16x64xbf16>
  }
  return %0 : tensor<1x16x64xbf16>
}

// -----

func.func @s1_head_dim(%x: tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16> {
  // expected-error @+1 {{rule S1: head_dim must be positive, got -8}}
  %0 = tshape.attention %x heads = 4 kv_heads = 4 head_dim = -8 : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
  return %0 : tensor<1x16x64xbf16>
}

// -----

// S2: sizes near the int64 limit overflow the FLOP count (2 b s^2 a d for
// the scores: 2 * 2^31 * 2^31 * ... > 2^63) and are rejected, not wrapped.
func.func @s2_overflow(%x: tensor<1x2147483648x4096xbf16>) -> tensor<1x2147483648x4096xbf16> {
  // expected-error @+1 {{rule S2: sizes overflow 64-bit arithmetic}}
  %0 = tshape.attention %x heads = 32 kv_heads = 32 : tensor<1x2147483648x4096xbf16> -> tensor<1x2147483648x4096xbf16>
  return %0 : tensor<1x2147483648x4096xbf16>
}

// -----

// A1: hidden divisible by heads unless head_dim is given; 2560 = 2^9 * 5,
// whose divisors nearest 33 are 32 and 40.
func.func @a1(%x: tensor<1x16x2560xbf16>) -> tensor<1x16x2560xbf16> {
  // expected-error @+1 {{rule A1: hidden size 2560 is not divisible by heads 33 (head dim would be 77.58); use a head count that divides it (nearest: 32 or 40) or give head_dim explicitly}}
  %0 = tshape.attention %x heads = 33 kv_heads = 33 : tensor<1x16x2560xbf16> -> tensor<1x16x2560xbf16>
  return %0 : tensor<1x16x2560xbf16>
}

// -----

// A2: heads divisible by kv_heads.
func.func @a2(%x: tensor<1x16x4096xbf16>) -> tensor<1x16x4096xbf16> {
  // expected-error @+1 {{rule A2: heads 32 is not divisible by kv_heads 5}}
  %0 = tshape.attention %x heads = 32 kv_heads = 5 : tensor<1x16x4096xbf16> -> tensor<1x16x4096xbf16>
  return %0 : tensor<1x16x4096xbf16>
}

// -----

// A3: heads divisible by the tensor-parallel degree; 32 on 3 ranks: use 30
// (3 x 10) or 33 (3 x 11).
func.func @a3(%x: tensor<1x16x4096xbf16>) -> tensor<1x16x4096xbf16>
    attributes {tshape.parallel = #tshape.parallel<tp = 3>} {
  // expected-error @+1 {{rule A3: heads 32 is not divisible by tensor-parallel degree 3; use heads 30 or 33, or tp dividing 32}}
  %0 = tshape.attention %x heads = 32 kv_heads = 32 : tensor<1x16x4096xbf16> -> tensor<1x16x4096xbf16>
  return %0 : tensor<1x16x4096xbf16>
}

// -----

// A4: kv_heads and tp compatible (4 kv heads on 6 ranks: neither divides).
module attributes {tshape.parallel = #tshape.parallel<tp = 6>} {
  func.func @a4(%x: tensor<1x16x3072xbf16>) -> tensor<1x16x3072xbf16> {
    // expected-error @+1 {{rule A4: kv_heads 4 and tensor-parallel degree 6 are incompatible}}
    %0 = tshape.attention %x heads = 24 kv_heads = 4 : tensor<1x16x3072xbf16> -> tensor<1x16x3072xbf16>
    return %0 : tensor<1x16x3072xbf16>
  }
}

// -----

// M1: inner size divisible by tp; 11008 / 3 is not whole, pad to 11010.
func.func @m1(%x: tensor<1x16x4096xbf16>) -> tensor<1x16x4096xbf16>
    attributes {tshape.parallel = #tshape.parallel<tp = 3>} {
  // expected-error @+1 {{rule M1: ffn 11008 is not divisible by tensor-parallel degree 3; use ffn 11007 or 11010, or tp dividing 11008}}
  %0 = tshape.mlp %x inner = 11008 activation = silu gated : tensor<1x16x4096xbf16> -> tensor<1x16x4096xbf16>
  return %0 : tensor<1x16x4096xbf16>
}

// -----

// V1: vocab divisible by tp; 50257 on 2 ranks: pad to 50258.
func.func @v1(%t: tensor<1x16xi32>) -> tensor<1x16x64xbf16>
    attributes {tshape.parallel = #tshape.parallel<tp = 2>} {
  // expected-error @+1 {{rule V1: vocab 50257 is not divisible by tensor-parallel degree 2; pad it to 50258}}
  %0 = tshape.embedding %t vocab = 50257 : tensor<1x16xi32> -> tensor<1x16x64xbf16>
  return %0 : tensor<1x16x64xbf16>
}

// -----

// T1: activations are static batch x seq x hidden.
func.func @t1(%x: tensor<16x64xbf16>) -> tensor<16x64xbf16> {
  // expected-error @+1 {{rule T1: input must be a static batch x seq x hidden tensor with positive sizes, got 'tensor<16x64xbf16>'}}
  %0 = tshape.mlp %x inner = 256 activation = gelu : tensor<16x64xbf16> -> tensor<16x64xbf16>
  return %0 : tensor<16x64xbf16>
}

// -----

func.func @t1_dynamic(%x: tensor<1x?x64xbf16>) -> tensor<1x?x64xbf16> {
  // expected-error @+1 {{rule T1: input must be a static batch x seq x hidden tensor}}
  %0 = tshape.attention %x heads = 1 kv_heads = 1 : tensor<1x?x64xbf16> -> tensor<1x?x64xbf16>
  return %0 : tensor<1x?x64xbf16>
}

// -----

// T2: a sub-layer keeps the activation type.
func.func @t2(%x: tensor<1x16x64xbf16>) -> tensor<1x16x64xf16> {
  // expected-error @+1 {{rule T2: result type 'tensor<1x16x64xf16>' must equal the input type 'tensor<1x16x64xbf16>'}}
  %0 = tshape.mlp %x inner = 256 activation = gelu : tensor<1x16x64xbf16> -> tensor<1x16x64xf16>
  return %0 : tensor<1x16x64xf16>
}

// -----

// T3: embedding tokens are batch x seq matching the result.
func.func @t3(%t: tensor<2x16xi32>) -> tensor<1x16x64xbf16> {
  // expected-error @+1 {{rule T3: tokens 'tensor<2x16xi32>' must be batch x seq matching the result 'tensor<1x16x64xbf16>'}}
  %0 = tshape.embedding %t vocab = 100 : tensor<2x16xi32> -> tensor<1x16x64xbf16>
  return %0 : tensor<1x16x64xbf16>
}

// -----

// T4: LM head result is batch x seq x vocab.
func.func @t4(%x: tensor<1x16x64xbf16>) -> tensor<1x16x99xbf16> {
  // expected-error @+1 {{rule T4: result 'tensor<1x16x99xbf16>' must be batch x seq x vocab (1x16x100) of the input's element type}}
  %0 = tshape.lm_head %x vocab = 100 : tensor<1x16x64xbf16> -> tensor<1x16x99xbf16>
  return %0 : tensor<1x16x99xbf16>
}

// -----

// L1: a tied head needs the embedding it shares.
func.func @l1(%x: tensor<1x16x64xbf16>) -> tensor<1x16x100xbf16> {
  // expected-error @+1 {{rule L1: tied head needs a tshape.embedding with vocab 100 and hidden 64 in the same function}}
  %0 = tshape.lm_head %x vocab = 100 tied : tensor<1x16x64xbf16> -> tensor<1x16x100xbf16>
  return %0 : tensor<1x16x100xbf16>
}

// -----

// B1: the body takes one argument of the input type.
func.func @b1_argument(%x: tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16> {
  // expected-error @+1 {{rule B1: the body must take one argument of the input type 'tensor<1x16x64xbf16>'}}
  %0 = tshape.block sequential %x : tensor<1x16x64xbf16> {
  ^bb0(%in: tensor<1x16x32xbf16>):
    tshape.yield %x : tensor<1x16x64xbf16>
  }
  return %0 : tensor<1x16x64xbf16>
}

// -----

// B1: a block holds at least one residual sub-layer.
func.func @b1_empty(%x: tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16> {
  // expected-error @+1 {{rule B1: the body must hold one or more residual sub-layers (such as tshape.attention and tshape.mlp), then tshape.yield; found 1 op, 0 of them residual sub-layers}}
  %0 = tshape.block sequential %x : tensor<1x16x64xbf16> {
  ^bb0(%in: tensor<1x16x64xbf16>):
    tshape.yield %in : tensor<1x16x64xbf16>
  }
  return %0 : tensor<1x16x64xbf16>
}

// -----

// B1: only ops of the block op interface that are residual sub-layers stand
// in a block: not an op of another dialect...
func.func @b1_foreign_op(%x: tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16> {
  // expected-error @+1 {{rule B1: the body must hold one or more residual sub-layers (such as tshape.attention and tshape.mlp), then tshape.yield; found 4 ops, 2 of them residual sub-layers; op 2 is 'arith.addf'}}
  %0 = tshape.block sequential %x : tensor<1x16x64xbf16> {
  ^bb0(%in: tensor<1x16x64xbf16>):
    %a = tshape.attention %in heads = 1 kv_heads = 1 : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
    %s = arith.addf %a, %in : tensor<1x16x64xbf16>
    %m = tshape.mlp %s inner = 256 activation = gelu : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
    tshape.yield %m : tensor<1x16x64xbf16>
  }
  return %0 : tensor<1x16x64xbf16>
}

// -----

// ...nor a once-per-model op.
func.func @b1_once_per_model(%x: tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16> {
  // expected-error @+1 {{rule B1: the body must hold one or more residual sub-layers (such as tshape.attention and tshape.mlp), then tshape.yield; found 3 ops, 1 of them residual sub-layers; op 2 is 'tshape.lm_head'}}
  %0 = tshape.block sequential %x : tensor<1x16x64xbf16> {
  ^bb0(%in: tensor<1x16x64xbf16>):
    %a = tshape.attention %in heads = 1 kv_heads = 1 : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
    %h = tshape.lm_head %a vocab = 64 : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
    tshape.yield %h : tensor<1x16x64xbf16>
  }
  return %0 : tensor<1x16x64xbf16>
}

// -----

// B2: the first sub-layer reads the block input.
func.func @b2(%x: tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16> {
  // expected-error @+1 {{rule B2: the first sub-layer ('tshape.attention') must read the block input}}
  %0 = tshape.block sequential %x : tensor<1x16x64xbf16> {
  ^bb0(%in: tensor<1x16x64xbf16>):
    %a = tshape.attention %x heads = 1 kv_heads = 1 : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
    %m = tshape.mlp %a inner = 256 activation = gelu : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
    tshape.yield %m : tensor<1x16x64xbf16>
  }
  return %0 : tensor<1x16x64xbf16>
}

// -----

// B3: in a sequential block each sub-layer reads the previous one's result.
func.func @b3_sequential(%x: tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16> {
  // expected-error @+1 {{rule B3: a sequential block's sub-layer 2 ('tshape.mlp') must read the result of sub-layer 1 ('tshape.attention')}}
  %0 = tshape.block sequential %x : tensor<1x16x64xbf16> {
  ^bb0(%in: tensor<1x16x64xbf16>):
    %a = tshape.attention %in heads = 1 kv_heads = 1 : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
    %m = tshape.mlp %in inner = 256 activation = gelu : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
    tshape.yield %m : tensor<1x16x64xbf16>
  }
  return %0 : tensor<1x16x64xbf16>
}

// -----

// B3: a sequential block yields its last sub-layer's result.
func.func @b3_sequential_yield(%x: tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16> {
  // expected-error @+1 {{rule B3: a sequential block's body must yield the result of its last sub-layer (3) and nothing else; it yields 1 value, and value 1 is not the result of sub-layer 3}}
  %0 = tshape.block sequential %x : tensor<1x16x64xbf16> {
  ^bb0(%in: tensor<1x16x64xbf16>):
    %a = tshape.attention %in heads = 1 kv_heads = 1 : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
    %m = tshape.mlp %a inner = 256 activation = gelu : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
    %n = tshape.mlp %m inner = 256 activation = gelu : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
    tshape.yield %m : tensor<1x16x64xbf16>
  }
  return %0 : tensor<1x16x64xbf16>
}

// -----

// B3: in a parallel block every sub-layer reads the block input.
func.func @b3_parallel(%x: tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16> {
  // expected-error @+1 {{rule B3: a parallel block's sub-layer 2 ('tshape.mlp') must read the block input}}
  %0 = tshape.block parallel %x : tensor<1x16x64xbf16> {
  ^bb0(%in: tensor<1x16x64xbf16>):
    %a = tshape.attention %in heads = 1 kv_heads = 1 : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
    %m = tshape.mlp %a inner = 256 activation = gelu : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
    tshape.yield %a, %m : tensor<1x16x64xbf16>, tensor<1x16x64xbf16>
  }
  return %0 : tensor<1x16x64xbf16>
}

// -----

// B3: a parallel block yields every branch...
func.func @b3_parallel_yield(%x: tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16> {
  // expected-error @+1 {{rule B3: a parallel block's body must yield the results of its 2 sub-layers, in order; it yields 1 value}}
  %0 = tshape.block parallel %x : tensor<1x16x64xbf16> {
  ^bb0(%in: tensor<1x16x64xbf16>):
    %a = tshape.attention %in heads = 1 kv_heads = 1 : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
    %m = tshape.mlp %in inner = 256 activation = gelu : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
    tshape.yield %m : tensor<1x16x64xbf16>
  }
  return %0 : tensor<1x16x64xbf16>
}

// -----

// ...in order.
func.func @b3_parallel_order(%x: tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16> {
  // expected-error @+1 {{rule B3: a parallel block's body must yield the results of its 2 sub-layers, in order; it yields 2 values, and value 1 is not the result of sub-layer 1}}
  %0 = tshape.block parallel %x : tensor<1x16x64xbf16> {
  ^bb0(%in: tensor<1x16x64xbf16>):
    %a = tshape.attention %in heads = 1 kv_heads = 1 : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
    %m = tshape.mlp %in inner = 256 activation = gelu : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
    tshape.yield %m, %a : tensor<1x16x64xbf16>, tensor<1x16x64xbf16>
  }
  return %0 : tensor<1x16x64xbf16>
}

// -----

// R1: a repeat body takes and yields one value of the input type.
func.func @r1(%x: tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16> {
  // expected-error @+1 {{rule R1: the body must take and yield one value of the input type 'tensor<1x16x64xbf16>'}}
  %0 = tshape.repeat %x layers = 2 : tensor<1x16x64xbf16> {
  ^bb0(%in: tensor<1x16x64xbf16>):
    tshape.yield %in, %in : tensor<1x16x64xbf16>, tensor<1x16x64xbf16>
  }
  return %0 : tensor<1x16x64xbf16>
}

// -----

// P1: every parallel degree is positive.
// expected-error @+1 {{rule P1: tensor-parallel degree tp must be positive, got 0}}
func.func @p1() attributes {tshape.parallel = #tshape.parallel<tp = 0>} {
  return
}

// -----

// expected-error @+1 {{rule P1: pipeline-parallel degree pp must be positive, got 0}}
func.func @p1_pp() attributes {tshape.parallel = #tshape.parallel<tp = 2, pp = 0>} {
  return
}

// -----

// Dialect attributes have their documented types.
// expected-error @+1 {{'tshape.parallel' must be a #tshape.parallel attribute}}
func.func @bad_parallel() attributes {tshape.parallel = 2 : i64} {
  return
}

// -----

// expected-error @+1 {{unknown tshape attribute 'tshape.pipeline'}}
func.func @unknown_attr() attributes {tshape.pipeline = 2 : i64} {
  return
}

// -----

// expected-error @+1 {{'tshape.role' must be a string}}
func.func @bad_role() attributes {tshape.role = 3 : i64} {
  return
}

// -----

// P2: a target is a built-in GPU or a .json file.
// expected-error @+1 {{rule P2: unknown target 'tpu-v5' (built-in: v100, a100-40gb, a100-80gb, h100-sxm, h100-sxm-vllm0.24, h100-pcie, h200, b200, gb200, l40s, rtx4090; or a .json target file)}}
module attributes {tshape.target = #tshape.target<"tpu-v5">} {
}

// -----

// tshape.sizes: each size is an expression over the parameter vocabulary.
// expected-error @+1 {{'tshape.sizes' entry 'n': unknown parameter 'intermediate_size' at offset 0}}
func.func @bad_sizes_name() attributes {tshape.sizes = {n = "intermediate_size", params = {}}} {
  return
}

// -----

// expected-error @+1 {{'tshape.sizes' entry 'm': expected a number, a parameter or '(' at offset 11}}
func.func @bad_sizes_syntax() attributes {tshape.sizes = {m = "microbatch*"}} {
  return
}

// -----

// expected-error @+1 {{'tshape.sizes' parameter 'inner' must be a known parameter name with an integer value}}
func.func @bad_sizes_param() attributes {tshape.sizes = {k = "ffn", params = {inner = 11008 : i64}}} {
  return
}

// -----

// expected-error @+1 {{'tshape.sizes' has an unknown entry 'q' (expected batch, m, n, k, params)}}
func.func @bad_sizes_key() attributes {tshape.sizes = {q = "1"}} {
  return
}

// -----

// tshape.measured and tshape.analysis follow one schema each
// (GemmAttributes.h): a misspelled or mistyped entry is an error.
// expected-error @+1 {{'tshape.measured' has an unknown entry 'median'}}
func.func @bad_measured() attributes {tshape.measured = {median = 1.0 : f64}} {
  return
}

// -----

// expected-error @+1 {{'tshape.analysis' entry 'flagged' must be a boolean}}
func.func @bad_analysis() attributes {tshape.analysis = {bound = "compute", predicted_us = 1.0 : f64, loss = 0.0 : f64, flagged = 1 : i64, tile = array<i64: 128, 128>, split_k = 1 : i64, waves = 1 : i64, tile_efficiency = 1.0 : f64, k_efficiency = 1.0 : f64, wave_efficiency = 1.0 : f64, align_factor = 1.0 : f64}} {
  return
}

// -----

// expected-error @+1 {{'tshape.measured' lacks the entry 'backend'}}
func.func @missing_measured() attributes {tshape.measured = {median_us = 1.0 : f64}} {
  return
}

// -----

// tshape.attention carries a fused attention kernel: its size expressions
// under the kernel's own names, and causal as a unit.
// expected-error @+1 {{'tshape.attention' must be a dictionary of attention size expressions}}
func.func @attention_not_dict() attributes {tshape.attention = 1 : i64} {
  return
}

// -----

// expected-error @+1 {{'tshape.attention' entry 'causal' must be a unit attribute}}
func.func @attention_causal_not_unit() attributes {tshape.attention = {causal = 1 : i64}} {
  return
}

// -----

// expected-error @+1 {{'tshape.attention' has an unknown entry 'm' (expected batch, heads, kv_heads, head_dim, v_head_dim, q_len, kv_len, window, causal, grouped, cross, backward, kv_cache)}}
func.func @attention_gemm_key() attributes {tshape.attention = {m = "seq"}} {
  return
}

// -----

// expected-error @+1 {{'tshape.attention' entry 'kv_len': unknown parameter 'context' at offset 0}}
func.func @attention_bad_expr() attributes {tshape.attention = {kv_len = "context"}} {
  return
}

// -----

// Rule P3: a run's kv length is 0 (the sequence) or positive.
// expected-error @+1 {{rule P3: kv_length must be positive (or 0: the sequence length), got -1}}
func.func @run_negative_kv() attributes {tshape.run = #tshape.run<decode, kv_length = -1>} {
  return
}

// -----

// Rule P3: draft tokens belong to a decode step.
// expected-error @+1 {{rule P3: draft = 2 needs phase decode and draft >= 0 (the draft tokens of speculative decoding); remove it or use decode}}
func.func @run_draft_prefill() attributes {tshape.run = #tshape.run<prefill, draft = 2>} {
  return
}

// -----

// Rule P3: a decode step's kv length holds at least one cached key.
// expected-error @+1 {{rule P3: kv_length 3 leaves no cached key for the 3 queries of a decode step; use kv_length >= 4}}
func.func @run_no_cache() attributes {tshape.run = #tshape.run<decode, kv_length = 3, draft = 2>} {
  return
}

// -----

// Rule P3: the KV cache's element type is one the models know.
// expected-error @+1 {{rule P3: unknown KV-cache element type 'int4' (expected bf16, fp16 or fp8)}}
func.func @run_kv_cache() attributes {tshape.run = #tshape.run<decode, kv_cache = "int4">} {
  return
}

// -----

// Rule P3: the linear layers' precision is one the cost model knows.
// expected-error @+1 {{rule P3: unknown precision 'fp4' (expected bf16|fp8|mxfp8)}}
func.func @run_precision() attributes {tshape.run = #tshape.run<train, precision = "fp4">} {
  return
}

// -----

// Lowered IR states its run as a string (docs/lowering.md); one the run
// parser cannot read is an error naming the form.
// expected-error @+1 {{'tshape.run' string 'train precision=fp4' is not a run (expected PHASE [kv_length=N] [draft=N] [kv_cache=TYPE] [precision=bf16|fp8|mxfp8], PHASE train|prefill|decode)}}
func.func @run_string() attributes {tshape.run = "train precision=fp4"} {
  return
}

// -----

// expected-error @+1 {{'tshape.run' string 'decode kv_length=x' is not a run}}
func.func @run_string_number() attributes {tshape.run = "decode kv_length=x"} {
  return
}

// -----

// Neither a #tshape.run nor a string.
// expected-error @+1 {{'tshape.run' must be a #tshape.run attribute or its string form (lowered IR)}}
func.func @run_int() attributes {tshape.run = 3 : i64} {
  return
}

// -----

// tshape.elementwise (an elementwise kernel on lowered IR, MLA's merge):
// its role names a kernel role, its sizes evaluate over its params, and
// its launches, tensors and row bytes are given.
// expected-error @+1 {{'tshape.elementwise' entry 'role' must name a kernel role (such as mla_merge)}}
func.func @bad_elementwise_role() attributes {tshape.elementwise = {role = "merge", layer = 0 : i64, rows = "seq", width = "v_head_dim", count = 1 : i64, tensors = 3 : i64, row_bytes = 8.0 : f64, params = {seq = 16 : i64, v_head_dim = 128 : i64}}} {
  return
}

// -----

// expected-error @+1 {{'tshape.elementwise' entry 'width' must be a size expression over its params}}
func.func @bad_elementwise_unbound() attributes {tshape.elementwise = {role = "mla_merge", layer = 0 : i64, rows = "seq", width = "v_head_dim", count = 1 : i64, tensors = 3 : i64, row_bytes = 8.0 : f64, params = {seq = 16 : i64}}} {
  return
}

// -----

// expected-error @+1 {{'tshape.elementwise' needs 'layer' (an integer), 'count' and 'tensors' (positive integers) and 'row_bytes' (a float >= 0)}}
func.func @bad_elementwise_count() attributes {tshape.elementwise = {role = "mla_merge", layer = 0 : i64, rows = "seq", width = "v_head_dim", count = 0 : i64, tensors = 3 : i64, row_bytes = 8.0 : f64, params = {seq = 16 : i64, v_head_dim = 128 : i64}}} {
  return
}

// -----

// tshape.kernels (the kernels no op of a block's lowering computes, on the
// op it ends with): an array of dictionaries, each a kernel's fields.
// expected-error @+1 {{'tshape.kernels' must be an array of kernel dictionaries}}
func.func @kernels_not_array() attributes {tshape.kernels = {kind = "collective"}} {
  return
}

// -----

// expected-error @+1 {{'tshape.kernels' entries must have a kind (a kernel kind's name), a role (a kernel role's name), an integer layer and the dictionaries params, sizes, words and flags}}
func.func @kernels_bad_kind() attributes {tshape.kernels = [{kind = "reduce", role = "tp_leave", layer = 0 : i64, params = {tp = 2 : i64}, sizes = {bytes = "128", ranks = "tp"}, words = {op = "all_reduce", tier = "node"}, flags = {backward = false}}]} {
  return
}

// -----

// expected-error @+1 {{'tshape.kernels' size 'ranks' (tp) has no value over its params}}
func.func @kernels_unbound() attributes {tshape.kernels = [{kind = "collective", role = "tp_leave", layer = 0 : i64, params = {}, sizes = {bytes = "128", ranks = "tp"}, words = {op = "all_reduce", tier = "node"}, flags = {backward = false}}]} {
  return
}

// -----

// expected-error @+1 {{'tshape.kernels' unknown collective 'all_sum'}}
func.func @kernels_bad_op() attributes {tshape.kernels = [{kind = "collective", role = "tp_leave", layer = 0 : i64, params = {tp = 2 : i64}, sizes = {bytes = "128", ranks = "tp"}, words = {op = "all_sum", tier = "node"}, flags = {backward = false}}]} {
  return
}

// -----

// A GEMM has an op of its own (tshape.sizes), never a tshape.kernels entry.
// expected-error @+1 {{'tshape.kernels' a gemm kernel is carried by its own op, not by tshape.kernels}}
func.func @kernels_gemm() attributes {tshape.kernels = [{kind = "gemm", role = "qkv", layer = 0 : i64, params = {}, sizes = {}, words = {}, flags = {}}]} {
  return
}
