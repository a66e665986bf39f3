//===- GemmModel.cpp - Predicted GEMM time on a GPU -----------------------===//
//
// The formulas of docs/cost-model.md.
//
//===----------------------------------------------------------------------===//

#include "tshape/Cost/GemmModel.h"

#include <algorithm>
#include <cmath>

using namespace tshape;
using namespace tshape::cost;

namespace {
int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// A block-scaled FP8 GEMM (a Quantize::Block layer, or an MXFP8 run's
/// GEMM that reads FP8 copies) on a target with a block-scaled rate of its
/// own: it runs that kernel, not the per-tensor layer's.
bool runsBlockKernel(const GemmProblem &p, const target::GpuTarget &t) {
  return p.dtype == model::DType::FP8 &&
         (p.quantize == Quantize::Block || p.blockScaled) &&
         t.blockFp8MathEfficiency > 0;
}
} // namespace

double tshape::cost::overlap(double compute, double memory, double p) {
  if (p <= 0)
    return std::max(compute, memory);
  double hi = std::max(compute, memory);
  if (hi <= 0)
    return 0;
  return hi * std::pow(std::pow(compute / hi, p) + std::pow(memory / hi, p),
                       1 / p);
}

double tshape::cost::alignmentFactor(int64_t vectorBytes) {
  // 16-byte loads (and Hopper's TMA, which needs 16-byte strides) run at
  // full rate; narrower ones force slower kernels. The 4-byte factor is
  // 272.7 / 398.4 = 0.68, a public H100 measurement of a SwiGLU GEMM with
  // f = 10922 (4-byte aligned rows) against f = 10944 (aligned).
  if (vectorBytes >= 16)
    return 1.0;
  if (vectorBytes >= 8)
    return 0.8;
  if (vectorBytes >= 4)
    return 0.68;
  return 0.6;
}

DimAlignment tshape::cost::alignmentOf(int64_t elements,
                                           model::DType dtype,
                                           const target::GpuTarget &t) {
  DimAlignment a;
  a.elements = elements;
  a.bytes = elements * model::dtypeBytes(dtype);
  a.meetsMin = a.bytes % t.minAlignBytes == 0;
  a.meetsBest = a.bytes % t.bestAlignBytes == 0;
  a.vectorBytes = 16;
  while (a.vectorBytes > 1 && a.bytes % a.vectorBytes != 0)
    a.vectorBytes /= 2;
  return a;
}

