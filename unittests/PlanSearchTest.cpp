//===- PlanSearchTest.cpp - Unit tests of the plan search -----------------===//
//
// The search over training plans (Advise/PlanSearch.h) on the small model
// of TestModels.h, where the space and its cuts are counted by hand, and
// its result is checked against an independent enumeration (plain nested
// loops, not the odometer) that prices every candidate with estimateStep.
//
//===----------------------------------------------------------------------===//

#include "tshape/Advise/PlanSearch.h"

#include "tshape/Advise/Odometer.h"
#include "tshape/Cost/Cluster.h"
#include "tshape/Interop/Megatron.h"

#include "TestModels.h"

#include <gtest/gtest.h>

#include <limits>

using namespace tshape;
using namespace tshape::advise;
using cost::Recompute;
using cost::StateSharding;
using model::ModelConfig;

namespace {
const target::GpuTarget &h100() {
  return *target::findBuiltinTarget("h100-sxm");
}
const cost::Cluster &dgxH100() { return *cost::findBuiltinCluster("dgx-h100"); }

int64_t rejected(const PlanSearchResult &r, const std::string &rule) {
  for (const Rejection &x : r.rejections)
    if (x.rule == rule)
      return x.candidates;
  return 0;
}

/// The small model (h 64, a 4, f 256, V 128, L 4, s 16) with the attention
/// fused, on 4 GPUs with a global batch of 4.
struct Small {
  ModelConfig config = testmodels::smallModel();
  PlanSpace space;
  Small() {
    config.attention.fused = true;
    space = defaultPlanSpace(config, 4, 4);
  }
};
} // namespace

TEST(Odometer, VisitsAndCountsCuts) {
  // Lists of 2, 3 and 2 values: 12 combinations. Cutting the second
  // level's index 1 removes the 2 below it, for both values of level 0.
  std::vector<std::vector<size_t>> leaves;
  std::vector<size_t> at(3);
  int64_t cutCount = 0;
  runOdometer(
      {2, 3, 2},
      [&](size_t level, size_t i) {
        at[level] = i;
        return !(level == 1 && i == 1);
      },
      [](size_t) {}, [&](size_t, int64_t below) { cutCount += below; },
      [&] { leaves.push_back(at); });
  EXPECT_EQ(leaves.size(), 8u);
  EXPECT_EQ(cutCount, 4);
  EXPECT_EQ(leaves.front(), (std::vector<size_t>{0, 0, 0}));
  EXPECT_EQ(leaves.back(), (std::vector<size_t>{1, 2, 1}));
}

TEST(PlanSearch, CountsTheSpaceAndItsCuts) {
  Small s;
  // divisors(4) = {1, 2, 4} for t, p, cp and b; divisors(L = 4) for v;
  // e {1}; 3 recompute x 2 sequence-parallel x 3 sharding:
  // 3^4 x 3 x 18 = 4,374 candidates.
  EXPECT_EQ(s.space.size(), 4374);
  PlanSearchOptions o;
  std::string error;
  std::optional<PlanSearchResult> r =
      searchPlans(s.config, s.space, h100(), dgxH100(), o, error);
  ASSERT_TRUE(r) << error;
  EXPECT_EQ(r->spaceSize, 4374);
  EXPECT_FALSE(r->bounded());
  // Every candidate is cut or priced.
  EXPECT_EQ(r->cut + r->priced, r->spaceSize);
  // t x p must divide 4: (2,4), (4,2), (4,4) fail, each cutting the
  // 3 cp x 3 b x 3 v x 18 = 486 candidates below it: 1,458.
  EXPECT_EQ(rejected(*r, "tp x pp divides the GPUs"), 1458);
  // Of the 6 (t, p) pairs left, (1,1) takes cp 1, 2, 4; (1,2) and (2,1)
  // cp 1, 2; (1,4), (2,2), (4,1) cp 1: 10 of 18, so 8 cp values are cut,
  // each over 3 b x 3 v x 18 = 162: 1,296.
  EXPECT_EQ(rejected(*r, "tp x pp x cp divides the GPUs"), 1296);
  // No model rule breaks at t = 4 (a 4, f 256, V 128 all divide).
  EXPECT_EQ(rejected(*r, "a model rule at this tp"), 0);
  EXPECT_EQ(r->families.size(), 3u);
  // The tiny model fits 80 GiB everywhere: every priced candidate is
  // timed.
  EXPECT_EQ(r->timed, r->priced);
  ASSERT_FALSE(r->ranked.empty());
  for (size_t i = 1; i < r->ranked.size(); ++i)
    EXPECT_LE(r->ranked[i - 1].step.stepTime,
              r->ranked[i].step.stepTime * (1 + 1e-4));
}

