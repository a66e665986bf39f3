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

/// The smallest multiple of m (> 0) at or above v, saturating at the
/// largest multiple of m that fits in int64.
int64_t roundUp(int64_t v, int64_t m) {
  int64_t down = v / m * m;
  if (down == v)
    return v;
  std::optional<int64_t> up = checkedAdd(down, m);
  return up ? *up : down;
}
} // namespace

std::optional<RuleViolation> tshape::model::checkPositive(const char *what,
                                                   int64_t value) {
  if (value > 0)
    return std::nullopt;
  return RuleViolation{
      "S1", format("%s must be positive, got %lld", what, (long long)value)};
}

std::optional<RuleViolation> tshape::model::checkAttention(int64_t hidden,
                                                    int64_t heads,
                                                    int64_t kvHeads,
                                                    int64_t headDim,
                                                    int64_t tp) {
  if (auto v = checkPositive("heads", heads))
    return v;
  if (auto v = checkPositive("kv_heads", kvHeads))
    return v;
  if (headDim < 0)
    return checkPositive("head_dim", headDim);
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
  if (heads % tp != 0)
    return RuleViolation{
        "A3", format("heads %lld is not divisible by tensor-parallel degree "
                     "%lld; use heads %lld or %lld, or tp dividing %lld",
                     (long long)heads, (long long)tp,
                     (long long)(heads / tp * tp), (long long)roundUp(heads, tp),
                     (long long)heads)};
  if (kvHeads % tp != 0 && tp % kvHeads != 0)
    return RuleViolation{
        "A4", format("kv_heads %lld and tensor-parallel degree %lld are "
                     "incompatible: kv_heads must be a multiple of tp, or tp "
                     "a multiple of kv_heads (heads are then replicated)",
                     (long long)kvHeads, (long long)tp)};
  return std::nullopt;
}

std::optional<RuleViolation> tshape::model::checkDivisibleByTp(const char *rule,
                                                        const char *what,
                                                        int64_t value,
                                                        int64_t tp) {
  if (value % tp == 0)
    return std::nullopt;
  return RuleViolation{
      rule, format("%s %lld is not divisible by tensor-parallel degree %lld; "
                   "pad it to %lld",
                   what, (long long)value, (long long)tp,
                   (long long)roundUp(value, tp))};
}

std::optional<RuleViolation> tshape::model::checkModel(const ModelConfig &c) {
  const std::pair<const char *, int64_t> sizes[] = {
      {"microbatch", c.microbatch}, {"seq", c.seq},
      {"hidden", c.hidden},         {"vocab", c.vocab},
      {"layers", c.layers},         {"tp", c.tp},
      {"inner", c.mlp.inner}};
  for (auto [what, v] : sizes)
    if (auto r = checkPositive(what, v))
      return r;
  if (auto r = checkAttention(c.hidden, c.attention.heads, c.attention.kvHeads,
                              c.attention.headDim, c.tp))
    return r;
  if (auto r = checkDivisibleByTp("M1", "inner size", c.mlp.inner, c.tp))
    return r;
  if (auto r = checkDivisibleByTp("V1", "vocab", c.vocab, c.tp))
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
  // Sizes of 0 are unset (a block model built for one op, such as the LM
  // head, knows no heads): leave them unbound.
  Bindings env;
  auto set = [&](Param p, int64_t v) {
    if (v != 0)
      env.set(p, v);
  };
  set(Param::Microbatch, c.microbatch);
  set(Param::Seq, c.seq);
  set(Param::Hidden, c.hidden);
  set(Param::Heads, c.attention.heads);
  if (c.attention.kvHeads != c.attention.heads)
    set(Param::KvHeads, c.attention.kvHeads);
  set(Param::HeadDim, c.attention.headDim);
  set(Param::Ffn, c.mlp.inner);
  set(Param::Vocab, c.vocab);
  c.parallelism().bind(env);
  return env;
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
    headDim = c.attention.headDim ? P(Param::HeadDim)
                                  : P(Param::Hidden) / P(Param::Heads);
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
  if (c.tp <= 0 || c.attention.heads <= 0 || c.attention.kvHeads <= 0)
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

std::optional<RuleViolation> tshape::model::checkBindings(const Bindings &env) {
  auto get = [&](Param p, int64_t dflt) { return env.get(p).value_or(dflt); };
  int64_t heads = get(Param::Heads, 1);
  if (!env.has(Param::Heads) && !env.has(Param::KvHeads))
    return std::nullopt;
  return checkAttention(get(Param::Hidden, get(Param::HeadDim, 1) * heads),
                        heads, get(Param::KvHeads, heads),
                        get(Param::HeadDim, 0), get(Param::Tp, 1));
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
  const int64_t d = c.headDim(), a = c.attention.heads,
                g = c.attention.kvHeads, h = c.hidden;
  auto qkv = checkedMul(h, checkedMul(checkedAdd(a, 2 * g), d));
  auto proj = checkedProduct({a, d, h});
  auto mlp = checkedProduct({c.mlp.gated ? 3 : 2, h, c.mlp.inner});
  auto norms = checkedMul(2, h);
  auto perLayer = checkedAdd(checkedAdd(qkv, proj), checkedAdd(mlp, norms));
  auto embedding = checkedMul(c.vocab, h);
  std::optional<int64_t> lmHead = c.tiedEmbeddings ? 0 : embedding;
  auto total = checkedAdd(checkedAdd(embedding, lmHead),
                          checkedAdd(checkedMul(perLayer, c.layers), h));
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
