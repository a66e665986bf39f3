//===- GemmModelTest.cpp - Unit tests of the GEMM cost model --------------===//
//
// Each formula of docs/cost-model.md against values derived by hand in the
// comments. H100 SXM constants: bf16 peak 989.4 TFLOP/s x math efficiency
// 0.8 = 791.52 TFLOP/s; 3350 GB/s x memory efficiency 0.85 = 2847.5 GB/s;
// 132 SMs; launch overhead 2 us; K step 128 bytes = 64 bf16 elements.
//
//===----------------------------------------------------------------------===//

#include "tshape/Advise/ShapeReport.h"
#include "tshape/Cost/GemmModel.h"
#include "tshape/Cost/PredictKernel.h"
#include "tshape/Model/Blocks/Block.h"
#include "tshape/Model/Transformer.h"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <tuple>

using namespace tshape;
using namespace tshape::cost;
using namespace tshape::advise;
using tshape::target::GpuTarget;
using tshape::target::TileConfig;

namespace {
/// The H100 with the model constants as they were before calibration:
/// the hand derivations below use 0.8 of peak, 0.85 of bandwidth, 2 us of
/// launch, whole waves and a perfect compute/memory overlap.
const target::GpuTarget &h100() {
  static const target::GpuTarget t =
      target::uncalibrated(*target::findBuiltinTarget("h100-sxm"));
  return t;
}
GemmProblem gemm(int64_t m, int64_t n, int64_t k, int64_t batch = 1) {
  GemmProblem p;
  p.batch = batch;
  p.m = m;
  p.n = n;
  p.k = k;
  return p;
}
const TileConfig kBig{256, 128, 1.0, 1};
} // namespace

TEST(Targets, BuiltinsAndNames) {
  for (const char *n : {"v100", "a100-40gb", "a100-80gb", "h100-sxm",
                        "h100-pcie", "h200", "b200", "gb200", "l40s", "rtx4090"})
    ASSERT_NE(target::findBuiltinTarget(n), nullptr) << n;
  EXPECT_EQ(target::findBuiltinTarget("tpu"), nullptr);
  EXPECT_EQ(h100().smCount, 132);
  EXPECT_EQ(target::findBuiltinTarget("b200")->smCount, 148);
  // No FP8 GEMM path on A100 or V100.
  EXPECT_EQ(target::findBuiltinTarget("a100-80gb")->peak(model::DType::FP8), 0);
  EXPECT_EQ(target::findBuiltinTarget("v100")->bestAlignBytes, 16);
}

TEST(Targets, ConstantsAndTheirSource) {
  // The measured GPUs carry their own fit; the others a measured family's
  // (docs/targets.md). Efficiencies carry over as fractions of each GPU's
  // own peaks.
  const GpuTarget &sxm = *target::findBuiltinTarget("h100-sxm");
  const GpuTarget &h200 = *target::findBuiltinTarget("h200");
  const GpuTarget &l40s = *target::findBuiltinTarget("l40s");
  const GpuTarget &a100 = *target::findBuiltinTarget("a100-80gb");
  const GpuTarget &b200 = *target::findBuiltinTarget("b200");
  EXPECT_EQ(sxm.constantsSource.rfind("fitted on H100 SXM", 0), 0u);
  EXPECT_EQ(h200.constantsSource.rfind("derived: the H100 SXM fit", 0), 0u);
  EXPECT_EQ(l40s.constantsSource.rfind("derived: the A100 80GB fit", 0), 0u);
  for (const target::ModelConstant &c : target::modelConstants()) {
    EXPECT_EQ(h200.*c.field, sxm.*c.field) << c.key;
    EXPECT_EQ(l40s.*c.field, a100.*c.field) << c.key;
    // B200: its own GEMM and FP8 fits, the H100's attention and decode
    // constants.
    if (c.group != target::FitGroup::Gemm &&
        c.group != target::FitGroup::Fp8Gemm &&
        c.group != target::FitGroup::BlockFp8Gemm) {
      EXPECT_EQ(b200.*c.field, sxm.*c.field) << c.key;
    }
  }
  // Every fitted constant differs from its guess somewhere (none is left
  // at the default by a missing key).
  const GpuTarget guess = target::uncalibrated(sxm);
  EXPECT_EQ(guess.constantsSource, "uncalibrated guesses");
  // FlashAttention 2's decode merge and copies have no effect on Hopper
  // (FlashAttention 3): the A100 fit moves them.
  const GpuTarget ampereGuess = target::uncalibrated(a100);
  for (const target::ModelConstant &c : target::modelConstants()) {
    bool fa2Only = std::string(c.key) == "decode_split_combine_us" ||
                   std::string(c.key) == "decode_out_copy_us" ||
                   std::string(c.key) == "decode_query_copy_us";
    if (fa2Only)
      EXPECT_NE(a100.*c.field, ampereGuess.*c.field) << c.key;
    else if (std::string(c.key) == "attention_cache_write_cost")
      // vLLM 0.19's fit hides the cache write (0, the guess); vLLM 0.24's
      // prices it.
      EXPECT_NE(target::findBuiltinTarget("h100-sxm-vllm0.24")->*c.field,
                guess.*c.field)
          << c.key;
    else if (std::string(c.key) == "fp8_output_bytes")
      // The H100 fit sits at the range's lower edge, 2 (the guess: a bf16
      // output written once); B200's layers move more.
      EXPECT_NE(target::findBuiltinTarget("b200")->*c.field, guess.*c.field)
          << c.key;
    else
      EXPECT_NE(sxm.*c.field, guess.*c.field) << c.key;
  }

  // A file names what it sets, and where the rest comes from.
  std::string err;
  auto one = target::parseTargetJson(
      R"({"base": "h100-sxm", "launch_overhead_us": 3})", err);
  ASSERT_TRUE(one) << err;
  EXPECT_EQ(one->constantsSource,
            "target file (1 constant; the rest " + sxm.constantsSource + ")");
  auto none = target::parseTargetJson(R"({"base": "h200"})", err);
  ASSERT_TRUE(none) << err;
  EXPECT_EQ(none->constantsSource, h200.constantsSource);
}

