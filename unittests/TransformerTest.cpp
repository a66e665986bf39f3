//===- TransformerTest.cpp - Unit tests of the transformer model ----------===//
//
// Checked arithmetic, structural rules, the per-rank GEMM list, and the
// parameter and FLOP counts. Every expected value is derived in a comment.
//
//===----------------------------------------------------------------------===//

#include "tshape/Model/Blocks/Block.h"
#include "tshape/Model/Transformer.h"
#include "TestModels.h"

#include <gtest/gtest.h>

#include <limits>

using namespace tshape::model;
using namespace tshape::model;

namespace {
/// GPT-3 2.7B (h = 2560, a = 32, d = 80, f = 4h, v = 50257, L = 32, tied) at
/// the paper's b = 4, s = 2048, one rank.
ModelConfig gpt3_2p7b() {
  ModelConfig c = tshape::testmodels::megatronGpt(32, 2560, 32, 4);
  c.name = "gpt3-2.7b";
  c.vocab = 50257;
  return c;
}

const GemmSpec &find(const std::vector<GemmSpec> &gs, const std::string &role) {
  for (const GemmSpec &g : gs)
    if (g.name() == role)
      return g;
  static GemmSpec none;
  ADD_FAILURE() << "no GEMM with role " << role;
  return none;
}

void expectShape(const GemmSpec &g, int64_t batch, int64_t m, int64_t n,
                 int64_t k) {
  EXPECT_EQ(g.batch.value, batch) << g.name();
  EXPECT_EQ(g.m.value, m) << g.name();
  EXPECT_EQ(g.n.value, n) << g.name();
  EXPECT_EQ(g.k.value, k) << g.name();
}
} // namespace

namespace {
/// The attention rules on these sizes, as an op verifier states them.
std::optional<RuleViolation> checkAttention(int64_t hidden, int64_t heads,
                                            int64_t kvHeads, int64_t headDim,
                                            int64_t tp) {
  Bindings env;
  env.set(Param::Hidden, hidden);
  env.set(Param::Heads, heads);
  env.set(Param::KvHeads, kvHeads);
  if (headDim)
    env.set(Param::HeadDim, headDim);
  env.set(Param::Tp, tp);
  return checkBindings(env);
}
} // namespace

TEST(CheckedMath, DetectsOverflow) {
  const int64_t max = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(checkedMul(3, 4), 12);
  EXPECT_EQ(checkedMul(max, 2), std::nullopt);
  // 2^31 * 2^32 = 2^63 > max.
  EXPECT_EQ(checkedMul(int64_t(1) << 31, int64_t(1) << 32), std::nullopt);
  EXPECT_EQ(checkedAdd(max, 1), std::nullopt);
  EXPECT_EQ(checkedAdd(std::nullopt, 1), std::nullopt);
  EXPECT_EQ(checkedProduct({2, 3, 7}), 42);
  // 2^21 cubed = 2^63: overflows.
  EXPECT_EQ(checkedProduct({1 << 21, 1 << 21, 1 << 21}), std::nullopt);
}

TEST(Rules, Attention) {
  EXPECT_FALSE(checkAttention(2560, 32, 32, 0, 1));
  // A1: 2560 / 33 is not whole; divisors of 2560 around 33 are 32 and 40.
  auto a1 = checkAttention(2560, 33, 33, 0, 1);
  ASSERT_TRUE(a1);
  EXPECT_EQ(a1->rule, "A1");
  EXPECT_NE(a1->message.find("32 or 40"), std::string::npos) << a1->message;
  // An explicit head_dim lifts A1 (Gemma: 3072 / 16 heads, d = 256).
  EXPECT_FALSE(checkAttention(3072, 16, 16, 256, 1));
  // A2: 32 query heads cannot be split into groups for 5 kv heads.
  EXPECT_EQ(checkAttention(4096, 32, 5, 0, 1)->rule, "A2");
  EXPECT_EQ(checkAttention(4096, 8, 16, 0, 1)->rule, "A2");
  // A3: 32 heads on 3 ranks.
  EXPECT_EQ(checkAttention(4096, 32, 32, 0, 3)->rule, "A3");
  // A4: 8 kv heads on 16 ranks is fine (replicated), 4 kv on 8 heads/6 ranks
  // is not: 24 heads, 4 kv heads, tp 6: 24 % 6 == 0 but 4 % 6 and 6 % 4 != 0.
  EXPECT_FALSE(checkAttention(8192, 64, 8, 0, 16));
  EXPECT_EQ(checkAttention(3072, 24, 4, 0, 6)->rule, "A4");
  EXPECT_EQ(checkAttention(4096, 0, 1, 0, 1)->rule, "S1");
}

