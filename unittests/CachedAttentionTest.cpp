//===- CachedAttentionTest.cpp - Chunks, value head dims, drafts ----------===//
//
// Hand-derived checks of the attention models beyond self-attention with
// one head dim (docs/cost-model.md#fused-attention,
// docs/cost-model.md#decode-attention):
//  - a prefill chunk of n queries over P cached keys, causal with the mask
//    aligned to the keys' end (query i sees P + i + 1 keys), priced by the
//    fused model: its pairs, key blocks, critical path and cached K/V read;
//    monotone in P, and today's model exactly at P = 0;
//  - a value head dim unlike the query's (MLA's prefill, 192 / 128): FLOPs
//    2 (d + dv) per pair, and the head dims the target's kernels pad to;
//  - speculative decoding: the causal mask among the 1 + draft queries.
// The GPU is the uncalibrated H100 SXM (132 SMs, 0.8 x 989.4 = 791.52
// TFLOP/s attention rate, 3,350 GB/s x 0.85 = 2,847.5 GB/s, blocks of 128,
// no softmax or query-block cost, 2 us per call).
//
//===----------------------------------------------------------------------===//

#include "tshape/Cost/PredictKernel.h"
#include "tshape/Model/Blocks/Block.h"
#include "tshape/Model/Transformer.h"

#include "TestModels.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace tshape;
using namespace tshape::cost;

namespace {
const target::GpuTarget &h100() {
  static const target::GpuTarget t = [] {
    target::GpuTarget u =
        target::uncalibrated(*target::findBuiltinTarget("h100-sxm"));
    // The K/V tile traffic term is checked on its own (KvTileTraffic,
    // below); here every tile load hits L2, so the figures are the compute,
    // critical path and memory terms derived by hand.
    u.attentionKvReuse = std::numeric_limits<double>::infinity();
    return u;
  }();
  return t;
}
using Dims = std::pair<int64_t, int64_t>;
constexpr double kRate = 989.4e12 * 0.8;   // FLOP/s
constexpr double kBandwidth = 3350e9 * 0.85; // bytes/s

/// 32 heads of d = 128 (one sequence), `seq` queries after `cached` keys.
AttentionProblem chunk(int64_t seq, int64_t cached, bool causal = true) {
  AttentionProblem p;
  p.heads = p.kvHeads = 32;
  p.seq = seq;
  p.cached = cached;
  p.causal = causal;
  return p;
}

/// Llama-2-70B-like attention at tp = 8 (8 query heads, 1 kv head per
/// rank, d = 128), b = 1, s = 4096, fused.
model::ModelConfig llama70b() {
  return testmodels::fusedAttentionModel(64, 8, 8192, 4096, /*tp=*/8);
}
} // namespace

TEST(CachedAttention, Pairs) {
  // 3 queries after 2 cached keys, causal: they see 3, 4, 5 keys = 12
  // pairs = maskedPairs(5) - maskedPairs(2) = 15 - 3. Window 4: 3, 4, 4 =
  // 11. Not causal: 3 x 5 = 15; with window 4: 3 x 4 = 12. No cache: the
  // self-attention pairs.
  EXPECT_DOUBLE_EQ(cachedPairs(3, 2, 0, true), 12);
  EXPECT_DOUBLE_EQ(cachedPairs(3, 2, 4, true), 11);
  EXPECT_DOUBLE_EQ(cachedPairs(3, 2, 0, false), 15);
  EXPECT_DOUBLE_EQ(cachedPairs(3, 2, 4, false), 12);
  for (bool causal : {true, false})
    for (int64_t w : {0, 2})
      EXPECT_DOUBLE_EQ(cachedPairs(5, 0, w, causal), maskedPairs(5, w, causal));
}