GemmEstimate tshape::cost::estimateWithTile(const GemmProblem &p,
                                                const target::GpuTarget &t,
                                                const target::TileConfig &tile,
                                                int64_t splitK, bool streamK,
                                                int64_t clusterM,
                                                int64_t clusterN) {
  GemmEstimate e;
  e.splitK = splitK;
  const int64_t eb = model::dtypeBytes(p.dtype);
  e.tile = tile;
  e.m = alignmentOf(p.m, p.dtype, t);
  e.n = alignmentOf(p.n, p.dtype, t);
  e.k = alignmentOf(p.k, p.dtype, t);
  e.lda = alignmentOf(p.transA ? p.m : p.k, p.dtype, t);
  e.ldb = alignmentOf(p.transB ? p.k : p.n, p.dtype, t);
  e.ldc = e.n;
  int64_t vec = std::min({e.lda.vectorBytes, e.ldb.vectorBytes,
                          e.ldc.vectorBytes});
  e.alignFactor = alignmentFactor(vec);

  // Tile quantization: partial edge tiles cost whole tiles, and a
  // clustered kernel launches whole clusters (the padding tiles run too).
  clusterM = std::max<int64_t>(1, clusterM);
  clusterN = std::max<int64_t>(1, clusterN);
  e.tilesM = ceilDiv(ceilDiv(p.m, tile.m), clusterM) * clusterM;
  e.tilesN = ceilDiv(ceilDiv(p.n, tile.n), clusterN) * clusterN;
  e.tiles = p.batch * e.tilesM * e.tilesN;
  e.tileEfficiency = double(p.m) * double(p.n) /
                     (double(e.tilesM * tile.m) * double(e.tilesN * tile.n));
  // K-step quantization: the main loop consumes kTileBytes of K per step;
  // with split-K each slice is rounded up to whole steps.
  int64_t kStep = std::max<int64_t>(1, t.kTileBytes / eb);
  int64_t kSlice = ceilDiv(ceilDiv(p.k, splitK), kStep) * kStep;
  e.kEfficiency = double(p.k) / double(kSlice * splitK);
  // Wave quantization: tiles (x split-K slices) run in waves of SMs x tiles
  // per SM.
  e.slots = t.smCount * tile.ctasPerSm;
  int64_t ctas = e.tiles * splitK;
  e.waves = ceilDiv(ctas, e.slots);
  // Stream-K and persistent kernels share the last partial wave out: with
  // smoothing s the kernel runs (1-s) x whole waves + s x fractional waves.
  double fractional = double(ctas) / double(e.slots);
  double s = streamK ? std::clamp(t.waveSmoothing, 0.0, 1.0) : 0.0;
  e.waveEfficiency = fractional / ((1 - s) * double(e.waves) + s * fractional);

  e.flops = 2.0 * p.batch * double(p.m) * double(p.n) * double(p.k);
  // An FP8 linear layer writes its output in bf16: 2 bytes per element
  // where its kernel writes it once, the target's fp8OutputBytes of DRAM
  // traffic per element in all (B200's measured layers move more).
  const bool linearFp8 = p.quantize != Quantize::None;
  // A block-scaled FP8 GEMM on a target with a rate of its own runs its
  // own kernel: the bf16 output written once, no per-CTA rate.
  const bool blockKernel = runsBlockKernel(p, t);
  const double outBytes = blockKernel ? 2.0
                          : linearFp8 ? t.fp8OutputBytes
                                      : double(eb);
  e.bytes = p.batch * (double(eb) * (double(p.m) * p.k + double(p.k) * p.n) +
                       double(outBytes) * double(p.m) * p.n);
  e.intensity = e.flops / e.bytes;
  if (splitK > 1) // fp32 partial sums written and read back
    e.bytes += 2.0 * 4 * splitK * p.batch * double(p.m) * double(p.n);
  double peak = t.peak(p.dtype);
  if (peak <= 0) {
    e.supported = false;
    return e;
  }
  // FLOP/s on the best tile; FP8 tensor-core GEMMs have their own
  // fraction of their (twice as high) peak.
  double rate =
      peak * 1e12 *
      (blockKernel                    ? t.blockFp8MathEfficiency
       : p.dtype == model::DType::FP8 ? t.fp8MathEfficiency
                                      : t.mathEfficiency) *
      (p.grouped ? t.groupedGemmEfficiency : 1.0);
  double bw = t.memoryBandwidthGBs * 1e9 * t.memoryEfficiency;
  double idealCompute = e.flops / rate * 1e6;
  e.computeUs = idealCompute /
                (tile.efficiency * e.tileEfficiency * e.kEfficiency *
                 e.waveEfficiency * e.alignFactor);
  // An FP8 linear layer's CTA runs at fp8SmEfficiency of its SM's share of
  // the FP8 peak, the chip as a whole at most at `rate`: the chip's FP8
  // rate is a power limit that the busy SMs share (their clock falls as
  // more of them run), so a wave of r CTAs takes the longer of one tile at
  // the per-CTA rate and r tiles at the chip's rate. A kernel that runs
  // whole waves (no stream-K: the persistent CUTLASS kernels a target
  // names) is priced wave by wave, its partial last wave with its own r;
  // a library's stream-K kernel as its waves at the per-CTA rate or the
  // work at the chip's rate, whichever is longer.
  if (p.quantize != Quantize::None && !p.grouped && t.fp8SmEfficiency > 0 &&
      p.dtype == model::DType::FP8 && !blockKernel) {
    const double ctaRate = peak * 1e12 * t.fp8SmEfficiency;
    const double eff = tile.efficiency * e.tileEfficiency * e.kEfficiency *
                       e.alignFactor;
    if (streamK) {
      const double waves = e.flops / ctaRate * 1e6 / (eff * e.waveEfficiency);
      const double chip = idealCompute / (tile.efficiency * e.alignFactor);
      e.computeUs = std::max(waves, chip);
    } else {
      // One tile (partial tiles cost whole ones) at the per-CTA rate, its
      // SM's share of ctaRate, and at the whole chip's rate.
      const double tileFlops = e.flops / double(ctas) / eff;
      const double oneCta = tileFlops / (ctaRate / double(e.slots)) * 1e6;
      const double shared = tileFlops / rate * 1e6;
      const int64_t full = ctas / e.slots, last = ctas % e.slots;
      e.computeUs =
          double(full) * std::max(oneCta, double(e.slots) * shared) +
          (last ? std::max(oneCta, double(last) * shared) : 0.0);
    }
  }
  // Narrow loads also keep a memory-bound kernel from saturating DRAM.
  double memoryFloor = e.bytes / bw * 1e6;
  e.memoryUs = memoryFloor / e.alignFactor;
  // The epilogue writes C after the main loop: a tile's store overlaps
  // other CTAs' main loops only in part, so that part of the output's
  // write time adds to the compute time.
  double outputUs = double(outBytes) * p.batch * double(p.m) * double(p.n) /
                    bw * 1e6 / e.alignFactor;
  e.computeUs += t.epilogueSerialFraction * outputUs;
  e.memoryBound = e.memoryUs > e.computeUs;
  // The quantization runs before the GEMM (its own kernels): its time adds.
  e.quantize = estimateQuantize(p, t);
  e.predictedUs = overlap(e.computeUs, e.memoryUs, t.overlapExponent) +
                  t.launchOverheadUs + e.quantize.predictedUs;
  e.idealUs = overlap(idealCompute, memoryFloor, t.overlapExponent) +
              t.launchOverheadUs + e.quantize.predictedUs;
  e.tflops = e.flops / (e.predictedUs * 1e-6) / 1e12;

  // Attribute the lost time to its causes, multiplicatively in a fixed
  // order (tile, K-step, wave, alignment), and only the part above the
  // memory floor.
  double c = idealCompute / tile.efficiency, floor = memoryFloor;
  auto step = [&](double factor, bool scalesMemory) {
    double before = std::max(c, floor);
    c /= factor;
    if (scalesMemory)
      floor /= factor;
    return std::max(c, floor) - before;
  };
  e.lostTileUs = step(e.tileEfficiency, false);
  e.lostKUs = step(e.kEfficiency, false);
  e.lostWaveUs = step(e.waveEfficiency, false);
  e.lostAlignUs = step(e.alignFactor, true);
  return e;
}

