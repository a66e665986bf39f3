//===- MlpLowering.cpp - Lower tshape.mlp ---------------------------------===//
//
// The MLP block's kernels (Blocks/Mlp.cpp) found by role: up (and gate, or
// one gate_up GEMM with fuse-gated-mlp), the activation and gating, and
// the down projection.
//
//===----------------------------------------------------------------------===//

#include "tshape/Conversion/TShapeToLinalg/Lowerer.h"

using namespace mlir;
using namespace tshape;
using namespace tshape::lowering;

Value tshape::lowering::lowerMlp(Lowerer &l, Operation *opaque, Value x2,
                                 int64_t layer,
                                 Lowerer::Backward &branchBackward) {
  auto op = cast<MLPOp>(opaque);
  model::ModelConfig c = l.config(op);
  c.mlp.fusedGateUp = l.fuseGatedMlp();
  std::vector<model::Kernel> ks = l.kernels(model::BlockKind::Mlp, c, layer);
  const model::GemmSpec *gateUp = Lowerer::find(ks, model::Role::MlpGateUp),
                        *gate = Lowerer::find(ks, model::Role::MlpGate),
                        *up = Lowerer::find(ks, model::Role::MlpUp),
                        *down = Lowerer::find(ks, model::Role::MlpDown);
  const int64_t f = down->k.value; // the down projection's K: f/t
  tshape::Activation act = op.getActivation();
  SmallVector<Lowerer::Backward> steps;
  Value hidden;
  if (gateUp) {
    Value both = l.linear(*gateUp, x2, &steps);
    // Sequenced so the IR order is deterministic: gate half, then up half.
    Value g = l.activation(l.slice(both, 0, f), act);
    hidden = l.mul(g, l.slice(both, f, f));
  } else if (gate) {
    Value g = l.linear(*gate, x2, &steps);
    Value u = l.linear(*up, x2, &steps);
    hidden = l.mul(l.activation(g, act), u);
  } else {
    hidden = l.activation(l.linear(*up, x2, &steps), act);
  }
  Value out = l.linear(*down, hidden, &steps);
  // steps: (gate_up | gate, up | up), down.
  Lowerer::Backward downBwd = steps.back();
  Lowerer::Backward upBwd = gate ? steps[1] : steps[0];
  Lowerer::Backward gateBwd = gate ? steps[0] : Lowerer::Backward();
  const bool fusedGate = gateUp != nullptr;
  branchBackward = [=, &l](Value g) {
    // Activation and gating derivatives are elementwise and left out; the
    // GEMMs see the gradient of the hidden activation directly.
    Value dH = downBwd(g);
    if (fusedGate)
      dH = l.concat({dH, dH});
    Value dX = upBwd(dH);
    if (gateBwd)
      dX = l.add(dX, gateBwd(dH));
    return dX;
  };
  return out;
}
