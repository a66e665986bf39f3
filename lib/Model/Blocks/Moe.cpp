//===- Moe.cpp - The mixture-of-experts block: kernels and weights --------===//
//
// A mixture-of-experts feed-forward sub-layer on one rank (Megatron-LM's
// MoE layer with the all-to-all token dispatcher and grouped GEMMs):
//  - the router, (b*s x h).(h x E), replicated on every rank;
//  - with ep > 1, the all-to-all that sends each token's k copies to the
//    ranks holding its experts, and the one that brings them back;
//  - the routed experts, E/ep on this rank, as grouped GEMMs over them:
//    gate and up (b*s*k/(E/ep) tokens each, the ceiling: the busiest
//    expert sets the time) x (h x f_e/t), then down; under the capacity
//    option the busiest expert's tokens are `capacity` percent of that;
//  - the shared experts, one dense gated MLP of inner n_s x f_s/t that
//    every token runs.
// Tokens per expert: each of the ep ranks routes its b*s tokens k times,
// spread evenly over E experts, so an expert receives ep*b*s*k/E =
// b*s*k/(E/ep) tokens. Mixtral-8x7B (b = 4, s = 4096, k = 2, E = 8): 4096.
//
//===----------------------------------------------------------------------===//

#include "tshape/Model/Blocks/Block.h"
#include "tshape/Model/Transformer.h"

using namespace tshape::model;

DimExpr tshape::model::tokensPerExpert(const ModelConfig &c,
                                       const RunShape &run) {
  using E = DimExpr;
  E routed = run.tokens() * E::param(Param::TopK);
  E experts = perRank(Param::Experts);
  // Expert tensor parallelism other than tp (Megatron-Core's MoE layer,
  // token_dispatcher.py): a rank routes its b s/tp tokens (sequence
  // parallel), the all-to-all over ep brings each expert its share, and
  // the expert tensor-parallel group gathers etp ranks' worth:
  // etp ep b s k / (tp E) tokens per expert (at etp = tp: ep b s k / E).
  if (c.parallel.expertTpOwn()) {
    routed = routed * E::constant(c.parallel.expertTp());
    experts = experts * E::param(Param::Tp);
  }
  if (c.moe.capacity > 0 && c.moe.capacity != 100)
    return E::ceilDiv(routed * E::param(Param::Capacity),
                      experts * E::constant(100));
  return E::ceilDiv(routed, experts);
}

