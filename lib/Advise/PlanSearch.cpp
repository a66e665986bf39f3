//===- PlanSearch.cpp - The search over training plans --------------------===//
//
// One odometer (Odometer.h) over t, p, cp, e, the microbatch, v, recompute,
// sequence parallelism and sharding. Each level states the rules its value
// must meet given the levels above it, so a cut removes only candidates
// that all break that rule; complete candidates are priced for memory,
// and those that fit for time, with one cost::StepModel that remembers the
// kernels of each per-rank shape. docs/plan.md, "Search".
//
//===----------------------------------------------------------------------===//

#include "tshape/Advise/PlanSearch.h"

#include "tshape/Advise/Odometer.h"
#include "tshape/Interop/Megatron.h"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <map>

using namespace tshape;
using namespace tshape::advise;
using cost::Recompute;
using cost::StateSharding;
using model::ModelConfig;
using model::Param;

namespace {
std::string n(int64_t v) { return std::to_string(v); }

std::string gib(double g) {
  char buf[32];
  snprintf(buf, sizeof(buf), "%.1f GiB", g);
  return buf;
}

/// The divisors of `v` in increasing order (v <= kMaxGpus or kMaxBatch:
/// at most sqrt(v) trial divisions).
std::vector<int64_t> divisors(int64_t v) {
  std::vector<int64_t> lo, hi;
  for (int64_t d = 1; d * d <= v; ++d)
    if (v % d == 0) {
      lo.push_back(d);
      if (d != v / d)
        hi.push_back(v / d);
    }
  lo.insert(lo.end(), hi.rbegin(), hi.rend());
  return lo;
}

/// Bounds on the space's inputs, so that listing divisors stays cheap.
constexpr int64_t kMaxGpus = 1 << 24;
constexpr int64_t kMaxBatch = int64_t(1) << 32;

int64_t saturatingProduct(std::initializer_list<size_t> sizes) {
  int64_t p = 1;
  for (size_t s : sizes) {
    if (s == 0)
      return 0;
    if (p > INT64_MAX / int64_t(s))
      return INT64_MAX;
    p *= int64_t(s);
  }
  return p;
}
} // namespace

int64_t PlanSpace::size() const {
  return saturatingProduct({tp.size(), pp.size(), cp.size(), ep.size(),
                            microbatch.size(), virtualStages.size(),
                            recompute.size(), sequenceParallel.size(),
                            sharding.size(), overlapEpComm.size()});
}

PlanSpace tshape::advise::defaultPlanSpace(const ModelConfig &c, int64_t gpus,
                                           int64_t globalBatch) {
  PlanSpace s;
  s.gpus = gpus;
  s.globalBatch = globalBatch;
  if (gpus >= 1 && gpus <= kMaxGpus)
    s.tp = s.pp = s.cp = divisors(gpus);
  // Expert parallelism for a model with experts: the degrees that divide
  // them (rule E1); Megatron-LM's rules cut the rest (Megatron.cpp).
  const int64_t experts = getParam(c, Param::Experts);
  s.ep = experts >= 1 && experts <= kMaxGpus ? divisors(experts)
                                             : std::vector<int64_t>{1};
  if (globalBatch >= 1 && globalBatch <= kMaxBatch)
    s.microbatch = divisors(globalBatch);
  const int64_t layers = getParam(c, Param::Layers);
  if (layers >= 1 && layers <= kMaxGpus)
    s.virtualStages = divisors(layers);
  s.recompute = {Recompute::None, Recompute::Selective, Recompute::Full};
  s.sequenceParallel = {false, true};
  s.sharding = {StateSharding::None, StateSharding::DistributedOptimizer,
                StateSharding::Fsdp};
  if (experts >= 1)
    s.overlapEpComm = {false, true};
  return s;
}

double PlanCandidate::peakGiB() const {
  return step.memory.stages.empty() ? 0
                                    : step.memory.peak().total() / cost::kGiB;
}

std::string PlanCandidate::describe() const {
  const model::Parallelism &p = config.parallel;
  std::string s = "t=" + n(p.tp) + " p=" + n(p.pp) + " d=" + n(p.dp);
  if (p.cp != 1)
    s += " cp=" + n(p.cp);
  if (p.ep != 1)
    s += " e=" + n(p.ep);
  s += " b=" + n(getParam(config, Param::Microbatch));
  if (plan.virtualStages != 1)
    s += " v=" + n(plan.virtualStages);
  s += ", recompute " +
       cost::recomputeText(plan.recompute, plan.selectiveModules());
  if (plan.sequenceParallel)
    s += ", sequence parallel";
  if (plan.sharding != StateSharding::None)
    s += std::string(", ") + cost::shardingName(plan.sharding);
  if (plan.overlapEpComm)
    s += ", expert all-to-alls overlapped";
  return s;
}

