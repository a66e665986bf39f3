//===- MoeLowering.cpp - Lower tshape.moe ---------------------------------===//
//
// The MoE block's kernels (Blocks/Moe.cpp) found by role: the router, the
// routed experts as grouped GEMMs (linalg.batch_matmul over the rank's E/ep
// experts, each on its M = ceil(b*s*k/(E/ep)) tokens), and the shared
// experts as a dense gated MLP. Balanced routing is represented by its
// data movement: the dispatch gathers token rows into [E/ep, M, h]
// (expert g's row m is token (g*M + m) mod b*s), and the combine sums each
// token's k expert outputs (row (t*k + r) mod (E/ep*M) for r < k). The
// all-to-all of ep > 1 has no linalg form; on one rank these gathers stand
// for it. The backward of a training step reuses the gathers and the
// GEMMs' gradients (activation and gating derivatives are elementwise and
// left out, as for the MLP).
//
//===----------------------------------------------------------------------===//

#include "tshape/Conversion/TShapeToLinalg/Lowerer.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace tshape;
using namespace tshape::lowering;

namespace {
/// out[i..., j] = src[row(i...), j] for `src` [R, h]: a linalg.generic
/// over `shape` (the last dimension h) that reads the row `row` computes
/// from the loop indices, with `reduceOver` > 0 summing over an extra
/// innermost loop of that many steps (the combine).
Value gatherRows(Lowerer &l, Value src, ArrayRef<int64_t> shape,
                 int64_t reduceOver,
                 function_ref<Value(ImplicitLocOpBuilder &, ValueRange)> row) {
  ImplicitLocOpBuilder &b = l.builder();
  const unsigned rank = shape.size(), loops = rank + (reduceOver ? 1 : 0);
  Value init = reduceOver
                   ? l.zeros(shape)
                   : Value(tensor::EmptyOp::create(
                         b, shape, l.type(shape).getElementType()));
  SmallVector<AffineMap> maps;
  SmallVector<Value> ins;
  if (reduceOver) {
    // An operand of the reduction's extent, so the loop has a range.
    ins.push_back(tensor::EmptyOp::create(b, ArrayRef<int64_t>{reduceOver},
                                          b.getI8Type()));
    maps.push_back(AffineMap::get(loops, 0, b.getAffineDimExpr(rank),
                                  b.getContext()));
  }
  maps.push_back(AffineMap::getMultiDimIdentityMap(loops, b.getContext())
                     .getMajorSubMap(rank));
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  if (reduceOver)
    iters.push_back(utils::IteratorType::reduction);
  return linalg::GenericOp::create(
             b, TypeRange{init.getType()}, ins, ValueRange{init}, maps, iters,
             [&](OpBuilder &ob, Location loc, ValueRange args) {
               ImplicitLocOpBuilder nb(loc, ob);
               SmallVector<Value> idx;
               for (unsigned d = 0; d < loops; ++d)
                 idx.push_back(linalg::IndexOp::create(nb, d));
               Value r = row(nb, idx);
               Value v = tensor::ExtractOp::create(
                   nb, src, ValueRange{r, idx[rank - 1]});
               if (reduceOver)
                 v = arith::AddFOp::create(nb, v, args.back());
               linalg::YieldOp::create(nb, v);
             })
      .getResult(0);
}

Value index(ImplicitLocOpBuilder &b, int64_t v) {
  return arith::ConstantIndexOp::create(b, v);
}

/// x [T, h] -> [G, M, h]: expert g's row m is token (g*M + m) mod T.
Value dispatch(Lowerer &l, Value x2, int64_t groups, int64_t m) {
  const int64_t tokens = l.dim(x2, 0), h = l.dim(x2, 1);
  return gatherRows(l, x2, {groups, m, h}, 0,
                    [&](ImplicitLocOpBuilder &b, ValueRange i) -> Value {
                      Value flat = arith::AddIOp::create(
                          b, arith::MulIOp::create(b, i[0], index(b, m)),
                          i[1]);
                      return arith::RemUIOp::create(b, flat,
                                                    index(b, tokens));
                    });
}

/// [G, M, h] -> [T, h]: token t sums rows (t*k + r) mod (G*M), r < k.
Value combine(Lowerer &l, Value y3, int64_t tokens, int64_t topk) {
  const int64_t groups = l.dim(y3, 0), m = l.dim(y3, 1), h = l.dim(y3, 2);
  Value flat = l.collapse(y3, {{0, 1}, {2}});
  return gatherRows(l, flat, {tokens, h}, topk,
                    [&](ImplicitLocOpBuilder &b, ValueRange i) -> Value {
                      Value row = arith::AddIOp::create(
                          b, arith::MulIOp::create(b, i[0], index(b, topk)),
                          i[2]);
                      return arith::RemUIOp::create(b, row,
                                                    index(b, groups * m));
                    });
}

/// A gated (or plain) MLP of the GEMMs gate (or null), up and down on x;
/// pushes (gate, up, down) backward steps to `steps` in that order. `w3`
/// gives grouped weights [G, N, K].
Value expertMlp(Lowerer &l, const model::GemmSpec *gateUp,
                const model::GemmSpec *gate, const model::GemmSpec &up,
                const model::GemmSpec &down, Value x, tshape::Activation act,
                SmallVectorImpl<Lowerer::Backward> &steps, bool grouped) {
  auto w = [&](const model::GemmSpec &g) {
    return grouped ? l.weight({g.batch.value, g.n.value, g.k.value})
                   : l.weight({g.n.value, g.k.value});
  };
  Value hidden;
  if (gateUp) {
    Value both = l.linear(*gateUp, x, &steps, w(*gateUp));
    const int64_t f = down.k.value;
    auto half = [&](int64_t offset) -> Value {
      const int64_t rank = cast<RankedTensorType>(both.getType()).getRank();
      ImplicitLocOpBuilder &b = l.builder();
      SmallVector<OpFoldResult> offs(rank, b.getIndexAttr(0)),
          sizes, strides(rank, b.getIndexAttr(1));
      offs.back() = b.getIndexAttr(offset);
      for (int64_t d = 0; d < rank - 1; ++d)
        sizes.push_back(b.getIndexAttr(l.dim(both, d)));
      sizes.push_back(b.getIndexAttr(f));
      return tensor::ExtractSliceOp::create(b, both, offs, sizes, strides);
    };
    hidden = l.mul(l.activation(half(0), act), half(f));
  } else if (gate) {
    Value g = l.linear(*gate, x, &steps, w(*gate));
    Value u = l.linear(up, x, &steps, w(up));
    hidden = l.mul(l.activation(g, act), u);
  } else {
    hidden = l.activation(l.linear(up, x, &steps, w(up)), act);
  }
  return l.linear(down, hidden, &steps, w(down));
}

/// The backward of expertMlp's steps: dY -> dX.
Value expertMlpBackward(Lowerer &l, ArrayRef<Lowerer::Backward> steps,
                        bool fusedGate, bool gated, Value dy) {
  Value dH = steps.back()(dy);
  if (fusedGate)
    dH = tensor::ConcatOp::create(l.builder(),
                                  cast<RankedTensorType>(dH.getType())
                                          .getRank() - 1,
                                  ValueRange{dH, dH});
  Value dX = steps[gated && !fusedGate ? 1 : 0](dH);
  if (gated && !fusedGate)
    dX = l.add(dX, steps[0](dH));
  return dX;
}
} // namespace

