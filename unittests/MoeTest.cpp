//===- MoeTest.cpp - Unit tests of the mixture-of-experts block -----------===//
//
// Parameter counts (total and active), tokens per expert, the expert
// rules, expert parallelism and heterogeneous stacks. Every expected value
// is derived in a comment.
//
//===----------------------------------------------------------------------===//

#include "tshape/Cost/Memory.h"
#include "tshape/Model/Blocks/Block.h"
#include "tshape/Model/Transformer.h"

#include <gtest/gtest.h>

using namespace tshape::model;

namespace {
/// Mixtral-8x7B (config.json of mistralai/Mixtral-8x7B-v0.1): h = 4096,
/// 32 heads, 8 kv heads (d = 128), 32 layers, v = 32000, untied, every
/// layer MoE: 8 SwiGLU experts of inner 14336, top-2.
ModelConfig mixtral(int64_t b = 4, int64_t s = 4096) {
  ModelConfig c;
  c.microbatch = b;
  c.seq = s;
  c.hidden = 4096;
  c.vocab = 32000;
  c.layers = 32;
  c.attention.heads = 32;
  c.attention.kvHeads = 8;
  c.mlp.inner = 0; // no dense MLP
  c.layerBlocks = {BlockKind::Attention, BlockKind::Moe};
  c.moe.experts = 8;
  c.moe.topk = 2;
  c.moe.inner = 14336;
  return c;
}

const GemmSpec *find(const std::vector<Kernel> &ks, Role r) {
  for (const Kernel &k : ks)
    if (const GemmSpec *g = k.gemm(); g && g->role == r)
      return g;
  return nullptr;
}
} // namespace

TEST(Moe, MixtralParameters) {
  ModelConfig c = mixtral();
  ASSERT_FALSE(checkModel(c)) << checkModel(c)->message;
  auto p = countParameters(c);
  ASSERT_TRUE(p);
  // Attention: qkv (32 + 2*8) * 128 = 6144 x 4096 = 25,165,824, out
  // 4096 x 4096 = 16,777,216, norm 4096: 41,947,136.
  // MoE: router 8 x 4096 = 32,768; experts 8 x 3 x 14336 x 4096 =
  // 8 x 176,160,768 = 1,409,286,144; norm 4096: 1,409,323,008.
  // Layer: 1,451,270,144; x 32 = 46,440,644,608.
  EXPECT_EQ(p->perLayer, 1451270144);
  // Embedding 32000 x 4096 = 131,072,000; LM head the same plus the final
  // norm 4096: 131,076,096. Total 46,702,792,704: the card's 46.7B.
  EXPECT_EQ(p->total, 46702792704);
  // Active: per layer 41,947,136 + 32,768 + 2 x 176,160,768 + 4096 =
  // 394,305,536; x 32 = 12,617,777,152; + 262,148,096 = 12,879,925,248:
  // the card's 12.9B.
  EXPECT_EQ(p->active, 12879925248);
}

TEST(Moe, DenseModelActiveEqualsTotal) {
  ModelConfig c = mixtral();
  c.layerBlocks = {BlockKind::Attention, BlockKind::Mlp};
  c.mlp.inner = 14336;
  c.mlp.gated = true;
  auto p = countParameters(c);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->active, p->total);
}

