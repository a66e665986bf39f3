// RUN: tshape-opt %s --tshape-lower-to-linalg -verify-diagnostics -split-input-file -o /dev/null
//
// Rule LA3 (docs/dialect.md): an MLA prefill chunk over a cache runs its
// context in at most 1024 pieces of vLLM's 65,536-token workspace.
// DeepSeek-V3's MLA at b = 128, a chunk of q = 16 after C = 524,300 cached
// tokens (kv length 524,316): each sequence's share is floor(65,536 / 128)
// = 512 tokens, so ceil(524,300 / 512) = 1025 pieces (1024 x 512 =
// 524,288, 12 tokens more). The fix: at most 1024 x 512 = 524,288 cached
// tokens, or a share of ceil(524,300 / 1024) = 513 tokens, floor(65,536 /
// 513) = 127 sequences.

func.func @too_many_pieces(%x: tensor<128x16x7168xbf16>) -> tensor<128x16x7168xbf16> attributes {tshape.run = #tshape.run<prefill, kv_length = 524316>} {
  %b = tshape.block sequential %x : tensor<128x16x7168xbf16> {
  ^bb0(%i: tensor<128x16x7168xbf16>):
    // expected-error @+1 {{rule LA3: an MLA prefill chunk of 128 sequences over 524300 cached tokens each runs its context in 1025 pieces of vLLM's 65536-token workspace (512 tokens per sequence each); at most 1024 are modelled: lower the context to at most 524288 cached tokens per sequence or the batch to at most 127}}
    %a = tshape.mla %i heads = 128 q_lora_rank = 1536 kv_lora_rank = 512 qk_nope_head_dim = 128 qk_rope_head_dim = 64 v_head_dim = 128 causal fused : tensor<128x16x7168xbf16> -> tensor<128x16x7168xbf16>
    tshape.yield %a : tensor<128x16x7168xbf16>
  }
  return %b : tensor<128x16x7168xbf16>
}

// -----

// At the bound: 12 fewer cached tokens (C = 524,288, kv length 524,304)
// run in exactly 1024 pieces of 512, which lowers: 1024 context GEMMs of
// M = 128 x 512 = 65,536.
func.func @at_the_bound(%x: tensor<128x16x7168xbf16>) -> tensor<128x16x7168xbf16> attributes {tshape.run = #tshape.run<prefill, kv_length = 524304>} {
  %b = tshape.block sequential %x : tensor<128x16x7168xbf16> {
  ^bb0(%i: tensor<128x16x7168xbf16>):
    %a = tshape.mla %i heads = 128 q_lora_rank = 1536 kv_lora_rank = 512 qk_nope_head_dim = 128 qk_rope_head_dim = 64 v_head_dim = 128 causal fused : tensor<128x16x7168xbf16> -> tensor<128x16x7168xbf16>
    tshape.yield %a : tensor<128x16x7168xbf16>
  }
  return %b : tensor<128x16x7168xbf16>
}
