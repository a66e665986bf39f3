//===- DenseTypesTest.cpp - The dense model types of 2024-2026 ------------===//
//
// Each new model_type imports from a config written from its model card's
// public facts, and counts its parameters as the card does (within the
// card's rounding; docs/importer.md#parameter-counts). Every expected
// value is derived in a comment: per layer h (a + 2g) d (QKV) + a d h
// (output) + 3 h f (gated MLP) or 2 h f (plain) + 2 h (norm gains); the
// embedding v h, the LM head v h unless tied, the final norm h. Windows:
// the layers each type's rule makes windowed, and the banded kernels.
//
//===----------------------------------------------------------------------===//

#include "tshape/Interop/HFConfig.h"
#include "tshape/Model/Transformer.h"

#include "TestModels.h"

#include <gtest/gtest.h>

using namespace tshape;
using namespace tshape::model;

namespace {
ModelConfig load(const char *json) {
  ImportDiagnostic diag;
  auto c = importHFConfig(json, ImportOptions(), diag);
  EXPECT_TRUE(c.has_value()) << diag.message;
  return c.value_or(ModelConfig());
}
int64_t total(const ModelConfig &c) {
  auto n = countParameters(c);
  return n ? n->total : -1;
}
} // namespace

TEST(DenseTypes, Qwen3ExplicitHeadDim) {
  // Qwen3-8B: h 4096, 32/8 heads, head_dim 128, 36 layers, f 12288,
  // v 151936, untied. Layer: 4096 x 48 x 128 + 4096 x 4096 + 3 x 4096 x
  // 12288 + 8192 = 25,165,824 + 16,777,216 + 150,994,944 + 8,192 =
  // 192,946,176; x 36 = 6,946,062,336; + 2 x 151936 x 4096 = 1,244,659,712
  // + 4096 = 8,190,726,144: the card's 8.2B.
  ModelConfig c = load(R"({"model_type": "qwen3", "hidden_size": 4096,
      "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128,
      "num_hidden_layers": 36, "intermediate_size": 12288,
      "vocab_size": 151936, "sliding_window": null})");
  EXPECT_EQ(total(c), 8190726144);
  EXPECT_EQ(c.attention.window, 0);
}

TEST(DenseTypes, Gemma3SparseUsesClassDefaults) {
  // Gemma 3 4B's text_config states no head counts: Gemma3TextConfig's 8
  // heads, 4 kv heads, head_dim 256, vocab 262208, tied. Layer: 2560 x 16
  // x 256 + 2048 x 2560 + 3 x 2560 x 10240 + 5120 = 10,485,760 +
  // 5,242,880 + 78,643,200 + 5,120 = 94,376,960; x 34 = 3,208,816,640 +
  // 262208 x 2560 = 671,252,480 + 2560 = 3,880,071,680 (the card's 4B
  // counts the 0.4B vision tower too).
  ModelConfig c = load(R"({"model_type": "gemma3", "text_config": {
      "hidden_size": 2560, "intermediate_size": 10240,
      "num_hidden_layers": 34, "sliding_window": 1024}})");
  EXPECT_EQ(getParam(c, Param::Heads), 8);
  EXPECT_EQ(getParam(c, Param::KvHeads), 4);
  EXPECT_EQ(getParam(c, Param::HeadDim), 256);
  EXPECT_EQ(total(c), 3880071680);
  // 5 local : 1 global over 34 layers: 34 - 5 global (layers 5, 11, 17,
  // 23, 29) = 29 local; one repeated six-layer pattern plus 4 local.
  EXPECT_EQ(c.attention.window, 1024);
  int64_t local = 0;
  for (int64_t l = 0; l < 34; ++l)
    local += layerConfig(c, l).attention.layerWindow() == 1024;
  EXPECT_EQ(local, 29);
  ASSERT_EQ(c.stack.size(), 2u);
  EXPECT_EQ(c.stack[0].repeats, 5);
  EXPECT_EQ(c.stack[0].pattern.size(), 6u);
  EXPECT_TRUE(c.stack[0].pattern[5].fullAttention);
  EXPECT_EQ(c.stack[1].repeats, 4);
}

TEST(DenseTypes, ChatGlmGroups) {
  // ChatGLM3-6B: 2 kv groups of d 128: QKV N = (32 + 4) x 128 = 4608.
  // Layer: 4096 x 4608 + 4096 x 4096 + 3 x 4096 x 13696 + 8192 =
  // 18,874,368 + 16,777,216 + 168,296,448 + 8,192 = 203,956,224; x 28 =
  // 5,710,774,272 + 2 x 65024 x 4096 = 532,676,608 + 4096 =
  // 6,243,454,976: the card's 6B (6.2B).
  ModelConfig c = load(R"({"model_type": "chatglm", "hidden_size": 4096,
      "num_attention_heads": 32, "num_layers": 28,
      "padded_vocab_size": 65024, "ffn_hidden_size": 13696,
      "kv_channels": 128, "multi_query_attention": true,
      "multi_query_group_num": 2})");
  EXPECT_EQ(getParam(c, Param::KvHeads), 2);
  EXPECT_EQ(total(c), 6243454976);
}

