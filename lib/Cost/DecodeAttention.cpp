//===- DecodeAttention.cpp - One decode step's attention over a KV cache --===//
//
// The formulas of docs/cost-model.md#decode-attention.
//
//===----------------------------------------------------------------------===//

#include "tshape/Cost/DecodeAttention.h"
#include "tshape/Cost/GemmModel.h"

#include <algorithm>
#include <cmath>
#include <vector>

using namespace tshape;
using namespace tshape::cost;

namespace {
int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
} // namespace

int64_t tshape::cost::decodeSplits(int64_t ctas, int64_t sms,
                                   int64_t blocks) {
  // FlashAttention's num_splits_heuristic (flash_api.cpp, FA2 and FA3).
  if (sms <= 0 || blocks <= 1 || double(ctas) >= 0.8 * double(sms))
    return 1;
  int64_t most = std::min<int64_t>({128, sms, blocks});
  std::vector<double> eff(size_t(most) + 1, 0);
  double best = 0;
  for (int64_t s = 1; s <= most; ++s) {
    // Some counts give the blocks per split of the count before (64
    // blocks in 12 splits are 11 splits of 6): not eligible.
    if (s > 1 && ceilDiv(blocks, s) == ceilDiv(blocks, s - 1))
      continue;
    double waves = double(ctas * s) / double(sms);
    eff[size_t(s)] = waves / std::ceil(waves);
    best = std::max(best, eff[size_t(s)]);
  }
  for (int64_t s = 1; s <= most; ++s)
    if (eff[size_t(s)] > 0 && eff[size_t(s)] >= 0.85 * best)
      return s;
  return 1;
}

