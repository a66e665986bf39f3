//===- MemoryTest.cpp - Unit tests of the memory-per-GPU model ------------===//
//
// Korthikanti et al. 2022, Figure 1 (GiB per GPU of the first pipeline
// stage, transformer layers only) within 1%, and each component of
// docs/memory.md on small cases derived by hand in the comments.
//
//===----------------------------------------------------------------------===//

#include "tshape/Cost/Memory.h"

#include "TestModels.h"

#include <gtest/gtest.h>

using namespace tshape;
using namespace tshape::cost;
using model::ModelConfig;

namespace {
/// A GPT of Korthikanti et al.'s Table 3: t = 8, d = 1.
ModelConfig korthikantiGpt(int64_t heads, int64_t hidden, int64_t layers,
                           int64_t pp, int64_t microbatch) {
  ModelConfig c = testmodels::megatronGpt(heads, hidden, layers, microbatch);
  c.parallel.tp = 8;
  c.parallel.pp = pp;
  return c;
}

TrainingPlan pipelinePlan(int64_t v, int64_t m) {
  TrainingPlan plan;
  plan.virtualStages = v;
  plan.microbatches = m;
  if (v > 1)
    plan.schedule = PipelineSchedule::Interleaved;
  return plan;
}

struct Figure1Row {
  const char *model;
  int64_t heads, hidden, layers, pp, microbatch, v, m;
  double paramsGiB, tpActsGiB, spSelectiveActsGiB;
};

void expectWithin1Percent(double got, double want, const char *what,
                          const char *model) {
  EXPECT_NEAR(got, want, 0.01 * want) << model << ": " << what;
}
} // namespace

// Figure 1 of Korthikanti et al. 2022 (parallel-notes.md), first stage.
//
// Parameters and optimizer state: 18 bytes x 12 h^2 L / (t p) (the paper
// counts the four GEMM weights of a layer, 12 h^2, and no norm gains;
// tshape's blocks add 2h replicated gains per layer, +0.02% at 22B).
//   22B:  12 x 6144^2 x 48 / 8 = 2,717,908,992 -> x 18 = 45.56 GiB
//   175B: 12 x 12288^2 x 96 / 64 = 2,717,908,992 -> 45.56 GiB
//   530B: 12 x 20480^2 x 105 / 280 = 1,887,436,800 -> 31.64 GiB
//   1T:   12 x 25600^2 x 128 / 512 = 1,966,080,000 -> 32.96 GiB
// Activations per layer, tensor parallel only: s b h (10 + 24/t + 5 a s/(h t))
//   22B (b = 4):  s b h = 50,331,648; 10 + 3 + 5 x 64 x 2048/(6144 x 8) =
//                 26.33 -> 1.325e9 B x 48 layers in flight = 59.25 GiB
//   175B: s b h = 25,165,824; 10 + 3 + 10 = 23; in flight: 1F1B holds p
//         microbatches of L/p layers, interleaving x (1 + (p-1)/(p v)):
//         96 x (1 + 7/24) = 124 layers -> 66.84 GiB
//   530B: s b h = 41,943,040; 13 + 8 = 21; 105 x (1 + 34/105) = 139
//         layers -> 114.02 GiB
//   1T:   s b h = 52,428,800; 13 + 8 = 21; 128 layers (v = 1) -> 131.25 GiB
// Sequence parallel + selective recompute: 34 s b h / t per layer
//   22B: 34/8 x 50,331,648 x 48 = 9.56 GiB; 175B: x 25,165,824 x 124 =
//   12.35 GiB; 530B: x 41,943,040 x 139 = 23.08 GiB; 1T: x 52,428,800 x 128
//   = 26.56 GiB.
TEST(Memory, KorthikantiFigure1) {
  const Figure1Row rows[] = {
      {"22B", 64, 6144, 48, 1, 4, 1, 1, 45.56, 59.25, 9.56},
      {"175B", 96, 12288, 96, 8, 1, 3, 64, 45.56, 66.84, 12.35},
      {"530B", 128, 20480, 105, 35, 1, 3, 280, 31.64, 114.02, 23.08},
      {"1T", 160, 25600, 128, 64, 1, 1, 512, 32.96, 131.25, 26.56},
  };
  for (const Figure1Row &r : rows) {
    ModelConfig c =
        korthikantiGpt(r.heads, r.hidden, r.layers, r.pp, r.microbatch);
    TrainingPlan tpOnly = pipelinePlan(r.v, r.m);
    std::string error;
    std::optional<MemoryEstimate> e = estimateMemory(c, tpOnly, &error);
    ASSERT_TRUE(e) << r.model << ": " << error;
    const StageMemory &first = e->stages.front();
    expectWithin1Percent(first.layerState.total() / kGiB, r.paramsGiB,
                         "parameters and optimizer state", r.model);
    expectWithin1Percent(first.activations / kGiB, r.tpActsGiB,
                         "activations, tensor parallel", r.model);

    TrainingPlan spSel = tpOnly;
    spSel.sequenceParallel = true;
    spSel.recompute = Recompute::Selective;
    e = estimateMemory(c, spSel, &error);
    ASSERT_TRUE(e) << r.model << ": " << error;
    expectWithin1Percent(e->stages.front().activations / kGiB,
                         r.spSelectiveActsGiB,
                         "activations, sequence parallel + selective",
                         r.model);
  }
}

