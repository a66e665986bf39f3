//===- ScanBlockTest.cpp - A recurrent test block in the training models --===//
//
// The test block test_scan (test/lib/TestBlock/TestBlockModel.cpp: one
// chunked scan, a fixed state per sequence, its own saved activations) is
// priced by the step and memory models through its rows alone: the
// difference it makes to a small model's training step, derived by hand.
// (test/Inference/test-block-state.mlir prices it in the serving report.)
//
//===----------------------------------------------------------------------===//

#include "tshape/Advise/ShapeReport.h"
#include "tshape/Advise/ShapeSearch.h"
#include "tshape/Cost/Memory.h"
#include "tshape/Cost/StepTime.h"

#include "TestBlockModel.h"
#include "TestModels.h"

#include <gtest/gtest.h>

using namespace tshape;
using namespace tshape::cost;
using model::ModelConfig;

namespace {
/// h 64, 4 layers, 4 heads, f 256, b 2, s 256; `scan`: a test_scan
/// sub-layer after the MLP.
ModelConfig small(bool scan) {
  ModelConfig c = testmodels::smallModel();
  c.seq = 256;
  c.attention.fused = true;
  if (scan)
    c.layerBlocks.push_back(test::testScanBlock());
  return c;
}

const target::GpuTarget &h100() {
  return *target::findBuiltinTarget("h100-sxm");
}
const Cluster &dgxH100() { return *findBuiltinCluster("dgx-h100"); }

StepEstimate step(const ModelConfig &c) {
  TrainingPlan p;
  std::string error;
  std::optional<StepEstimate> e =
      estimateStep(c, p, h100(), dgxH100(), {}, &error);
  EXPECT_TRUE(e) << error;
  return e.value_or(StepEstimate{});
}
} // namespace

TEST(ScanBlock, KernelByHand) {
  // Training: the scan runs over all s = 256 tokens of each of b = 2
  // sequences, 2 heads, chunks of q = 64 (4 of them), key dim 16, value
  // dim h = 64. Per head and chunk: 2 q^2 (16 + 64) + 4 q 16 x 64 =
  // 655,360 + 262,144 = 917,504 FLOPs; x 2 x 2 x 4 = 14,680,064. Bytes:
  // the tokens' 2 x 2 x 256 x 2 (16 + 64) x 2 = 327,680 and the state's
  // 2 x 2 x 4 x 2 x 16 x 64 x 4 = 131,072: 458,752. Its backward: twice.
  const ModelConfig c = small(true);
  const std::vector<model::Kernel> ks = model::blockKernels(
      test::testScanBlock(), c, model::RunShape::train(), 0);
  ASSERT_EQ(ks.size(), 2u);
  const model::ScanSpec *f = ks[0].scan(), *b = ks[1].scan();
  ASSERT_TRUE(f && b);
  EXPECT_FALSE(ks[0].backward());
  EXPECT_TRUE(ks[1].backward());
  EXPECT_EQ(ks[1].name(), "scan_bwd");
  EXPECT_EQ(f->chunks(), 4);
  EXPECT_EQ(f->flops(), 14680064);
  EXPECT_DOUBLE_EQ(f->bytes(2), 458752.0);
  EXPECT_DOUBLE_EQ(f->stateBytes(), 131072.0);
  EXPECT_EQ(b->flops(), 2 * 14680064);
  EXPECT_DOUBLE_EQ(b->bytes(2), 2 * 458752.0);
  // No weights: the parameter count is the model's without it.
  EXPECT_EQ(model::countParameters(c)->total,
            model::countParameters(small(false))->total);
}

