//===- ShapeSearch.cpp - Hyperparameter search under a budget -------------===//
//
// Candidate lists per parameter, their Cartesian product, and the best
// feasible shape by predicted throughput. docs/optimize-shapes.md states the
// neighbourhood and the objective.
//
//===----------------------------------------------------------------------===//

#include "tshape/Advise/ShapeSearch.h"

#include "tshape/Advise/Odometer.h"
#include "tshape/Advise/Neighbourhood.h"
#include "tshape/Cost/PredictKernel.h"
#include "tshape/Interop/HFConfig.h"
#include "tshape/Model/Blocks/Block.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

using namespace tshape;
using namespace tshape::advise;
using model::getParam;
using model::ModelConfig;
using model::Param;
using model::setParam;

std::set<std::string> tshape::advise::defaultVary(const ModelConfig &c) {
  std::set<std::string> v = SearchOptions().vary;
  if (getParam(c, Param::Experts) > 0)
    v.insert(model::paramName(Param::MoeFfn));
  // Not where the model's config ties it to moe_ffn (hfTie): it follows.
  if (getParam(c, Param::SharedFfn) > 0 && !hfTie(c.modelType, Param::SharedFfn))
    v.insert(model::paramName(Param::SharedFfn));
  return v;
}

bool tshape::advise::validateSearchOptions(const SearchOptions &o,
                                             std::string &error) {
  for (auto [name, v] : {std::pair<const char *, double>{"param-tolerance",
                                                         o.paramTolerance},
                         {"active-param-tolerance", o.activeTolerance}})
    if (v < 0) {
      error = std::string(name) + " must be >= 0, got " + std::to_string(v);
      return false;
    }
  // What may vary is the table's `searchable` flag (Params.h), nothing else.
  for (const std::string &v : o.vary)
    if (std::optional<model::Param> p = model::parseParam(v);
        !p || !model::paramInfo(*p).searchable) {
      error = "unknown parameter '" + v + "' in vary (expected " +
              model::searchableParamNames() + ")";
      return false;
    }
  if (o.minHeadDim <= 0 || o.maxHeadDim < o.minHeadDim) {
    error = "head-dim range [" + std::to_string(o.minHeadDim) + ", " +
            std::to_string(o.maxHeadDim) + "] is empty";
    return false;
  }
  return true;
}

StepPrediction ShapeSearch::predict(const ModelConfig &c,
                                    const model::RunShape &run) {
  auto sum = [&](std::vector<KernelRecord> records) {
    analysis.analyze(records);
    double us = 0;
    for (const KernelRecord &r : records)
      us += r.predictedUs;
    return us;
  };
  // Each distinct layer (layerGroups: one for a uniform stack; dense and
  // MoE layers, local and global attention, for a heterogeneous one)
  // predicted once and multiplied by its count; then the once-per-model
  // kernels (logits). Each list is built once, for both the time and the
  // FLOPs.
  StepPrediction p;
  std::optional<int64_t> flops = 0;
  bool empty = false;
  for (const auto &[lc, count] : model::layerGroups(c)) {
    const std::vector<model::Kernel> layer = model::layerKernels(lc, run, 0);
    empty |= layer.empty();
    p.us += sum(recordsOf(lc, layer, &run)) * double(count);
    flops = model::checkedAdd(
        flops, model::checkedMul(model::kernelFlops(layer), count));
  }
  if (empty)
    return StepPrediction();
  const std::vector<model::Kernel> head = model::modelBlockKernels(c, run);
  p.us += sum(recordsOf(c, head, &run));
  flops = model::checkedAdd(flops, model::kernelFlops(head));
  p.flops = double(flops.value_or(0));
  return p;
}

std::optional<StepPrediction> ShapeSearch::evaluate(const ModelConfig &c,
                                                    const SearchOptions &o,
                                                    std::string &why) {
  if (o.objective)
    return o.objective(c, why);
  if (o.mix.empty())
    return predict(c, o.run);
  // A request of the serving mix: each phase's step, weighted.
  double prefills = 0, decodes = 0;
  for (auto [phase, w] : o.mix)
    (phase == model::Phase::Decode ? decodes : prefills) += w;
  StepPrediction sum;
  for (auto [phase, w] : o.mix) {
    ModelConfig step = c;
    model::RunShape run{phase};
    run.precision = o.run.precision; // the linear layers', in both phases
    if (phase == model::Phase::Decode) {
      // One new token per sequence over the prompt and half the decode
      // steps of one request.
      step.seq = 1;
      run.kvLength = c.seq + int64_t(std::llround(decodes / prefills / 2)) + 1;
    }
    StepPrediction p = predict(step, run);
    sum.us += w * p.us;
    sum.flops += w * p.flops;
  }
  return sum;
}

