//===- Projection.cpp - Communication share across model and hardware ----===//
//
// The scaling rules, the share arithmetic and the sweep (Projection.h;
// docs/plan.md, "Projection").
//
//===----------------------------------------------------------------------===//

#include "tshape/Advise/Projection.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

using namespace tshape;
using namespace tshape::advise;
using model::Param;

namespace {
/// Narayanan et al. 2021, Table 1 (parallel-notes.md): name, h, L, heads,
/// GPUs, global batch.
const ModelPoint kMegatron2021[] = {
    {"1.7B", 2304, 24, 24, 32, 512},
    {"3.6B", 3072, 30, 32, 64, 512},
    {"7.5B", 4096, 36, 32, 128, 512},
    {"18.4B", 6144, 40, 48, 256, 1024},
    {"39.1B", 8192, 48, 64, 512, 1536},
    {"76.1B", 10240, 60, 80, 1024, 1792},
    {"145.6B", 12288, 80, 96, 1536, 2304},
    {"310.1B", 16384, 96, 128, 1920, 2160},
    {"529.6B", 20480, 105, 128, 2520, 2520},
    {"1008B", 25600, 128, 160, 3072, 3072},
};

/// The aspect rule's layer counts are bounded so that h = 128 L stays a
/// size the models handle quickly.
constexpr int64_t kMaxAspectLayers = 1024;

std::string allNames() {
  std::string s;
  for (const ModelPoint &p : kMegatron2021)
    s += (s.empty() ? "" : ", ") + p.name;
  return s;
}
} // namespace

const char *tshape::advise::scalingRuleName(ScalingRule r) {
  return r == ScalingRule::Megatron2021 ? "megatron-2021" : "aspect-128";
}

std::optional<ScalingRule>
tshape::advise::parseScalingRule(const std::string &name) {
  for (ScalingRule r : {ScalingRule::Megatron2021, ScalingRule::Aspect128})
    if (name == scalingRuleName(r))
      return r;
  return std::nullopt;
}

const char *tshape::advise::scalingRuleSource(ScalingRule r) {
  if (r == ScalingRule::Megatron2021)
    return "h, L and heads of the ten GPT models of Narayanan et al. 2021 "
           "(SC'21), Table 1, 1.7B to 1T, each with its published GPUs and "
           "global batch";
  return "h = 128 L (GPT-3 175B's aspect ratio, 12288/96; Kaplan et al. "
         "2020, Section 3.1: loss nearly independent of the aspect ratio "
         "over a wide range) with head dim 128 (heads = L)";
}

std::optional<std::vector<ModelPoint>>
tshape::advise::scalingPoints(ScalingRule rule,
                              const std::vector<std::string> &select,
                              std::string &error) {
  std::vector<ModelPoint> out;
  if (rule == ScalingRule::Megatron2021) {
    if (select.empty())
      return std::vector<ModelPoint>(std::begin(kMegatron2021),
                                     std::end(kMegatron2021));
    for (const std::string &name : select) {
      const ModelPoint *p =
          std::find_if(std::begin(kMegatron2021), std::end(kMegatron2021),
                       [&](const ModelPoint &m) { return m.name == name; });
      if (p == std::end(kMegatron2021)) {
        error = "no model '" + name + "' in the megatron-2021 rule (" +
                allNames() + ")";
        return std::nullopt;
      }
      out.push_back(*p);
    }
    return out;
  }
  if (select.empty()) {
    error = "the aspect-128 rule needs --project-points=L1,L2,... (layer "
            "counts)";
    return std::nullopt;
  }
  for (const std::string &s : select) {
    char *end = nullptr;
    const long long layers = std::strtoll(s.c_str(), &end, 10);
    if (s.empty() || *end != '\0' || layers < 1 || layers > kMaxAspectLayers) {
      error = "aspect-128 point '" + s + "': a layer count in [1, " +
              std::to_string(kMaxAspectLayers) + "]";
      return std::nullopt;
    }
    ModelPoint p;
    p.name = "L=" + s;
    p.layers = layers;
    p.hidden = 128 * layers;
    p.heads = layers;
    out.push_back(p);
  }
  return out;
}

