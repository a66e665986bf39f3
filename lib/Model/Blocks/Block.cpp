//===- Block.cpp - The block table and what is derived from it ------------===//

#include "tshape/Model/Blocks/Block.h"
#include "tshape/Model/Transformer.h"

#include <algorithm>

using namespace tshape::model;

namespace {
/// One row per block, in the order of a model's data flow; indexed by
/// BlockKind.
const BlockInfo kBlocks[] = {
    {BlockKind::Embedding, "embedding", false, embeddingKernels,
     embeddingWeights, nullptr, nullptr, nullptr, nullptr, nullptr,
     "tshape.embedding", TpBoundaries::Leave},
    {BlockKind::Attention, "attention", true, attentionKernels,
     attentionWeights, nullptr, attentionState, attentionActivations,
     attentionElementwise, nullptr, "tshape.attention"},
    {BlockKind::Mlp, "mlp", true, mlpKernels, mlpWeights, nullptr, nullptr,
     mlpActivations, mlpElementwise, nullptr, "tshape.mlp",
     TpBoundaries::Both, mlpCheck},
    {BlockKind::LMHead, "lm_head", false, lmHeadKernels, lmHeadWeights,
     nullptr, nullptr, nullptr, nullptr, nullptr, "tshape.lm_head",
     TpBoundaries::Enter},
    {BlockKind::Moe, "moe", true, moeKernels, moeWeights, moeActiveWeights,
     nullptr, moeActivations, moeElementwise, nullptr, "tshape.moe",
     TpBoundaries::Both, moeCheck},
    // MLA's activations and elementwise traffic are the attention
    // sub-layer's (Korthikanti's terms at its heads; its latents' norms
    // are not counted) with its own input norm and up projections.
    {BlockKind::Mla, "mla", true, mlaKernels, mlaWeights, nullptr,
     mlaState, mlaActivations, mlaElementwise, mlaWorkspace,
     "tshape.mla", TpBoundaries::Both, mlaCheck},
};


/// The built-in blocks, then the registered ones; indexed by BlockKind.
std::vector<BlockInfo> &blockTable() {
  static std::vector<BlockInfo> table(std::begin(kBlocks), std::end(kBlocks));
  return table;
}
} // namespace

const BlockInfo &tshape::model::blockInfo(BlockKind k) {
  return blockTable()[size_t(k)];
}

std::vector<BlockKind> tshape::model::allBlocks() {
  std::vector<BlockKind> v;
  for (const BlockInfo &b : blockTable())
    v.push_back(b.kind);
  return v;
}

std::optional<BlockKind> tshape::model::parseBlock(std::string_view name) {
  for (const BlockInfo &b : blockTable())
    if (name == b.name)
      return b.kind;
  return std::nullopt;
}

BlockKind tshape::model::registerBlock(BlockInfo info) {
  if (std::optional<BlockKind> k = parseBlock(info.name))
    return *k;
  info.kind = BlockKind(blockTable().size());
  blockTable().push_back(info);
  return info.kind;
}

namespace {
/// tpCollectives under `env` (bindings(c), computed once by the caller).
void appendTpCollective(std::vector<Kernel> &out, BlockKind k,
                        const ModelConfig &c, const Bindings &env,
                        const RunShape &run, int64_t layer,
                        TpBoundaries boundary, bool backward) {
  if (!(uint8_t(blockInfo(k).tp) & uint8_t(boundary)))
    return;
  const bool enter = boundary == TpBoundaries::Enter;
  CollectiveSpec s;
  s.role = enter ? Role::TpEnter : Role::TpLeave;
  s.layer = layer;
  s.backward = backward;
  if (run.sequenceParallel)
    s.op = enter == backward ? CollectiveOp::ReduceScatter
                             : CollectiveOp::AllGather;
  else if (enter != backward)
    return; // f is the identity forward, g backward
  s.env = env;
  s.bytes = blockDim(s.env,
                     run.tokens() * DimExpr::param(Param::Hidden) *
                         DimExpr::constant(dtypeBytes(c.dtype)),
                     &s.overflow);
  s.ranks = blockDim(s.env, DimExpr::param(Param::Tp), &s.overflow);
  out.push_back(Kernel(std::move(s)));
}
} // namespace