namespace {
/// Checks the space's lists; "" when it is well formed.
std::string checkSpace(const PlanSpace &s) {
  if (s.gpus < 1 || s.gpus > kMaxGpus)
    return "the GPU count must be in [1, " + n(kMaxGpus) + "], got " +
           n(s.gpus);
  if (s.globalBatch < 1 || s.globalBatch > kMaxBatch)
    return "the global batch must be in [1, " + n(kMaxBatch) + "], got " +
           n(s.globalBatch);
  const std::pair<const char *, const std::vector<int64_t> *> lists[] = {
      {"tp", &s.tp},
      {"pp", &s.pp},
      {"cp", &s.cp},
      {"ep", &s.ep},
      {"microbatch", &s.microbatch},
      {"virtual stages", &s.virtualStages}};
  for (auto [name, list] : lists) {
    if (list->empty())
      return std::string("no ") + name + " value to try";
    for (int64_t v : *list)
      if (v < 1)
        return std::string(name) + " must be at least 1, got " + n(v);
  }
  if (s.recompute.empty() || s.sequenceParallel.empty() ||
      s.sharding.empty() || s.overlapEpComm.empty())
    return "no recompute, sequence-parallel, sharding or expert-overlap "
           "choice to try";
  return "";
}

/// The search's state while the odometer runs.
class Search {
public:
  Search(const ModelConfig &config, const PlanSpace &space,
         const target::GpuTarget &target, const cost::Cluster &cluster,
         const PlanSearchOptions &options, PlanSearchResult &res)
      : space(space), options(options), res(res), original(config),
        cfg(config), target(target),
        model(target, cluster, options.step) {
    limitBytes = res.memoryLimitGiB * cost::kGiB;
    plan.bytes = options.bytes;
    plan.precision = options.precision;
    families.resize(space.tp.size());
  }

  void run() {
    const std::vector<size_t> sizes = {
        space.tp.size(),         space.pp.size(),
        space.cp.size(),         space.ep.size(),
        space.microbatch.size(), space.virtualStages.size(),
        space.recompute.size(),  space.sequenceParallel.size(),
        space.sharding.size(),   space.overlapEpComm.size()};
    runOdometer(
        sizes, [&](size_t level, size_t i) { return enter(level, i); },
        [&](size_t level) { leave(level); },
        [&](size_t, int64_t below) {
          if (stopped)
            res.unvisited += below;
          else
            reject(below);
        },
        [&] { leaf(); });
    finish();
  }

private:
  /// Sets `why` (a rule and a message) and returns false: the level's
  /// value is cut.
  bool cut(const char *rule, std::string message) {
    whyRule = rule;
    whyMessage = std::move(message);
    return false;
  }

  /// Counts `candidates` as rejected by `why`: cut whole, or (`priced`)
  /// one complete candidate that a model refused.
  void reject(int64_t candidates, bool priced = false) {
    if (!priced)
      res.cut += candidates;
    Rejection &r = rejections[whyRule];
    if (r.candidates == 0) {
      r.rule = whyRule;
      r.example = whyMessage;
    }
    r.candidates += candidates;
    Family &f = families[tpIndex];
    if (f.cutCandidates < candidates) {
      f.cutCandidates = candidates;
      f.cutMessage = whyMessage;
    }
  }