TEST(Moe, MixtralKernels) {
  // b = 4, s = 4096: b*s*k/E = 16384 * 2 / 8 = 4096 tokens per expert.
  ModelConfig c = mixtral();
  std::vector<Kernel> ks = forwardKernels(BlockKind::Moe, c, RunShape::train(), 0);
  const GemmSpec *router = find(ks, Role::MoeRouter);
  ASSERT_TRUE(router);
  EXPECT_EQ(router->m.value, 16384);
  EXPECT_EQ(router->n.value, 8);
  EXPECT_EQ(router->k.value, 4096);
  const GemmSpec *gate = find(ks, Role::MoeExpertGate),
                 *down = find(ks, Role::MoeExpertDown);
  ASSERT_TRUE(gate && down);
  EXPECT_EQ(gate->batch.value, 8);
  EXPECT_EQ(gate->m.value, 4096);
  EXPECT_EQ(gate->n.value, 14336);
  EXPECT_EQ(gate->k.value, 4096);
  EXPECT_EQ(gate->m.expr.str(), "ceildiv(microbatch*seq*topk,experts/ep)");
  EXPECT_EQ(down->n.value, 4096);
  EXPECT_EQ(down->k.value, 14336);
  // No all-to-all at ep = 1; the training step doubles every GEMM twice.
  for (const Kernel &k : ks)
    EXPECT_FALSE(k.collective());
  EXPECT_EQ(*kernelFlops(blockKernels(BlockKind::Moe, c, RunShape::train(), 0)),
            3 * *kernelFlops(ks));
}

TEST(Moe, TokensPerExpertCeilingAndCapacity) {
  // Kimi-K2 at b = 1, s = 8192: 8192 x 8 / 384 = 170.67 -> 171.
  ModelConfig c = mixtral(1, 8192);
  c.moe.experts = 384;
  c.moe.topk = 8;
  Bindings env = bindings(c);
  EXPECT_EQ(tokensPerExpert(c, RunShape::train()).eval(env), 171);
  // Mixtral b = 4, s = 4096 at capacity 125%: 4096 x 1.25 = 5120.
  ModelConfig m = mixtral();
  m.moe.capacity = 125;
  EXPECT_EQ(tokensPerExpert(m, RunShape::train()).eval(bindings(m)), 5120);
  // ep = 2: 4 experts on the rank, each 16384 x 2 / 4 = 8192 tokens (the
  // 4096 of each of the two ranks that route to it).
  ModelConfig e = mixtral();
  e.parallel.ep = 2;
  e.parallel.dp = 2;
  std::vector<Kernel> ks = forwardKernels(BlockKind::Moe, e, RunShape::train(), 0);
  const GemmSpec *up = find(ks, Role::MoeExpertUp);
  ASSERT_TRUE(up);
  EXPECT_EQ(up->batch.value, 4);
  EXPECT_EQ(up->m.value, 8192);
  // The dispatch and combine all-to-alls: b*s*k*h*2 bytes = 16384 x 2 x
  // 4096 x 2 = 268,435,456 over 2 ranks.
  int collectives = 0;
  for (const Kernel &k : ks)
    if (const CollectiveSpec *a = k.collective()) {
      ++collectives;
      EXPECT_EQ(a->op, CollectiveOp::AllToAll);
      EXPECT_EQ(a->bytes.value, 268435456);
      EXPECT_EQ(a->ranks.value, 2);
    }
  EXPECT_EQ(collectives, 2);
}

TEST(Moe, ExpertParallelWeightsPerRank) {
  // ep = 2 halves the experts on a rank; the router stays whole.
  ModelConfig c = mixtral();
  ModelConfig e = c;
  e.parallel.ep = 2;
  auto whole = rankWeights(BlockKind::Moe, c), half = rankWeights(BlockKind::Moe, e);
  ASSERT_TRUE(whole && half);
  // 1,409,323,008 and 4 x 176,160,768 + 32,768 + 4096 = 704,679,936.
  EXPECT_EQ(*whole, 1409323008);
  EXPECT_EQ(*half, 704679936);
}

