//===- HardwareTest.cpp - Unit tests of the hardware modes ----------------===//
//
// The scaled hardware variants (Cost/HardwareScale.h), the hardware
// choices of a command line and their ranking (Advise/HardwareSearch.h),
// and the projection's scaling rules and share arithmetic
// (Advise/Projection.h), each against values derived by hand in the
// comments.
//
//===----------------------------------------------------------------------===//

#include "tshape/Advise/Projection.h"

#include "TestModels.h"

#include <gtest/gtest.h>

using namespace tshape;
using namespace tshape::advise;

namespace {
const target::GpuTarget &h100() {
  return *target::findBuiltinTarget("h100-sxm");
}
const cost::Cluster &dgxH100() { return *cost::findBuiltinCluster("dgx-h100"); }

TEST(HardwareScale, ScalesTheNamedFigures) {
  cost::HardwareFactors f;
  std::string error;
  ASSERT_TRUE(cost::parseHardwareFactors(
      "compute=1.5,hbm-bw=2,hbm=1.5,link=2,network=0.5", f, error))
      << error;
  std::optional<cost::Hardware> hw =
      cost::scaleHardware(h100(), dgxH100(), f, error);
  ASSERT_TRUE(hw) << error;
  // Every dense peak x 1.5 (H100 SXM bf16 989.4 -> 1484.1); HBM 3350 GB/s
  // x 2; 80 GiB x 1.5 = 120 GiB.
  for (int d = 0; d < kNumDTypes; ++d)
    EXPECT_DOUBLE_EQ(hw->target.peakTflops[d], 1.5 * h100().peakTflops[d]);
  EXPECT_DOUBLE_EQ(hw->target.peak(model::DType::BF16), 1.5 * 989.4);
  EXPECT_DOUBLE_EQ(hw->target.memoryBandwidthGBs,
                   2 * h100().memoryBandwidthGBs);
  EXPECT_DOUBLE_EQ(hw->target.memoryGiB, 120);
  // Node tier 450 GB/s x link 2 = 900; network 50 x link 2 x network 0.5
  // = 50.
  EXPECT_DOUBLE_EQ(hw->cluster.node.bandwidthGBs, 900);
  EXPECT_DOUBLE_EQ(hw->cluster.network.bandwidthGBs, 50);
  // What is not a named figure stays: SMs, tiles, fitted constants.
  EXPECT_EQ(hw->target.smCount, h100().smCount);
  EXPECT_EQ(hw->target.mathEfficiency, h100().mathEfficiency);
  EXPECT_EQ(hw->cluster.node.efficiency, dgxH100().node.efficiency);
  EXPECT_EQ(hw->cluster.name,
            "dgx-h100 x compute 1.5, hbm-bw 2, hbm 1.5, link 2, network 0.5");
  EXPECT_EQ(hw->target.name,
            "h100-sxm x compute 1.5, hbm-bw 2, hbm 1.5, link 2, network 0.5");
  EXPECT_EQ(hw->cluster.gpu, hw->target.name);
}

TEST(HardwareScale, IdentityKeepsTheName) {
  std::string error;
  std::optional<cost::Hardware> hw =
      cost::scaleHardware(h100(), dgxH100(), {}, error);
  ASSERT_TRUE(hw);
  EXPECT_EQ(hw->cluster.name, "dgx-h100");
  EXPECT_EQ(hw->target.name, "h100-sxm");
}

TEST(HardwareScale, Errors) {
  cost::HardwareFactors f;
  std::string error;
  EXPECT_FALSE(cost::parseHardwareFactors("flops=2", f, error));
  EXPECT_EQ(error, "unknown hardware factor 'flops' (known: compute, hbm-bw, "
                   "hbm, link, nvlink, network)");
  EXPECT_FALSE(cost::parseHardwareFactors("compute=-1", f, error));
  EXPECT_EQ(error, "hardware factor 'compute' must be above 0, got -1");
  EXPECT_FALSE(cost::parseHardwareFactors("hbm=0", f, error));
  EXPECT_EQ(error, "hardware factor 'hbm' must be above 0, got 0");
  EXPECT_FALSE(cost::parseHardwareFactors("link=fast", f, error));
  EXPECT_EQ(error,
            "hardware factor 'link' needs a number ('link=1.5'), got 'fast'");
  EXPECT_FALSE(cost::parseHardwareFactors("link=2,link=3", f, error));
  EXPECT_EQ(error, "hardware factor 'link' given twice");
  EXPECT_FALSE(cost::parseHardwareFactors("", f, error));
  cost::HardwareFactors bad;
  bad.network = 0;
  EXPECT_FALSE(cost::scaleHardware(h100(), dgxH100(), bad, error));
  EXPECT_EQ(error, "hardware factor 'network' must be above 0, got 0");
}

TEST(HardwareChoices, LabelsPricesAndErrors) {
  std::string error;
  std::optional<std::vector<HardwareChoice>> c = hardwareChoices(
      {"dgx-a100", "dgx-h100"}, {"dgx-h100:compute=2,name=h100x2"},
      {"dgx-a100:1", "dgx-h100:2", "h100x2:3.5"}, error);
  ASSERT_TRUE(c) << error;
  ASSERT_EQ(c->size(), 3u);
  EXPECT_EQ((*c)[2].label, "h100x2");
  EXPECT_EQ((*c)[2].hw.cluster.name, "dgx-h100 x compute 2");
  EXPECT_DOUBLE_EQ(*(*c)[2].pricePerGpuHour, 3.5);

  EXPECT_FALSE(
      hardwareChoices({"dgx-a100", "dgx-h100"}, {}, {"dgx-a100:1"}, error));
  EXPECT_EQ(error, "--price gives no price for 'dgx-h100': price every "
                   "hardware choice or none");
  EXPECT_FALSE(hardwareChoices({"dgx-a100"}, {}, {"dgx-z:1"}, error));
  EXPECT_EQ(error, "--price names 'dgx-z', which is not a hardware choice "
                   "(choices: dgx-a100)");
  EXPECT_FALSE(hardwareChoices({"dgx-a100"}, {}, {"dgx-a100:-2"}, error));
  EXPECT_FALSE(hardwareChoices({"dgx-a100", "dgx-a100"}, {}, {}, error));
  EXPECT_EQ(error, "hardware choice 'dgx-a100' given twice (a scaled variant "
                   "takes name=LABEL)");
  EXPECT_FALSE(hardwareChoices({"dgx-z100"}, {}, {}, error));
  EXPECT_EQ(error.rfind("unknown cluster 'dgx-z100'", 0), 0u) << error;
  EXPECT_FALSE(hardwareChoices({}, {"dgx-h100:teraflops=2"}, {}, error));
  EXPECT_EQ(error.rfind("--scale 'dgx-h100:teraflops=2': unknown hardware "
                        "factor 'teraflops'",
                        0),
            0u)
      << error;
  EXPECT_FALSE(hardwareChoices({}, {"compute=2"}, {}, error));
  EXPECT_FALSE(hardwareChoices({}, {}, {}, error));
  EXPECT_EQ(error, "no hardware to compare: give --clusters or --scale");
}

TEST(HardwareChoices, TokensPerDollar) {
  // 1000 tokens/s per GPU for an hour are 3.6 million tokens; at 2.5 per
  // GPU-hour that is 1.44 million tokens per dollar.
  HardwareOutcome o;
  o.choice.pricePerGpuHour = 2.5;
  PlanCandidate best;
  best.step.tokensPerSPerGpu = 1000;
  o.search.ranked.push_back(best);
  EXPECT_DOUBLE_EQ(o.tokensPerDollar(), 1.44e6);
  o.choice.pricePerGpuHour.reset();
  EXPECT_EQ(o.tokensPerDollar(), 0);
}

TEST(HardwareChoices, NarrowSpaceFixesTheGivenChoices) {
  const model::ModelConfig c = testmodels::smallModel();
  FixedPlanChoices fixed;
  fixed.tp = 2;
  fixed.recompute = cost::Recompute::Full;
  const PlanSpace s = narrowSpace(defaultPlanSpace(c, 8, 16), fixed);
  EXPECT_EQ(s.tp, std::vector<int64_t>{2});
  EXPECT_EQ(s.recompute, std::vector<cost::Recompute>{cost::Recompute::Full});
  // The others stay whole: pp every divisor of 8 GPUs (1, 2, 4, 8).
  EXPECT_EQ(s.pp, (std::vector<int64_t>{1, 2, 4, 8}));
}

TEST(Projection, CommShareByHand) {
  // A 10 s step whose exposed parts are tp 2 s (all of it), p2p 1 s (all
  // of it) and dp 1 s of 4 s; cp none; the bubble 1.5 s.
  // Communication in all: 2 + 1 + 4 = 7 s, exposed 2 + 1 + 1 = 4 s.
  // With nothing overlapped the step would take 10 - 4 + 7 = 13 s, so the
  // total share is 7 / 13; the exposed share 4 / 10; the bubble's 1.5 / 10.
  cost::StepEstimate s;
  s.stepTime = 10;
  s.tp = {2, 2};
  s.p2p = {1, 1};
  s.dp = {4, 1};
  s.bubble = 1.5;
  const CommShare c = commShare(s);
  EXPECT_DOUBLE_EQ(c.total, 7);
  EXPECT_DOUBLE_EQ(c.exposed, 4);
  EXPECT_DOUBLE_EQ(c.totalShare, 7.0 / 13.0);
  EXPECT_DOUBLE_EQ(c.exposedShare, 0.4);
  EXPECT_DOUBLE_EQ(c.bubbleShare, 0.15);
  EXPECT_DOUBLE_EQ(c.tpShare, 0.2);
  EXPECT_DOUBLE_EQ(c.cpShare, 0);
  EXPECT_DOUBLE_EQ(c.p2pShare, 0.1);
  EXPECT_DOUBLE_EQ(c.dpShare, 0.1);
  EXPECT_DOUBLE_EQ(c.tpShare + c.cpShare + c.p2pShare + c.dpShare,
                   c.exposedShare);
  // All hidden: 3 s of dp behind an 8 s step is 3 / 11 in all, 0 exposed.
  cost::StepEstimate h;
  h.stepTime = 8;
  h.dp = {3, 0};
  EXPECT_DOUBLE_EQ(commShare(h).totalShare, 3.0 / 11.0);
  EXPECT_EQ(commShare(h).exposedShare, 0);
}

TEST(Projection, ScalingRules) {
  std::string error;
  std::optional<std::vector<ModelPoint>> m =
      scalingPoints(ScalingRule::Megatron2021, {}, error);
  ASSERT_TRUE(m);
  ASSERT_EQ(m->size(), 10u);
  EXPECT_EQ(m->front().name, "1.7B");
  EXPECT_EQ(m->back().hidden, 25600);
  EXPECT_EQ(m->back().layers, 128);
  EXPECT_EQ(m->back().heads, 160);
  EXPECT_EQ(m->back().gpus, 3072);
  m = scalingPoints(ScalingRule::Megatron2021, {"145.6B"}, error);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->front().globalBatch, 2304);
  EXPECT_FALSE(scalingPoints(ScalingRule::Megatron2021, {"2B"}, error));
  // Aspect 128: L = 96 gives GPT-3 175B's h = 12288 and 96 heads.
  m = scalingPoints(ScalingRule::Aspect128, {"96"}, error);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->front().hidden, 12288);
  EXPECT_EQ(m->front().heads, 96);
  EXPECT_EQ(m->front().gpus, 0);
  EXPECT_FALSE(scalingPoints(ScalingRule::Aspect128, {}, error));
  EXPECT_FALSE(scalingPoints(ScalingRule::Aspect128, {"0"}, error));
  EXPECT_FALSE(scalingPoints(ScalingRule::Aspect128, {"x"}, error));
}

TEST(Projection, AtScaleKeepsTheFamilysRatios) {
  // A GQA family: h 64, 4 heads, 2 kv heads, f 256 (4h). At h 192, 6
  // heads: kv heads 6 x 2/4 = 3, f 4 x 192 = 768.
  model::ModelConfig family = testmodels::smallModel();
  family.attention.kvHeads = 2;
  model::ModelConfig c = atScale(family, {"x", 192, 8, 6, 0, 0});
  EXPECT_EQ(c.hidden, 192);
  EXPECT_EQ(c.layers, 8);
  EXPECT_EQ(c.attention.heads, 6);
  EXPECT_EQ(c.attention.kvHeads, 3);
  EXPECT_EQ(c.mlp.inner, 768);
  // A ratio that is not whole: f 171 at h 64 (2.67 h) gives 171 x 100 /
  // 64 = 267.2 at h 100, rounded to a multiple of 64: 256.
  family.mlp.inner = 171;
  EXPECT_EQ(atScale(family, {"y", 100, 4, 4, 0, 0}).mlp.inner, 256);
}
} // namespace
