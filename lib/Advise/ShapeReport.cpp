//===- ShapeReport.cpp - Model-level GEMM analysis and report -------------===//
//
// Flags, causes, findings and the JSON / Markdown reports. The rules are
// stated in docs/cost-model.md ("Flags and findings").
//
//===----------------------------------------------------------------------===//

#include "tshape/Advise/ShapeReport.h"
#include "tshape/Advise/Neighbourhood.h"
#include "tshape/Cost/PredictKernel.h"
#include "tshape/Model/Transformer.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"

#include <algorithm>
#include <cmath>
#include <set>

using namespace tshape;
using namespace tshape::advise;

//===----------------------------------------------------------------------===//
// Prediction, flags and causes
//===----------------------------------------------------------------------===//

const GemmEstimate &ShapeAnalysis::estimate(const GemmProblem &p) {
  auto key = std::make_tuple(p.batch, p.m, p.n, p.k, (int)p.dtype, p.transA,
                             p.transB, (int)p.quantize, p.quantizeTranspose,
                             p.grouped, p.inputQuantized);
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

/// "N = 11006 (ffn)": the size and, when the model defined the GEMM, the
/// expression it came from (parallel degrees of 1 left out).
std::string dimLabel(const char *dim, int64_t value,
                     const model::Dim *source, const model::Bindings *env) {
  std::string s = std::string(dim) + " = " + std::to_string(value);
  if (source && env && source->expr.kind() != model::DimExpr::Kind::Const)
    s += " (" + source->expr.withoutUnitDegrees(*env).str() + ")";
  return s;
}
} // namespace