TEST(Targets, JsonFile) {
  std::string err;
  auto t = target::parseTargetJson(
      R"({"base": "h100-sxm", "name": "h100-capped", "sm_count": 114,
          "peak_tflops": {"bf16": 700}})",
      err);
  ASSERT_TRUE(t) << err;
  EXPECT_EQ(t->smCount, 114);
  EXPECT_DOUBLE_EQ(t->peak(model::DType::BF16), 700);
  EXPECT_DOUBLE_EQ(t->peak(model::DType::FP8), 1978.9); // kept from base
  EXPECT_FALSE(target::parseTargetJson(R"({"name": "x"})", err));
  EXPECT_EQ(err, "missing required key 'sm_count'");
  EXPECT_FALSE(target::parseTargetJson(
      R"({"base": "h100-sxm", "math_efficiency": 1.5})", err));
  EXPECT_EQ(err, "key 'math_efficiency': must be in (0, 1], got 1.5");
  EXPECT_FALSE(target::parseTargetJson(
      R"({"base": "h100-sxm", "min_align_bytes": 12})", err));
  EXPECT_EQ(err, "key 'min_align_bytes': must be a power of two, got 12");
  EXPECT_FALSE(target::parseTargetJson("{ bad", err));
  EXPECT_NE(err.find("malformed JSON"), std::string::npos);
}

TEST(GemmModel, Alignment) {
  // 50257 bf16 = 100514 bytes: only 2-byte aligned; 50304 = 64 x 786
  // elements = 128 x 786 bytes meets the 128-byte best multiple.
  DimAlignment v = alignmentOf(50257, model::DType::BF16, h100());
  EXPECT_FALSE(v.meetsMin);
  EXPECT_EQ(v.vectorBytes, 2);
  DimAlignment p = alignmentOf(50304, model::DType::BF16, h100());
  EXPECT_TRUE(p.meetsMin);
  EXPECT_TRUE(p.meetsBest);
  // 10922 bf16 = 21844 bytes = 4 x 5461: 4-byte loads, factor 0.68.
  EXPECT_EQ(alignmentOf(10922, model::DType::BF16, h100()).vectorBytes, 4);
  EXPECT_DOUBLE_EQ(alignmentFactor(4), 0.68);
  // 80 bf16 = 160 bytes: 16-byte aligned (min) but not 128 (best).
  DimAlignment d = alignmentOf(80, model::DType::BF16, h100());
  EXPECT_TRUE(d.meetsMin);
  EXPECT_FALSE(d.meetsBest);
  // fp8 needs 16 elements for 16 bytes: 24 fp8 elements are 8-byte aligned.
  EXPECT_EQ(alignmentOf(24, model::DType::FP8, h100()).vectorBytes, 8);
}

TEST(GemmModel, TileQuantization) {
  // M = 300 on 256-row tiles: 2 tiles (512 rows) for 300 useful; N = 256 on
  // 128-column tiles: exact. Efficiency 300*256 / (512*256) = 0.5859375.
  GemmEstimate e = estimateWithTile(gemm(300, 256, 4096), h100(), kBig);
  EXPECT_EQ(e.tilesM, 2);
  EXPECT_EQ(e.tilesN, 2);
  EXPECT_DOUBLE_EQ(e.tileEfficiency, 300.0 * 256 / (512.0 * 256));
  // N = 80 (head_dim) on 128-column tiles: 80/128 = 0.625.
  EXPECT_DOUBLE_EQ(
      estimateWithTile(gemm(2048, 80, 2048), h100(), kBig).tileEfficiency,
      0.625);
}

TEST(GemmModel, KStepQuantization) {
  // K = 80 bf16 runs two 64-element steps: 80/128 = 0.625; K = 64: 1.
  EXPECT_DOUBLE_EQ(
      estimateWithTile(gemm(2048, 2048, 80), h100(), kBig).kEfficiency, 0.625);
  EXPECT_DOUBLE_EQ(
      estimateWithTile(gemm(2048, 2048, 64), h100(), kBig).kEfficiency, 1.0);
}