std::vector<Kernel> tshape::model::moeKernels(const ModelConfig &c,
                                              const RunShape &run,
                                              int64_t layer) {
  using E = DimExpr;
  const Bindings env = bindings(c);
  const E tokens = run.tokens(), hidden = E::param(Param::Hidden);
  std::vector<Kernel> out;
  out.push_back(blockGemm(env, Role::MoeRouter, layer, E(), tokens,
                          E::param(Param::Experts), hidden, false, true));
  // The all-to-all of the routed tokens' k copies of h elements.
  const int64_t ep = getParam(c, Param::Ep);
  auto allToAll = [&](Role role) {
    CollectiveSpec a;
    a.role = role;
    a.layer = layer;
    a.op = CollectiveOp::AllToAll;
    a.env = env;
    // At etp other than tp a rank sends its b s/tp tokens' copies, and the
    // expert tensor-parallel group gathers etp of them: etp/tp of b s k h.
    E sent = tokens * E::param(Param::TopK) * hidden *
             E::constant(dtypeBytes(c.dtype));
    if (c.parallel.expertTpOwn())
      sent = E::ceilDiv(sent * E::constant(c.parallel.expertTp()),
                        E::param(Param::Tp));
    a.bytes = blockDim(env, sent, &a.overflow);
    a.ranks = blockDim(env, E::param(Param::Ep), &a.overflow);
    out.push_back(a);
  };
  if (ep > 1)
    allToAll(Role::MoeDispatch);
  const E groups = perRank(Param::Experts), m = tokensPerExpert(c, run);
  // The routed experts' width on a rank: moe_ffn / tp, or / etp when the
  // expert tensor parallelism is its own (Megatron-Core's expt_tp group).
  const E f = c.parallel.expertTpOwn()
                  ? E::param(Param::MoeFfn) /
                        E::constant(c.parallel.expertTp())
                  : perRank(Param::MoeFfn);
  // One expert GEMM of the routed (grouped over `batch`, `rows` tokens
  // each) or the shared experts; a gated pair's up projection reads its
  // gate's x (inputShared).
  auto gemm = [&](E batch, E rows, Role r, E n, E k, bool shared) {
    GemmSpec g = blockGemm(env, r, layer, batch, rows, n, k, false, true);
    g.inputShared = shared;
    out.push_back(std::move(g));
  };
  // Gate and up of width `w`: one GEMM of width 2w in the fused layout
  // (fuse-gated-mlp: fused_moe's w13, Megatron-LM's linear_fc1 for the
  // routed and the shared experts alike), else two; then down.
  auto experts = [&](E batch, E rows, Role gateUp, Role gate, Role up,
                     Role down, E w) {
    if (c.moe.gated && c.mlp.fusedGateUp) {
      gemm(batch, rows, gateUp, E::constant(2) * w, hidden, false);
    } else {
      if (c.moe.gated)
        gemm(batch, rows, gate, w, hidden, false);
      gemm(batch, rows, up, w, hidden, c.moe.gated);
    }
    gemm(batch, rows, down, hidden, w, false);
  };
  experts(groups, m, Role::MoeExpertGateUp, Role::MoeExpertGate,
          Role::MoeExpertUp, Role::MoeExpertDown, f);
  if (ep > 1)
    allToAll(Role::MoeCombine);
  if (c.moe.sharedExperts > 0 && c.moe.sharedInner > 0)
    experts(E(), tokens, Role::MoeSharedGateUp, Role::MoeSharedGate,
            Role::MoeSharedUp, Role::MoeSharedDown,
            E::param(Param::SharedExperts) * perRank(Param::SharedFfn));
  return out;
}

std::optional<int64_t> tshape::model::moeWeights(const ModelConfig &c) {
  // The router, the experts on this rank (a grouped GEMM's weights are
  // batch x N x K), the shared experts and the pre-norm's gain.
  return checkedAdd(gemmWeights(moeKernels(c, RunShape(), 0)), c.hidden);
}

std::optional<int64_t> tshape::model::moeActiveWeights(const ModelConfig &c) {
  // What one token runs through: k of the E routed experts' weights.
  ModelConfig whole = c;
  whole.parallel = Parallelism();
  std::optional<int64_t> all = moeWeights(whole);
  std::optional<int64_t> routed = 0;
  for (const Kernel &k : moeKernels(whole, RunShape(), 0))
    if (const GemmSpec *g = k.gemm();
        g && g->batch.expr.mentions(Param::Experts))
      routed = checkedAdd(routed, checkedMul(g->n.value, g->k.value));
  // all - E x per-expert + k x per-expert.
  return checkedAdd(checkedAdd(all, checkedMul(routed, -c.moe.experts)),
                    checkedMul(routed, c.moe.topk));
}