TEST(ScanBlock, StepAndMemoryByHand) {
  const StepEstimate with = step(small(true)), without = step(small(false));
  const target::GpuTarget &t = h100();
  // The roofline each pass is priced by (predictKernel): a launch plus the
  // larger of the FLOPs at bf16 peak x math efficiency and the bytes at
  // bandwidth x memory efficiency.
  auto us = [&](double flops, double bytes) {
    return t.launchOverheadUs +
           std::max(flops / (t.peakTflops[int(model::DType::BF16)] *
                             t.mathEfficiency * 1e6),
                    bytes / (t.memoryBandwidthGBs * 1e3 * t.memoryEfficiency));
  };
  const double layerUs =
      us(14680064.0, 458752.0) + us(2 * 14680064.0, 2 * 458752.0);
  // One microbatch, 4 layers.
  EXPECT_NEAR(with.compute - without.compute, 4 * layerUs * 1e-6, 1e-12);
  // A residual sub-layer more: its norm and residual add, (5 x 2 + 1) x 64
  // bytes a token over b s = 512 tokens = 360,448 bytes forward, three
  // times that in a step (forward, and about twice backward), per layer.
  EXPECT_NEAR(with.elementwise - without.elementwise,
              4 * 3 * 360448.0 /
                  (t.memoryBandwidthGBs * 1e9 * t.memoryEfficiency),
              1e-12);
  // Memory: each of the 4 layers keeps the scan's input, 2 s b h = 65,536
  // bytes, and its state at each chunk's start, b x 2 heads x 4 chunks x
  // 16 x 64 x 4 = 65,536 bytes; one microbatch in flight.
  std::string error;
  auto mem = [&](bool scan) {
    std::optional<MemoryEstimate> m =
        estimateMemory(small(scan), TrainingPlan(), &error);
    EXPECT_TRUE(m) << error;
    return m ? m->peak().activations : 0.0;
  };
  EXPECT_DOUBLE_EQ(mem(true) - mem(false), 4 * (65536.0 + 65536.0));
}

// The analysis record is the kernel: recordsFor keeps every kind. A
// training step of the small model at tp = 2 has 18 tensor-parallel
// all-reduces (forward: the embedding's output and each layer's two
// sub-layers, 1 + 2 x 4; backward: the LM head's input gradient and each
// sub-layer's, 1 + 2 x 4), each of b x s x h x 2 bytes = 2 x 256 x 64 x 2
// = 65,536 over 2 ranks: listed at 0 us (a cluster's to price: the step
// model's and the serving report's), with a communication bound. With
// test_scan at tp = 1, each of the 4 layers adds its scan and the scan's
// backward, priced as predictKernel prices them; the search's predicted
// step grows by exactly 4 x (forward + backward).
TEST(ScanBlock, AnalysisRecordsKeepEveryKind) {
  ModelConfig c = small(false);
  c.parallel.tp = 2;
  advise::ShapeAnalysis a(h100(), 0.1);
  std::vector<advise::KernelRecord> rs =
      advise::recordsFor(c, model::RunShape::train());
  a.analyze(rs);
  int collectives = 0;
  for (const advise::KernelRecord &r : rs) {
    if (!r.kernel || r.kernel->kind() != model::KernelKind::Collective)
      continue;
    ++collectives;
    EXPECT_EQ(r.name, "all_reduce");
    EXPECT_EQ(r.predictedUs, 0);
    EXPECT_TRUE(r.estimate.communication);
    EXPECT_EQ(r.group(), "other");
    ASSERT_EQ(r.causes.size(), 1u);
    EXPECT_EQ(r.causes[0].rfind("all_reduce of 65536 bytes over 2 ranks", 0),
              0u)
        << r.causes[0];
  }
  EXPECT_EQ(collectives, 18);

  const ModelConfig with = small(true);
  rs = advise::recordsFor(with, model::RunShape::train());
  a.analyze(rs);
  const std::vector<model::Kernel> ks = model::blockKernels(
      test::testScanBlock(), with, model::RunShape::train(), 0);
  const double fwd = predictKernel(ks[0], with.dtype, h100()).predictedUs,
               bwd = predictKernel(ks[1], with.dtype, h100()).predictedUs;
  ASSERT_GT(fwd, 0);
  int scans = 0;
  for (const advise::KernelRecord &r : rs)
    if (r.kernel && r.kernel->kind() == model::KernelKind::Scan) {
      ++scans;
      EXPECT_DOUBLE_EQ(r.predictedUs, r.kernel->backward() ? bwd : fwd);
      EXPECT_FALSE(r.flagged);
      EXPECT_DOUBLE_EQ(r.flops(), double(*r.kernel->flops()));
    }
  EXPECT_EQ(scans, 8);
  advise::ShapeSearch search(h100());
  const double grown =
      search.predict(with, model::RunShape::train()).us -
      search.predict(small(false), model::RunShape::train()).us;
  EXPECT_NEAR(grown, 4 * (fwd + bwd), 1e-6 * grown);
}
