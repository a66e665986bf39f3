//===- ShapeReport.cpp - Model-level GEMM analysis and report -------------===//
//
// Flags, causes, findings and the JSON / Markdown reports. The rules are
// stated in docs/cost-model.md ("Flags and findings").
//
//===----------------------------------------------------------------------===//

#include "tshape/Analysis/ShapeReport.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"

#include <algorithm>
#include <cmath>
#include <set>

using namespace tshape;
using namespace tshape::analysis;

const char *tshape::analysis::paramName(Param p) {
  switch (p) {
  case Param::None:
    return "none";
  case Param::Vocab:
    return "vocab";
  case Param::Hidden:
    return "hidden";
  case Param::Heads:
    return "heads";
  case Param::HeadDim:
    return "head_dim";
  case Param::Ffn:
    return "ffn";
  case Param::Seq:
    return "seq";
  }
  return "none";
}

DimSources tshape::analysis::dimSources(const std::string &role) {
  auto fwd = [](const std::string &base) -> DimSources {
    using P = Param;
    if (base == "qkv" || base == "attn_out")
      return {P::None, P::Seq, P::Hidden, P::Hidden};
    if (base == "attn_score" || base == "attn_value_dp")
      return {P::Heads, P::Seq, P::Seq, P::HeadDim};
    if (base == "attn_value" || base == "attn_value_dv" ||
        base == "attn_score_dq" || base == "attn_score_dk")
      return {P::Heads, P::Seq, P::HeadDim, P::Seq};
    if (base == "mlp_gate" || base == "mlp_up")
      return {P::None, P::Seq, P::Ffn, P::Hidden};
    if (base == "mlp_down")
      return {P::None, P::Seq, P::Hidden, P::Ffn};
    if (base == "logits")
      return {P::None, P::Seq, P::Vocab, P::Hidden};
    return {};
  };
  auto strip = [&](const char *suffix) {
    size_t n = strlen(suffix);
    return role.size() > n && role.compare(role.size() - n, n, suffix) == 0
               ? role.substr(0, role.size() - n)
               : std::string();
  };
  // dX = dY . W: (M x N).(N x K); dW = X^T . dY: (K x M).(M x N).
  if (std::string base = strip("_dgrad"); !base.empty()) {
    DimSources f = fwd(base);
    return {f.batch, f.m, f.k, f.n};
  }
  if (std::string base = strip("_wgrad"); !base.empty()) {
    DimSources f = fwd(base);
    return {f.batch, f.k, f.n, f.m};
  }
  return fwd(role);
}

//===----------------------------------------------------------------------===//
// Prediction, flags and causes
//===----------------------------------------------------------------------===//

const GemmEstimate &ShapeAnalysis::estimate(const GemmProblem &p) {
  auto key = std::make_tuple(p.batch, p.m, p.n, p.k, (int)p.dtype, p.transA,
                             p.transB);
  auto it = cache.find(key);
  if (it != cache.end())
    return it->second;
  return cache.emplace(key, estimateGemm(p, target)).first->second;
}

namespace {
std::string fmt(const char *f, double v) {
  char buf[64];
  snprintf(buf, sizeof(buf), f, v);
  return buf;
}

std::string dimLabel(const char *dim, int64_t value, Param p) {
  std::string s = std::string(dim) + " = " + std::to_string(value);
  if (p != Param::None)
    s += std::string(" (") + paramName(p) + ")";
  return s;
}
} // namespace