TEST(GemmModel, WaveSawtooth) {
  // M = 1024, K = 4096 (compute-bound: 2 x 1024 x 4224 x 4096 = 35.4 GFLOP
  // take 44.7 us ideal, the 51.6 MB take 18.1 us). 256x128 tiles, one per
  // SM: 132 slots. N = 4224 gives 4 x 33 = 132 tiles, one full wave; one
  // more tile column (N = 4352, 136 tiles) needs a second wave that is
  // 4/132 full: 136/264 = 0.51515; N = 8448 (264 tiles) fills both waves.
  auto waveEff = [](int64_t n) {
    return estimateWithTile(gemm(1024, n, 4096), h100(), kBig).waveEfficiency;
  };
  EXPECT_DOUBLE_EQ(waveEff(4224), 1.0);
  EXPECT_DOUBLE_EQ(waveEff(4352), 136.0 / 264.0);
  EXPECT_DOUBLE_EQ(waveEff(8448), 1.0);
  EXPECT_EQ(estimateWithTile(gemm(1024, 4352, 4096), h100(), kBig).waves, 2);
  // The predicted time doubles at the boundary (less the 2 us launch), then
  // stays flat until the second wave is full: the TFLOP/s sawtooth.
  auto us = [](int64_t n) {
    return estimateWithTile(gemm(1024, n, 4096), h100(), kBig).predictedUs;
  };
  EXPECT_NEAR(us(4352) - 2, 2 * (us(4224) - 2), 1e-6);
  EXPECT_NEAR(us(4352), us(8448), 1e-6);
  EXPECT_FALSE(estimateWithTile(gemm(1024, 4224, 4096), h100(), kBig)
                   .memoryBound);
}

TEST(GemmModel, ComputeBoundTime) {
  // 8192^3 on 256x128 tiles: 32 x 64 = 2048 tiles in ceil(2048/132) = 16
  // waves of 132: wave efficiency 2048/2112. Ideal compute 2 x 8192^3 /
  // 791.52e12 = 1389.114 us; / (2048/2112) = 1432.524 us; + 2 us launch.
  GemmEstimate e = estimateWithTile(gemm(8192, 8192, 8192), h100(), kBig);
  EXPECT_FALSE(e.memoryBound);
  EXPECT_EQ(e.waves, 16);
  EXPECT_NEAR(e.predictedUs, 1434.524, 1e-3);
  EXPECT_NEAR(e.lostWaveUs, 1432.524 - 1389.114, 1e-3);
  EXPECT_NEAR(e.tflops, 2.0 * 8192 * 8192 * 8192 / 1434.524e-6 / 1e12, 1e-3);
  // The best tile over the menu is this one (smaller tiles pay their
  // efficiency factor without fixing any quantization here).
  EXPECT_EQ(estimateGemm(gemm(8192, 8192, 8192), h100()).tile.m, 256);
}

TEST(GemmModel, MemoryBoundGemv) {
  // Decode-sized M = 1: flops 2 x 4096 x 4096 = 33,554,432; operand bytes
  // 2 x (4096 + 4096^2 + 4096) = 33,570,816; intensity ~1 FLOP/byte, far
  // below the ridge (791.52e12 / 2847.5e9 = 278): memory-bound. 32 skinny
  // tiles cannot fill 1056 slots, so K is split in S slices whose fp32
  // partial sums (2 x 4 x S x 4096 bytes) add to the traffic.
  GemmEstimate e = estimateGemm(gemm(1, 4096, 4096), h100());
  EXPECT_TRUE(e.memoryBound);
  EXPECT_GT(e.splitK, 1);
  EXPECT_NEAR(e.intensity, 33554432.0 / 33570816.0, 1e-12);
  double bytes = 33570816.0 + 2.0 * 4 * e.splitK * 4096;
  EXPECT_DOUBLE_EQ(e.bytes, bytes);
  EXPECT_NEAR(e.memoryUs, bytes / 2847.5e9 * 1e6, 1e-9);
  // ~11.8 us + 2 us launch.
  EXPECT_NEAR(e.predictedUs, 13.8, 0.05);
  // Shape losses hide under the memory floor.
  EXPECT_DOUBLE_EQ(e.lostTileUs + e.lostKUs + e.lostWaveUs + e.lostAlignUs,
                   0.0);
}

TEST(GemmModel, UnsupportedDtype) {
  GemmProblem p = gemm(1024, 1024, 1024);
  p.dtype = model::DType::FP8;
  EXPECT_FALSE(estimateGemm(p, *target::findBuiltinTarget("a100-80gb"))
                   .supported);
  EXPECT_TRUE(estimateGemm(p, h100()).supported);
}

namespace {
/// `heads` independent heads of `seq` x `headDim` (one head per sequence).
FusedAttentionEstimate attentionOf(int64_t heads, int64_t seq, int64_t d,
                                   bool causal, const target::GpuTarget &t) {
  AttentionProblem p;
  p.batch = heads;
  p.seq = seq;
  p.headDim = d;
  p.causal = causal;
  return estimateAttention(p, t);
}
} // namespace

