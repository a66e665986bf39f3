//===- Fp8MoeCostTest.cpp - FP8 linear layers and MoE layer costs --------===//
//
// The quantization of an FP8 linear layer's input, which GEMMs a precision
// turns into FP8 linear layers (forward, data and weight gradients), the
// precisions a target supports, the active experts of a grouped GEMM and
// the fused MoE layer's memory bytes. Every expected value is derived by
// hand in a comment.
//
//===----------------------------------------------------------------------===//

#include "TestModels.h"

#include "tshape/Cost/Memory.h"
#include "tshape/Cost/MoeLayer.h"
#include "tshape/Cost/PredictKernel.h"
#include "tshape/Model/Blocks/Block.h"
#include "tshape/Model/Transformer.h"

#include <gtest/gtest.h>

using namespace tshape;
using namespace tshape::cost;
using tshape::target::GpuTarget;

namespace {
/// H100 with round quantization constants: 1,000 GB/s at efficiency 0.5
/// (5e11 bytes/s), 1 us per quantization kernel.
GpuTarget roundTarget() {
  GpuTarget t = *target::findBuiltinTarget("h100-sxm");
  t.memoryBandwidthGBs = 1000;
  t.quantizeEfficiency = 0.5;
  t.quantizeOverheadUs = 1;
  return t;
}

/// An FP8 peak of 1,320 TFLOP/s on 132 SMs (a 10 TFLOP/s share per SM),
/// the chip at 0.5 of it (660 TFLOP/s), no epilogue term: the compute
/// time is the main loop's.
GpuTarget capTarget() {
  GpuTarget t = roundTarget();
  t.smCount = 132;
  t.peakTflops[int(model::DType::FP8)] = 1320;
  t.fp8MathEfficiency = 0.5;
  t.epilogueSerialFraction = 0;
  return t;
}

/// One MoE layer on one rank: b = 1, s tokens, E gated experts of inner
/// f, top-k, hidden h; no attention GEMMs of interest.
using testmodels::moeLayer;

GemmProblem fp8(int64_t m, int64_t k, Quantize q, bool transpose = false) {
  GemmProblem p;
  p.m = m;
  p.n = 4096;
  p.k = k;
  p.dtype = model::DType::FP8;
  p.transB = true;
  p.quantize = q;
  p.quantizeTranspose = transpose;
  return p;
}
} // namespace

TEST(Fp8Linear, QuantizeBytesAndTime) {
  const GpuTarget t = roundTarget();
  // x is 1024 x 4096 = 4,194,304 elements.
  // Per-tensor: amax reads bf16 (2 B), the cast reads it again (2 B) and
  // writes FP8 (1 B): 5 B each, 20,971,520 B; at 5e11 B/s 41.943 us,
  // plus 2 kernels x 1 us = 43.943 us.
  QuantizeEstimate q =
      estimateQuantize(fp8(1024, 4096, Quantize::PerTensor), t);
  EXPECT_EQ(q.kernels, 2);
  EXPECT_DOUBLE_EQ(q.bytes, 20971520.0);
  EXPECT_NEAR(q.predictedUs, 43.943, 1e-3);
  // With the transposed copy (training on Hopper) one more FP8 write:
  // 6 B each, 25,165,824 B: 50.332 + 2 = 52.332 us.
  q = estimateQuantize(fp8(1024, 4096, Quantize::PerTensor, true), t);
  EXPECT_NEAR(q.predictedUs, 52.332, 1e-3);
  // MXFP8: one kernel reads bf16 once and writes FP8 plus a scale byte per
  // 32 elements: 3 + 1/32 = 3.03125 B each, 12,713,984 B: 25.428 + 1 =
  // 26.428 us; with both copies 2 + 2 x 1.03125 = 4.0625 B each,
  // 17,039,360 B: 34.079 + 1 = 35.079 us.
  q = estimateQuantize(fp8(1024, 4096, Quantize::Block), t);
  EXPECT_EQ(q.kernels, 1);
  EXPECT_NEAR(q.predictedUs, 26.428, 1e-3);
  q = estimateQuantize(fp8(1024, 4096, Quantize::Block, true), t);
  EXPECT_NEAR(q.predictedUs, 35.079, 1e-3);
  // A static scale (vLLM with the checkpoint's activation scale): the cast
  // alone reads bf16 once and writes FP8, 3 B each, 12,582,912 B: 25.166 +
  // 1 kernel x 1 us = 26.166 us.
  q = estimateQuantize(fp8(1024, 4096, Quantize::Static), t);
  EXPECT_EQ(q.kernels, 1);
  EXPECT_DOUBLE_EQ(q.bytes, 12582912.0);
  EXPECT_NEAR(q.predictedUs, 26.166, 1e-3);
  // A bare FP8 GEMM quantizes nothing.
  EXPECT_EQ(estimateQuantize(fp8(1024, 4096, Quantize::None), t).kernels, 0);
}