TEST(Rules, Model) {
  ModelConfig c = gpt3_2p7b();
  EXPECT_FALSE(checkModel(c));
  c.parallel.tp = 2; // vocab 50257 is odd: V1, pad to 50258.
  auto v = checkModel(c);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->rule, "V1");
  EXPECT_NE(v->message.find("50258"), std::string::npos);
  c = gpt3_2p7b();
  c.mlp.inner = 0;
  EXPECT_EQ(checkModel(c)->rule, "S1");
  c = gpt3_2p7b();
  c.hidden = int64_t(1) << 40; // h^2 * 12 per layer overflows 2^63.
  c.attention.heads = 1 << 20;
  c.attention.kvHeads = 1 << 20;
  c.mlp.inner = int64_t(1) << 42;
  EXPECT_EQ(checkModel(c)->rule, "S2");
  EXPECT_EQ(countParameters(c), std::nullopt);
}

TEST(Rules, ExtremeValuesDoNotOverflowMessages) {
  const int64_t max = std::numeric_limits<int64_t>::max();
  // max = 2^63 - 1 is odd: the next multiple of 2 does not fit, so the
  // suggestion saturates at the largest even value, max - 1.
  Bindings big;
  big.set(Param::Vocab, max);
  big.set(Param::Tp, 2);
  auto v = checkSplits(big);
  ASSERT_TRUE(v);
  EXPECT_NE(v->message.find(std::to_string(max - 1)), std::string::npos);
  // heads = max with hidden = max - 1: A1, and the divisor scan stays in
  // range.
  // (Before, the upward scan computed heads + 1 at INT64_MAX: signed
  // overflow, found by UBSan.)
  auto a = checkAttention(max - 1, max, max, 0, 1);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->rule, "A1");
}

TEST(Rules, DivisorHintIsBoundedOnHugePrimes) {
  // hidden = 2^61 - 1 (a Mersenne prime) with 2^40 heads: no divisor other
  // than 1 exists, and an unbounded downward scan would take 2^40 steps.
  // The scans stop 4096 steps away and the message says so.
  const int64_t prime = (int64_t(1) << 61) - 1;
  auto a = checkAttention(prime, int64_t(1) << 40, 1, 0, 1);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->rule, "A1");
  EXPECT_NE(a->message.find("nearest: none within 4096 of 1099511627776"),
            std::string::npos)
      << a->message;
  // A near divisor is still found: 2560 with 33 heads -> 32 or 40.
  auto b = checkAttention(2560, 33, 33, 0, 1);
  ASSERT_TRUE(b);
  EXPECT_NE(b->message.find("nearest: 32 or 40"), std::string::npos)
      << b->message;
}

TEST(Gemms, Gpt3Forward) {
  ModelConfig c = gpt3_2p7b();
  auto gs = gemmsOf(layerKernels(c, RunShape::prefill(), 0));
  ASSERT_EQ(gs.size(), 6u); // qkv, score, value, out, up, down
  // b*s = 8192; N = 3h = 7680 (multi-head).
  expectShape(find(gs, "qkv"), 1, 8192, 7680, 2560);
  // batch b*a = 4*32 = 128: (2048 x 80) . (80 x 2048)
  expectShape(find(gs, "attn_score"), 128, 2048, 2048, 80);
  // batch 128: (2048 x 2048) . (2048 x 80)
  expectShape(find(gs, "attn_value"), 128, 2048, 80, 2048);
  expectShape(find(gs, "attn_out"), 1, 8192, 2560, 2560);
  expectShape(find(gs, "mlp_up"), 1, 8192, 10240, 2560);
  expectShape(find(gs, "mlp_down"), 1, 8192, 2560, 10240);
  auto all = gemmsOf(modelKernels(c, RunShape::prefill()));
  // 6 per layer x 32 + logits = 193.
  ASSERT_EQ(all.size(), 193u);
  expectShape(all.back(), 1, 8192, 50257, 2560);
  EXPECT_EQ(all.back().name(), "logits");
  EXPECT_EQ(all.back().layer, -1);
}

