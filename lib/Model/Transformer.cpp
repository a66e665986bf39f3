//===- Transformer.cpp - Plain-C++ transformer shape model ----------------===//
//
// Structural rules, the per-rank GEMM list and overflow-checked counting.
// See Transformer.h and docs/architecture.md.
//
//===----------------------------------------------------------------------===//

#include "tshape/Model/Transformer.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>

using namespace tshape::model;

//===----------------------------------------------------------------------===//
// Checked arithmetic
//===----------------------------------------------------------------------===//

std::optional<int64_t> tshape::model::checkedMul(std::optional<int64_t> a,
                                          std::optional<int64_t> b) {
  int64_t r;
  if (!a || !b || __builtin_mul_overflow(*a, *b, &r))
    return std::nullopt;
  return r;
}

std::optional<int64_t> tshape::model::checkedAdd(std::optional<int64_t> a,
                                          std::optional<int64_t> b) {
  int64_t r;
  if (!a || !b || __builtin_add_overflow(*a, *b, &r))
    return std::nullopt;
  return r;
}

std::optional<int64_t>
tshape::model::checkedProduct(std::initializer_list<int64_t> factors) {
  std::optional<int64_t> r = 1;
  for (int64_t f : factors)
    r = checkedMul(r, f);
  return r;
}

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

const char *tshape::model::activationName(Activation a) {
  switch (a) {
  case Activation::GELU:
    return "gelu";
  case Activation::ReLU:
    return "relu";
  case Activation::SiLU:
    return "silu";
  }
  return "gelu";
}

//===----------------------------------------------------------------------===//
// Rules
//===----------------------------------------------------------------------===//

namespace {
std::string format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
std::string format(const char *fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  return buf;
}

/// How far the divisor scans go from the requested value: bounded whatever
/// the magnitude of the sizes (a huge prime hidden size has no near divisor).
constexpr int64_t kDivisorScan = 4096;

/// The divisors of `n` nearest to `x` from below and above, each at most
/// kDivisorScan away (0 when there is none that near).
std::pair<int64_t, int64_t> nearestDivisors(int64_t n, int64_t x) {
  int64_t lo = 0, hi = 0;
  for (int64_t d = std::min(x, n), steps = 0; d >= 1 && steps < kDivisorScan;
       --d, ++steps)
    if (n % d == 0) {
      lo = d;
      break;
    }
  // Only when x < n (<= INT64_MAX), so x + 1 cannot overflow.
  if (x < n)
    for (int64_t d = x + 1, steps = 0; d <= n && steps < kDivisorScan;
         ++d, ++steps)
      if (n % d == 0) {
        hi = d;
        break;
      }
  return {lo, hi};
}

} // namespace

std::optional<RuleViolation> tshape::model::checkPositive(const char *what,
                                                   int64_t value) {
  if (value > 0)
    return std::nullopt;
  return RuleViolation{
      "S1", format("%s must be positive, got %lld", what, (long long)value)};
}

namespace {
/// Rules A1 and A2 on an attention with these sizes (S1 checked before).
std::optional<RuleViolation> checkHeads(int64_t hidden, int64_t heads,
                                        int64_t kvHeads, int64_t headDim) {
  if (headDim == 0 && hidden % heads != 0) {
    auto [lo, hi] = nearestDivisors(hidden, heads);
    std::string hint =
        lo && hi ? format("%lld or %lld", (long long)lo, (long long)hi)
        : lo || hi
            ? format("%lld", (long long)(lo ? lo : hi))
            : format("none within %lld of %lld", (long long)kDivisorScan,
                     (long long)heads);
    return RuleViolation{
        "A1", format("hidden size %lld is not divisible by heads %lld "
                     "(head dim would be %.2f); use a head count that divides "
                     "it (nearest: %s) or give head_dim explicitly",
                     (long long)hidden, (long long)heads,
                     (double)hidden / (double)heads, hint.c_str())};
  }
  if (kvHeads > heads || heads % kvHeads != 0)
    return RuleViolation{
        "A2", format("heads %lld is not divisible by kv_heads %lld; each "
                     "key/value head must serve a whole group of query heads",
                     (long long)heads, (long long)kvHeads)};
  return std::nullopt;
}
} // namespace

std::optional<RuleViolation> tshape::model::checkBindings(const Bindings &env) {
  // S1 on every bound size (an optional one may be 0: not given).
  for (Param p : allParams())
    if (std::optional<int64_t> v = env.get(p);
        v && !(paramInfo(p).zeroIsUnset && *v == 0))
      if (auto r = checkPositive(paramName(p), *v))
        return r;
  if (env.has(Param::Heads) || env.has(Param::KvHeads)) {
    auto get = [&](Param p, int64_t dflt) { return env.get(p).value_or(dflt); };
    int64_t heads = get(Param::Heads, 1), headDim = get(Param::HeadDim, 0);
    if (auto r = checkHeads(get(Param::Hidden, std::max<int64_t>(1, headDim) *
                                                   heads),
                            heads, get(Param::KvHeads, heads), headDim))
      return r;
  }
  return checkSplits(env);
}