TEST(Fp8Linear, GemmIncludesItsQuantization) {
  const GpuTarget t = roundTarget();
  // The layer's time is the GEMM's plus the quantization before it; the
  // GEMM on Hopper is vLLM's CUTLASS kernel of M = 1024: a 128 x 128 tile,
  // unsplit.
  GemmEstimate e = estimateGemm(fp8(1024, 4096, Quantize::PerTensor), t);
  EXPECT_NEAR(e.quantize.predictedUs, 43.943, 1e-3);
  EXPECT_EQ(e.tile.m, 128);
  EXPECT_EQ(e.tile.n, 128);
  EXPECT_EQ(e.splitK, 1);
  GemmEstimate bare =
      estimateWithTile(fp8(1024, 4096, Quantize::None), t, e.tile, 1);
  // Same tile: the difference is the quantization and the bf16 output
  // (1024 x 4096 x 1 more byte written: not on the critical path here
  // unless memory-bound, so at least the quantization is added).
  EXPECT_GE(e.predictedUs - bare.predictedUs, 43.943 - 1e-6);
  // The dispatch of vLLM 0.19's sm90 kernels:
  // M <= 16: swapped, 16 rows x 64 columns; 16 < M <= 64 with N > 1280:
  // 64 x 64; N <= 1280: 16 x 64 still; M <= 128: 64 x 128; M >= 8192
  // with K >= 6144: 256 x 128; else 128 x 128. None streams K.
  // Their ClusterShapes, as CTAs along M x along N of the problem as
  // written (a swapped kernel's (1, c) is c along M): 2 x 1 for M <= 16
  // with N <= 1280, 4 x 1 for 16 < M <= 64 with N <= 1280, 1 x 1 for the
  // other swapped kernels, 2 x 1 for every M > 64.
  struct Rule {
    int64_t m, n, k, tileM, tileN, clusterM;
  };
  for (const Rule &want : std::vector<Rule>{{16, 4096, 4096, 16, 64, 1},
                                            {16, 1280, 4096, 16, 64, 2},
                                            {17, 4096, 4096, 64, 64, 1},
                                            {17, 1280, 4096, 16, 64, 4},
                                            {64, 1280, 4096, 16, 64, 4},
                                            {65, 4096, 4096, 64, 128, 2},
                                            {129, 4096, 4096, 128, 128, 2},
                                            {8192, 4096, 6144, 256, 128, 2},
                                            {8192, 4096, 6143, 128, 128, 2}}) {
    GemmProblem p = fp8(want.m, want.k, Quantize::Static);
    p.n = want.n;
    const target::Fp8LinearKernel *r = fp8LinearKernel(p, t);
    ASSERT_NE(r, nullptr) << want.m << " x " << want.n << " x " << want.k;
    EXPECT_FALSE(r->streamK);
    EXPECT_EQ(r->tile.m, want.tileM) << want.m << " x " << want.n;
    EXPECT_EQ(r->tile.n, want.tileN) << want.m << " x " << want.n;
    EXPECT_EQ(r->clusterM, want.clusterM) << want.m << " x " << want.n;
    EXPECT_EQ(r->clusterN, 1);
  }
  // A bare FP8 GEMM is no linear layer: the library's choice.
  EXPECT_EQ(fp8LinearKernel(fp8(1024, 4096, Quantize::None), t), nullptr);
  // B200 names no dispatch (FlashInfer's library path): the library's
  // choice, K split where the tiles leave SMs idle.
  const GpuTarget &b200 = *target::findBuiltinTarget("b200");
  EXPECT_EQ(fp8LinearKernel(fp8(1024, 4096, Quantize::Static), b200),
            nullptr);
}

TEST(Fp8Linear, BlockScaledRate) {
  // capTarget: FP8 peak 1,320 TFLOP/s, the chip at fp8MathEfficiency 0.5,
  // no epilogue term. A block-scaled GEMM with a rate of its own, 0.25 of
  // the peak, runs at half the bare FP8 GEMM's rate on the same tile: its
  // main loop takes exactly twice as long (the tile, K-step, wave and
  // alignment factors are the same), and the per-CTA rate of the
  // per-tensor layers (fp8SmEfficiency) does not apply.
  GpuTarget t = capTarget();
  t.fp8SmEfficiency = 0.9;
  t.blockFp8MathEfficiency = 0.25;
  const target::TileConfig tile{128, 128, 0.95, 1};
  GemmEstimate block =
      estimateWithTile(fp8(1024, 4096, Quantize::Block), t, tile, 1);
  GemmEstimate bare =
      estimateWithTile(fp8(1024, 4096, Quantize::None), t, tile, 1);
  EXPECT_NEAR(block.computeUs, 2 * bare.computeUs, 1e-9);
  // Its bf16 output is written once, 2 B per element: x 4,194,304 B, W
  // 16,777,216 B and 8,388,608 B of output, 29,360,128 B (the bare GEMM
  // writes FP8, 4,194,304 B less), whatever fp8OutputBytes says.
  t.fp8OutputBytes = 4.768;
  block = estimateWithTile(fp8(1024, 4096, Quantize::Block), t, tile, 1);
  EXPECT_DOUBLE_EQ(block.bytes, 29360128.0);
  EXPECT_DOUBLE_EQ(bare.bytes, 25165824.0);
  // Its own kernel, not vLLM's per-tensor CUTLASS dispatch; at 0 (no rate
  // of its own) it is priced as the per-tensor layer, dispatch included.
  EXPECT_EQ(fp8LinearKernel(fp8(1024, 4096, Quantize::Block), t), nullptr);
  t.blockFp8MathEfficiency = 0;
  EXPECT_NE(fp8LinearKernel(fp8(1024, 4096, Quantize::Block), t), nullptr);
  // The built-in fits (bench/block_fp8.py): H100 0.692, B200 and GB200
  // (the same die) 0.611, where B200's per-tensor layers reach 0.382.
  EXPECT_DOUBLE_EQ(
      target::findBuiltinTarget("h100-sxm")->blockFp8MathEfficiency, 0.692);
  EXPECT_DOUBLE_EQ(target::findBuiltinTarget("gb200")->blockFp8MathEfficiency,
                   0.611);
  EXPECT_DOUBLE_EQ(target::findBuiltinTarget("b200")->fp8MathEfficiency,
                   0.382);
}