namespace {
/// The small model for hand derivations (TestModels.h).
ModelConfig tiny() { return testmodels::smallModel(); }

MemoryEstimate estimate(const ModelConfig &c, const TrainingPlan &plan) {
  std::string error;
  std::optional<MemoryEstimate> e = estimateMemory(c, plan, &error);
  EXPECT_TRUE(e) << error;
  return e.value_or(MemoryEstimate{{StageMemory()}, 0});
}
} // namespace

// One GPU holds every parameter: the blocks' count, at 2 + 4 + 12 bytes.
TEST(Memory, WeightsGradientsOptimizerOneGpu) {
  ModelConfig c = tiny();
  MemoryEstimate e = estimate(c, TrainingPlan());
  ASSERT_EQ(e.stages.size(), 1u);
  const StageMemory &st = e.stages[0];
  EXPECT_EQ(st.layerState.params, 4 * (49152 + 128));
  EXPECT_EQ(st.embeddingState.params, 8192 + 8192 + 64);
  EXPECT_EQ(st.layerState.params + st.embeddingState.params,
            model::countParameters(c)->total);
  EXPECT_DOUBLE_EQ(st.layerState.weights, 2.0 * 4 * 49280);
  EXPECT_DOUBLE_EQ(st.layerState.gradients, 4.0 * 4 * 49280);
  EXPECT_DOUBLE_EQ(st.layerState.optimizer, 12.0 * 4 * 49280);
  EXPECT_DOUBLE_EQ(st.layerState.total(), 18.0 * 4 * 49280);
}

// Tensor parallelism splits the GEMM weights and the embedding table (by
// vocabulary), not the norm gains: per layer 49,152 / 2 + 128 = 24,704;
// embedding 8192 / 2 = 4096; LM head 4096 + 64.
TEST(Memory, TensorParallelSplitsGemmWeightsAndTable) {
  ModelConfig c = tiny();
  c.parallel.tp = 2;
  const StageMemory st = estimate(c, TrainingPlan()).stages[0];
  EXPECT_EQ(st.layerState.params, 4 * 24704);
  EXPECT_EQ(st.embeddingState.params, 4096 + 4160);
}

// The embedding is on the first stage, the LM head on the last; a tied head
// on its own stage keeps a copy of the table. pp = 2: two layers each.
TEST(Memory, EmbeddingOnFirstStageHeadOnLast) {
  ModelConfig c = tiny();
  c.parallel.pp = 2;
  MemoryEstimate e = estimate(c, pipelinePlan(1, 4));
  ASSERT_EQ(e.stages.size(), 2u);
  EXPECT_EQ(e.stages[0].layers, 2);
  EXPECT_EQ(e.stages[0].layerState.params, 2 * 49280);
  EXPECT_EQ(e.stages[0].embeddingState.params, 8192);
  EXPECT_EQ(e.stages[1].embeddingState.params, 8192 + 64);
  EXPECT_EQ(e.stages[0].layerState.params + e.stages[1].layerState.params +
                e.stages[0].embeddingState.params +
                e.stages[1].embeddingState.params,
            model::countParameters(c)->total);
  c.tiedEmbeddings = true;
  e = estimate(c, pipelinePlan(1, 4));
  EXPECT_EQ(e.stages[0].embeddingState.params, 8192);
  EXPECT_EQ(e.stages[1].embeddingState.params, 64 + 8192);
}