  bool enter(size_t level, size_t i) {
    if (res.priced >= options.maxCandidates)
      stopped = true;
    if (stopped)
      return false;
    const model::Parallelism &par = cfg.parallel;
    switch (level) {
    case 0: { // tp
      tpIndex = i;
      const int64_t t = space.tp[i];
      setParam(cfg, Param::Tp, t);
      // A vocabulary not divisible by t padded as Megatron-LM pads it.
      for (Param p : model::allParams())
        if (model::paramInfo(p).growOnly)
          setParam(cfg, p, getParam(original, p));
      model::padGrowOnlySplits(cfg, kMegatronVocabDivisibleBy);
      if (space.gpus % t)
        return cut("tp divides the GPUs",
                   "tp " + n(t) + " does not divide " + n(space.gpus) +
                       " GPUs");
      setParam(cfg, Param::Dp, space.gpus / t);
      if (std::optional<model::RuleViolation> v =
              model::checkModelPerSequence(cfg))
        return cut("a model rule at this tp",
                   "tp=" + n(t) + ": rule " + v->rule + ": " + v->message);
      // Sequence parallelism is chosen later (level 7): a MoE model's
      // need of it at tp > 1 is checked there.
      cost::TrainingPlan plain;
      plain.sequenceParallel = t > 1;
      if (std::optional<std::string> m = checkMegatronRules(cfg, plain))
        return cut("a Megatron-LM rule at this tp",
                   "tp=" + n(t) + ": " + *m);
      return true;
    }
    case 1: { // pp
      const int64_t p = space.pp[i];
      setParam(cfg, Param::Pp, p);
      if (space.gpus % (par.tp * p))
        return cut("tp x pp divides the GPUs",
                   "tp " + n(par.tp) + " x pp " + n(p) + " does not divide " +
                       n(space.gpus) + " GPUs");
      if (cfg.layers % p)
        return cut("pp divides the layers",
                   "pp " + n(p) + " does not divide " + n(cfg.layers) +
                       " layers (Megatron-LM requires it)");
      return true;
    }
    case 2: { // cp, and dp what is left
      const int64_t c = space.cp[i];
      setParam(cfg, Param::Cp, c);
      const int64_t ranks = par.tp * par.pp * c;
      if (space.gpus % ranks)
        return cut("tp x pp x cp divides the GPUs",
                   "tp " + n(par.tp) + " x pp " + n(par.pp) + " x cp " +
                       n(c) + " = " + n(ranks) + " does not divide " +
                       n(space.gpus) + " GPUs");
      setParam(cfg, Param::Dp, space.gpus / ranks);
      if (c > 1 && cfg.seq % (2 * c))
        return cut("2 cp divides the sequence",
                   "seq " + n(cfg.seq) + " not a multiple of 2 x cp = " +
                       n(2 * c) + " (Megatron-LM requires it)");
      return true;
    }
    case 3: { // ep
      setParam(cfg, Param::Ep, space.ep[i]);
      if (space.ep[i] > 1) {
        cost::TrainingPlan plain;
        plain.sequenceParallel = par.tp > 1;
        if (std::optional<std::string> m = checkMegatronRules(cfg, plain))
          return cut("a Megatron-LM rule at this ep", *m);
      }
      return true;
    }
    case 4: { // microbatch: m follows from the global batch
      const int64_t b = space.microbatch[i];
      setParam(cfg, Param::Microbatch, b);
      const int64_t perStep = b * par.dp;
      if (space.globalBatch % perStep)
        return cut("b x d divides the global batch",
                   "global batch " + n(space.globalBatch) +
                       " not divisible by b " + n(b) + " x d " + n(par.dp) +
                       " = " + n(perStep));
      plan.microbatches = space.globalBatch / perStep;
      if (par.pp > 1 && plan.microbatches < par.pp)
        return cut("m >= pp", "m " + n(plan.microbatches) + " < pp " +
                                  n(par.pp) +
                                  ": the pipeline never fills");
      return true;
    }
    case 5: { // v
      const int64_t v = space.virtualStages[i];
      plan.setVirtualStages(v);
      if (v == 1)
        return true;
      // P2P overlap is Megatron-LM's default: interleaving needs pp > 1
      // (arguments.py:1000).
      if (par.pp <= 1)
        return cut("interleaving needs pp > 1",
                   "v " + n(v) + " needs pp > 1 (Megatron-LM), got pp " +
                       n(par.pp));
      if ((cfg.layers / par.pp) % v)
        return cut("v divides the layers per stage",
                   "v " + n(v) + " does not divide " +
                       n(cfg.layers / par.pp) + " layers per stage");
      if (plan.microbatches % par.pp)
        return cut("pp divides m when interleaved",
                   "m " + n(plan.microbatches) + " not divisible by pp " +
                       n(par.pp) + " (Megatron-LM's interleaved schedule)");
      return true;
    }
    case 6:
      plan.recompute = space.recompute[i];
      plan.recomputeModules = space.selectiveModules;
      return true;
    case 7:
      plan.sequenceParallel = space.sequenceParallel[i];
      if (plan.sequenceParallel && par.tp == 1)
        return cut("sequence parallel needs tp > 1",
                   "sequence parallelism at tp 1 is no sequence "
                   "parallelism (Megatron-LM turns it off)");
      if (!plan.sequenceParallel && par.tp > 1 && cfg.moe.experts)
        return cut("MoE at tp > 1 needs sequence parallelism",
                   "MoE at tp " + n(par.tp) + " without sequence "
                   "parallelism (Megatron-LM raises at the first MoE "
                   "layer, moe_layer.py:636)");
      return true;
    case 8: {
      plan.sharding = space.sharding[i];
      if (plan.sharding == StateSharding::None)
        return true;
      if (par.dp * par.cp == 1)
        return cut("sharding needs d x cp > 1",
                   "sharding over one data-parallel rank is no sharding");
      if (plan.sharding == StateSharding::Fsdp)
        if (std::optional<std::string> m = checkMegatronRules(cfg, plan))
          return cut("a Megatron-LM rule of FSDP", *m);
      return true;
    }
    case 9:
      plan.overlapEpComm = space.overlapEpComm[i];
      if (!plan.overlapEpComm)
        return true;
      if (par.ep <= 1)
        return cut("expert overlap needs ep > 1",
                   "the expert all-to-alls overlapped without expert "
                   "parallelism");
      if (std::optional<std::string> m = checkMegatronRules(cfg, plan))
        return cut("a Megatron-LM rule with the expert overlap", *m);
      return true;
    }
    return true;
  }