TEST(Fp8Linear, OutputBytesPerElement) {
  GpuTarget t = roundTarget();
  t.memoryEfficiency = 0.5; // 5e11 B/s for the GEMM's own traffic
  const GemmProblem p = fp8(1024, 4096, Quantize::Static);
  // M = 1024, N = 4096, K = 4096, FP8 operands (1 B): x 4,194,304 B and
  // W 16,777,216 B read; the bf16 output written once, 2 B per element of
  // its 4,194,304: 8,388,608 B; 29,360,128 B in all, 58.720 us at 5e11 B/s.
  t.fp8OutputBytes = 2;
  GemmEstimate e = estimateWithTile(p, t, {128, 128, 0.95, 1}, 1);
  EXPECT_DOUBLE_EQ(e.bytes, 29360128.0);
  EXPECT_NEAR(e.memoryUs, 58.720256, 1e-6);
  // A target whose FP8 layer moves 4.768 B per output element (B200's
  // fit): 4,194,304 x 4.768 = 19,998,441.472 B of output, 40,969,961.472 B
  // in all, 81.940 us; the quantization of x is unchanged.
  t.fp8OutputBytes = 4.768;
  GemmEstimate b = estimateWithTile(p, t, {128, 128, 0.95, 1}, 1);
  EXPECT_NEAR(b.bytes, 40969961.472, 1e-3);
  EXPECT_NEAR(b.memoryUs, 81.939922944, 1e-6);
  EXPECT_DOUBLE_EQ(b.quantize.predictedUs, e.quantize.predictedUs);
  // A bare FP8 GEMM (no linear layer) writes FP8 (1 B) whatever the
  // constant: 4,194,304 + 16,777,216 + 4,194,304 = 25,165,824 B.
  EXPECT_DOUBLE_EQ(
      estimateWithTile(fp8(1024, 4096, Quantize::None), t,
                       {128, 128, 0.95, 1}, 1)
          .bytes,
      25165824.0);
}

TEST(Fp8Linear, PerCtaRateUnderTheChipsCap) {
  // An FP8 peak of 1,320 TFLOP/s on 132 SMs: a 10 TFLOP/s share per SM.
  // The chip reaches 0.5 of the peak (660 TFLOP/s), one CTA 0.8 of its
  // share (8 TFLOP/s). Tile 128 x 128 at efficiency 1, one CTA per SM; no
  // epilogue term, so the compute time is the main loop's; the last wave
  // runs whole (no stream-K smoothing).
  GpuTarget t = capTarget();
  const target::TileConfig tile{128, 128, 1.0, 1};
  GemmProblem one = fp8(128, 65536, Quantize::Static);
  one.n = 128;
  // One tile: 2 x 128 x 128 x 65,536 = 2,147,483,648 FLOPs. Without a
  // per-CTA rate the CTA runs at its share of the chip's rate, 5 TFLOP/s:
  // 429.497 us (wave efficiency 1/132).
  t.fp8SmEfficiency = 0;
  EXPECT_NEAR(estimateWithTile(one, t, tile, 1, false).computeUs, 429.4967296,
              1e-6);
  // With it, at 8 TFLOP/s: 2,147,483,648 / 8e12 s = 268.435456 us.
  t.fp8SmEfficiency = 0.8;
  EXPECT_NEAR(estimateWithTile(one, t, tile, 1, false).computeUs, 268.435456, 1e-6);
  // A full chip: M = 4,096, N = 4,224 (32 x 33 = 1,056 tiles, 8 whole
  // waves), K = 4,096: 141,733,920,768 FLOPs. The waves at 8 TFLOP/s per
  // CTA would take 134.218 us; the chip's cap, 660 TFLOP/s, 214.748 us,
  // binds.
  GemmProblem full = fp8(4096, 4096, Quantize::Static);
  full.n = 4224;
  EXPECT_NEAR(estimateWithTile(full, t, tile, 1, false).computeUs, 214.7483648,
              1e-6);
  // A bare FP8 GEMM is no linear layer: its CTA gets its share (429.5 us).
  GemmProblem bare = one;
  bare.quantize = Quantize::None;
  EXPECT_NEAR(estimateWithTile(bare, t, tile, 1, false).computeUs, 429.4967296,
              1e-6);
}

TEST(Fp8Linear, WholeWavesShareTheChipRateWaveByWave) {
  // The per-CTA test's target: 132 SMs, FP8 peak 1,320 TFLOP/s, the chip
  // at 0.5 (660 TFLOP/s), a CTA at 0.8 of its SM's share (8 TFLOP/s).
  GpuTarget t = capTarget();
  t.fp8SmEfficiency = 0.8;
  const target::TileConfig tile{128, 128, 1.0, 1};
  // One 128 x 128 x 4,096 tile is 134,217,728 FLOPs: 16.777216 us at the
  // per-CTA rate, 0.2033602 us at the chip's, 26.8435456 us for a wave of
  // 132 sharing the chip's.
  // M = 18,944, N = 128: 148 tiles, one whole wave and 16 CTAs. Without
  // stream-K the whole wave takes 26.8435456 us (the chip's rate binds)
  // and the 16 CTAs 16.777216 us (their own rate binds; 16 x 0.2034 =
  // 3.25 us): 43.6207616 us.
  GemmProblem p = fp8(18944, 4096, Quantize::Static);
  p.n = 128;
  EXPECT_NEAR(estimateWithTile(p, t, tile, 1, false).computeUs, 43.6207616,
              1e-6);
  // A cluster of 2 along M rounds 33 tiles of M = 4,224 up to 34: with
  // N = 512 (4 tiles) 136 tiles instead of 132, a second wave of 4 CTAs:
  // 26.8435456 + 16.777216 us, against one wave without the cluster.
  GemmProblem c = fp8(4224, 4096, Quantize::Static);
  c.n = 512;
  GemmEstimate one = estimateWithTile(c, t, tile, 1, false);
  EXPECT_EQ(one.tiles, 132);
  EXPECT_NEAR(one.computeUs, 26.8435456, 1e-6);
  GemmEstimate two = estimateWithTile(c, t, tile, 1, false, 2, 1);
  EXPECT_EQ(two.tilesM, 34);
  EXPECT_EQ(two.tiles, 136);
  EXPECT_NEAR(two.computeUs, 43.6207616, 1e-6);
}

