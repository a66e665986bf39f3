//===- MlaTest.cpp - Unit tests of the multi-head latent attention block --===//
//
// Parameter counts (total and active) of DeepSeek-V3, DeepSeek-V2,
// DeepSeek-V2-Lite and Kimi-K2 against their model cards, the per-rank
// kernels at tp > 1 (heads split, latent ranks whole), the absorbed decode
// kernels and the KV-cache bytes per token. Every expected value is
// derived in a comment. Convention (docs/importer.md): embedding and LM
// head counted (untied), norm gains counted, biases none; DeepSeek-V3's
// multi-token-prediction module left out.
//
//===----------------------------------------------------------------------===//

#include "tshape/Advise/ShapeReport.h"
#include "tshape/Advise/ShapeSearch.h"
#include "tshape/Cost/Inference.h"
#include "tshape/Cost/PredictKernel.h"
#include "tshape/Target/GpuTarget.h"
#include "tshape/Interop/HFConfig.h"
#include "tshape/Model/Blocks/Block.h"
#include "tshape/Model/Transformer.h"

#include <gtest/gtest.h>

using namespace tshape::model;

namespace {
/// The config of a DeepSeek-architecture model from its config.json keys.
ModelConfig deepseek(const std::string &type, const std::string &keys,
                     int64_t tp = 1) {
  tshape::ImportOptions o;
  o.parallel.tp = tp;
  tshape::ImportDiagnostic d;
  std::string text = "{\"model_type\": \"" + type + "\", " + keys + "}";
  std::optional<ModelConfig> c = tshape::importHFConfig(text, o, d);
  EXPECT_TRUE(c) << d.message;
  return c.value_or(ModelConfig());
}

/// DeepSeek-V3 (deepseek-ai/DeepSeek-V3 config.json, model card).
ModelConfig v3(int64_t tp = 1) {
  return deepseek(
      "deepseek_v3",
      R"("hidden_size": 7168, "num_attention_heads": 128,
         "num_hidden_layers": 61, "vocab_size": 129280,
         "intermediate_size": 18432, "moe_intermediate_size": 2048,
         "n_routed_experts": 256, "n_shared_experts": 1,
         "num_experts_per_tok": 8, "first_k_dense_replace": 3,
         "q_lora_rank": 1536, "kv_lora_rank": 512, "qk_nope_head_dim": 128,
         "qk_rope_head_dim": 64, "v_head_dim": 128,
         "tie_word_embeddings": false)",
      tp);
}

const GemmSpec *find(const std::vector<Kernel> &ks, Role r) {
  for (const Kernel &k : ks)
    if (const GemmSpec *g = k.gemm(); g && g->role == r)
      return g;
  return nullptr;
}
} // namespace

TEST(Mla, DeepSeekV3Parameters) {
  ModelConfig c = v3();
  ASSERT_FALSE(checkModel(c)) << checkModel(c)->message;
  auto p = countParameters(c);
  ASSERT_TRUE(p);
  // MLA: q_down 1536 x 7168 = 11,010,048; q_up 128*192 = 24576 x 1536 =
  // 37,748,736; kv_down 576 x 7168 = 4,128,768; kv_up 128*256 = 32768 x
  // 512 = 16,777,216; out 7168 x 16384 = 117,440,512; norms 7168 + 1536 +
  // 512 = 9,216: 187,114,496.
  EXPECT_EQ(blockWeights(BlockKind::Mla, c), 187114496);
  // Dense layer MLP: 3 x 18432 x 7168 = 396,361,728 + 7168 = 396,368,896.
  // MoE: router 256 x 7168 = 1,835,008; routed 256 x 3 x 2048 x 7168 =
  // 256 x 44,040,192 = 11,274,289,152; shared 44,040,192; norm 7168:
  // 11,320,171,520.
  // 61 x 187,114,496 + 3 x 396,368,896 + 58 x 11,320,171,520
  // = 11,413,984,256 + 1,189,106,688 + 656,569,948,160; embedding 129280 x
  // 7168 = 926,679,040, LM head the same + 7168: total 671,026,404,352,
  // the card's 671B (+0.004%).
  EXPECT_EQ(p->total, 671026404352);
  // Active: a MoE layer's router + 8 routed + shared + norm = 1,835,008 +
  // 352,321,536 + 44,040,192 + 7168 = 398,203,904; x 58 =
  // 23,095,826,432; + 11,413,984,256 + 1,189,106,688 + 1,853,365,248 =
  // 37,552,282,624: the card's 37B within 1.5% (36.6B without the
  // embedding table, -1.0%).
  EXPECT_EQ(p->active, 37552282624);
}

