//===- ShapeSearchTest.cpp - Each change of the shape search earns its place -===//

#include "tshape/Advise/ShapeSearch.h"
#include "tshape/Target/GpuTarget.h"

#include "TestModels.h"

#include <gtest/gtest.h>

using namespace tshape;
using namespace tshape::advise;

namespace {

/// GPT-2 124M (h = 768, a = 12, f = 3072, v = 50257, 12 layers, tied) at
/// b = 4, s = 2048: the shape of examples/gpt2.json.
model::ModelConfig gpt2() {
  model::ModelConfig c = testmodels::megatronGpt(12, 768, 12, 4);
  c.vocab = 50257;
  return c;
}

const Change *find(const std::vector<Change> &list, const std::string &p) {
  for (const Change &ch : list)
    if (ch.parameter == p)
      return &ch;
  return nullptr;
}

TEST(ShapeSearch, EachChangeEarnsItsPlace) {
  const target::GpuTarget &h100 = *target::findBuiltinTarget("h100-sxm");
  ShapeSearch search(h100);
  SearchOptions o; // vary vocab, heads, ffn; 2% budget; min-gain 1%
  std::string error;
  std::optional<SearchResult> r = search.search(gpt2(), o, error);
  ASSERT_TRUE(r) << error;
  // The best shape of the search widens the FFN 3072 -> 3200 (+1.9% of the
  // parameters); with the head and vocab changes it adds less than 1%, so
  // it is undone, and the result keeps f = 3072.
  const Change *ffn = find(r->dropped, "ffn");
  ASSERT_NE(ffn, nullptr);
  EXPECT_EQ(ffn->before, 3072);
  EXPECT_EQ(ffn->after, 3200);
  EXPECT_LT(ffn->gainInResult, 1 + o.minGain);
  EXPECT_EQ(find(r->changes, "ffn"), nullptr);
  EXPECT_EQ(r->after.mlp.inner, 3072);
  // Every change that stays adds min-gain to the others, puts a size on
  // the best alignment, or is needed by the others (0).
  ASSERT_FALSE(r->changes.empty());
  for (const Change &ch : r->changes)
    EXPECT_TRUE(ch.gainInResult >= 1 + o.minGain || ch.aligns ||
                ch.gainInResult == 0)
        << ch.parameter;

  // With min-gain 0 every change that helps at all stays.
  o.minGain = 0;
  r = search.search(gpt2(), o, error);
  ASSERT_TRUE(r) << error;
  EXPECT_TRUE(r->dropped.empty());
  EXPECT_NE(find(r->changes, "ffn"), nullptr);
}

} // namespace

namespace {
TEST(ShapeSearch, PricesAServingMixAsOneRequest) {
  // phase-mix=prefill:1,decode:256 on GPT-2 at b = 4, s = 2048 (the
  // prompt): a request is one prefill of 4 x 2048 tokens plus 256 decode
  // steps of 4 sequences, each step one new token over the mean context
  // 2048 + 256 / 2 cached tokens and itself (kv length 2177).
  const target::GpuTarget &h100 = *target::findBuiltinTarget("h100-sxm");
  ShapeSearch search(h100);
  SearchOptions o;
  std::string error;
  ASSERT_TRUE(parsePhaseMix({"prefill:1", "decode:256"}, o.mix, error))
      << error;
  model::ModelConfig c = gpt2();
  const StepPrediction prefill = search.predict(c, {model::Phase::Prefill});
  model::ModelConfig step = c;
  step.seq = 1;
  const StepPrediction decode =
      search.predict(step, {model::Phase::Decode, 2048 + 128 + 1});
  o.minGain = 10; // keep the model: only its own price matters here
  std::optional<SearchResult> r = search.search(c, o, error);
  ASSERT_TRUE(r) << error;
  EXPECT_NEAR(r->predBefore.us, prefill.us + 256 * decode.us,
              1e-9 * r->predBefore.us);
  // The objective is requests/s.
  EXPECT_NEAR(objectiveRate(r->predBefore, c, o), 1e6 / r->predBefore.us,
              1e-12);
}

TEST(ShapeSearch, RejectsMalformedPhaseMixes) {
  std::vector<std::pair<model::Phase, double>> mix;
  std::string error;
  EXPECT_FALSE(parsePhaseMix({"train:1", "decode:2"}, mix, error));
  EXPECT_NE(error.find("'train:1' is not PHASE:WEIGHT"), std::string::npos);
  EXPECT_FALSE(parsePhaseMix({"prefill:0", "decode:2"}, mix, error));
  EXPECT_FALSE(parsePhaseMix({"prefill:1x", "decode:2"}, mix, error));
  EXPECT_FALSE(parsePhaseMix({"decode:2"}, mix, error));
  EXPECT_EQ(error, "phase-mix needs both prefill and decode (a request: its "
                   "prompt, then its decode steps), got only decode");
  EXPECT_FALSE(parsePhaseMix({"decode:2", "decode:3"}, mix, error));
  EXPECT_EQ(error, "phase-mix names decode twice");
  EXPECT_TRUE(parsePhaseMix({}, mix, error));
  EXPECT_TRUE(mix.empty());
}
} // namespace