TEST(Fp8Linear, B200LayersDoNotSplitK) {
  // M = 1, N = 128, K = 65,536 leaves 147 of B200's 148 SMs idle with one
  // tile: the library's bf16 GEMM splits K, B200's FP8 layer does not.
  const GpuTarget &b200 = *target::findBuiltinTarget("b200");
  GemmProblem p = fp8(1, 65536, Quantize::Static);
  p.n = 128;
  EXPECT_EQ(estimateGemm(p, b200).splitK, 1);
  GemmProblem bf16 = p;
  bf16.dtype = model::DType::BF16;
  bf16.quantize = Quantize::None;
  EXPECT_GT(estimateGemm(bf16, b200).splitK, 1);
  // Hopper's FP8 layers run vLLM's dispatch (unsplit by its rules); a
  // target that may split (fp8SplitK) splits the same problem.
  GpuTarget splits = b200;
  splits.fp8SplitK = true;
  EXPECT_GT(estimateGemm(p, splits).splitK, 1);
}

TEST(Fp8Linear, LastWaveRunsWholeWithoutStreamK) {
  const GpuTarget t = roundTarget();
  // M = 1024, N = 4096: 8 x 32 = 256 tiles of 128 x 128 on 132 SMs, one
  // per SM: 2 waves, the second 124/132 full. Without stream-K the wave
  // efficiency is 256 / (2 x 132) = 0.9697; with the target's smoothing s
  // it is 1.9394 / ((1 - s) x 2 + s x 1.9394), higher.
  GemmEstimate e = estimateGemm(fp8(1024, 4096, Quantize::Static), t);
  EXPECT_EQ(e.waves, 2);
  EXPECT_NEAR(e.waveEfficiency, 256.0 / 264.0, 1e-12);
  GemmEstimate smoothed = estimateWithTile(fp8(1024, 4096, Quantize::Static),
                                           t, e.tile, 1, true);
  EXPECT_GT(smoothed.waveEfficiency, e.waveEfficiency);
}

TEST(Fp8Linear, WhichGemmsQuantize) {
  const GpuTarget &h100 = *target::findBuiltinTarget("h100-sxm");
  const GpuTarget &b200 = *target::findBuiltinTarget("b200");
  model::GemmSpec fwd;
  fwd.role = model::Role::MlpUp; // a weight GEMM
  fwd.m = {1024, model::DimExpr::constant(1024)};
  fwd.n = {4096, model::DimExpr::constant(4096)};
  fwd.k = {1024, model::DimExpr::constant(1024)};
  fwd.batch = {1, model::DimExpr::constant(1)};
  fwd.transB = true;
  std::vector<model::GemmSpec> grads = model::backwardGemms(fwd);
  ASSERT_EQ(grads.size(), 2u);
  const model::GemmSpec &dgrad =
      grads[0].pass == model::GemmPass::GradA ? grads[0] : grads[1];
  const model::GemmSpec &wgrad =
      grads[0].pass == model::GemmPass::GradB ? grads[0] : grads[1];

  model::RunShape train = model::RunShape::train();
  train.precision = Precision::FP8;
  // Forward: x quantized, with the transposed copy on Hopper in training.
  GemmProblem p = gemmProblem(fwd, model::DType::BF16, &train, &h100);
  EXPECT_EQ(p.dtype, model::DType::FP8);
  EXPECT_EQ(p.quantize, Quantize::PerTensor);
  EXPECT_TRUE(p.quantizeTranspose);
  // Blackwell's FP8 GEMMs take any layout: no transposed copy.
  EXPECT_FALSE(
      gemmProblem(fwd, model::DType::BF16, &train, &b200).quantizeTranspose);
  // Data gradient: dY quantized (E5M2 in the hybrid recipe).
  p = gemmProblem(dgrad, model::DType::BF16, &train, &h100);
  EXPECT_EQ(p.quantize, Quantize::PerTensor);
  // Weight gradient: reads the copies the two casts wrote.
  p = gemmProblem(wgrad, model::DType::BF16, &train, &h100);
  EXPECT_EQ(p.dtype, model::DType::FP8);
  EXPECT_EQ(p.quantize, Quantize::None);
  // A prefill writes no transposed copy; MXFP8 writes both (column-wise
  // scales) in training.
  model::RunShape prefill = model::RunShape::prefill();
  prefill.precision = Precision::FP8;
  EXPECT_FALSE(
      gemmProblem(fwd, model::DType::BF16, &prefill, &h100).quantizeTranspose);
  train.precision = Precision::MXFP8;
  p = gemmProblem(fwd, model::DType::BF16, &train, &b200);
  EXPECT_EQ(p.quantize, Quantize::Block);
  EXPECT_TRUE(p.quantizeTranspose);
  EXPECT_TRUE(p.blockScaled);
  // Its weight gradient casts nothing and is block-scaled all the same:
  // it runs the target's block-scaled kernel (not the per-tensor rate).
  p = gemmProblem(wgrad, model::DType::BF16, &train, &b200);
  EXPECT_EQ(p.quantize, Quantize::None);
  EXPECT_TRUE(p.blockScaled);
  EXPECT_EQ(fp8LinearKernel(p, h100), nullptr);
  EXPECT_FALSE(gemmProblem(wgrad, model::DType::BF16, &prefill, &h100)
                   .blockScaled);
  // An attention product is not a linear layer: it stays bf16.
  model::GemmSpec score = fwd;
  score.role = model::Role::AttnScore;
  EXPECT_EQ(gemmProblem(score, model::DType::BF16, &train, &b200).dtype,
            model::DType::BF16);
}