TEST(CachedAttention, ChunkOverCache) {
  // A chunk of 2048 queries after P = 2048 cached keys, 32 heads, d = 128,
  // causal: per head 2048 x 2048 + 2048 x 2049 / 2 = 6,292,480 pairs (the
  // pairs of a 4096 prompt less those of its first 2048: 8,390,656 -
  // 2,098,176); FLOPs 4 x 32 x 6,292,480 x 128 = 103,095,992,320.
  FusedAttentionEstimate f = estimateAttention(chunk(2048, 2048), h100());
  ASSERT_TRUE(f.supported);
  EXPECT_DOUBLE_EQ(f.flops, 103095992320.0);
  // Key blocks: query block j (16 of them) runs j + 1 + 2048/128 = j + 17
  // of the 32 key blocks: 17 + ... + 32 = 392 blocks (a 4096 prompt's
  // 32 x 33 / 2 = 528 less its first 2048's 16 x 17 / 2 = 136), each 2 x
  // 128 x 128 x (128 + 128) = 8,388,608 FLOP: 32 x 392 x 8,388,608 /
  // 791.52e12 = 132.9426 us.
  EXPECT_NEAR(f.computeUs, 32 * 392 * 8388608.0 / kRate * 1e6, 1e-9);
  EXPECT_NEAR(f.computeUs, 132.9426, 1e-4);
  // The longest CTA, the last query block, runs all 32 key blocks on one
  // SM: 32 x 8,388,608 / (791.52e12 / 132) = 44.77 us.
  EXPECT_NEAR(f.criticalPathUs, 32 * 8388608.0 / (kRate / 132) * 1e6, 1e-9);
  // Bytes: the chunk's Q, O, and K, V read once (2 x 2048 x 128 x (2 x 32
  // + 2 x 32) = 67,108,864; the cache write is a kernel of its own, cost 0
  // in the guesses) plus the cached K and V read once per kv head (2 x
  // 2048 x 32 x 256 = 33,554,432): 100,663,296 / 2,847.5 GB/s = 35.35 us.
  EXPECT_NEAR(f.memoryUs, 100663296.0 / kBandwidth * 1e6, 1e-9);
  EXPECT_DOUBLE_EQ(f.cacheBytes, 33554432.0);
  // Compute-bound: 132.94 + 2 = 134.94 us.
  EXPECT_NEAR(f.predictedUs, 134.9426, 1e-4);
  // Useful share of the issued blocks: 6,292,480 / (392 x 128 x 128).
  EXPECT_NEAR(f.blockEfficiency, 6292480.0 / (392.0 * 128 * 128), 1e-12);

  // Not causal: every query over all 4096 keys: 16 x 32 = 512 blocks,
  // 4 x 32 x 2048 x 4096 x 128 FLOPs.
  FusedAttentionEstimate full =
      estimateAttention(chunk(2048, 2048, false), h100());
  EXPECT_DOUBLE_EQ(full.flops, 4.0 * 32 * 2048 * 4096 * 128);
  EXPECT_NEAR(full.computeUs, 32 * 512 * 8388608.0 / kRate * 1e6, 1e-9);

  // A short chunk (64 queries) over P = 4000: one query block of 64 rows
  // over key blocks of 128 keys: ceil(4064 / 128) = 32 of them, each 2 x
  // 64 x 128 x 256 = 4,194,304 FLOP: 32 heads x 32 x 4,194,304 / 791.52e12
  // = 5.43 us.
  FusedAttentionEstimate small = estimateAttention(chunk(64, 4000), h100());
  EXPECT_NEAR(small.computeUs, 32 * 32 * 4194304.0 / kRate * 1e6, 1e-9);
  EXPECT_DOUBLE_EQ(small.flops, 4.0 * 32 * (64 * 4000 + 64 * 65 / 2) * 128);
}