// The distributed optimizer divides only the optimizer state by the
// data-parallel group (Megatron-LM: 6 + 12/d bytes per parameter); FSDP
// divides all three (18/d); context-parallel ranks hold the same weights
// and join the group (d x cp).
TEST(Memory, DataParallelSharding) {
  ModelConfig c = tiny();
  c.parallel.dp = 4;
  const double n = 4 * 49280;
  TrainingPlan plan;
  EXPECT_DOUBLE_EQ(estimate(c, plan).stages[0].layerState.total(), 18 * n);
  plan.sharding = StateSharding::DistributedOptimizer;
  ParamState s = estimate(c, plan).stages[0].layerState;
  EXPECT_DOUBLE_EQ(s.weights, 2 * n);
  EXPECT_DOUBLE_EQ(s.gradients, 4 * n);
  EXPECT_DOUBLE_EQ(s.optimizer, 12 * n / 4);
  EXPECT_DOUBLE_EQ(s.total(), (6 + 12.0 / 4) * n);
  plan.sharding = StateSharding::Fsdp;
  EXPECT_DOUBLE_EQ(estimate(c, plan).stages[0].layerState.total(),
                   18 * n / 4);
  c.parallel.cp = 2;
  plan.sharding = StateSharding::DistributedOptimizer;
  EXPECT_DOUBLE_EQ(estimate(c, plan).stages[0].layerState.optimizer,
                   12 * n / 8);
  // fp16 weights and gradients: Megatron-LM's 4 + 16/d.
  plan.bytes = {2, 2, 16};
  c.parallel.cp = 1;
  EXPECT_DOUBLE_EQ(estimate(c, plan).stages[0].layerState.total(),
                   (4 + 16.0 / 4) * n);
}

// Korthikanti et al.'s Table 2 on the small model, s b h = 16 x 2 x 64 =
// 2048, 5 a s^2 b = 5 x 4 x 256 x 2 = 10,240, t = 2:
//   no recompute, no SP: 2048 (10 + 12) + 10,240 / 2 = 50,176
//   no recompute, SP:    34 x 2048 / 2 + 10,240 / 2 = 39,936
//   selective, no SP:    2048 x 22 = 45,056
//   selective, SP:       34 x 2048 / 2 = 34,816
//   full, no SP:         2 x 2048 = 4096;  full, SP: 2048
//   cp = 2 (s = 8): s b h = 1024, 5 a s^2 b = 2560: 1024 x 22 + 1280 = 23,808
//   fused attention keeps no scores: as selective, 45,056
TEST(Memory, LayerActivations) {
  ModelConfig c = tiny();
  c.parallel.tp = 2;
  TrainingPlan plan;
  auto bytes = [&](Recompute r, bool sp) {
    plan.recompute = r;
    plan.sequenceParallel = sp;
    return layerActivationBytes(c, plan);
  };
  EXPECT_DOUBLE_EQ(bytes(Recompute::None, false), 50176);
  EXPECT_DOUBLE_EQ(bytes(Recompute::None, true), 39936);
  EXPECT_DOUBLE_EQ(bytes(Recompute::Selective, false), 45056);
  EXPECT_DOUBLE_EQ(bytes(Recompute::Selective, true), 34816);
  EXPECT_DOUBLE_EQ(bytes(Recompute::Full, false), 4096);
  EXPECT_DOUBLE_EQ(bytes(Recompute::Full, true), 2048);
  c.parallel.cp = 2;
  EXPECT_DOUBLE_EQ(bytes(Recompute::None, false), 23808);
  c.parallel.cp = 1;
  c.attention.fused = true;
  EXPECT_DOUBLE_EQ(bytes(Recompute::None, false), 45056);
}