// The weight GEMMs both frameworks leave in the model's dtype under an FP8
// recipe: the LM head, the router and absorbed MLA's per-head products
// (runsAtPrecision). Their weights keep the dtype's bytes; an FP8 linear
// layer's are 1 byte (mxfp8 1 + 1/32 = 1.03125 with its block scales).
TEST(Fp8Linear, GemmsThatStayInTheModelsType) {
  const GpuTarget &h100 = *target::findBuiltinTarget("h100-sxm");
  model::RunShape run = model::RunShape::prefill();
  run.precision = Precision::FP8;
  model::GemmSpec g;
  g.m = {64, model::DimExpr::constant(64)};
  g.n = {128, model::DimExpr::constant(128)};
  g.k = {256, model::DimExpr::constant(256)};
  g.batch = {1, model::DimExpr::constant(1)};
  for (model::Role r : {model::Role::Logits, model::Role::MoeRouter,
                        model::Role::MlaQAbsorb, model::Role::MlaOutAbsorb}) {
    g.role = r;
    EXPECT_TRUE(model::roleInfo(r).weight);
    EXPECT_FALSE(runsAtPrecision(r)) << model::roleInfo(r).name;
    EXPECT_EQ(gemmProblem(g, model::DType::BF16, &run, &h100).dtype,
              model::DType::BF16);
    EXPECT_DOUBLE_EQ(weightElementBytes(g, model::DType::BF16, &run), 2);
  }
  for (model::Role r : {model::Role::Qkv, model::Role::MlpDown,
                        model::Role::MoeExpertUp, model::Role::MlaKvUp}) {
    g.role = r;
    EXPECT_TRUE(runsAtPrecision(r)) << model::roleInfo(r).name;
    EXPECT_DOUBLE_EQ(weightElementBytes(g, model::DType::BF16, &run), 1);
  }
  g.role = model::Role::Qkv;
  run.precision = Precision::MXFP8;
  EXPECT_DOUBLE_EQ(weightElementBytes(g, model::DType::BF16, &run), 1.03125);
  run.precision = Precision::BF16;
  EXPECT_DOUBLE_EQ(weightElementBytes(g, model::DType::BF16, &run), 2);
  EXPECT_DOUBLE_EQ(weightElementBytes(g, model::DType::BF16, nullptr), 2);
  // The attention products are no weight GEMM at all.
  EXPECT_FALSE(runsAtPrecision(model::Role::AttnScore));
}

// Lowered IR's string form of the run (model::str) reads back as the same
// run; anything else is rejected, never half-read.
TEST(RunShape, StringFormRoundTrips) {
  model::RunShape r = model::RunShape::decode(4100, 3);
  r.kvCache = model::DType::FP8;
  r.precision = Precision::MXFP8;
  EXPECT_EQ(model::str(r),
            "decode kv_length=4100 draft=3 kv_cache=fp8 precision=mxfp8");
  model::RunShape sp = model::RunShape::train();
  sp.sequenceParallel = true;
  EXPECT_EQ(model::str(sp), "train sequence_parallel=true");
  for (const model::RunShape &x :
       {r, model::RunShape::train(), model::RunShape::prefill(512), sp}) {
    std::optional<model::RunShape> back = model::parseRunShape(model::str(x));
    ASSERT_TRUE(back) << model::str(x);
    EXPECT_TRUE(*back == x) << model::str(x);
  }
  EXPECT_TRUE(model::parseRunShape("train  precision=fp8"));
  for (const char *bad :
       {"", "training", "train precision=fp4", "train precision",
        "decode kv_length=-1", "decode kv_length=1e3", "decode draft=",
        "train window=4", "decode kv_cache=int4",
        "decode kv_length=99999999999999999999",
        "train sequence_parallel=yes"})
    EXPECT_FALSE(model::parseRunShape(bad)) << bad;
}

TEST(Fp8Linear, TargetPrecisions) {
  const GpuTarget &h100 = *target::findBuiltinTarget("h100-sxm");
  const GpuTarget &b200 = *target::findBuiltinTarget("b200");
  const GpuTarget &a100 = *target::findBuiltinTarget("a100-80gb");
  EXPECT_EQ(h100.precisionList(), "bf16, fp8");
  EXPECT_EQ(b200.precisionList(), "bf16, fp8, mxfp8");
  EXPECT_EQ(a100.precisionList(), "bf16");
  model::GemmSpec g;
  g.m = g.n = g.k = g.batch = {64, model::DimExpr::constant(64)};
  model::RunShape run = model::RunShape::prefill();
  run.precision = Precision::MXFP8;
  KernelEstimate e = predictKernel(g, model::DType::BF16, h100, nullptr, &run);
  EXPECT_FALSE(e.supported);
  EXPECT_EQ(e.unsupported,
            "mxfp8 is not supported on h100-sxm (it supports bf16, fp8)");
}

