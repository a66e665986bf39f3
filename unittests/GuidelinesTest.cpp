//===- GuidelinesTest.cpp - The paper's rules as a checklist --------------===//
//
// Advise/Guidelines.h on models whose rule values are derived by hand in
// each test: which rules apply, pass or fail, the nearest passing value
// priced, the note below the threshold, and the sweep's window.
//
//===----------------------------------------------------------------------===//

#include "TestModels.h"

#include "tshape/Advise/Guidelines.h"
#include "tshape/Advise/ShapeSearch.h"

#include <gtest/gtest.h>

using namespace tshape;
using namespace tshape::advise;

namespace {

struct Checked {
  std::vector<KernelRecord> records;
  std::vector<Guideline> guidelines;
};

Checked check(const model::ModelConfig &c, model::RunShape run) {
  const target::GpuTarget *h100 = target::findBuiltinTarget("h100-sxm");
  ShapeAnalysis a(*h100, 0.1);
  Checked out;
  out.records = recordsFor(c, run);
  a.analyze(out.records);
  out.guidelines = checkGuidelines(a, out.records);
  return out;
}

const Guideline *find(const std::vector<Guideline> &gs,
                      const std::string &rulePrefix) {
  for (const Guideline &g : gs)
    if (g.rule.rfind(rulePrefix, 0) == 0)
      return &g;
  return nullptr;
}

/// The GPT-3 2.7B shape (h 2560, a 32, f 4h, L 2 to stay small) with an
/// OPT-style vocabulary.
model::ModelConfig gpt(int64_t vocab) {
  model::ModelConfig c = testmodels::megatronGpt(32, 2560, 2, 4);
  c.vocab = vocab;
  return c;
}

} // namespace

TEST(Guidelines, VocabNotAMultipleOf64IsPricedEvenBelowTheThreshold) {
  // 50272 = 785.5 x 64: fails; the nearest passing value (vocab only
  // grows) is 786 x 64 = 50304.
  Checked r = check(gpt(50272), model::RunShape::train());
  const Guideline *g = find(r.guidelines, "vocab a multiple of 64");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->parameter, "vocab");
  EXPECT_EQ(g->value, 50272);
  EXPECT_FALSE(g->ok);
  EXPECT_TRUE(g->priced);
  EXPECT_EQ(g->fix, "vocab 50272 -> 50304");
  // Priced, positive, and small: the note says so.
  EXPECT_GT(g->predictedCost, 0);
  EXPECT_LT(g->predictedCost, 0.1);
  EXPECT_NE(g->note.find("below the 10.0% threshold; change it only with "
                         "other changes"),
            std::string::npos)
      << g->note;
  EXPECT_NE(g->note.find("on h100-sxm"), std::string::npos) << g->note;
  // At t = 1 there is no second vocabulary rule.
  EXPECT_EQ(find(r.guidelines, "vocab a multiple of 64 x t"), nullptr);
}

TEST(Guidelines, PassingRulesCostNothing) {
  // 51200 = 800 x 64; h 2560 = 40 x 64; b s = 4 x 2048 = 8192 = 128 x 64;
  // b a = 128.
  Checked r = check(gpt(51200), model::RunShape::train());
  for (const char *rule : {"vocab a multiple of 64", "h/t a multiple of 64",
                           "b*s a multiple of 64", "(b*a)/t whole",
                           "a divisible by t"}) {
    const Guideline *g = find(r.guidelines, rule);
    ASSERT_NE(g, nullptr) << rule;
    EXPECT_TRUE(g->ok) << rule;
    EXPECT_FALSE(g->priced) << rule;
    EXPECT_EQ(g->predictedCost, 0) << rule;
  }
  EXPECT_EQ(find(r.guidelines, "b*s a multiple of 64")->value, 8192);
  EXPECT_EQ(find(r.guidelines, "(b*a)/t whole")->value, 128);
  // No gated MLP, no MoE: their rules do not apply.
  EXPECT_EQ(find(r.guidelines, "gated MLP"), nullptr);
  EXPECT_EQ(find(r.guidelines, "moe_ffn"), nullptr);
}