TEST(Gemms, GqaAndTensorParallel) {
  // Llama-2-70B-like: h = 8192, a = 64, g = 8, d = 128, f = 28672, t = 8.
  ModelConfig c;
  c.microbatch = 1;
  c.seq = 4096;
  c.hidden = 8192;
  c.vocab = 32000;
  c.layers = 80;
  c.parallel.tp = 8;
  c.attention.heads = 64;
  c.attention.kvHeads = 8;
  c.mlp.inner = 28672;
  c.mlp.gated = true;
  auto gs = gemmsOf(layerKernels(c, RunShape::prefill(), 0));
  // a/t = 8, g/t = 1: N = (8 + 2*1) * 128 = 1280.
  expectShape(find(gs, "qkv"), 1, 4096, 1280, 8192);
  // batch b*a/t = 8.
  expectShape(find(gs, "attn_score"), 8, 4096, 4096, 128);
  // K = a*d/t = 1024.
  expectShape(find(gs, "attn_out"), 1, 4096, 8192, 1024);
  // f/t = 3584, gated: gate and up.
  expectShape(find(gs, "mlp_gate"), 1, 4096, 3584, 8192);
  expectShape(find(gs, "mlp_up"), 1, 4096, 3584, 8192);
  expectShape(find(gs, "mlp_down"), 1, 4096, 8192, 3584);
  // MQA on 4 ranks: the single kv head is replicated: N = (8 + 2) * d.
  c.attention.kvHeads = 1;
  c.parallel.tp = 4;
  expectShape(find(gemmsOf(layerKernels(c, RunShape::prefill(), 0)), "qkv"), 1, 4096,
              (64 / 4 + 2) * 128, 8192);
}

TEST(Gemms, TrainingBackward) {
  ModelConfig c = gpt3_2p7b();
  auto gs = gemmsOf(layerKernels(c, RunShape::train(), 3));
  // 6 forward + 2 per weight GEMM (4 weight GEMMs) + 4 attention = 18.
  ASSERT_EQ(gs.size(), 18u);
  // qkv forward (8192 x 2560).(2560 x 7680):
  //   dgrad (8192 x 7680).(7680 x 2560); wgrad (2560 x 8192).(8192 x 7680).
  expectShape(find(gs, "qkv_dgrad"), 1, 8192, 2560, 7680);
  expectShape(find(gs, "qkv_wgrad"), 1, 2560, 7680, 8192);
  EXPECT_TRUE(find(gs, "qkv_wgrad").transA);
  // attention: dP (s x d).(d x s), dV (s x s).(s x d), dQ, dK (s x s).(s x d)
  expectShape(find(gs, "attn_value_dp"), 128, 2048, 2048, 80);
  expectShape(find(gs, "attn_value_dv"), 128, 2048, 80, 2048);
  expectShape(find(gs, "attn_score_dq"), 128, 2048, 80, 2048);
  expectShape(find(gs, "attn_score_dk"), 128, 2048, 80, 2048);
  for (const GemmSpec &g : gs)
    EXPECT_EQ(g.layer, 3);
  // Every GEMM has a twin pair backward of equal FLOPs, so a training step
  // is 3x the forward.
  EXPECT_EQ(*countFlops(c, RunShape::train()), 3 * *countFlops(c, RunShape::prefill()));
  // 193 forward + 2 logits backward + 12 x 32 layer backward = 579.
  EXPECT_EQ(gemmsOf(modelKernels(c, RunShape::train())).size(), 579u);
}