TEST(MoeLayer, ActiveExperts) {
  // Mixtral's experts (E = 8, k = 2) at 1 token: 2 copies, so 2 of the 8
  // groups get a token; at 4096 tokens all 8.
  model::ModelConfig c = moeLayer(1, 4096, 8, 2, 14336);
  auto grouped = [&](const model::ModelConfig &cfg) {
    for (const model::Kernel &k :
         model::moeKernels(cfg, model::RunShape::prefill(), 0))
      if (const model::GemmSpec *g = k.gemm();
          g && g->role == model::Role::MoeExpertDown)
        return *g;
    return model::GemmSpec();
  };
  model::GemmSpec down = grouped(c);
  EXPECT_EQ(down.batch.value, 8);
  EXPECT_EQ(activeGroups(down, model::RunShape::prefill()), 2);
  c.seq = 4096;
  EXPECT_EQ(activeGroups(grouped(c), model::RunShape::prefill()), 8);
  // A dense GEMM keeps its batch.
  model::GemmSpec dense;
  dense.batch = {3, model::DimExpr::constant(3)};
  EXPECT_EQ(activeGroups(dense, model::RunShape::prefill()), 3);
}

TEST(MoeLayer, MemoryBytesAndTime) {
  // 4 copies of 2 tokens, h = 1024, f = 512, bf16: gather 4 x 2 x 1024,
  // activation 4 x 3 x 512, sum 4 x 1024 + 2 x 1024, x 2 bytes:
  // 2 x (8,192 + 6,144 + 4,096 + 2,048) = 40,960.
  EXPECT_DOUBLE_EQ(moeMemoryBytes(4, 2, 1024, 512, 2), 40960.0);
  // The layer: its grouped GEMMs + those bytes at moe_memory_efficiency +
  // moe_overhead_us.
  model::ModelConfig c = moeLayer(2, 1024, 8, 2, 512);
  GpuTarget t = *target::findBuiltinTarget("h100-sxm");
  t.memoryBandwidthGBs = 1000;
  t.moeMemoryEfficiency = 0.5;
  t.moeOverheadUs = 7;
  MoeLayerEstimate e = estimateMoeLayer(c, model::RunShape::prefill(), t);
  ASSERT_TRUE(e.supported) << e.unsupported;
  EXPECT_DOUBLE_EQ(e.memoryBytes, 40960.0);
  // 40,960 B at 5e11 B/s: 0.08192 us.
  EXPECT_NEAR(e.memoryUs, 0.08192, 1e-9);
  EXPECT_NEAR(e.predictedUs, e.gemmUs + 0.08192 + 7, 1e-9);
}

TEST(MoeLayer, ActivationMemory) {
  // Mixtral's MoE layer at s = 4096, b = 1, t = 1 (h = 4096, E = 8, k = 2,
  // f_e = 14336), selective recompute (no scores kept), no sequence
  // parallelism. s b h = 16,777,216.
  model::ModelConfig c = moeLayer(4096, 4096, 8, 2, 14336);
  TrainingPlan plan;
  plan.recompute = Recompute::Selective;
  // MoE block: input and dropout 3 s b h = 50,331,648 and the pre-MLP
  // norm's output (the router's saved input) 2 s b h = 33,554,432; router
  // logits in fp32 4 s b E = 131,072; 8,192 routed copies (4096 per
  // expert) x (2 x 4096 + 6 x 14336 + 2 x 4096 = 102,400) = 838,860,800.
  // Sum 922,877,952.
  EXPECT_DOUBLE_EQ(model::moeActivations(c, activationPlan(plan)),
                   922877952.0);
  // The layer: 34 s b h = 570,425,344, less the dense MLP's 19 s b h =
  // 318,767,104, plus the MoE block: 1,174,536,192.
  EXPECT_DOUBLE_EQ(layerActivationBytes(c, plan), 1174536192.0);
  // FP8 training (docs/memory.md#fp8-training): the grouped GEMMs' inputs,
  // the permuted copy (h) and the activation's output (f_e), are saved at
  // 1 byte: 8,192 x (4096 + 4 x 14336 + 14336 + 2 x 4096 = 83,968) =
  // 687,865,856, + 83,886,080 + 131,072 = 771,883,008 (the router's input
  // stays 16-bit). The layer: the dense 28 s b h (6 + 2 + 16 + 4) =
  // 469,762,048, less the MLP's 14 s b h (1 + 1 + 8 + 4) = 234,881,024,
  // plus the block: 1,006,764,032.
  plan.precision = Precision::FP8;
  EXPECT_DOUBLE_EQ(model::moeActivations(c, activationPlan(plan)),
                   771883008.0);
  EXPECT_DOUBLE_EQ(layerActivationBytes(c, plan), 1006764032.0);
  plan.precision.reset();
  // A dense layer keeps Korthikanti's 34 s b h.
  c.layerBlocks = {model::BlockKind::Attention, model::BlockKind::Mlp};
  c.mlp.inner = 14336;
  EXPECT_DOUBLE_EQ(layerActivationBytes(c, plan), 570425344.0);
}