std::vector<Kernel> tshape::model::tpCollectives(BlockKind k,
                                                 const ModelConfig &c,
                                                 const RunShape &run,
                                                 int64_t layer,
                                                 TpBoundaries boundary,
                                                 bool backward) {
  std::vector<Kernel> out;
  if (getParam(c, Param::Tp) > 1)
    appendTpCollective(out, k, c, bindings(c), run, layer, boundary,
                       backward);
  return out;
}

namespace {
/// A pass's kernels `own` of one instance between the collectives of its
/// tensor-parallel region: forward, entering before and leaving after;
/// backward the reverse (none at tp 1).
std::vector<Kernel> withTpCollectives(std::vector<Kernel> own, BlockKind k,
                                      const ModelConfig &c,
                                      const RunShape &run, int64_t layer,
                                      bool backward) {
  if (getParam(c, Param::Tp) <= 1)
    return own;
  const Bindings env = bindings(c);
  const TpBoundaries first = backward ? TpBoundaries::Leave
                                      : TpBoundaries::Enter;
  const TpBoundaries last = backward ? TpBoundaries::Enter
                                     : TpBoundaries::Leave;
  std::vector<Kernel> out;
  out.reserve(own.size() + 2);
  appendTpCollective(out, k, c, env, run, layer, first, backward);
  for (Kernel &x : own)
    out.push_back(std::move(x));
  appendTpCollective(out, k, c, env, run, layer, last, backward);
  return out;
}
} // namespace

std::vector<Kernel> tshape::model::forwardKernels(BlockKind k,
                                                  const ModelConfig &c,
                                                  const RunShape &run,
                                                  int64_t layer) {
  return withTpCollectives(blockInfo(k).forward(c, run, layer), k, c, run,
                           layer, false);
}

std::vector<Kernel>
tshape::model::backwardKernelsOf(BlockKind k, const ModelConfig &c,
                                 const RunShape &run, int64_t layer,
                                 const std::vector<Kernel> &forward) {
  if (!run.backward())
    return {};
  // backwardKernels skips the forward's tensor-parallel collectives.
  return withTpCollectives(backwardKernels(forward), k, c, run, layer, true);
}

std::vector<Kernel> tshape::model::backwardKernelsOf(BlockKind k,
                                                     const ModelConfig &c,
                                                     const RunShape &run,
                                                     int64_t layer) {
  if (!run.backward())
    return {};
  return backwardKernelsOf(k, c, run, layer,
                           blockInfo(k).forward(c, run, layer));
}

std::vector<Kernel> tshape::model::blockKernels(BlockKind k,
                                                const ModelConfig &c,
                                                const RunShape &run,
                                                int64_t layer) {
  std::vector<Kernel> out = forwardKernels(k, c, run, layer);
  std::vector<Kernel> back = backwardKernelsOf(k, c, run, layer, out);
  out.reserve(out.size() + back.size());
  for (Kernel &b : back)
    out.push_back(std::move(b));
  return out;
}

std::optional<int64_t> tshape::model::blockWeights(BlockKind k,
                                                   const ModelConfig &c) {
  ModelConfig whole = c;
  whole.parallel = Parallelism();
  return blockInfo(k).weights(whole);
}

std::optional<int64_t> tshape::model::blockActiveWeights(BlockKind k,
                                                         const ModelConfig &c) {
  if (auto active = blockInfo(k).activeWeights)
    return active(c);
  return blockWeights(k, c);
}

std::optional<int64_t> tshape::model::rankWeights(BlockKind k,
                                                  const ModelConfig &c) {
  return blockInfo(k).weights(c);
}

