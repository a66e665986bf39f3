//===- FamilyTest.cpp - A test-only Hugging Face family -------------------===//
//
// A family added as one row and a layer-plan function (lib/Interop's
// HFFamilies.h, registerFamily), with nothing else in the importer: a
// hybrid stack whose layers a pattern string lists, as Nemotron-H's
// hybrid_override_pattern does ('*' an attention layer, '-' an MLP layer;
// its 'M' Mamba layers wait for their block). The stack it makes has a
// period of 10 layers, longer than the importer's old bound of 8.
//
//===----------------------------------------------------------------------===//

#include "tshape/Interop/HFConfig.h"

#include "HFFamilies.h"

#include <gtest/gtest.h>

using namespace tshape;
using namespace tshape::model;

namespace {
/// The layers hybrid_override_pattern lists, one character each.
std::optional<std::vector<LayerKind>>
patternLayers(hf::Reader &r, const hf::json::Object &, int64_t layers, bool) {
  const char *key = nullptr;
  std::optional<std::string> p = r.string({"hybrid_override_pattern"}, &key);
  if (!p)
    return r.fail(key ? key : nullptr,
                  "missing required key 'hybrid_override_pattern'",
                  std::optional<std::vector<LayerKind>>());
  if (int64_t(p->size()) != layers)
    return r.fail(key,
                  "key 'hybrid_override_pattern': " +
                      std::to_string(p->size()) + " layers listed, " +
                      std::to_string(layers) + " in num_hidden_layers",
                  std::optional<std::vector<LayerKind>>());
  std::vector<LayerKind> out;
  for (char ch : *p) {
    if (ch != '*' && ch != '-')
      return r.fail(key,
                    std::string("key 'hybrid_override_pattern': layer '") +
                        ch + "' is not '*' (attention) or '-' (MLP)",
                    std::optional<std::vector<LayerKind>>());
    out.push_back({{ch == '*' ? BlockKind::Attention : BlockKind::Mlp}});
  }
  return out;
}

/// A Llama-like row of the test families' keys, named `type`.
hf::TypeSpec testSpec(const char *type) {
  return {type, {"hidden_size"}, {"num_attention_heads"},
          {"num_hidden_layers"}, {"vocab_size"},
          {"intermediate_size"}, 0, {"num_key_value_heads"},
          {"head_dim"}, 0, {"hidden_act"}, Activation::SiLU, false,
          {}, false, false, true};
}

void registerTestHybrid() {
  hf::TypeSpec t = testSpec("test_hybrid");
  hf::FamilyHooks hooks;
  hooks.layerPlan = patternLayers;
  hf::registerFamily(t, hooks);
}

std::string config(const std::string &pattern, int64_t layers) {
  return R"({"model_type": "test_hybrid", "hidden_size": 1024,
             "num_attention_heads": 8, "num_key_value_heads": 2,
             "num_hidden_layers": )" +
         std::to_string(layers) + R"(, "vocab_size": 32000,
             "intermediate_size": 4096, "hidden_act": "relu",
             "hybrid_override_pattern": ")" +
         pattern + R"("})";
}
} // namespace

TEST(Family, TestOnlyFamilyWithALayerPattern) {
  registerTestHybrid();
  // 20 layers, "*-*--*----" twice: a period of 10 (3 attention and 7 MLP
  // layers), repeated twice.
  ImportDiagnostic diag;
  auto c = importHFConfig(config("*-*--*----*-*--*----", 20), {}, diag);
  ASSERT_TRUE(c) << diag.message;
  ASSERT_EQ(c->stack.size(), 1u);
  EXPECT_EQ(c->stack[0].repeats, 2);
  ASSERT_EQ(c->stack[0].pattern.size(), 10u);
  EXPECT_EQ(c->stack[0].pattern[0].blocks,
            std::vector<BlockKind>{BlockKind::Attention});
  EXPECT_EQ(c->stack[0].pattern[1].blocks,
            std::vector<BlockKind>{BlockKind::Mlp});
  // Parameters: 6 attention layers of (1024 x (8 + 2 x 2) x 128 = 1,572,864
  // QKV + 1,048,576 out + a 1024 norm) = 2,622,464 each, 14 MLP layers of
  // (2 x 1024 x 4096 = 8,388,608 + 1024) = 8,389,632 each; the embedding
  // and the LM head 2 x 32000 x 1024 = 65,536,000 and the final norm 1024:
  // 15,734,784 + 117,454,848 + 65,537,024 = 198,726,656.
  EXPECT_EQ(countParameters(*c)->total, 198726656);
  EXPECT_EQ(hf::familyHooks("test_hybrid").layerPlan, &patternLayers);

  // The pattern's errors are at its key.
  ASSERT_FALSE(importHFConfig(config("*-x", 3), {}, diag));
  EXPECT_EQ(diag.message, "key 'hybrid_override_pattern': layer 'x' is not "
                          "'*' (attention) or '-' (MLP)");
  EXPECT_GT(diag.line, 0u);
  ImportDiagnostic short_;
  ASSERT_FALSE(importHFConfig(config("*-", 3), {}, short_));
  EXPECT_EQ(short_.message, "key 'hybrid_override_pattern': 2 layers listed, "
                          "3 in num_hidden_layers");
}

TEST(Family, QuirksAreHooks) {
  // The families that state key/value heads or MLP sizes with flags have
  // hooks; the others none.
  EXPECT_TRUE(hf::familyHooks("falcon").kvHeads);
  EXPECT_TRUE(hf::familyHooks("falcon").exportKvHeads);
  EXPECT_TRUE(hf::familyHooks("mpt").innerDefault);
  EXPECT_TRUE(hf::familyHooks("mpt").exportInner);
  EXPECT_TRUE(hf::familyHooks("chatglm").kvHeads);
  EXPECT_TRUE(hf::familyHooks("qwen3_moe").layerPlan);
  EXPECT_TRUE(hf::familyHooks("deepseek_v3").layerPlan);
  EXPECT_FALSE(hf::familyHooks("llama").kvHeads);
  EXPECT_FALSE(hf::familyHooks("llama").layerPlan);
}

// A layer-plan function that gives the wrong number of layers is an
// import error at the layer count's key, naming the family and both
// counts, not a model with missing or extra layers.
TEST(Family, LayerPlanOfTheWrongLengthIsAnError) {
  hf::TypeSpec t = testSpec("test_short_plan");
  hf::FamilyHooks hooks;
  hooks.layerPlan = [](hf::Reader &, const hf::json::Object &, int64_t n,
                       bool) -> std::optional<std::vector<LayerKind>> {
    // One layer short.
    return std::vector<LayerKind>(size_t(n - 1),
                                  LayerKind{{BlockKind::Attention}});
  };
  hf::registerFamily(t, hooks);
  ImportDiagnostic diag;
  EXPECT_FALSE(importHFConfig(
      R"({"model_type": "test_short_plan", "hidden_size": 1024,
          "num_attention_heads": 8, "num_hidden_layers": 4,
          "vocab_size": 32000, "intermediate_size": 4096})",
      {}, diag));
  EXPECT_EQ(diag.message,
            "the layer plan of 'test_short_plan' gives 3 layers, not 4");
  EXPECT_EQ(diag.line, 2u); // num_hidden_layers' line
}