// In-flight microbatches. 1F1B, p = 4, L = 4 (one layer per stage): stage i
// holds p - i microbatches, at most m. Interleaved, p = 2, v = 2, L = 8
// (two layers per chunk): stage 0 holds 2 (p - 1) + (v - 1) p + 1 = 5 chunks
// = 10 layers = L (1 + (p - 1)/(p v)); stage 1 holds 3 chunks = 6 layers.
TEST(Memory, PipelineInFlight) {
  ModelConfig c = tiny();
  c.parallel.pp = 4;
  MemoryEstimate e = estimate(c, pipelinePlan(1, 8));
  ASSERT_EQ(e.stages.size(), 4u);
  for (int64_t i = 0; i < 4; ++i)
    EXPECT_EQ(e.stages[i].layersInFlight, 4 - i);
  EXPECT_EQ(estimate(c, pipelinePlan(1, 2)).stages[0].layersInFlight, 2);

  c.parallel.pp = 2;
  c.layers = 8;
  e = estimate(c, pipelinePlan(2, 8));
  EXPECT_EQ(e.stages[0].layers, 4);
  EXPECT_EQ(e.stages[0].layersInFlight, 10);
  EXPECT_EQ(e.stages[1].layersInFlight, 6);
  EXPECT_DOUBLE_EQ(e.stages[0].activations,
                   10 * layerActivationBytes(c, pipelinePlan(2, 8)));
  // m = 1: one microbatch of both chunks.
  EXPECT_EQ(estimate(c, pipelinePlan(2, 1)).stages[0].layersInFlight, 4);
}

// Input and output activations (Korthikanti et al. Section 4), small
// model, t = 2, p = 2, m = 4: the first stage keeps the embedding's dropout
// mask of p microbatches, s b h x 2 = 4096 bytes (2048 with SP); the last
// stage the final norm's and LM head's inputs, 4 s b h = 8192 (4096 with
// SP), and fp32 logits of its vocabulary share, 4 s b v / t = 4 x 32 x 64 =
// 8192.
TEST(Memory, EmbeddingAndLossActivations) {
  ModelConfig c = tiny();
  c.parallel.tp = 2;
  c.parallel.pp = 2;
  TrainingPlan plan = pipelinePlan(1, 4);
  MemoryEstimate e = estimate(c, plan);
  EXPECT_DOUBLE_EQ(e.stages[0].inputActivations, 4096);
  EXPECT_DOUBLE_EQ(e.stages[0].lossActivations, 0);
  EXPECT_DOUBLE_EQ(e.stages[1].inputActivations, 0);
  EXPECT_DOUBLE_EQ(e.stages[1].lossActivations, 8192 + 8192);
  plan.sequenceParallel = true;
  e = estimate(c, plan);
  EXPECT_DOUBLE_EQ(e.stages[0].inputActivations, 2048);
  EXPECT_DOUBLE_EQ(e.stages[1].lossActivations, 4096 + 8192);
}

// The lines sum to the total, and the peak is the largest stage: with a
// large vocabulary the last stage's LM head and logits outweigh the first
// stage's extra in-flight microbatch.
TEST(Memory, LinesAndPeakStage) {
  ModelConfig c = tiny();
  c.parallel.pp = 2;
  MemoryEstimate e = estimate(c, pipelinePlan(1, 4));
  EXPECT_EQ(e.peakStage, 0u);
  double sum = 0;
  for (const MemoryLine &l : e.peak().lines())
    sum += l.bytes;
  EXPECT_DOUBLE_EQ(sum, e.peak().total());
  EXPECT_EQ(e.peak().lines().size(), 10u);

  c.vocab = 65536;
  e = estimate(c, pipelinePlan(1, 4));
  EXPECT_EQ(e.peakStage, 1u);
  EXPECT_GT(e.stages[1].total(), e.stages[0].total());
}

