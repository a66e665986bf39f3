//===- AttentionLowering.cpp - Lower tshape.attention ---------------------===//
//
// The attention block's kernels (Blocks/Attention.cpp) found by role: the
// QKV projection, the attention kernel's score and value GEMMs with the
// head split, GQA broadcast and softmax between them, and the output
// projection. A fused attention's two GEMMs carry tshape.fused_attention,
// and its score GEMM the kernel itself (setAttentionProvenance), so the
// analysis prices the kernel the block stated; in a training step its four
// gradient GEMMs likewise carry the backward kernel.
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
/// The banded form of a windowed attention (docs/lowering.md#windows): the
/// queries in `nb` blocks of W, each over the `span` keys it sees. Tensors
/// are [B, rows, d] per head; blocks [B*nb, rows, d].
struct Band {
  Lowerer &l;
  int64_t w, nb, span, cached;
  bool chunked;

  ImplicitLocOpBuilder &b() { return l.builder(); }
  RankedTensorType like(Value x, ArrayRef<int64_t> shape) {
    return RankedTensorType::get(
        shape, cast<RankedTensorType>(x.getType()).getElementType());
  }
  Value zero(Value x) {
    Type elt = cast<RankedTensorType>(x.getType()).getElementType();
    return arith::ConstantOp::create(b(), b().getFloatAttr(elt, 0.0));
  }
  /// x zero-padded by `low`/`high` rows on dim `d`.
  Value pad(Value x, unsigned d, int64_t low, int64_t high) {
    if (low == 0 && high == 0)
      return x;
    auto t = cast<RankedTensorType>(x.getType());
    SmallVector<OpFoldResult> lo(t.getRank(), b().getIndexAttr(0)),
        hi(t.getRank(), b().getIndexAttr(0));
    lo[d] = b().getIndexAttr(low);
    hi[d] = b().getIndexAttr(high);
    SmallVector<int64_t> shape(t.getShape());
    shape[d] += low + high;
    return tensor::PadOp::create(b(), like(x, shape), x, lo, hi, zero(x));
  }
  /// Rows [off, off + size) of dim `d`.
  Value rows(Value x, unsigned d, int64_t off, int64_t size) {
    auto t = cast<RankedTensorType>(x.getType());
    SmallVector<OpFoldResult> o(t.getRank(), b().getIndexAttr(0)), sz,
        st(t.getRank(), b().getIndexAttr(1));
    o[d] = b().getIndexAttr(off);
    for (int64_t i = 0; i < t.getRank(); ++i)
      sz.push_back(b().getIndexAttr(i == int64_t(d) ? size : t.getDimSize(i)));
    return tensor::ExtractSliceOp::create(b(), x, o, sz, st);
  }
  /// [B, n*W, d] -> [B*n, W, d].
  Value split(Value x, int64_t n) {
    const int64_t bb = l.dim(x, 0), d = l.dim(x, 2);
    return l.collapse(l.expand(x, {bb, n, w, d}, {{0}, {1, 2}, {3}}),
                      {{0, 1}, {2}, {3}});
  }
  /// [B*nb, W, d] -> [B, nb*W, d].
  Value join(Value x) {
    const int64_t bb = l.dim(x, 0) / nb, d = l.dim(x, 2);
    return l.collapse(l.expand(x, {bb, nb, w, d}, {{0, 1}, {2}, {3}}),
                      {{0}, {1, 2}, {3}});
  }
  /// The query blocks of [B, q, d] (the last padded).
  Value queries(Value x) {
    return split(pad(x, 1, 0, nb * w - l.dim(x, 1)), nb);
  }
  /// [B*nb, W, d] back to [B, q, d].
  Value unqueries(Value x, int64_t q) { return rows(join(x), 1, 0, q); }
  /// The key blocks of [B, kv, d]: block j's queries (positions cached +
  /// jW ...) see, sliding, the W keys before the block and its own W; a
  /// chunk its own W; when the kv length is below 2W, every key.
  Value keys(Value k) {
    const int64_t kv = l.dim(k, 1), bb = l.dim(k, 0), d = l.dim(k, 2);
    if (!chunked && span == kv) {
      Value init = tensor::EmptyOp::create(
          b(), ArrayRef<int64_t>{bb, nb, kv, d},
          cast<RankedTensorType>(k.getType()).getElementType());
      Value x4 = linalg::BroadcastOp::create(b(), k, init,
                                             ArrayRef<int64_t>{1})
                     .getResult()[0];
      return l.collapse(x4, {{0, 1}, {2}, {3}});
    }
    if (chunked)
      return split(pad(rows(k, 1, cached, kv - cached), 1, 0,
                       nb * w - (kv - cached)),
                   nb);
    const int64_t low = std::max<int64_t>(0, w - cached),
                  off = std::max<int64_t>(0, cached - w);
    Value kp = pad(rows(k, 1, off, kv - off), 1, low,
                   (nb + 1) * w - low - (kv - off));
    Value k4 = l.expand(kp, {bb, nb + 1, w, d}, {{0}, {1, 2}, {3}});
    Value both = tensor::ConcatOp::create(
        b(), /*dim=*/2,
        ValueRange{rows(k4, 1, 0, nb), rows(k4, 1, 1, nb)});
    return l.collapse(both, {{0, 1}, {2}, {3}});
  }
  /// The gradient of keys(k) (a training step: no cache): each key's
  /// gradient summed over the blocks that read it.
  Value unkeys(Value g, int64_t kv, int64_t heads) {
    if (!chunked && span == kv)
      return l.reduceGroups(g, heads, nb);
    if (chunked)
      return rows(join(g), 1, 0, kv);
    const int64_t bb = l.dim(g, 0) / nb, d = l.dim(g, 2);
    Value g4 = l.expand(g, {bb, nb, 2 * w, d}, {{0, 1}, {2}, {3}});
    // The first W of block j are chunk j of the padded keys, the last W
    // chunk j + 1.
    Value sum = l.add(pad(rows(g4, 2, 0, w), 1, 0, 1),
                      pad(rows(g4, 2, w, w), 1, 1, 0));
    Value flat = l.collapse(sum, {{0}, {1, 2}, {3}});
    return rows(flat, 1, w, kv);
  }
};
} // namespace