TEST(GemmModel, FusedAttentionHeadDim) {
  // Hopper FlashAttention kernels cover 64, 128, 256: d = 80 runs as 128
  // (efficiency 0.625). b*a = 128 heads, s = 2048, causal, blocks of 128:
  // 16 query blocks see 1..16 key blocks, 16 x 17 / 2 = 136 blocks of
  // 4 x 128^2 x 128 = 8,388,608 FLOP each: 128 x 136 x 8,388,608 =
  // 146,028,888,064 FLOP / 791.52e12 = 184.4917 us. The longest CTA (16
  // blocks on one SM) takes 22.4 us and the bytes (Q, O, K and V once:
  // 2 x 128 x 2048 x 80 x 4 = 167.8 MB) 58.9 us, both less. The K/V tiles, 128 kv heads x 136
  // blocks x 128 keys x 2 x 80 x 2 B, one HBM read per 8 loads:
  // 89,128,960 B at 2847.5e9 B/s = 31.30 us, 2-normed with the compute:
  // 187.1281 us; + 2 us = 189.1281 us.
  FusedAttentionEstimate f = attentionOf(128, 2048, 80, /*causal=*/true, h100());
  EXPECT_TRUE(f.supported);
  EXPECT_EQ(f.paddedHeadDim, 128);
  EXPECT_DOUBLE_EQ(f.headDimEfficiency, 0.625);
  EXPECT_NEAR(f.predictedUs, 189.1281, 1e-3);
  // Useful work: 4 x 128 x (2048 x 2049 / 2) x 80 FLOP, of the issued
  // 146,028,888,064 x 0.625: 0.9412.
  EXPECT_NEAR(f.blockEfficiency,
              4.0 * 128 * (2048.0 * 2049 / 2) * 80 / (146028888064.0 * 0.625),
              1e-12);
  // Ampere's kernels step by 32: d = 80 runs as 96.
  EXPECT_EQ(attentionOf(128, 2048, 80, true,
                        *target::findBuiltinTarget("a100-80gb"))
                .paddedHeadDim,
            96);
  // No kernel above 256.
  EXPECT_FALSE(attentionOf(8, 512, 320, false, h100()).supported);
}

TEST(PredictKernel, AttentionKernelKeepsItsKeyValueHeads) {
  // Llama-2-70B-like attention at tp = 8: 64 heads, 8 kv heads, d = 128,
  // b = 1, s = 4096: the kernel has 8 query and 1 key/value head per rank.
  // Its bytes (Q and O per query head, K and V read once per kv head) are
  // 2 x 1 x 4096 x 128 x (2 x 8 + 2 x 1) = 18,874,368; as 8 independent
  // MHA heads (what a rebuild from the scores GEMM would price) they would
  // be 2 x 8 x 4096 x 128 x 4 = 33,554,432.
  model::ModelConfig c;
  c.microbatch = 1;
  c.seq = 4096;
  c.hidden = 8192;
  c.attention = {64, 8, 0, /*causal=*/true, /*fused=*/true};
  c.parallel.tp = 8;
  model::AttentionSpec a =
      model::attentionKernel(c, model::RunShape::train(), 0);
  EXPECT_EQ(a.heads.value, 8);
  EXPECT_EQ(a.kvHeads.value, 1);
  EXPECT_EQ(a.kvHeads.expr.str(), "max(1,floordiv(kv_heads,tp))");
  KernelEstimate k = predictKernel(a, model::DType::BF16, h100());
  ASSERT_TRUE(k.supported);
  const double bw =
      h100().memoryBandwidthGBs * 1e9 * h100().attentionMemoryEfficiency;
  EXPECT_NEAR(k.attention.memoryUs, 18874368.0 / bw * 1e6, 1e-9);
  // One price for every kind: a GEMM is the GEMM model's; a collective
  // without a cluster says so (CollectiveTest.cpp prices them).
  model::GemmSpec g = a.gemms()[0];
  EXPECT_DOUBLE_EQ(predictKernel(g, model::DType::BF16, h100()).predictedUs,
                   estimateGemm(gemmProblem(g, model::DType::BF16), h100())
                       .predictedUs);
  model::CollectiveSpec coll;
  KernelEstimate none = predictKernel(coll, model::DType::BF16, h100());
  EXPECT_FALSE(none.supported);
  EXPECT_EQ(none.unsupported, "no cluster given for collective all_reduce "
                              "(a collective needs a cluster: --cluster)");
  // A decode step (one query over the cache) is the decode model's
  // (DecodeAttentionTest.cpp); more queries over a longer cache (a chunked
  // prefill) and a value head dim unlike the query's (latent attention:
  // 192 / 128) are the fused model's (CachedAttentionTest.cpp).
  KernelEstimate decode = predictKernel(
      model::attentionKernel(c, model::RunShape::decode(4096), 0),
      model::DType::BF16, h100());
  EXPECT_TRUE(decode.supported);
  EXPECT_TRUE(decode.decodeStep);
  KernelEstimate chunk = predictKernel(
      model::attentionKernel(c, model::RunShape::prefill(8192), 0),
      model::DType::BF16, h100());
  EXPECT_TRUE(chunk.supported);
  EXPECT_FALSE(chunk.decodeStep);
  model::AttentionSpec mla = a;
  mla.headDim.value = 192;
  EXPECT_TRUE(predictKernel(mla, model::DType::BF16, h100()).supported);
}