TEST(Moe, Rules) {
  ModelConfig c = mixtral();
  c.parallel.ep = 3;
  auto v = checkModel(c);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->rule, "E1");
  EXPECT_NE(v->message.find("experts 8 is not divisible by expert-parallel "
                            "degree 3"),
            std::string::npos)
      << v->message;
  c = mixtral();
  c.moe.topk = 9;
  ASSERT_TRUE((v = checkModel(c)));
  EXPECT_EQ(v->rule, "E2");
  c = mixtral();
  c.moe.experts = 0;
  ASSERT_TRUE((v = checkModel(c)));
  EXPECT_EQ(v->rule, "E3");
  c = mixtral();
  c.moe.sharedExperts = 1;
  ASSERT_TRUE((v = checkModel(c)));
  EXPECT_EQ(v->rule, "E4");
  c = mixtral();
  c.moe.capacity = 80;
  ASSERT_TRUE((v = checkModel(c)));
  EXPECT_EQ(v->rule, "E5");
  c = mixtral();
  c.parallel.tp = 3;
  c.vocab = 32004; // divisible by 3 (rule V1)
  c.attention.heads = 48;
  c.attention.kvHeads = 48;
  c.hidden = 6144;
  ASSERT_TRUE((v = checkModel(c)));
  EXPECT_EQ(v->rule, "M2"); // 14336 % 3
}

TEST(Moe, HeterogeneousStack) {
  // Dense then MoE: 1 dense layer then 3 MoE layers, as
  // first_k_dense_replace = 1 of a 4-layer model.
  ModelConfig c = mixtral();
  c.layers = 4;
  c.mlp.inner = 14336;
  c.mlp.gated = true;
  c.stack = {{{{{BlockKind::Attention, BlockKind::Mlp}}}, 1},
             {{{{BlockKind::Attention, BlockKind::Moe}}}, 3}};
  ASSERT_FALSE(checkModel(c)) << checkModel(c)->message;
  EXPECT_EQ(layerConfig(c, 0).layerBlocks.back(), BlockKind::Mlp);
  EXPECT_EQ(layerConfig(c, 3).layerBlocks.back(), BlockKind::Moe);
  auto p = countParameters(c);
  ASSERT_TRUE(p);
  // Dense layer: 41,947,136 + 3 x 14336 x 4096 + 4096 (its norm) =
  // 218,112,000; MoE layer 1,451,270,144 (above); 218,112,000 + 3 x
  // 1,451,270,144 + 262,148,096 = 4,834,070,528.
  EXPECT_EQ(p->total, 4834070528);
  // The kernels follow the stack: layer 0 has mlp_down, layer 1 moe_router.
  auto ks = modelKernels(c, RunShape::prefill());
  int64_t routers = 0;
  for (const Kernel &k : ks)
    if (k.role() == Role::MoeRouter) {
      ++routers;
      EXPECT_GE(k.layer(), 1);
    }
  EXPECT_EQ(routers, 3);
  // FLOPs: the groups' sum, not 4 x layer 0.
  std::optional<int64_t> want = kernelFlops(modelKernels(c, RunShape::train()));
  EXPECT_EQ(countFlops(c, RunShape::train()), want);
  // Rule H1: the segments must hold every layer.
  c.layers = 5;
  auto v = checkModel(c);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->rule, "H1");
}

