//===- AttentionLowering.cpp - Lower tshape.attention ---------------------===//
//
// The attention block's kernels (Blocks/Attention.cpp) found by role: the
// QKV projection, the attention kernel's score and value GEMMs with the
// head split, GQA broadcast and softmax between them, and the output
// projection. A fused attention's two GEMMs carry tshape.fused_attention,
// and its score GEMM the kernel itself (setAttentionProvenance), so the
// analysis prices the kernel the block stated.
//
//===----------------------------------------------------------------------===//

#include "tshape/Conversion/TShapeToLinalg/Lowerer.h"

using namespace mlir;
using namespace tshape;
using namespace tshape::lowering;

Value tshape::lowering::lowerAttention(Lowerer &l, Operation *opaque, Value x2,
                                       int64_t layer,
                                       Lowerer::Backward &branchBackward) {
  auto op = cast<AttentionOp>(opaque);
  ImplicitLocOpBuilder &b = l.builder();
  model::ModelConfig c = l.config(op);
  std::vector<model::Kernel> ks = l.kernels(model::BlockKind::Attention, c, layer);
  // The score and value GEMMs are the attention kernel's (Blocks: one
  // kernel of `ks` when fused or decoding, else its two GEMMs are).
  const model::AttentionSpec attn = l.attentionKernel(c, layer);
  const bool fused = llvm::any_of(ks, [](const model::Kernel &k) {
    return k.attention() != nullptr;
  });
  const std::vector<model::GemmSpec> pv = attn.gemms();
  const model::GemmSpec qkvSpec = *Lowerer::find(ks, model::Role::Qkv),
                        outSpec = *Lowerer::find(ks, model::Role::AttnOut),
                        scoreSpec = pv[0], valueSpec = pv[1];
  const int64_t aR = attn.heads.value, gR = attn.kvHeads.value,
                d = attn.headDim.value, r = aR / gR;

  SmallVector<Lowerer::Backward> steps; // qkv, out
  Value qkv = l.linear(qkvSpec, x2, &steps);
  Value q = l.toHeads(l.slice(qkv, 0, aR * d), aR, d);
  // Over a KV cache (a decode step, a prefill chunk) the step's keys and
  // values follow the cached ones: kv length = cached + q.
  const int64_t cached = attn.kvLen.value - attn.queryLen.value;
  Value kG = l.withCache(l.toHeads(l.slice(qkv, aR * d, gR * d), gR, d),
                         cached);
  Value vG = l.withCache(
      l.toHeads(l.slice(qkv, (aR + gR) * d, gR * d), gR, d), cached);
  // Grouped (decode): the r query heads of a kv head are rows of one
  // product over the cache; else the kv heads are broadcast to them.
  Value k = attn.grouped ? kG : l.broadcastGroups(kG, gR, r);
  Value v = attn.grouped ? vG : l.broadcastGroups(vG, gR, r);
  Value scores = l.gemm(scoreSpec, attn.grouped ? l.groupHeads(q, gR, r) : q,
                        k);
  Value probs = l.softmax(scores);
  Value ctx = l.gemm(valueSpec, probs, v);
  if (attn.grouped)
    ctx = l.ungroupHeads(ctx, gR, r);
  if (fused) {
    for (Value g : {scores, ctx})
      g.getDefiningOp()->setAttr(TShapeDialect::kFusedAttrName,
                                 b.getI64IntegerAttr(layer));
    setAttentionProvenance(scores.getDefiningOp(), attn);
  }
  Value ctx2 = l.fromHeads(ctx, aR, d);
  Value out = l.linear(outSpec, ctx2, &steps);

  branchBackward = [=, &l, qkvBwd = steps[0], outBwd = steps[1]](Value g) {
    Value dCtx2 = outBwd(g);
    Value dO = l.toHeads(dCtx2, aR, d);
    // O = P . V:  dP = dO . V^T,  dV = P^T . dO
    auto valueGrads = model::backwardGemms(valueSpec);
    Value dP = l.gemm(valueGrads[0], dO, v);
    Value dV = l.gemm(valueGrads[1], probs, dO);
    // S = Q . K^T (softmax derivative is elementwise, left out): dS = dP
    auto scoreGrads = model::backwardGemms(scoreSpec);
    Value dQ = l.gemm(scoreGrads[0], dP, k);
    Value dK = l.gemm(scoreGrads[1], dP, q);
    Value dQKV = l.concat({l.fromHeads(dQ, aR, d),
                           l.fromHeads(l.reduceGroups(dK, gR, r), gR, d),
                           l.fromHeads(l.reduceGroups(dV, gR, r), gR, d)});
    return qkvBwd(dQKV);
  };
  return out;
}