TEST(Mla, DeepSeekV2Parameters) {
  // DeepSeek-V2 (deepseek-ai/DeepSeek-V2 config.json): h 5120, 60 layers,
  // 128 heads, r_q 1536, r_kv 512, 160 routed experts of 1536, 2 shared,
  // top-6, first layer dense (12288), vocab 102400.
  ModelConfig c = deepseek(
      "deepseek_v2",
      R"("hidden_size": 5120, "num_attention_heads": 128,
         "num_hidden_layers": 60, "vocab_size": 102400,
         "intermediate_size": 12288, "moe_intermediate_size": 1536,
         "n_routed_experts": 160, "n_shared_experts": 2,
         "num_experts_per_tok": 6, "first_k_dense_replace": 1,
         "q_lora_rank": 1536, "kv_lora_rank": 512, "qk_nope_head_dim": 128,
         "qk_rope_head_dim": 64, "v_head_dim": 128)");
  auto p = countParameters(c);
  ASSERT_TRUE(p);
  // MLA: 1536 x 5120 + 24576 x 1536 + 576 x 5120 + 32768 x 512 + 5120 x
  // 16384 + (5120 + 1536 + 512) = 7,864,320 + 37,748,736 + 2,949,120 +
  // 16,777,216 + 83,886,080 + 7,168 = 149,232,640; x 60 = 8,953,958,400.
  // Dense MLP 3 x 12288 x 5120 + 5120 = 188,748,800.
  // MoE: router 160 x 5120 = 819,200; routed 160 x 3 x 1536 x 5120 =
  // 160 x 23,592,960 = 3,774,873,600; shared 2 x 23,592,960 = 47,185,920;
  // norm 5120: 3,822,883,840; x 59 = 225,550,146,560.
  // Embedding 102400 x 5120 = 524,288,000; LM head + 5120.
  // Total 8,953,958,400 + 188,748,800 + 225,550,146,560 + 1,048,581,120 =
  // 235,741,434,880: the card's 236B (-0.1%).
  EXPECT_EQ(p->total, 235741434880);
  // Active MoE layer: 819,200 + 6 x 23,592,960 + 47,185,920 + 5,120 =
  // 189,568,000; x 59 = 11,184,512,000; + 8,953,958,400 + 188,748,800 +
  // 1,048,581,120 = 21,375,800,320: the card's 21B (+1.8%).
  EXPECT_EQ(p->active, 21375800320);
}

