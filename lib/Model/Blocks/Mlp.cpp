//===- Mlp.cpp - The MLP block: kernels and weights -----------------------===//
//
// A feed-forward sub-layer on one tensor-parallel rank: the up projection
// (b*s x h).(h x f/t), with a gated MLP also the gate (or both as one
// gate_up GEMM of width 2f/t in the fused layout), and the down projection
// (b*s x f/t).(f/t x h).
//
//===----------------------------------------------------------------------===//

#include "tshape/Model/Blocks/Block.h"
#include "tshape/Model/Transformer.h"

using namespace tshape::model;

std::vector<Kernel> tshape::model::mlpKernels(const ModelConfig &c,
                                              const RunShape &run,
                                              int64_t layer) {
  using E = DimExpr;
  const Bindings env = bindings(c);
  const E tokens = run.tokens(), hidden = E::param(Param::Hidden);
  const E f = perRank(Param::Ffn);
  std::vector<Kernel> out;
  auto up = [&](Role r, E width, bool shared = false) {
    GemmSpec g =
        blockGemm(env, r, layer, E(), tokens, width, hidden, false, true);
    g.inputShared = shared; // the gate's x
    out.push_back(std::move(g));
  };
  if (c.mlp.gated && c.mlp.fusedGateUp) {
    up(Role::MlpGateUp, E::constant(2) * f);
  } else {
    if (c.mlp.gated)
      up(Role::MlpGate, f);
    up(Role::MlpUp, f, c.mlp.gated);
  }
  out.push_back(
      blockGemm(env, Role::MlpDown, layer, E(), tokens, hidden, f, false, true));
  return out;
}

std::optional<int64_t> tshape::model::mlpWeights(const ModelConfig &c) {
  // The projections' weights and the pre-norm's gain (biases not counted).
  return checkedAdd(gemmWeights(mlpKernels(c, RunShape(), 0)), c.hidden);
}

double tshape::model::mlpActivations(const ModelConfig &c,
                                     const ActivationPlan &plan) {
  // Korthikanti et al. 2022: the MLP sub-layer's 19 of a layer's 34 s b h:
  // unsplit by tp 1 + i (the norm's output, the first GEMM's saved input,
  // and the dropout mask 1), split by tp 8 + 4i (the 4h products: the
  // first GEMM's output 8 and the activation's output, the second GEMM's
  // saved input, 4i); sequence parallelism splits the unsplit ones.
  // The mlp module (normal checkpointing of the whole MLP, its norm fused
  // into the first linear layer) keeps the sub-layer's input 2 and the
  // dropout mask 1.
  if (plan.recomputes(RecomputeModule::Mlp))
    return trainingSizes(c).subLayerBytes(3, 0, plan.sequenceParallel);
  const double in = plan.linearInputBytes;
  return trainingSizes(c).subLayerBytes(1 + in, 8 + 4 * in,
                                        plan.sequenceParallel);
}

ElementwiseTraffic tshape::model::mlpElementwise(const ModelConfig &c) {
  // The activation: read the up (and gate) output, write the input of the
  // down projection, f/t elements per token.
  const TrainingSizes z = trainingSizes(c);
  const double f = double(getParam(c, Param::Ffn));
  ElementwiseTraffic out;
  out.forward = z.tokens * (f / z.t) * z.e * (c.mlp.gated ? 3 : 2);
  out.rerunBy(RecomputeModules(RecomputeModule::Mlp), out.forward);
  return out;
}

std::optional<RuleViolation> tshape::model::mlpCheck(const ModelConfig &c) {
  return checkPositive(paramName(Param::Ffn), c.mlp.inner);
}