TEST(CachedAttention, KvTileTraffic) {
  // The guesses' K/V term (attention_kv_reuse 8, overlap exponent 2): the
  // causal 2048 prompt's 136 key blocks of each of its 32 kv heads load a K
  // and a V tile of 128 keys x 128: 2 bytes x 32 x 136 x 128 x 256 =
  // 285,212,672 bytes, 1/8 from HBM: 35,651,584 / 2,847.5 GB/s = 12.52 us.
  // Compute 32 x 136 x 8,388,608 / 791.52e12 = 46.12 us; predicted
  // sqrt(46.12^2 + 12.52^2) + 2 = 49.79 us.
  const target::GpuTarget t =
      target::uncalibrated(*target::findBuiltinTarget("h100-sxm"));
  ASSERT_EQ(t.attentionKvReuse, 8);
  ASSERT_EQ(t.attentionKvOverlapExponent, 2);
  FusedAttentionEstimate f = estimateAttention(chunk(2048, 0), t);
  const double kv = 285212672.0 / 8 / kBandwidth * 1e6;
  const double compute = 32 * 136 * 8388608.0 / kRate * 1e6;
  EXPECT_NEAR(f.kvStreamUs, kv, 1e-9);
  EXPECT_NEAR(f.kvStreamUs, 12.5203, 1e-4);
  EXPECT_NEAR(f.predictedUs, std::hypot(compute, kv) + 2, 1e-9);
  EXPECT_NEAR(f.predictedUs, 49.79, 5e-3);
  // A value head dim of its own loads K tiles of d and V tiles of dv: MLA's
  // 192 / 128 with 128 kv heads over 4096 tokens, on FA3's 128 x 96 tile
  // at 192 (query block j, tokens 128j..128j+127, runs key blocks 0 ..
  // floor((128j + 127) / 96): 2, 3, 4, 6, ..., 43 for j = 0..31, 715
  // pairs): 2 x 128 x 715 x 96 x 320 / 8 bytes.
  AttentionProblem mla;
  mla.heads = mla.kvHeads = 128;
  mla.seq = 4096;
  mla.headDim = 192;
  mla.valueHeadDim = 128;
  EXPECT_NEAR(estimateAttention(mla, t).kvStreamUs,
              2.0 * 128 * 715 * 96 * 320 / 8 / kBandwidth * 1e6, 1e-9);
}

TEST(CachedAttention, ReducesToSelfAttentionAtNoCache) {
  // P = 0 is today's model exactly: every figure equal, not just near.
  for (bool causal : {true, false})
    for (int64_t seq : {100, 2048, 4097}) {
      AttentionProblem self = chunk(seq, 0, causal);
      AttentionProblem sameDims = self;
      sameDims.valueHeadDim = sameDims.headDim; // stated, equal
      FusedAttentionEstimate a = estimateAttention(self, h100());
      FusedAttentionEstimate b = estimateAttention(sameDims, h100());
      EXPECT_EQ(a.flops, b.flops);
      EXPECT_EQ(a.computeUs, b.computeUs);
      EXPECT_EQ(a.criticalPathUs, b.criticalPathUs);
      EXPECT_EQ(a.memoryUs, b.memoryUs);
      EXPECT_EQ(a.predictedUs, b.predictedUs);
    }
  // The causal 2048 prompt's figures as derived before caches existed
  // (causal-attention.mlir): 32 x 136 x 8,388,608 / 791.52e12 + 2 =
  // 48.12 us.
  EXPECT_NEAR(estimateAttention(chunk(2048, 0), h100()).predictedUs,
              32 * 136 * 8388608.0 / kRate * 1e6 + 2, 1e-9);
  // Through predictKernel: a prefill whose kv length is its own sequence
  // (kv_length = s) is self-attention, priced as the training forward.
  const model::ModelConfig c = llama70b();
  KernelEstimate selfK = predictKernel(
      model::attentionKernel(c, model::RunShape::prefill(4096), 0),
      model::DType::BF16, h100());
  KernelEstimate trainK =
      predictKernel(model::attentionKernel(c, model::RunShape::train(), 0),
                    model::DType::BF16, h100());
  EXPECT_EQ(selfK.predictedUs, trainK.predictedUs);
}