TEST(Mla, DeepSeekV2LiteHasNoQueryLatent) {
  // DeepSeek-V2-Lite: q_lora_rank null, so the query is one projection
  // h x a(d_n+d_r) = 2048 x 16*192 = 3072 x 2048.
  ModelConfig c = deepseek(
      "deepseek_v2",
      R"("hidden_size": 2048, "num_attention_heads": 16,
         "num_hidden_layers": 27, "vocab_size": 102400,
         "intermediate_size": 10944, "moe_intermediate_size": 1408,
         "n_routed_experts": 64, "n_shared_experts": 2,
         "num_experts_per_tok": 6, "first_k_dense_replace": 1,
         "q_lora_rank": null, "kv_lora_rank": 512, "qk_nope_head_dim": 128,
         "qk_rope_head_dim": 64, "v_head_dim": 128)");
  EXPECT_EQ(getParam(c, Param::QLoraRank), 0);
  std::vector<Kernel> ks = mlaKernels(c, RunShape::train(), 0);
  EXPECT_FALSE(find(ks, Role::MlaQDown));
  const GemmSpec *q = find(ks, Role::MlaQ);
  ASSERT_TRUE(q);
  EXPECT_EQ(q->n.value, 3072);
  EXPECT_EQ(q->k.value, 2048);
  auto p = countParameters(c);
  ASSERT_TRUE(p);
  // MLA: 3072 x 2048 + 576 x 2048 + 16*256 = 4096 x 512 + 2048 x 2048 +
  // (2048 + 512) = 6,291,456 + 1,179,648 + 2,097,152 + 4,194,304 + 2,560
  // = 13,765,120; x 27 = 371,658,240. Dense 3 x 10944 x 2048 + 2048 =
  // 67,239,936 + 2048 = 67,241,984. MoE: router 64 x 2048 = 131,072; routed 64 x 3 x 1408 x
  // 2048 = 64 x 8,650,752 = 553,648,128; shared 2 x 8,650,752 =
  // 17,301,504; norm 2048: 571,082,752; x 26 = 14,848,151,552. Embedding
  // and LM head 2 x 209,715,200 + 2048. Total 15,706,484,224: the card's
  // 15.7B (+0.04%).
  EXPECT_EQ(p->total, 15706484224);
  // Active: MoE 131,072 + 6 x 8,650,752 + 17,301,504 + 2048 = 69,339,136;
  // x 26 = 1,802,817,536; + 371,658,240 + 67,241,984 + 419,432,448 =
  // 2,661,150,208: the card's 2.4B is without the embedding table
  // (2,661,150,208 - 209,715,200 = 2,451,435,008, +2.1%) -- see
  // docs/importer.md.
  EXPECT_EQ(p->active, 2661150208);
}

TEST(Mla, KimiK2Parameters) {
  // Kimi-K2 (moonshotai/Kimi-K2-Instruct config.json): DeepSeek-V3's
  // architecture with 64 heads, 384 routed experts, first layer dense,
  // vocab 163840.
  ModelConfig c = deepseek(
      "kimi_k2",
      R"("hidden_size": 7168, "num_attention_heads": 64,
         "num_hidden_layers": 61, "vocab_size": 163840,
         "intermediate_size": 18432, "moe_intermediate_size": 2048,
         "n_routed_experts": 384, "n_shared_experts": 1,
         "num_experts_per_tok": 8, "first_k_dense_replace": 1,
         "q_lora_rank": 1536, "kv_lora_rank": 512, "qk_nope_head_dim": 128,
         "qk_rope_head_dim": 64, "v_head_dim": 128)");
  auto p = countParameters(c);
  ASSERT_TRUE(p);
  // MLA: 11,010,048 + 64*192 = 12288 x 1536 = 18,874,368 + 4,128,768 +
  // 64*256 = 16384 x 512 = 8,388,608 + 7168 x 8192 = 58,720,256 + 9,216
  // = 101,131,264; x 61 = 6,169,007,104. Dense 396,368,896. MoE: router
  // 384 x 7168 = 2,752,512; routed 384 x 44,040,192 = 16,911,433,728;
  // shared 44,040,192; norm 7168: 16,958,233,600; x 60 =
  // 1,017,494,016,000. Embedding 163840 x 7168 = 1,174,405,120, LM head +
  // 7168. Total 1,026,408,209,408: the card's 1T (1.03T, +2.6% of 1.0T;
  // the card rounds: "1 trillion total parameters").
  EXPECT_EQ(p->total, 1026408209408);
  // Active MoE layer: 2,752,512 + 352,321,536 + 44,040,192 + 7168 =
  // 399,121,408; x 60 = 23,947,284,480; + 6,169,007,104 + 396,368,896 +
  // 2,348,817,408 = 32,861,477,888: the card's 32B (+2.7%; 31.7B without
  // the embedding table, -1.0%).
  EXPECT_EQ(p->active, 32861477888);
}

