//===- DecodeAttention.h - One decode step's attention over a KV cache -*- C++ -*-===//
//
// The attention of one decode step: each of `batch` sequences has one new
// query token per query head, which attends to `context` keys (the cached
// tokens and itself), read from the KV cache. The kernel (FlashAttention's
// decode path, as vLLM runs it) packs the query heads of one kv head into
// the rows of one CTA (GQA: M = heads / kv_heads), splits a long cache
// across CTAs when there are too few (sequence, kv head) pairs to fill the
// SMs, and is bound by reading the cache. docs/cost-model.md#decode-attention
// states every formula. Plain C++: no MLIR types.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_COST_DECODEATTENTION_H
#define TSHAPE_COST_DECODEATTENTION_H

#include "tshape/Target/GpuTarget.h"

namespace tshape::cost {

struct DecodeAttentionProblem {
  int64_t batch = 1, heads = 1, kvHeads = 1, headDim = 128;
  /// Keys each query attends to: the cached tokens plus the new one.
  int64_t context = 1;
  /// Sliding window in keys (0: none).
  int64_t window = 0;
  /// Element type of Q, O and the cache (bf16, or fp8 for an fp8 cache).
  model::DType dtype = model::DType::BF16;
  /// The value head dim (0: headDim), and whether the values are the
  /// first valueHeadDim of each key (absorbed MLA: one latent cache).
  int64_t valueHeadDim = 0;
  bool valuesInKeys = false;
  /// Speculative decoding: draft tokens per sequence besides the new one.
  /// `heads` then counts each query head's 1 + draft query rows (heads x
  /// (1 + draft)), the last 1 + draft of the `context` keys, and the
  /// causal mask among them leaves row j (j = 0..draft) its first
  /// context - draft + j keys (at most the window): draft (draft + 1) / 2
  /// pairs fewer per head than every row over the context. The keys read
  /// are the union: the context, or under a window the last window + draft.
  int64_t draft = 0;
};

struct DecodeAttentionEstimate {
  /// False when no fused kernel covers the head dim (or the dtype has no
  /// tensor-core path on the target).
  bool supported = true;
  int64_t paddedHeadDim = 0;
  double headDimEfficiency = 1;
  /// Query heads per kv head: the M of each (sequence, kv head)'s products.
  int64_t groupRows = 1;
  /// CTAs along M per (sequence, kv head): ceil(groupRows / query tile).
  int64_t queryTiles = 1;
  /// Keys read per sequence: the context, or the key blocks a window
  /// touches (capped at the context).
  int64_t keysRead = 0;
  int64_t kvBlocks = 0; ///< key blocks (attentionBlock keys) per sequence
  int64_t splits = 1;   ///< CTAs the cache of one (sequence, kv head) is split over
  int64_t ctas = 0;     ///< batch x kv heads x query tiles x splits
  int64_t waves = 0;    ///< ceil(ctas / SMs)
  /// K and V read (2 x batch x kv heads x keys read x head dim x bytes).
  double cacheBytes = 0;
  /// Every byte moved: the cache, Q read and O written, and the fp32
  /// partial results of a split.
  double bytes = 0;
  /// Useful: 2 x batch x (head dim + value head dim) x the query-key
  /// pairs the mask leaves (heads x keys attended, less the drafts' mask).
  double flops = 0;
  /// bytes at datasheet bandwidth x decode efficiency.
  double memoryUs = 0;
  /// The bytes' time: memoryUs, or longer when the busy SMs cannot pull
  /// the bandwidth (waves x a CTA's bytes at one SM's bandwidth).
  double bandwidthUs = 0;
  /// One CTA: the longer of its latency and its (padded) work at one SM's
  /// share of the attention rate.
  double ctaUs = 0;
  double scheduleUs = 0; ///< waves x ctaUs
  /// The padded work of every CTA at the attention rate.
  double computeUs = 0;
  /// The bytes' time is the larger term: the step is bound by reading the
  /// cache, not by the CTAs' latency or their work.
  bool memoryBound = false;
  /// FlashAttention 2's swapped GQA layout (GpuTarget::decodeSplitGqaOnly):
  /// the query heads of a kv head run as its sequence rows.
  bool swappedGqa = false;
  /// Merging a split's partial results; the swapped layout's copies of Q
  /// and O; and every fixed cost together (these two and the call's).
  double combineUs = 0, copyUs = 0, fixedUs = 0;
  double predictedUs = 0, tflops = 0;
};

/// The split-KV factor of a decode kernel with `ctas` CTAs before the
/// split on `sms` SMs and `blocks` key blocks each, as FlashAttention's
/// heuristic picks it: none when the CTAs fill 80% of the SMs; else the
/// fewest splits (up to 128 and to `blocks`, skipping counts that leave
/// the blocks per split unchanged) whose wave efficiency is within 85% of
/// the best.
int64_t decodeSplits(int64_t ctas, int64_t sms, int64_t blocks);

/// The predicted time of one decode step's attention on `target`.
DecodeAttentionEstimate
estimateDecodeAttention(const DecodeAttentionProblem &p,
                        const target::GpuTarget &target);

} // namespace tshape::cost

#endif // TSHAPE_COST_DECODEATTENTION_H