TEST(CachedAttention, MonotoneInCachedKeys) {
  // More cached keys never cost less: FLOPs strictly grow (each query sees
  // P more keys), and the predicted time does not fall.
  double flops = 0, us = 0;
  for (int64_t p : {0, 1, 127, 128, 1000, 4096, 16384, 65536}) {
    FusedAttentionEstimate f = estimateAttention(chunk(512, p), h100());
    EXPECT_GT(f.flops, flops) << "P = " << p;
    EXPECT_GE(f.predictedUs, us) << "P = " << p;
    flops = f.flops;
    us = f.predictedUs;
  }
}

TEST(CachedAttention, PredictKernelPricesAChunk) {
  // The attention block at prefill with kv length 8192 over the 4096
  // queries of the IR: P = 4096 cached keys, 8 heads, 1 kv head per rank.
  const model::ModelConfig c = llama70b();
  model::AttentionSpec a =
      model::attentionKernel(c, model::RunShape::prefill(8192), 0);
  ASSERT_EQ(a.queryLen.value, 4096);
  ASSERT_EQ(a.kvLen.value, 8192);
  AttentionProblem p = attentionProblem(a, model::DType::BF16);
  EXPECT_EQ(p.cached, 4096);
  EXPECT_EQ(p.valueHeadDim, 0);
  KernelEstimate k = predictKernel(a, model::DType::BF16, h100());
  ASSERT_TRUE(k.supported) << k.unsupported;
  EXPECT_FALSE(k.decodeStep);
  // Pairs 4096 x 4096 + 4096 x 4097 / 2 = 16,777,216 + 8,390,656 =
  // 25,167,872 per head; FLOPs 4 x 8 x 25,167,872 x 128.
  EXPECT_DOUBLE_EQ(k.flops, 4.0 * 8 * 25167872 * 128);
  // Fewer keys than queries is no attention a run states: a clear error.
  model::AttentionSpec bad = a;
  bad.kvLen.value = 100;
  KernelEstimate e = predictKernel(bad, model::DType::BF16, h100());
  EXPECT_FALSE(e.supported);
  EXPECT_EQ(e.unsupported,
            "attention of 4096 queries over 100 keys: the keys hold the "
            "queries' own tokens, so the kv length must be at least 4096");
}

TEST(CachedAttention, ValueHeadDimOfItsOwn) {
  // DeepSeek-V3's prefill attention at tp = 1: 128 heads, query/key head
  // dim 128 + 64 = 192, value head dim 128, b = 1, s = 4096, causal.
  AttentionProblem p;
  p.heads = p.kvHeads = 128;
  p.seq = 4096;
  p.headDim = 192;
  p.valueHeadDim = 128;
  FusedAttentionEstimate f = estimateAttention(p, h100());
  ASSERT_TRUE(f.supported);
  // FlashAttention 3 has a 192/128 kernel on Hopper: no padding.
  EXPECT_EQ(f.paddedHeadDim, 192);
  EXPECT_EQ(f.paddedValueHeadDim, 128);
  EXPECT_DOUBLE_EQ(f.headDimEfficiency, 1);
  // FLOPs 2 x (192 + 128) per pair: 2 x 128 x (4096 x 4097 / 2) x 320 =
  // 687,362,539,520 (a 192/192 kernel would count 4 x 192 per pair).
  EXPECT_DOUBLE_EQ(f.flops, 687362539520.0);
  // FA3's 128 x 96 tile at 192: 715 (query block, key block) pairs
  // (KvTileTraffic) of 2 x 128 x 96 x 320 = 7,864,320 FLOP:
  // 128 x 715 x 7,864,320 / 791.52e12 = 909.32 us.
  EXPECT_NEAR(f.computeUs, 128 * 715 * 7864320.0 / kRate * 1e6, 1e-9);
  // Bytes per token: Q 128 x 192, O 128 x 128, K and V read once
  // 128 x (192 + 128): 81,920 elements x 2 bytes x 4096 = 671,088,640
  // bytes (235.7 us, under the compute).
  EXPECT_NEAR(f.memoryUs, 671088640.0 / kBandwidth * 1e6, 1e-9);
  EXPECT_NEAR(f.predictedUs, 911.3170, 1e-4);
  // FlashAttention 2 (A100) has no such pair: the value runs padded to the
  // query's 192 (as vLLM pads it), (192 + 128) / (192 + 192) useful.
  const target::GpuTarget a100 =
      target::uncalibrated(*target::findBuiltinTarget("a100-80gb"));
  FusedAttentionEstimate fa2 = estimateAttention(p, a100);
  ASSERT_TRUE(fa2.supported);
  EXPECT_EQ(fa2.paddedHeadDim, 192);
  EXPECT_EQ(fa2.paddedValueHeadDim, 192);
  EXPECT_DOUBLE_EQ(fa2.headDimEfficiency, 320.0 / 384);
  EXPECT_DOUBLE_EQ(fa2.flops, f.flops);
  // The pair rule per dim: 160/128 pads the query to 192 (192/128 kernel);
  // 64/128 has no pair and runs both at 128; no kernel above 256.
  EXPECT_EQ(fusedHeadDims(h100(), 160, 128), Dims(192, 128));
  EXPECT_EQ(fusedHeadDims(h100(), 64, 128), Dims(128, 128));
  EXPECT_EQ(fusedHeadDims(h100(), 128, 320), Dims(0, 0));
  EXPECT_EQ(fusedHeadDims(h100(), 80, 0), Dims(128, 128));
}

