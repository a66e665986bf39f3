//===- DecodeAttentionTest.cpp - Decode attention over a KV cache ---------===//
//
// Hand-derived checks of the decode-attention model (Cost/DecodeAttention.h,
// docs/cost-model.md#decode-attention): cache bytes, the GQA grouping,
// FlashAttention's split-KV count, the CTA waves, the per-SM bandwidth cap,
// the window and the predicted time, and predictKernel on the decode
// kernel the attention block states.
//
//===----------------------------------------------------------------------===//

#include "tshape/Cost/DecodeAttention.h"
#include "tshape/Cost/PredictKernel.h"
#include "tshape/Model/Blocks/Block.h"
#include "tshape/Model/Transformer.h"

#include <gtest/gtest.h>

using namespace tshape;
using namespace tshape::cost;
using tshape::target::GpuTarget;

namespace {
/// The H100 SXM (132 SMs, 989.4 TFLOP/s bf16, 3,350 GB/s) with round
/// decode constants for hand derivation: the datasheet bandwidth (efficiency
/// 1), 5 us per call, 2 us per CTA, no per-SM cap, 1 us per split merge,
/// the larger of schedule and memory (p = 0), and the attention kernel at
/// the full peak.
GpuTarget roundH100() {
  GpuTarget t = *target::findBuiltinTarget("h100-sxm");
  t.decodeMemoryEfficiency = 1;
  t.decodeOverheadUs = 5;
  t.decodeCtaUs = 2;
  t.decodeSmBandwidth = 0;
  t.decodeCombineUs = 1;
  t.decodeOverlapExponent = 0;
  t.attentionEfficiency = 1;
  return t;
}

DecodeAttentionProblem decode(int64_t batch, int64_t heads, int64_t kvHeads,
                              int64_t context, int64_t window = 0) {
  DecodeAttentionProblem p;
  p.batch = batch;
  p.heads = heads;
  p.kvHeads = kvHeads;
  p.headDim = 128;
  p.context = context;
  p.window = window;
  return p;
}
} // namespace

TEST(DecodeAttention, SplitHeuristic) {
  // FlashAttention's rule on 132 SMs. 32 (sequence, kv head) CTAs over 32
  // key blocks: waves 32s/132 give efficiencies 0.24, 0.48, 0.73, 0.97 at
  // s = 1..4; the best is 0.97 (s = 4, 8, 16, 32), 85% of it is 0.82, and
  // s = 4 is the first to reach it.
  EXPECT_EQ(decodeSplits(32, 132, 32), 4);
  // 8 CTAs: s = 8 gives 0.48; s = 9 and 10 leave 4 blocks per split as 8
  // does (not eligible), 11 gives 0.67, 12-15 are not eligible, 16 gives
  // 128/132 = 0.97, the best.
  EXPECT_EQ(decodeSplits(8, 132, 32), 16);
  // 106 CTAs fill 80% of 132 SMs: no split; one key block cannot split.
  EXPECT_EQ(decodeSplits(106, 132, 1000), 1);
  EXPECT_EQ(decodeSplits(1, 132, 1), 1);
}