TEST(GemmModel, MaskedPairs) {
  // 5 queries, causal: 1+2+3+4+5 = 15 pairs; window 2: 1+2+2+2+2 = 9;
  // not causal: 25; not causal with window 2: 5 x 2 = 10.
  EXPECT_DOUBLE_EQ(maskedPairs(5, 0, true), 15);
  EXPECT_DOUBLE_EQ(maskedPairs(5, 2, true), 9);
  EXPECT_DOUBLE_EQ(maskedPairs(5, 0, false), 25);
  EXPECT_DOUBLE_EQ(maskedPairs(5, 2, false), 10);
  // A window longer than the sequence is no window.
  EXPECT_DOUBLE_EQ(maskedPairs(5, 9, true), 15);
  // Closed form: no loop, even at 2^31 - 1 queries.
  EXPECT_GT(maskedPairs((int64_t(1) << 31) - 1, 4096, true), 0);
}

TEST(GemmModel, NarrowLoadsSlowMemoryBoundGemms) {
  // Decode-sized logits: M = 1, N = 50257 (2-byte aligned rows), K = 2560.
  // Memory-bound either way; 2-byte loads run at factor 0.6 of the
  // bandwidth, so the memory time is the aligned floor / 0.6, and that
  // excess is charged to alignment.
  GemmEstimate bad = estimateGemm(gemm(1, 50257, 2560), h100());
  EXPECT_TRUE(bad.memoryBound);
  double floorUs = bad.bytes / 2847.5e9 * 1e6;
  EXPECT_NEAR(bad.memoryUs, floorUs / 0.6, 1e-6);
  EXPECT_NEAR(bad.lostAlignUs, floorUs / 0.6 - floorUs, 1e-6);
  GemmEstimate good = estimateGemm(gemm(1, 50304, 2560), h100());
  EXPECT_DOUBLE_EQ(good.alignFactor, 1.0);
  EXPECT_LT(good.predictedUs, bad.predictedUs);
}

//===----------------------------------------------------------------------===//
// Tracing to hyperparameters and findings (ShapeReport.h)
//===----------------------------------------------------------------------===//


TEST(ShapeReport, VocabFindingFromTheModel) {
  // One logits GEMM (8192 x 2560).(2560 x 50257), weights stored [N, K].
  // N rows are 2-byte aligned: flagged; the search over multiples of 64 in
  // [50257, 51765] finds 50304 (the smallest within 1% of the best).
  // The model's logits GEMM carries N = vocab/tp with vocab = 50257.
  ShapeAnalysis a(h100(), 0.1);
  model::ModelConfig c;
  c.microbatch = 4;
  c.seq = 2048;
  c.hidden = 2560;
  c.vocab = 50257;
  c.attention.heads = c.attention.kvHeads = 32;
  c.mlp.inner = 10240;
  KernelRecord r = KernelRecord::bare(
      model::gemmsOf(model::lmHeadKernels(c, model::RunShape::prefill(), -1))[0]);
  r.name = r.spec()->name();
  r.problem = gemm(8192, 50257, 2560);
  r.problem.transB = true;
  std::vector<KernelRecord> records = {r};
  a.analyze(records);
  EXPECT_TRUE(records[0].flagged);
  EXPECT_TRUE(sizedBy(records[0], Param::Vocab));
  EXPECT_EQ(records[0].spec()->env.get(Param::Vocab), 50257);
  std::vector<Finding> f = a.findings(records);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].parameter, Param::Vocab);
  EXPECT_EQ(f[0].suggested, 50304);
  EXPECT_GT(f[0].estimatedSpeedup, 1.5);
  // Aligned already: nothing to find.
  c.vocab = 50304;
  records[0].kernel =
      model::gemmsOf(model::lmHeadKernels(c, model::RunShape::prefill(), -1))[0];
  records[0].problem.n = 50304;
  a.analyze(records);
  EXPECT_FALSE(records[0].flagged);
  EXPECT_TRUE(a.findings(records).empty());
}

