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