TEST(Mla, TensorParallelSplitsHeadsNotLatents) {
  // tp = 8: a_t = 16. The down projections keep their N (1536, 576), the
  // up projections and the output shrink with the heads: q_up N 16*192 =
  // 3072, kv_up N 16*256 = 4096, out K 16*128 = 2048.
  ModelConfig c = v3(8);
  std::vector<Kernel> ks = mlaKernels(c, RunShape::train(), 0);
  EXPECT_EQ(find(ks, Role::MlaQDown)->n.value, 1536);
  EXPECT_EQ(find(ks, Role::MlaKvDown)->n.value, 576);
  EXPECT_EQ(find(ks, Role::MlaQUp)->n.value, 3072);
  EXPECT_EQ(find(ks, Role::MlaKvUp)->n.value, 4096);
  EXPECT_EQ(find(ks, Role::AttnOut)->k.value, 2048);
  EXPECT_EQ(find(ks, Role::MlaQUp)->n.expr.str(),
            "heads/tp*(qk_nope_head_dim+qk_rope_head_dim)");
  // Rule A3 through the table: 128 heads over tp 3 do not divide.
  ModelConfig bad = c;
  bad.parallel.tp = 3;
  auto v = checkModel(bad);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->rule, "A3");
}

TEST(Mla, AbsorbedDecodeAndCache) {
  ModelConfig c = v3(8);
  RunShape run;
  run.phase = Phase::Decode;
  // Decode kernels: q_down, q_up, kv_down, q_absorb, the attention,
  // out_absorb, out; no kv_up.
  std::vector<Kernel> ks = mlaKernels(c, run, 0);
  EXPECT_FALSE(find(ks, Role::MlaKvUp));
  const GemmSpec *qa = find(ks, Role::MlaQAbsorb);
  ASSERT_TRUE(qa);
  // 16 heads per rank x (b = 4 tokens x d_n 128).(128 x r_kv 512).
  EXPECT_EQ(qa->batch.value, 16);
  EXPECT_EQ(qa->m.value, 4);
  EXPECT_EQ(qa->n.value, 512);
  EXPECT_EQ(qa->k.value, 128);
  const AttentionSpec a = mlaAttentionKernel(c, run, 0);
  // One latent key/value head of 512 + 64 = 576, values 512 wide.
  EXPECT_EQ(a.heads.value, 16);
  EXPECT_EQ(a.kvHeads.value, 1);
  EXPECT_EQ(a.headDim.value, 576);
  EXPECT_EQ(a.valueHeadDim.value, 512);
  EXPECT_TRUE(a.grouped);
  // The cache: (512 + 64) x 61 layers x 2 bytes = 70,272 bytes per token
  // on every rank (not split by tp).
  EXPECT_EQ(cacheElementsPerToken(c), 576 * 61);
  EXPECT_DOUBLE_EQ(tshape::cost::cacheBytesPerToken(c, run), 70272.0);
}

TEST(Mla, RuleLA1) {
  ModelConfig c = v3();
  c.mla.qkRopeDim = 0;
  auto v = checkModel(c);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->rule, "LA1");
  EXPECT_NE(v->message.find("qk_rope_head_dim is 0"), std::string::npos);
}

namespace {
/// DeepSeek-V3 at tp 8 (and ep 32, so that its weights fit 80 GiB), its
/// attention fused: a prefill chunk of `q` tokens of `b` sequences after `context` cached.
std::pair<ModelConfig, RunShape> chunk(int64_t b, int64_t q,
                                       int64_t context) {
  ModelConfig c = v3(8);
  c.parallel.ep = 32;
  c.attention.fused = true; // as a prefill import states it
  c.microbatch = b;
  c.seq = q;
  RunShape run;
  run.phase = Phase::Prefill;
  run.kvLength = q + context;
  return {c, run};
}
} // namespace