void ShapeAnalysis::predict(GemmRecord &r) {
  r.causes.clear();
  const GemmProblem &p = r.problem;
  DimSources src = dimSources(r.name);
  if (r.fusedGroup >= 0) {
    if (!r.fusedPrimary) {
      r.predictedUs = 0;
      r.lossFraction = 0;
      r.flagged = false;
      return;
    }
    r.fused = estimateFusedAttention(p.batch, p.m, p.k, r.causal, p.dtype,
                                     target);
    if (r.fused.supported) {
      r.predictedUs = r.fused.predictedUs;
      r.lossFraction = 1 - r.fused.headDimEfficiency;
      if (r.fused.headDimEfficiency < 1)
        r.causes.push_back(
            "head_dim " + std::to_string(p.k) +
            " runs padded to " + std::to_string(r.fused.paddedHeadDim) +
            " in the fused attention kernel (" +
            fmt("%.0f%%", 100 * r.fused.headDimEfficiency) + " useful)");
      r.flagged = r.lossFraction > threshold;
      return;
    }
    r.causes.push_back("head_dim " + std::to_string(p.k) +
                       " has no fused attention kernel on " + target.name +
                       "; predicted as separate GEMMs");
  }
  r.estimate = estimate(p);
  const GemmEstimate &e = r.estimate;
  r.predictedUs = e.predictedUs;
  if (!e.supported) {
    r.causes.push_back(std::string(model::dtypeName(p.dtype)) +
                       " has no GEMM path on " + target.name);
    r.lossFraction = 0;
    r.flagged = false;
    return;
  }
  // Tile and wave quantization cost nothing under the memory floor; K-step
  // padding and narrow loads are dimension rules and always count.
  double eff = e.kEfficiency * e.alignFactor;
  if (!e.memoryBound)
    eff *= e.tileEfficiency * e.waveEfficiency;
  r.lossFraction = 1 - eff;
  r.flagged = r.lossFraction > threshold;
  // A GEMM whose work takes less than a kernel launch is not worth a shape
  // change: report it, never flag it.
  double workUs = std::max(e.computeUs, e.memoryUs);
  if (workUs < target.launchOverheadUs) {
    r.flagged = false;
    r.causes.push_back(fmt("launch-bound (%.2f us of work", workUs) +
                       fmt(" < %.1f us launch overhead)",
                           target.launchOverheadUs));
  }

  const int64_t eb = model::dtypeBytes(p.dtype);
  auto alignCause = [&](const char *dim, const DimAlignment &a, Param ps) {
    if (a.vectorBytes >= 16)
      return;
    r.causes.push_back(
        dimLabel(dim, a.elements, ps) + " is not a multiple of " +
        std::to_string(target.minAlignBytes / eb) + " (" +
        model::dtypeName(p.dtype) + ", " +
        std::to_string(target.minAlignBytes) + " bytes): " +
        std::to_string(a.vectorBytes) + "-byte loads, " +
        fmt("%.2fx", alignmentFactor(a.vectorBytes)) + " throughput");
  };
  std::set<std::string> seen;
  auto once = [&](const char *dim, const DimAlignment &a, Param ps) {
    if (seen.insert(dim).second)
      alignCause(dim, a, ps);
  };
  once(p.transA ? "M" : "K", e.lda, p.transA ? src.m : src.k);
  once(p.transB ? "K" : "N", e.ldb, p.transB ? src.k : src.n);
  once("N", e.ldc, src.n);
  if (e.kEfficiency < 0.999)
    r.causes.push_back(dimLabel("K", p.k, src.k) + " fills " +
                       fmt("%.0f%%", 100 * e.kEfficiency) + " of its " +
                       std::to_string(target.kTileBytes / eb) +
                       "-element K steps");
  if (!e.memoryBound && e.tileEfficiency < 0.999) {
    double effM = double(p.m) / double(e.tilesM * e.tile.m);
    double effN = double(p.n) / double(e.tilesN * e.tile.n);
    if (effM < effN)
      r.causes.push_back(dimLabel("M", p.m, src.m) + " fills " +
                         fmt("%.0f%%", 100 * effM) + " of " +
                         std::to_string(e.tilesM) + " tiles of " +
                         std::to_string(e.tile.m) + " rows");
    else
      r.causes.push_back(dimLabel("N", p.n, src.n) + " fills " +
                         fmt("%.0f%%", 100 * effN) + " of " +
                         std::to_string(e.tilesN) + " tiles of " +
                         std::to_string(e.tile.n) + " columns");
  }
  if (!e.memoryBound && e.waveEfficiency < 0.999) {
    int64_t last = e.tiles * e.splitK - (e.waves - 1) * e.slots;
    r.causes.push_back("last of " + std::to_string(e.waves) + " waves " +
                       fmt("%.0f%%", 100.0 * last / e.slots) + " full (" +
                       std::to_string(e.tiles * e.splitK) + " tiles on " +
                       std::to_string(e.slots) + " slots)");
  }
  if (e.memoryBound)
    r.causes.push_back(fmt("memory-bound (%.0f FLOP/byte", e.intensity) +
                       fmt(" < ridge %.0f)",
                           target.peak(p.dtype) * target.mathEfficiency *
                               1e3 /
                               (target.memoryBandwidthGBs *
                                target.memoryEfficiency)));
}

void ShapeAnalysis::analyze(std::vector<GemmRecord> &records) {
  for (GemmRecord &r : records)
    predict(r);
}