TEST(CachedAttention, MlaPrefillKernelIsPriced) {
  // The MLA block's prefill kernel (DeepSeek-V3's dims, 16 heads per rank
  // at tp = 8) goes to the fused model with both head dims.
  model::ModelConfig c =
      testmodels::fusedAttentionModel(128, 128, 7168, 4096, /*tp=*/8);
  c.mla = {1536, 512, 128, 64, 128};
  c.layerBlocks = {model::BlockKind::Mla, model::BlockKind::Mlp};
  model::AttentionSpec a =
      model::mlaAttentionKernel(c, model::RunShape::train(), 0);
  ASSERT_EQ(a.headDim.value, 192);
  ASSERT_EQ(a.valueHeadDim.value, 128);
  KernelEstimate k = predictKernel(a, model::DType::BF16, h100());
  ASSERT_TRUE(k.supported) << k.unsupported;
  // 2 x 16 x (4096 x 4097 / 2) x 320.
  EXPECT_DOUBLE_EQ(k.flops, 2.0 * 16 * (4096.0 * 4097 / 2) * 320);
  // A head dim no kernel covers names both dims.
  model::AttentionSpec wide = a;
  wide.headDim.value = 320;
  KernelEstimate none = predictKernel(wide, model::DType::BF16, h100());
  EXPECT_FALSE(none.supported);
  EXPECT_EQ(none.unsupported, "head_dim 320 with v_head_dim 128 has no fused "
                              "attention kernel on h100-sxm");
}

