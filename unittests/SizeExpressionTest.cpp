//===- SizeExpressionTest.cpp - Params, DimExpr, GEMM provenance ----------===//
//
// The vocabulary of parameters, size expressions (build, print, parse,
// evaluate), the one per-rank division, the block models' expressions, and
// the shared neighbourhood. Numbers are derived in the comments.
//
//===----------------------------------------------------------------------===//

#include "tshape/Advise/Neighbourhood.h"
#include "tshape/Model/Blocks/Block.h"
#include "tshape/Model/Transformer.h"

#include <gtest/gtest.h>

#include <limits>

using namespace tshape;
using namespace tshape::model;

namespace {
DimExpr P(Param p) { return DimExpr::param(p); }
DimExpr C(int64_t v) { return DimExpr::constant(v); }

Bindings env(std::initializer_list<std::pair<Param, int64_t>> values) {
  Bindings b;
  for (auto [p, v] : values)
    b.set(p, v);
  return b;
}
} // namespace

TEST(Params, OneNamePerParameterRoundTrips) {
  for (size_t i = 0; i < kNumParams; ++i) {
    Param p = Param(i);
    EXPECT_EQ(parseParam(paramName(p)), p) << paramName(p);
  }
  EXPECT_EQ(parseParam("inner"), std::nullopt); // the IR attribute, not a name
  EXPECT_STREQ(paramInfo(Param::Ffn).irAttribute, "inner");
  EXPECT_STREQ(paramInfo(Param::Ffn).megatronFlag, "--ffn-hidden-size");
  EXPECT_EQ(paramInfo(Param::Ffn).splitBy, Param::Tp);
  EXPECT_EQ(paramInfo(Param::Hidden).splitBy, std::nullopt);
}

TEST(DimExpr, EvaluatesExactlyAndPrintsMinimalParentheses) {
  // (heads/tp + 2*max(1, floordiv(kv_heads, tp))) * head_dim at a = 32,
  // g = 8, t = 4, d = 128: (8 + 2*2) * 128 = 1536.
  DimExpr e =
      (P(Param::Heads) / P(Param::Tp) +
       C(2) * DimExpr::max(C(1), DimExpr::floorDiv(P(Param::KvHeads),
                                                   P(Param::Tp)))) *
      P(Param::HeadDim);
  Bindings b = env({{Param::Heads, 32},
                    {Param::KvHeads, 8},
                    {Param::Tp, 4},
                    {Param::HeadDim, 128}});
  EXPECT_EQ(e.eval(b), 1536);
  EXPECT_EQ(e.str(), "(heads/tp+2*max(1,floordiv(kv_heads,tp)))*head_dim");
  // t = 16 > g = 8: each rank keeps one replicated kv head: floor(8/16) = 0,
  // max(1, 0) = 1: (2 + 2) * 128.
  b.set(Param::Tp, 16);
  EXPECT_EQ(e.eval(b), 512);
  // t = 3 does not divide the heads: heads/tp is exact, so no value.
  b.set(Param::Tp, 3);
  EXPECT_EQ(e.eval(b), std::nullopt);
  // An unbound parameter has no value.
  EXPECT_EQ(P(Param::Vocab).eval(b), std::nullopt);
  EXPECT_TRUE(e.mentions(Param::KvHeads));
  EXPECT_FALSE(e.mentions(Param::Hidden));
}

TEST(DimExpr, DivisionIsExactUnlessFloorOrCeiling) {
  // 3/4 has no value (a share below one is not 0); floor(3/4) = 0 and
  // ceil(3/4) = 1; 8/4 = floor = ceil = 2; ceil(170.67) = 171 (8192 tokens x
  // top-8 over 384 experts: 65536/384 = 170.67, Kimi-K2's tokens per expert).
  Bindings b = env({{Param::Heads, 3}, {Param::Tp, 4}});
  DimExpr a = P(Param::Heads), t = P(Param::Tp);
  EXPECT_EQ((a / t).eval(b), std::nullopt);
  EXPECT_EQ(DimExpr::floorDiv(a, t).eval(b), 0);
  EXPECT_EQ(DimExpr::ceilDiv(a, t).eval(b), 1);
  b.set(Param::Heads, 8);
  EXPECT_EQ((a / t).eval(b), 2);
  EXPECT_EQ(DimExpr::floorDiv(a, t).eval(b), 2);
  EXPECT_EQ(DimExpr::ceilDiv(a, t).eval(b), 2);
  EXPECT_EQ(DimExpr::ceilDiv(C(65536), C(384)).eval(b), 171);
  EXPECT_EQ(DimExpr::floorDiv(C(65536), C(384)).eval(b), 170);
  // Division by zero and a negative dividend have no value.
  EXPECT_EQ(DimExpr::ceilDiv(C(1), C(0)).eval(b), std::nullopt);
  EXPECT_EQ(DimExpr::floorDiv(C(-1), C(2)).eval(b), std::nullopt);
  // ceil(max/2) does not overflow: (max + 1) / 2 = 2^62.
  const int64_t max = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(DimExpr::ceilDiv(C(max), C(2)).eval(b), int64_t(1) << 62);
  // Dividing by 1 folds away in every form.
  EXPECT_EQ(DimExpr::floorDiv(a, C(1)).str(), "heads");
  EXPECT_EQ(DimExpr::ceilDiv(a, C(1)).str(), "heads");
}