TEST(Guidelines, HeadDimMovesHeadsAtAFixedHidden) {
  // d = 2560 / 32 = 80 fails. Passing head counts near 32 at h = 2560:
  // 40 (d 64) and 20 (d 128): the better-priced one is the fix.
  Checked r = check(gpt(51200), model::RunShape::train());
  const Guideline *g = find(r.guidelines, "head_dim a multiple of 64");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->value, 80);
  EXPECT_FALSE(g->ok);
  ASSERT_TRUE(g->priced);
  EXPECT_TRUE(g->fix == "heads 32 -> 20 (head_dim 80 -> 128)" ||
              g->fix == "heads 32 -> 40 (head_dim 80 -> 64)")
      << g->fix;
}

TEST(Guidelines, TensorParallelRulesReadTheDegree) {
  // t = 2: vocab 51200 = 400 x 128 passes 64 t; h/t = 1280 = 20 x 64;
  // a = 32 splits.
  model::ModelConfig c = gpt(51200);
  model::setDegree(c.parallel, model::Param::Tp, 2);
  Checked r = check(c, model::RunShape::train());
  const Guideline *v = find(r.guidelines, "vocab a multiple of 64 x t");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->rule, "vocab a multiple of 64 x t (t = 2: 128)");
  EXPECT_TRUE(v->ok);
  const Guideline *h = find(r.guidelines, "h/t a multiple of 64");
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(h->value, 1280);
  EXPECT_TRUE(h->ok);
}

TEST(Guidelines, GatedMlpInnerSize) {
  // A gated MLP of f = 11000 = 171.875 x 64 fails; the nearest passing
  // values are 171 x 64 = 10944 and 172 x 64 = 11008.
  model::ModelConfig c = gpt(51200);
  c.mlp.gated = true;
  c.mlp.inner = 11000;
  Checked r = check(c, model::RunShape::train());
  const Guideline *g = find(r.guidelines, "gated MLP inner size");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->value, 11000);
  EXPECT_FALSE(g->ok);
  ASSERT_TRUE(g->priced);
  EXPECT_TRUE(g->fix == "ffn 11000 -> 10944" || g->fix == "ffn 11000 -> 11008")
      << g->fix;
  c.mlp.inner = 11008;
  EXPECT_TRUE(find(check(c, model::RunShape::train()).guidelines,
                   "gated MLP inner size")
                  ->ok);
}

TEST(Guidelines, DecodeLeavesOutTheTokenRule) {
  // A decode step has one query per sequence: seq sizes no GEMM of it, so
  // the b*s rule says nothing.
  Checked r = check(gpt(51200), model::RunShape::decode(4096));
  EXPECT_EQ(find(r.guidelines, "b*s a multiple of 64"), nullptr);
  EXPECT_NE(find(r.guidelines, "vocab a multiple of 64"), nullptr);
}

TEST(Guidelines, CostPercent) {
  EXPECT_EQ(costPercent(0.1), "10.0%");
  EXPECT_EQ(costPercent(0.021), "2.1%");
  EXPECT_EQ(costPercent(0.000019192), "0.0019%");
  EXPECT_EQ(costPercent(-0.063), "-6.3%");
}

TEST(Guidelines, SweepWindowHoldsTheValueAndTheSuggestion) {
  // vocab 50257 -> 50304: the window is 50257 - 64 = 50193 to 50257 + 64
  // = 50321 (it already holds 50304 + 8), step 1: 129 points.
  model::ModelConfig c = gpt(50257);
  const target::GpuTarget *h100 = target::findBuiltinTarget("h100-sxm");
  ShapeAnalysis a(*h100, 0.1);
  std::vector<KernelRecord> records = recordsFor(c, model::RunShape::train());
  a.analyze(records);
  Sweep s = sweepParameter(a, records, model::Param::Vocab, 50257, 50304);
  EXPECT_EQ(s.step, 1);
  ASSERT_EQ(s.points.size(), 129u);
  EXPECT_EQ(s.points.front().value, 50193);
  EXPECT_EQ(s.points.back().value, 50321);
  for (const SweepPoint &p : s.points)
    EXPECT_GT(p.tflops, 0) << p.value;
  // A suggestion far away widens the window and the step (at most 257
  // points): 1000 -> 5000 spans 936..5008.
  Sweep wide = sweepParameter(a, records, model::Param::Vocab, 1000, 5000);
  EXPECT_LE(wide.points.size(), 257u);
  EXPECT_GT(wide.step, 1);
}