bool tshape::advise::parsePhaseMix(
    const std::vector<std::string> &entries,
    std::vector<std::pair<model::Phase, double>> &mix, std::string &error) {
  mix.clear();
  for (const std::string &e : entries) {
    size_t colon = e.find(':');
    std::optional<model::Phase> phase;
    for (model::Phase p : {model::Phase::Prefill, model::Phase::Decode})
      if (colon != std::string::npos &&
          e.compare(0, colon, model::phaseName(p)) == 0)
        phase = p;
    char *end = nullptr;
    const std::string weight =
        colon == std::string::npos ? "" : e.substr(colon + 1);
    double w = weight.empty() ? 0 : std::strtod(weight.c_str(), &end);
    if (!phase || weight.empty() || *end != '\0' || !(w > 0) ||
        !std::isfinite(w)) {
      error = "phase-mix entry '" + e +
              "' is not PHASE:WEIGHT with PHASE prefill or decode and a "
              "positive weight (for example prefill:1,decode:256)";
      return false;
    }
    for (auto [q, v] : mix)
      if (q == *phase) {
        error = std::string("phase-mix names ") + model::phaseName(q) +
                " twice";
        return false;
      }
    mix.emplace_back(*phase, w);
  }
  if (!mix.empty() && mix.size() != 2) {
    error = "phase-mix needs both prefill and decode (a request: its "
            "prompt, then its decode steps), got only " +
            std::string(model::phaseName(mix.front().first));
    return false;
  }
  return true;
}

double tshape::advise::objectiveRate(const StepPrediction &p,
                                     const ModelConfig &c,
                                     const SearchOptions &o) {
  if (o.mix.empty())
    return objectiveRate(p, c, o.run);
  return p.us > 0 ? 1e6 / p.us : 0; // requests/s
}

double tshape::advise::objectiveRate(const StepPrediction &p,
                                     const ModelConfig &c,
                                     const model::RunShape &run) {
  // A decode step's objective is tokens/s at the given batch and context
  // (b x (1 + draft) tokens per step); a training step's or a prefill's is
  // FLOP throughput, so that a larger size is not penalised for its work.
  if (run.phase != model::Phase::Decode)
    return p.tflops();
  const double tokens =
      double(run.tokens().eval(model::bindings(c)).value_or(0));
  return p.us > 0 ? tokens * 1e6 / p.us : 0;
}


std::string ShapeSearch::violation(const ModelConfig &original,
                                   const ModelConfig &c,
                                   const SearchOptions &o) {
  return violation(original, model::countParameters(original), c, o);
}

std::string ShapeSearch::violation(const ModelConfig &original,
                                   std::optional<model::ParamCount> p0,
                                   const ModelConfig &c,
                                   const SearchOptions &o, SearchResult *res,
                                   SearchResult::Budget **budget) {
  if (auto v = model::checkModel(c))
    return "rule " + v->rule + ": " + v->message;
  for (Param p : model::allParams())
    if (model::paramInfo(p).growOnly && getParam(c, p) < getParam(original, p))
      return std::string(model::paramName(p)) + " may only grow";
  if (c.attention.fused) {
    cost::KernelEstimate k = predictKernel(
        model::attentionKernel(c, o.run, 0), c.dtype, target);
    if (!k.supported)
      return k.unsupported;
  }
  std::optional<model::ParamCount> p1 = model::countParameters(c);
  if (!p0 || !p1)
    return "parameter count overflows";
  // Both budgets: the total, and (a mixture of experts) the active.
  auto over = [](int64_t before, int64_t after, double tolerance) {
    return std::fabs(double(after - before)) / double(before) >
           tolerance + 1e-12;
  };
  auto broke = [&](SearchResult::Budget SearchResult::*which, const char *what,
                   int64_t before, int64_t after) {
    if (budget && res)
      *budget = &(res->*which);
    return std::string(what) + " parameter count changes by " +
           std::to_string(100.0 * std::fabs(double(after - before)) /
                          double(before)) +
           "%, over the tolerance";
  };
  if (over(p0->total, p1->total, o.paramTolerance))
    return broke(&SearchResult::total, "the", p0->total, p1->total);
  if (p0->active != p0->total &&
      over(p0->active, p1->active, o.activeTolerance))
    return broke(&SearchResult::active, "the active", p0->active, p1->active);
  return "";
}