TEST(MoeLayer, BalancedRankLoad) {
  // 64 tokens x k 2 = 128 copies over 8 experts (16 each), ep 2: the rank
  // holds 4 experts and 64 copies, all 4 busy; capacity 100 (balanced).
  MoeRankLoad l = moeRankLoad(64, 8, 2, 2, MoeRouting());
  EXPECT_DOUBLE_EQ(l.copies, 64.0);
  EXPECT_DOUBLE_EQ(l.activeExperts, 4.0);
  EXPECT_DOUBLE_EQ(l.busiestExpert, 16.0);
  EXPECT_EQ(l.capacity(), 100);
  // 1 token x 2 copies over 8 experts: 2 busy.
  EXPECT_DOUBLE_EQ(moeRankLoad(1, 8, 2, 1, MoeRouting()).activeExperts, 2.0);
}

TEST(MoeLayer, PowerLawRankLoad) {
  // 4 tokens, top-1 of 2 experts, exponent 2: 4 copies > 2 experts, so the
  // law spans [1, 0.8 x 4 = 3.2]; its inverse CDF is
  // ((3.2^-1 - 1) u + 1)^-1 = 1 / (1 - 0.6875 u). Quantiles u = 1/4, 3/4:
  // 1.2075 and 2.0645 (sum 3.2720); scaled to 4 copies 1.476 and 2.524,
  // rounded 1 and 3 (sum 4: no adjustment; neither above 4 tokens).
  MoeRouting skew{2.0};
  MoeRankLoad one = moeRankLoad(4, 2, 1, 1, skew);
  EXPECT_DOUBLE_EQ(one.copies, 4.0);
  EXPECT_DOUBLE_EQ(one.activeExperts, 2.0);
  EXPECT_DOUBLE_EQ(one.busiestExpert, 3.0);
  // Balanced 4 / 2 = 2 per expert; the rank's 4 copies over its 2 busy
  // experts are 2 each: capacity 100.
  EXPECT_EQ(one.capacity(), 100);
  // ep 2: one expert per rank, the busiest rank holds the busiest expert
  // alone: 3 copies, 1 expert; 3 / 2 = 150% of the balanced load.
  MoeRankLoad two = moeRankLoad(4, 2, 1, 2, skew);
  EXPECT_DOUBLE_EQ(two.copies, 3.0);
  EXPECT_DOUBLE_EQ(two.activeExperts, 1.0);
  EXPECT_EQ(two.capacity(), 150);
}

TEST(MoeLayer, PowerLawCapsAtOneCopyPerToken) {
  // 2 tokens, top-2 of 4 experts, exponent 50: 4 copies = 4 experts, so the
  // law spans [0.01, 2]; at this exponent every quantile stays near 0.01:
  // ((2^-49 - 0.01^-49) u + 0.01^-49)^(-1/49) ~ 0.01 (1 - u)^(-1/49) at
  // u = 1/8, 3/8, 5/8, 7/8: 0.01003, 0.01010, 0.01020, 0.01043 (sum
  // 0.04076); scaled to 4 copies 0.98, 0.99, 1.00, 1.02, rounded 1 each.
  // Every expert gets one copy: active 4, busiest 1, none above 2 tokens.
  MoeRankLoad l = moeRankLoad(2, 4, 2, 1, MoeRouting{50.0});
  EXPECT_DOUBLE_EQ(l.copies, 4.0);
  EXPECT_DOUBLE_EQ(l.activeExperts, 4.0);
  EXPECT_DOUBLE_EQ(l.busiestExpert, 1.0);
  // 8 tokens, top-1 of 2 experts, exponent 1.01 over [1, 6.4]: quantiles
  // u = 1/4, 3/4 of a near log-uniform law: ~6.4^0.25 = 1.59 and 6.4^0.75 =
  // 4.01 (sum 5.60); scaled to 8: 2.27 and 5.73, rounded 2 and 6. Neither
  // exceeds 8 tokens: busiest 6.
  EXPECT_DOUBLE_EQ(moeRankLoad(8, 2, 1, 1, MoeRouting{1.01}).busiestExpert,
                   6.0);
  // 2 tokens, top-2 of 4 experts, exponent 1.01 over [0.01, 2]: quantiles
  // 0.0191, 0.0706, 0.2653, 1.0154 (sum 1.3704); scaled to 4 copies 0.06,
  // 0.21, 0.77, 2.96, rounded 0, 0, 1, 3. The busiest 3 exceeds the 2
  // tokens (a token picks an expert once): capped at 2, its extra copy goes
  // to an expert with none. Counts 2, 1, 1, 0: active 3, busiest 2.
  MoeRankLoad capped = moeRankLoad(2, 4, 2, 1, MoeRouting{1.01});
  EXPECT_DOUBLE_EQ(capped.copies, 4.0);
  EXPECT_DOUBLE_EQ(capped.activeExperts, 3.0);
  EXPECT_DOUBLE_EQ(capped.busiestExpert, 2.0);
}

TEST(MoeLayer, BusiestRankOfRandomPlacements) {
  // Two experts of one copy each among 4 (no ties), ep 2 (2 per rank).
  // Of the C(4,2) = 6 pairs of positions, 2 put both on one rank: that rank
  // is the busiest (2 copies, 2 experts). Otherwise both ranks hold 1 and
  // the first is taken (torch.argmax): 1 copy, 1 expert. Expected copies
  // and experts 2/6 x 2 + 4/6 x 1 = 4/3; the mean of 256 placements has a
  // standard error of sqrt(2/9 / 256) = 0.03, so within 0.1.
  MoeRankShare s = moeBusiestRank({1, 1, 0, 0}, {}, 2);
  EXPECT_NEAR(s.copies, 4.0 / 3.0, 0.1);
  EXPECT_NEAR(s.activeExperts, 4.0 / 3.0, 0.1);
  EXPECT_DOUBLE_EQ(s.busiestExpert, 1.0);
  // One expert per rank (ep = E): the busiest rank holds the largest count
  // in every placement: 3 copies, 1 expert.
  MoeRankShare one = moeBusiestRank({3, 1}, {}, 2);
  EXPECT_DOUBLE_EQ(one.copies, 3.0);
  EXPECT_DOUBLE_EQ(one.activeExperts, 1.0);
  EXPECT_DOUBLE_EQ(one.busiestExpert, 3.0);
  // Four tie units over 8 experts and 4 ranks spread evenly: the rank holds
  // ceil(4 / 4) = 1 of them.
  MoeRankShare ties = moeBusiestRank({1, 1, 1, 1, 0, 0, 0, 0},
                                     {true, true, true, true}, 4);
  EXPECT_DOUBLE_EQ(ties.copies, 1.0);
  EXPECT_DOUBLE_EQ(ties.activeExperts, 1.0);
  EXPECT_DOUBLE_EQ(ties.busiestExpert, 1.0);
}