TEST(Mla, ContextPiecesOfTheWorkspace) {
  // b = 4 sequences share vLLM's 65,536-token workspace: 16,384 tokens
  // each (max_context_chunk); C = 40,000 runs in ceil(40,000 / 16,384) = 3
  // pieces of 16,384, 16,384 and 40,000 - 32,768 = 7,232.
  auto [c, run] = chunk(4, 256, 40000);
  EXPECT_EQ(mlaContextTokens(c, run), 40000);
  EXPECT_EQ(mlaContextShare(c), 16384);
  EXPECT_EQ(mlaContextPieces(c, run), 3);
  EXPECT_EQ(mlaContextPieceLength(c, run, 0), 16384);
  EXPECT_EQ(mlaContextPieceLength(c, run, 1), 16384);
  EXPECT_EQ(mlaContextPieceLength(c, run, 2), 7232);
  EXPECT_EQ(mlaContextPieceLength(c, run, 3), 0);
  EXPECT_EQ(mlaContextPieceLength(c, run, -1), 0);
  // One sequence of 65,536 cached tokens: one piece, the whole context.
  auto [one, oneRun] = chunk(1, 1024, 65536);
  EXPECT_EQ(mlaContextPieces(one, oneRun), 1);
  EXPECT_EQ(mlaContextPieceLength(one, oneRun, 0), 65536);
  // No context (a prefill of the whole prompt): no piece.
  auto [none, noneRun] = chunk(4, 256, 0);
  EXPECT_EQ(mlaContextPieces(none, noneRun), 0);

  // The block's kernels: per piece a kv_up GEMM of M = b x the piece,
  // N = 16 heads x (128 + 128) = 4096, K = 512, then the chunk's 256
  // queries over the piece (not causal); one merge kernel of 3 launches.
  std::vector<int64_t> ms, kvs;
  const ElementwiseSpec *merge = nullptr;
  std::vector<Kernel> ks = mlaKernels(c, run, 0);
  for (const Kernel &k : ks) {
    if (const GemmSpec *g = k.gemm(); g && g->role == Role::MlaContextUp) {
      ms.push_back(g->m.value);
      EXPECT_EQ(g->n.value, 4096);
      EXPECT_EQ(g->k.value, 512);
    }
    if (const AttentionSpec *a = k.attention();
        a && a->role == Role::MlaContextAttention) {
      kvs.push_back(a->kvLen.value);
      EXPECT_EQ(a->queryLen.value, 256);
      EXPECT_FALSE(a->causal);
      EXPECT_TRUE(a->cross);
    }
    if (k.elementwise())
      merge = k.elementwise();
  }
  EXPECT_EQ(ms, (std::vector<int64_t>{65536, 65536, 28928}));
  EXPECT_EQ(kvs, (std::vector<int64_t>{16384, 16384, 7232}));
  ASSERT_TRUE(merge);
  EXPECT_EQ(merge->count, 3);
  // b q a' = 4 x 256 x 16 rows of d_v = 128.
  EXPECT_EQ(merge->rows.value, 16384);
  EXPECT_EQ(merge->width.value, 128);
}

TEST(Mla, RuleLA3BoundsThePieces) {
  // b = 128: 512 tokens per sequence a piece; 1024 pieces hold 524,288.
  auto [c, run] = chunk(128, 16, 524288);
  EXPECT_EQ(mlaContextPieces(c, run), kMlaMaxContextPieces);
  EXPECT_FALSE(checkMlaContext(c, run));
  auto [over, overRun] = chunk(128, 16, 524300);
  EXPECT_EQ(mlaContextPieces(over, overRun), 1025);
  std::optional<RuleViolation> v = checkMlaContext(over, overRun);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->rule, "LA3");
  // The fix: 524,288 cached tokens, or a share of ceil(524,300 / 1024) =
  // 513 tokens: floor(65,536 / 513) = 127 sequences.
  EXPECT_NE(v->message.find("1025 pieces"), std::string::npos) << v->message;
  EXPECT_NE(v->message.find("at most 524288 cached tokens"), std::string::npos);
  EXPECT_NE(v->message.find("the batch to at most 127"), std::string::npos);
  // The kernel list stays finite past the bound: 1024 pieces stated.
  int64_t ups = 0;
  for (const Kernel &k : mlaKernels(over, overRun, 0))
    if (const GemmSpec *g = k.gemm(); g && g->role == Role::MlaContextUp)
      ++ups;
  EXPECT_EQ(ups, kMlaMaxContextPieces);
  // estimateInference refuses it with the rule.
  std::string err;
  EXPECT_FALSE(tshape::cost::estimateInference(
      over, overRun, *tshape::target::findBuiltinTarget("h100-sxm"), {}, err));
  EXPECT_EQ(err.rfind("rule LA3: ", 0), 0u) << err;
}