namespace {
/// The odometer over the `vary` parameters: each in vocabulary order takes
/// its current value, then its neighbourhood (Neighbourhood.h), applied
/// through the table's accessors. A subtree whose partial shape already
/// breaks a candidate rule is cut without being counted.
class Odometer {
public:
  Odometer(const ModelConfig &original, const std::set<std::string> &names,
           const NeighbourhoodContext &ctx, std::vector<std::string> &bounded)
      : original(original), ctx(ctx) {
    for (Param p : model::allParams())
      if (names.count(model::paramName(p)))
        vary.push_back(p);
    for (Param p : vary) {
      Neighbourhood n = neighbourhood(p, getParam(original, p), ctx);
      if (n.truncated)
        bounded.push_back(model::paramName(p));
      std::vector<int64_t> list = {getParam(original, p)};
      list.insert(list.end(), n.values.begin(), n.values.end());
      lists.push_back(std::move(list));
    }
    // Sizes the model's config ties to a varying one follow it (hfTie:
    // Llama 4's and DeepSeek's shared experts take moe_ffn).
    for (Param p : model::allParams())
      if (std::optional<HFTie> t = hfTie(original.modelType, p);
          t && !varies(p) && varies(t->follows) &&
          getParam(original, p) == getParam(original, t->follows))
        ties.push_back({p, t->follows});
  }

  /// Sets the sizes tied to `source` to its value in `n`.
  void follow(ModelConfig &n, Param source) const {
    for (auto [follower, s] : ties)
      if (s == source)
        setParam(n, follower, getParam(n, s));
  }
  /// Whether `p` follows another parameter rather than varying itself.
  bool follows(Param p) const {
    return std::any_of(ties.begin(), ties.end(),
                       [&](auto t) { return t.first == p; });
  }

  bool varies(Param p) const {
    return std::find(vary.begin(), vary.end(), p) != vary.end();
  }

  /// Calls `leaf` with every shape other than the original that passes the
  /// candidate rules.
  template <typename Leaf> void run(Leaf leaf) {
    ModelConfig n = original;
    std::vector<size_t> sizes;
    for (const std::vector<int64_t> &l : lists)
      sizes.push_back(l.size());
    // The key/value heads before each level's value: a new head count may
    // move them (followHeads).
    std::vector<int64_t> kvBefore(vary.size());
    runOdometer(
        sizes,
        [&](size_t level, size_t i) {
          kvBefore[level] = getParam(n, Param::KvHeads);
          setParam(n, vary[level], lists[level][i]);
          follow(n, vary[level]);
          return admissible(vary[level], n);
        },
        [&](size_t level) {
          setParam(n, Param::KvHeads, kvBefore[level]);
          setParam(n, vary[level], getParam(original, vary[level]));
          follow(n, vary[level]);
        },
        [&] {
          bool same = true;
          for (Param p : vary)
            same &= getParam(n, p) == getParam(original, p);
          if (!same && headDimOk(n))
            leaf(n);
        });
  }

private:
  /// A changed head count or head dim keeps the head dim in the range and
  /// alignment findings use (headDimFits); implicit, it must be whole.
  bool headDimOk(const ModelConfig &n) const {
    if (getParam(n, Param::Heads) == getParam(original, Param::Heads) &&
        getParam(n, Param::HeadDim) == getParam(original, Param::HeadDim))
      return true;
    return headDimFits(n.headDim(), ctx);
  }

  /// Key/value heads that follow a new head count when they do not vary:
  /// the GQA group size is kept (MHA stays MHA, MQA stays MQA); false when
  /// no whole group fits.
  bool followHeads(ModelConfig &n) const {
    const int64_t a = getParam(original, Param::Heads),
                  g = getParam(original, Param::KvHeads),
                  a2 = getParam(n, Param::Heads);
    int64_t g2 = g == a ? a2 : g == 1 ? 1 : (a2 % (a / g) ? 0 : a2 / (a / g));
    setParam(n, Param::KvHeads, g2);
    return g2 > 0;
  }

  /// Whether the shape so far (levels up to `p`) may still lead to a leaf.
  bool admissible(Param p, ModelConfig &n) const {
    switch (p) {
    case Param::Heads:
      if (!varies(Param::KvHeads) && !followHeads(n))
        return false;
      return varies(Param::HeadDim) || headDimOk(n);
    case Param::KvHeads: {
      const int64_t a2 = getParam(n, Param::Heads),
                    g2 = getParam(n, Param::KvHeads);
      return g2 <= a2 && a2 % g2 == 0;
    }
    default:
      return true;
    }
  }

  const ModelConfig &original;
  const NeighbourhoodContext &ctx;
  std::vector<Param> vary;
  std::vector<std::vector<int64_t>> lists;
  /// (follower, source) pairs: the follower takes the source's value.
  std::vector<std::pair<Param, Param>> ties;
};
} // namespace