TEST(DimExpr, ParseReadsWhatStrPrints) {
  for (const char *text :
       {"microbatch*seq", "2*(ffn/tp)", "hidden/heads",
        "microbatch*(heads/tp)", "(heads/tp+2*(heads/tp))*(hidden/heads)",
        "max(1,floordiv(kv_heads,tp))", "ceildiv(microbatch*seq*2,ffn)",
        "1"}) {
    std::string error;
    auto e = DimExpr::parse(text, error);
    ASSERT_TRUE(e) << text << ": " << error;
    EXPECT_EQ(e->str(), text);
  }
  std::string error;
  EXPECT_FALSE(DimExpr::parse("ffn/", error));
  EXPECT_NE(error.find("expected"), std::string::npos) << error;
  EXPECT_FALSE(DimExpr::parse("intermediate_size", error));
  EXPECT_NE(error.find("unknown parameter 'intermediate_size'"),
            std::string::npos);
  EXPECT_FALSE(DimExpr::parse("99999999999999999999", error));
  EXPECT_FALSE(DimExpr::parse(std::string(200, '(') + "1", error));
  // Overflow is no value, and says so.
  bool overflow = false;
  auto big = DimExpr::parse("hidden*hidden*hidden", error);
  EXPECT_EQ(big->eval(env({{Param::Hidden, int64_t(1) << 22}}), &overflow),
            std::nullopt);
  EXPECT_TRUE(overflow);
}

TEST(DimExpr, UnitDegreesLeaveLabels) {
  std::string error;
  auto e = DimExpr::parse("(heads/tp+2*max(1,floordiv(kv_heads,tp)))*head_dim",
                          error);
  EXPECT_EQ(e->withoutUnitDegrees(env({{Param::Tp, 1}})).str(),
            "(heads+2*kv_heads)*head_dim");
  EXPECT_EQ(e->withoutUnitDegrees(env({{Param::Tp, 2}})).str(), e->str());
}

TEST(BlockModels, SizesCarryTheirExpressions) {
  // Llama-2-7B-like at t = 2: h = 4096, a = g = 32, f = 11008 gated and
  // fused, b = 1, s = 64.
  ModelConfig c;
  c.microbatch = 1;
  c.seq = 64;
  c.hidden = 4096;
  c.vocab = 32000;
  c.parallel.tp = 2;
  c.attention.heads = c.attention.kvHeads = 32;
  c.mlp.inner = 11008;
  c.mlp.gated = true;
  c.mlp.fusedGateUp = true;
  std::vector<GemmSpec> a = gemmsOf(attentionKernels(c, RunShape::prefill(), 0));
  // MHA states kv_heads as heads; N = (16 + 2*16) * 128 = 6144.
  EXPECT_EQ(a[0].n.expr.str(), "(heads/tp+2*(heads/tp))*(hidden/heads)");
  EXPECT_EQ(a[0].n.value, 6144);
  EXPECT_FALSE(a[0].env.has(Param::KvHeads));
  // Scores: batch b*a/t = 16, K = d = 4096/32 = 128.
  EXPECT_EQ(a[1].batch.expr.str(), "microbatch*(heads/tp)");
  EXPECT_EQ(a[1].batch.value, 16);
  EXPECT_EQ(a[1].k.value, 128);
  std::vector<GemmSpec> m = gemmsOf(mlpKernels(c, RunShape::prefill(), 0));
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].name(), "mlp_gate_up");
  EXPECT_EQ(m[0].n.expr.str(), "2*(ffn/tp)");
  EXPECT_EQ(m[0].n.value, 11008); // 2 * 11008/2
  EXPECT_EQ(m[0].env.get(Param::Ffn), 11008); // the global value
  // The weight gradient of the down projection: (f/t x bs).(bs x h).
  std::vector<GemmSpec> g = backwardGemms(m[1]);
  EXPECT_EQ(g[1].name(), "mlp_down_wgrad");
  EXPECT_EQ(g[1].m.expr.str(), "ffn/tp");
  EXPECT_EQ(g[1].k.expr.str(), "microbatch*seq");
  EXPECT_TRUE(g[1].transA);
  // Every name parses back to its role and pass.
  auto parsed = parseGemmName("attn_score_dk");
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->first, Role::AttnScore);
  EXPECT_EQ(parsed->second, GemmPass::GradB);
  EXPECT_FALSE(parseGemmName("mlp_gate_up_dq"));
}

