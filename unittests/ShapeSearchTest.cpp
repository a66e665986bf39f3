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