double tshape::model::moeActivations(const ModelConfig &c,
                                     const ActivationPlan &plan) {
  // The sub-layer's input (2 s b h) and dropout mask (s b h), and the
  // pre-MLP norm's output (2 s b h: the router's saved input, a plain
  // linear layer in the model's type; the norm is a module of its own in
  // an MoE layer, gpt_layer_specs.py:313), split by sequence parallelism
  // as the dense MLP's are; the router's logits in fp32 (4 s b E, for the
  // softmax's and top-k's backward); for each of the s b k routed copies
  // (every rank routes its s b tokens k times, and its E/ep experts
  // receive as many copies: tokens x k / E per expert): the permuted input
  // (2h), the gate and up outputs and the activation's output (3 x 2 f_e /
  // t) and the expert's output before the weighted sum (2h); and the
  // shared experts' gate and up outputs and activation output on every
  // token (3 x 2 f_s / t, f_s = shared x shared_ffn, 2 x 2 f_s / t when not
  // gated), in 16-bit activations. The permuted input and the activations'
  // outputs are the grouped and shared GEMMs' inputs, saved at the linear
  // input's bytes per element in FP8 training (TE's GroupedLinear).
  //
  // Selective recompute modules (Megatron Core, transformer_config.py:560):
  // layernorm discards the norm's output; moe_act the experts' activation
  // output; shared_experts the shared experts' (normal checkpointing from
  // the norm's output); moe the whole layer's, which keeps its input (the
  // norm's output) alone.
  const TrainingSizes z = trainingSizes(c);
  const double e = double(c.moe.experts), k = double(c.moe.topk);
  const double f = double(c.moe.inner);
  const double fs = double(c.moe.sharedExperts * c.moe.sharedInner);
  const double copies = z.tokens * k;
  const double in = plan.linearInputBytes;
  const double normOutput =
      plan.recomputes(RecomputeModule::LayerNorm) ? 0 : 2;
  const double kept =
      z.subLayerBytes(3 + normOutput, 0, plan.sequenceParallel);
  if (plan.recomputes(RecomputeModule::Moe))
    return kept;
  const double act = plan.recomputes(RecomputeModule::MoeAct) ? 0 : in;
  const double shared =
      plan.recomputes(RecomputeModule::SharedExperts)
          ? 0
          : z.tokens * ((c.moe.gated ? 4 : 2) + in) * fs / z.t;
  return kept + 4 * z.tokens * e +
         copies * (in * z.h + (4 + act) * f / z.t + 2 * z.h) + shared;
}

ElementwiseTraffic tshape::model::moeElementwise(const ModelConfig &c) {
  // The experts' activations on each token's k copies, the shared
  // experts' on every token, and the permutation (read and write the k
  // copies of h, both ways).
  const TrainingSizes z = trainingSizes(c);
  const double fe = double(getParam(c, Param::MoeFfn)),
               fs = double(getParam(c, Param::SharedExperts) *
                           getParam(c, Param::SharedFfn)),
               k = double(getParam(c, Param::TopK));
  const double act = c.moe.gated ? 3 : 2;
  ElementwiseTraffic out;
  const double routed = z.tokens * z.e * k * fe / z.t * act,
               shared = z.tokens * z.e * fs / z.t * act,
               permute = z.tokens * z.e * 4 * k * z.h;
  out.forward = routed + shared + permute;
  // What each recompute module reruns: the experts' activation (moe or
  // moe_act), the shared experts' (moe or shared_experts), the
  // permutation (moe); the pre-MLP norm is a module of its own
  // (layernorm).
  const RecomputeModules moe = RecomputeModules(RecomputeModule::Moe);
  out.rerunBy(moe | RecomputeModules(RecomputeModule::MoeAct), routed);
  out.rerunBy(moe | RecomputeModules(RecomputeModule::SharedExperts), shared);
  out.rerunBy(moe, permute);
  out.separateNorms = 1;
  return out;
}

std::optional<RuleViolation> tshape::model::moeCheck(const ModelConfig &c) {
  if (c.moe.experts > 0 && c.moe.topk > 0 && c.moe.inner > 0)
    return std::nullopt;
  return RuleViolation{"E3", "a moe block needs experts, topk and moe_ffn, "
                             "got " +
                                 std::to_string(c.moe.experts) + ", " +
                                 std::to_string(c.moe.topk) + " and " +
                                 std::to_string(c.moe.inner) +
                                 "; give all three"};
}

ModelConfig tshape::model::moeLayerConfig(int64_t tokens, int64_t hidden,
                                          int64_t experts, int64_t topk,
                                          int64_t inner, int64_t tp) {
  ModelConfig c;
  c.microbatch = 1;
  c.seq = tokens;
  c.hidden = hidden;
  c.vocab = tp;
  c.attention.heads = c.attention.kvHeads = 1;
  c.layerBlocks = {BlockKind::Moe};
  c.moe.experts = experts;
  c.moe.topk = topk;
  c.moe.inner = inner;
  c.parallel.tp = tp;
  return c;
}