// MLA's prefill chunk over a cache as vLLM's MLA common backend runs it
// (docs/inference.md#mla-chunked-prefill): DeepSeek-V3 at tp = 8 (16 heads
// per rank), b = 2, a chunk of q = 1024 after C = 3072 cached tokens (kv
// length 4096).
TEST(CachedAttention, MlaChunkOverContext) {
  model::ModelConfig c =
      testmodels::fusedAttentionModel(128, 128, 7168, 1024, /*tp=*/8);
  c.microbatch = 2;
  c.mla = {1536, 512, 128, 64, 128};
  c.layerBlocks = {model::BlockKind::Mla, model::BlockKind::Mlp};
  const model::RunShape run = model::RunShape::prefill(4096);
  EXPECT_EQ(model::mlaContextTokens(c, run), 3072);
  // 64 Ki / b = 32,768 tokens per piece: one piece.
  EXPECT_EQ(model::mlaContextPieces(c, run), 1);
  std::vector<model::Kernel> ks = model::mlaKernels(c, run, 0);
  std::vector<std::string> names;
  for (const model::Kernel &k : ks)
    names.push_back(k.name());
  EXPECT_EQ(names, (std::vector<std::string>{
                       "mla_q_down", "mla_q_up", "mla_kv_down", "mla_kv_up",
                       "attention", "mla_context_up", "mla_context_attention",
                       "mla_merge", "attn_out"}));
  // The chunk's own attention: causal, 1024 over 1024.
  const model::AttentionSpec *own = ks[4].attention();
  ASSERT_TRUE(own);
  EXPECT_TRUE(own->causal);
  EXPECT_FALSE(own->cross);
  EXPECT_EQ(own->kvLen.value, 1024);
  // The context's up-projection: M = b C = 6144, K = r_kv = 512, N = 16 x
  // (128 + 128) = 4096, traced to the latent rank and the heads.
  const model::GemmSpec *up = ks[5].gemm();
  ASSERT_TRUE(up);
  EXPECT_EQ(up->m.value, 6144);
  EXPECT_EQ(up->k.value, 512);
  EXPECT_EQ(up->n.value, 4096);
  EXPECT_TRUE(up->k.expr.mentions(model::Param::KvLoraRank));
  EXPECT_TRUE(up->n.expr.mentions(model::Param::Heads));
  EXPECT_TRUE(up->m.expr.mentions(model::Param::Microbatch));
  // The chunk over the context: not causal, all 1024 x 3072 pairs:
  // FLOPs 2 x (2 x 16) x 1024 x 3072 x 320 = 64,424,509,440. Blocks: 8
  // query blocks x 24 key blocks = 192 per head of 2 x 128^2 x 320 FLOP:
  // 32 x 192 x 10,485,760 / 791.52e12 = 81.39 us; bytes: Q, O of 1024
  // queries and K, V of 3072 keys, 2 x 16 x (1024 + 3072) x 320 x 2 =
  // 83,886,080 at 2,847.5 GB/s = 29.46 us; the longest CTA 24 blocks on
  // one SM: 24 x 10,485,760 / (791.52e12 / 132) = 41.97 us; + 2 us.
  const model::AttentionSpec *ctx = ks[6].attention();
  ASSERT_TRUE(ctx);
  EXPECT_TRUE(ctx->cross);
  EXPECT_FALSE(ctx->causal);
  EXPECT_EQ(ctx->queryLen.value, 1024);
  EXPECT_EQ(ctx->kvLen.value, 3072);
  KernelEstimate e = predictKernel(ks[6], model::DType::BF16, h100());
  ASSERT_TRUE(e.supported) << e.unsupported;
  EXPECT_DOUBLE_EQ(e.flops, 2.0 * 32 * 1024 * 3072 * 320);
  EXPECT_NEAR(e.attention.computeUs, 32 * 192 * 10485760.0 / kRate * 1e6,
              1e-9);
  EXPECT_NEAR(e.attention.memoryUs, 83886080.0 / kBandwidth * 1e6, 1e-9);
  EXPECT_NEAR(e.attention.criticalPathUs,
              24 * 10485760.0 / (kRate / 132) * 1e6, 1e-9);
  EXPECT_NEAR(e.predictedUs, e.attention.computeUs + 2, 1e-9);
  EXPECT_DOUBLE_EQ(e.attention.cacheBytes, 0);
  // The merge: b q a_t = 32,768 rows of d_v = 128, one piece: reads two
  // outputs and writes one (3 x 128 x 2 bytes) and reads two fp32 LSEs:
  // 32,768 x 776 = 25,427,968 bytes at 2,847.5 GB/s = 8.93 us + one 2 us
  // launch.
  const model::ElementwiseSpec *merge = ks[7].elementwise();
  ASSERT_TRUE(merge);
  EXPECT_EQ(merge->rows.value, 32768);
  EXPECT_EQ(merge->width.value, 128);
  EXPECT_EQ(merge->count, 1);
  KernelEstimate m = predictKernel(ks[7], model::DType::BF16, h100());
  ASSERT_TRUE(m.supported);
  EXPECT_DOUBLE_EQ(m.elementwiseBytes, 25427968.0);
  EXPECT_NEAR(m.predictedUs, 25427968.0 / kBandwidth * 1e6 + 2, 1e-9);
  // At b = 4 and C = 40,960 the workspace's 16,384 tokens per sequence
  // make 3 pieces: 3 merges, the first two writing their LSE.
  c.microbatch = 4;
  const model::RunShape longRun = model::RunShape::prefill(1024 + 40960);
  EXPECT_EQ(model::mlaContextPieces(c, longRun), 3);
  ks = model::mlaKernels(c, longRun, 0);
  const model::ElementwiseSpec *merges = ks[7].elementwise();
  ASSERT_TRUE(merges);
  EXPECT_EQ(merges->count, 3);
  // 3 x 65,536 rows x 776 + 2 x 65,536 x 4 = 153,092,096 bytes.
  EXPECT_DOUBLE_EQ(merges->bytes(2), 153092096.0);
  // Training and a prefill with no cache keep one attention.
  for (const model::RunShape &r :
       {model::RunShape::train(), model::RunShape::prefill()}) {
    EXPECT_EQ(model::mlaContextTokens(c, r), 0);
    for (const model::Kernel &k : model::mlaKernels(c, r, 0))
      EXPECT_NE(k.role(), model::Role::MlaContextUp);
  }
}