TEST(GemmModel, FittedEffects) {
  // 8192^3 on 256x128 tiles: 2048 tiles on 132 slots, 15.515 waves of work
  // run as 16 (ComputeBoundTime). Ideal compute 1389.114 us.
  const double ideal = 2.0 * 8192 * 8192 * 8192 / 791.52e12 * 1e6;
  target::GpuTarget t = h100();
  // Full wave smoothing (stream-K): the fractional 15.515 waves, no loss.
  t.waveSmoothing = 1;
  GemmEstimate e = estimateWithTile(gemm(8192, 8192, 8192), t, kBig);
  EXPECT_NEAR(e.waveEfficiency, 1.0, 1e-12);
  EXPECT_NEAR(e.predictedUs, ideal + 2, 1e-6);
  // Half smoothing: 0.5 x 16 + 0.5 x 15.515 waves.
  t.waveSmoothing = 0.5;
  e = estimateWithTile(gemm(8192, 8192, 8192), t, kBig);
  double frac = 2048.0 / 132;
  EXPECT_NEAR(e.waveEfficiency, frac / (0.5 * 16 + 0.5 * frac), 1e-12);
  // A serial epilogue adds the output's write, 2 x 8192^2 bytes at
  // 3350e9 x 0.85 = 2847.5e9 B/s = 47.135 us, to the compute time.
  t = h100();
  t.epilogueSerialFraction = 1;
  e = estimateWithTile(gemm(8192, 8192, 8192), t, kBig);
  EXPECT_NEAR(e.computeUs,
              ideal * 2112 / 2048 + 2.0 * 8192 * 8192 / 2847.5e9 * 1e6, 1e-6);
  // Overlap exponent 1 adds compute and memory; 2 takes their 2-norm.
  t = h100();
  t.overlapExponent = 1;
  e = estimateWithTile(gemm(2048, 2048, 512), t, kBig);
  EXPECT_NEAR(e.predictedUs, e.computeUs + e.memoryUs + 2, 1e-9);
  t.overlapExponent = 2;
  e = estimateWithTile(gemm(2048, 2048, 512), t, kBig);
  EXPECT_NEAR(e.predictedUs,
              std::sqrt(e.computeUs * e.computeUs + e.memoryUs * e.memoryUs) +
                  2,
              1e-9);
  // Split-K slices of at least 4096 elements: K = 4096 is never split
  // (MemoryBoundGemv splits it without the rule).
  t = h100();
  t.splitKMinK = 4096;
  EXPECT_EQ(estimateGemm(gemm(1, 4096, 4096), t).splitK, 1);
}

namespace {
/// One sequence of 2048 tokens, 32 query heads over 8 kv heads of 128.
AttentionProblem attention2048() {
  AttentionProblem p;
  p.batch = 1;
  p.seq = 2048;
  p.heads = 32;
  p.kvHeads = 8;
  p.headDim = 128;
  return p;
}
} // namespace

TEST(GemmModel, AttentionWindowAndGqa) {
  // s = 2048 in 16 blocks of 128, causal: 136 blocks. A window of 128 keys
  // spans at most 2 key blocks per query block: 1 + 2 x 15 = 31 blocks, so
  // the compute is 31/136 of the full causal one.
  AttentionProblem p = attention2048();
  FusedAttentionEstimate full = estimateAttention(p, h100());
  p.window = 128;
  FusedAttentionEstimate win = estimateAttention(p, h100());
  EXPECT_NEAR(win.computeUs / full.computeUs, 31.0 / 136, 1e-12);
  // (Packed, 32 tokens x 4 heads per block: 124 of 544 pairs, the same
  // 31/136.) Bytes: Q and O for 32 heads, K and V read once for 8:
  // 2 x 2048 x 128 x (2 x 32 + 2 x 8) = 41,943,040 B at 3350e9 x 0.85 =
  // 2847.5e9 B/s (attention_memory_efficiency's guess).
  EXPECT_NEAR(full.memoryUs, 41943040.0 / 2847.5e9 * 1e6, 1e-9);
  // Fewer KV heads move fewer bytes and do the same work.
  p.window = 0;
  p.kvHeads = 1;
  FusedAttentionEstimate mqa = estimateAttention(p, h100());
  EXPECT_LT(mqa.memoryUs, full.memoryUs);
  EXPECT_DOUBLE_EQ(mqa.computeUs, full.computeUs);
}