const target::Fp8LinearKernel *
tshape::cost::fp8LinearKernel(const GemmProblem &p,
                              const target::GpuTarget &t) {
  // Grouped expert GEMMs run the fused MoE kernel (vLLM's Triton
  // fused_moe), not the linear layer's scaled_mm dispatch.
  if (p.quantize == Quantize::None || p.dtype != model::DType::FP8 ||
      p.grouped)
    return nullptr;
  // A block-scaled GEMM with its own rate runs its own kernel.
  if (runsBlockKernel(p, t))
    return nullptr;
  for (const target::Fp8LinearKernel &k : t.fp8LinearKernels)
    if (k.admits(p.m, p.n, p.k))
      return &k;
  return nullptr;
}

QuantizeEstimate tshape::cost::estimateQuantize(const GemmProblem &p,
                                                const target::GpuTarget &t) {
  QuantizeEstimate q;
  if (p.quantize == Quantize::None || p.dtype != model::DType::FP8 ||
      p.inputQuantized)
    return q;
  const double elems = double(p.batch) * double(p.m) * double(p.k);
  const bool block = p.quantize == Quantize::Block;
  const bool amax = p.quantize == Quantize::PerTensor;
  // Bytes per element: per-tensor reads bf16 twice (amax, cast) and writes
  // FP8 once; a static scale and block scaling read once and write FP8
  // (block scaling plus a one-byte scale per 32 elements). A transposed
  // copy writes the FP8 side again.
  // (The precision table's bytes: block scaling is MXFP8's today.)
  const double write =
      precisionInfo(block ? Precision::MXFP8 : Precision::FP8)
          .bytesPerElement();
  const double read = amax ? 4.0 : 2.0;
  q.kernels = amax ? 2 : 1;
  q.bytes = elems * (read + write * (p.quantizeTranspose ? 2 : 1));
  q.predictedUs =
      q.bytes / (t.memoryBandwidthGBs * 1e9 * t.quantizeEfficiency) * 1e6 +
      q.kernels * t.quantizeOverheadUs;
  return q;
}