TEST(Counting, Gpt3Parameters) {
  // Per layer: QKV 3h^2 = 19,660,800; out h^2 = 6,553,600;
  // MLP 2hf = 52,428,800; norms 2h = 5,120: 78,648,320.
  // Total: 32 x 78,648,320 + vh (50257 x 2560 = 128,657,920, tied) + final
  // norm 2560 = 2,645,406,720. The LM head block owns the final norm and,
  // tied, no projection: 2560.
  auto p = countParameters(gpt3_2p7b());
  ASSERT_TRUE(p);
  EXPECT_EQ(p->perLayer, 78648320);
  EXPECT_EQ(p->embedding, 128657920);
  EXPECT_EQ(p->lmHead, 2560);
  EXPECT_EQ(p->total, 2645406720);
  ModelConfig untied = gpt3_2p7b();
  untied.tiedEmbeddings = false;
  EXPECT_EQ(countParameters(untied)->total, 2645406720 + 128657920);
  // One statement of the weights: the total is the blocks' sum.
  EXPECT_EQ(*blockWeights(BlockKind::Embedding, untied) +
                32 * (*blockWeights(BlockKind::Attention, untied) +
                      *blockWeights(BlockKind::Mlp, untied)) +
                *blockWeights(BlockKind::LMHead, untied),
            countParameters(untied)->total);
  // Weights are unsharded: the degrees do not change them.
  untied.parallel.tp = 4;
  EXPECT_EQ(*blockWeights(BlockKind::Attention, untied), 4 * 2560 * 2560 + 2560);
}

TEST(Counting, Gpt3Flops) {
  // Per layer (2 b s ... each): QKV 2*8192*7680*2560 = 322,122,547,200;
  // scores and values 2*128*2048*2048*80 = 85,899,345,920 each;
  // out 2*8192*2560^2 = 107,374,182,400; up and down
  // 2*8192*10240*2560 = 429,496,729,600 each. Sum 1,460,288,880,640.
  // x32 = 46,729,244,180,480; logits 2*8192*50257*2560 = 2,107,931,361,280.
  EXPECT_EQ(countFlops(gpt3_2p7b(), RunShape::prefill()), 48837175541760);
  // The enumerated list agrees with the per-layer shortcut.
  int64_t sum = 0;
  for (const GemmSpec &g : gemmsOf(modelKernels(gpt3_2p7b(), RunShape::train())))
    sum += *g.flops();
  EXPECT_EQ(sum, *countFlops(gpt3_2p7b(), RunShape::train()));
}

TEST(DType, Names) {
  EXPECT_EQ(parseDType("tf32"), DType::TF32);
  EXPECT_EQ(parseDType("int4"), std::nullopt);
  EXPECT_EQ(dtypeBytes(DType::FP8), 1);
  EXPECT_EQ(dtypeBytes(DType::BF16), 2);
  EXPECT_STREQ(dtypeName(DType::FP16), "fp16");
}

// A fused attention's backward is one kernel (FlashAttention's dQ/dK/dV),
// not four GEMMs: Llama-2-7B's attention at t = 1, b = 1, s = 4096 (32
// heads of d = 128). Its pass computes dP = dO.V^T and dV = P^T.dO of the
// value product, then dQ = dS.K and dK = dS^T.Q of the scores, each over
// b x a = 32 products of 4096 x 4096 x 128 (2 x 4096^2 x 128 x 32 = 137.4
// GFLOP each, 549.8 GFLOP in all: twice the forward's two).
TEST(Transformer, FusedAttentionBackwardIsOneKernel) {
  ModelConfig c = tshape::testmodels::fusedAttentionModel(32, 32, 4096, 4096);
  std::vector<Kernel> ks = layerKernels(c, RunShape::train(), 0);
  std::vector<const AttentionSpec *> attn;
  for (const Kernel &k : ks)
    if (const AttentionSpec *a = k.attention())
      attn.push_back(a);
  ASSERT_EQ(attn.size(), 2u);
  EXPECT_FALSE(attn[0]->backward);
  EXPECT_TRUE(attn[1]->backward);
  EXPECT_EQ(Kernel(*attn[1]).name(), "attention_bwd");
  // No gradient GEMM of the score or value product is left in the list.
  for (const Kernel &k : ks) {
    if (const GemmSpec *g = k.gemm()) {
      EXPECT_TRUE(g->role != Role::AttnScore && g->role != Role::AttnValue)
          << g->name();
    }
  }
  std::vector<GemmSpec> fwd = attn[0]->passGemms(),
                        bwd = attn[1]->passGemms();
  ASSERT_EQ(fwd.size(), 2u);
  ASSERT_EQ(bwd.size(), 4u);
  const char *names[] = {"attn_value_dp", "attn_value_dv", "attn_score_dq",
                         "attn_score_dk"};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(bwd[i].name(), names[i]);
    EXPECT_EQ(bwd[i].batch.value, 32);
    EXPECT_EQ(bwd[i].flops(), int64_t(2) * 4096 * 4096 * 128 * 32);
  }
  EXPECT_EQ(attn[1]->flops(), 2 * *attn[0]->flops());
  EXPECT_EQ(*attn[1]->flops(), int64_t(4) * 2 * 4096 * 4096 * 128 * 32);
}