  void leave(size_t level) {
    switch (level) {
    case 0:
      setParam(cfg, Param::Tp, 1);
      break;
    case 1:
      setParam(cfg, Param::Pp, 1);
      break;
    case 2:
      setParam(cfg, Param::Cp, 1);
      break;
    case 3:
      setParam(cfg, Param::Ep, 1);
      break;
    case 5:
      plan.setVirtualStages(1);
      break;
    case 8:
      plan.sharding = StateSharding::None;
      break;
    case 9:
      plan.overlapEpComm = false;
      break;
    default:
      break;
    }
  }

  void leaf() {
    ++res.priced;
    if (options.progress && res.priced % 1024 == 0)
      options.progress(res.priced + res.cut, res.spaceSize);
    Family &f = families[tpIndex];
    std::string error;
    std::optional<cost::MemoryEstimate> mem =
        cost::estimateMemory(cfg, plan, &error, &target);
    if (!mem) {
      whyRule = "memory model";
      whyMessage = error;
      reject(1, /*priced=*/true);
      return;
    }
    const double peak = mem->peak().total();
    if (peak > limitBytes) {
      Rejection &r = rejections["memory"];
      if (r.candidates++ == 0) {
        r.rule = "memory";
        r.example = candidate(*mem).describe() + ": " + gib(peak / cost::kGiB) +
                    " > " + gib(res.memoryLimitGiB);
      }
      if (!f.smallest || peak < f.smallestBytes) {
        f.smallestBytes = peak;
        f.smallest = candidate(std::move(*mem));
      }
      return;
    }
    std::optional<cost::StepEstimate> step =
        model.estimate(cfg, plan, std::move(*mem), &error);
    if (!step) {
      whyRule = "step model";
      whyMessage = error;
      reject(1, /*priced=*/true);
      return;
    }
    ++res.timed;
    ++f.fitting;
    const double t = step->stepTime;
    if (!f.fastest || t < f.fastest->step.stepTime) {
      f.fastest = PlanCandidate{cfg, plan, *step};
    }
    rank(t, peak, *step);
  }

  PlanCandidate candidate(cost::MemoryEstimate mem) const {
    PlanCandidate c{cfg, plan, {}};
    c.step.memory = std::move(mem);
    return c;
  }

  /// Keeps the `top` fastest, ties (within 0.01%) to the one using less
  /// memory.
  void rank(double t, double peak, const cost::StepEstimate &step) {
    auto before = [](double t1, double m1, double t2, double m2) {
      if (t1 < t2 * (1 - 1e-4))
        return true;
      return t1 <= t2 * (1 + 1e-4) && m1 < m2;
    };
    std::vector<PlanCandidate> &r = res.ranked;
    if (int64_t(r.size()) >= keep &&
        !before(t, peak, r.back().step.stepTime,
                r.back().step.memory.peak().total()))
      return;
    auto pos = std::find_if(r.begin(), r.end(), [&](const PlanCandidate &c) {
      return before(t, peak, c.step.stepTime, c.step.memory.peak().total());
    });
    r.insert(pos, PlanCandidate{cfg, plan, step});
    if (int64_t(r.size()) > keep)
      r.pop_back();
  }

