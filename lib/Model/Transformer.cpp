//===- Transformer.cpp - Plain-C++ transformer shape model ----------------===//
//
// Structural rules, the per-rank GEMM list and overflow-checked counting.
// See Transformer.h and docs/architecture.md.
//
//===----------------------------------------------------------------------===//

#include "tshape/Model/Transformer.h"
#include "tshape/Model/Blocks/Block.h"

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

namespace {
/// Rules E2, E4 and E5 on a mixture of experts with these sizes (0: not
/// bound). E1 (experts divisible by ep) is the table's (checkSplits).
std::optional<RuleViolation> checkExperts(const Bindings &env) {
  auto get = [&](Param p) { return env.get(p).value_or(0); };
  const int64_t experts = get(Param::Experts), topk = get(Param::TopK);
  if (experts > 0 && topk > experts)
    return RuleViolation{
        "E2", format("topk %lld exceeds experts %lld: a token is routed to "
                     "at most every expert; use topk <= %lld",
                     (long long)topk, (long long)experts, (long long)experts)};
  if ((get(Param::SharedExperts) > 0) != (get(Param::SharedFfn) > 0))
    return RuleViolation{
        "E4", format("shared_experts %lld and shared_ffn %lld: give both "
                     "(shared experts and their inner size) or neither",
                     (long long)get(Param::SharedExperts),
                     (long long)get(Param::SharedFfn))};
  if (int64_t cap = get(Param::Capacity); cap > 0 && cap < 100)
    return RuleViolation{
        "E5", format("capacity %lld%% is below the balanced load: the "
                     "busiest expert receives at least b*s*k/E tokens; use "
                     "100 (balanced) or more, e.g. 125 for a capacity "
                     "factor of 1.25",
                     (long long)cap)};
  return std::nullopt;
}
} // namespace

std::optional<RuleViolation>
tshape::model::checkWindow(std::optional<int64_t> window, bool chunked,
                           bool causal) {
  if (window && *window <= 0)
    return RuleViolation{
        "W1", format("window %lld is not positive: a windowed layer's "
                     "query sees the last `window` keys; give a positive "
                     "window, or none for full attention",
                     (long long)*window)};
  if (chunked && !window)
    return RuleViolation{"W2", "chunked attention needs a window (the chunk "
                               "size); give window = C, or drop chunked"};
  if (window && !causal)
    return RuleViolation{
        "W3", format("window %lld on a non-causal attention: a window is "
                     "the keys up to a query's own; make it causal or drop "
                     "the window",
                     (long long)*window)};
  return std::nullopt;
}

std::optional<RuleViolation> tshape::model::checkBindings(const Bindings &env) {
  // S1 on every bound size (an optional one may be 0: not given).
  for (Param p : allParams())
    if (std::optional<int64_t> v = env.get(p);
        v && !(paramInfo(p).zeroIsUnset && *v == 0))
      if (auto r = checkPositive(paramName(p), *v))
        return r;
  // A1 and A2 are about a head dim of hidden/heads and key/value groups;
  // an MLA block states its head dims and has neither (its latent rank
  // bound says so).
  if ((env.has(Param::Heads) || env.has(Param::KvHeads)) &&
      !env.has(Param::KvLoraRank)) {
    auto get = [&](Param p, int64_t dflt) { return env.get(p).value_or(dflt); };
    int64_t heads = get(Param::Heads, 1), headDim = get(Param::HeadDim, 0);
    if (auto r = checkHeads(get(Param::Hidden, std::max<int64_t>(1, headDim) *
                                                   heads),
                            heads, get(Param::KvHeads, heads), headDim))
      return r;
  }
  if (auto r = checkExperts(env))
    return r;
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
  // Rule H1: a heterogeneous stack states every layer once.
  if (!c.stack.empty()) {
    std::optional<int64_t> n = stackLayers(c.stack);
    if (!n || *n != c.layers)
      return RuleViolation{
          "H1", format("the stack's segments hold %lld layers, the model "
                       "%lld; make the repeats x pattern lengths sum to "
                       "layers",
                       (long long)n.value_or(-1), (long long)c.layers)};
  }
  // The blocks' own rules (Blocks/Block.h, BlockInfo::check), once for
  // each block a layer holds.
  std::vector<BlockKind> asked;
  for (const auto &[lc, n] : layerGroups(c))
    for (BlockKind k : lc.layerBlocks)
      if (std::find(asked.begin(), asked.end(), k) == asked.end()) {
        asked.push_back(k);
        if (auto check = blockInfo(k).check)
          if (auto r = check(c))
            return r;
      }
  // Rules W1-W3 on the window (a layer with one).
  if (c.attention.window != 0)
    if (auto r = checkWindow(c.attention.window, c.attention.chunked,
                             c.attention.causal))
      return r;
  Bindings env = bindings(c);
  // MHA leaves kv_heads unbound; its rules are then those of heads.
  env.set(Param::KvHeads, c.attention.kvHeads);
  if (auto r = checkBindings(env))
    return r;
  if (!rankShape(c) || !countParameters(c) || !countFlops(c, RunShape::train()))
    return RuleViolation{"S2", "sizes overflow 64-bit arithmetic: the "
                               "parameter or FLOP count exceeds 2^63-1"};
  return std::nullopt;
}