GemmEstimate tshape::cost::estimateGemm(const GemmProblem &p,
                                            const target::GpuTarget &t) {
  // An FP8 linear layer runs the framework's own kernel where the target
  // names its dispatch (vLLM's CUTLASS FP8 kernels on Hopper): that tile,
  // K unsplit.
  if (const target::Fp8LinearKernel *k = fp8LinearKernel(p, t))
    return estimateWithTile(p, t, k->tile, 1, k->streamK, k->clusterM,
                            k->clusterN);
  GemmEstimate best;
  bool first = true;
  for (const target::TileConfig &tile : t.tiles) {
    int64_t kSteps = ceilDiv(p.k, std::max<int64_t>(
                                      1, t.kTileBytes /
                                             model::dtypeBytes(p.dtype)));
    // A target whose FP8 linear layers do not split K (B200).
    if (p.quantize != Quantize::None && !p.grouped && !t.fp8SplitK)
      kSteps = 1;
    // Libraries split K only into slices of at least splitKMinK elements.
    int64_t maxSplit = t.splitKMinK > 0
                           ? std::max<int64_t>(1, int64_t(double(p.k) /
                                                          t.splitKMinK))
                           : 32;
    for (int64_t split = 1; split <= 32 && split <= kSteps &&
                            (split == 1 || split <= maxSplit);
         split *= 2) {
      GemmEstimate e = estimateWithTile(p, t, tile, split);
      if (first || e.predictedUs < best.predictedUs) {
        best = e;
        first = false;
      }
      // Libraries split K only while the tiles leave SMs idle.
      if (e.tiles * split >= e.slots)
        break;
    }
  }
  return best;
}

double tshape::cost::maskedPairs(int64_t n, int64_t window,
                                    bool causal) {
  double dn = double(n);
  if (!causal)
    return window > 0 ? dn * std::min<double>(double(window), dn) : dn * dn;
  // Query i sees keys max(0, i-w+1)..i: min(i+1, w) of them.
  double c = window > 0 ? std::min<double>(double(window), dn) : dn;
  return c * (c + 1) / 2 + (dn - c) * c;
}

double tshape::cost::cachedPairs(int64_t n, int64_t cached, int64_t window,
                                 bool causal) {
  if (cached <= 0)
    return maskedPairs(n, window, causal);
  const double keys = double(cached) + double(n);
  if (!causal)
    return double(n) *
           (window > 0 ? std::min<double>(double(window), keys) : keys);
  // Queries cached..cached+n-1 of a sequence of cached + n keys.
  return maskedPairs(cached + n, window, true) -
         maskedPairs(cached, window, true);
}

std::pair<int64_t, int64_t>
tshape::cost::fusedHeadDims(const target::GpuTarget &t, int64_t d,
                            int64_t dv) {
  auto up = [&](int64_t x) -> int64_t {
    auto it = std::lower_bound(t.fusedHeadDims.begin(),
                               t.fusedHeadDims.end(), x);
    return it == t.fusedHeadDims.end() ? 0 : *it;
  };
  if (dv <= 0 || dv == d) {
    const int64_t pd = up(d);
    return {pd, pd};
  }
  const int64_t pd = up(d), pdv = up(dv);
  for (const auto &[kd, kdv] : t.fusedValueHeadDims)
    if (pd == kd && pdv == kdv)
      return {kd, kdv};
  const int64_t both = up(std::max(d, dv));
  return {both, both};
}