  void finish() {
    for (auto &[rule, r] : rejections)
      res.rejections.push_back(r);
    std::stable_sort(res.rejections.begin(), res.rejections.end(),
                     [](const Rejection &a, const Rejection &b) {
                       return a.candidates > b.candidates;
                     });
    const int64_t perFamily = res.spaceSize / int64_t(space.tp.size());
    for (size_t i = 0; i < space.tp.size(); ++i) {
      const Family &f = families[i];
      PlanFamily out;
      out.tp = space.tp[i];
      out.candidates = perFamily;
      out.fitting = f.fitting;
      const std::string name = "tp=" + n(out.tp) + ": ";
      if (f.fastest) {
        char buf[64];
        snprintf(buf, sizeof(buf), "%.3f s per step", f.fastest->step.stepTime);
        out.summary = name + n(f.fitting) + " plans fit; the fastest " + buf +
                      " at " + f.fastest->describe() + " (" +
                      gib(f.fastest->peakGiB()) + ")";
      } else if (f.smallest) {
        out.summary = name + gib(f.smallest->peakGiB()) + " > " +
                      gib(res.memoryLimitGiB) + " at best (" +
                      f.smallest->describe() + ")";
      } else if (!f.cutMessage.empty()) {
        out.summary = f.cutMessage;
      } else {
        out.summary = name + "not visited (the search stopped at its bound)";
      }
      out.fastest = f.fastest;
      res.families.push_back(out);
      if (f.smallest && (!res.smallest || f.smallest->step.memory.peak().total() <
                                              res.smallest->step.memory.peak().total()))
        res.smallest = f.smallest;
    }
    if (!res.ranked.empty())
      res.smallest.reset();
    // Equals grouped, the conventional plan first: the search kept ten
    // times `top` fastest, so that a group's conventional plan is among
    // them.
    res.equalWithin = std::max(0.0, options.equalWithin);
    res.firstGroupSize =
        groupEquals(res.ranked, res.equalWithin, options.top);
    res.pricedShapes = model.pricedShapes();
  }

  struct Family {
    int64_t fitting = 0;
    std::optional<PlanCandidate> fastest, smallest;
    double smallestBytes = 0;
    int64_t cutCandidates = 0;
    std::string cutMessage;
  };

  const PlanSpace &space;
  const PlanSearchOptions &options;
  PlanSearchResult &res;
  /// Plans kept while searching: `top`, or ten times it when equals are
  /// grouped (twenty with the expert overlap a choice, which doubles the
  /// near-equal plans, so that a group's conventional plan stays kept).
  const int64_t keep =
      options.equalWithin > 0
          ? options.top * 10 * int64_t(space.overlapEpComm.size())
          : options.top;
  const ModelConfig &original;
  ModelConfig cfg;
  const target::GpuTarget &target;
  cost::TrainingPlan plan;
  cost::StepModel model;
  double limitBytes = 0;
  size_t tpIndex = 0;
  bool stopped = false;
  std::string whyRule, whyMessage;
  std::map<std::string, Rejection> rejections;
  std::vector<Family> families;
};
} // namespace

std::optional<PlanSearchResult>
tshape::advise::searchPlans(const ModelConfig &config, const PlanSpace &space,
                            const target::GpuTarget &target,
                            const cost::Cluster &cluster,
                            const PlanSearchOptions &options,
                            std::string &error) {
  error = checkSpace(space);
  if (!error.empty())
    return std::nullopt;
  if (options.top < 1 || options.maxCandidates < 1) {
    error = "the plans kept and the candidates visited must be at least 1";
    return std::nullopt;
  }
  PlanSearchResult res;
  res.space = space;
  res.spaceSize = space.size();
  res.memoryLimitGiB =
      options.memoryLimitGiB > 0 ? options.memoryLimitGiB : target.memoryGiB;
  if (res.memoryLimitGiB <= 0) {
    error = target.name + " states no memory (memory_gib): give a memory "
            "limit";
    return std::nullopt;
  }
  ModelConfig base = config;
  base.parallel = {};
  Search(base, space, target, cluster, options, res).run();
  return res;
}