TEST(CachedAttention, DraftsSeeTheDraftsBeforeThem) {
  // Speculative decoding, 3 drafts at context 4096 (kv length 4096 + 4 =
  // 4100): the 4 queries of a head see 4097, 4098, 4099, 4100 keys =
  // 4 x 4100 - 3 x 4 / 2 = 16,394 pairs. 32 heads (8 kv heads) of d = 128:
  // FLOPs 2 x 32 x 256 x 16,394 = 268,599,296 (every query over all 4100
  // keys would be 268,697,600).
  model::ModelConfig c = testmodels::fusedAttentionModel(32, 8, 4096, 4);
  model::AttentionSpec a =
      model::attentionKernel(c, model::RunShape::decode(4100, 3), 0);
  ASSERT_EQ(a.queryLen.value, 4);
  ASSERT_EQ(a.kvLen.value, 4100);
  DecodeAttentionProblem p = decodeAttentionProblem(a, model::DType::BF16);
  EXPECT_EQ(p.heads, 128);
  EXPECT_EQ(p.draft, 3);
  KernelEstimate k = predictKernel(a, model::DType::BF16, h100());
  ASSERT_TRUE(k.decodeStep);
  EXPECT_DOUBLE_EQ(k.flops, 268599296.0);
  // The cache is read whole once (the last draft sees every key).
  EXPECT_EQ(k.decode.keysRead, 4100);
  // No draft: one query over 4097 keys, 2 x 32 x 256 x 4097.
  KernelEstimate one = predictKernel(
      model::attentionKernel(c, model::RunShape::decode(4097), 0),
      model::DType::BF16, h100());
  EXPECT_DOUBLE_EQ(one.flops, 2.0 * 32 * 256 * 4097);

  // A sliding window of 1024: each query sees its last 1024 keys, and the
  // four windows end one key apart, so the step reads the last 1024 + 3 =
  // 1027 keys (the block states kv_len = window + draft); FLOPs 2 x 32 x
  // 256 x 4 x 1024. The key blocks read: ceil(1026 / 128) + 1 = 10 blocks
  // of 128 cover any 1027 keys, more than the 1027 there are.
  model::ModelConfig w = c;
  w.attention.window = 1024;
  model::AttentionSpec wa =
      model::attentionKernel(w, model::RunShape::decode(4100, 3), 0);
  EXPECT_EQ(wa.kvLen.value, 1027);
  EXPECT_EQ(wa.kvLen.expr.str(), "window+3");
  KernelEstimate wk = predictKernel(wa, model::DType::BF16, h100());
  EXPECT_DOUBLE_EQ(wk.flops, 2.0 * 32 * 256 * 4 * 1024);
  EXPECT_EQ(wk.decode.keysRead, 1027);
}