TEST(GemmModel, AttentionKvTraffic) {
  // s = 2048, causal, packed GQA: 544 (query block, key block) pairs of
  // 128 x 128 per kv head (AttentionPackedGqaAndTiles). Each loads the key
  // block's K and V tiles, 2 x 128 x 128 x 2 bytes = 65,536 B: 8 kv heads
  // move 544 x 8 x 65,536 = 285,212,672 B; with one HBM read per 4 loads,
  // 71,303,168 B at 3350e9 x 0.85 = 2847.5e9 B/s = 25.0406 us.
  AttentionProblem p = attention2048();
  target::GpuTarget t = h100();
  t.attentionKvReuse = 4;
  t.attentionKvOverlapExponent = 1;
  FusedAttentionEstimate gqa = estimateAttention(p, t);
  EXPECT_NEAR(gqa.kvStreamUs, 544.0 * 8 * 65536 / 4 / 2847.5e9 * 1e6, 1e-9);
  // p = 1: the traffic adds to the larger of compute, critical path and
  // memory.
  const double core =
      std::max({gqa.computeUs, gqa.criticalPathUs, gqa.memoryUs});
  EXPECT_NEAR(gqa.predictedUs, core + gqa.kvStreamUs + t.attentionOverheadUs,
              1e-9);
  // MHA over the same 32 query heads: 136 pairs for each of 32 kv heads,
  // as many tile loads as the packed GQA blocks (each packed block covers
  // a quarter of the tokens), the same matrix work, more bytes.
  p.kvHeads = 32;
  FusedAttentionEstimate mha = estimateAttention(p, t);
  EXPECT_NEAR(mha.kvStreamUs, gqa.kvStreamUs, 1e-9);
  EXPECT_DOUBLE_EQ(mha.computeUs, gqa.computeUs);
  EXPECT_GT(mha.memoryUs, gqa.memoryUs);
  // Unpacked (Ampere's kernels in these collections) the query heads of a
  // kv head share its 136 pairs' loads: MHA has four times GQA's traffic.
  target::GpuTarget a = target::uncalibrated(
      *target::findBuiltinTarget("a100-80gb"));
  a.attentionKvReuse = 4;
  p.kvHeads = 8;
  const double gqaA = estimateAttention(p, a).kvStreamUs;
  p.kvHeads = 32;
  EXPECT_NEAR(estimateAttention(p, a).kvStreamUs, 4 * gqaA, 1e-9);
}

TEST(GemmModel, AttentionPackedGqaAndTiles) {
  // FA3 on Hopper over vLLM's paged cache packs the 4 query heads of a kv
  // head into one query block. One token per sequence, 256 sequences, 32
  // heads over 8 kv heads of 128: 4 rows per (sequence, kv head), one block
  // of 64 rows (rounded up) x 64 keys, 2048 units, one (query, key) block
  // pair each.
  AttentionProblem p;
  p.batch = 256;
  p.seq = 1;
  p.heads = 32;
  p.kvHeads = 8;
  p.headDim = 128;
  AttentionBlocks b = attentionBlocks(p, h100(), 128);
  EXPECT_TRUE(b.packed);
  EXPECT_EQ(b.rows, 64);
  EXPECT_EQ(b.cols, 64);
  EXPECT_EQ(b.queryBlocks, 1);
  EXPECT_DOUBLE_EQ(b.pairs, 1);
  // Compute (guesses: no softmax or query-block cost): 2048 units x one
  // block of 2 x 64 x 64 x 256 = 2,097,152 FLOP = 4,294,967,296 FLOP at
  // 989.4e12 x 0.8 = 791.52e12 FLOP/s: 5.42621 us (unpacked, 8192 heads
  // of one 64-row block each, four times that).
  FusedAttentionEstimate f = estimateAttention(p, h100());
  EXPECT_NEAR(f.computeUs, 2048.0 * 2097152 / 791.52e12 * 1e6, 1e-9);
  // 2048 tokens, 8 heads of 64 (MHA): FA3's 192 x 128 tile. Query block j
  // holds tokens 192j..192j+191 and sees key blocks 0..floor((192j +
  // 191) / 128): 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 16 for j = 0..10 = 101
  // pairs, the last 16.
  p.batch = 1;
  p.seq = 2048;
  p.heads = p.kvHeads = 8;
  p.headDim = 64;
  b = attentionBlocks(p, h100(), 64);
  EXPECT_EQ(b.rows, 192);
  EXPECT_EQ(b.cols, 128);
  EXPECT_EQ(b.queryBlocks, 11);
  EXPECT_DOUBLE_EQ(b.pairs, 101);
  EXPECT_EQ(b.longest, 16);
  // A window of 128 keys runs FA3's local tile, 192 x 160: block j sees
  // keys 192j - 127 .. 192j + 191, key blocks floor(max(0, 192j - 127) /
  // 160) .. floor((192j + 191) / 160): 2, 3, 3, 3, 2, 3, 3, 3, 3, 2, 2 =
  // 29 pairs, the last 2.
  p.window = 128;
  b = attentionBlocks(p, h100(), 64);
  EXPECT_EQ(b.cols, 160);
  EXPECT_DOUBLE_EQ(b.pairs, 29);
  EXPECT_EQ(b.longest, 2);
  // GQA at 128: packed blocks of 32 tokens x 4 heads; key block k is run by
  // query blocks 4k..63 of each kv head: sum over k = 0..15 of 64 - 4k =
  // 544 per kv head, 4352 in all, the 32 heads x 136 of unpacked blocks.
  b = attentionBlocks(attention2048(), h100(), 128);
  EXPECT_EQ(b.queryBlocks, 64);
  EXPECT_DOUBLE_EQ(b.pairs, 544);
  EXPECT_EQ(b.longest, 16);
  // Ampere (FA2's split-KV kernel over the paged cache): 64 x 128 blocks,
  // not packed: 272 per head (AttentionFa2SplitKvTiles).
  const target::GpuTarget a100 =
      target::uncalibrated(*target::findBuiltinTarget("a100-80gb"));
  b = attentionBlocks(attention2048(), a100, 128);
  EXPECT_FALSE(b.packed);
  EXPECT_DOUBLE_EQ(b.pairs, 272);
}