Totals ShapeAnalysis::totals(const std::vector<GemmRecord> &records) const {
  Totals t;
  std::set<int64_t> layers;
  double inLayers = 0;
  for (const GemmRecord &r : records) {
    t.stepUs += r.predictedUs;
    t.flops += r.fusedGroup >= 0 && r.fusedPrimary
                   ? r.fused.flops
                   : (r.fusedGroup >= 0 ? 0 : r.estimate.flops);
    if (r.layer >= 0) {
      layers.insert(r.layer);
      inLayers += r.predictedUs;
    }
    const std::string &n = r.name;
    if (n.rfind("qkv", 0) == 0 || n.rfind("attn_", 0) == 0)
      t.attentionShare += r.predictedUs;
    else if (n.rfind("mlp_", 0) == 0)
      t.mlpShare += r.predictedUs;
    else if (n.rfind("logits", 0) == 0)
      t.logitsShare += r.predictedUs;
    else
      t.otherShare += r.predictedUs;
    if (r.fusedGroup >= 0) {
      if (r.fusedPrimary && r.fused.supported)
        t.lostFusedHeadDimUs +=
            r.predictedUs * (1 - r.fused.headDimEfficiency);
      continue;
    }
    t.lostTileUs += r.estimate.lostTileUs;
    t.lostKUs += r.estimate.lostKUs;
    t.lostWaveUs += r.estimate.lostWaveUs;
    t.lostAlignUs += r.estimate.lostAlignUs;
  }
  t.layers = layers.size();
  t.perLayerUs = t.layers ? inLayers / t.layers : 0;
  if (t.stepUs > 0)
    for (double *s :
         {&t.attentionShare, &t.mlpShare, &t.logitsShare, &t.otherShare})
      *s /= t.stepUs;
  return t;
}

//===----------------------------------------------------------------------===//
// Findings
//===----------------------------------------------------------------------===//

namespace {
bool sizes(const DimSources &s, Param p) {
  if (p == Param::HeadDim)
    return s.m == p || s.n == p || s.k == p || s.batch == Param::Heads;
  if (p == Param::Hidden)
    return s.m == p || s.n == p || s.k == p || s.m == Param::HeadDim ||
           s.n == Param::HeadDim || s.k == Param::HeadDim;
  return s.m == p || s.n == p || s.k == p;
}

/// `dim` scaled by to/from; false when the result is not whole.
bool scale(int64_t &dim, int64_t from, int64_t to) {
  __int128 v = (__int128)dim * to;
  if (v % from != 0)
    return false;
  dim = (int64_t)(v / from);
  return dim > 0;
}

/// The GEMM with parameter `p` changed from `from` to `to`.
bool rescale(GemmProblem &q, const DimSources &s, Param p, int64_t from,
             int64_t to) {
  auto hit = [&](Param d) {
    return d == p || (p == Param::Hidden && d == Param::HeadDim);
  };
  for (auto [dim, src] : {std::pair<int64_t *, Param>{&q.m, s.m},
                          {&q.n, s.n},
                          {&q.k, s.k}})
    if (hit(src) && !scale(*dim, from, to))
      return false;
  // Fixed hidden: more, smaller heads (or fewer, larger ones).
  if (p == Param::HeadDim && s.batch == Param::Heads)
    return scale(q.batch, to, from);
  return true;
}

int64_t roundUp(int64_t v, int64_t m) { return (v + m - 1) / m * m; }
} // namespace

int64_t ShapeAnalysis::parameterValue(const std::vector<GemmRecord> &records,
                                      Param p) const {
  for (const GemmRecord &r : records) {
    DimSources s = dimSources(r.name);
    bool perRank = p == Param::Vocab || p == Param::Ffn;
    // Forward roles only, where each source is read directly.
    if (r.name.find("_dgrad") != std::string::npos ||
        r.name.find("_wgrad") != std::string::npos)
      continue;
    int64_t v = 0;
    if (s.n == p)
      v = r.problem.n;
    else if (s.k == p)
      v = r.problem.k;
    else if (s.m == p && p != Param::Seq)
      v = r.problem.m;
    else if (p == Param::Seq && s.batch == Param::Heads)
      v = r.problem.m; // attention GEMMs are s x s
    if (v)
      return perRank ? v * tp : v;
  }
  return 0;
}

