//===- ShapeSearch.cpp - Hyperparameter search under a budget -------------===//
//
// Candidate lists per parameter, their Cartesian product, and the best
// feasible shape by predicted throughput. docs/optimize-shapes.md states the
// neighbourhood and the objective.
//
//===----------------------------------------------------------------------===//

#include "tshape/Analysis/ShapeSearch.h"
#include "tshape/Analysis/Neighbourhood.h"

#include <algorithm>
#include <cmath>

using namespace tshape;
using namespace tshape::analysis;
using model::ModelConfig;

const std::vector<std::string> &tshape::analysis::searchableParameters() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (model::Param p : {model::Param::Vocab, model::Param::Heads,
                           model::Param::KvHeads, model::Param::Ffn,
                           model::Param::Hidden})
      n.push_back(model::paramName(p));
    return n;
  }();
  return names;
}

namespace {
/// One record per GEMM of `c`, the scores and values of each layer tagged
/// as one fused kernel when the model fuses attention.
std::vector<GemmRecord> toRecords(const ModelConfig &c,
                                  const std::vector<model::GemmSpec> &gemms) {
  std::vector<GemmRecord> records;
  for (const model::GemmSpec &g : gemms) {
    GemmRecord r;
    r.name = g.name();
    r.layer = g.layer;
    r.location = c.name;
    r.problem = {g.batch.value, g.m.value, g.n.value, g.k.value,
                 c.dtype,       g.transA,  g.transB};
    r.spec = g;
    bool scores = g.role == model::Role::AttnScore,
         values = g.role == model::Role::AttnValue;
    if (c.attention.fused && g.pass == model::GemmPass::Forward &&
        (scores || values)) {
      r.fusedGroup = g.layer;
      r.fusedPrimary = scores;
      r.causal = c.attention.causal;
    }
    records.push_back(r);
  }
  return records;
}
} // namespace

std::vector<GemmRecord>
tshape::analysis::recordsFor(const ModelConfig &c, bool training) {
  return toRecords(c, model::modelGemms(c, training));
}

bool tshape::analysis::validateSearchOptions(const SearchOptions &o,
                                             std::string &error) {
  if (o.paramTolerance < 0) {
    error = "param-tolerance must be >= 0, got " +
            std::to_string(o.paramTolerance);
    return false;
  }
  for (const std::string &v : o.vary)
    if (std::find(searchableParameters().begin(), searchableParameters().end(),
                  v) == searchableParameters().end()) {
    {
      std::string list;
      for (const std::string &n : searchableParameters())
        list += (list.empty() ? "" : ", ") + n;
      error = "unknown parameter '" + v + "' in vary (expected " + list + ")";
    }
      return false;
    }
  if (o.minHeadDim <= 0 || o.maxHeadDim < o.minHeadDim) {
    error = "head-dim range [" + std::to_string(o.minHeadDim) + ", " +
            std::to_string(o.maxHeadDim) + "] is empty";
    return false;
  }
  return true;
}

StepPrediction ShapeSearch::predict(const ModelConfig &c, bool training) {
  auto sum = [&](std::vector<GemmRecord> records) {
    analysis.analyze(records);
    double us = 0;
    for (const GemmRecord &r : records)
      us += r.predictedUs;
    return us;
  };
  // The layers are identical: predict one and multiply. The once-per-model
  // GEMMs (logits) are those of the same model with no layers.
  ModelConfig headOnly = c;
  headOnly.layers = 0;
  StepPrediction p;
  p.us = sum(toRecords(c, model::layerGemms(c, 0, training))) * c.layers +
         sum(toRecords(c, model::modelGemms(headOnly, training)));
  p.flops = double(model::countGemmFlops(c, training).value_or(0));
  return p;
}

std::string ShapeSearch::violation(const ModelConfig &original,
                                   const ModelConfig &c,
                                   const SearchOptions &o) {
  if (auto v = model::checkModel(c))
    return "rule " + v->rule + ": " + v->message;
  if (c.vocab < original.vocab)
    return "vocab may only grow";
  auto p0 = model::countParameters(original), p1 = model::countParameters(c);
  if (!p0 || !p1)
    return "parameter count overflows";
  double rel = std::fabs(double(p1->total - p0->total)) / double(p0->total);
  if (rel > o.paramTolerance + 1e-12)
    return "parameter count changes by " + std::to_string(rel * 100) +
           "%, over the tolerance";
  if (c.attention.fused) {
    FusedAttentionEstimate f = estimateFusedAttention(
        1, 1, c.headDim(), c.attention.causal, c.dtype, target);
    if (!f.supported)
      return "head_dim " + std::to_string(c.headDim()) +
             " has no fused attention kernel on " + target.name;
  }
  return "";
}