void ShapeAnalysis::predict(KernelRecord &r) {
  r.causes.clear();
  r.faultBatch = r.faultM = r.faultN = r.faultK = false;
  r.lossFraction = 0;
  r.flagged = false;
  // Every kind but a GEMM and a fused attention: its price as predictKernel
  // states it (no cluster: a collective is the step model's and the serving
  // report's to price), and one cause that says what bounds it. No cause
  // blames a dimension, so no finding reads it.
  if (r.kernel && !r.spec()) {
    r.estimate = predictKernel(*r.kernel, r.problem.dtype, target);
    const cost::KernelEstimate &k = r.estimate;
    r.predictedUs = k.supported ? k.predictedUs : 0;
    const char *kind = model::kernelKindName(r.kernel->kind());
    if (k.communication) {
      r.causes = {r.kernel->name() + " of " + fmt("%.0f", k.bytes) +
                  " bytes over " + std::to_string(r.problem.batch) +
                  " ranks: communication, priced on a cluster by the step "
                  "model and the serving report, not by this analysis"};
      return;
    }
    if (!k.supported) {
      r.causes = {k.unsupported + "; not predicted"};
      return;
    }
    const int64_t launches =
        std::max<int64_t>(1, std::llround(k.fixedUs / target.launchOverheadUs));
    r.causes = {std::string(k.memoryBound ? "memory-bound " : "compute-bound ") +
                kind + ": " +
                (k.memoryBound ? fmt("%.0f bytes", k.bytes)
                               : fmt("%.0f FLOPs", k.flops)) +
                " in " + std::to_string(launches) + " launch" +
                (launches == 1 ? "" : "es")};
    return;
  }
  // Posed as predictKernel poses it (gemmProblem): the tshape IR's records
  // and the lowered IR's price alike. gemmProblem leaves a non-weight
  // GEMM's element type as given and makes a weight GEMM's FP8 under an
  // FP8 precision whatever it was given, so posing again (a finding's
  // re-prediction) gives the same problem.
  if (r.spec() && r.run) {
    if (r.run->precision && !target.supports(*r.run->precision)) {
      r.estimate = cost::KernelEstimate{};
      r.estimate.supported = false;
      r.estimate.gemm.supported = false;
      r.predictedUs = 0;
      r.causes.push_back(std::string(precisionName(*r.run->precision)) +
                         " is not supported on " + target.name +
                         " (it supports " + target.precisionList() + ")");
      return;
    }
    r.problem = gemmProblem(*r.spec(), r.problem.dtype, &*r.run, &target);
  }
  const GemmProblem &p = r.problem;
  const model::GemmSpec *spec = r.spec();
  const model::Bindings *env = spec ? &spec->env : nullptr;
  const model::Dim *srcM = spec ? &spec->m : nullptr;
  const model::Dim *srcN = spec ? &spec->n : nullptr;
  const model::Dim *srcK = spec ? &spec->k : nullptr;
  if (r.fused()) {
    // Its first part carries the kernel's price.
    if (r.part > 0) {
      r.predictedUs = 0;
      return;
    }
    // The kernel as the block model stated it (heads, kv heads, lengths,
    // window), never rebuilt from the scores GEMM's sizes.
    r.estimate = predictKernel(*r.kernel, p.dtype, target);
    const FusedAttentionEstimate &f = r.estimate.attention;
    if (r.estimate.supported) {
      r.predictedUs = f.predictedUs;
      r.lossFraction = 1 - f.headDimEfficiency;
      r.faultK |= f.headDimEfficiency < 1;
      // A value head dim of its own (MLA) is padded with the query's.
      const model::AttentionSpec &a = *r.kernel->attention();
      const int64_t d = a.headDim.value, dv = a.valueHeadDim.value;
      if (f.headDimEfficiency < 1)
        r.causes.push_back(
            "head_dim " + std::to_string(d) +
            (dv != d ? " (v_head_dim " + std::to_string(dv) + ")" : "") +
            " runs padded to " + std::to_string(f.paddedHeadDim) +
            (dv != d ? "/" + std::to_string(f.paddedValueHeadDim) : "") +
            " in the fused attention kernel (" +
            fmt("%.0f%%", 100 * f.headDimEfficiency) + " useful)");
      r.flagged = r.lossFraction > threshold;
      return;
    }
    r.causes.push_back(r.estimate.unsupported +
                       "; predicted as separate GEMMs");
  } else if (r.kernelMissing) {
    r.causes.push_back("the fused attention carries no attention kernel; "
                       "predicted as separate GEMMs");
  }
  // A GEMM (or a fused kernel's part that runs as one): the GEMM model's
  // price, in the fields every kind fills (assigned one by one: the
  // search predicts millions of records, and the estimate is large).
  r.estimate.gemm = estimate(p);
  const GemmEstimate &e = r.estimate.gemm;
  r.estimate.kind = model::KernelKind::Gemm;
  r.estimate.communication = false;
  r.estimate.supported = e.supported;
  r.estimate.flops = e.flops;
  r.estimate.memoryBound = e.memoryBound;
  r.estimate.bytes = e.bytes;
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
  auto alignCause = [&](const char *dim, const DimAlignment &a,
                        const model::Dim *ps) {
    if (a.vectorBytes >= 16)
      return;
    (dim[0] == 'M' ? r.faultM : dim[0] == 'N' ? r.faultN : r.faultK) = true;
    r.causes.push_back(
        dimLabel(dim, a.elements, ps, env) + " is not a multiple of " +
        std::to_string(target.minAlignBytes / eb) + " (" +
        model::dtypeName(p.dtype) + ", " +
        std::to_string(target.minAlignBytes) + " bytes): " +
        std::to_string(a.vectorBytes) + "-byte loads, " +
        fmt("%.2fx", alignmentFactor(a.vectorBytes)) + " throughput");
  };
  std::set<std::string> seen;
  auto once = [&](const char *dim, const DimAlignment &a,
                  const model::Dim *ps) {
    if (seen.insert(dim).second)
      alignCause(dim, a, ps);
  };
  once(p.transA ? "M" : "K", e.lda, p.transA ? srcM : srcK);
  once(p.transB ? "K" : "N", e.ldb, p.transB ? srcK : srcN);
  once("N", e.ldc, srcN);
  r.faultK |= e.kEfficiency < 0.999;
  if (e.kEfficiency < 0.999)
    r.causes.push_back(dimLabel("K", p.k, srcK, env) + " fills " +
                       fmt("%.0f%%", 100 * e.kEfficiency) + " of its " +
                       std::to_string(target.kTileBytes / eb) +
                       "-element K steps");
  if (!e.memoryBound && e.tileEfficiency < 0.999) {
    double effM = double(p.m) / double(e.tilesM * e.tile.m);
    double effN = double(p.n) / double(e.tilesN * e.tile.n);
    (effM < effN ? r.faultM : r.faultN) = true;
    if (effM < effN)
      r.causes.push_back(dimLabel("M", p.m, srcM, env) + " fills " +
                         fmt("%.0f%%", 100 * effM) + " of " +
                         std::to_string(e.tilesM) + " tiles of " +
                         std::to_string(e.tile.m) + " rows");
    else
      r.causes.push_back(dimLabel("N", p.n, srcN, env) + " fills " +
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

void ShapeAnalysis::analyze(std::vector<KernelRecord> &records) {
  // A fused attention whose kernel has no price (a head dim no kernel
  // covers) runs as separate GEMMs: its first part says why, and each of
  // its parts (the records after it, as the lowering emits them) is then
  // priced on its own.
  bool separate = false;
  for (KernelRecord &r : records) {
    if (r.part == 0)
      r.separate = false;
    if (r.fused() && r.part == 0) {
      predict(r);
      separate = !r.estimate.supported;
      r.separate = separate;
      continue;
    }
    if (r.part > 0)
      r.separate = separate;
    predict(r);
  }
}

Totals ShapeAnalysis::totals(const std::vector<KernelRecord> &records) const {
  Totals t;
  std::set<int64_t> layers;
  double inLayers = 0;
  const std::vector<model::RoleGroup> groups = model::allRoleGroups();
  std::vector<double> byGroup(groups.size(), 0.0);
  double other = 0;
  for (const KernelRecord &r : records) {
    t.stepUs += r.predictedUs;
    t.flops += r.flops();
    if (r.layer >= 0) {
      layers.insert(r.layer);
      inLayers += r.predictedUs;
    }
    // Its role's group; communication and ungrouped kernels are "other".
    std::optional<model::RoleGroup> g = r.roleGroup();
    if (g && *g != model::RoleGroup::Communication)
      byGroup[size_t(*g)] += r.predictedUs;
    else
      other += r.predictedUs;
    if (r.fused()) {
      if (r.part == 0 && r.estimate.supported)
        t.lostFusedHeadDimUs +=
            r.predictedUs * (1 - r.estimate.attention.headDimEfficiency);
      continue;
    }
    const GemmEstimate &e = r.estimate.gemm;
    t.lostTileUs += e.lostTileUs;
    t.lostKUs += e.lostKUs;
    t.lostWaveUs += e.lostWaveUs;
    t.lostAlignUs += e.lostAlignUs;
  }
  t.layers = layers.size();
  t.perLayerUs = t.layers ? inLayers / t.layers : 0;
  const double step = t.stepUs > 0 ? t.stepUs : 1;
  for (model::RoleGroup g : groups) {
    const bool builtIn = g <= model::RoleGroup::Logits;
    if (g == model::RoleGroup::Communication ||
        (!builtIn && byGroup[size_t(g)] <= 0))
      continue;
    t.groups.push_back({model::roleGroupName(g), byGroup[size_t(g)] / step});
  }
  t.groups.push_back({"other", other / step});
  t.attentionShare = byGroup[size_t(model::RoleGroup::Attention)] / step;
  t.mlpShare = byGroup[size_t(model::RoleGroup::Mlp)] / step;
  t.logitsShare = byGroup[size_t(model::RoleGroup::Logits)] / step;
  // The four-way view books registered groups as other.
  double rest = other;
  for (model::RoleGroup g : groups)
    if (g > model::RoleGroup::Communication)
      rest += byGroup[size_t(g)];
  t.otherShare = rest / step;
  return t;
}

//===----------------------------------------------------------------------===//
// Findings
//===----------------------------------------------------------------------===//
//
// A finding changes one hyperparameter. It is read from the GEMMs' size
// expressions: every GEMM whose batch, M, N or K mentions the parameter is
// re-evaluated with a candidate value from the shared neighbourhood
// (Neighbourhood.h), re-predicted, and the candidate kept when the GEMMs it
// sizes run faster per FLOP. No role is interpreted here.

bool tshape::advise::sizedBy(const KernelRecord &r, Param p) {
  const model::GemmSpec *spec = r.spec();
  if (!spec || !spec->env.has(p))
    return false;
  const model::GemmSpec &g = *spec;
  return g.batch.expr.mentions(p) || g.m.expr.mentions(p) ||
         g.n.expr.mentions(p) || g.k.expr.mentions(p);
}

bool tshape::advise::blames(const KernelRecord &r, Param p) {
  if (!sizedBy(r, p))
    return false;
  const model::GemmSpec &g = *r.spec();
  return (r.faultBatch && g.batch.expr.mentions(p)) ||
         (r.faultM && g.m.expr.mentions(p)) ||
         (r.faultN && g.n.expr.mentions(p)) ||
         (r.faultK && g.k.expr.mentions(p));
}

bool ShapeAnalysis::evaluate(
    const std::vector<std::pair<const KernelRecord *, int64_t>> &records,
    Param p, int64_t to, Change &out) {
  out = Change();
  for (auto [r, weight] : records) {
    KernelRecord copy = *r;
    model::GemmSpec &g = *copy.spec();
    g.env.set(p, to);
    if (model::checkBindings(g.env))
      return false;
    bool changed = false;
    for (auto [dim, size] :
         {std::pair<int64_t *, model::Dim *>{&copy.problem.batch, &g.batch},
          {&copy.problem.m, &g.m},
          {&copy.problem.n, &g.n},
          {&copy.problem.k, &g.k}}) {
      std::optional<int64_t> v = size->expr.eval(g.env);
      if (!v || *v <= 0)
        return false;
      changed |= *v != *dim;
      *dim = size->value = *v;
    }
    // The kernel it is a part of (a fused attention) changes with it.
    if (copy.kernel && !copy.kernel->gemm()) {
      std::vector<std::pair<const char *, model::Dim>> before =
          copy.kernel->dims();
      copy.kernel->rebind(g.env);
      size_t i = 0;
      for (auto [name, d] : copy.kernel->dims())
        changed |= d.value != before[i++].second.value;
    }
    // A GEMM whose sizes do not change costs the same either way.
    if (!changed)
      continue;
    predict(copy);
    const double w = double(weight);
    out.baseUs += r->predictedUs * w;
    out.baseFlops += r->flops() * w;
    out.us += copy.predictedUs * w;
    out.flops += copy.flops() * w;
  }
  return out.us > 0 && out.baseUs > 0 && out.flops > 0 && out.baseFlops > 0;
}

namespace {
/// A key that is equal for GEMMs that predict the same at any value of a
/// parameter: identical layers are evaluated once and counted.
std::string shapeKey(const KernelRecord &r) {
  std::string k = r.name;
  const model::GemmSpec &g = *r.spec();
  for (const model::Dim *d : {&g.batch, &g.m, &g.n, &g.k})
    k += "|" + d->expr.str();
  for (size_t i = 0; i < model::kNumParams; ++i)
    k += "|" + std::to_string(g.env.get(Param(i)).value_or(-1));
  k += "|" + std::to_string(int(r.problem.dtype)) +
       std::to_string(r.problem.transA) + std::to_string(r.problem.transB) +
       std::to_string(r.fused()) + std::to_string(r.part);
  // The kernel it is a part of, with what its sizes do not say.
  if (r.kernel && !r.kernel->gemm()) {
    for (auto [name, d] : r.kernel->dims())
      k += "|" + d.expr.str();
    k += "|" + r.kernel->name() + std::to_string(r.kernel->causal());
  }
  return k;
}

/// hidden/heads, or 0 when the head dim is explicit (it does not follow
/// hidden or heads) or has no value.
int64_t implicitHeadDim(const model::Bindings &env) {
  return env.has(Param::HeadDim) ? 0 : model::headDim(env);
}
} // namespace

std::optional<ShapeAnalysis::Change>
ShapeAnalysis::price(const std::vector<KernelRecord> &records, Param p,
                     int64_t to) {
  std::map<std::string, std::pair<const KernelRecord *, int64_t>> groups;
  for (const KernelRecord &r : records)
    if (sizedBy(r, p))
      ++groups.try_emplace(shapeKey(r), &r, 0).first->second.second;
  std::vector<std::pair<const KernelRecord *, int64_t>> members;
  for (auto &[key, member] : groups)
    members.push_back(member);
  Change ch;
  if (!evaluate(members, p, to, ch))
    return std::nullopt;
  return ch;
}

std::vector<Finding>
ShapeAnalysis::findings(const std::vector<KernelRecord> &records) {
  std::vector<Finding> out;
  double step = 0;
  for (const KernelRecord &r : records)
    step += r.predictedUs;
  // The parameters the table marks searchable, in vocabulary order.
  for (Param p : model::allParams()) {
    if (!model::paramInfo(p).searchable)
      continue;
    // The values this parameter takes in the program (one, unless blocks
    // of different shapes were written by hand).
    std::set<int64_t> values;
    for (const KernelRecord &r : records)
      if (sizedBy(r, p))
        values.insert(*r.spec()->env.get(p));
    for (int64_t value : values) {
      auto hasValue = [&](const KernelRecord &r) {
        return sizedBy(r, p) && r.spec()->env.get(p) == value;
      };
      int64_t flagged = 0;
      std::string firstCause;
      std::map<std::string, std::pair<const KernelRecord *, int64_t>> groups;
      const KernelRecord *any = nullptr;
      for (const KernelRecord &r : records) {
        if (!hasValue(r))
          continue;
        any = &r;
        auto [it, inserted] = groups.try_emplace(shapeKey(r), &r, 0);
        ++it->second.second;
        if (!r.flagged || !blames(r, p))
          continue;
        ++flagged;
        if (firstCause.empty() && !r.causes.empty())
          firstCause = r.name + ": " + r.causes.front();
      }
      if (!flagged)
        continue;
      std::vector<std::pair<const KernelRecord *, int64_t>> members;
      for (auto &[key, member] : groups)
        members.push_back(member);
      const int64_t eb = model::dtypeBytes(any->problem.dtype);
      NeighbourhoodContext ctx;
      ctx.bestAlign = std::max<int64_t>(1, target.bestAlignBytes / eb);
      ctx.minAlign = std::max<int64_t>(1, target.minAlignBytes / eb);
      ctx.env = any->spec()->env;
      // The bindings of a GEMM that knows the most parameters (the logits
      // know no heads), for the head dim that follows hidden or heads.
      const KernelRecord *richest = any;
      for (auto &[key, member] : groups)
        if (member.first->spec()->env.has(Param::Heads))
          richest = member.first;
      const model::Bindings &env = richest->spec()->env;
      const int64_t headDimBefore = implicitHeadDim(env);
      Neighbourhood cands = neighbourhood(p, value, ctx);
      struct Cand {
        int64_t value;
        double speedup, savedUs;
      };
      std::vector<Cand> scored;
      double top = 1;
      // A finding suggests a nearby fix: within 3% of the value (or one
      // alignment step), a subset of the search's neighbourhood; the shape
      // search explores all of it under the parameter budget.
      int64_t alignStep = p == Param::Hidden ? ctx.minAlign : ctx.bestAlign;
      alignStep *= model::splitDegree(p, ctx.env);
      const double radius = std::max(0.03 * double(value), double(alignStep));
      const bool discrete = p == Param::Heads || p == Param::HeadDim;
      for (int64_t c : cands.values) {
        if (!discrete && std::fabs(double(c - value)) > radius)
          continue;
        // Heads at a fixed hidden size change the head dim: keep it in the
        // range and alignment the shape search keeps (ShapeSearch.h).
        if (p == Param::Heads && headDimBefore) {
          model::Bindings e = env;
          e.set(p, c);
          int64_t d = implicitHeadDim(e);
          if (!d || !headDimFits(d, ctx))
            continue;
        }
        Change ch;
        if (!evaluate(members, p, c, ch))
          continue;
        double speedup = ch.speedup();
        scored.push_back({c, speedup, ch.savedUs()});
        top = std::max(top, speedup);
      }
      // The smallest change among those within 1% of the best throughput.
      Finding best;
      best.parameter = p;
      best.value = value;
      for (const Cand &c : scored)
        if (c.speedup > 1.005 && c.speedup >= top / 1.01 &&
            (!best.suggested || std::llabs(c.value - value) <
                                    std::llabs(best.suggested - value))) {
          best.suggested = c.value;
          best.estimatedSpeedup = c.speedup;
          best.timeSavedUs = c.savedUs;
        }
      if (!best.suggested)
        continue;
      if (headDimBefore && (p == Param::Heads || p == Param::Hidden)) {
        model::Bindings e = env;
        e.set(p, best.suggested);
        best.effect = "head_dim " + std::to_string(headDimBefore) + " -> " +
                      std::to_string(implicitHeadDim(e));
      }
      best.gemms = flagged;
      best.stepSpeedup = step / std::max(1e-9, step - best.timeSavedUs);
      char buf[512];
      snprintf(buf, sizeof(buf),
               "%s %lld sizes %lld flagged GEMM(s), e.g. %s; %s %lld%s%s%s "
               "predicts %.2fx on the GEMMs it sizes (%.2fx per step)",
               paramName(p), (long long)value, (long long)flagged,
               firstCause.c_str(), paramName(p), (long long)best.suggested,
               best.effect.empty() ? "" : " (", best.effect.c_str(),
               best.effect.empty() ? "" : ")", best.estimatedSpeedup,
               best.stepSpeedup);
      best.reason = buf;
      if (cands.truncated)
        best.reason += "; the search stopped at its bound: the " +
                       std::to_string(kMaxCandidates) +
                       " candidates nearest the value";
      out.push_back(best);
    }
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const Finding &a, const Finding &b) {
                     return a.timeSavedUs > b.timeSavedUs;
                   });
  return out;
}