bool ShapeAnalysis::evaluate(const std::vector<GemmRecord> &records, Param p,
                             int64_t from, int64_t to, double &flops,
                             double &us) {
  flops = us = 0;
  // Per rank for vocab and ffn.
  bool perRank = p == Param::Vocab || p == Param::Ffn;
  int64_t f = perRank ? from / tp : from, t = perRank ? to / tp : to;
  if (perRank && (from % tp || to % tp))
    return false;
  for (const GemmRecord &r : records) {
    DimSources s = dimSources(r.name);
    if (!sizes(s, p))
      continue;
    GemmRecord copy = r;
    if (!rescale(copy.problem, s, p, f, t))
      return false;
    predict(copy);
    us += copy.predictedUs;
    if (copy.fusedGroup >= 0)
      flops += copy.fusedPrimary ? copy.fused.flops : 0;
    else
      flops += copy.estimate.flops;
  }
  return us > 0;
}

std::vector<Finding>
ShapeAnalysis::findings(const std::vector<GemmRecord> &records) {
  std::vector<Finding> out;
  double step = 0;
  for (const GemmRecord &r : records)
    step += r.predictedUs;
  for (Param p : {Param::Vocab, Param::HeadDim, Param::Ffn, Param::Hidden,
                  Param::Seq}) {
    // Flagged GEMMs whose causes name this parameter.
    int64_t flagged = 0;
    std::string firstCause;
    std::string tag = std::string("(") + paramName(p) + ")";
    for (const GemmRecord &r : records)
      if (r.flagged)
        for (const std::string &c : r.causes)
          if (c.find(tag) != std::string::npos ||
              (p == Param::HeadDim && c.rfind("head_dim", 0) == 0)) {
            ++flagged;
            if (firstCause.empty())
              firstCause = r.name + ": " + c;
            break;
          }
    if (!flagged)
      continue;
    int64_t value = parameterValue(records, p);
    if (value <= 0)
      continue;
    double baseFlops, baseUs;
    if (!evaluate(records, p, value, value, baseFlops, baseUs))
      continue;
    // Candidates: multiples of the best alignment (times t where the size
    // is split across ranks) near the value.
    const GemmRecord *any = nullptr;
    for (const GemmRecord &r : records)
      if (sizes(dimSources(r.name), p))
        any = &r;
    int64_t align = std::max<int64_t>(
        1, target.bestAlignBytes / model::dtypeBytes(any->problem.dtype));
    if (p == Param::Vocab || p == Param::Ffn)
      align *= tp;
    std::vector<int64_t> cands;
    if (p == Param::HeadDim) {
      // Nearby head dims (half to double) that fit the kernel range.
      for (int64_t d = align; d <= std::min<int64_t>(256, 2 * value);
           d += align)
        if (d != value && 2 * d >= value)
          cands.push_back(d);
    } else {
      int64_t lo = p == Param::Vocab ? value : (int64_t)(value * 0.97);
      int64_t hi = (int64_t)std::ceil(value * 1.03);
      for (int64_t c = roundUp(std::max<int64_t>(lo, 1), align); c <= hi;
           c += align)
        if (c != value)
          cands.push_back(c);
    }
    double baseRate = baseFlops / baseUs;
    struct Cand {
      int64_t value;
      double speedup, savedUs;
    };
    std::vector<Cand> scored;
    double top = 1;
    for (int64_t c : cands) {
      double fl, us;
      if (!evaluate(records, p, value, c, fl, us))
        continue;
      double speedup = (fl / us) / baseRate;
      scored.push_back({c, speedup, baseUs - us * (baseFlops / fl)});
      top = std::max(top, speedup);
    }
    // The smallest change among those within 1% of the best throughput.
    Finding best;
    best.parameter = p;
    best.value = value;
    for (const Cand &c : scored)
      if (c.speedup > 1.005 && c.speedup >= top / 1.01 &&
          (!best.suggested ||
           std::llabs(c.value - value) < std::llabs(best.suggested - value))) {
        best.suggested = c.value;
        best.estimatedSpeedup = c.speedup;
        best.timeSavedUs = c.savedUs;
      }
    if (!best.suggested)
      continue;
    best.gemms = flagged;
    best.stepSpeedup = step / std::max(1e-9, step - best.timeSavedUs);
    char buf[256];
    snprintf(buf, sizeof(buf),
             "%s %lld sizes %lld flagged GEMM(s), e.g. %s; %s %lld predicts "
             "%.2fx on the GEMMs it sizes (%.2fx per step)",
             paramName(p), (long long)value, (long long)flagged,
             firstCause.c_str(), paramName(p), (long long)best.suggested,
             best.estimatedSpeedup, best.stepSpeedup);
    best.reason = buf;
    out.push_back(best);
  }
  std::stable_sort(out.begin(), out.end(), [](const Finding &a,
                                              const Finding &b) {
    return a.timeSavedUs > b.timeSavedUs;
  });
  return out;
}