TEST(Memory, Errors) {
  ModelConfig c = tiny();
  c.parallel.pp = 3;
  std::string error;
  EXPECT_FALSE(estimateMemory(c, pipelinePlan(1, 4), &error));
  EXPECT_EQ(error, "layers 4 not divisible by pp x v = 3: use a pp x v that "
                   "divides it, or uneven first and last stages");
  c.parallel.pp = 2;
  TrainingPlan plan = pipelinePlan(1, 4);
  plan.schedule = PipelineSchedule::Interleaved;
  EXPECT_FALSE(estimateMemory(c, plan, &error));
  EXPECT_EQ(error, "the interleaved schedule needs pp >= 2 and v >= 2, got "
                   "pp=2 v=1 (v=1 is 1f1b)");
  EXPECT_FALSE(estimateMemory(c, pipelinePlan(1, 0), &error));
  EXPECT_EQ(error, "microbatches must be at least 1, got 0");
  // Each context-parallel rank holds s/cp of every sequence (rankSeq):
  // s = 16 over cp = 3 is refused, s/2 = 8 is what a rank of cp = 2 holds.
  c.parallel.pp = 1;
  c.parallel.cp = 3;
  EXPECT_FALSE(estimateMemory(c, pipelinePlan(1, 4), &error));
  EXPECT_EQ(error, "seq 16 not divisible by cp 3");
  c.parallel.cp = 2;
  EXPECT_EQ(model::rankSeq(c), 8);
  EXPECT_EQ(getParam(model::rankSeqConfig(c), model::Param::Seq), 8);
  c.parallel.cp = 1;
  c.attention.heads = 3;
  EXPECT_FALSE(estimateMemory(c, pipelinePlan(1, 4), &error));
  EXPECT_FALSE(error.empty());
}

// FP8 training keeps the inputs of the linear layers it quantized in FP8
// for their weight gradients (docs/memory.md#fp8-training): of the 34 s b h,
// the QKV and first MLP GEMMs' inputs (2 + 2 of the 10 that t does not
// split) and the second MLP GEMM's (8 of the 24) at 1 byte instead of 2:
// 8 + 20 (in place of 10 + 24). tiny at t = 2: s b h = 2048, 5 a s^2 b / t
// = 5120.
//   none, no SP:  2048 x (8 + 20/2) + 5120 = 41,984
//   none, SP:     2048 x 28 / 2 + 5120 = 33,792
//   selective:    2048 x 18 = 36,864
//   full:         the layer's input, 2 x 2048 = 4096, as in bf16
//   mxfp8 (1 + 1/32 bytes), selective: 2048 x (8.0625 + 20.125/2) = 37,120
TEST(Memory, Fp8SavedLinearInputs) {
  EXPECT_DOUBLE_EQ(savedLinearInputBytes(std::nullopt), 2);
  EXPECT_DOUBLE_EQ(savedLinearInputBytes(Precision::BF16), 2);
  EXPECT_DOUBLE_EQ(savedLinearInputBytes(Precision::FP8), 1);
  EXPECT_DOUBLE_EQ(savedLinearInputBytes(Precision::MXFP8), 1 + 1.0 / 32);
  ModelConfig c = tiny();
  c.parallel.tp = 2;
  TrainingPlan plan;
  plan.precision = Precision::FP8;
  auto bytes = [&](Recompute r, bool sp) {
    plan.recompute = r;
    plan.sequenceParallel = sp;
    return layerActivationBytes(c, plan);
  };
  EXPECT_DOUBLE_EQ(bytes(Recompute::None, false), 41984);
  EXPECT_DOUBLE_EQ(bytes(Recompute::None, true), 33792);
  EXPECT_DOUBLE_EQ(bytes(Recompute::Selective, false), 36864);
  EXPECT_DOUBLE_EQ(bytes(Recompute::Full, false), 4096);
  plan.precision = Precision::MXFP8;
  EXPECT_DOUBLE_EQ(bytes(Recompute::Selective, false), 37120);
  // The stage's activations follow: 4 layers in flight (one stage, one
  // microbatch) x 41,984 at fp8, none recompute, no SP.
  plan.precision = Precision::FP8;
  plan.recompute = Recompute::None;
  plan.sequenceParallel = false;
  EXPECT_DOUBLE_EQ(estimate(c, plan).stages[0].activations, 4 * 41984.0);
}

