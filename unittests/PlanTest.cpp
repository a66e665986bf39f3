//===- PlanTest.cpp - Unit tests of the serving plan's degrees ------------===//
//
// Cost/Plan.h: a serving plan's degrees per block as the block models read
// them, and its rules, on Mixtral-8x7B's shape; each figure by hand.
//
//===----------------------------------------------------------------------===//

#include "tshape/Cost/Plan.h"
#include "tshape/Model/Blocks/Block.h"

#include <gtest/gtest.h>

using namespace tshape;
using namespace tshape::cost;
using namespace tshape::model;

namespace {
/// Mixtral-8x7B: h 4096, 32 heads, 8 kv heads, 8 experts of 14336, top 2;
/// a decode step of b = 8 sequences.
ModelConfig mixtral() {
  ModelConfig c;
  c.name = "mixtral";
  c.microbatch = 8;
  c.seq = 1;
  c.hidden = 4096;
  c.vocab = 32000;
  c.layers = 32;
  c.attention.heads = 32;
  c.attention.kvHeads = 8;
  c.layerBlocks = {BlockKind::Attention, BlockKind::Moe};
  c.moe.experts = 8;
  c.moe.topk = 2;
  c.moe.inner = 14336;
  return c;
}

/// The routed experts' gate GEMM of one layer under `plan`.
GemmSpec expertGate(const ModelConfig &c0, const ServingPlan &plan) {
  ModelConfig c = c0;
  c.parallel = plan.parallelism();
  for (const Kernel &k :
       forwardKernels(BlockKind::Moe, c, RunShape::decode(1024), 0))
    if (const GemmSpec *g = k.gemm(); g && g->role == Role::MoeExpertGate)
      return *g;
  return GemmSpec();
}
} // namespace

TEST(ServingPlan, AttentionDataParallelWithExpertParallelism) {
  // TensorRT-LLM's and SGLang's "DEP4": attention dp 4 at tp 1, the
  // experts over ep 4 (etp = 1 x 4 / 4 = 1). Each rank's attention runs
  // its own 8 sequences; an expert sees etp ep b s k / (tp E) = 1 x 4 x 8
  // x 1 x 2 / (1 x 8) = 8 tokens, in full width 14336; a rank holds 8/4 = 2
  // experts.
  ServingPlan dep;
  dep.attentionDp = 4;
  dep.expertEp = 4;
  EXPECT_EQ(dep.gpus(), 4);
  EXPECT_EQ(dep.etp(), 1);
  EXPECT_EQ(dep.str(), "attention tp 1 dp 4, experts ep 4 etp 1");
  EXPECT_FALSE(checkServingPlan(mixtral(), dep));
  const GemmSpec g = expertGate(mixtral(), dep);
  EXPECT_EQ(g.batch.value, 2);
  EXPECT_EQ(g.m.value, 8);
  EXPECT_EQ(g.n.value, 14336);
  EXPECT_EQ(g.k.value, 4096);
  const Parallelism p = dep.parallelism();
  EXPECT_EQ(p.tp, 1);
  EXPECT_EQ(p.dp, 4);
  EXPECT_EQ(p.ep, 4);
  EXPECT_EQ(p.expertTp(), 1);
}

TEST(ServingPlan, TensorParallelAttentionWithExpertParallelism) {
  // vLLM's --tensor-parallel-size 8 --enable-expert-parallel: ep = 8,
  // experts unsplit (etp = 8 / 8 = 1). The 8 ranks share one batch: an
  // expert sees 1 x 8 x 8 x 2 / (8 x 8) = 2 tokens; a rank holds one
  // expert; the attention splits 32/8 = 4 heads and 8/8 = 1 kv head.
  ServingPlan tep;
  tep.attentionTp = 8;
  tep.expertEp = 8;
  EXPECT_FALSE(checkServingPlan(mixtral(), tep));
  const GemmSpec g = expertGate(mixtral(), tep);
  EXPECT_EQ(g.batch.value, 1);
  EXPECT_EQ(g.m.value, 2);
  EXPECT_EQ(g.n.value, 14336);
  // Without expert degrees every expert is split over the 8 GPUs (etp 8,
  // ep 1): all 8 experts on a rank, 8 x 2 / 8 = 2 tokens each, 14336/8 =
  // 1792 wide.
  ServingPlan tp;
  tp.attentionTp = 8;
  EXPECT_EQ(tp.str(), "attention tp 8 dp 1");
  EXPECT_FALSE(checkServingPlan(mixtral(), tp));
  const GemmSpec d = expertGate(mixtral(), tp);
  EXPECT_EQ(d.batch.value, 8);
  EXPECT_EQ(d.m.value, 2);
  EXPECT_EQ(d.n.value, 1792);
}

TEST(ServingPlan, Rules) {
  ServingPlan bad;
  bad.attentionDp = 4;
  bad.expertEp = 4;
  bad.expertTp = 2;
  auto err = checkServingPlan(mixtral(), bad);
  ASSERT_TRUE(err);
  EXPECT_EQ(*err, "the experts must span the attention's GPUs: ep 4 x etp 2 "
                  "= 8, attention tp 1 x dp 4 = 4");
  // 32 heads over tp 3.
  ServingPlan three;
  three.attentionTp = 3;
  err = checkServingPlan(mixtral(), three);
  ASSERT_TRUE(err);
  EXPECT_NE(err->find("under attention tp 3 dp 1: rule A3"),
            std::string::npos)
      << *err;
  // 8 experts over ep 16.
  ServingPlan wide;
  wide.attentionDp = 16;
  wide.expertEp = 16;
  err = checkServingPlan(mixtral(), wide);
  ASSERT_TRUE(err);
  EXPECT_NE(err->find("experts"), std::string::npos) << *err;
  // Expert degrees on a dense model.
  ModelConfig dense = mixtral();
  dense.layerBlocks = {BlockKind::Attention, BlockKind::Mlp};
  dense.moe = MoeConfig();
  dense.mlp.inner = 14336;
  ServingPlan ep;
  ep.attentionDp = 2;
  ep.expertEp = 2;
  err = checkServingPlan(dense, ep);
  ASSERT_TRUE(err);
  EXPECT_EQ(*err, "expert degrees (attention tp 1 dp 2, experts ep 2 etp 1) "
                  "need a model with routed experts; mixtral has none");
  ServingPlan zero;
  zero.attentionTp = 0;
  EXPECT_TRUE(checkServingPlan(mixtral(), zero));
}
