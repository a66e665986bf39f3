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
  // Without expert degrees, a dense model's attention dp is refused too:
  // its dp ranks would be independent replicas.
  ServingPlan dp;
  dp.attentionDp = 2;
  err = checkServingPlan(dense, dp);
  ASSERT_TRUE(err);
  EXPECT_NE(err->find("independent replicas"), std::string::npos) << *err;
  ServingPlan zero;
  zero.attentionTp = 0;
  EXPECT_TRUE(checkServingPlan(mixtral(), zero));
}

TEST(PipelineLayout, ParsesAsMegatronLM) {
  // Megatron-LM's example (docs/user-guide/features/
  // pipeline_parallel_layout.md): "Et*3|(tt|)*29,m|L" is 32 chunks, the
  // first the embedding and 3 layers, 29 of 2, the MTP layer, the loss.
  std::string error;
  std::optional<PipelineLayout> l =
      parsePipelineLayout("Et*3|(tt|)*29,m|L", error);
  ASSERT_TRUE(l) << error;
  ASSERT_EQ(l->chunks.size(), 32u);
  EXPECT_EQ(l->chunks.front(), "Ettt");
  EXPECT_EQ(l->chunks[1], "tt");
  EXPECT_EQ(l->chunks[30], "m");
  EXPECT_EQ(l->chunks[31], "L");
  EXPECT_EQ(l->virtualStages(16), 2);
  // 3 + 29 x 2 = 61 decoder layers, 1 MTP layer: Megatron's checks pass at
  // pp 16; chunk 30 (the MTP layer) runs on rank 30 % 16 = 14.
  EXPECT_EQ(checkPipelineLayout(*l, 16, 61, 1), "");
  EXPECT_EQ(l->mtpRank(16), 14);
  EXPECT_NE(checkPipelineLayout(*l, 16, 60, 1).find("61 decoder layers (t), "
                                                    "the model has 60"),
            std::string::npos);
  EXPECT_NE(checkPipelineLayout(*l, 16, 61, 0).find("1 MTP layers"),
            std::string::npos);
  EXPECT_NE(checkPipelineLayout(*l, 5, 61, 1).find("32 stages not divisible "
                                                   "by pp 5"),
            std::string::npos);
  // Errors of the string.
  EXPECT_FALSE(parsePipelineLayout("Ett|x|L", error));
  EXPECT_NE(error.find("unknown symbol 'x'"), std::string::npos) << error;
  EXPECT_FALSE(parsePipelineLayout("E(tt|)*|L", error));
  EXPECT_NE(error.find("followed by '*' and a count"), std::string::npos)
      << error;
  EXPECT_FALSE(parsePipelineLayout("E*t|L", error));
  EXPECT_NE(error.find("'*' must follow a symbol and precede a count"),
            std::string::npos)
      << error;
  // A count that would unroll past 2^20 symbols is an error, not a
  // terabyte of memory.
  EXPECT_FALSE(parsePipelineLayout("E(t*999999|)*999999L", error));
  EXPECT_NE(error.find("more than 1048576 symbols"), std::string::npos)
      << error;
  // Megatron's order rules.
  l = parsePipelineLayout("tE|tL", error);
  ASSERT_TRUE(l);
  EXPECT_NE(checkPipelineLayout(*l, 2, 2, 0).find("first symbol must be E"),
            std::string::npos);
  l = parsePipelineLayout("Et|mtL", error);
  ASSERT_TRUE(l);
  EXPECT_NE(checkPipelineLayout(*l, 2, 2, 1).find("before the MTP layers"),
            std::string::npos);
  // pp 2, v 2: chunk 1 (the MTP layer) is rank 1's first virtual stage,
  // not its last; an empty chunk is allowed.
  l = parsePipelineLayout("Ett|tm|L|", error);
  ASSERT_TRUE(l);
  ASSERT_EQ(l->chunks.size(), 4u);
  EXPECT_NE(checkPipelineLayout(*l, 2, 3, 1).find("last virtual stage"),
            std::string::npos);
}

TEST(PipelineLayout, StageLayers) {
  // DeepSeek-V3's Megatron-Bridge layout, 16 chunks: at pp 4 (v 4) rank r
  // holds chunks r, r + 4, r + 8, r + 12: 4 x 4 = 16 decoder layers, the
  // last rank 4 + 4 + 4 + 1 = 13 (61 in all); at pp 16 (v 1) 4 each and 1
  // on the last.
  ModelConfig c;
  c.layers = 61;
  c.arch.mtpLayers = 1;
  std::string error;
  TrainingPlan plan;
  plan.layout = parsePipelineLayout("Etttt|(tttt|)*14tmL", error);
  ASSERT_TRUE(plan.layout) << error;
  c.parallel.pp = 4;
  plan.setVirtualStages(4);
  EXPECT_EQ(stageLayers(c, plan, &error),
            (std::vector<int64_t>{16, 16, 16, 13}))
      << error;
  c.parallel.pp = 16;
  plan.setVirtualStages(1);
  std::vector<int64_t> sixteen(16, 4);
  sixteen.back() = 1;
  EXPECT_EQ(stageLayers(c, plan, &error), sixteen) << error;
  // v must be what the layout makes it; first/last counts do not combine.
  plan.setVirtualStages(2);
  EXPECT_TRUE(stageLayers(c, plan, &error).empty());
  EXPECT_NE(error.find("16 stages, pp x v = 32"), std::string::npos) << error;
  plan.setVirtualStages(1);
  plan.firstStageLayers = 4;
  EXPECT_TRUE(stageLayers(c, plan, &error).empty());
  EXPECT_NE(error.find("cannot be combined"), std::string::npos) << error;
}
