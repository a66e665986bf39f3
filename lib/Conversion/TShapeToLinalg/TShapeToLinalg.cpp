//===- TShapeToLinalg.cpp - Lower tshape ops to linalg GEMMs --------------===//
//
// Lowers tshape ops to the GEMMs of one tensor-parallel rank, with the data
// flow between them (reshapes, head transposes, GQA broadcast, softmax,
// activations, residual adds) in linalg and tensor ops. With training=true a
// tape of sub-layer backward steps is replayed in reverse to emit the
// backward GEMMs, chaining the hidden-state gradient through the model.
//
// Every contraction is emitted from the block models of Transformer.h
// (attentionGemms, mlpGemms, logitsGemm, backwardGemms): the model says
// which GEMMs a sub-layer has and their sizes, the lowering builds the data
// flow around them, checks that the operands it built have the model's
// sizes, and stamps each GEMM with its provenance (setGemmProvenance).
// tshape-test-gemm-consistency checks the whole list against modelGemms.
//
//===----------------------------------------------------------------------===//

#include "tshape/Conversion/Passes.h"
#include "tshape/Dialect/TShape/IR/TShapeOps.h"
#include "tshape/Model/Transformer.h"

#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/IRMapping.h"

#include <functional>

namespace tshape {
#define GEN_PASS_DEF_TSHAPELOWERTOLINALG
#include "tshape/Conversion/Passes.h.inc"
} // namespace tshape

using namespace mlir;
using tshape::TShapeDialect;


namespace {

/// Builds the linalg form of one function's tshape ops.
class Lowerer {
public:
  Lowerer(func::FuncOp fn, bool training, bool fuseGated, int64_t maxLayers,
          bool decomposeSoftmax, bool patternWeights)
      : fn(fn), b(fn.getLoc(), fn.getContext()), training(training),
        fuseGated(fuseGated), decomposeSoftmax(decomposeSoftmax),
        patternWeights(patternWeights),
        maxLayers(maxLayers),
        parallel(tshape::getParallelism(fn)) {}

  /// Lowers every tshape op in the function; fails with a diagnostic.
  LogicalResult run();

  int64_t gemmCount = 0;
  int64_t layerCount = 0;

private:
  using Backward = std::function<Value(Value)>;

  // Lowering of each op kind; each returns the op's result (3-D).
  FailureOr<Value> lowerOp(Operation *op, IRMapping &map);
  Value lowerEmbedding(tshape::EmbeddingOp op, Value tokens);
  Value lowerLMHead(tshape::LMHeadOp op, Value x);
  /// A residual branch f(x) on 2-D activations [b*s, h]; pushes its backward
  /// (which maps dF [b*s,h] to dX [b*s,h]) to `branchBackward`.
  Value attentionBranch(tshape::AttentionOp op, Value x2, int64_t layer,
                        Backward &branchBackward);
  Value mlpBranch(tshape::MLPOp op, Value x2, int64_t layer,
                  Backward &branchBackward);
  LogicalResult lowerBody(Block &body, ValueRange args, IRMapping &map,
                          SmallVectorImpl<Value> &yielded);

  // Builders.
  RankedTensorType type(ArrayRef<int64_t> shape) {
    return RankedTensorType::get(shape, elt);
  }
  Value zeros(ArrayRef<int64_t> shape);
  Value weight(ArrayRef<int64_t> shape);
  /// The contraction `spec` describes, on operands a and b.
  Value gemm(const tshape::model::GemmSpec &spec, Value a, Value bm);
  /// y = x . W^T with W [N, K] of `spec` (a new weight unless `w` is
  /// given); pushes its backward to `tape` when not null.
  Value linear(const tshape::model::GemmSpec &spec, Value x,
               SmallVectorImpl<Backward> *tape, Value w = Value());
  Value linearBackward(const tshape::model::GemmSpec &spec, Value x, Value w,
                       Value dy);
  /// The model config of one op of the function (run shape, parallelism
  /// and the op's own hyperparameters).
  tshape::model::ModelConfig config(int64_t hidden) const;
  /// x op y elementwise (linalg.add, linalg.mul).
  template <typename ElementwiseOp> Value elementwise(Value x, Value y);
  Value add(Value x, Value y) { return elementwise<linalg::AddOp>(x, y); }
  Value mul(Value x, Value y) { return elementwise<linalg::MulOp>(x, y); }
  Value activation(Value x, tshape::Activation act);
  Value softmax(Value x);
  Value collapse(Value x, ArrayRef<ReassociationIndices> groups);
  Value expand(Value x, ArrayRef<int64_t> shape,
               ArrayRef<ReassociationIndices> groups);
  Value transpose(Value x, ArrayRef<int64_t> perm);
  Value toHeads(Value x2, int64_t heads, int64_t d);
  Value fromHeads(Value x3, int64_t heads, int64_t d);
  Value broadcastGroups(Value x3, int64_t groups, int64_t repeat);
  Value reduceGroups(Value x3, int64_t groups, int64_t repeat);
  Value slice(Value x2, int64_t offset, int64_t size);
  Value to2D(Value x3) { return collapse(x3, {{0, 1}, {2}}); }
  Value to3D(Value x2) {
    auto t = cast<RankedTensorType>(x2.getType());
    return expand(x2, {batch, seq, t.getDimSize(1)}, {{0, 1}, {2}});
  }
  int64_t dim(Value v, unsigned i) {
    return cast<RankedTensorType>(v.getType()).getDimSize(i);
  }