// The FP8 weight copies by target (docs/targets.md#fp8-layouts): Hopper's
// FP8 GEMMs take only the TN layout, so per-tensor FP8 keeps a row-wise and
// a transposed copy, 2 bytes per parameter: 197,120 x 2 = 394,240 bytes;
// Blackwell sm100 takes either layout and keeps one, 197,120 bytes; MXFP8
// keeps two scaled copies on both, 197,120 x 2 (1 + 1/32) = 406,560.
TEST(Memory, Fp8WeightCopiesByTarget) {
  const target::GpuTarget &h100 = *target::findBuiltinTarget("h100-sxm");
  const target::GpuTarget &b200 = *target::findBuiltinTarget("b200");
  EXPECT_TRUE(h100.fp8TnOnly);
  EXPECT_FALSE(b200.fp8TnOnly);
  EXPECT_DOUBLE_EQ(fp8WeightCopyBytes(Precision::FP8, &h100), 2);
  EXPECT_DOUBLE_EQ(fp8WeightCopyBytes(Precision::FP8, &b200), 1);
  EXPECT_DOUBLE_EQ(fp8WeightCopyBytes(Precision::FP8), 2); // no target
  EXPECT_DOUBLE_EQ(fp8WeightCopyBytes(Precision::MXFP8, &b200),
                   2 * (1 + 1.0 / 32));
  EXPECT_DOUBLE_EQ(fp8WeightCopyBytes(Precision::BF16, &b200), 0);
  ModelConfig c = tiny();
  TrainingPlan plan;
  plan.precision = Precision::FP8;
  std::string error;
  auto copies = [&](const target::GpuTarget &t) {
    std::optional<MemoryEstimate> e = estimateMemory(c, plan, &error, &t);
    EXPECT_TRUE(e) << error;
    return e ? e->stages[0].fp8Weights : -1.0;
  };
  EXPECT_DOUBLE_EQ(copies(h100), 394240);
  EXPECT_DOUBLE_EQ(copies(b200), 197120);
  plan.precision = Precision::MXFP8;
  EXPECT_DOUBLE_EQ(copies(b200), 406560);
  // A target file states the fact (`fp8_tn_only`), else keeps its base's.
  std::string err;
  std::optional<target::GpuTarget> tn = target::parseTargetJson(
      R"({"base": "b200", "name": "b200-tn", "fp8_tn_only": true})", err);
  ASSERT_TRUE(tn) << err;
  std::optional<target::GpuTarget> inherited =
      target::parseTargetJson(R"({"base": "b200", "name": "b200-x"})", err);
  ASSERT_TRUE(inherited) << err;
  EXPECT_TRUE(tn->fp8TnOnly);
  EXPECT_FALSE(inherited->fp8TnOnly);
  plan.precision = Precision::FP8;
  EXPECT_DOUBLE_EQ(copies(*tn), 394240);
  EXPECT_DOUBLE_EQ(copies(*inherited), 197120);
}

// FP8 training (docs/memory.md#fp8-training): the training state keeps its
// 18 bytes per parameter (Transformer Engine keeps bf16 weights), and the
// stage adds the FP8 copies of its decoder layers' weights, a row-wise and
// a column-wise one: 4 layers x 49,280 = 197,120 parameters x 2 bytes =
// 394,240 bytes; mxfp8 x 2 (1 + 1/32) = 406,560; FSDP over d = 2 halves
// them (197,120); the embedding and LM head (16,448) get none.
TEST(Memory, Fp8WeightCopies) {
  ModelConfig c = tiny();
  TrainingPlan plan;
  const StageMemory bf16 = estimate(c, plan).stages[0];
  EXPECT_DOUBLE_EQ(bf16.fp8Weights, 0);
  plan.precision = Precision::FP8;
  const StageMemory fp8 = estimate(c, plan).stages[0];
  EXPECT_DOUBLE_EQ(fp8.fp8Weights, 394240);
  EXPECT_DOUBLE_EQ(fp8.layerState.total(), bf16.layerState.total());
  // The total adds the copies and saves the FP8 linear inputs: 6 s b h per
  // layer at t = 1 (Fp8SavedLinearInputs), 4 x 6 x 2048 = 49,152 bytes:
  // 394,240 - 49,152 = 345,088.
  EXPECT_DOUBLE_EQ(fp8.total() - bf16.total(), 345088);
  plan.precision = Precision::MXFP8;
  EXPECT_DOUBLE_EQ(estimate(c, plan).stages[0].fp8Weights, 406560);
  plan.precision = Precision::BF16;
  EXPECT_DOUBLE_EQ(estimate(c, plan).stages[0].fp8Weights, 0);
  c.parallel.dp = 2;
  plan.precision = Precision::FP8;
  plan.sharding = StateSharding::DistributedOptimizer;
  EXPECT_DOUBLE_EQ(estimate(c, plan).stages[0].fp8Weights, 394240);
  plan.sharding = StateSharding::Fsdp;
  EXPECT_DOUBLE_EQ(estimate(c, plan).stages[0].fp8Weights, 197120);
}