namespace {
/// The current value, then its neighbourhood (Neighbourhood.h); notes in
/// `bounded` when the list stopped at its bound.
std::vector<int64_t> around(model::Param p, int64_t value,
                            const NeighbourhoodContext &ctx,
                            std::vector<std::string> &bounded) {
  Neighbourhood n = neighbourhood(p, value, ctx);
  if (n.truncated)
    bounded.push_back(model::paramName(p));
  std::vector<int64_t> out = {value};
  out.insert(out.end(), n.values.begin(), n.values.end());
  return out;
}
} // namespace

std::optional<SearchResult> ShapeSearch::search(const ModelConfig &c,
                                                const SearchOptions &o,
                                                std::string &error) {
  if (!validateSearchOptions(o, error))
    return std::nullopt;
  const int64_t eb = model::dtypeBytes(c.dtype);
  const int64_t align = std::max<int64_t>(1, target.bestAlignBytes / eb);
  using model::Param;
  using model::paramName;
  auto varies = [&](Param p) { return o.vary.count(paramName(p)) > 0; };

  // Neighbourhoods (Neighbourhood.h, docs/optimize-shapes.md): the same
  // candidates a finding of the report may suggest.
  NeighbourhoodContext ctx;
  ctx.bestAlign = align;
  ctx.minAlign = std::max<int64_t>(1, target.minAlignBytes / eb);
  ctx.tp = c.tp;
  ctx.minHeadDim = o.minHeadDim;
  ctx.maxHeadDim = o.maxHeadDim;
  SearchResult res;
  std::vector<int64_t> vocabs = {c.vocab};
  if (varies(Param::Vocab))
    vocabs = around(Param::Vocab, c.vocab, ctx, res.bounded);
  std::vector<int64_t> ffns = {c.mlp.inner};
  if (varies(Param::Ffn))
    ffns = around(Param::Ffn, c.mlp.inner, ctx, res.bounded);
  std::vector<int64_t> hiddens = {c.hidden};
  if (varies(Param::Hidden))
    hiddens = around(Param::Hidden, c.hidden, ctx, res.bounded);

  res.before = c;
  res.predBefore = predict(c, o.training);
  res.paramsBefore = model::countParameters(c)->total;
  std::string originalViolation = violation(c, c, o);

  // Sizes (per rank) off the best alignment: vocab, ffn, head_dim, hidden.
  auto misaligned = [&](const ModelConfig &m) {
    int64_t n = 0;
    auto rs = model::rankShape(m);
    if (!rs)
      return int64_t(4);
    for (int64_t v : {rs->vocabPerRank, rs->innerPerRank, m.headDim(),
                      m.hidden})
      n += (v * eb) % target.bestAlignBytes != 0;
    return n;
  };
  const bool explicitHeadDim = c.attention.headDim != 0;
  const int64_t a = c.attention.heads, g = c.attention.kvHeads;
  ModelConfig best = c;
  double bestRate = originalViolation.empty() ? res.predBefore.tflops() : 0;
  double bestDistance = 10.0 * misaligned(c);
  bool haveBest = originalViolation.empty();
  for (int64_t h : hiddens) {
    // Heads: keep hidden = heads x head_dim (implicit head dim) with the head
    // dim in [minHeadDim, maxHeadDim], or keep an explicit head dim.
    std::vector<int64_t> headsList = {a};
    Neighbourhood headsNear;
    if (varies(Param::Heads))
      headsNear = neighbourhood(Param::Heads, a, ctx);
    if (headsNear.truncated && h == c.hidden)
      res.bounded.push_back(paramName(Param::Heads));
    for (int64_t a2 : headsNear.values) {
        int64_t d = explicitHeadDim ? c.attention.headDim : h / a2;
        if (!explicitHeadDim && h % a2 != 0)
          continue;
        if (!headDimFits(d, ctx))
          continue;
        headsList.push_back(a2);
      }
    for (int64_t a2 : headsList) {
      // Key/value heads: the GQA ratio is kept (MHA stays MHA, MQA stays
      // MQA) unless kv_heads may vary.
      std::vector<int64_t> kvList;
      if (varies(Param::KvHeads)) {
        // Divisors of the head count among g's neighbourhood (bounded).
        Neighbourhood kvNear = neighbourhood(Param::KvHeads, g, ctx);
        if (kvNear.truncated && a2 == a && h == c.hidden)
          res.bounded.push_back(paramName(Param::KvHeads));
        kvNear.values.push_back(g);
        for (int64_t g2 : kvNear.values)
          if (g2 <= a2 && a2 % g2 == 0)
            kvList.push_back(g2);
      } else if (g == a) {
        kvList = {a2};
      } else if (g == 1) {
        kvList = {1};
      } else if (a2 % (a / g) == 0) {
        kvList = {a2 / (a / g)};
      }
      for (int64_t g2 : kvList)
        for (int64_t v : vocabs)
          for (int64_t f : ffns) {
            ModelConfig n = c;
            n.hidden = h;
            n.attention.heads = a2;
            n.attention.kvHeads = g2;
            n.vocab = v;
            n.mlp.inner = f;
            if (n.hidden == c.hidden && a2 == a && g2 == g && v == c.vocab &&
                f == c.mlp.inner)
              continue;
            ++res.evaluated;
            if (!violation(c, n, o).empty())
              continue;
            ++res.feasible;
            StepPrediction p = predict(n, o.training);
            // Never slower per step than a feasible original: growing the
            // model for efficiency alone is not a win.
            if (originalViolation.empty() && p.us > res.predBefore.us)
              continue;
            double rate = p.tflops();
            // Ties (within 0.1%) go first to the shape with fewer sizes off
            // the vendor's best multiple (128 bytes from Ampere on), then
            // to the smallest relative change.
            double dist = 10.0 * misaligned(n) +
                std::fabs(double(h - c.hidden)) / c.hidden +
                std::fabs(double(a2 - a)) / a + std::fabs(double(g2 - g)) / g +
                std::fabs(double(v - c.vocab)) / c.vocab +
                std::fabs(double(f - c.mlp.inner)) / c.mlp.inner;
            bool better = !haveBest || rate > bestRate * 1.001 ||
                          (rate > bestRate / 1.001 && dist < bestDistance);
            if (better) {
              best = n;
              bestRate = rate;
              bestDistance = dist;
              haveBest = true;
            }
          }
    }
  }
  if (!haveBest) {
    error = "the model is infeasible under the search's rules (" +
            originalViolation + ") and no candidate in the neighbourhood "
            "fixes it";
    return std::nullopt;
  }
  res.bestGain = bestRate / res.predBefore.tflops() - 1;
  // Keep the model unless the gain is worth it (a feasible original).
  if (originalViolation.empty() &&
      bestRate < res.predBefore.tflops() * (1 + o.minGain))
    best = c;
  res.after = best;
  res.predAfter = predict(best, o.training);
  res.paramsAfter = model::countParameters(best)->total;

  // One entry per changed parameter, with its effect alone.
  auto alone = [&](auto set, const char *name, int64_t before,
                   int64_t after) {
    if (before == after)
      return;
    ModelConfig one = c;
    set(one);
    Change ch;
    ch.parameter = name;
    ch.before = before;
    ch.after = after;
    if (violation(c, one, o).empty() || !originalViolation.empty()) {
      StepPrediction p = predict(one, o.training);
      ch.speedup = p.tflops() / res.predBefore.tflops();
    } else {
      ch.speedup = 0; // only feasible together with the other changes
    }
    auto pc = model::countParameters(one);
    ch.paramDelta = pc ? pc->total - res.paramsBefore : 0;
    res.changes.push_back(ch);
  };
  alone([&](ModelConfig &m) { m.hidden = best.hidden; }, paramName(Param::Hidden), c.hidden,
        best.hidden);
  alone(
      [&](ModelConfig &m) {
        m.attention.heads = best.attention.heads;
        m.attention.kvHeads = best.attention.kvHeads;
      },
      paramName(Param::Heads), a, best.attention.heads);
  if (varies(Param::KvHeads))
    alone([&](ModelConfig &m) { m.attention.kvHeads = best.attention.kvHeads; },
          paramName(Param::KvHeads), g, best.attention.kvHeads);
  alone([&](ModelConfig &m) { m.vocab = best.vocab; }, paramName(Param::Vocab), c.vocab,
        best.vocab);
  alone([&](ModelConfig &m) { m.mlp.inner = best.mlp.inner; }, paramName(Param::Ffn),
        c.mlp.inner, best.mlp.inner);
  return res;
}
