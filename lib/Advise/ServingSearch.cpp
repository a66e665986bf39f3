//===- ServingSearch.cpp - The serving configurations under targets -------===//
//
// docs/serving.md#search states the space, the targets and the bounds.
//
//===----------------------------------------------------------------------===//

#include "tshape/Advise/ServingSearch.h"

#include "tshape/Advise/Odometer.h"
#include "tshape/Interop/ServingLaunch.h"
#include "tshape/Model/Params.h"
#include "tshape/Support/DType.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

using namespace tshape;
using namespace tshape::advise;
using cost::ServingConfig;
using cost::ServingEstimate;

namespace {
std::string num(double v, const char *fmt = "%.1f") {
  char buf[32];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

/// 1, 2, 4, ... up to `most`.
std::vector<int64_t> powersOfTwo(int64_t most) {
  std::vector<int64_t> v;
  for (int64_t d = 1; d <= most; d *= 2)
    v.push_back(d);
  return v;
}

/// A rejection's kind: "rule A3" for a model rule, else the message's
/// first words.
std::string reasonKind(const std::string &msg) {
  if (size_t r = msg.find("rule "); r != std::string::npos) {
    size_t end = msg.find(':', r);
    return msg.substr(r, end == std::string::npos ? std::string::npos
                                                  : end - r);
  }
  if (msg.rfind("does not fit", 0) == 0)
    return "does not fit in memory";
  if (msg.find("experts must span") != std::string::npos)
    return "ep does not divide the attention's GPUs";
  return msg.substr(0, msg.find(':'));
}

/// How `e` stands against `t`: the worst ratio and the misses.
void judge(ServingCandidate &c, const ServingTargets &t) {
  const ServingEstimate &e = c.estimate;
  c.worstRatio = 0;
  c.miss.clear();
  auto check = [&](double value, double target, const char *what) {
    if (target <= 0)
      return;
    const double r = value / target;
    c.worstRatio = std::max(c.worstRatio, r);
    if (r > 1)
      c.miss += (c.miss.empty() ? "" : ", ") + std::string(what) + " " +
                num(value) + " ms > " + num(target, "%g") + " ms";
  };
  check(e.ttftMs, t.ttftMs, "TTFT");
  if (e.tpotMs > 0)
    check(e.tpotMs, t.tpotMs, "TPOT");
  c.meets = c.miss.empty();
}
} // namespace

std::string tshape::advise::describe(const ServingCandidate &c) {
  std::string s = c.config.plan.str() + ", " +
                  (c.config.precision ? precisionName(*c.config.precision)
                                      : "dtype") +
                  ", " + std::to_string(c.estimate.concurrency) +
                  (c.estimate.concurrency == 1 ? " request" : " requests");
  return s;
}

ServingSearchResult tshape::advise::searchServing(
    const model::ModelConfig &c, const cost::ServingWorkload &workload,
    const ServingConfig &base, const ServingSpace &space,
    const ServingTargets &targets, const target::GpuTarget &target,
    const cost::Cluster *cluster, size_t top) {
  ServingSearchResult out;
  const bool experts = model::getParam(c, model::Param::Experts) > 0;
  const std::vector<int64_t> tps = powersOfTwo(space.gpus);
  // Attention data parallelism inside a replica matters with routed
  // experts (they span the dp ranks); a dense model's dp ranks are
  // replicas, which the per-GPU figures already cover.
  const std::vector<int64_t> dps = space.attentionDp && experts
                                       ? powersOfTwo(space.gpus)
                                       : std::vector<int64_t>{1};
  // ep 0 is the engines' default (no expert parallelism); then 2, 4, ...
  std::vector<int64_t> eps = {0};
  if (experts)
    for (int64_t e = 2; e <= space.gpus; e *= 2)
      eps.push_back(e);
  // Requests in flight: powers of two, then the most the cache holds (0).
  std::vector<int64_t> conc = powersOfTwo(kServingMaxConcurrencyStep);
  conc.push_back(0);

  // With a rate the fewest GPUs first, then (and without one) the most
  // tokens/s per GPU.
  auto better = [&](const ServingCandidate &a, const ServingCandidate &b) {
    if (targets.rate > 0 && a.totalGpus != b.totalGpus)
      return a.totalGpus < b.totalGpus;
    return a.estimate.outputTokensPerSecondPerGpu >
           b.estimate.outputTokensPerSecondPerGpu;
  };
  ServingConfig cfg = base;
  cost::ServingWorkload w = workload;
  int64_t admitted = 0; // the current layout's most requests in flight
  std::map<std::string, ServingCandidate> bestOfLayout;
  std::vector<ServingCandidate> &all = out.all;
  const std::vector<size_t> sizes = {space.precisions.size(), tps.size(),
                                     dps.size(), eps.size(), conc.size()};
  out.space = int64_t(sizes[0] * sizes[1] * sizes[2] * sizes[3] * sizes[4]);

  auto enter = [&](size_t level, size_t i) -> bool {
    switch (level) {
    case 0:
      cfg.precision = space.precisions[i];
      return true;
    case 1:
      cfg.plan.attentionTp = tps[i];
      return true;
    case 2:
      cfg.plan.attentionDp = dps[i];
      return cfg.plan.attentionTp * dps[i] <= space.gpus;
    case 3: {
      cfg.plan.expertEp = eps[i];
      if (eps[i] > cfg.plan.attentionTp * cfg.plan.attentionDp)
        return false;
      ++out.layouts;
      // The layout's memory: one request priced.
      std::string err;
      cost::ServingWorkload one = workload;
      one.concurrency = 1;
      std::optional<ServingEstimate> e =
          cost::estimateServing(c, one, cfg, target, cluster, err);
      if (!e) {
        const std::string kind = reasonKind(err);
        ++out.rejections[kind];
        out.rejectionExamples.emplace(kind, err);
        return false;
      }
      // What the engine cannot launch as priced is no answer.
      cost::ServingConfig layout = cfg;
      layout.draftTokens = 0;
      if (std::optional<std::string> why = launchRefusal(layout)) {
        const std::string kind = std::string("the engine (") +
                                 cost::engineName(cfg.engine) +
                                 ") cannot launch it";
        ++out.rejections[kind];
        out.rejectionExamples.emplace(kind, *why);
        return false;
      }
      ++out.layoutsPriced;
      const int64_t dp = cfg.plan.attentionDp;
      admitted = e->maxSequences > 0
                     ? std::min(e->memory.cacheRequests, dp * e->maxSequences)
                     : e->memory.cacheRequests;
      return true;
    }
    default: {
      // A power of two beyond what the layout admits, or the most when it
      // is one of the powers already tried, adds nothing.
      if (conc[i] > admitted)
        return false;
      if (conc[i] == 0 && (admitted & (admitted - 1)) == 0 &&
          admitted <= kServingMaxConcurrencyStep)
        return false;
      w.concurrency = conc[i];
      std::string err;
      std::optional<ServingEstimate> e =
          cost::estimateServing(c, w, cfg, target, cluster, err);
      if (!e)
        return false;
      ++out.evaluated;
      ServingCandidate cand{cfg, *e, true, 0, "", 1, e->gpus, 0};
      if (targets.rate > 0 && targets.rate <= cost::kMaxServingRate &&
          e->requestsPerSecond > 0 &&
          targets.rate / e->requestsPerSecond < 1e15) {
        cand.replicas = std::max<int64_t>(
            1, int64_t(std::ceil(targets.rate / e->requestsPerSecond - 1e-9)));
        cand.totalGpus = cand.replicas * e->gpus;
      }
      // The cost of what is served: the rate's tokens on the GPUs it needs,
      // else the replica's throughput.
      cand.costPerMillion = cost::costPerMillionTokens(
          targets.gpuHourPrice,
          targets.rate > 0 ? targets.rate * double(workload.osl) /
                                 double(cand.totalGpus)
                           : e->outputTokensPerSecondPerGpu);
      judge(cand, targets);
      if (cand.meets) {
        ++out.meeting;
        std::string key = describe(cand);
        key = key.substr(0, key.rfind(", "));
        auto [it, fresh] = bestOfLayout.emplace(key, cand);
        if (!fresh && better(cand, it->second))
          it->second = cand;
      }
      all.push_back(std::move(cand));
      return true;
    }
    }
  };
  runOdometer(sizes, enter, [](size_t) {}, [] {});

  for (auto &[key, cand] : bestOfLayout)
    out.best.push_back(cand);
  std::stable_sort(out.best.begin(), out.best.end(), better);
  if (out.best.size() > top)
    out.best.resize(top);

  // The Pareto front: by tokens/s per user, descending, each kept when it
  // beats every faster-per-user one in tokens/s per GPU.
  std::vector<const ServingCandidate *> byUser;
  for (const ServingCandidate &cand : all)
    if (cand.estimate.outputTokensPerSecondPerUser > 0)
      byUser.push_back(&cand);
  std::stable_sort(byUser.begin(), byUser.end(),
                   [](const ServingCandidate *a, const ServingCandidate *b) {
                     return a->estimate.outputTokensPerSecondPerUser >
                            b->estimate.outputTokensPerSecondPerUser;
                   });
  double most = -1;
  for (const ServingCandidate *cand : byUser)
    if (cand->estimate.outputTokensPerSecondPerGpu > most) {
      most = cand->estimate.outputTokensPerSecondPerGpu;
      out.pareto.push_back(*cand);
    }

  if (out.meeting == 0 && !all.empty()) {
    auto closest = std::min_element(
        all.begin(), all.end(),
        [](const ServingCandidate &a, const ServingCandidate &b) {
          return a.worstRatio < b.worstRatio;
        });
    out.closest = *closest;
    auto lowest = [&](auto field, double target, const char *what) {
      if (target <= 0)
        return;
      const ServingCandidate *b = nullptr;
      for (const ServingCandidate &cand : all)
        if (field(cand) > 0 && (!b || field(cand) < field(*b)))
          b = &cand;
      if (b)
        out.boundNotes.push_back(
            std::string("the lowest ") + what + " is " + num(field(*b)) +
            " ms (" + describe(*b) + ")" +
            (field(*b) > target ? ", above the target " +
                                      num(target, "%g") + " ms"
                                : ""));
    };
    lowest([](const ServingCandidate &x) { return x.estimate.ttftMs; },
           targets.ttftMs, "TTFT");
    lowest([](const ServingCandidate &x) { return x.estimate.tpotMs; },
           targets.tpotMs, "TPOT");
  }
  return out;
}