std::optional<SearchResult> ShapeSearch::search(const ModelConfig &c,
                                                const SearchOptions &o,
                                                std::string &error) {
  if (!validateSearchOptions(o, error))
    return std::nullopt;
  // A size the model's config has no key of its own for cannot vary alone.
  for (const std::string &name : o.vary)
    if (std::optional<Param> p = model::parseParam(name))
      if (std::optional<HFTie> t = hfTie(c.modelType, *p);
          t && getParam(c, *p) > 0) {
        error = name + " cannot vary on its own for model_type '" +
                c.modelType + "': its config sizes it with '" + t->key +
                "', as " + model::paramName(t->follows) + " (vary " +
                model::paramName(t->follows) + "; " + name + " follows it)";
        return std::nullopt;
      }
  const int64_t eb = model::dtypeBytes(c.dtype);
  const int64_t align = std::max<int64_t>(1, target.bestAlignBytes / eb);

  // Neighbourhoods (Neighbourhood.h, docs/optimize-shapes.md): the same
  // candidates a finding of the report may suggest.
  NeighbourhoodContext ctx;
  ctx.bestAlign = align;
  ctx.minAlign = std::max<int64_t>(1, target.minAlignBytes / eb);
  ctx.env = model::bindings(c);
  ctx.minHeadDim = o.minHeadDim;
  ctx.maxHeadDim = o.maxHeadDim;
  SearchResult res;
  Odometer odometer(c, o.vary, ctx, res.bounded);

  res.before = c;
  // The budgets' reference, counted once for every candidate.
  const std::optional<model::ParamCount> paramsBefore =
      model::countParameters(c);
  res.paramsBefore = paramsBefore ? paramsBefore->total : 0;
  std::string originalViolation = violation(c, paramsBefore, c, o);
  std::string why;
  if (std::optional<StepPrediction> p = evaluate(c, o, why))
    res.predBefore = *p;
  else if (originalViolation.empty())
    originalViolation = why;

  // Per-rank sizes off the best alignment: hidden, head_dim, ffn, vocab.
  auto misaligned = [&](const ModelConfig &m) {
    model::Bindings env = model::bindings(m);
    int64_t n = (model::headDim(env) * eb) % target.bestAlignBytes != 0;
    for (Param p : {Param::Hidden, Param::Ffn, Param::Vocab}) {
      std::optional<int64_t> v = model::perRank(p).eval(env);
      if (!v)
        return int64_t(4);
      n += (*v * eb) % target.bestAlignBytes != 0;
    }
    return n;
  };
  ModelConfig best = c;
  auto rateOf = [&](const StepPrediction &p, const ModelConfig &m) {
    return objectiveRate(p, m, o);
  };
  const double rateBefore = rateOf(res.predBefore, c);
  double bestRate = originalViolation.empty() ? rateBefore : 0;
  double bestDistance = 10.0 * misaligned(c);
  bool haveBest = originalViolation.empty();
  odometer.run([&](const ModelConfig &n) {
    ++res.evaluated;
    SearchResult::Budget *budget = nullptr;
    if (!violation(c, paramsBefore, n, o, &res, &budget).empty()) {
      // A candidate only a budget rejects: what that budget cost.
      if (budget) {
        ++budget->rejected;
        std::string ignored;
        if (std::optional<StepPrediction> p = evaluate(n, o, ignored);
            p && rateBefore > 0)
          budget->bestGain =
              std::max(budget->bestGain, rateOf(*p, n) / rateBefore - 1);
      }
      return;
    }
    std::string rejected;
    std::optional<StepPrediction> priced = evaluate(n, o, rejected);
    if (!priced)
      return;
    ++res.feasible;
    const StepPrediction &p = *priced;
    // Never slower per step than a feasible original: growing the model
    // for efficiency alone is not a win.
    if (originalViolation.empty() && p.us > res.predBefore.us)
      return;
    double rate = rateOf(p, n);
    // Ties (within 0.1%) go first to the shape with fewer sizes off the
    // vendor's best multiple (128 bytes from Ampere on), then to the
    // smallest relative change summed over the searchable parameters.
    double dist = 10.0 * misaligned(n);
    for (Param q : model::allParams())
      if (model::paramInfo(q).searchable && getParam(c, q) > 0)
        dist += std::fabs(double(getParam(n, q) - getParam(c, q))) /
                double(getParam(c, q));
    bool better = !haveBest || rate > bestRate * 1.001 ||
                  (rate > bestRate / 1.001 && dist < bestDistance);
    if (better) {
      best = n;
      bestRate = rate;
      bestDistance = dist;
      haveBest = true;
    }
  });
  if (!haveBest) {
    error = "the model is infeasible under the search's rules (" +
            originalViolation + ") and no candidate in the neighbourhood "
            "fixes it";
    return std::nullopt;
  }
  res.bestGain = rateBefore > 0 ? bestRate / rateBefore - 1 : 0;

  // The changed parameters of `m`. Key/value heads move with the heads (a
  // GQA group stays whole), and alone only when they vary themselves.
  auto changedParams = [&](const ModelConfig &m) {
    std::vector<Param> out;
    for (Param p : model::allParams())
      if (model::paramInfo(p).searchable && getParam(c, p) != getParam(m, p) &&
          !(p == Param::KvHeads && !odometer.varies(p)) &&
          !odometer.follows(p))
        out.push_back(p);
    return out;
  };
  // `from` with parameter p set as in `to` (the heads with their kv heads).
  auto withParam = [&](ModelConfig from, const ModelConfig &to, Param p) {
    setParam(from, p, getParam(to, p));
    odometer.follow(from, p);
    if (p == Param::Heads)
      setParam(from, Param::KvHeads, getParam(to, Param::KvHeads));
    return from;
  };
  // The objective of `m` when it meets every rule the search applies and,
  // with `notSlower` (a result), is not slower per step than a feasible
  // original.
  auto feasibleRate = [&](const ModelConfig &m,
                          bool notSlower) -> std::optional<double> {
    if (!violation(c, paramsBefore, m, o).empty())
      return std::nullopt;
    std::optional<StepPrediction> p = evaluate(m, o, why);
    if (!p || (notSlower && originalViolation.empty() &&
               p->us > res.predBefore.us))
      return std::nullopt;
    return rateOf(*p, m);
  };
  // Parameter p's change in `m`: its effect alone on the original.
  auto changeOf = [&](const ModelConfig &m, Param p) {
    Change ch;
    ch.parameter = model::paramName(p);
    ch.before = getParam(c, p);
    ch.after = getParam(m, p);
    ModelConfig one = withParam(c, m, p);
    std::optional<StepPrediction> sp;
    if (violation(c, paramsBefore, one, o).empty() ||
        !originalViolation.empty())
      sp = evaluate(one, o, why);
    // 0: feasible only together with the other changes.
    ch.speedup = sp && rateBefore > 0 ? rateOf(*sp, one) / rateBefore : 0;
    auto pc = model::countParameters(one);
    ch.paramDelta = pc ? pc->total - res.paramsBefore : 0;
    ch.aligns = misaligned(withParam(m, c, p)) > misaligned(m);
    return ch;
  };

  // Each change earns its place: undo, one at a time, the change whose
  // undoing costs least while it costs less than min-gain (GPT-2's ffn
  // 3072 -> 3200 adds 1.9% parameters for 1.006x). A change that puts a
  // size on the best alignment stays (`Change::aligns`). At most one pass
  // per changed parameter.
  for (size_t round = 0, n = changedParams(best).size(); round < n;
       ++round) {
    std::optional<std::pair<double, Param>> cheapest;
    for (Param p : changedParams(best)) {
      ModelConfig undone = withParam(best, c, p);
      if (misaligned(undone) > misaligned(best))
        continue;
      std::optional<double> r = feasibleRate(undone, true);
      if (r && *r * (1 + o.minGain) > bestRate &&
          (!cheapest || *r > cheapest->first))
        cheapest = std::make_pair(*r, p);
    }
    if (!cheapest)
      break;
    Change ch = changeOf(best, cheapest->second);
    ch.gainInResult = bestRate / cheapest->first;
    res.dropped.push_back(ch);
    best = withParam(best, c, cheapest->second);
    bestRate = cheapest->first;
  }
  res.prunedGain = rateBefore > 0 ? bestRate / rateBefore - 1 : 0;
  // Keep the model unless the gain is worth it (a feasible original).
  if (originalViolation.empty() && bestRate < rateBefore * (1 + o.minGain)) {
    best = c;
    res.dropped.clear();
  }
  res.after = best;
  res.predAfter = evaluate(best, o, why).value_or(StepPrediction{});
  res.paramsAfter = model::countParameters(best)->total;

  // One entry per changed parameter: its effect alone and what it adds to
  // the result.
  for (Param p : changedParams(best)) {
    Change ch = changeOf(best, p);
    std::optional<double> without =
        feasibleRate(withParam(best, c, p), false);
    ch.gainInResult = without && *without > 0 ? bestRate / *without : 0;
    res.changes.push_back(ch);
  }
  return res;
}