std::optional<int64_t> StateComponent::elements() const {
  std::optional<int64_t> n = 1;
  for (const StateFactor &f : factors)
    n = checkedMul(n, f.value);
  return n;
}

std::optional<int64_t> StateComponent::held(int64_t keys,
                                            int64_t draft) const {
  if (!perToken)
    return elements();
  // A windowed cache keeps the last W keys, and a step's D drafts read
  // the W + D keys their windows cover together.
  const int64_t n = window > 0 ? std::min(keys, window + draft) : keys;
  return checkedMul(elements(), n);
}

std::string StateComponent::formula() const {
  std::string s;
  for (const StateFactor &f : factors) {
    if (!s.empty())
      s += " x ";
    s += std::to_string(f.value);
    if (!f.name.empty())
      s += " " + f.name;
  }
  return s.empty() ? "1" : s;
}

TrainingSizes tshape::model::trainingSizes(const ModelConfig &c) {
  TrainingSizes z;
  z.s = double(rankSeq(c));
  z.b = double(getParam(c, Param::Microbatch));
  z.h = double(getParam(c, Param::Hidden));
  z.t = double(getParam(c, Param::Tp));
  z.tokens = z.b * z.s;
  z.e = double(dtypeBytes(c.dtype));
  return z;
}

std::vector<LayerState> tshape::model::modelState(const ModelConfig &c) {
  std::vector<LayerState> out;
  for (const auto &[lc, n] : layerGroups(c)) {
    LayerState g;
    g.layers = n;
    for (BlockKind k : lc.layerBlocks)
      if (auto f = blockInfo(k).state)
        for (StateComponent &s : f(lc))
          g.components.push_back(std::move(s));
    if (!g.components.empty())
      out.push_back(std::move(g));
  }
  return out;
}

std::optional<int64_t>
tshape::model::cacheElementsPerToken(const ModelConfig &c) {
  std::optional<int64_t> sum = 0;
  for (const LayerState &g : modelState(c))
    for (const StateComponent &s : g.components)
      if (s.perToken)
        sum = checkedAdd(sum, checkedMul(s.elements(), g.layers));
  return sum;
}

std::optional<int64_t>
tshape::model::gemmWeights(const std::vector<Kernel> &kernels) {
  // A weight GEMM computes Y = X . W^T with W stored [N, K].
  std::optional<int64_t> n = 0;
  for (const Kernel &k : kernels)
    if (const GemmSpec *g = k.gemm(); g && roleInfo(g->role).weight)
      n = g->overflow ? std::nullopt
                      : checkedAdd(n, checkedProduct({g->batch.value,
                                                      g->n.value, g->k.value}));
  return n;
}

Dim tshape::model::blockDim(const Bindings &env, const DimExpr &e,
                            bool *overflow) {
  Dim d;
  d.expr = e;
  d.value = e.eval(env, overflow).value_or(0);
  return d;
}

GemmSpec tshape::model::blockGemm(const Bindings &env, Role role,
                                  int64_t layer, DimExpr batch, DimExpr m,
                                  DimExpr n, DimExpr k, bool transA,
                                  bool transB) {
  GemmSpec g;
  g.role = role;
  g.layer = layer;
  g.env = env;
  g.batch = blockDim(env, batch, &g.overflow);
  g.m = blockDim(env, m, &g.overflow);
  g.n = blockDim(env, n, &g.overflow);
  g.k = blockDim(env, k, &g.overflow);
  g.transA = transA;
  g.transB = transB;
  return g;
}

void tshape::model::ElementwiseTraffic::rerunBy(RecomputeModules by, double bytes) {
  for (Part &p : recomputed)
    if (p.by == 0 || p.by == by) {
      p.by = by;
      p.bytes += bytes;
      return;
    }
  // Four kinds of part at most (Block.h); a fifth would be a new block's
  // defect, caught by the unit tests' sums.
  recomputed.back().bytes += bytes;
}
