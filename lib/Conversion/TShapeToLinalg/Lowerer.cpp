//===- Lowerer.cpp - Lower tshape ops to linalg GEMMs ---------------------===//
//
// Lowers tshape ops to the GEMMs of one tensor-parallel rank, with the data
// flow between them (reshapes, head transposes, GQA broadcast, softmax,
// activations, residual adds) in linalg and tensor ops. Each op is lowered
// by its block's lowering (the table below; one file each), from the
// kernels of its block model (Model/Blocks). Under phase=train a tape of
// sub-layer backward steps is replayed in reverse to emit the backward
// GEMMs, chaining the hidden-state gradient through the model.
//
// The lowering checks that the operands it built have the model's sizes
// and stamps each GEMM with its provenance (setGemmProvenance);
// tshape-test-gemm-consistency checks the whole list against modelKernels.
//
//===----------------------------------------------------------------------===//

#include "tshape/Conversion/TShapeToLinalg/Lowerer.h"
#include "tshape/PassRunShape.h"

namespace tshape {
#define GEN_PASS_DEF_TSHAPELOWERTOLINALG
#include "tshape/Conversion/Passes.h.inc"
} // namespace tshape

using namespace mlir;
using namespace tshape;
using namespace tshape::lowering;

//===----------------------------------------------------------------------===//
// The block lowerings
//===----------------------------------------------------------------------===//

namespace {
/// One row per block (model::BlockKind order): a residual sub-layer has a
/// branch, a once-per-model block a whole-op lowering.
const BlockLowering kLowerings[] = {
    {model::BlockKind::Embedding, nullptr, lowerEmbedding},
    {model::BlockKind::Attention, lowerAttention, nullptr},
    {model::BlockKind::Mlp, lowerMlp, nullptr},
    {model::BlockKind::LMHead, nullptr, lowerLMHead},
    {model::BlockKind::Moe, lowerMoe, nullptr},
    {model::BlockKind::Mla, lowerMla, nullptr},
};


std::vector<BlockLowering> &loweringTable() {
  static std::vector<BlockLowering> table(std::begin(kLowerings),
                                          std::end(kLowerings));
  return table;
}
} // namespace

const BlockLowering *tshape::lowering::blockLowering(model::BlockKind k) {
  for (const BlockLowering &l : loweringTable())
    if (l.kind == k)
      return &l;
  return nullptr;
}

void tshape::lowering::registerBlockLowering(BlockLowering lowering) {
  if (!blockLowering(lowering.kind))
    loweringTable().push_back(lowering);
}

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

model::ModelConfig Lowerer::config(tshape::BlockOpInterface op) const {
  model::ModelConfig c;
  op.readConfig(c);
  model::setParam(c, model::Param::Layers, 1);
  c.parallel = parallel;
  return c;
}