std::optional<RuleViolation> tshape::model::checkModel(const ModelConfig &c) {
  // S1 on every size of the table, through its accessor (bindings() leaves
  // sizes of 0 unbound, so they are checked here).
  for (Param p : allParams()) {
    int64_t v = getParam(c, p);
    if (!(paramInfo(p).zeroIsUnset && v == 0))
      if (auto r = checkPositive(paramName(p), v))
        return r;
  }
  Bindings env = bindings(c);
  // MHA leaves kv_heads unbound; its rules are then those of heads.
  env.set(Param::KvHeads, c.attention.kvHeads);
  if (auto r = checkBindings(env))
    return r;
  if (!rankShape(c) || !countParameters(c) || !countGemmFlops(c, true))
    return RuleViolation{"S2", "sizes overflow 64-bit arithmetic: the "
                               "parameter or FLOP count exceeds 2^63-1"};
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// GEMMs
//===----------------------------------------------------------------------===//

Bindings tshape::model::bindings(const ModelConfig &c) {
  Bindings env;
  for (Param p : allParams()) {
    const ParamInfo &info = paramInfo(p);
    int64_t v = getParam(c, p);
    // Degrees: only those that split a parameter (bindDegrees below).
    if (v == 0 || info.kind == ParamKind::Degree || p == Param::Layers)
      continue;
    if (p == Param::KvHeads && v == c.attention.heads)
      continue;
    env.set(p, v);
  }
  bindDegrees(c, env);
  return env;
}

DimExpr tshape::model::headDimExpr(const Bindings &env) {
  if (env.has(Param::HeadDim))
    return DimExpr::param(Param::HeadDim);
  return DimExpr::param(Param::Hidden) / DimExpr::param(Param::Heads);
}

int64_t tshape::model::headDim(const Bindings &env) {
  return headDimExpr(env).eval(env).value_or(0);
}

int64_t ModelConfig::headDim() const {
  return model::headDim(bindings(*this));
}

namespace {
using E = DimExpr;
E P(Param p) { return E::param(p); }

/// Sizes shared by the block models, as expressions.
struct Sizes {
  E tokens = tokensPerRank();
  E hidden = P(Param::Hidden);
  E headDim, headsR, kvR;
  explicit Sizes(const ModelConfig &c) {
    headDim = headDimExpr(bindings(c));
    headsR = perRank(Param::Heads);
    kvR = c.attention.kvHeads == c.attention.heads ? headsR
                                                   : perRank(Param::KvHeads);
  }
};

/// A GEMM whose sizes are the given expressions evaluated with `c`'s
/// bindings; a size without a value (an invalid config) is 0.
GemmSpec gemm(const ModelConfig &c, Role role, int64_t layer, E batch, E m,
              E n, E k, bool transA, bool transB) {
  GemmSpec g;
  g.role = role;
  g.layer = layer;
  g.env = bindings(c);
  for (auto [dim, e] : {std::pair<Dim *, E *>{&g.batch, &batch},
                        {&g.m, &m},
                        {&g.n, &n},
                        {&g.k, &k}}) {
    dim->expr = *e;
    dim->value = e->eval(g.env, &g.overflow).value_or(0);
  }
  g.transA = transA;
  g.transB = transB;
  return g;
}
} // namespace

std::optional<RankShape> tshape::model::rankShape(const ModelConfig &c) {
  if (c.parallel.tp <= 0 || c.attention.heads <= 0 ||
      c.attention.kvHeads <= 0)
    return std::nullopt;
  Bindings env = bindings(c);
  Sizes z(c);
  auto tokens = z.tokens.eval(env);
  if (!tokens)
    return std::nullopt;
  RankShape r;
  r.tokens = *tokens;
  r.headsPerRank = z.headsR.eval(env).value_or(0);
  r.kvPerRank = z.kvR.eval(env).value_or(0);
  r.headDim = c.headDim();
  r.innerPerRank = perRank(Param::Ffn).eval(env).value_or(0);
  r.vocabPerRank = perRank(Param::Vocab).eval(env).value_or(0);
  return r;
}

std::vector<GemmSpec> tshape::model::attentionGemms(const ModelConfig &c,
                                                    int64_t layer) {
  Sizes z(c);
  const E s = P(Param::Seq);
  // Scores and values are batched over the microbatch's heads on this rank.
  const E heads = P(Param::Microbatch) * z.headsR;
  return {
      gemm(c, Role::Qkv, layer, E(), z.tokens,
           (z.headsR + E::constant(2) * z.kvR) * z.headDim, z.hidden, false,
           true),
      gemm(c, Role::AttnScore, layer, heads, s, s, z.headDim, false, true),
      gemm(c, Role::AttnValue, layer, heads, s, z.headDim, s, false, false),
      gemm(c, Role::AttnOut, layer, E(), z.tokens, z.hidden,
           z.headsR * z.headDim, false, true),
  };
}

std::vector<GemmSpec> tshape::model::mlpGemms(const ModelConfig &c,
                                              int64_t layer) {
  Sizes z(c);
  const E f = perRank(Param::Ffn);
  std::vector<GemmSpec> out;
  auto up = [&](Role r, E width) {
    out.push_back(
        gemm(c, r, layer, E(), z.tokens, width, z.hidden, false, true));
  };
  if (c.mlp.gated && c.mlp.fusedGateUp) {
    up(Role::MlpGateUp, E::constant(2) * f);
  } else {
    if (c.mlp.gated)
      up(Role::MlpGate, f);
    up(Role::MlpUp, f);
  }
  out.push_back(
      gemm(c, Role::MlpDown, layer, E(), z.tokens, z.hidden, f, false, true));
  return out;
}

GemmSpec tshape::model::logitsGemm(const ModelConfig &c) {
  Sizes z(c);
  return gemm(c, Role::Logits, -1, E(), z.tokens, perRank(Param::Vocab),
              z.hidden, false, true);
}

std::optional<int64_t> GemmSpec::flops() const {
  // A size without a value (0) comes from a config that breaks a rule,
  // which checkModel reports; it has no work.
  if (overflow)
    return std::nullopt;
  return checkedMul(2, checkedProduct({batch.value, m.value, n.value, k.value}));
}

namespace {
/// Appends the backward of `forward` (in reverse order of the forward).
void appendBackward(std::vector<GemmSpec> &out,
                    const std::vector<GemmSpec> &forward) {
  for (auto it = forward.rbegin(); it != forward.rend(); ++it)
    for (GemmSpec &g : backwardGemms(*it))
      out.push_back(std::move(g));
}
} // namespace

std::vector<GemmSpec> tshape::model::layerGemms(const ModelConfig &c,
                                                int64_t layer, bool training) {
  std::vector<GemmSpec> out;
  if (!rankShape(c))
    return out;
  std::vector<GemmSpec> attn = attentionGemms(c, layer);
  std::vector<GemmSpec> mlp = mlpGemms(c, layer);
  out = attn;
  out.insert(out.end(), mlp.begin(), mlp.end());
  if (!training)
    return out;
  appendBackward(out, mlp);
  appendBackward(out, attn);
  return out;
}

std::vector<GemmSpec> tshape::model::modelGemms(const ModelConfig &c,
                                                bool training) {
  std::vector<GemmSpec> out;
  if (!rankShape(c))
    return out;
  for (int64_t l = 0; l < c.layers; ++l)
    for (GemmSpec &g : layerGemms(c, l, false))
      out.push_back(std::move(g));
  GemmSpec logits = logitsGemm(c);
  out.push_back(logits);
  if (!training)
    return out;
  appendBackward(out, {logits});
  const size_t fwdCount = layerGemms(c, 0, false).size();
  for (int64_t l = c.layers - 1; l >= 0; --l) {
    std::vector<GemmSpec> all = layerGemms(c, l, true);
    out.insert(out.end(), all.begin() + fwdCount, all.end());
  }
  return out;
}

//===----------------------------------------------------------------------===//
// Counting
//===----------------------------------------------------------------------===//

std::optional<ParamCount> tshape::model::countParameters(const ModelConfig &c) {
  // The weights are the B operands (N x K) of the weight GEMMs of the block
  // models (RoleInfo::weight), taken from the model with every degree at 1:
  // one statement of the layer's weights, the GEMM list's.
  ModelConfig whole = c;
  whole.parallel = Parallelism();
  auto weights = [](const std::vector<GemmSpec> &gemms)
      -> std::optional<int64_t> {
    std::optional<int64_t> n = 0;
    for (const GemmSpec &g : gemms)
      if (roleInfo(g.role).weight)
        n = g.overflow ? std::nullopt
                       : checkedAdd(n, checkedMul(g.n.value, g.k.value));
    return n;
  };
  std::vector<GemmSpec> layer = attentionGemms(whole, 0);
  for (GemmSpec &g : mlpGemms(whole, 0))
    layer.push_back(std::move(g));
  // Two norm gains per layer and one final; biases are not counted.
  auto norms = checkedMul(2, c.hidden);
  auto perLayer = checkedAdd(weights(layer), norms);
  // The embedding table is the LM head's weight, shared when tied.
  auto embedding = weights({logitsGemm(whole)});
  std::optional<int64_t> lmHead = c.tiedEmbeddings ? 0 : embedding;
  auto total = checkedAdd(checkedAdd(embedding, lmHead),
                          checkedAdd(checkedMul(perLayer, c.layers), c.hidden));
  if (!total)
    return std::nullopt;
  return ParamCount{*embedding, *perLayer, *lmHead, *total};
}

std::optional<int64_t> tshape::model::countGemmFlops(const ModelConfig &c,
                                              bool training) {
  auto rs = rankShape(c);
  if (!rs)
    return std::nullopt;
  // One layer's GEMMs times L, plus the logits (and their backward): the
  // layers are identical, so this does not enumerate L copies.
  std::optional<int64_t> layer = 0;
  for (const GemmSpec &g : layerGemms(c, 0, training))
    layer = checkedAdd(layer, g.flops());
  std::optional<int64_t> head =
      checkedMul(logitsGemm(c).flops(), training ? 3 : 1);
  return checkedAdd(checkedMul(layer, c.layers), head);
}
