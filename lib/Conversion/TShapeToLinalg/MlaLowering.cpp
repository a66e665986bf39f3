//===- MlaLowering.cpp - Lower tshape.mla ---------------------------------===//
//
// The MLA block's kernels (Blocks/Mla.cpp) found by role. A training or
// prefill step: the query projections (down and up, or one), the
// key/value down projection, whose output is split into the latent and
// the rotary key, the up projection of the latent into each head's key
// (no-rotary part) and value, the attention with each head's key the
// concatenation of its own part and the shared rotary key (broadcast to
// the heads), and the output projection. A decode step: the absorbed
// form, each head's query through W_UK (a batched GEMM over the heads
// with M = the step's tokens), attention of the heads over one latent
// key/value head (the cache of r_kv+d_r per token; values are its first
// r_kv), each head's output through W_UV, then the output projection.
// A prefill chunk over a cache (Blocks/Mla.cpp, vLLM's chunked context):
// the chunk's own keys and values and its causal attention over them; per
// piece of the context (mlaContextPieces), its cached latents (a constant
// like the weights, [b*C_i, r_kv], and the cached rotary keys [b, C_i,
// d_r]) through the same kv_up weight (mla_context_up), the chunk's
// queries over them (not causal), and the outputs merged one by one:
// a linalg.add stands for merge_attn_states, whose LSE rescaling is
// elementwise and left out as the softmax's exponentials are; the last add
// carries the block's merge kernel (tshape.elementwise), which the
// analysis prices as the inference report does.
// The score GEMM carries the attention kernel (setAttentionProvenance) as
// for tshape.attention. The backward of a training step follows the
// attention lowering's (the softmax and rotary derivatives are
// elementwise and left out; the shared rotary key's gradient is summed
// over the heads).
//
//===----------------------------------------------------------------------===//

#include "tshape/Conversion/TShapeToLinalg/Lowerer.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace tshape;
using namespace tshape::lowering;

namespace {
/// x[..., offset : offset + size] along the last dimension.
Value sliceLast(Lowerer &l, Value x, int64_t offset, int64_t size) {
  ImplicitLocOpBuilder &b = l.builder();
  const int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
  SmallVector<OpFoldResult> offs(rank, b.getIndexAttr(0)), sizes,
      strides(rank, b.getIndexAttr(1));
  offs.back() = b.getIndexAttr(offset);
  for (int64_t d = 0; d < rank - 1; ++d)
    sizes.push_back(b.getIndexAttr(l.dim(x, d)));
  sizes.push_back(b.getIndexAttr(size));
  return tensor::ExtractSliceOp::create(b, x, offs, sizes, strides);
}

/// The parts concatenated along the last dimension.
Value concatLast(Lowerer &l, ValueRange parts) {
  const int64_t rank = cast<RankedTensorType>(parts[0].getType()).getRank();
  return tensor::ConcatOp::create(l.builder(), rank - 1, parts);
}

/// [T, a*d] -> [a, T, d]: the heads as the batch of a grouped GEMM.
Value headsFirst(Lowerer &l, Value x2, int64_t heads, int64_t d) {
  Value x3 = l.expand(x2, {l.dim(x2, 0), heads, d}, {{0}, {1, 2}});
  return l.transpose(x3, {1, 0, 2});
}

/// [a, T, d] -> [T, a*d].
Value headsLast(Lowerer &l, Value x3) {
  return l.collapse(l.transpose(x3, {1, 0, 2}), {{0}, {1, 2}});
}

/// [a, b*q, d] <-> [b, a*q, d]: the heads of one sequence as the rows of
/// its product with the latent cache (the decode kernel's grouping).
Value toSequences(Lowerer &l, Value x3, int64_t heads) {
  const int64_t b = l.batchSize(), q = l.queryTokens(), d = l.dim(x3, 2);
  Value x4 = l.expand(x3, {heads, b, q, d}, {{0}, {1, 2}, {3}});
  return l.collapse(l.transpose(x4, {1, 0, 2, 3}), {{0}, {1, 2}, {3}});
}
Value toHeadsFirst(Lowerer &l, Value x3, int64_t heads) {
  const int64_t b = l.batchSize(), q = l.queryTokens(), d = l.dim(x3, 2);
  Value x4 = l.expand(x3, {b, heads, q, d}, {{0}, {1, 2}, {3}});
  return l.collapse(l.transpose(x4, {1, 0, 2, 3}), {{0}, {1, 2}, {3}});
}

/// [b*C, a*d] -> [b*a, C, d]: the heads of `tokens` tokens per sequence
/// (the cached context's, not the chunk's).
Value contextHeads(Lowerer &l, Value x2, int64_t tokens, int64_t heads,
                   int64_t d) {
  Value x4 = l.expand(x2, {l.batchSize(), tokens, heads, d}, {{0, 1}, {2, 3}});
  return l.collapse(l.transpose(x4, {0, 2, 1, 3}), {{0, 1}, {2}, {3}});
}

} // namespace