AttentionBlocks tshape::cost::attentionBlocks(const AttentionProblem &p,
                                             const target::GpuTarget &t,
                                             int64_t pd) {
  AttentionBlocks r;
  // Over keys not its own (cross): every key block, none masked.
  const bool causal = p.causal && p.crossKeys == 0;
  int64_t m = std::max<int64_t>(1, t.attentionBlock), n = m;
  for (const auto &tile : t.attentionTiles)
    if (tile.headDim == pd) {
      m = tile.blockM;
      n = p.window > 0 ? tile.blockNLocal
          : causal     ? tile.blockNCausal
                       : tile.blockNFull;
    }
  const int64_t kv = std::max<int64_t>(1, p.kvHeads);
  r.packed = t.attentionPackGqa && p.heads % kv == 0;
  const int64_t g = r.packed ? p.heads / kv : 1;
  const int64_t qrows = p.seq * g,
                keys = p.crossKeys > 0 ? p.crossKeys : p.cached + p.seq;
  r.rows = std::min(m, ceilDiv(qrows, 64) * 64);
  r.cols = std::min(n, ceilDiv(keys, 64) * 64);
  r.queryBlocks = ceilDiv(qrows, m);
  const int64_t nk = ceilDiv(keys, n), nq = r.queryBlocks;
  if (!causal) {
    // Every key block, or a window's worth (wb) around each query block.
    const int64_t wb = p.window > 0 ? ceilDiv(p.window - 1, n) + 1 : nk;
    r.longest = std::min(nk, wb);
    r.pairs = double(nq) * double(r.longest);
    return r;
  }
  // Key block k (keys kn..kn+n-1) is computed by query blocks j0..j1-1:
  // j0 the first whose last query (absolute key position cached + token)
  // reaches kn, j1 the first whose first query's window starts past the
  // block's last key. Query block j holds rows jm..(j+1)m-1, tokens
  // floor(row / g).
  for (int64_t k = 0; k < nk; ++k) {
    const int64_t need = k * n - p.cached;
    int64_t j0 = 0;
    if (need > 0) {
      if (need > p.seq - 1)
        break; // no later key block is reached either
      j0 = ceilDiv(need * g + 1, m) - 1;
    }
    int64_t j1 = nq;
    if (p.window > 0) {
      const int64_t lim = k * n + n + p.window - 2 - p.cached;
      if (lim < 0)
        continue;
      j1 = std::min(nq, ceilDiv(g * (lim + 1), m));
    }
    if (j1 > j0) {
      r.pairs += double(j1 - j0);
      if (j0 <= nq - 1 && nq - 1 < j1)
        ++r.longest;
    }
  }
  return r;
}

