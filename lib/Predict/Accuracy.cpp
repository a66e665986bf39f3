//===- Accuracy.cpp - Predicted against measured kernel times -------------===//

#include "tshape/Predict/Accuracy.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

using namespace tshape;
using namespace tshape::predict;

model::Kernel tshape::predict::rowKernel(const KernelRow &row) {
  auto size = [](int64_t v) {
    return model::Dim{v, model::DimExpr::constant(v)};
  };
  if (row.kind == KernelKind::Gemm) {
    model::GemmSpec g;
    g.batch = size(row.gemm.batch);
    g.m = size(row.gemm.m);
    g.n = size(row.gemm.n);
    g.k = size(row.gemm.k);
    g.transA = row.gemm.transA;
    g.transB = row.gemm.transB;
    return g;
  }
  if (row.kind == KernelKind::Collective) {
    model::CollectiveSpec c;
    c.op = row.collective.op;
    c.bytes = size(int64_t(row.collective.bytes));
    c.ranks = size(row.collective.ranks);
    c.tier = row.collective.tier;
    return c;
  }
  const cost::AttentionProblem &p = row.attention;
  model::AttentionSpec a;
  a.batch = size(p.batch);
  a.heads = size(p.heads);
  a.kvHeads = size(p.kvHeads);
  a.headDim = a.valueHeadDim = size(p.headDim);
  // A decode row's query attends to the `step` cached tokens and itself;
  // a prefill row's `seq` to the `step` (cached) before them and their own.
  a.queryLen = size(row.kind == KernelKind::DecodeAttention ? 1 : p.seq);
  a.kvLen = size(row.kind == KernelKind::DecodeAttention ? decodeContext(row)
                                                          : p.seq + p.cached);
  a.window = size(p.window);
  a.causal = p.causal;
  return a;
}

double tshape::predict::predictRow(const KernelRow &row,
                                   const target::GpuTarget &t,
                                   const cost::Cluster *cluster) {
  // A fused MoE layer row has its own model.
  if (row.kind == KernelKind::MoeLayer) {
    cost::MoeLayerEstimate e = cost::estimateMoeLayer(row.moe, t);
    return e.supported ? e.predictedUs : 0;
  }
  // A static scale is the checkpoint's, not a run precision: such a row
  // prices its own problem (the cast without the amax pass). So does a
  // block-scaled row: 128 x 128 block-scaled FP8 (DeepGEMM's) also runs on
  // Hopper, which has no MXFP8 run precision.
  if (row.kind == KernelKind::Gemm &&
      (row.gemm.quantize == cost::Quantize::Static ||
       row.gemm.quantize == cost::Quantize::Block)) {
    cost::GemmEstimate g = cost::estimateGemm(row.gemm, t);
    return g.supported ? g.predictedUs : 0;
  }
  // Any other fp8 GEMM row is an FP8 linear layer with per-tensor scaling
  // (forward, inference: no transposed copy); `none` a bare FP8 GEMM.
  model::RunShape run;
  if (row.kind == KernelKind::Gemm && row.gemm.quantize != cost::Quantize::None)
    run.precision = Precision::FP8;
  cost::KernelEstimate e =
      cost::predictKernel(rowKernel(row), rowDType(row), t, cluster, &run);
  return e.supported ? e.predictedUs : 0;
}

double tshape::predict::rowFlops(const KernelRow &row) {
  if (row.kind == KernelKind::Collective)
    return 0;
  if (row.kind == KernelKind::MoeLayer) {
    // Gate, up and down of every routed copy (per moe_tp rank).
    const cost::MoeLayerProblem &p = row.moe;
    return 2.0 * 3.0 * double(p.tokens) * double(p.topk) * double(p.hidden) *
           double(p.inter / p.tp);
  }
  if (row.kind == KernelKind::Gemm)
    return 2.0 * double(row.gemm.batch) * double(row.gemm.m) *
           double(row.gemm.n) * double(row.gemm.k);
  const cost::AttentionProblem &a = row.attention;
  if (row.kind == KernelKind::DecodeAttention) {
    int64_t ctx = decodeContext(row);
    return 4.0 * double(a.batch) * double(a.heads) * double(a.headDim) *
           double(a.window > 0 ? std::min(a.window, ctx) : ctx);
  }
  return 4.0 * double(a.batch) * double(a.heads) * double(a.headDim) *
         cost::maskedPairs(a.seq, a.window, a.causal);
}

namespace {
/// splitmix64's finaliser over two sizes: a fixed, platform-independent
/// split whose low bits are well mixed.
uint64_t splitmix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

uint64_t shapeHash(int64_t a, int64_t b) {
  uint64_t z = (uint64_t(a) * 0x9e3779b97f4a7c15ull) ^ uint64_t(b);
  return splitmix(z);
}

/// A MoE layer's shape, folded value by value (the split
/// the retired tshape-moe-accuracy used, kept so that figures compare).
uint64_t moeShapeHash(const cost::MoeLayerProblem &p) {
  uint64_t h = 0;
  for (int64_t v :
       {p.tokens, p.hidden, p.inter, p.topk, p.experts, p.tp, p.ep})
    h = splitmix(h * 0x9e3779b97f4a7c15ull + uint64_t(v));
  return h;
}
} // namespace