TEST(MoeLayer, PowerLawAtOneTokenSpreadsTies) {
  // 1 token, top-8 of 256 experts, exponent 1.01, ep 8: 8 copies <= 256, so
  // the law spans [0.01, 2], nearly log-uniform: its quantiles average
  // (2 - 0.01) / ln(200) = 0.376, summing to about 96. The largest scales
  // to at most 2 x 8 / 96 = 0.17 < 0.5: every count rounds to 0 and the 8
  // copies are the collector's adjustment, all ties. Spread over 8 ranks,
  // the measured rank holds ceil(8 / 8) = 1: one copy on one expert (the
  // H100 timings: 59 us at power law 1.01, 60 us balanced; DeepSeek-V3
  // shapes, bf16, moe_ep 8).
  MoeRankLoad l = moeRankLoad(1, 256, 8, 8, MoeRouting{1.01});
  EXPECT_DOUBLE_EQ(l.copies, 1.0);
  EXPECT_DOUBLE_EQ(l.activeExperts, 1.0);
  EXPECT_DOUBLE_EQ(l.busiestExpert, 1.0);
  // The same problem again comes from the cache, unchanged.
  EXPECT_DOUBLE_EQ(moeRankLoad(1, 256, 8, 8, MoeRouting{1.01}).copies, 1.0);
}

TEST(MoeLayer, ProblemMatchesConfig) {
  // A kernel-list row (tshape-predict) and the MoE block's config price
  // the same layer: Mixtral's shapes at 512 tokens, bf16, balanced.
  GpuTarget t = *target::findBuiltinTarget("h100-sxm");
  MoeLayerProblem p;
  p.tokens = 512;
  p.hidden = 4096;
  p.inter = 14336;
  p.topk = 2;
  p.experts = 8;
  model::ModelConfig c = moeLayer(512, 4096, 8, 2, 14336);
  MoeLayerEstimate a = estimateMoeLayer(p, t);
  MoeLayerEstimate b = estimateMoeLayer(c, model::RunShape::prefill(), t);
  ASSERT_TRUE(a.supported) << a.unsupported;
  EXPECT_DOUBLE_EQ(a.predictedUs, b.predictedUs);
  // moe_ep that does not divide the experts: unsupported, with the sizes.
  p.ep = 3;
  MoeLayerEstimate bad = estimateMoeLayer(p, t);
  EXPECT_FALSE(bad.supported);
  EXPECT_NE(bad.unsupported.find("experts (8) must divide by moe_ep (3)"),
            std::string::npos);
}

TEST(Precision, TableRows) {
  // One row per precision: its bytes with block scales, how it quantizes,
  // the Megatron-LM flags that select it.
  EXPECT_DOUBLE_EQ(precisionInfo(Precision::BF16).bytesPerElement(), 2.0);
  EXPECT_DOUBLE_EQ(precisionInfo(Precision::FP8).bytesPerElement(), 1.0);
  // MXFP8: 8-bit elements and an 8-bit E8M0 scale per 32: 1 + 1/32.
  EXPECT_DOUBLE_EQ(precisionInfo(Precision::MXFP8).bytesPerElement(),
                   1.03125);
  EXPECT_STREQ(precisionInfo(Precision::MXFP8).scaleType, "e8m0");
  EXPECT_EQ(precisionNames(), "bf16|fp8|mxfp8");
  EXPECT_EQ(parsePrecision("mxfp8"), Precision::MXFP8);
  EXPECT_FALSE(parsePrecision("nvfp4"));
  EXPECT_STREQ(precisionInfo(Precision::FP8).megatronFlags,
               "--fp8-format hybrid --fp8-recipe tensorwise");
  EXPECT_STREQ(precisionInfo(Precision::BF16).megatronFlags, "");
  // Each row sits at its precision's index.
  int n = 0;
  const PrecisionInfo *rows = precisionTable(&n);
  for (int i = 0; i < n; ++i)
    EXPECT_EQ(int(rows[i].precision), i);
  // Which targets run each row: a peak in its math type, block-scaled
  // tensor cores for a per-block scale. V100 runs bf16 GEMMs at its FP32
  // rate (no bf16 tensor cores, docs/targets.md) and no FP8, A100 no FP8,
  // H100 FP8 with per-tensor scales only, B200 all three.
  auto list = [](const char *name) {
    return target::findBuiltinTarget(name)->precisionList();
  };
  EXPECT_EQ(list("v100"), "bf16");
  EXPECT_EQ(list("a100-80gb"), "bf16");
  EXPECT_EQ(list("h100-sxm"), "bf16, fp8");
  EXPECT_EQ(list("b200"), "bf16, fp8, mxfp8");
}
