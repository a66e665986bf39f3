//===- RecomputeTest.cpp - Selective recompute modules ---------------------===//
//
// Megatron Core's recompute_modules (Model/Recompute.h): the names, what
// each module drops from a layer's saved activations (Model/Blocks) and
// what it runs again in the step (Cost/StepTime). Figures by hand.
//
//===----------------------------------------------------------------------===//

#include "TestModels.h"

#include "tshape/Cost/Cluster.h"
#include "tshape/Cost/Memory.h"
#include "tshape/Cost/PredictKernel.h"
#include "tshape/Cost/StepTime.h"
#include "tshape/Model/Blocks/Block.h"
#include "tshape/Model/Recompute.h"
#include "tshape/Model/Transformer.h"
#include "tshape/Target/GpuTarget.h"

#include <gtest/gtest.h>

using namespace tshape;
using namespace tshape::cost;
using model::RecomputeModule;
using model::RecomputeModules;

namespace {
RecomputeModules set(std::initializer_list<RecomputeModule> ms) {
  RecomputeModules s = 0;
  for (RecomputeModule m : ms)
    s |= RecomputeModules(m);
  return s;
}

/// Mixtral's MoE layer at s = 4096, b = 1, t = 1 (h = 4096, E = 8, k = 2,
/// f_e = 14336), no sequence parallelism: s b h = 16,777,216.
model::ModelConfig mixtralLayer() {
  return testmodels::moeLayer(4096, 4096, 8, 2, 14336);
}

double moeBytes(const model::ModelConfig &c, RecomputeModules modules) {
  TrainingPlan p;
  p.recompute = Recompute::Selective;
  p.recomputeModules = modules;
  return model::moeActivations(c, activationPlan(p));
}
} // namespace

TEST(Recompute, Names) {
  std::string error;
  std::optional<RecomputeModules> m =
      model::parseRecomputeModules("moe_act,layernorm", error);
  ASSERT_TRUE(m) << error;
  EXPECT_EQ(*m, set({RecomputeModule::MoeAct, RecomputeModule::LayerNorm}));
  // Megatron Core's order, whatever the list's.
  EXPECT_EQ(model::recomputeModulesText(*m), "moe_act,layernorm");
  EXPECT_EQ(model::recomputeModulesText(model::kAllRecomputeModules, " "),
            "core_attn moe_act layernorm mla_up_proj mlp moe shared_experts");
  EXPECT_FALSE(model::parseRecomputeModules("core_attn,attn", error));
  EXPECT_EQ(error, "unknown recompute module 'attn' (core_attn, moe_act, "
                   "layernorm, mla_up_proj, mlp, moe, shared_experts)");
  EXPECT_FALSE(model::parseRecomputeModules("core_attn,", error));
  EXPECT_NE(error.find("an empty name"), std::string::npos) << error;
  EXPECT_EQ(recomputeText(Recompute::Selective,
                          set({RecomputeModule::CoreAttn})),
            "selective");
  EXPECT_EQ(recomputeText(Recompute::Selective, *m),
            "selective (moe_act, layernorm)");
  EXPECT_EQ(recomputeText(Recompute::Full, *m), "full");
}

