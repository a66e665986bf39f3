//===- GemmModel.cpp - Predicted GEMM time on a GPU -----------------------===//
//
// The formulas of docs/cost-model.md.
//
//===----------------------------------------------------------------------===//

#include "tshape/Analysis/GemmModel.h"

#include <algorithm>
#include <cmath>

using namespace tshape;
using namespace tshape::analysis;

namespace {
int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
} // namespace

double tshape::analysis::alignmentFactor(int64_t vectorBytes) {
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

DimAlignment tshape::analysis::alignmentOf(int64_t elements,
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

GemmEstimate tshape::analysis::estimateWithTile(const GemmProblem &p,
                                                const target::GpuTarget &t,
                                                const target::TileConfig &tile,
                                                int64_t splitK) {
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

  // Tile quantization: partial edge tiles cost whole tiles.
  e.tilesM = ceilDiv(p.m, tile.m);
  e.tilesN = ceilDiv(p.n, tile.n);
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
  e.waveEfficiency = double(ctas) / double(e.waves * e.slots);

  e.flops = 2.0 * p.batch * double(p.m) * double(p.n) * double(p.k);
  e.bytes = double(eb) * p.batch *
            (double(p.m) * p.k + double(p.k) * p.n + double(p.m) * p.n);
  e.intensity = e.flops / e.bytes;
  if (splitK > 1) // fp32 partial sums written and read back
    e.bytes += 2.0 * 4 * splitK * p.batch * double(p.m) * double(p.n);
  double peak = t.peak(p.dtype);
  if (peak <= 0) {
    e.supported = false;
    return e;
  }
  double rate = peak * 1e12 * t.mathEfficiency; // FLOP/s on the best tile
  double bw = t.memoryBandwidthGBs * 1e9 * t.memoryEfficiency;
  double idealCompute = e.flops / rate * 1e6;
  e.computeUs = idealCompute /
                (tile.efficiency * e.tileEfficiency * e.kEfficiency *
                 e.waveEfficiency * e.alignFactor);
  // Narrow loads also keep a memory-bound kernel from saturating DRAM.
  double memoryFloor = e.bytes / bw * 1e6;
  e.memoryUs = memoryFloor / e.alignFactor;
  e.memoryBound = e.memoryUs > e.computeUs;
  e.predictedUs = std::max(e.computeUs, e.memoryUs) + t.launchOverheadUs;
  e.idealUs = std::max(idealCompute, memoryFloor) + t.launchOverheadUs;
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

GemmEstimate tshape::analysis::estimateGemm(const GemmProblem &p,
                                            const target::GpuTarget &t) {
  GemmEstimate best;
  bool first = true;
  for (const target::TileConfig &tile : t.tiles) {
    int64_t kSteps = ceilDiv(p.k, std::max<int64_t>(
                                      1, t.kTileBytes /
                                             model::dtypeBytes(p.dtype)));
    for (int64_t split = 1; split <= 32 && split <= kSteps; split *= 2) {
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

FusedAttentionEstimate tshape::analysis::estimateFusedAttention(
    int64_t batch, int64_t seq, int64_t headDim, bool causal,
    model::DType dtype, const target::GpuTarget &t) {
  FusedAttentionEstimate f;
  f.flops = 4.0 * batch * double(seq) * double(seq) * double(headDim) *
            (causal ? 0.5 : 1.0);
  auto it = std::lower_bound(t.fusedHeadDims.begin(), t.fusedHeadDims.end(),
                             headDim);
  if (it == t.fusedHeadDims.end() || t.peak(dtype) <= 0) {
    f.supported = false;
    return f;
  }
  f.paddedHeadDim = *it;
  f.headDimEfficiency = double(headDim) / double(*it);
  double rate = t.peak(dtype) * 1e12 * t.mathEfficiency;
  f.predictedUs = f.flops / (rate * f.headDimEfficiency) * 1e6 +
                  t.launchOverheadUs;
  f.tflops = f.flops / (f.predictedUs * 1e-6) / 1e12;
  return f;
}