bool tshape::predict::inPart(const KernelRow &row, Part part) {
  if (part == Part::All)
    return true;
  if (row.kind == KernelKind::MoeLayer) {
    bool held = moeShapeHash(row.moe) & 1;
    return part == Part::HeldOut ? held : !held;
  }
  uint64_t h =
      row.kind == KernelKind::Gemm ? shapeHash(row.gemm.n, row.gemm.k)
      : row.kind == KernelKind::Collective
          ? shapeHash(int64_t(row.collective.bytes), 0)
      : row.kind == KernelKind::DecodeAttention
          ? shapeHash(decodeContext(row), 0)
          : shapeHash(row.attention.heads, row.attention.kvHeads);
  bool held = h % 4 == 0;
  return part == Part::HeldOut ? held : !held;
}

const char *tshape::predict::partName(Part part) {
  switch (part) {
  case Part::All:
    return "all";
  case Part::Fit:
    return "fit";
  case Part::HeldOut:
    return "held-out";
  }
  return "all";
}

ErrorStats tshape::predict::errorStats(std::vector<double> e) {
  ErrorStats s;
  s.count = e.size();
  if (e.empty())
    return s;
  std::sort(e.begin(), e.end());
  auto at = [&](double q) {
    size_t i = size_t(std::ceil(q * double(e.size())));
    return e[std::min(i ? i - 1 : 0, e.size() - 1)];
  };
  s.median = at(0.5);
  s.p90 = at(0.9);
  return s;
}

const char *tshape::predict::regimeName(Regime r) {
  switch (r) {
  case Regime::All:
    return "all";
  case Regime::SmallM:
    return "m <= 16";
  case Regime::MidM:
    return "16 < m <= 256";
  case Regime::LargeM:
    return "m > 256";
  case Regime::Under1G:
    return "< 1 GFLOP";
  case Regime::Under100G:
    return "1-100 GFLOP";
  case Regime::Over100G:
    return ">= 100 GFLOP";
  case Regime::Balanced:
    return "balanced routing";
  case Regime::PowerLaw:
    return "power-law routing";
  case Regime::FewTokens:
    return "tokens <= 16";
  case Regime::MidTokens:
    return "16 < tokens <= 256";
  case Regime::ManyTokens:
    return "tokens > 256";
  }
  return "all";
}

bool tshape::predict::inRegime(const KernelRow &row, Regime r) {
  bool gemm = row.kind == KernelKind::Gemm;
  bool moe = row.kind == KernelKind::MoeLayer;
  double f = rowFlops(row);
  switch (r) {
  case Regime::All:
    return true;
  case Regime::SmallM:
    return gemm && row.gemm.m <= 16;
  case Regime::MidM:
    return gemm && row.gemm.m > 16 && row.gemm.m <= 256;
  case Regime::LargeM:
    return gemm && row.gemm.m > 256;
  case Regime::Under1G:
    return f < 1e9;
  case Regime::Under100G:
    return f >= 1e9 && f < 1e11;
  case Regime::Over100G:
    return f >= 1e11;
  case Regime::Balanced:
    return moe && !(row.moe.routing.powerLaw > 1);
  case Regime::PowerLaw:
    return moe && row.moe.routing.powerLaw > 1;
  case Regime::FewTokens:
    return moe && row.moe.tokens <= 16;
  case Regime::MidTokens:
    return moe && row.moe.tokens > 16 && row.moe.tokens <= 256;
  case Regime::ManyTokens:
    return moe && row.moe.tokens > 256;
  }
  return false;
}

DirectionStats
tshape::predict::directionAgreement(const std::vector<const KernelRow *> &rows,
                                    const std::vector<double> &predicted) {
  // (dtype, batch, n, k, layout, m) -> (measured, predicted); repeats of a
  // key keep their mean.
  using Key = std::tuple<int, int64_t, int64_t, int64_t, int, int64_t>;
  std::map<Key, std::tuple<double, double, int>> byKey;
  for (size_t i = 0; i < rows.size(); ++i) {
    const KernelRow &r = *rows[i];
    if (r.kind != KernelKind::Gemm || !r.measuredUs || !(predicted[i] > 0))
      continue;
    const cost::GemmProblem &p = r.gemm;
    auto &v = byKey[Key{int(p.dtype), p.batch, p.n, p.k,
                        int(p.transA) * 2 + int(p.transB), p.m}];
    std::get<0>(v) += *r.measuredUs;
    std::get<1>(v) += predicted[i];
    std::get<2>(v) += 1;
  }
  DirectionStats s;
  for (const auto &[key, v] : byKey) {
    Key next = key;
    ++std::get<5>(next);
    auto it = byKey.find(next);
    if (it == byKey.end())
      continue;
    double m0 = std::get<0>(v) / std::get<2>(v);
    double p0 = std::get<1>(v) / std::get<2>(v);
    double m1 = std::get<0>(it->second) / std::get<2>(it->second);
    double p1 = std::get<1>(it->second) / std::get<2>(it->second);
    if (std::fabs(m1 - m0) <= 0.10 * m0)
      continue;
    bool measuredSlower = m1 > 1.05 * m0, predictedSlower = p1 > 1.05 * p0;
    bool agree = measuredSlower == predictedSlower;
    ++s.pairs;
    s.agree += agree;
    if (m1 < 0.90 * m0) {
      ++s.drops;
      s.dropsAgree += agree;
    }
  }
  return s;
}