// Expert tensor parallelism of its own (Megatron-Core: etp x ep expert
// groups, token_dispatcher.py): Mixtral at b = 1, s = 4096, tp 2, ep 4.
// etp = tp = 2 (Megatron-LM's default): an expert gets ep b s k / E =
// 4 x 4096 x 2 / 8 = 4096 tokens at width 14336/2 = 7168. etp = 1: a rank
// routes its b s/tp = 2048 tokens and no expert tensor-parallel group
// gathers them: etp ep b s k / (tp E) = 2048 tokens at the full 14336. The
// dispatch all-to-all moves b s k h e = 4096 x 2 x 4096 x 2 = 67,108,864
// bytes at etp = tp, etp/tp of that, 33,554,432, at etp = 1. A rank's
// experts (E/ep = 2 of 3 x 4096 x 14336 = 176,160,768 each) double at
// etp = 1: 2 x 176,160,768 + the router 32,768 + the norm 4096.
TEST(Moe, ExpertTensorParallelism) {
  ModelConfig c = mixtral(1, 4096);
  c.parallel.tp = 2;
  c.parallel.ep = 4;
  auto expertGate = [](const ModelConfig &m) {
    return *find(forwardKernels(BlockKind::Moe, m, RunShape::train(), 0),
                 Role::MoeExpertGate);
  };
  auto dispatch = [](const ModelConfig &m) -> int64_t {
    for (const Kernel &k :
         forwardKernels(BlockKind::Moe, m, RunShape::train(), 0))
      if (const CollectiveSpec *a = k.collective())
        return a->bytes.value;
    return 0;
  };
  ModelConfig same = c;
  same.parallel.etp = 2; // stated, equal to tp: the default's sizes
  const GemmSpec d = expertGate(c), s = expertGate(same);
  EXPECT_EQ(d.m.value, 4096);
  EXPECT_EQ(d.n.value, 7168);
  EXPECT_EQ(s.m.expr.str(), d.m.expr.str());
  EXPECT_EQ(s.n.expr.str(), d.n.expr.str());
  EXPECT_EQ(dispatch(c), 67108864);
  ModelConfig own = c;
  own.parallel.etp = 1;
  const GemmSpec e = expertGate(own);
  EXPECT_EQ(e.batch.value, 2);
  EXPECT_EQ(e.m.value, 2048);
  EXPECT_EQ(e.n.value, 14336);
  EXPECT_EQ(e.k.value, 4096);
  EXPECT_EQ(dispatch(own), 33554432);
  EXPECT_EQ(*rankWeights(BlockKind::Moe, own),
            2 * 176160768 + 32768 + 4096);
  // The whole model's count does not depend on the degrees.
  EXPECT_EQ(countParameters(own)->total, countParameters(c)->total);
}

// The routed experts' training state shards over the expert data-parallel
// group, tp cp dp / (etp ep) (Megatron Core's parallel_state.py), the rest
// over dp cp. Mixtral at tp 1, dp 8, ep 8, one stage of 32 layers, with the
// distributed optimizer (12 bytes of optimizer state a parameter):
//   a rank's routed experts per layer: 1 x 3 x 14336 x 4096 = 176,160,768;
//   the rest: attention 41,947,136 + router 32,768 + norm 4096 =
//   41,984,000;
//   expert data-parallel group 1 x 1 x 8 / (1 x 8) = 1: the experts'
//   optimizer state is whole, 32 x 176,160,768 x 12 = 67,645,734,912
//   bytes, the rest 32 x 41,984,000 x 12 / 8 = 2,015,232,000.
// At ep 1 both shard over dp 8 (the old count for every ep).
TEST(Moe, ExpertStateShardsOverExpertDataParallelGroup) {
  ModelConfig c = mixtral(1, 4096);
  c.parallel.dp = 8;
  c.parallel.ep = 8;
  tshape::cost::TrainingPlan plan;
  plan.sharding = tshape::cost::StateSharding::DistributedOptimizer;
  std::string error;
  auto m = tshape::cost::estimateMemory(c, plan, &error);
  ASSERT_TRUE(m) << error;
  const tshape::cost::ParamState &s = m->stages[0].layerState;
  EXPECT_EQ(s.params, int64_t(32) * (41984000 + 176160768));
  EXPECT_DOUBLE_EQ(s.optimizer, 67645734912.0 + 2015232000.0);
  // Weights and gradients are not sharded by the distributed optimizer.
  EXPECT_DOUBLE_EQ(s.weights, 2.0 * 32 * (41984000 + 176160768));

  c.parallel.ep = 1;
  m = tshape::cost::estimateMemory(c, plan, &error);
  ASSERT_TRUE(m) << error;
  EXPECT_DOUBLE_EQ(m->stages[0].layerState.optimizer,
                   32.0 * 1451270144 * 12 / 8);

  // Expert ranks that do not divide a stage's ranks: etp x ep = 16 of
  // tp x cp x dp = 8.
  c.parallel.ep = 16;
  c.moe.experts = 16;
  EXPECT_FALSE(tshape::cost::estimateMemory(c, plan, &error));
  EXPECT_NE(error.find("etp x ep = 16 do not divide a stage's tp x cp x dp "
                       "= 8"),
            std::string::npos)
      << error;
}