TEST(GemmModel, AttentionCacheWrite) {
  // The new K and V, 2 bytes x 2048 tokens x 8 kv heads x (128 + 128) =
  // 8,388,608 B, are read and written by the cache-write kernel before the
  // attention kernel: 16,777,216 B at the datasheet 3350e9 B/s = 5.00812 us
  // at cost 1, added to the kernel's time.
  AttentionProblem p = attention2048();
  target::GpuTarget t = h100();
  FusedAttentionEstimate none = estimateAttention(p, t);
  EXPECT_DOUBLE_EQ(none.cacheWriteUs, 0);
  t.attentionCacheWriteCost = 1;
  FusedAttentionEstimate w = estimateAttention(p, t);
  EXPECT_NEAR(w.cacheWriteUs, 16777216.0 / 3350e9 * 1e6, 1e-9);
  EXPECT_NEAR(w.predictedUs - none.predictedUs, w.cacheWriteUs, 1e-9);
}

TEST(GemmModel, AttentionFa2SplitKvTiles) {
  // vLLM runs FA2 over its paged cache through the split-KV kernel: 64
  // query rows x 256 keys at d 64, x 128 at d 128, x 64 above, never
  // packed. One head, a causal 2048 prompt: 32 query blocks of 64. Key
  // block k (keys Nk..Nk+N-1) is first reached by query block
  // ceil((Nk + 1) / 64) - 1 = Nk / 64, and runs to the last:
  //   N 256: 8 key blocks, 32 - 4k each: 8 x 32 - 4 x 28 = 144 pairs;
  //   N 128: 16 key blocks, 32 - 2k: 16 x 32 - 2 x 120 = 272;
  //   N 64: 32 key blocks, 32 - k: 32 x 32 - 496 = 528.
  // The last query block runs every key block (8, 16, 32).
  const target::GpuTarget &a100 = *target::findBuiltinTarget("a100-80gb");
  AttentionProblem p;
  p.heads = 8;
  p.kvHeads = 1;
  p.seq = 2048;
  for (auto [d, n, pairs] : {std::tuple<int64_t, int64_t, double>{64, 256, 144},
                             {128, 128, 272},
                             {256, 64, 528}}) {
    p.headDim = d;
    AttentionBlocks b = attentionBlocks(p, a100, d);
    EXPECT_EQ(b.rows, 64) << d;
    EXPECT_EQ(b.cols, n) << d;
    EXPECT_EQ(b.queryBlocks, 32) << d;
    EXPECT_DOUBLE_EQ(b.pairs, pairs) << d;
    EXPECT_EQ(b.longest, 2048 / n) << d;
    EXPECT_FALSE(b.packed) << d;
  }
}

TEST(GemmModel, AttentionCacheWriteCtas) {
  // reshape_and_cache_flash: one CTA per new token of min(g d, 512)
  // threads; an SM holds min(32, 2048 / threads) (Ada: min(24, 1536 /
  // threads)). 4 sequences of 1000 tokens, 2 us per CTA, no bytes term:
  //   A100 (108 SMs), g 1 x d 64: 64 threads, 32 per SM:
  //     4000 / (108 x 32) x 2 = 2.3148 us;
  //   A100, g 8 x d 128: 512 threads, 4 per SM: 4000 / 432 x 2 = 18.5185;
  //   L40S (142 SMs), g 8 x d 128: 3 per SM: 4000 / 426 x 2 = 18.7793.
  // With attention_cache_write_cost 1 the bytes' time adds: 2 x (2 bytes x
  // 4000 x 8 x 256) = 32,768,000 bytes at 2,039 GB/s = 16.0706 us.
  target::GpuTarget a100 =
      target::uncalibrated(*target::findBuiltinTarget("a100-80gb"));
  a100.attentionCacheWriteCost = 0;
  a100.attentionCacheWriteCtaUs = 2;
  target::GpuTarget l40s =
      target::uncalibrated(*target::findBuiltinTarget("l40s"));
  l40s.attentionCacheWriteCost = 0;
  l40s.attentionCacheWriteCtaUs = 2;
  AttentionProblem p;
  p.batch = 4;
  p.seq = 1000;
  p.heads = 8;
  p.kvHeads = 1;
  p.headDim = 64;
  EXPECT_NEAR(estimateAttention(p, a100).cacheWriteUs, 2.3148, 1e-4);
  p.kvHeads = 8;
  p.headDim = 128;
  EXPECT_NEAR(estimateAttention(p, a100).cacheWriteUs, 18.5185, 1e-4);
  EXPECT_NEAR(estimateAttention(p, l40s).cacheWriteUs, 18.7793, 1e-4);
  a100.attentionCacheWriteCost = 1;
  EXPECT_NEAR(estimateAttention(p, a100).cacheWriteUs, 18.5185 + 16.0706,
              1e-4);
  // Keys not the queries' own are written to no cache.
  p.crossKeys = 512;
  EXPECT_EQ(estimateAttention(p, a100).cacheWriteUs, 0);
}