Value tshape::lowering::lowerMoe(Lowerer &l, Operation *opaque, Value x2,
                                 int64_t layer,
                                 Lowerer::Backward &branchBackward) {
  auto op = cast<MoEOp>(opaque);
  model::ModelConfig c = l.config(op);
  c.mlp.fusedGateUp = l.fuseGatedMlp();
  std::vector<model::Kernel> ks = l.kernels(model::BlockKind::Moe, c, layer);
  using model::Role;
  const model::GemmSpec *router = Lowerer::find(ks, Role::MoeRouter),
                        *gateUp = Lowerer::find(ks, Role::MoeExpertGateUp),
                        *gate = Lowerer::find(ks, Role::MoeExpertGate),
                        *up = Lowerer::find(ks, Role::MoeExpertUp),
                        *down = Lowerer::find(ks, Role::MoeExpertDown),
                        *sGate = Lowerer::find(ks, Role::MoeSharedGate),
                        *sGateUp = Lowerer::find(ks, Role::MoeSharedGateUp),
                        *sUp = Lowerer::find(ks, Role::MoeSharedUp),
                        *sDown = Lowerer::find(ks, Role::MoeSharedDown);
  const tshape::Activation act = op.getActivation();
  const int64_t tokens = l.dim(x2, 0), topk = op.getTopk();
  const model::GemmSpec &first = gateUp ? *gateUp : gate ? *gate : *up;
  const int64_t groups = first.batch.value, m = first.m.value;

  SmallVector<Lowerer::Backward> routerStep, expertSteps, sharedSteps;
  // The router's logits and their softmax: the routing weights.
  Value probs = l.softmax(l.linear(*router, x2, &routerStep));
  Value xe = dispatch(l, x2, groups, m);
  Value ye = expertMlp(l, gateUp, gate, up ? *up : *gateUp, *down, xe, act,
                       expertSteps, /*grouped=*/true);
  Value out = combine(l, ye, tokens, topk);
  if (sUp || sGateUp)
    out = l.add(out, expertMlp(l, sGateUp, sGate, sUp ? *sUp : *sGateUp,
                               *sDown, x2, act, sharedSteps,
                               /*grouped=*/false));
  const bool fused = gateUp != nullptr, gated = gate || gateUp,
             sharedFused = sGateUp != nullptr,
             sharedGated = sGate || sGateUp,
             hasShared = sUp || sGateUp;
  branchBackward = [=, &l](Value g) {
    // In reverse of the forward: shared experts, routed experts, router.
    Value dX;
    if (hasShared)
      dX = expertMlpBackward(l, sharedSteps, sharedFused, sharedGated, g);
    Value dYe = dispatch(l, g, groups, m);
    Value dXe = expertMlpBackward(l, expertSteps, fused, gated, dYe);
    Value dRouted = combine(l, dXe, tokens, topk);
    dX = dX ? l.add(dX, dRouted) : dRouted;
    return l.add(dX, routerStep.front()(probs));
  };
  return out;
}