Value tshape::lowering::lowerAttention(Lowerer &l, Operation *opaque, Value x2,
                                       int64_t layer,
                                       Lowerer::Backward &branchBackward) {
  auto op = cast<AttentionOp>(opaque);
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
  // A window shorter than the queries: the banded blocks (the model's
  // gemms() state their sizes).
  const bool banded = attn.banded();
  const int64_t kvLen = attn.kvLen.value, qLen = attn.queryLen.value;
  Band band{l, attn.window.value, banded ? scoreSpec.batch.value /
                                               std::max<int64_t>(1, l.dim(q, 0))
                                         : 1,
            scoreSpec.n.value, cached, attn.chunked};
  Value qIn = banded ? band.queries(q) : q;
  if (banded) {
    k = band.keys(k);
    v = band.keys(v);
  }
  Value scores = l.gemm(scoreSpec, attn.grouped ? l.groupHeads(q, gR, r) : qIn,
                        k);
  Value probs = l.softmax(scores);
  Value ctx = l.gemm(valueSpec, probs, v);
  if (attn.grouped)
    ctx = l.ungroupHeads(ctx, gR, r);
  if (banded)
    ctx = band.unqueries(ctx, qLen);
  if (fused)
    l.markFusedAttention({scores, ctx}, attn, layer);
  Value ctx2 = l.fromHeads(ctx, aR, d);
  Value out = l.linear(outSpec, ctx2, &steps);

  branchBackward = [=, &l, qkvBwd = steps[0], outBwd = steps[1]](Value g) {
    Value dCtx2 = outBwd(g);
    Value dO = l.toHeads(dCtx2, aR, d);
    Band bd = band;
    if (banded)
      dO = bd.queries(dO);
    // O = P . V:  dP = dO . V^T,  dV = P^T . dO
    auto valueGrads = model::backwardGemms(valueSpec);
    Value dP = l.gemm(valueGrads[0], dO, v);
    Value dV = l.gemm(valueGrads[1], probs, dO);
    // S = Q . K^T (softmax derivative is elementwise, left out): dS = dP
    auto scoreGrads = model::backwardGemms(scoreSpec);
    Value dQ = l.gemm(scoreGrads[0], dP, k);
    Value dK = l.gemm(scoreGrads[1], dP, qIn);
    // Fused: the four are the attention's backward kernel (FlashAttention's
    // dQ/dK/dV kernel), priced as one (AttentionSpec::backward).
    if (fused) {
      model::AttentionSpec bwd = attn;
      bwd.backward = true;
      l.markFusedAttention({dP, dV, dQ, dK}, bwd, layer);
    }
    if (banded) {
      dQ = bd.unqueries(dQ, qLen);
      dK = bd.unkeys(dK, kvLen, aR);
      dV = bd.unkeys(dV, kvLen, aR);
    }
    Value dQKV = l.concat({l.fromHeads(dQ, aR, d),
                           l.fromHeads(l.reduceGroups(dK, gR, r), gR, d),
                           l.fromHeads(l.reduceGroups(dV, gR, r), gR, d)});
    return qkvBwd(dQKV);
  };
  return out;
}