std::optional<RuleViolation>
tshape::model::checkModelPerSequence(const ModelConfig &c) {
  ModelConfig one = c;
  setParam(one, Param::Microbatch, 1);
  return checkModel(one);
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

std::optional<RankShape> tshape::model::rankShape(const ModelConfig &c) {
  if (c.parallel.tp <= 0 || c.attention.heads <= 0 ||
      c.attention.kvHeads <= 0)
    return std::nullopt;
  // The attention kernel of a training step states the per-rank heads.
  AttentionSpec a = attentionKernel(c, RunShape::train(), 0);
  auto tokens = RunShape::train().tokens().eval(a.env);
  if (!tokens)
    return std::nullopt;
  RankShape r;
  r.tokens = *tokens;
  r.headsPerRank = a.heads.value;
  r.kvPerRank = a.kvHeads.value;
  r.headDim = a.headDim.value;
  r.innerPerRank = perRank(Param::Ffn).eval(a.env).value_or(0);
  r.vocabPerRank = perRank(Param::Vocab).eval(a.env).value_or(0);
  return r;
}

std::optional<int64_t> GemmSpec::flops() const {
  // A size without a value (0) comes from a config that breaks a rule,
  // which checkModel reports; it has no work.
  if (overflow)
    return std::nullopt;
  return checkedMul(2, checkedProduct({batch.value, m.value, n.value, k.value}));
}

namespace {
/// The blocks outside the layers (embedding, LM head), in order.
std::vector<BlockKind> modelBlocks() {
  std::vector<BlockKind> out;
  for (BlockKind k : allBlocks())
    if (!blockInfo(k).perLayer)
      out.push_back(k);
  return out;
}

void append(std::vector<Kernel> &out, std::vector<Kernel> more) {
  for (Kernel &k : more)
    out.push_back(std::move(k));
}
} // namespace

std::optional<int64_t>
tshape::model::stackLayers(const std::vector<StackSegment> &stack) {
  std::optional<int64_t> n = 0;
  for (const StackSegment &s : stack)
    n = checkedAdd(n, checkedMul(int64_t(s.pattern.size()), s.repeats));
  return n;
}

ModelConfig tshape::model::layerConfig(const ModelConfig &c, int64_t layer) {
  ModelConfig r = c;
  int64_t first = 0;
  for (const StackSegment &s : c.stack) {
    const int64_t len = int64_t(s.pattern.size());
    if (len == 0 || s.repeats <= 0)
      continue;
    if (layer < first + len * s.repeats) {
      r.layerBlocks = s.pattern[(layer - first) % len].blocks;
      r.attention.fullAttention = s.pattern[(layer - first) % len].fullAttention;
      r.stack.clear();
      return r;
    }
    first += len * s.repeats;
  }
  return r;
}

std::vector<std::pair<ModelConfig, int64_t>>
tshape::model::layerGroups(const ModelConfig &c) {
  std::vector<std::pair<ModelConfig, int64_t>> out;
  if (c.stack.empty()) {
    out.push_back({c, c.layers});
    return out;
  }
  for (const StackSegment &s : c.stack)
    for (const LayerKind &k : s.pattern) {
      auto it = std::find_if(out.begin(), out.end(), [&](const auto &g) {
        return g.first.layerBlocks == k.blocks &&
               g.first.attention.fullAttention == k.fullAttention;
      });
      if (it != out.end()) {
        it->second += s.repeats;
        continue;
      }
      ModelConfig r = c;
      r.layerBlocks = k.blocks;
      r.attention.fullAttention = k.fullAttention;
      r.stack.clear();
      out.push_back({r, s.repeats});
    }
  return out;
}

bool tshape::model::hasBlock(const ModelConfig &c, BlockKind k) {
  for (const auto &[lc, n] : layerGroups(c))
    if (std::find(lc.layerBlocks.begin(), lc.layerBlocks.end(), k) !=
        lc.layerBlocks.end())
      return true;
  return false;
}

namespace {
/// The kernels of one decoder layer (the config is valid): its blocks'
/// forward kernels in order, then, when the run has a backward, their
/// backward kernels in reverse block order, each from its block's forward.
void layerKernelsInto(std::vector<Kernel> &forwardOut,
                      std::vector<Kernel> *backwardOut, const ModelConfig &c,
                      const RunShape &run, int64_t layer) {
  const ModelConfig lc = layerConfig(c, layer);
  std::vector<std::vector<Kernel>> perBlock;
  perBlock.reserve(lc.layerBlocks.size());
  for (BlockKind k : lc.layerBlocks)
    perBlock.push_back(forwardKernels(k, lc, run, layer));
  if (backwardOut && run.backward())
    for (size_t i = lc.layerBlocks.size(); i-- > 0;)
      append(*backwardOut, backwardKernelsOf(lc.layerBlocks[i], lc, run,
                                             layer, perBlock[i]));
  for (std::vector<Kernel> &f : perBlock)
    append(forwardOut, std::move(f));
}
} // namespace

std::vector<Kernel> tshape::model::layerKernels(const ModelConfig &c,
                                                const RunShape &run,
                                                int64_t layer) {
  if (!rankShape(c))
    return {};
  std::vector<Kernel> out, back;
  layerKernelsInto(out, &back, c, run, layer);
  append(out, std::move(back));
  return out;
}

std::vector<Kernel> tshape::model::modelKernels(const ModelConfig &c,
                                                const RunShape &run) {
  std::vector<Kernel> out;
  if (!rankShape(c))
    return out;
  // Each layer's forward in order, then the once-per-model blocks; the
  // backward in reverse: those blocks', then the layers' last first.
  std::vector<std::vector<Kernel>> layerBacks(size_t(c.layers));
  for (int64_t l = 0; l < c.layers; ++l)
    layerKernelsInto(out, &layerBacks[size_t(l)], c, run, l);
  const std::vector<BlockKind> once = modelBlocks();
  std::vector<std::vector<Kernel>> onceFwd;
  for (BlockKind k : once) {
    onceFwd.push_back(forwardKernels(k, c, run, -1));
    out.insert(out.end(), onceFwd.back().begin(), onceFwd.back().end());
  }
  if (!run.backward())
    return out;
  for (size_t i = once.size(); i-- > 0;)
    append(out, backwardKernelsOf(once[i], c, run, -1, onceFwd[i]));
  for (int64_t l = c.layers - 1; l >= 0; --l)
    append(out, std::move(layerBacks[size_t(l)]));
  return out;
}

//===----------------------------------------------------------------------===//
// Counting
//===----------------------------------------------------------------------===//

std::optional<ParamCount> tshape::model::countParameters(const ModelConfig &c) {
  // The blocks' weights, each stated once by its block (blockWeights),
  // over the distinct layers of the stack; active: each block's
  // blockActiveWeights (k of E experts).
  std::optional<int64_t> layersTotal = 0, layersActive = 0, first;
  for (const auto &[lc, n] : layerGroups(c)) {
    std::optional<int64_t> w = 0, a = 0;
    for (BlockKind k : lc.layerBlocks) {
      w = checkedAdd(w, blockWeights(k, lc));
      a = checkedAdd(a, blockActiveWeights(k, lc));
    }
    if (!first)
      first = w;
    layersTotal = checkedAdd(layersTotal, checkedMul(w, n));
    layersActive = checkedAdd(layersActive, checkedMul(a, n));
  }
  auto embedding = blockWeights(BlockKind::Embedding, c);
  auto lmHead = blockWeights(BlockKind::LMHead, c);
  auto outer = checkedAdd(embedding, lmHead);
  auto total = checkedAdd(outer, layersTotal);
  auto active = checkedAdd(outer, layersActive);
  if (!total || !active || !first)
    return std::nullopt;
  return ParamCount{*embedding, *first, *lmHead, *total, *active};
}

std::optional<int64_t>
tshape::model::kernelFlops(const std::vector<Kernel> &kernels) {
  std::optional<int64_t> n = 0;
  for (const Kernel &k : kernels)
    n = checkedAdd(n, k.flops());
  return n;
}

std::vector<Kernel> tshape::model::modelBlockKernels(const ModelConfig &c,
                                                     const RunShape &run) {
  std::vector<Kernel> out;
  for (BlockKind k : modelBlocks())
    append(out, blockKernels(k, c, run, -1));
  return out;
}

std::optional<int64_t> tshape::model::countFlops(const ModelConfig &c,
                                                 const RunShape &run) {
  if (!rankShape(c))
    return std::nullopt;
  // Each distinct layer's kernels times its count, plus the once-per-model
  // blocks (and their backward): this does not enumerate L copies. The
  // blocks' own kernels only: the collectives compute nothing (and the
  // search asks this of every candidate, checkModel's S2).
  auto blockFlops = [&](BlockKind k, const ModelConfig &bc, int64_t layer) {
    std::vector<Kernel> ks = blockInfo(k).forward(bc, run, layer);
    std::optional<int64_t> f = kernelFlops(ks);
    if (run.backward())
      f = checkedAdd(f, kernelFlops(backwardKernels(ks)));
    return f;
  };
  std::optional<int64_t> n = 0;
  for (BlockKind k : modelBlocks())
    n = checkedAdd(n, blockFlops(k, c, -1));
  for (const auto &[lc, count] : layerGroups(c)) {
    std::optional<int64_t> layer = 0;
    for (BlockKind k : lc.layerBlocks)
      layer = checkedAdd(layer, blockFlops(k, lc, 0));
    n = checkedAdd(n, checkedMul(layer, count));
  }
  return n;
}