TEST(Mla, ContextWorkspaceMemory) {
  // Per token of a piece, a' = 16 heads: kv_b_proj's output 16 x (128 +
  // 128) and the key 16 x (128 + 64): 7168 elements, 14,336 bytes.
  auto [c, run] = chunk(2, 1024, 8192);
  EXPECT_EQ(mlaContextUpElements(c), 7168);
  std::string err;
  const auto &h100 = *tshape::target::findBuiltinTarget("h100-sxm");
  auto e = tshape::cost::estimateInference(c, run, h100, {}, err);
  ASSERT_TRUE(e) << err;
  const tshape::cost::InferenceMemory &m = e->memory;
  // The gathered latents: 65,536 x 576 x 2 = 75,497,472 bytes; the piece:
  // 2 x min(8192, 32,768) = 16,384 tokens x 14,336 = 234,881,024.
  EXPECT_DOUBLE_EQ(m.workspacePerToken, 14336.0);
  EXPECT_EQ(m.workspacePieceTokens, 16384);
  EXPECT_DOUBLE_EQ(m.workspacePiece, 234881024.0);
  EXPECT_DOUBLE_EQ(m.workspace, 75497472.0 + 234881024.0);
  EXPECT_DOUBLE_EQ(m.total(),
                   m.weights + m.kvCache + m.activations + m.workspace);
  // The largest batch B: past floor(65,536 / 8192) = 8 sequences the
  // piece fills the workspace (65,536 tokens), so B is the largest with
  // weights + latents + 65,536 x 14,336 + B x (cache + activations per
  // sequence) <= 80 GiB: 101 (test/Inference/mla-workspace.test derives
  // it); B + 1 does not fit.
  const double perSeq = (m.kvCache + m.activations) / 2;
  const double fixed = m.weights + 75497472.0 + 65536.0 * 14336.0;
  EXPECT_EQ(m.maxBatch, 101);
  EXPECT_LE(fixed + 101 * perSeq, m.capacity);
  EXPECT_GT(fixed + 102 * perSeq, m.capacity);
  // A decode step holds the latents' buffer alone.
  RunShape decode = RunShape::decode(9217);
  ModelConfig d = c;
  d.seq = 1;
  auto de = tshape::cost::estimateInference(d, decode, h100, {}, err);
  ASSERT_TRUE(de) << err;
  EXPECT_DOUBLE_EQ(de->memory.workspace, 75497472.0);
  EXPECT_EQ(de->memory.workspacePieceTokens, 0);
}

TEST(Mla, AnalysisPricesTheMergeAsTheReport) {
  // The tshape-IR analysis' records hold the block's merge kernel and
  // price it with predictKernel, as estimateInference does.
  auto [c, run] = chunk(2, 1024, 65536);
  const auto &h100 = *tshape::target::findBuiltinTarget("h100-sxm");
  std::vector<tshape::advise::KernelRecord> records =
      tshape::advise::recordsFor(c, run);
  tshape::advise::ShapeAnalysis analysis(h100, 0.1);
  analysis.analyze(records);
  const tshape::advise::KernelRecord *merge = nullptr;
  for (const auto &r : records)
    if (r.kernel && r.kernel->elementwise() && !merge)
      merge = &r;
  ASSERT_TRUE(merge);
  EXPECT_EQ(merge->name, "mla_merge");
  // 2 pieces (32,768 tokens each), 2 launches of 2 x 1024 x 16 rows.
  EXPECT_EQ(merge->problem.batch, 2);
  EXPECT_EQ(merge->problem.m, 32768);
  EXPECT_EQ(merge->problem.n, 128);
  const tshape::cost::KernelEstimate k =
      tshape::cost::predictKernel(*merge->kernel, c.dtype, h100);
  EXPECT_GT(k.predictedUs, 0);
  EXPECT_DOUBLE_EQ(merge->predictedUs, k.predictedUs);
  EXPECT_FALSE(merge->flagged);
  // It counts in the step, under attention.
  const tshape::advise::Totals t = analysis.totals(records);
  EXPECT_GT(t.attentionShare * t.stepUs, merge->predictedUs);
}