FusedAttentionEstimate
tshape::cost::estimateAttention(const AttentionProblem &p,
                                    const target::GpuTarget &t) {
  FusedAttentionEstimate f;
  double heads = double(p.batch) * double(p.heads);
  // Scores (Q.K^T) and values (P.V): 2 x (d + dv) FLOPs per query-key
  // pair (4 d when dv = d), over the pairs the mask leaves.
  const int64_t dv = p.valueHeadDim > 0 ? p.valueHeadDim : p.headDim;
  const double pairs =
      p.crossKeys > 0 ? double(p.seq) * double(p.crossKeys)
                      : cachedPairs(p.seq, p.cached, p.window, p.causal);
  f.flops = 2.0 * heads * pairs * double(p.headDim + dv);
  const auto [pd, pdv] = fusedHeadDims(t, p.headDim, dv);
  if (pd == 0 || t.peak(p.dtype) <= 0) {
    f.supported = false;
    return f;
  }
  f.paddedHeadDim = pd;
  f.paddedValueHeadDim = pdv;
  f.headDimEfficiency = double(p.headDim + dv) / double(pd + pdv);
  // Work is done in tiles of M query rows x N keys (the target's tile for
  // the padded head dim, else B x B): a tile is computed whole when the
  // mask leaves any of it. With packed GQA (FA3 over a paged cache) a
  // query block holds M rows of (query, head) pairs of one kv head's g
  // query heads, the head fastest: M / g queries. A short sequence runs
  // one block of its rows rounded up to 64 (Hopper's wgmma M), and keys
  // likewise.
  const AttentionBlocks ab = attentionBlocks(p, t, pd);
  const int64_t rows = ab.rows, cols = ab.cols, nb = ab.queryBlocks;
  const double blocks = ab.pairs;
  const int64_t lastBlocks = ab.longest;
  // Query blocks run once per (sequence, kv head) when packed, else per
  // (sequence, query head).
  heads = double(p.batch) * double(ab.packed ? p.kvHeads : p.heads);
  double blockFlops = 2.0 * double(rows) * double(cols) * double(pd + pdv);
  f.blockEfficiency = std::min(1.0, f.flops / f.headDimEfficiency /
                                        (heads * blocks * blockFlops));
  // The softmax of a block (exponentials on the special function units)
  // overlaps its two matrix products: a block takes the longer of the two,
  // the softmax costed as attentionSoftmaxDim head dims (of each product).
  // Each query block also pays loading Q and writing O,
  // attentionQueryBlockCost key blocks.
  double blockCost = 2.0 * double(rows) * double(cols) *
                     std::max(double(pd + pdv), 2 * t.attentionSoftmaxDim);
  double perQueryBlock = t.attentionQueryBlockCost;
  double issued = heads * (blocks + double(nb) * perQueryBlock) * blockCost;
  double rate = t.peak(p.dtype) * 1e12 * t.attentionEfficiency;
  f.computeUs = issued / rate * 1e6;
  // One CTA per (head, query block): the longest one (the last query
  // block) runs on one SM at 1/smCount of the rate.
  double longest = double(lastBlocks) + perQueryBlock;
  f.criticalPathUs = longest * blockCost / (rate / double(t.smCount)) * 1e6;
  // Q and O once per query head, K and V read once per kv head, at the
  // kernel's share of the bandwidth (attentionMemoryEfficiency); over a
  // cache the cached K and V are read too. The new K and V are written to
  // the paged cache first by a kernel of their own (read and written:
  // twice their bytes), attentionCacheWriteCost times their time at the
  // datasheet bandwidth, added.
  double eb = double(model::dtypeBytes(p.dtype));
  // Keys not the queries' own (cross, crossKeys > 0) are read once per kv
  // head and written to no cache.
  const double kvBytes =
      p.crossKeys > 0 ? 0.0
                      : eb * double(p.batch) * double(p.seq) *
                            double(p.kvHeads) * double(p.headDim + dv);
  double bytes = eb * double(p.batch) * double(p.seq) * double(p.heads) *
                     double(p.headDim + dv) +
                 kvBytes;
  if (p.crossKeys > 0)
    bytes += eb * double(p.batch) * double(p.crossKeys) * double(p.kvHeads) *
             double(p.headDim + dv);
  if (p.cached > 0) {
    f.cacheBytes = eb * double(p.batch) * double(p.cached) *
                   double(p.kvHeads) * double(p.headDim + dv);
    bytes += f.cacheBytes;
  }
  f.bytes = bytes;
  f.memoryUs = bytes /
               (t.memoryBandwidthGBs * 1e9 * t.attentionMemoryEfficiency) *
               1e6;
  f.cacheWriteUs = t.attentionCacheWriteCost * 2.0 * kvBytes /
                   (t.memoryBandwidthGBs * 1e9) * 1e6;
  // It runs one CTA per new token of min(g (d), 512) threads
  // (csrc/cache_kernels.cu), an SM holding min(smMaxCtas, smMaxThreads /
  // threads) of them: at few kv heads it is bound by its CTAs' latency,
  // attentionCacheWriteCtaUs per CTA over the resident ones, not by its
  // bytes. Both add.
  if (kvBytes > 0) {
    const int64_t threads =
        std::min<int64_t>(512, ceilDiv(p.kvHeads * p.headDim, 32) * 32);
    const int64_t resident = std::max<int64_t>(
        1, std::min(t.smMaxCtas, t.smMaxThreads / threads));
    f.cacheWriteUs += double(p.batch) * double(p.seq) /
                      double(t.smCount * resident) *
                      t.attentionCacheWriteCtaUs;
  }
  // Every (query block, key block) pair loads the key block's K and V
  // tiles (cols keys of d and dv elements). The query heads of one kv head
  // load the same tiles, so the traffic scales with the kv heads;
  // 1/attentionKvReuse of it comes from HBM (the rest hits L2), and it
  // overlaps the matrix work by the p-norm of attentionKvOverlapExponent
  // (1: adds).
  // Packed, the pairs are already per kv head.
  f.kvStreamUs = eb * double(p.batch) * double(p.kvHeads) * blocks *
                 double(cols) * double(p.headDim + dv) /
                 std::max(1.0, t.attentionKvReuse) /
                 (t.memoryBandwidthGBs * 1e9 * t.memoryEfficiency) * 1e6;
  f.predictedUs =
      overlap(std::max({f.computeUs, f.criticalPathUs, f.memoryUs}),
              f.kvStreamUs, t.attentionKvOverlapExponent) +
      f.cacheWriteUs + t.attentionOverheadUs;
  f.tflops = f.flops / (f.predictedUs * 1e-6) / 1e12;
  return f;
}