TEST(Recompute, MoeModulesDropWhatTheyRecompute) {
  model::ModelConfig c = mixtralLayer();
  const double sbh = 16777216.0;
  // core_attn (the default): input and dropout mask 3 s b h, the pre-MLP
  // norm's output 2 s b h (the router's saved input) = 83,886,080; router
  // logits 4 s b E = 131,072; 8,192 copies x (2 x 4096 permuted input +
  // 4 x 14336 gate and up + 2 x 14336 activation + 2 x 4096 output =
  // 102,400) = 838,860,800. Sum 922,877,952.
  const RecomputeModules core = set({RecomputeModule::CoreAttn});
  EXPECT_DOUBLE_EQ(moeBytes(c, core), 922877952.0);
  // layernorm drops the norm's output, 2 s b h.
  EXPECT_DOUBLE_EQ(
      moeBytes(c, core | set({RecomputeModule::LayerNorm})),
      922877952.0 - 2 * sbh);
  // moe_act drops the activation's output, 8,192 x 2 x 14336 =
  // 234,881,024.
  EXPECT_DOUBLE_EQ(moeBytes(c, core | set({RecomputeModule::MoeAct})),
                   922877952.0 - 234881024.0);
  // Both (GPT-OSS's and Qwen3's Megatron-Bridge recipes): 654,442,496.
  EXPECT_DOUBLE_EQ(moeBytes(c, set({RecomputeModule::LayerNorm,
                                    RecomputeModule::MoeAct})),
                   654442496.0);
  // moe keeps the sub-layer's input, dropout mask and the layer's input
  // (the norm's output): 5 s b h; with layernorm, 3 s b h.
  EXPECT_DOUBLE_EQ(moeBytes(c, set({RecomputeModule::Moe})), 5 * sbh);
  EXPECT_DOUBLE_EQ(
      moeBytes(c, set({RecomputeModule::Moe, RecomputeModule::LayerNorm})),
      3 * sbh);
  // A shared expert of 14336: gate and up 4 x 14336 and activation
  // 2 x 14336 bytes on each of 4096 tokens = 352,321,536, which
  // shared_experts (or moe) drops.
  c.moe.sharedExperts = 1;
  c.moe.sharedInner = 14336;
  EXPECT_DOUBLE_EQ(moeBytes(c, core), 922877952.0 + 352321536.0);
  EXPECT_DOUBLE_EQ(
      moeBytes(c, core | set({RecomputeModule::SharedExperts})),
      922877952.0);
  EXPECT_DOUBLE_EQ(moeBytes(c, set({RecomputeModule::Moe})), 5 * sbh);
}

TEST(Recompute, DenseMlpAndMla) {
  // The dense layer of the same sizes (f = 14336): Korthikanti's 34 s b h
  // under core_attn; the mlp module keeps the MLP's input and dropout mask
  // alone (3 of its 19 s b h): 18 s b h.
  model::ModelConfig c = mixtralLayer();
  c.layerBlocks = {model::BlockKind::Attention, model::BlockKind::Mlp};
  c.mlp.inner = 14336;
  const double sbh = 16777216.0;
  TrainingPlan p;
  p.recompute = Recompute::Selective;
  EXPECT_DOUBLE_EQ(layerActivationBytes(c, p), 34 * sbh);
  p.recomputeModules = set({RecomputeModule::CoreAttn, RecomputeModule::Mlp});
  EXPECT_DOUBLE_EQ(layerActivationBytes(c, p), 18 * sbh);
  // A dense layer's norms are fused into the next linear layer: layernorm
  // changes nothing.
  p.recomputeModules =
      set({RecomputeModule::CoreAttn, RecomputeModule::LayerNorm});
  EXPECT_DOUBLE_EQ(layerActivationBytes(c, p), 34 * sbh);

  // MLA (its input norm a module of its own): layernorm drops the norm's
  // output, 2 s b h; mla_up_proj the core's Q, K and V, 6 s b h / t, here
  // at t = 2 without sequence parallelism: 3 s b h.
  c.layerBlocks = {model::BlockKind::Mla, model::BlockKind::Mlp};
  c.attention.heads = 16;
  c.attention.kvHeads = 16;
  c.mla.qLoraRank = 1536;
  c.mla.kvLoraRank = 512;
  c.mla.qkNopeDim = 128;
  c.mla.qkRopeDim = 64;
  c.mla.vHeadDim = 128;
  c.parallel.tp = 2;
  model::ActivationPlan a;
  a.recompute = set({RecomputeModule::CoreAttn});
  const double base = model::mlaActivations(c, a);
  a.recompute |= set({RecomputeModule::LayerNorm});
  EXPECT_DOUBLE_EQ(base - model::mlaActivations(c, a), 2 * sbh);
  a.recompute = set({RecomputeModule::CoreAttn, RecomputeModule::MlaUpProj});
  EXPECT_DOUBLE_EQ(base - model::mlaActivations(c, a), 3 * sbh);
}