TEST(DecodeAttention, Llama2At4096) {
  // Llama-2-7B (32 heads, 32 kv heads, d 128), bf16, context 4096, one
  // layer. Cache bytes = 2 (K, V) x batch x 32 x 4096 x 128 x 2 bytes.
  const GpuTarget t = roundH100();
  const double peakPerSm = 989.4e12 / 132;

  // Batch 64: 64 MiB per sequence, 4 GiB in all. 2048 (sequence, kv
  // head) CTAs fill the SMs: no split, ceil(2048 / 132) = 16 waves.
  DecodeAttentionEstimate b64 = estimateDecodeAttention(decode(64, 32, 32, 4096), t);
  ASSERT_TRUE(b64.supported);
  EXPECT_DOUBLE_EQ(b64.cacheBytes, 2.0 * 64 * 32 * 4096 * 128 * 2);
  EXPECT_DOUBLE_EQ(b64.cacheBytes, 4294967296.0);
  EXPECT_EQ(b64.groupRows, 1);
  EXPECT_EQ(b64.kvBlocks, 32);
  EXPECT_EQ(b64.splits, 1);
  EXPECT_EQ(b64.ctas, 2048);
  EXPECT_EQ(b64.waves, 16);
  // Q read and O written: 2 x 64 x 32 x 128 x 2 = 1,048,576 bytes.
  EXPECT_DOUBLE_EQ(b64.bytes, 4294967296.0 + 1048576.0);
  // Memory: 4,296,015,872 / 3.35e12 = 1282.39 us.
  EXPECT_NEAR(b64.memoryUs, 4296015872.0 / 3.35e12 * 1e6, 1e-6);
  // A CTA computes a 64-row query tile (one real row) over 4096 keys:
  // 4 x 64 x 4096 x 128 FLOP at one SM's 989.4/132 TFLOP/s = 17.9 us,
  // longer than its 2 us latency; 16 waves = 286.5 us < the memory time.
  EXPECT_NEAR(b64.ctaUs, 4.0 * 64 * 4096 * 128 / peakPerSm * 1e6, 1e-6);
  EXPECT_NEAR(b64.scheduleUs, 16 * b64.ctaUs, 1e-9);
  EXPECT_TRUE(b64.memoryBound);
  // Predicted: 5 us + the memory time (no split, no merge): 1287.39 us.
  EXPECT_NEAR(b64.predictedUs, 5 + 4296015872.0 / 3.35e12 * 1e6, 1e-6);
  EXPECT_NEAR(b64.predictedUs, 1287.39, 0.01);
  // Useful FLOPs: 4 x 64 x 32 x 128 x 4096.
  EXPECT_DOUBLE_EQ(b64.flops, 4.0 * 64 * 32 * 128 * 4096);

  // Batch 1: 64 MiB of cache, 32 CTAs: split in 4 (SplitHeuristic), 128
  // CTAs in one wave. The split writes fp32 partial outputs and their
  // log-sum-exp, read back by the merge: 2 x 4 x 4 x 32 x (128 + 1) bytes.
  DecodeAttentionEstimate b1 = estimateDecodeAttention(decode(1, 32, 32, 4096), t);
  EXPECT_DOUBLE_EQ(b1.cacheBytes, 67108864.0);
  EXPECT_EQ(b1.splits, 4);
  EXPECT_EQ(b1.ctas, 128);
  EXPECT_EQ(b1.waves, 1);
  const double bytes1 = 67108864.0 + 16384.0 + 2.0 * 4 * 4 * 32 * 129;
  EXPECT_DOUBLE_EQ(b1.bytes, bytes1);
  // A CTA: 4 x 64 x 1024 keys x 128 at one SM's rate = 4.48 us.
  EXPECT_NEAR(b1.ctaUs, 4.0 * 64 * 1024 * 128 / peakPerSm * 1e6, 1e-6);
  EXPECT_TRUE(b1.memoryBound);
  // 5 + 67,257,344 / 3.35e12 s (20.08 us) + 1 us merge = 26.08 us.
  EXPECT_NEAR(b1.predictedUs, 5 + bytes1 / 3.35e12 * 1e6 + 1, 1e-6);
  EXPECT_NEAR(b1.predictedUs, 26.08, 0.01);
}

TEST(DecodeAttention, MistralGqa) {
  // Mistral-7B: 32 heads share 8 kv heads (4 per kv head), d 128, bf16.
  // The 4 query heads of a kv head are one CTA's rows: 8 CTAs per sequence,
  // and the cache is a quarter of an MHA model's.
  const GpuTarget t = roundH100();
  DecodeAttentionEstimate e = estimateDecodeAttention(decode(1, 32, 8, 4096), t);
  EXPECT_EQ(e.groupRows, 4);
  EXPECT_EQ(e.queryTiles, 1);
  // 2 x 1 x 8 x 4096 x 128 x 2 = 16 MiB.
  EXPECT_DOUBLE_EQ(e.cacheBytes, 16777216.0);
  // 8 CTAs split in 16 (SplitHeuristic): 128 CTAs.
  EXPECT_EQ(e.splits, 16);
  EXPECT_EQ(e.ctas, 128);
  // Batch 64: 512 CTAs, 4 waves, no split; 1 GiB of cache.
  DecodeAttentionEstimate b64 = estimateDecodeAttention(decode(64, 32, 8, 4096), t);
  EXPECT_EQ(b64.splits, 1);
  EXPECT_EQ(b64.ctas, 512);
  EXPECT_EQ(b64.waves, 4);
  EXPECT_DOUBLE_EQ(b64.cacheBytes, 1073741824.0);
  // Its sliding window of 4096 keys at context 32768 reads the key blocks
  // a window touches: ceil(4095 / 128) + 1 = 33 blocks of 128 keys.
  DecodeAttentionEstimate w = estimateDecodeAttention(decode(1, 32, 8, 32768, 4096), t);
  EXPECT_EQ(w.keysRead, 33 * 128);
  EXPECT_DOUBLE_EQ(w.cacheBytes, 2.0 * 8 * 4224 * 128 * 2);
  EXPECT_DOUBLE_EQ(w.flops, 4.0 * 32 * 128 * 4096);
  // A window longer than the context changes nothing.
  DecodeAttentionEstimate wide = estimateDecodeAttention(decode(1, 32, 8, 4096, 8192), t);
  EXPECT_DOUBLE_EQ(wide.predictedUs, e.predictedUs);
  // More query heads per kv head than the query tile (64) run as more
  // CTAs: 128 heads over 1 kv head are 2 query tiles.
  DecodeAttentionEstimate wideGroup =
      estimateDecodeAttention(decode(64, 128, 1, 4096), t);
  EXPECT_EQ(wideGroup.groupRows, 128);
  EXPECT_EQ(wideGroup.queryTiles, 2);
  EXPECT_EQ(wideGroup.ctas, 128 * wideGroup.splits);
}