  func::FuncOp fn;
  ImplicitLocOpBuilder b;
  bool training, fuseGated, decomposeSoftmax, patternWeights;
  int64_t weightSeed = 0;
  int64_t maxLayers;
  tshape::model::Parallelism parallel;
  /// The first disagreement between an emitted operand and the model.
  std::string modelMismatch;
  Type elt;
  int64_t batch = 0, seq = 0;
  int64_t nextLayer = 0;
  Value embeddingTable;
  /// Backward steps in forward order; each maps the gradient of a value
  /// [b*s, x] to the gradient of its input.
  SmallVector<Backward> tape;
  SmallVector<Value> weightGrads;
};

//===----------------------------------------------------------------------===//
// Builders
//===----------------------------------------------------------------------===//

Value Lowerer::zeros(ArrayRef<int64_t> shape) {
  Value empty = tensor::EmptyOp::create(b, shape, elt);
  Value zero = arith::ConstantOp::create(b, b.getFloatAttr(elt, 0.0));
  return linalg::FillOp::create(b, ValueRange{zero}, ValueRange{empty})
      .getResult(0);
}

Value Lowerer::weight(ArrayRef<int64_t> shape) {
  auto t = type(shape);
  if (!patternWeights) {
    // Splat weights keep the IR small at any size; a value other than 0
    // keeps the program honest when it is executed.
    return arith::ConstantOp::create(
        b, DenseElementsAttr::get(t, b.getFloatAttr(elt, 0.01)));
  }
  // 0.1 sin(0.37 i + 1.13 j + seed): distinct, non-uniform values, so that
  // an executed test would notice a transposed or misplaced operand.
  double seed = double(++weightSeed);
  Value init = tensor::EmptyOp::create(b, shape, elt);
  AffineMap id = b.getMultiDimIdentityMap(t.getRank());
  SmallVector<utils::IteratorType> iters(t.getRank(),
                                         utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, TypeRange{t}, ValueRange{}, ValueRange{init},
             ArrayRef<AffineMap>{id}, iters,
             [&](OpBuilder &ob, Location loc, ValueRange) {
               ImplicitLocOpBuilder nb(loc, ob);
               auto f = [&](double v) -> Value {
                 return arith::ConstantOp::create(nb,
                                                  nb.getFloatAttr(elt, v));
               };
               auto idx = [&](unsigned d) -> Value {
                 Value i = linalg::IndexOp::create(nb, d);
                 Value i64 = arith::IndexCastOp::create(nb, nb.getI64Type(), i);
                 return arith::SIToFPOp::create(nb, elt, i64);
               };
               Value x = arith::AddFOp::create(
                   nb, arith::MulFOp::create(nb, idx(0), f(0.37)),
                   arith::MulFOp::create(nb, idx(1), f(1.13)));
               Value v = math::SinOp::create(
                   nb, arith::AddFOp::create(nb, x, f(seed)));
               Value w = arith::MulFOp::create(nb, v, f(0.1));
               linalg::YieldOp::create(nb, w);
             })
      .getResult(0);
}

tshape::model::ModelConfig Lowerer::config(int64_t hidden) const {
  using tshape::model::Param;
  tshape::model::ModelConfig c;
  tshape::model::setParam(c, Param::Microbatch, batch);
  tshape::model::setParam(c, Param::Seq, seq);
  tshape::model::setParam(c, Param::Hidden, hidden);
  tshape::model::setParam(c, Param::Layers, 1);
  c.parallel = parallel;
  return c;
}

Value Lowerer::gemm(const tshape::model::GemmSpec &spec, Value a, Value bm) {
  const bool transA = spec.transA, transB = spec.transB;
  auto aT = cast<RankedTensorType>(a.getType());
  auto bT = cast<RankedTensorType>(bm.getType());
  bool batched = aT.getRank() == 3;
  MLIRContext *ctx = b.getContext();
  unsigned nb = batched ? 1 : 0;
  int64_t m = aT.getDimSize(nb + (transA ? 1 : 0));
  int64_t n = bT.getDimSize(nb + (transB ? 0 : 1));
  int64_t k = aT.getDimSize(nb + (transA ? 0 : 1));
  int64_t bt = batched ? aT.getDimSize(0) : 1;
  if (modelMismatch.empty() &&
      (bt != spec.batch.value || m != spec.m.value || n != spec.n.value ||
       k != spec.k.value))
    modelMismatch = spec.name() + " of layer " + std::to_string(spec.layer) +
               ": operands give " + std::to_string(bt) + " x " +
               std::to_string(m) + "x" + std::to_string(n) + "x" +
               std::to_string(k) + ", the model " +
               std::to_string(spec.batch.value) + " x " +
               std::to_string(spec.m.value) + "x" +
               std::to_string(spec.n.value) + "x" +
               std::to_string(spec.k.value);
  SmallVector<int64_t> shape;
  if (batched)
    shape.push_back(aT.getDimSize(0));
  shape.append({m, n});
  Value init = zeros(shape);
  // Dims: (batch,) m, n, k.
  AffineExpr bd, md, nd, kd;
  SmallVector<AffineMap> maps;
  unsigned numDims = batched ? 4 : 3;
  auto e = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  bd = e(0);
  md = e(nb + 0);
  nd = e(nb + 1);
  kd = e(nb + 2);
  auto mk = [&](ArrayRef<AffineExpr> r) {
    SmallVector<AffineExpr> res;
    if (batched)
      res.push_back(bd);
    res.append(r.begin(), r.end());
    return AffineMap::get(numDims, 0, res, ctx);
  };
  maps = {transA ? mk({kd, md}) : mk({md, kd}),
          transB ? mk({nd, kd}) : mk({kd, nd}), mk({md, nd})};
  SmallVector<Attribute> mapAttrs =
      llvm::map_to_vector(maps, [](AffineMap m) -> Attribute {
        return AffineMapAttr::get(m);
      });
  Operation *op;
  if (batched) {
    auto mm = linalg::BatchMatmulOp::create(b, TypeRange{init.getType()},
                                            ValueRange{a, bm}, ValueRange{init});
    if (transA || transB)
      mm.setIndexingMapsAttr(b.getArrayAttr(mapAttrs));
    op = mm;
  } else {
    auto mm = linalg::MatmulOp::create(b, TypeRange{init.getType()},
                                       ValueRange{a, bm}, ValueRange{init});
    if (transA || transB)
      mm.setIndexingMapsAttr(b.getArrayAttr(mapAttrs));
    op = mm;
  }
  tshape::setGemmProvenance(op, spec);
  ++gemmCount;
  return op->getResult(0);
}

Value Lowerer::linearBackward(const tshape::model::GemmSpec &spec, Value x,
                              Value w, Value dy) {
  // dX = dY . W  (M x N).(N x K);  dW = X^T . dY  (K x M).(M x N).
  std::vector<tshape::model::GemmSpec> grads =
      tshape::model::backwardGemms(spec);
  Value dx = gemm(grads[0], dy, w);
  weightGrads.push_back(gemm(grads[1], x, dy));
  return dx;
}

Value Lowerer::linear(const tshape::model::GemmSpec &spec, Value x,
                      SmallVectorImpl<Backward> *bwd, Value w) {
  if (!w)
    w = weight({spec.n.value, spec.k.value});
  Value y = gemm(spec, x, w);
  if (bwd)
    bwd->push_back([this, spec, x, w](Value dy) {
      return linearBackward(spec, x, w, dy);
    });
  return y;
}

template <typename ElementwiseOp>
Value Lowerer::elementwise(Value x, Value y) {
  Value init = tensor::EmptyOp::create(
      b, cast<RankedTensorType>(x.getType()).getShape(), elt);
  return ElementwiseOp::create(b, TypeRange{init.getType()}, ValueRange{x, y},
                               ValueRange{init})
      .getResult(0);
}

Value Lowerer::activation(Value x, tshape::Activation act) {
  auto t = cast<RankedTensorType>(x.getType());
  Value init = tensor::EmptyOp::create(b, t.getShape(), elt);
  AffineMap id = b.getMultiDimIdentityMap(t.getRank());
  SmallVector<utils::IteratorType> iters(t.getRank(),
                                         utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, TypeRange{t}, ValueRange{x}, ValueRange{init},
      ArrayRef<AffineMap>{id, id}, iters,
      [&](OpBuilder &ob, Location loc, ValueRange args) {
        ImplicitLocOpBuilder nb(loc, ob);
        Value v = args[0];
        Value r;
        switch (act) {
        case tshape::Activation::relu: {
          Value zero = arith::ConstantOp::create(nb, nb.getFloatAttr(elt, 0));
          r = arith::MaximumFOp::create(nb, v, zero);
          break;
        }
        case tshape::Activation::silu: {
          // x * sigmoid(x) = x / (1 + exp(-x))
          Value one = arith::ConstantOp::create(nb, nb.getFloatAttr(elt, 1));
          Value ex = math::ExpOp::create(nb, arith::NegFOp::create(nb, v));
          r = arith::DivFOp::create(nb, v, arith::AddFOp::create(nb, one, ex));
          break;
        }
        case tshape::Activation::gelu: {
          // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
          auto c = [&](double d) -> Value {
            return arith::ConstantOp::create(nb, nb.getFloatAttr(elt, d));
          };
          Value x3 = arith::MulFOp::create(nb, v, arith::MulFOp::create(nb, v, v));
          Value inner = arith::AddFOp::create(
              nb, v, arith::MulFOp::create(nb, c(0.044715), x3));
          Value th = math::TanhOp::create(
              nb, arith::MulFOp::create(nb, c(0.7978845608028654), inner));
          r = arith::MulFOp::create(
              nb, arith::MulFOp::create(nb, c(0.5), v),
              arith::AddFOp::create(nb, c(1.0), th));
          break;
        }
        }
        linalg::YieldOp::create(nb, r);
      });
  return generic.getResult(0);
}

Value Lowerer::softmax(Value x) {
  auto t = cast<RankedTensorType>(x.getType());
  Value init = tensor::EmptyOp::create(b, t.getShape(), elt);
  auto op = linalg::SoftmaxOp::create(b, TypeRange{t}, x, init,
                                      /*dimension=*/uint64_t(t.getRank() - 1));
  if (!decomposeSoftmax)
    return op.getResult()[0];
  // The op's own decomposition into linalg.generic ops.
  FailureOr<SmallVector<Value>> parts =
      cast<linalg::AggregatedOpInterface>(op.getOperation())
          .decomposeOperation(b);
  if (failed(parts))
    return op.getResult()[0];
  Value r = parts->front();
  op->erase();
  return r;
}

Value Lowerer::collapse(Value x, ArrayRef<ReassociationIndices> groups) {
  return tensor::CollapseShapeOp::create(b, x, groups);
}

Value Lowerer::expand(Value x, ArrayRef<int64_t> shape,
                      ArrayRef<ReassociationIndices> groups) {
  return tensor::ExpandShapeOp::create(b, type(shape), x, groups);
}

Value Lowerer::transpose(Value x, ArrayRef<int64_t> perm) {
  auto t = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(t.getDimSize(p));
  Value init = tensor::EmptyOp::create(b, shape, elt);
  return linalg::TransposeOp::create(b, x, init, perm).getResult()[0];
}

Value Lowerer::toHeads(Value x2, int64_t heads, int64_t d) {
  // [b*s, n*d] -> [b, s, n, d] -> [b, n, s, d] -> [b*n, s, d]
  Value x4 = expand(x2, {batch, seq, heads, d}, {{0, 1}, {2, 3}});
  return collapse(transpose(x4, {0, 2, 1, 3}), {{0, 1}, {2}, {3}});
}

Value Lowerer::fromHeads(Value x3, int64_t heads, int64_t d) {
  // [b*n, s, d] -> [b, n, s, d] -> [b, s, n, d] -> [b*s, n*d]
  Value x4 = expand(x3, {batch, heads, seq, d}, {{0, 1}, {2}, {3}});
  return collapse(transpose(x4, {0, 2, 1, 3}), {{0, 1}, {2, 3}});
}

Value Lowerer::broadcastGroups(Value x3, int64_t groups, int64_t repeat) {
  if (repeat == 1)
    return x3;
  // [b*g, s, d] -> [b, g, s, d] -> [b, g, r, s, d] -> [b*g*r, s, d]
  int64_t d = dim(x3, 2);
  Value x4 = expand(x3, {batch, groups, seq, d}, {{0, 1}, {2}, {3}});
  Value init = tensor::EmptyOp::create(
      b, ArrayRef<int64_t>{batch, groups, repeat, seq, d}, elt);
  Value x5 = linalg::BroadcastOp::create(b, x4, init, ArrayRef<int64_t>{2})
                 .getResult()[0];
  return collapse(x5, {{0, 1, 2}, {3}, {4}});
}

Value Lowerer::reduceGroups(Value x3, int64_t groups, int64_t repeat) {
  if (repeat == 1)
    return x3;
  // [b*g*r, s, d] -> [b, g, r, s, d] -> sum over r -> [b*g, s, d]
  int64_t d = dim(x3, 2);
  Value x5 = expand(x3, {batch, groups, repeat, seq, d},
                    {{0, 1, 2}, {3}, {4}});
  Value init = zeros({batch, groups, seq, d});
  auto reduce = linalg::ReduceOp::create(
      b, ValueRange{x5}, ValueRange{init}, ArrayRef<int64_t>{2},
      [](OpBuilder &ob, Location loc, ValueRange args) {
        Value s = arith::AddFOp::create(ob, loc, args[0], args[1]);
        linalg::YieldOp::create(ob, loc, s);
      });
  return collapse(reduce.getResult(0), {{0, 1}, {2}, {3}});
}

Value Lowerer::slice(Value x2, int64_t offset, int64_t size) {
  SmallVector<OpFoldResult> offsets = {b.getIndexAttr(0),
                                       b.getIndexAttr(offset)};
  SmallVector<OpFoldResult> sizes = {b.getIndexAttr(dim(x2, 0)),
                                     b.getIndexAttr(size)};
  SmallVector<OpFoldResult> strides = {b.getIndexAttr(1), b.getIndexAttr(1)};
  return tensor::ExtractSliceOp::create(b, x2, offsets, sizes, strides);
}

//===----------------------------------------------------------------------===//
// Ops
//===----------------------------------------------------------------------===//

Value Lowerer::lowerEmbedding(tshape::EmbeddingOp op, Value tokens) {
  // Rank-local table [v/t, h]; token ids are taken modulo v/t (the
  // vocab-parallel lookup and its all-reduce are not GEMMs).
  int64_t h = op.getResult().getType().getDimSize(2);
  // The rank's share of the vocabulary, as the LM head's GEMM has it.
  tshape::model::ModelConfig c = config(h);
  tshape::model::setParam(c, tshape::model::Param::Vocab, op.getVocab());
  int64_t vRank = tshape::model::logitsGemm(c).n.value;
  embeddingTable = weight({vRank, h});
  Value table = embeddingTable;
  Value init = tensor::EmptyOp::create(b, ArrayRef<int64_t>{batch, seq, h}, elt);
  MLIRContext *ctx = b.getContext();
  AffineMap tokMap = AffineMap::get(
      3, 0, {getAffineDimExpr(0, ctx), getAffineDimExpr(1, ctx)}, ctx);
  AffineMap id = b.getMultiDimIdentityMap(3);
  SmallVector<utils::IteratorType> iters(3, utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, TypeRange{init.getType()}, ValueRange{tokens}, ValueRange{init},
      ArrayRef<AffineMap>{tokMap, id}, iters,
      [&](OpBuilder &ob, Location loc, ValueRange args) {
        ImplicitLocOpBuilder nb(loc, ob);
        Value tok = arith::IndexCastOp::create(nb, nb.getIndexType(), args[0]);
        Value vr = arith::ConstantIndexOp::create(nb, vRank);
        Value row = arith::RemUIOp::create(nb, tok, vr);
        Value col = linalg::IndexOp::create(nb, 2);
        Value v = tensor::ExtractOp::create(nb, table, ValueRange{row, col});
        linalg::YieldOp::create(nb, v);
      });
  return generic.getResult(0);
}

Value Lowerer::lowerLMHead(tshape::LMHeadOp op, Value x) {
  tshape::model::ModelConfig c = config(dim(x, 2));
  tshape::model::setParam(c, tshape::model::Param::Vocab, op.getVocab());
  Value x2 = to2D(x);
  // A tied head reads the embedding table as its [v/t, h] weight.
  Value tied = op.getTied() ? embeddingTable : Value();
  Value logits = linear(tshape::model::logitsGemm(c), x2, &tape, tied);
  return to3D(logits);
}

Value Lowerer::attentionBranch(tshape::AttentionOp op, Value x2,
                               int64_t layer, Backward &branchBackward) {
  tshape::model::ModelConfig c = config(dim(x2, 1));
  using tshape::model::Param;
  tshape::model::setParam(c, Param::Heads, op.getHeads());
  tshape::model::setParam(c, Param::KvHeads, op.getKvHeads());
  tshape::model::setParam(c, Param::HeadDim, op.getHeadDim().value_or(0));
  c.attention.causal = op.getCausal();
  c.attention.fused = op.getFused();
  std::vector<tshape::model::GemmSpec> g =
      tshape::model::attentionGemms(c, layer);
  auto rs = tshape::model::rankShape(c);
  int64_t aR = rs->headsPerRank, gR = rs->kvPerRank, d = rs->headDim;
  int64_t r = aR / gR;
  bool fused = op.getFused();
  const tshape::model::GemmSpec qkvSpec = g[0], scoreSpec = g[1],
                                valueSpec = g[2], outSpec = g[3];

  SmallVector<Backward> steps; // qkv, out
  Value qkv = linear(qkvSpec, x2, &steps);
  Value q = toHeads(slice(qkv, 0, aR * d), aR, d);
  Value kG = toHeads(slice(qkv, aR * d, gR * d), gR, d);
  Value vG = toHeads(slice(qkv, (aR + gR) * d, gR * d), gR, d);
  Value k = broadcastGroups(kG, gR, r);
  Value v = broadcastGroups(vG, gR, r);
  Value scores = gemm(scoreSpec, q, k);
  Value probs = softmax(scores);
  Value ctx = gemm(valueSpec, probs, v);
  if (fused) {
    for (Value g : {scores, ctx}) {
      g.getDefiningOp()->setAttr(TShapeDialect::kFusedAttrName,
                                 b.getI64IntegerAttr(layer));
      if (c.attention.causal)
        g.getDefiningOp()->setAttr(TShapeDialect::kCausalAttrName,
                                   b.getUnitAttr());
    }
  }
  Value ctx2 = fromHeads(ctx, aR, d);
  Value out = linear(outSpec, ctx2, &steps);

  branchBackward = [=, this, qkvBwd = steps[0], outBwd = steps[1]](Value g) {
    Value dCtx2 = outBwd(g);
    Value dO = toHeads(dCtx2, aR, d);
    // O = P . V:  dP = dO . V^T,  dV = P^T . dO
    auto valueGrads = tshape::model::backwardGemms(valueSpec);
    Value dP = gemm(valueGrads[0], dO, v);
    Value dV = gemm(valueGrads[1], probs, dO);
    // S = Q . K^T (softmax derivative is elementwise, left out): dS = dP
    auto scoreGrads = tshape::model::backwardGemms(scoreSpec);
    Value dQ = gemm(scoreGrads[0], dP, k);
    Value dK = gemm(scoreGrads[1], dP, q);
    Value dQKV = tensor::ConcatOp::create(
        b, /*dim=*/1,
        ValueRange{fromHeads(dQ, aR, d),
                   fromHeads(reduceGroups(dK, gR, r), gR, d),
                   fromHeads(reduceGroups(dV, gR, r), gR, d)});
    return qkvBwd(dQKV);
  };
  return out;
}

Value Lowerer::mlpBranch(tshape::MLPOp op, Value x2, int64_t layer,
                         Backward &branchBackward) {
  tshape::model::ModelConfig c = config(dim(x2, 1));
  tshape::model::setParam(c, tshape::model::Param::Ffn, op.getInner());
  c.mlp.gated = op.getGated();
  c.mlp.fusedGateUp = fuseGated;
  // gate, up, down; or gate_up, down (fused layout); or up, down.
  std::vector<tshape::model::GemmSpec> g = tshape::model::mlpGemms(c, layer);
  const int64_t f = g.back().k.value; // the down projection's K: f/t
  tshape::Activation act = op.getActivation();
  SmallVector<Backward> steps;
  Value hidden;
  int gateIdx = -1, upIdx = -1;
  bool fusedGate = g.size() == 2 && op.getGated();
  if (fusedGate) {
    Value both = linear(g[0], x2, &steps);
    upIdx = 0;
    // Sequenced so the IR order is deterministic: gate half, then up half.
    Value gate = activation(slice(both, 0, f), act);
    Value up = slice(both, f, f);
    hidden = mul(gate, up);
  } else if (op.getGated()) {
    Value gate = linear(g[0], x2, &steps);
    Value up = linear(g[1], x2, &steps);
    gateIdx = 0;
    upIdx = 1;
    hidden = mul(activation(gate, act), up);
  } else {
    hidden = activation(linear(g[0], x2, &steps), act);
    upIdx = 0;
  }
  Value out = linear(g.back(), hidden, &steps);
  Backward downBwd = steps.back();
  Backward upBwd = steps[upIdx];
  Backward gateBwd = gateIdx >= 0 ? steps[gateIdx] : Backward();
  branchBackward = [=, this](Value g) {
    // Activation and gating derivatives are elementwise and left out; the
    // GEMMs see the gradient of the hidden activation directly.
    Value dH = downBwd(g);
    if (fusedGate)
      dH = tensor::ConcatOp::create(b, 1, ValueRange{dH, dH});
    Value dX = upBwd(dH);
    if (gateBwd)
      dX = add(dX, gateBwd(dH));
    return dX;
  };
  return out;
}

LogicalResult Lowerer::lowerBody(Block &body, ValueRange args,
                                    IRMapping &map,
                                    SmallVectorImpl<Value> &yielded) {
  for (auto [arg, v] : llvm::zip(body.getArguments(), args))
    map.map(arg, v);
  for (Operation &op : body) {
    if (auto y = dyn_cast<tshape::YieldOp>(op)) {
      for (Value v : y.getValues())
        yielded.push_back(map.lookupOrDefault(v));
      continue;
    }
    if (isa_and_nonnull<TShapeDialect>(op.getDialect())) {
      FailureOr<Value> r = lowerOp(&op, map);
      if (failed(r))
        return failure();
      map.map(op.getResult(0), *r);
      continue;
    }
    b.clone(op, map);
  }
  return success();
}

FailureOr<Value> Lowerer::lowerOp(Operation *op, IRMapping &map) {
  b.setLoc(op->getLoc());
  if (auto emb = dyn_cast<tshape::EmbeddingOp>(op))
    return lowerEmbedding(emb, map.lookupOrDefault(emb.getTokens()));
  if (auto head = dyn_cast<tshape::LMHeadOp>(op))
    return lowerLMHead(head, map.lookupOrDefault(head.getInput()));

  // Residual sub-layers and blocks work on 2-D activations [b*s, h].
  auto subLayer = [&](Operation *sub, Value x2, int64_t layer,
                      Backward &bwd) -> Value {
    if (auto a = dyn_cast<tshape::AttentionOp>(sub))
      return attentionBranch(a, x2, layer, bwd);
    return mlpBranch(cast<tshape::MLPOp>(sub), x2, layer, bwd);
  };
  if (isa<tshape::AttentionOp, tshape::MLPOp>(op)) {
    // A standalone sub-layer is a layer of its own: y = x + f(x).
    int64_t layer = nextLayer++;
    ++layerCount;
    Value x2 = to2D(map.lookupOrDefault(op->getOperand(0)));
    Backward bwd;
    Value y = add(x2, subLayer(op, x2, layer, bwd));
    tape.push_back([this, bwd](Value g) { return add(g, bwd(g)); });
    return to3D(y);
  }
  if (auto block = dyn_cast<tshape::BlockOp>(op)) {
    int64_t layer = nextLayer++;
    ++layerCount;
    Value x2 = to2D(map.lookupOrDefault(block.getInput()));
    Backward attnBwd, mlpBwd;
    Value a = attentionBranch(block.getAttention(), x2, layer, attnBwd);
    Value y;
    if (block.getMode() == tshape::ResidualMode::sequential) {
      Value h1 = add(x2, a);
      y = add(h1, mlpBranch(block.getMLP(), h1, layer, mlpBwd));
      tape.push_back([this, attnBwd, mlpBwd](Value g) {
        Value gh = add(g, mlpBwd(g));
        return add(gh, attnBwd(gh));
      });
    } else {
      Value m = mlpBranch(block.getMLP(), x2, layer, mlpBwd);
      y = add(add(x2, a), m);
      tape.push_back([this, attnBwd, mlpBwd](Value g) {
        Value gm = mlpBwd(g);
        Value gx = add(g, gm);
        return add(gx, attnBwd(g));
      });
    }
    return to3D(y);
  }
  if (auto repeat = dyn_cast<tshape::RepeatOp>(op)) {
    int64_t layers = int64_t(repeat.getLayers());
    if (layers > maxLayers - nextLayer)
      return repeat.emitOpError()
             << "unrolling " << repeat.getLayers() << " layers after "
             << nextLayer << " would exceed max-layers=" << maxLayers
             << "; raise the option if this is intended";
    Value cur = map.lookupOrDefault(repeat.getInput());
    for (int64_t i = 0; i < layers; ++i) {
      IRMapping bodyMap;
      SmallVector<Value> yielded;
      if (failed(lowerBody(repeat.getBody().front(), cur, bodyMap, yielded)))
        return failure();
      cur = yielded.front();
    }
    return cur;
  }
  return op->emitOpError("cannot be lowered to linalg");
}

LogicalResult Lowerer::run() {
  // All tshape ops of a function share one element type and run shape.
  Operation *first = nullptr;
  fn.walk([&](Operation *op) {
    if (!first && isa<tshape::EmbeddingOp, tshape::AttentionOp, tshape::MLPOp,
                      tshape::LMHeadOp>(op))
      first = op;
  });
  if (!first)
    return success();
  auto act = cast<RankedTensorType>(first->getResult(0).getType());
  if (auto head = dyn_cast<tshape::LMHeadOp>(first))
    act = head.getInput().getType();
  elt = act.getElementType();
  batch = act.getDimSize(0);
  seq = act.getDimSize(1);
  WalkResult mismatch = fn.walk([&](Operation *op) -> WalkResult {
    if (!isa_and_nonnull<TShapeDialect>(op->getDialect()) || isa<tshape::YieldOp>(op))
      return WalkResult::advance();
    auto t = cast<RankedTensorType>(op->getResult(0).getType());
    if (t.getElementType() != elt || t.getDimSize(0) != batch ||
        t.getDimSize(1) != seq)
      return op->emitOpError()
             << "result " << t << " does not share the element type " << elt
             << " and batch x seq " << batch << "x" << seq
             << " of the function's other tshape ops",
             WalkResult::interrupt();
    return WalkResult::advance();
  });
  if (mismatch.wasInterrupted())
    return failure();

  Block &entry = fn.getBody().front();
  SmallVector<Operation *> topLevel;
  for (Operation &op : entry)
    if (isa_and_nonnull<TShapeDialect>(op.getDialect()))
      topLevel.push_back(&op);
  Value lastOut;
  for (Operation *op : topLevel) {
    b.setInsertionPoint(op);
    IRMapping map;
    FailureOr<Value> r = lowerOp(op, map);
    if (failed(r))
      return failure();
    op->getResult(0).replaceAllUsesWith(*r);
    lastOut = *r;
  }
  for (Operation *op : llvm::reverse(topLevel))
    op->erase();
  if (!modelMismatch.empty())
    return fn.emitError() << "internal error: the lowering disagrees with "
                             "the model (Transformer.h): "
                          << modelMismatch;

  auto ret = cast<func::ReturnOp>(entry.getTerminator());
  if (training && !tape.empty()) {
    b.setInsertionPoint(ret);
    b.setLoc(fn.getLoc());
    // Seed: the gradient of the loss with respect to the last output.
    auto outT = cast<RankedTensorType>(lastOut.getType());
    Value seed = weight({outT.getDimSize(0) * outT.getDimSize(1),
                         outT.getDimSize(2)});
    Value g = seed;
    for (Backward &step : llvm::reverse(tape))
      g = step(g);
    SmallVector<Value> results(ret.getOperands());
    results.append(weightGrads.begin(), weightGrads.end());
    ret->setOperands(results);
  }
  // Lowered IR is plain MLIR: the model attributes become builtin ones.
  const int64_t tp = tshape::model::degree(parallel, tshape::model::Param::Tp);
  if (fn->removeAttr(TShapeDialect::kParallelAttrName) || tp != 1)
    fn->setAttr(TShapeDialect::kTpAttrName, b.getI64IntegerAttr(tp));
  if (auto math = fn->getAttrOfType<tshape::MathModeAttr>(
          TShapeDialect::kMathAttrName)) {
    fn->removeAttr(TShapeDialect::kMathAttrName);
    if (math.getValue() == tshape::MathMode::tf32)
      fn->setAttr(TShapeDialect::kTf32AttrName, b.getUnitAttr());
  }
  // Per-rank result types (logits [b, s, v/t], weight gradients).
  fn.setFunctionType(FunctionType::get(fn.getContext(),
                                       fn.getArgumentTypes(),
                                       ret.getOperandTypes()));
  return success();
}

//===----------------------------------------------------------------------===//
// Pass
//===----------------------------------------------------------------------===//

struct TShapeLowerToLinalgPass
    : public tshape::impl::TShapeLowerToLinalgBase<
          TShapeLowerToLinalgPass> {
  using Base::Base;
  void runOnOperation() override {
    for (auto fn : llvm::to_vector(getOperation().getOps<func::FuncOp>())) {
      if (fn.isExternal())
        continue;
      Lowerer lowerer(fn, training, fuseGatedMlp, maxLayers, decomposeSoftmax,
                      weights == tshape::WeightValues::Pattern);
      if (failed(lowerer.run()))
        return signalPassFailure();
      numGemms += lowerer.gemmCount;
      numLayers += lowerer.layerCount;
    }
    // A module-level parallel attribute becomes builtin-typed too.
    ModuleOp module = getOperation();
    if (auto p = module->getAttrOfType<tshape::ParallelAttr>(
            TShapeDialect::kParallelAttrName)) {
      module->removeAttr(TShapeDialect::kParallelAttrName);
      module->setAttr(TShapeDialect::kTpAttrName,
                      IntegerAttr::get(IntegerType::get(&getContext(), 64),
                                       p.getTp()));
    }
    if (auto t = module->getAttrOfType<tshape::TargetAttr>(
            TShapeDialect::kTargetAttrName))
      module->setAttr(TShapeDialect::kTargetAttrName,
                      StringAttr::get(&getContext(), t.getName()));
    // Any tshape op left (outside a function) cannot be lowered.
    WalkResult left = getOperation().walk([](Operation *op) {
      if (isa_and_nonnull<TShapeDialect>(op->getDialect())) {
        op->emitOpError("must be inside a func.func to be lowered");
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (left.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