TEST(Recompute, StepRunsTheModulesForwardAgain) {
  // The MoE layer above on one H100 with one microbatch and one layer: a
  // module adds its kernels' forward seconds (each as predictKernel prices
  // it) to the step's recompute line and its elementwise bytes, at the
  // memory bandwidth, to the elementwise line.
  model::ModelConfig c = mixtralLayer();
  c.attention.fused = true;
  const target::GpuTarget &h100 = *target::findBuiltinTarget("h100-sxm");
  const Cluster &dgx = *findBuiltinCluster("dgx-h100");
  auto step = [&](RecomputeModules m) {
    TrainingPlan p;
    p.recompute = Recompute::Selective;
    p.recomputeModules = m;
    std::string error;
    std::optional<StepEstimate> e = estimateStep(c, p, h100, dgx, {}, &error);
    EXPECT_TRUE(e) << error;
    return e.value_or(StepEstimate{});
  };
  auto forward = [&](auto pick) {
    double sec = 0;
    for (const model::Kernel &k :
         model::layerKernels(c, model::RunShape::train(), 0))
      if (!k.backward() && pick(k.role()))
        sec += predictKernel(k, model::DType::BF16, h100).predictedUs * 1e-6;
    return sec;
  };
  auto bytes = [&](double b) {
    return b / (h100.memoryBandwidthGBs * 1e9 * h100.memoryEfficiency);
  };
  // The fused attention core reruns its kernel and no elementwise pass.
  const StepEstimate core = step(set({RecomputeModule::CoreAttn}));
  EXPECT_NEAR(core.recompute, forward([](model::Role r) {
                return model::roleInfo(r).core;
              }),
              1e-12);
  // The experts' activation: 4096 tokens x 2 copies x 14336 x 3 (read gate
  // and up, write the product) x 2 bytes = 704,643,072 bytes; no kernel.
  const StepEstimate act = step(set({RecomputeModule::MoeAct}));
  EXPECT_DOUBLE_EQ(act.recompute, 0);
  EXPECT_NEAR(act.elementwise - core.elementwise, bytes(704643072.0), 1e-12);
  // The pre-MLP norm: 4096 x 4096 x 2 (read x, write y) x 2 bytes =
  // 67,108,864.
  const StepEstimate norm = step(set({RecomputeModule::LayerNorm}));
  EXPECT_DOUBLE_EQ(norm.recompute, 0);
  EXPECT_NEAR(norm.elementwise - core.elementwise, bytes(67108864.0), 1e-12);
  // The whole MoE layer: the router's and experts' GEMMs; the experts'
  // activation and the permutation (4096 x 2 copies x 4 x 4096 x 2 bytes =
  // 268,435,456).
  const StepEstimate moe = step(set({RecomputeModule::Moe}));
  const double moeGemms = forward([](model::Role r) {
    return model::roleInfo(r).recomputedBy &
           RecomputeModules(RecomputeModule::Moe);
  });
  EXPECT_GT(moeGemms, 0);
  EXPECT_NEAR(moe.recompute, moeGemms, 1e-12);
  EXPECT_NEAR(moe.elementwise - core.elementwise,
              bytes(704643072.0 + 268435456.0), 1e-12);
  // moe with moe_act runs the activation once, not twice.
  const StepEstimate both =
      step(set({RecomputeModule::Moe, RecomputeModule::MoeAct}));
  EXPECT_NEAR(both.recompute, moe.recompute, 1e-12);
  EXPECT_NEAR(both.elementwise, moe.elementwise, 1e-12);
}

TEST(Recompute, PlanRules) {
  // Megatron Core rejects moe_act without grouped experts and mla_up_proj
  // without MLA (transformer_config.py:1964, 1969); so does tshape.
  model::ModelConfig dense = mixtralLayer();
  dense.layerBlocks = {model::BlockKind::Attention, model::BlockKind::Mlp};
  dense.mlp.inner = 14336;
  dense.moe = {};
  TrainingPlan p;
  p.recompute = Recompute::Selective;
  std::string error;
  p.recomputeModules = set({RecomputeModule::MoeAct});
  EXPECT_FALSE(estimateMemory(dense, p, &error));
  EXPECT_NE(error.find("moe_act needs routed experts"), std::string::npos)
      << error;
  p.recomputeModules = set({RecomputeModule::MlaUpProj});
  EXPECT_FALSE(estimateMemory(dense, p, &error));
  EXPECT_NE(error.find("mla_up_proj needs multi-latent attention"),
            std::string::npos)
      << error;
  p.recomputeModules = 0;
  EXPECT_FALSE(estimateMemory(dense, p, &error));
  EXPECT_NE(error.find("at least one module"), std::string::npos) << error;
  // Under full recompute the modules are not read.
  p.recompute = Recompute::Full;
  EXPECT_TRUE(estimateMemory(dense, p, &error)) << error;
}