model::ModelConfig tshape::advise::atScale(const model::ModelConfig &family,
                                           const ModelPoint &point) {
  model::ModelConfig c = family;
  c.parallel = {};
  const int64_t h0 = getParam(family, Param::Hidden);
  const int64_t a0 = getParam(family, Param::Heads);
  const int64_t g0 = getParam(family, Param::KvHeads);
  const int64_t f0 = getParam(family, Param::Ffn);
  setParam(c, Param::Hidden, point.hidden);
  setParam(c, Param::Layers, point.layers);
  setParam(c, Param::Heads, point.heads);
  setParam(c, Param::KvHeads,
           g0 == a0 ? point.heads
                    : std::max<int64_t>(1, point.heads * g0 / a0));
  if (getParam(family, Param::HeadDim))
    setParam(c, Param::HeadDim, point.hidden / point.heads);
  int64_t f = f0 * point.hidden / h0;
  if (f * h0 != f0 * point.hidden)
    f = std::max<int64_t>(
        64, int64_t(std::llround(double(f0) * double(point.hidden) /
                                 double(h0) / 64.0)) *
                64);
  setParam(c, Param::Ffn, f);
  return c;
}

CommShare tshape::advise::commShare(const cost::StepEstimate &s) {
  CommShare r;
  const cost::CommTime *comms[] = {&s.tp, &s.cp, &s.p2p, &s.dp};
  for (const cost::CommTime *c : comms) {
    r.total += c->total;
    r.exposed += c->exposed;
  }
  if (s.stepTime <= 0)
    return r;
  const double serialized = s.stepTime - r.exposed + r.total;
  r.totalShare = serialized > 0 ? r.total / serialized : 0;
  r.exposedShare = r.exposed / s.stepTime;
  r.bubbleShare = s.bubble / s.stepTime;
  r.tpShare = s.tp.exposed / s.stepTime;
  r.cpShare = s.cp.exposed / s.stepTime;
  r.p2pShare = s.p2p.exposed / s.stepTime;
  r.dpShare = s.dp.exposed / s.stepTime;
  return r;
}

std::optional<ProjectionResult>
tshape::advise::project(const model::ModelConfig &family,
                        const std::vector<ModelPoint> &models,
                        const std::vector<HardwareChoice> &choices,
                        const ProjectionOptions &options, std::string &error,
                        const SearchProgress &progress) {
  const size_t total = models.size() * choices.size();
  if (total == 0) {
    error = "nothing to project: no model point or no hardware";
    return std::nullopt;
  }
  if (total > kMaxProjectionPoints) {
    error = std::to_string(models.size()) + " models x " +
            std::to_string(choices.size()) +
            " hardware choices = " + std::to_string(total) +
            " points, more than the " + std::to_string(kMaxProjectionPoints) +
            " one run projects";
    return std::nullopt;
  }
  ProjectionResult res;
  res.rule = options.rule;
  for (const HardwareChoice &c : choices)
    res.hardware.push_back(c.label);
  size_t done = 0;
  for (const ModelPoint &m : models) {
    const int64_t gpus = options.gpus ? options.gpus : m.gpus;
    const int64_t batch =
        options.globalBatch ? options.globalBatch : m.globalBatch;
    if (!gpus || !batch) {
      error = std::string("the ") + scalingRuleName(options.rule) +
              " rule's point " + m.name +
              " has no GPU count or global batch: give --gpus and "
              "--global-batch";
      return std::nullopt;
    }
    const model::ModelConfig config = atScale(family, m);
    const std::optional<model::ParamCount> params =
        model::countParameters(config);
    const PlanSpace space =
        narrowSpace(defaultPlanSpace(config, gpus, batch), options.fixed);
    for (const HardwareChoice &c : choices) {
      if (progress)
        progress(done++, total, m.name + " on " + c.label);
      std::optional<PlanSearchResult> r = searchPlans(
          config, space, c.hw.target, c.hw.cluster, options.search, error);
      if (!r) {
        error = m.name + " on " + c.label + ": " + error;
        return std::nullopt;
      }
      ProjectionPoint p;
      p.model = m;
      p.parameters = params ? params->total : 0;
      p.gpus = gpus;
      p.globalBatch = batch;
      p.hardware = c.label;
      p.space = r->spaceSize;
      p.priced = r->priced;
      p.fit = r->timed;
      p.unvisited = r->unvisited;
      if (r->ranked.empty()) {
        p.noFit = noPlanFits(*r);
      } else {
        p.best = r->ranked.front();
        p.share = commShare(p.best->step);
      }
      res.points.push_back(std::move(p));
    }
  }
  return res;
}