TEST(Neighbourhood, SharedCandidatesAreBounded) {
  advise::NeighbourhoodContext ctx; // bf16 on Hopper: 64 and 8 elements
  // ffn 11006 at t = 1: multiples of 64 in [10125, 11887]: 10176 .. 11840,
  // (11840 - 10176)/64 + 1 = 27 values, 11008 among them.
  auto f = advise::neighbourhood(Param::Ffn, 11006, ctx);
  EXPECT_EQ(f.values.size(), 27u);
  EXPECT_NE(std::find(f.values.begin(), f.values.end(), 11008),
            f.values.end());
  // Vocab only grows: the next 8 multiples of 64 from 50257: 50304 .. 50752.
  auto v = advise::neighbourhood(Param::Vocab, 50257, ctx);
  ASSERT_EQ(v.values.size(), 8u);
  EXPECT_EQ(v.values.front(), 50304);
  EXPECT_EQ(v.values.back(), 50752);
  // A huge head count: a/2 .. 2a would be 2^31 candidates; the list stops
  // at kMaxCandidates, nearest first, and says so.
  auto h = advise::neighbourhood(Param::Heads, int64_t(1) << 31, ctx);
  EXPECT_TRUE(h.truncated);
  EXPECT_EQ((int64_t)h.values.size(), advise::kMaxCandidates);
  EXPECT_LE(std::llabs(h.values.front() - (int64_t(1) << 31)), 512);
}

TEST(Params, AccessorsReachEveryField) {
  // Every parameter's accessor writes and reads back its own field, and no
  // other: set each to a distinct value (100 + index), then read all.
  ModelConfig c;
  for (Param p : allParams())
    setParam(c, p, 100 + int64_t(p));
  for (Param p : allParams())
    EXPECT_EQ(getParam(c, p), 100 + int64_t(p)) << paramName(p);
  EXPECT_EQ(c.parallel.pp, 100 + int64_t(Param::Pp));
  EXPECT_EQ(c.mlp.inner, 100 + int64_t(Param::Ffn));
  // The degrees through Parallelism alone.
  Parallelism par;
  setDegree(par, Param::Ep, 8);
  EXPECT_EQ(par.ep, 8);
  EXPECT_EQ(degree(par, Param::Ep), 8);
  EXPECT_EQ(degree(par, Param::Tp), 1);
}

TEST(Params, SplitRulesComeFromTheTable) {
  // The rule ids are the table's: every split parameter has one, and
  // checkSplits reports it with the table's names (ffn 100 on tp 8: 96 or
  // 104; vocab grows only: 50257 on tp 2 pads to 50258).
  for (Param p : allParams())
    EXPECT_EQ(paramInfo(p).splitBy.has_value(),
              std::string(paramInfo(p).splitRule).size() > 0)
        << paramName(p);
  Bindings b;
  b.set(Param::Ffn, 100);
  b.set(Param::Tp, 8);
  auto v = checkSplits(b);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->rule, "M1");
  EXPECT_EQ(v->message, "ffn 100 is not divisible by tensor-parallel degree "
                        "8; use ffn 96 or 104, or tp dividing 100");
  b.erase(Param::Ffn);
  b.set(Param::Vocab, 50257);
  b.set(Param::Tp, 2);
  EXPECT_EQ(checkSplits(b)->message,
            "vocab 50257 is not divisible by tensor-parallel degree 2; pad "
            "it to 50258");
  // kv_heads replicated: 8 kv heads on 16 ranks pass, 4 on 6 do not (A4).
  Bindings kv;
  kv.set(Param::KvHeads, 8);
  kv.set(Param::Tp, 16);
  EXPECT_FALSE(checkSplits(kv));
  kv.set(Param::KvHeads, 4);
  kv.set(Param::Tp, 6);
  EXPECT_EQ(checkSplits(kv)->rule, "A4");
  // An unbound degree checks nothing.
  Bindings none;
  none.set(Param::Ffn, 100);
  EXPECT_FALSE(checkSplits(none));
}

TEST(Params, BindingsHoldOnlyTheDegreesThatSplit) {
  // tp splits heads, kv_heads, ffn and vocab, so it is bound; pp, dp, ep
  // and cp split nothing yet, so size expressions and reports do not list
  // them.
  ModelConfig c = ModelConfig();
  c.hidden = 256;
  c.vocab = 1000;
  c.attention.heads = c.attention.kvHeads = 4;
  c.mlp.inner = 1024;
  c.parallel = {2, 4, 8, 1, 1};
  Bindings b = bindings(c);
  EXPECT_EQ(b.get(Param::Tp), 2);
  EXPECT_FALSE(b.has(Param::Pp));
  EXPECT_FALSE(b.has(Param::Dp));
  // MHA: kv_heads unbound; implicit head dim: head_dim unbound, and the one
  // head-dim function gives hidden/heads = 64.
  EXPECT_FALSE(b.has(Param::KvHeads));
  EXPECT_FALSE(b.has(Param::HeadDim));
  EXPECT_EQ(headDim(b), 64);
  EXPECT_EQ(headDimExpr(b).str(), "hidden/heads");
  b.set(Param::HeadDim, 128);
  EXPECT_EQ(headDim(b), 128);
}