TEST(PlanSearch, FindsWhatAnIndependentEnumerationFinds) {
  // Every (t, p, cp, b, v, recompute, sp, sharding) by nested loops,
  // priced with estimateStep where Megatron-LM's rules and the model's
  // accept it: the fastest step must be the search's first plan, and the
  // count of plans that price must be the search's.
  Small s;
  std::string error;
  std::optional<PlanSearchResult> r =
      searchPlans(s.config, s.space, h100(), dgxH100(), {}, error);
  ASSERT_TRUE(r) << error;
  double best = std::numeric_limits<double>::infinity();
  int64_t timed = 0;
  for (int64_t t : {1, 2, 4})
    for (int64_t p : {1, 2, 4})
      for (int64_t cp : {1, 2, 4}) {
        if (4 % (t * p * cp))
          continue;
        const int64_t d = 4 / (t * p * cp);
        for (int64_t b : {1, 2, 4}) {
          if (4 % (b * d))
            continue;
          const int64_t m = 4 / (b * d);
          for (int64_t v : {1, 2, 4})
            for (Recompute rc :
                 {Recompute::None, Recompute::Selective, Recompute::Full})
              for (bool sp : {false, true})
                for (StateSharding sh :
                     {StateSharding::None, StateSharding::DistributedOptimizer,
                      StateSharding::Fsdp}) {
                  if (sp && t == 1)
                    continue;
                  if (sh != StateSharding::None && d * cp == 1)
                    continue;
                  ModelConfig c = s.config;
                  c.parallel = {t, p, d, 1, cp};
                  c.microbatch = b;
                  cost::TrainingPlan pl;
                  pl.microbatches = m;
                  pl.setVirtualStages(v);
                  pl.recompute = rc;
                  pl.sequenceParallel = sp;
                  pl.sharding = sh;
                  if (checkMegatronRules(c, pl))
                    continue;
                  std::optional<cost::StepEstimate> e = cost::estimateStep(
                      c, pl, h100(), dgxH100(), {}, &error);
                  if (!e)
                    continue;
                  ++timed;
                  best = std::min(best, e->stepTime);
                }
        }
      }
  EXPECT_EQ(r->timed, timed);
  ASSERT_FALSE(r->ranked.empty());
  EXPECT_DOUBLE_EQ(r->ranked.front().step.stepTime, best);
}