TEST(DenseTypes, FalconRefinedWeb) {
  // Falcon-40B (RefinedWeb): 128 heads, 8 kv heads, d 64, 60 layers, 4h
  // plain MLP, tied, parallel. Layer: 8192 x 144 x 64 + 8192^2 + 2 x 8192
  // x 32768 + 16384 = 75,497,472 + 67,108,864 + 536,870,912 + 16,384 =
  // 679,493,632; x 60 = 40,769,617,920 + 65024 x 8192 = 532,676,608 +
  // 8192 = 41,302,302,720 (the card: 40B).
  ModelConfig c = load(R"({"model_type": "RefinedWeb", "hidden_size": 8192,
      "n_head": 128, "n_head_kv": 8, "n_layer": 60, "vocab_size": 65024,
      "parallel_attn": true})");
  EXPECT_EQ(getParam(c, Param::KvHeads), 8);
  EXPECT_EQ(c.residual, ResidualMode::Parallel);
  EXPECT_EQ(total(c), 41302302720);
  // The 7B form: multi_query, no n_head_kv: one kv head.
  ModelConfig s = load(R"({"model_type": "RefinedWebModel",
      "hidden_size": 4544, "n_head": 71, "n_layer": 32,
      "vocab_size": 65024, "multi_query": true, "parallel_attn": true})");
  EXPECT_EQ(getParam(s, Param::KvHeads), 1);
}

TEST(DenseTypes, MptNestedAttnConfig) {
  // MPT-7B: MHA, expansion_ratio 4 -> 16384, plain GELU, tied. Layer:
  // 4096 x 96 x 128 + 4096^2 + 2 x 4096 x 16384 + 8192 = 50,331,648 +
  // 16,777,216 + 134,217,728 + 8,192 = 201,334,784; x 32 = 6,442,713,088
  // + 50432 x 4096 = 206,569,472 + 4096 = 6,649,286,656: the card's 6.7B.
  ModelConfig c = load(R"({"model_type": "mpt", "d_model": 4096,
      "n_heads": 32, "n_layers": 32, "expansion_ratio": 4,
      "vocab_size": 50432, "attn_config": {"alibi": true}})");
  EXPECT_EQ(getParam(c, Param::Ffn), 16384);
  EXPECT_EQ(total(c), 6649286656);
  // grouped_query_attention in attn_config: kv_n_heads.
  ModelConfig g = load(R"({"model_type": "mpt", "d_model": 3072,
      "n_heads": 24, "n_layers": 32, "vocab_size": 32768,
      "attn_config": {"attn_type": "grouped_query_attention",
                      "kv_n_heads": 8}})");
  EXPECT_EQ(getParam(g, Param::KvHeads), 8);
}

TEST(DenseTypes, WindowLayerRules) {
  // Qwen3: use_sliding_window true, max_window_layers 2 of 4 layers:
  // layers 2 and 3 windowed.
  ModelConfig q = load(R"({"model_type": "qwen3", "hidden_size": 1024,
      "num_attention_heads": 16, "num_key_value_heads": 8,
      "num_hidden_layers": 4, "intermediate_size": 3072,
      "vocab_size": 151936, "use_sliding_window": true,
      "sliding_window": 512, "max_window_layers": 2})");
  EXPECT_EQ(layerConfig(q, 1).attention.layerWindow(), 0);
  EXPECT_EQ(layerConfig(q, 2).attention.layerWindow(), 512);
  // Llama 4's default: chunked on 3 of every 4 layers (the RoPE ones).
  ModelConfig l = load(R"({"model_type": "llama4", "text_config": {
      "hidden_size": 1024, "num_attention_heads": 8,
      "num_key_value_heads": 2, "num_hidden_layers": 8,
      "vocab_size": 1000, "intermediate_size": 512,
      "intermediate_size_mlp": 2048, "num_local_experts": 4,
      "num_experts_per_tok": 1, "attention_chunk_size": 256}})");
  EXPECT_TRUE(l.attention.chunked);
  EXPECT_EQ(layerConfig(l, 2).attention.layerWindow(), 256);
  EXPECT_EQ(layerConfig(l, 3).attention.layerWindow(), 0);
  EXPECT_EQ(layerConfig(l, 7).attention.layerWindow(), 0);
}

TEST(DenseTypes, BandedScoresCountTheBand) {
  // The small model (b 2, s 16, a 4, d 16) with a sliding window of 4: 4
  // blocks of 4 queries over 8 keys each: batch 2 x 4 x 4 = 32, M 4, N 8.
  // Score FLOPs 2 x 32 x 4 x 8 x 16 = 32,768 against the unbanded
  // 2 x 8 x 16 x 16 x 16 = 65,536: twice the band of 4 keys per query,
  // as the full causal GEMM is twice its triangle.
  ModelConfig full = testmodels::smallModel();
  ModelConfig c = full;
  c.attention.window = 4;
  auto banded = attentionKernel(c, RunShape(), 0).gemms();
  auto plain = attentionKernel(full, RunShape(), 0).gemms();
  EXPECT_EQ(banded[0].batch.value, 32);
  EXPECT_EQ(banded[0].m.value, 4);
  EXPECT_EQ(banded[0].n.value, 8);
  EXPECT_EQ(banded[0].batch.expr.str(),
            "microbatch*(heads/tp)*ceildiv(seq,window)");
  EXPECT_EQ(*banded[0].flops(), 32768);
  EXPECT_EQ(*plain[0].flops(), 2 * *banded[0].flops());
  // Decode over a longer context reads only the window.
  RunShape decode;
  decode.phase = Phase::Decode;
  decode.kvLength = 17;
  EXPECT_EQ(attentionKernel(c, decode, 0).kvLen.value, 4);
}