TEST(DecodeAttention, FewCtasCannotSaturateHbm) {
  // FlashAttention 2's varlen path (A100) splits only packed GQA heads:
  // an MHA decode of 8 heads at batch 1 runs 8 CTAs, each reading its
  // head's 131072 x 128 x 2 x 2 = 64 MiB (plus Q and O, 512 bytes) at one
  // SM's bandwidth: 1x its share, 2,039 / 108 GB/s = 18.9 GB/s.
  // The HBM time at the datasheet bandwidth is 108/8 = 13.5x shorter.
  GpuTarget t = *target::findBuiltinTarget("a100-80gb");
  ASSERT_TRUE(t.decodeSplitGqaOnly);
  t.decodeSmBandwidth = 1;
  t.decodeMemoryEfficiency = 1;
  DecodeAttentionEstimate e = estimateDecodeAttention(decode(1, 8, 8, 131072), t);
  EXPECT_EQ(e.splits, 1);
  EXPECT_EQ(e.ctas, 8);
  const double ctaBytes = (2.0 * 8 * 131072 * 128 * 2 + 2.0 * 2 * 8 * 128) / 8;
  EXPECT_NEAR(e.bandwidthUs, ctaBytes / (2039e9 / 108) * 1e6, 1e-6);
  EXPECT_GT(e.bandwidthUs, 10 * e.memoryUs);
  // The same shape with GQA (8 heads over 1 kv head) splits over most
  // SMs and reads its eighth of the bytes about a hundred times faster.
  DecodeAttentionEstimate gqa = estimateDecodeAttention(decode(1, 8, 1, 131072), t);
  EXPECT_GT(gqa.splits, 64);
  EXPECT_LT(gqa.bandwidthUs, e.bandwidthUs / 50);
  // FlashAttention 3 (Hopper) splits the MHA decode too.
  DecodeAttentionEstimate h = estimateDecodeAttention(
      decode(1, 8, 8, 131072), *target::findBuiltinTarget("h100-sxm"));
  EXPECT_GT(h.splits, 1);
}