DecodeAttentionEstimate
tshape::cost::estimateDecodeAttention(const DecodeAttentionProblem &p,
                                      const target::GpuTarget &t) {
  DecodeAttentionEstimate e;
  const double eb = double(model::dtypeBytes(p.dtype));
  const bool windowed = p.window > 0 && p.window < p.context;
  const int64_t attended = windowed ? p.window : p.context;
  // Scores over the key head dim d, values over dv (= d unless stated).
  const int64_t dv = p.valueHeadDim > 0 ? p.valueHeadDim : p.headDim;
  e.flops = 2.0 * double(p.batch) * double(p.heads) * double(p.headDim + dv) *
            double(attended);
  if (p.draft > 0) {
    // The 1 + draft rows of a query head are positions context - draft - 1
    // .. context - 1: row j sees min(context - draft + j, window) keys.
    const double rows = double(p.heads) / double(p.draft + 1);
    const double pairs =
        maskedPairs(p.context, p.window, true) -
        maskedPairs(std::max<int64_t>(0, p.context - p.draft - 1), p.window,
                    true);
    e.flops = 2.0 * double(p.batch) * rows * double(p.headDim + dv) * pairs;
  }
  // Absorbed MLA (values inside the keys) has kernels of its own.
  const std::vector<int64_t> &menu =
      p.valuesInKeys ? t.latentDecodeHeadDims : t.fusedHeadDims;
  auto it = std::lower_bound(menu.begin(), menu.end(), p.headDim);
  if (it == menu.end() || t.peak(p.dtype) <= 0 || p.kvHeads <= 0) {
    e.supported = false;
    return e;
  }
  e.paddedHeadDim = *it;
  e.headDimEfficiency = double(p.headDim) / double(*it);

  // The query heads of one kv head share its keys: one CTA computes their
  // rows together, padded to the query tile.
  const int64_t tile = std::max<int64_t>(1, t.decodeQueryTile);
  e.groupRows = std::max<int64_t>(1, p.heads / p.kvHeads);
  e.queryTiles = ceilDiv(e.groupRows, tile);
  // Keys are read in blocks; a window starting anywhere touches
  // ceil((w-1)/B) + 1 of them (as in the prefill model).
  const int64_t blk = std::max<int64_t>(1, t.attentionBlock);
  // The drafts' windows end one key apart: together window + draft keys.
  e.keysRead = windowed ? std::min(p.context,
                                   (ceilDiv(p.window + p.draft - 1, blk) + 1) *
                                       blk)
                        : p.context;
  e.kvBlocks = ceilDiv(e.keysRead, blk);

  const int64_t units = p.batch * p.kvHeads * e.queryTiles;
  // FlashAttention 2's varlen path packs the query heads of a kv head only
  // by swapping them into the sequence dimension (several per kv head, no
  // window), splits only then, and its heuristic counts two 128-thread
  // CTAs per SM.
  const bool fa2 = t.decodeSplitGqaOnly;
  e.swappedGqa = fa2 && e.groupRows > 1 && p.window <= 0;
  const bool splittable = !fa2 || e.swappedGqa;
  e.splits = splittable ? decodeSplits(units, t.smCount * (fa2 ? 2 : 1),
                                       e.kvBlocks)
                        : 1;
  e.ctas = units * e.splits;
  e.waves = ceilDiv(e.ctas, std::max<int64_t>(1, t.smCount));

  // K and V of each key read (K only when the values are in the keys).
  e.cacheBytes = eb * double(p.batch) * double(p.kvHeads) *
                 double(e.keysRead) *
                 double(p.headDim + (p.valuesInKeys ? 0 : dv));
  const double qoBytes =
      eb * double(p.batch) * double(p.heads) * double(p.headDim + dv);
  // A split writes fp32 partial outputs (and their log-sum-exp) that the
  // merge reads back.
  const double partialBytes =
      e.splits > 1 ? 2.0 * 4 * double(e.splits) * double(p.batch) *
                         double(p.heads) * double(dv + 1)
                   : 0;
  e.bytes = e.cacheBytes + qoBytes + partialBytes;
  const double bw = t.memoryBandwidthGBs * 1e9;
  e.memoryUs = e.bytes / (bw * t.decodeMemoryEfficiency) * 1e6;

  // Issued work: every CTA computes a full query tile over its keys, at the
  // padded head dim.
  const int64_t dvIssued = p.valueHeadDim > 0 ? dv : *it;
  const double issued = 2.0 * double(units) * double(tile) *
                        double(e.keysRead) * double(*it + dvIssued);
  const double rate = t.peak(p.dtype) * 1e12 * t.attentionEfficiency;
  e.computeUs = issued / rate * 1e6;
  // The CTAs run in waves over the SMs. A wave takes the longer of a CTA's
  // latency and its work at one SM's share of the attention rate; the
  // bytes take the longer of the HBM time and the time of the busy SMs at
  // their own bandwidth (a few CTAs cannot saturate HBM).
  const double sms = double(std::max<int64_t>(1, t.smCount));
  const double smBandwidth = bw / sms * t.decodeSmBandwidth;
  const double ctaBytes = e.bytes / double(e.ctas);
  e.ctaUs = std::max(t.decodeCtaUs,
                     issued / double(e.ctas) / (rate / sms) * 1e6);
  e.scheduleUs = double(e.waves) * e.ctaUs;
  e.bandwidthUs = std::max(
      e.memoryUs, smBandwidth > 0
                      ? double(e.waves) * ctaBytes / smBandwidth * 1e6
                      : 0.0);
  const double core = std::max(e.scheduleUs, e.computeUs);
  e.memoryBound = e.bandwidthUs > core;
  // The merge of a split: a fixed cost and, on FlashAttention 2, its
  // CTAs (one per 4 rows of head dim 128, 8 at 64, else 16; each loops
  // over the splits) in waves over the SMs. FlashAttention 3's merge is
  // another kernel; a cost per split did not fit its timings better.
  e.combineUs = e.splits > 1 ? t.decodeCombineUs : 0.0;
  if (e.splits > 1 && fa2) {
    const int64_t mergeRows = dv % 128 == 0 ? 4 : dv % 64 == 0 ? 8 : 16;
    const int64_t mergeWaves =
        ceilDiv(ceilDiv(p.batch * p.heads, mergeRows),
                std::max<int64_t>(1, t.smCount));
    e.combineUs += t.decodeSplitCombineUs * double(e.splits) *
                   double(mergeWaves);
  }
  // The swapped layout's copies: O back into the caller's layout, and Q
  // into the swapped one unless that is a view (one sequence, or one kv
  // head).
  if (e.swappedGqa)
    e.copyUs = t.decodeOutCopyUs +
               (p.batch > 1 && p.kvHeads > 1 ? t.decodeQueryCopyUs : 0.0);
  e.fixedUs = t.decodeOverheadUs + e.combineUs + e.copyUs;
  e.predictedUs =
      overlap(core, e.bandwidthUs, t.decodeOverlapExponent) + e.fixedUs;
  e.tflops = e.flops / (e.predictedUs * 1e-6) / 1e12;
  return e;
}