// The tensor-parallel collectives are kernels of the blocks: GPT-3 2.7B at
// tp 2 (b 4, s 2048, h 2560, bf16): each of a layer's 2 sub-layers leaves
// its region with an all-reduce forward and enters it with one backward,
// of b s h x 2 = 4 x 2048 x 2560 x 2 = 41,943,040 bytes on 2 ranks. Under
// sequence parallelism each pass has an all-gather and a reduce-scatter of
// the same gathered size. The whole model adds the embedding's forward
// all-reduce and the LM head's backward one: 32 x 4 + 2 = 130.
TEST(Transformer, TensorParallelCollectivesAreBlockKernels) {
  ModelConfig c = gpt3_2p7b();
  c.parallel.tp = 2;
  auto collectives = [](const std::vector<Kernel> &ks) {
    std::vector<const CollectiveSpec *> out;
    for (const Kernel &k : ks)
      if (const CollectiveSpec *s = k.collective())
        out.push_back(s);
    return out;
  };
  RunShape train = RunShape::train();
  std::vector<Kernel> layer = layerKernels(c, train, 0);
  auto cs = collectives(layer);
  ASSERT_EQ(cs.size(), 4u);
  for (const CollectiveSpec *s : cs) {
    EXPECT_EQ(s->op, CollectiveOp::AllReduce);
    EXPECT_EQ(s->bytes.value, 41943040);
    EXPECT_EQ(s->ranks.value, 2);
    EXPECT_EQ(s->role, s->backward ? Role::TpEnter : Role::TpLeave);
  }
  // attention's g after attn_out, then the MLP's kernels.
  EXPECT_EQ(layer.front().name(), "qkv");
  EXPECT_FALSE(cs[0]->backward);
  EXPECT_TRUE(cs[3]->backward);
  EXPECT_EQ(collectives(modelKernels(c, train)).size(), 130u);

  train.sequenceParallel = true;
  const std::vector<Kernel> spLayer = layerKernels(c, train, 0);
  cs = collectives(spLayer);
  ASSERT_EQ(cs.size(), 8u);
  int gathers = 0;
  for (const CollectiveSpec *s : cs) {
    // Enter: all-gather forward, reduce-scatter backward; leave: the
    // reverse.
    const bool gather = (s->role == Role::TpEnter) != s->backward;
    EXPECT_EQ(s->op, gather ? CollectiveOp::AllGather
                            : CollectiveOp::ReduceScatter);
    gathers += gather;
  }
  EXPECT_EQ(gathers, 4);
  EXPECT_EQ(spLayer.front().name(), "all_gather");

  // A serving step runs the forward's: 2 all-reduces a layer, none at tp 1.
  EXPECT_EQ(collectives(layerKernels(c, RunShape::decode(), 0)).size(), 2u);
  c.parallel.tp = 1;
  EXPECT_TRUE(collectives(modelKernels(c, RunShape::train())).empty());
}