TEST(DecodeAttention, FlashAttention2SwappedLayout) {
  // FlashAttention 2's varlen path (A100, 108 SMs) with round constants:
  // 1 us per merge plus 0.5 us per split and merge wave, 2 us for the O
  // copy, 6 us for the Q copy.
  GpuTarget t = *target::findBuiltinTarget("a100-80gb");
  ASSERT_TRUE(t.decodeSplitGqaOnly);
  t.decodeCombineUs = 1;
  t.decodeSplitCombineUs = 0.5;
  t.decodeOutCopyUs = 2;
  t.decodeQueryCopyUs = 6;
  // Its heuristic counts 2 x 108 = 216 CTA slots: one (sequence, kv head)
  // over 16384 / 128 = 128 key blocks. Eligible counts are those that
  // change the blocks per split; 128 (one block each) gives 128/216 =
  // 0.59, the best, and no count from 109 (0.85 of it) up to 127 is
  // eligible (all leave 2 blocks per split), so s = 128. Counting 108
  // slots, 64 splits (0.59) would win.
  EXPECT_EQ(decodeSplits(1, 216, 128), 128);
  EXPECT_EQ(decodeSplits(1, 108, 128), 64);
  DecodeAttentionEstimate g = estimateDecodeAttention(decode(1, 8, 1, 16384), t);
  EXPECT_TRUE(g.swappedGqa);
  EXPECT_EQ(g.splits, 128);
  // The merge: b h = 8 rows, one merging CTA per 4 rows (head dim 128): 2
  // CTAs, one wave; 1 + 0.5 x 128 x 1 = 65 us. One sequence: Q's swap is
  // a view, only O is copied.
  EXPECT_DOUBLE_EQ(g.combineUs, 65);
  EXPECT_DOUBLE_EQ(g.copyUs, 2);
  EXPECT_DOUBLE_EQ(g.fixedUs, t.decodeOverheadUs + 65 + 2);
  // Two sequences and two kv heads: Q is copied into the swapped layout.
  DecodeAttentionEstimate q = estimateDecodeAttention(decode(2, 8, 2, 16), t);
  EXPECT_EQ(q.splits, 1);
  EXPECT_DOUBLE_EQ(q.combineUs, 0);
  EXPECT_DOUBLE_EQ(q.copyUs, 8);
  // MHA (one query head per kv head) is not swapped: no copies, no split.
  DecodeAttentionEstimate m = estimateDecodeAttention(decode(2, 8, 8, 16384), t);
  EXPECT_FALSE(m.swappedGqa);
  EXPECT_EQ(m.splits, 1);
  EXPECT_DOUBLE_EQ(m.copyUs, 0);
  // FlashAttention 3 (Hopper) has none of these: no copies, and its merge
  // is the fixed cost alone.
  GpuTarget h = roundH100();
  h.decodeSplitCombineUs = 0.5;
  DecodeAttentionEstimate f = estimateDecodeAttention(decode(2, 8, 2, 16384), h);
  EXPECT_FALSE(f.swappedGqa);
  EXPECT_GT(f.splits, 1);
  EXPECT_DOUBLE_EQ(f.combineUs, 1);
  EXPECT_DOUBLE_EQ(f.copyUs, 0);
}

TEST(DecodeAttention, Unsupported) {
  // No fused kernel above head dim 256 on Hopper; none at all on Volta.
  DecodeAttentionProblem p = decode(1, 8, 8, 1024);
  p.headDim = 512;
  EXPECT_FALSE(
      estimateDecodeAttention(p, *target::findBuiltinTarget("h100-sxm"))
          .supported);
  EXPECT_FALSE(estimateDecodeAttention(decode(1, 8, 8, 1024),
                                       *target::findBuiltinTarget("v100"))
                   .supported);
}

TEST(DecodeAttention, PredictKernelPricesTheBlocksDecodeKernel) {
  // Llama-2-7B's attention block at decode, batch 64, context 4096: the
  // kernel it states (one query over 4096 keys per sequence) is priced by
  // the decode model, and its summary is in `attention` too.
  model::ModelConfig c;
  c.microbatch = 64;
  c.seq = 4096;
  c.hidden = 4096;
  c.attention = {32, 32, 0, /*causal=*/true, /*fused=*/true};
  model::AttentionSpec a =
      model::attentionKernel(c, model::RunShape::decode(4096), 0);
  EXPECT_EQ(a.queryLen.value, 1);
  EXPECT_EQ(a.kvLen.value, 4096);
  const GpuTarget t = roundH100();
  KernelEstimate k = predictKernel(a, model::DType::BF16, t);
  ASSERT_TRUE(k.supported);
  ASSERT_TRUE(k.decodeStep);
  EXPECT_EQ(k.decode.ctas, 2048);
  EXPECT_NEAR(k.predictedUs, 1287.39, 0.01);
  EXPECT_DOUBLE_EQ(k.attention.predictedUs, k.predictedUs);
  EXPECT_DOUBLE_EQ(k.flops, 4.0 * 64 * 32 * 128 * 4096);
  // An fp8 cache reads half the bytes.
  KernelEstimate fp8 = predictKernel(a, model::DType::FP8, t);
  ASSERT_TRUE(fp8.supported);
  EXPECT_DOUBLE_EQ(fp8.decode.cacheBytes, k.decode.cacheBytes / 2);
  // A head dim no kernel covers says so.
  a.headDim.value = a.valueHeadDim.value = 512;
  KernelEstimate none = predictKernel(a, model::DType::BF16, t);
  EXPECT_FALSE(none.supported);
  EXPECT_EQ(none.unsupported,
            "head_dim 512 has no fused attention kernel on h100-sxm");
}