Value Lowerer::gemm(const model::GemmSpec &spec, Value a, Value bm) {
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

const model::GemmSpec *Lowerer::find(const std::vector<model::Kernel> &ks,
                                     model::Role r) {
  for (const model::Kernel &k : ks)
    if (const model::GemmSpec *g = k.gemm(); g && g->role == r)
      return g;
  return nullptr;
}

void Lowerer::markFusedAttention(llvm::ArrayRef<Value> gemms,
                                 const model::AttentionSpec &attn,
                                 int64_t layer) {
  for (Value g : gemms)
    g.getDefiningOp()->setAttr(TShapeDialect::kFusedAttrName,
                               builder().getI64IntegerAttr(layer));
  if (!gemms.empty())
    setAttentionProvenance(gemms.front().getDefiningOp(), attn);
}

Value Lowerer::linearBackward(const model::GemmSpec &spec, Value x,
                              Value w, Value dy) {
  // dX = dY . W  (M x N).(N x K);  dW = X^T . dY  (K x M).(M x N).
  std::vector<model::GemmSpec> grads =
      model::backwardGemms(spec);
  Value dx = gemm(grads[0], dy, w);
  weightGrads.push_back(gemm(grads[1], x, dy));
  return dx;
}

Value Lowerer::linear(const model::GemmSpec &spec, Value x,
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

Value Lowerer::add(Value x, Value y) {
  return elementwise<linalg::AddOp>(x, y);
}
Value Lowerer::mul(Value x, Value y) {
  return elementwise<linalg::MulOp>(x, y);
}

Value Lowerer::concat(ValueRange parts) {
  return tensor::ConcatOp::create(b, /*dim=*/1, parts);
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
  // (s: the keys, which over a cache are more than the queries)
  int64_t d = dim(x3, 2), seq = dim(x3, 1);
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

Value Lowerer::groupHeads(Value x3, int64_t groups, int64_t repeat) {
  if (repeat == 1)
    return x3;
  // [b*g*r, q, d] -> [b, g, r, q, d] -> [b*g, r*q, d]
  int64_t q = dim(x3, 1), d = dim(x3, 2);
  Value x5 = expand(x3, {batch, groups, repeat, q, d}, {{0, 1, 2}, {3}, {4}});
  return collapse(x5, {{0, 1}, {2, 3}, {4}});
}

Value Lowerer::ungroupHeads(Value x3, int64_t groups, int64_t repeat) {
  if (repeat == 1)
    return x3;
  // [b*g, r*q, d] -> [b, g, r, q, d] -> [b*g*r, q, d]
  int64_t d = dim(x3, 2), q = dim(x3, 1) / repeat;
  Value x5 = expand(x3, {batch, groups, repeat, q, d}, {{0, 1}, {2, 3}, {4}});
  return collapse(x5, {{0, 1, 2}, {3}, {4}});
}

Value Lowerer::withCache(Value fresh, int64_t cached) {
  if (cached <= 0)
    return fresh;
  // The cached keys (or values) are constants like the weights: the IR of
  // one step, not of the steps that filled the cache.
  Value cache = weight({dim(fresh, 0), cached, dim(fresh, 2)});
  return concat({cache, fresh});
}

Value Lowerer::stepInput(Value v) {
  auto t = cast<RankedTensorType>(v.getType());
  if (t.getRank() < 2 || t.getDimSize(1) == seq)
    return v;
  // A decode step computes the last q positions of each sequence.
  SmallVector<OpFoldResult> offsets(t.getRank(), b.getIndexAttr(0)), sizes,
      strides(t.getRank(), b.getIndexAttr(1));
  offsets[1] = b.getIndexAttr(t.getDimSize(1) - seq);
  for (int64_t i = 0; i < t.getRank(); ++i)
    sizes.push_back(b.getIndexAttr(i == 1 ? seq : t.getDimSize(i)));
  return tensor::ExtractSliceOp::create(b, v, offsets, sizes, strides);
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
// Functions, blocks and repeats
//===----------------------------------------------------------------------===//

namespace {
/// Whether the lowering owns `op`: a block op (of any dialect) or another
/// tshape op (block, repeat, yield).
bool isModelOp(Operation *op) {
  return isa<tshape::BlockOpInterface>(op) ||
         isa_and_nonnull<TShapeDialect>(op->getDialect());
}

/// The block model of an op of the block op interface (its getBlockName,
/// model::parseBlock); nullopt for any other op.
std::optional<model::BlockKind> blockKindOf(Operation *op) {
  if (auto block = dyn_cast<tshape::BlockOpInterface>(op))
    return model::parseBlock(block.getBlockName());
  return std::nullopt;
}
} // namespace

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
    if (isModelOp(&op)) {
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


Value Lowerer::carryKernels(Operation *sub, int64_t layer, Value result) {
  std::optional<model::BlockKind> kind = blockKindOf(sub);
  Operation *last = result ? result.getDefiningOp() : nullptr;
  if (!kind || !last)
    return result;
  const model::ModelConfig c = config(cast<tshape::BlockOpInterface>(sub));
  std::vector<model::Kernel> fwd =
      model::forwardKernels(*kind, c, runShape, layer);
  std::vector<model::Kernel> carried = getKernelsProvenance(last);
  auto carry = [&](const std::vector<model::Kernel> &ks) {
    for (const model::Kernel &k : ks)
      if (!k.hasOp())
        carried.push_back(k);
  };
  carry(fwd);
  if (runShape.backward())
    carry(model::backwardKernelsOf(*kind, c, runShape, layer, fwd));
  if (!carried.empty())
    setKernelsProvenance(last, carried);
  return result;
}

FailureOr<Value> Lowerer::lowerOp(Operation *op, IRMapping &map) {
  b.setLoc(op->getLoc());
  // The lowering of `sub`'s block, with the part (branch or whole) its
  // place needs; an error at the op when there is none.
  auto loweringOf = [&](Operation *sub, bool branch) -> const BlockLowering * {
    std::optional<model::BlockKind> kind = blockKindOf(sub);
    const BlockLowering *l = kind ? blockLowering(*kind) : nullptr;
    if (l && (branch ? l->branch != nullptr : l->whole != nullptr))
      return l;
    sub->emitOpError() << "block '"
                       << (kind ? model::blockInfo(*kind).name : "?")
                       << "' has no lowering to linalg";
    return nullptr;
  };
  if (auto sub = dyn_cast<tshape::BlockOpInterface>(op)) {
    const bool residual = sub.isResidualSubLayer();
    const BlockLowering *lower = loweringOf(op, residual);
    if (!lower)
      return failure();
    Value in = stepInput(map.lookupOrDefault(op->getOperand(0)));
    if (!residual)
      return carryKernels(op, -1, lower->whole(*this, op, in));
    // A standalone sub-layer is a layer of its own: y = x + f(x).
    int64_t layer = nextLayer++;
    ++layerCount;
    Value x2 = to2D(in);
    Backward bwd;
    Value y =
        add(x2, carryKernels(op, layer, lower->branch(*this, op, x2, layer, bwd)));
    tape.push_back([this, bwd](Value g) { return add(g, bwd(g)); });
    return to3D(y);
  }
  if (auto block = dyn_cast<tshape::BlockOp>(op)) {
    // Its residual sub-layers, in order (rule B1), at one layer index.
    SmallVector<tshape::BlockOpInterface> subs = block.getSubLayers();
    SmallVector<const BlockLowering *> lowerings;
    for (tshape::BlockOpInterface sub : subs) {
      lowerings.push_back(loweringOf(sub, /*branch=*/true));
      if (!lowerings.back())
        return failure();
    }
    int64_t layer = nextLayer++;
    ++layerCount;
    Value x2 = to2D(stepInput(map.lookupOrDefault(block.getInput())));
    SmallVector<Backward> bwds;
    auto branch = [&](size_t i, Value in) {
      Backward bwd;
      Value f = carryKernels(
          subs[i], layer, lowerings[i]->branch(*this, subs[i], in, layer, bwd));
      bwds.push_back(bwd);
      return f;
    };
    Value y = x2;
    if (block.getMode() == tshape::ResidualMode::sequential) {
      // h_i = h_{i-1} + f_i(h_{i-1}); backward through the chain reversed.
      for (size_t i = 0; i < subs.size(); ++i)
        y = add(y, branch(i, y));
      tape.push_back([this, bwds](Value g) {
        for (const Backward &bwd : llvm::reverse(bwds))
          g = add(g, bwd(g));
        return g;
      });
    } else {
      // y = x + sum_i f_i(x); the gradient reaches x through each branch.
      SmallVector<Value> fs;
      for (size_t i = 0; i < subs.size(); ++i)
        fs.push_back(branch(i, x2));
      for (Value f : fs)
        y = add(y, f);
      tape.push_back([this, bwds](Value g) {
        Value acc = g;
        for (const Backward &bwd : llvm::reverse(bwds))
          acc = add(acc, bwd(g));
        return acc;
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
    Value cur = stepInput(map.lookupOrDefault(repeat.getInput()));
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
  // All block ops of a function share one element type and run shape: the
  // first one's activations give them.
  tshape::BlockOpInterface first;
  fn.walk([&](tshape::BlockOpInterface op) {
    if (!first)
      first = op;
  });
  if (!first)
    return success();
  RankedTensorType act = first.getActivations().getType();
  elt = act.getElementType();
  batch = act.getDimSize(0);
  const int64_t irSeq = act.getDimSize(1);
  // A decode step computes 1 + draft positions of each sequence (the last
  // ones of the IR's s); its attention reads the cache for the rest of
  // the kv length. A prefill computes all s, over a cache when kv_length
  // exceeds s (a chunk after the cached context).
  seq = runShape.phase == model::Phase::Decode ? 1 + runShape.draft : irSeq;
  const int64_t keys = runShape.kvLength > 0 ? runShape.kvLength : irSeq;
  if (runShape.readsCache() && keys < seq)
    return fn.emitError()
           << "phase " << model::str(runShape) << ": the kv length " << keys
           << " is shorter than the " << seq
           << " query tokens per sequence of the step; give kv_length >= "
           << seq << " (the cached tokens plus the step's)";
  if (runShape.phase == model::Phase::Decode && irSeq < seq)
    return fn.emitError()
           << "phase " << model::str(runShape) << ": the step's " << seq
           << " query tokens per sequence exceed the IR's sequence of "
           << irSeq << "; import with --phase=decode (s = 1 + draft) or "
           << "lower fewer draft tokens";
  WalkResult mismatch = fn.walk([&](Operation *op) -> WalkResult {
    if (!isModelOp(op) || isa<tshape::YieldOp>(op))
      return WalkResult::advance();
    auto t = cast<RankedTensorType>(op->getResult(0).getType());
    if (t.getElementType() != elt || t.getDimSize(0) != batch ||
        t.getDimSize(1) != irSeq)
      return op->emitOpError()
             << "result " << t << " does not share the element type " << elt
             << " and batch x seq " << batch << "x" << irSeq
             << " of the function's other tshape ops",
             WalkResult::interrupt();
    // Rule LA3: an MLA prefill's context pieces are bounded.
    if (auto sub = dyn_cast<tshape::BlockOpInterface>(op))
      if (std::optional<model::BlockKind> kind = blockKindOf(op)) {
        model::ModelConfig c = config(sub);
        c.layerBlocks = {*kind};
        if (std::optional<model::RuleViolation> v =
                model::checkMlaContext(c, runShape))
          return op->emitOpError()
                     << "rule " << v->rule << ": " << v->message,
                 WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  if (mismatch.wasInterrupted())
    return failure();

  Block &entry = fn.getBody().front();
  SmallVector<Operation *> topLevel;
  for (Operation &op : entry)
    if (isModelOp(&op))
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
                             "the block models (Model/Blocks): "
                          << modelMismatch;

  auto ret = cast<func::ReturnOp>(entry.getTerminator());
  if (runShape.backward() && !tape.empty()) {
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
  // The GEMMs spell out the run's sizes, but not how they are priced (the
  // linear layers' precision, the phase that makes an FP8 cast write a
  // transposed copy, the tokens that reach a rank's experts): the run
  // stays on the function as a builtin string, "train precision=fp8"
  // (model::str; getRunShape reads it back).
  fn->setAttr(TShapeDialect::kRunAttrName, b.getStringAttr(model::str(runShape)));
  const int64_t tp = model::degree(parallel, model::Param::Tp);
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

namespace {
struct TShapeLowerToLinalgPass
    : public tshape::impl::TShapeLowerToLinalgBase<
          TShapeLowerToLinalgPass> {
  using Base::Base;
  void runOnOperation() override {
    for (auto fn : llvm::to_vector(getOperation().getOps<func::FuncOp>())) {
      if (fn.isExternal())
        continue;
      FailureOr<model::RunShape> run = passRunShape(*this, fn, phase, training);
      if (failed(run))
        return signalPassFailure();
      Lowerer lowerer(fn, *run, fuseGatedMlp, maxLayers, decomposeSoftmax,
                      weights == tshape::WeightValues::Pattern);
      if (failed(lowerer.run()))
        return signalPassFailure();
      numGemms += lowerer.gemmCount;
      numLayers += lowerer.layerCount;
    }
    // A module-level parallel attribute becomes builtin-typed too; each
    // function states the run it was lowered under.
    ModuleOp module = getOperation();
    module->removeAttr(TShapeDialect::kRunAttrName);
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
      if (isModelOp(op)) {
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
