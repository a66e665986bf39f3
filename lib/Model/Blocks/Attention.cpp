//===- Attention.cpp - The attention block: kernels and weights -----------===//
//
// Self-attention with MHA, GQA or MQA heads on one tensor-parallel rank:
// the fused QKV projection (b*s x h).(h x (a/t + 2 g_r) d), the scores and
// values (one fused attention kernel, or its two batched GEMMs), and the
// output projection (b*s x a d/t).(a d/t x h). g_r = max(1, floordiv(g, t)):
// key/value heads are replicated when t exceeds them. A windowed layer's
// attention kernel carries its window W (docs/lowering.md#windows).
//
//===----------------------------------------------------------------------===//

#include "tshape/Model/Blocks/Block.h"
#include "tshape/Model/Transformer.h"

using namespace tshape::model;

namespace {
using E = DimExpr;
E P(Param p) { return E::param(p); }
} // namespace

AttentionSpec tshape::model::attentionKernel(const ModelConfig &c,
                                             const RunShape &run,
                                             int64_t layer) {
  AttentionSpec a;
  a.layer = layer;
  a.env = bindings(c);
  a.causal = c.attention.causal;
  const E d = headDimExpr(a.env);
  const E heads = perRank(Param::Heads);
  // MHA binds no kv_heads (bindings): its key/value heads are its heads.
  const E kv = a.env.has(Param::KvHeads) ? perRank(Param::KvHeads) : heads;
  bool *o = &a.overflow;
  a.batch = blockDim(a.env, P(Param::Microbatch), o);
  a.heads = blockDim(a.env, heads, o);
  a.kvHeads = blockDim(a.env, kv, o);
  a.headDim = blockDim(a.env, d, o);
  a.valueHeadDim = a.headDim;
  a.queryLen = blockDim(a.env, run.queries(), o);
  a.kvLen = blockDim(a.env, run.keys(), o);
  // A windowed layer (sliding or chunked): its queries see at most W keys.
  // A decode step over a longer context reads only the last W of the
  // cache (a chunk's: at most W; the step's worst case), so the window
  // caps the kv length; a prefill's banded scores are AttentionSpec::gemms.
  // With D drafts the 1 + D queries' windows end one key apart: together
  // they read the last W + D keys.
  const int64_t w = c.attention.layerWindow();
  a.window = blockDim(a.env, w > 0 ? P(Param::Window) : E::constant(0), o);
  a.chunked = w > 0 && c.attention.chunked;
  const bool decode = run.phase == Phase::Decode;
  if (w > 0 && decode && a.kvLen.value > w + run.draft)
    a.kvLen = blockDim(a.env,
                       run.draft > 0
                           ? P(Param::Window) + E::constant(run.draft)
                           : P(Param::Window),
                       o);
  // A decode step's attention runs as decode kernels do: the query heads
  // of one kv head grouped, reading the cache in its own element type.
  a.grouped = run.phase == Phase::Decode;
  a.cacheDType = run.kvCache;
  return a;
}

std::vector<Kernel> tshape::model::attentionKernels(const ModelConfig &c,
                                                    const RunShape &run,
                                                    int64_t layer) {
  AttentionSpec a = attentionKernel(c, run, layer);
  const Bindings &env = a.env;
  const E tokens = run.tokens(), hidden = P(Param::Hidden);
  const E d = a.headDim.expr, heads = a.heads.expr, kv = a.kvHeads.expr;
  std::vector<Kernel> out;
  out.push_back(blockGemm(env, Role::Qkv, layer, E(), tokens,
                          (heads + E::constant(2) * kv) * d, hidden, false,
                          true));
  // A decode step's attention is always one kernel over the cache (no
  // serving stack runs it as separate GEMMs).
  if (c.attention.fused || run.phase == Phase::Decode) {
    out.push_back(a);
  } else {
    for (GemmSpec &g : a.gemms())
      out.push_back(std::move(g));
  }
  out.push_back(blockGemm(env, Role::AttnOut, layer, E(), tokens, hidden,
                          heads * a.valueHeadDim.expr, false, true));
  return out;
}

std::optional<int64_t> tshape::model::attentionWeights(const ModelConfig &c) {
  // The projections' weights and the pre-norm's gain (biases not counted).
  return checkedAdd(gemmWeights(attentionKernels(c, RunShape(), 0)),
                    c.hidden);
}

std::vector<StateComponent>
tshape::model::attentionState(const ModelConfig &c) {
  // K and V of the attention kernel's key/value heads on this rank (g_r:
  // replicated when tp exceeds them), each head_dim wide, per key held; a
  // windowed layer holds its last W keys.
  const AttentionSpec a = attentionKernel(c, RunShape(), 0);
  const Bindings env = bindings(c);
  const int64_t g = env.get(Param::KvHeads).value_or(c.attention.heads);
  StateComponent kv;
  kv.name = "K and V";
  kv.factors = {{"", 2},
                {a.kvHeads.value == g ? "kv_heads" : "kv_heads per rank",
                 a.kvHeads.value},
                {"head_dim", a.headDim.value}};
  kv.window = c.attention.layerWindow();
  kv.parameter = Param::KvHeads;
  return {kv};
}

double tshape::model::attentionActivations(const ModelConfig &c,
                                           const ActivationPlan &plan) {
  // Korthikanti et al. 2022, Section 4 and Table 2, 16-bit activations:
  // of a layer's 34 s b h bytes the attention sub-layer keeps 15: unsplit
  // by tp 5 + i (its input 2, the norm's output i as the QKV projection's
  // saved input, the dropout mask 1, and the output projection's input 2:
  // Megatron-LM has it save its original input, which the core keeps
  // anyway, set_save_original_input under FP8 recipes other than delayed),
  // split by tp 8 (Q, K, V and the core's output); sequence parallelism
  // splits the unsplit ones. An unfused core not recomputed keeps the
  // scores and softmax output (2 + 2) and the dropout mask (1) per score:
  // 5 a s^2 b / t. The sequence on one GPU is s / cp (rankSeq).
  const TrainingSizes z = trainingSizes(c);
  const double a = double(getParam(c, Param::Heads));
  const double core =
      !plan.recomputes(RecomputeModule::CoreAttn) && !c.attention.fused
                          ? 5 * a * z.s * z.s * z.b / z.t
                          : 0;
  return z.subLayerBytes(5 + plan.linearInputBytes, 8,
                         plan.sequenceParallel) +
         core;
}

ElementwiseTraffic tshape::model::attentionElementwise(const ModelConfig &c) {
  // An unfused core: the scaled, masked softmax (read, write) and the
  // dropout (read, write, a 1-byte mask) on the a/t heads' (s/cp) x s
  // scores; a fused kernel does them on chip.
  ElementwiseTraffic out;
  if (c.attention.fused)
    return out;
  const TrainingSizes z = trainingSizes(c);
  const double s = double(getParam(c, Param::Seq));
  const double a = double(getParam(c, Param::Heads));
  out.forward = (a / z.t) * z.tokens * s * (4 * z.e + 1);
  out.rerunBy(RecomputeModules(RecomputeModule::CoreAttn), out.forward);
  return out;
}