Value tshape::lowering::lowerMla(Lowerer &l, Operation *opaque, Value x2,
                                 int64_t layer,
                                 Lowerer::Backward &branchBackward) {
  auto op = cast<MlaOp>(opaque);
  model::ModelConfig c = l.config(op);
  std::vector<model::Kernel> ks = l.kernels(model::BlockKind::Mla, c, layer);
  const model::AttentionSpec attn =
      model::mlaAttentionKernel(c, l.runShapeOf(), layer);
  using model::Role;
  const model::GemmSpec *qDown = Lowerer::find(ks, Role::MlaQDown),
                        *qUp = Lowerer::find(ks, Role::MlaQUp),
                        *qOne = Lowerer::find(ks, Role::MlaQ),
                        *kvDown = Lowerer::find(ks, Role::MlaKvDown),
                        *kvUp = Lowerer::find(ks, Role::MlaKvUp),
                        *qAbsorb = Lowerer::find(ks, Role::MlaQAbsorb),
                        *oAbsorb = Lowerer::find(ks, Role::MlaOutAbsorb),
                        *ctxUp = Lowerer::find(ks, Role::MlaContextUp),
                        *out = Lowerer::find(ks, Role::AttnOut);
  const bool fused = llvm::any_of(
      ks, [](const model::Kernel &k) { return k.attention() != nullptr; });
  const std::vector<model::GemmSpec> pv = attn.gemms();
  const model::GemmSpec scoreSpec = pv[0], valueSpec = pv[1];
  const int64_t aR = attn.heads.value, dn = op.getQkNopeHeadDim(),
                dr = op.getQkRopeHeadDim(), dv = op.getVHeadDim(),
                rkv = op.getKvLoraRank();
  const int64_t cached = attn.kvLen.value - attn.queryLen.value;

  // Queries and the latent, as both forms start.
  SmallVector<Lowerer::Backward> qSteps, kvSteps, outStep;
  Value q2 = qDown ? l.linear(*qUp, l.linear(*qDown, x2, &qSteps), &qSteps)
                   : l.linear(*qOne, x2, &qSteps);
  Value kvA = l.linear(*kvDown, x2, &kvSteps);

  if (qAbsorb) {
    // Decode, absorbed: queries in the latent space, one key/value head.
    Value qh = headsFirst(l, q2, aR, dn + dr);
    Value qLatent = l.linear(*qAbsorb, sliceLast(l, qh, 0, dn), nullptr,
                             l.weight({aR, dn, rkv}));
    Value qg = toSequences(l, concatLast(l, {qLatent, sliceLast(l, qh, dn, dr)}),
                           aR);
    Value key = l.withCache(l.to3D(kvA), cached);
    Value value = sliceLast(l, key, 0, rkv);
    Value scores = l.gemm(scoreSpec, qg, key);
    Value ctx = l.gemm(valueSpec, l.softmax(scores), value);
    if (fused)
      l.markFusedAttention({scores, ctx}, attn, layer);
    Value o = l.linear(*oAbsorb, toHeadsFirst(l, ctx, aR), nullptr,
                       l.weight({aR, dv, rkv}));
    return l.linear(*out, headsLast(l, o), nullptr);
  }

  // Training and prefill: each head's key and value from the latent.
  Value wKvUp = l.weight({kvUp->n.value, kvUp->k.value});
  Value kv = l.linear(*kvUp, sliceLast(l, kvA, 0, rkv), &kvSteps, wKvUp);
  Value kvh = l.toHeads(kv, aR, dn + dv); // [b*a, s, dn+dv]
  Value kRope = l.broadcastGroups(l.toHeads(sliceLast(l, kvA, rkv, dr), 1, dr),
                                  1, aR);
  Value q = l.toHeads(q2, aR, dn + dr);
  Value k = l.withCache(concatLast(l, {sliceLast(l, kvh, 0, dn), kRope}),
                        cached);
  Value v = l.withCache(sliceLast(l, kvh, dn, dv), cached);
  Value scores = l.gemm(scoreSpec, q, k);
  Value probs = l.softmax(scores);
  Value ctx = l.gemm(valueSpec, probs, v);
  if (fused)
    l.markFusedAttention({scores, ctx}, attn, layer);
  // The chunk's queries over each piece of the up-projected context
  // (Blocks/Mla.cpp: one GEMM and one attention per piece, as vLLM
  // launches them), each merged into ctx.
  const model::RunShape run = l.runShapeOf();
  const int64_t pieces = ctxUp ? model::mlaContextPieces(c, run) : 0;
  std::vector<const model::GemmSpec *> ups;
  for (const model::Kernel &k : ks)
    if (const model::GemmSpec *g = k.gemm();
        g && g->role == Role::MlaContextUp)
      ups.push_back(g);
  for (int64_t i = 0; i < pieces && i < int64_t(ups.size()); ++i) {
    const model::AttentionSpec ctxAttn =
        model::mlaContextAttentionKernel(c, run, layer, i);
    const int64_t ctxLen = ctxAttn.kvLen.value;
    const std::vector<model::GemmSpec> cpv = ctxAttn.gemms();
    Value latents = l.weight({l.batchSize() * ctxLen, rkv});
    Value ctxKv = contextHeads(l, l.linear(*ups[i], latents, nullptr, wKvUp),
                               ctxLen, aR, dn + dv);
    Value ctxRope =
        l.broadcastGroups(l.weight({l.batchSize(), ctxLen, dr}), 1, aR);
    Value kC = concatLast(l, {sliceLast(l, ctxKv, 0, dn), ctxRope});
    Value sC = l.gemm(cpv[0], q, kC);
    Value oC = l.gemm(cpv[1], l.softmax(sC), sliceLast(l, ctxKv, dn, dv));
    if (fused)
      l.markFusedAttention({sC, oC}, ctxAttn, layer);
    ctx = l.add(ctx, oC);
  }
  // The merges, one kernel of `pieces` launches in the block's list, ride
  // on the last add, so the analysis of this IR prices them as the
  // inference report does (predictKernel on the block's kernel).
  for (const model::Kernel &k : ks)
    if (const model::ElementwiseSpec *m = k.elementwise();
        m && m->role == Role::MlaMerge && pieces > 0)
      setElementwiseProvenance(ctx.getDefiningOp(), *m);
  Value y = l.linear(*out, l.fromHeads(ctx, aR, dv), &outStep);

  const bool hasQLatent = qDown != nullptr;
  branchBackward = [=, &l](Value g) {
    // In reverse of the forward: out, values, scores, kv_up, kv_down, then
    // the query projections.
    Value dO = l.toHeads(outStep[0](g), aR, dv);
    auto valueGrads = model::backwardGemms(valueSpec);
    Value dP = l.gemm(valueGrads[0], dO, v);
    Value dV = l.gemm(valueGrads[1], probs, dO);
    auto scoreGrads = model::backwardGemms(scoreSpec);
    Value dQ = l.gemm(scoreGrads[0], dP, k);
    Value dK = l.gemm(scoreGrads[1], dP, q);
    if (fused) {
      model::AttentionSpec bwd = attn;
      bwd.backward = true;
      l.markFusedAttention({dP, dV, dQ, dK}, bwd, layer);
    }
    Value dKv = l.fromHeads(concatLast(l, {sliceLast(l, dK, 0, dn), dV}), aR,
                            dn + dv);
    Value dLatent = kvSteps[1](dKv);
    Value dRope = l.fromHeads(
        l.reduceGroups(sliceLast(l, dK, dn, dr), 1, aR), 1, dr);
    Value dX = kvSteps[0](concatLast(l, {dLatent, dRope}));
    Value dQ2 = l.fromHeads(dQ, aR, dn + dr);
    Value dXq = hasQLatent ? qSteps[0](qSteps[1](dQ2)) : qSteps[0](dQ2);
    return l.add(dX, dXq);
  };
  return y;
}