std::vector<int64_t> tshape::advise::conventionalKey(const PlanCandidate &c) {
  const model::Parallelism &p = c.config.parallel;
  int64_t dims = 0;
  for (int64_t d : {p.tp, p.pp, p.cp, p.ep})
    dims += d > 1;
  const int64_t sharding = c.plan.sharding == StateSharding::None ? 0
                           : c.plan.sharding ==
                                   StateSharding::DistributedOptimizer
                               ? 1
                               : 2;
  const int64_t recompute = c.plan.recompute == cost::Recompute::None ? 0
                            : c.plan.recompute == cost::Recompute::Selective
                                ? 1
                                : 2;
  // Sequence parallelism is the practice with tensor parallelism
  // (Megatron-Bridge's recipes run it whenever tp > 1).
  const int64_t sp = c.plan.sequenceParallel != (p.tp > 1);
  // The expert overlap is an option Megatron-LM leaves off.
  return {recompute, sharding, dims, p.tp * p.pp * p.cp * p.ep,
          c.plan.virtualStages > 1, sp, c.plan.overlapEpComm};
}

int64_t tshape::advise::groupEquals(std::vector<PlanCandidate> &plans,
                                    double within, int64_t top) {
  std::stable_sort(plans.begin(), plans.end(),
                   [](const PlanCandidate &a, const PlanCandidate &b) {
                     return a.step.stepTime < b.step.stepTime;
                   });
  if (within <= 0) {
    for (PlanCandidate &c : plans)
      c.group = 0;
  } else {
    int64_t group = 0;
    for (auto begin = plans.begin(); begin != plans.end();) {
      const double limit = begin->step.stepTime * (1 + within);
      auto end = std::find_if(begin, plans.end(), [&](const PlanCandidate &c) {
        return c.step.stepTime > limit;
      });
      ++group;
      for (auto it = begin; it != end; ++it)
        it->group = group;
      // The group's most conventional plan first, the rest by time.
      auto first = std::min_element(
          begin, end, [](const PlanCandidate &a, const PlanCandidate &b) {
            return conventionalKey(a) < conventionalKey(b);
          });
      std::rotate(begin, first, first + 1);
      begin = end;
    }
  }
  const int64_t first =
      std::count_if(plans.begin(), plans.end(),
                    [](const PlanCandidate &c) { return c.group == 1; });
  if (int64_t(plans.size()) > top)
    plans.resize(top);
  return first;
}

std::string tshape::advise::noPlanFits(const PlanSearchResult &r) {
  if (!r.ranked.empty() || !r.smallest)
    return "";
  return "no plan fits in " + gib(r.memoryLimitGiB) + ": the smallest needs " +
         gib(r.smallest->peakGiB()) + " per GPU at " +
         r.smallest->describe();
}

std::optional<SearchResult> tshape::advise::coSearchShapes(
    const PlanCandidate &plan, const target::GpuTarget &target,
    const cost::Cluster &cluster, const SearchOptions &shape,
    double memoryLimitGiB, const cost::StepOptions &step, std::string &error) {
  cost::StepModel model(target, cluster, step);
  const double limit = memoryLimitGiB * cost::kGiB;
  const double gpus = double(std::max<int64_t>(1, plan.step.gpus));
  SearchOptions o = shape;
  o.objective = [&](const ModelConfig &c,
                    std::string &why) -> std::optional<StepPrediction> {
    if (std::optional<std::string> broken = checkMegatronRules(c, plan.plan)) {
      why = *broken;
      return std::nullopt;
    }
    std::optional<cost::StepEstimate> e = model.estimate(c, plan.plan, &why);
    if (!e)
      return std::nullopt;
    const double peak = e->memory.peak().total();
    if (peak > limit) {
      why = gib(peak / cost::kGiB) + " > " + gib(memoryLimitGiB) +
            " under the plan";
      return std::nullopt;
    }
    // Seconds per step and the candidate's own FLOPs per GPU (its kernels
    // on one tensor-parallel rank, times t ranks, m microbatches and d
    // pipelines, over the GPUs): Eq. 3 assumes f = 4h and would count a
    // smaller FFN as faster work.
    // Counted for one sequence and scaled by b (every kernel's M is b x
    // s/cp), so that a large microbatch does not overflow 64 bits.
    model::ModelConfig one = c;
    setParam(one, Param::Microbatch, 1);
    std::optional<int64_t> perRank =
        model::countFlops(one, model::RunShape::train());
    if (!perRank) {
      why = "the FLOP count overflows";
      return std::nullopt;
    }
    const double flops = double(*perRank) *
                         double(getParam(c, Param::Microbatch)) *
                         double(c.parallel.tp) *
                         double(plan.plan.microbatches) *
                         double(c.parallel.dp) / gpus;
    return StepPrediction{e->stepTime * 1e6, flops};
  };
  ShapeSearch search(target);
  return search.search(plan.config, o, error);
}