TEST(PlanSearch, SaysWhenNoPlanFits) {
  Small s;
  PlanSearchOptions o;
  o.memoryLimitGiB = 1e-6; // about 1 KiB: nothing fits
  std::string error;
  std::optional<PlanSearchResult> r =
      searchPlans(s.config, s.space, h100(), dgxH100(), o, error);
  ASSERT_TRUE(r) << error;
  EXPECT_TRUE(r->ranked.empty());
  EXPECT_EQ(r->timed, 0);
  ASSERT_TRUE(r->smallest);
  EXPECT_EQ(rejected(*r, "memory"), r->priced);
  std::string msg = noPlanFits(*r);
  EXPECT_NE(msg.find("no plan fits in 0.0 GiB: the smallest needs"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find(r->smallest->describe()), std::string::npos) << msg;
  // Every family says what its smallest candidate needed.
  for (const PlanFamily &f : r->families)
    EXPECT_NE(f.summary.find("> 0.0 GiB at best"), std::string::npos)
        << f.summary;
}

TEST(PlanSearch, StopsAtItsBoundAndSaysSo) {
  Small s;
  PlanSearchOptions o;
  o.maxCandidates = 10;
  std::string error;
  std::optional<PlanSearchResult> r =
      searchPlans(s.config, s.space, h100(), dgxH100(), o, error);
  ASSERT_TRUE(r) << error;
  EXPECT_EQ(r->priced, 10);
  EXPECT_TRUE(r->bounded());
  EXPECT_EQ(r->cut + r->priced + r->unvisited, r->spaceSize);
}

TEST(PlanSearch, PadsTheVocabularyAsMegatronDoes) {
  // V 129 is not divisible by t = 2: Megatron-LM pads it to a multiple of
  // 128 x 2 = 256, so the plan's vocabulary is 256.
  Small s;
  s.config.vocab = 129;
  s.space.tp = {2};
  std::string error;
  std::optional<PlanSearchResult> r =
      searchPlans(s.config, s.space, h100(), dgxH100(), {}, error);
  ASSERT_TRUE(r) << error;
  ASSERT_FALSE(r->ranked.empty());
  EXPECT_EQ(r->ranked.front().config.vocab, 256);
  EXPECT_EQ(rejected(*r, "a model rule at this tp"), 0);
}

TEST(PlanSearch, RejectsMalformedSpaces) {
  Small s;
  std::string error;
  PlanSpace bad = s.space;
  bad.gpus = 0;
  EXPECT_FALSE(searchPlans(s.config, bad, h100(), dgxH100(), {}, error));
  EXPECT_NE(error.find("GPU count must be in"), std::string::npos) << error;
  bad = s.space;
  bad.pp.clear();
  EXPECT_FALSE(searchPlans(s.config, bad, h100(), dgxH100(), {}, error));
  EXPECT_EQ(error, "no pp value to try");
  bad = s.space;
  bad.microbatch = {0};
  EXPECT_FALSE(searchPlans(s.config, bad, h100(), dgxH100(), {}, error));
  EXPECT_EQ(error, "microbatch must be at least 1, got 0");
  PlanSearchOptions o;
  o.top = 0;
  EXPECT_FALSE(searchPlans(s.config, s.space, h100(), dgxH100(), o, error));
}

TEST(PlanSearch, CoSearchesShapesUnderAPlan) {
  // The small model under its fastest plan: the shape search's objective
  // is the plan's step (estimateStep), so the model's own prediction is
  // the plan's step time, and every candidate keeps the plan's degrees.
  Small s;
  std::string error;
  std::optional<PlanSearchResult> r =
      searchPlans(s.config, s.space, h100(), dgxH100(), {}, error);
  ASSERT_TRUE(r && !r->ranked.empty()) << error;
  const PlanCandidate &best = r->ranked.front();
  // The vocabulary's neighbourhood (Neighbourhood.h): the multiples of
  // 64 x t from the first at or above 128 to 7 steps past it, less 128
  // itself: 7 when 64 t divides 128, else 8. Each adds 2 x 64 h = 8,192
  // parameters or more to about 213,000, so the budget is widened to 50%.
  SearchOptions shape;
  shape.vary = {"vocab"};
  shape.paramTolerance = 0.5;
  std::optional<SearchResult> co = coSearchShapes(
      best, h100(), dgxH100(), shape, 80, {}, error);
  ASSERT_TRUE(co) << error;
  EXPECT_DOUBLE_EQ(co->predBefore.us, best.step.stepTime * 1e6);
  const int64_t step = 64 * best.config.parallel.tp;
  EXPECT_EQ(co->evaluated, 128 % step == 0 ? 7 : 8);
  EXPECT_EQ(co->after.parallel, best.config.parallel);
  EXPECT_LE(co->predAfter.us, co->predBefore.us);

  // Under a memory limit the plan itself breaks, and with no candidate
  // that fits, the search says why.
  const double peak = best.peakGiB();
  std::optional<SearchResult> none = coSearchShapes(
      best, h100(), dgxH100(), shape, peak / 4, {}, error);
  EXPECT_FALSE(none);
  EXPECT_NE(error.find("GiB > "), std::string::npos) << error;
}

TEST(PlanSearch, ReportsProgressEvery1024PricedCandidates) {
  // A 6.7B-parameter GPT (32 heads, h 4096, 32 layers) on 64 GPUs with a
  // global batch of 512: a space large enough to price thousands of
  // candidates. The callback sees every 1,024th priced candidate, with the
  // candidates dealt with so far (priced or cut), rising, within the space.
  ModelConfig c = testmodels::megatronGpt(32, 4096, 32, 1);
  c.attention.fused = true;
  PlanSearchOptions o;
  std::vector<std::pair<int64_t, int64_t>> calls;
  o.progress = [&](int64_t done, int64_t total) {
    calls.emplace_back(done, total);
  };
  std::string error;
  std::optional<PlanSearchResult> r = searchPlans(
      c, defaultPlanSpace(c, 64, 512), h100(), dgxH100(), o, error);
  ASSERT_TRUE(r) << error;
  ASSERT_GE(r->priced, 1024);
  EXPECT_EQ(int64_t(calls.size()), r->priced / 1024);
  for (size_t i = 0; i < calls.size(); ++i) {
    EXPECT_EQ(calls[i].second, r->spaceSize);
    EXPECT_LE(calls[i].first, r->spaceSize);
    if (i) {
      EXPECT_GT(calls[i].first, calls[i - 1].first);
    }
  }
}

// Equals grouped: five plans at 1.00, 1.05, 1.10, 1.20 and 1.30 s with a
// band of 13.5%. The first group holds every plan within 1.00 x 1.135 =
// 1.135 s (the first three); the next starts at 1.20 s and holds 1.20 and
// 1.30 (1.20 x 1.135 = 1.362). In each group the most conventional plan
// comes first (here the 1.10 s plan: no recompute; then the 1.30 s one:
// one parallel dimension), the rest by time; the list is cut to `top`.
TEST(PlanSearch, EqualsAreGroupedConventionalFirst) {
  auto plan = [](double seconds, int64_t tp, int64_t pp, Recompute r,
                 StateSharding s) {
    PlanCandidate c;
    c.config.parallel.tp = tp;
    c.config.parallel.pp = pp;
    c.plan.recompute = r;
    c.plan.sharding = s;
    c.plan.sequenceParallel = tp > 1;
    c.step.stepTime = seconds;
    return c;
  };
  std::vector<PlanCandidate> plans = {
      plan(1.20, 8, 2, Recompute::None, StateSharding::None),
      plan(1.05, 1, 1, Recompute::Full, StateSharding::Fsdp),
      plan(1.00, 2, 1, Recompute::Selective, StateSharding::None),
      plan(1.30, 8, 1, Recompute::None, StateSharding::None),
      plan(1.10, 4, 4, Recompute::None, StateSharding::DistributedOptimizer),
  };
  EXPECT_EQ(groupEquals(plans, 0.135, 4), 3);
  ASSERT_EQ(plans.size(), 4u);
  const double want[] = {1.10, 1.00, 1.05, 1.30};
  const int64_t groups[] = {1, 1, 1, 2};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_DOUBLE_EQ(plans[i].step.stepTime, want[i]) << i;
    EXPECT_EQ(plans[i].group, groups[i]) << i;
  }
  // Less recompute outranks fewer degrees; then the default sharding.
  EXPECT_LT(conventionalKey(plan(1, 4, 4, Recompute::None,
                                 StateSharding::DistributedOptimizer)),
            conventionalKey(plan(1, 1, 1, Recompute::Selective,
                                 StateSharding::None)));
  EXPECT_LT(conventionalKey(plan(1, 4, 1, Recompute::None,
                                 StateSharding::DistributedOptimizer)),
            conventionalKey(plan(1, 1, 1, Recompute::None,
                                 StateSharding::Fsdp)));
  // A band of 0 ranks by time alone, no groups.
  EXPECT_EQ(groupEquals(plans, 0, 10), 0);
  EXPECT_DOUBLE_EQ(plans.front().step.stepTime, 1.00);
  EXPECT_EQ(plans.front().group, 0);
}
