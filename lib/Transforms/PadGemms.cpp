//===- PadGemms.cpp - tshape-pad-gemms ------------------------------------===//
//
// Pads the M, N (and, for multiply-add contractions, K) loop dimensions of
// static linalg contractions to a multiple, when the GEMM cost model
// predicts the padded GEMM plus its copies beats the original. Zero padding
// keeps the results: zeros add nothing to a multiply-add sum, and padded
// rows and columns are sliced away. A GEMM the model has no dtype for
// (integer, f64) cannot be predicted: force=true pads it, otherwise a remark
// says why it is left alone.
//
//===----------------------------------------------------------------------===//

#include "tshape/Analysis/GemmCollection.h"
#include "tshape/Cost/GemmModel.h"
#include "tshape/Cost/PredictKernel.h"
#include "tshape/Dialect/TShape/IR/TShapeDialect.h"
#include "tshape/Analysis/TargetResolution.h"
#include "tshape/Transforms/Passes.h"
#include "tshape/PassDiagnostics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/Builders.h"
#include "llvm/Support/Format.h"

namespace tshape {
#define GEN_PASS_DEF_TSHAPEPADGEMMS
#include "tshape/Transforms/Passes.h.inc"
} // namespace tshape

using namespace mlir;
using namespace tshape;
using namespace tshape::cost;

namespace {

int64_t roundUp(int64_t v, int64_t m) { return (v + m - 1) / m * m; }


/// The operand's shape with each dimension replaced by its loop's padded
/// size (the maps of static contractions are projected permutations).
SmallVector<int64_t> paddedShape(AffineMap map, ArrayRef<int64_t> shape,
                                 ArrayRef<int64_t> ranges) {
  SmallVector<int64_t> out(shape);
  for (auto [i, e] : llvm::enumerate(map.getResults()))
    if (auto d = dyn_cast<AffineDimExpr>(e))
      out[i] = ranges[d.getPosition()];
  return out;
}

int64_t elements(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

/// The fill producing `v` when `v` is a linalg.fill of a tensor.empty.
linalg::FillOp filledEmpty(Value v) {
  auto fill = v.getDefiningOp<linalg::FillOp>();
  if (fill && fill.getOutputs()[0].getDefiningOp<tensor::EmptyOp>())
    return fill;
  return nullptr;
}

struct TShapePadGemmsPass
    : public tshape::impl::TShapePadGemmsBase<TShapePadGemmsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (multiple < 0) {
      emitError(module.getLoc())
          << passPrefix(*this) << "multiple must be >= 0 (0: the target's "
             "best alignment), got "
          << multiple.getValue();
      return signalPassFailure();
    }
    std::optional<target::GpuTarget> tgt =
        resolveTarget(module, getArgument(), targetName, targetFile);
    if (!tgt)
      return signalPassFailure();
    // Collected before any rewrite; each op is padded at most once.
    std::vector<CollectedGemm> gemms = getAnalysis<GemmCollection>().gemms();
    for (const CollectedGemm &g : gemms)
      if (linalg::LinalgOp(g.op).hasPureTensorSemantics())
        padOne(g, *tgt);
  }

  void padOne(const CollectedGemm &g, const target::GpuTarget &tgt) {
    linalg::LinalgOp op = g.op;
    const ContractionShape *shape = &g.shape;
    auto dims = contractionDims(op);
    auto dtype = g.dtype;
    Type elt = g.elementType;
    if (failed(dims))
      return;
    // Under the run the function states (docs/lowering.md), a weight GEMM
    // of an FP8 precision is an FP8 linear layer: its operands' alignment
    // and its price are FP8's, as the analysis poses it (gemmProblem).
    std::optional<GemmProblem> posed;
    if (dtype && shape->spec)
      if (std::optional<model::RunShape> run = getRunShape(op)) {
        posed = gemmProblem(*shape->spec, *dtype, &*run, &tgt);
        dtype = posed->dtype;
      }
    // A GEMM the cost model has no dtype for (integer, f64) has no
    // prediction, but is padded when forced; its alignment in elements
    // comes from its own element width.
    int64_t eb = 1;
    if (dtype)
      eb = model::dtypeBytes(*dtype);
    else if (elt.isIntOrFloat())
      eb = std::max<int64_t>(1, elt.getIntOrFloatBitWidth() / 8);
    int64_t mult = multiple ? (int64_t)multiple
                            : std::max<int64_t>(1, tgt.bestAlignBytes / eb);
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    SmallVector<int64_t> padded(ranges);
    // K may only be padded when zeros add nothing: a multiply-add body.
    bool mulAdd = linalg::isaContractionOpInterface(op);
    auto padDims = [&](ArrayRef<unsigned> ds) {
      for (unsigned d : ds)
        padded[d] = roundUp(ranges[d], mult);
    };
    // Only single-dimension M/N/K are padded (the usual GEMM forms).
    if (dims->m.size() == 1)
      padDims(dims->m);
    if (dims->n.size() == 1)
      padDims(dims->n);
    if (mulAdd && dims->k.size() == 1)
      padDims(dims->k);
    if (padded == ranges) {
      ++numAligned;
      return;
    }
    // Which operands change shape: the tensors indexed by a padded loop
    // dimension (scalars, such as quantized_matmul's zero points, never).
    SmallVector<bool> changes;
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    for (OpOperand &operand : op->getOpOperands()) {
      auto t = dyn_cast<RankedTensorType>(operand.get().getType());
      changes.push_back(
          t && paddedShape(maps[operand.getOperandNumber()], t.getShape(),
                           padded) != SmallVector<int64_t>(t.getShape()));
    }

    // (Without a dtype, p and q only name the sizes: nothing is predicted.)
    GemmProblem p{shape->batch, shape->m, shape->n, shape->k,
                  dtype.value_or(model::DType::FP32), shape->transA,
                  shape->transB};
    if (posed)
      p = *posed;
    GemmProblem q = p;
    q.m = dims->m.size() == 1 ? padded[dims->m[0]] : p.m;
    q.n = dims->n.size() == 1 ? padded[dims->n[0]] : p.n;
    q.k = mulAdd && dims->k.size() == 1 ? padded[dims->k[0]] : p.k;
    std::string what;
    llvm::raw_string_ostream ws(what);
    const char *names[] = {"M", "N", "K"};
    int64_t olds[] = {p.m, p.n, p.k}, news[] = {q.m, q.n, q.k};
    for (int i = 0; i < 3; ++i)
      if (olds[i] != news[i])
        ws << (what.empty() ? "" : ", ") << names[i] << " " << olds[i]
           << " -> " << news[i];

    // No dtype, no prediction: padded only when forced, and said so. Only
    // integer and float zeros are built (arith.constant).
    std::string elementName;
    llvm::raw_string_ostream(elementName) << "'" << elt << "'";
    std::string msg;
    llvm::raw_string_ostream ms(msg);
    ms << passPrefix(*this);
    if (!dtype && !elt.isIntOrFloat()) {
      ms << "not padded: element type " << elementName
         << " has no arith zero to pad with";
      op->emitRemark(ms.str());
      ++numUnpadded;
      return;
    }
    if (!dtype && !force) {
      ms << "not padded: " << what << ": element type " << elementName
         << " has no GEMM model to predict a gain (force=true pads it)";
      op->emitRemark(ms.str());
      ++numUnpadded;
      return;
    }
    if (!dtype)
      ms << "padded " << what << " (forced; element type " << elementName
         << " has no GEMM model, so no gain is predicted)";
    else if (!predictGain(op, p, q, what, changes, maps, padded, tgt, ms)) {
      op->emitRemark(ms.str());
      ++numUnpadded;
      return;
    }
    rewrite(op, changes, maps, padded, ms);
  }

  /// Predicts `p` padded to `q` (`what`), with the copies the pads of the
  /// `changes` operands cost at memory bandwidth, and writes the remark to
  /// `ms`. Returns whether to pad: a net gain, or force.
  bool predictGain(linalg::LinalgOp op, const GemmProblem &p,
                   const GemmProblem &q, StringRef what, ArrayRef<bool> changes,
                   ArrayRef<AffineMap> maps, ArrayRef<int64_t> padded,
                   const target::GpuTarget &tgt, llvm::raw_string_ostream &ms) {
    GemmEstimate before = estimateGemm(p, tgt), after = estimateGemm(q, tgt);
    double bw = tgt.memoryBandwidthGBs * 1e9 * tgt.memoryEfficiency;
    double copyUs = 0;
    for (OpOperand &operand : op->getOpOperands()) {
      if (!changes[operand.getOperandNumber()])
        continue;
      auto t = cast<RankedTensorType>(operand.get().getType());
      SmallVector<int64_t> ps = paddedShape(
          maps[operand.getOperandNumber()], t.getShape(), padded);
      // A pad reads the source and writes the padded tensor. A filled
      // init (linalg.fill of tensor.empty) is instead rebuilt at the padded
      // size: only the extra elements are written. The slice back is a view
      // (it bufferizes to memref.subview) and copies nothing.
      // Bytes of this operand's own element type (an f32 accumulator of a
      // bf16 GEMM moves 4 bytes per element).
      const double ob =
          std::max<int64_t>(1, t.getElementTypeBitWidth() / 8);
      double bytes = ob * (elements(t.getShape()) + elements(ps));
      double launches = 1;
      if (op.isDpsInit(&operand) && filledEmpty(operand.get())) {
        bytes = ob * (elements(ps) - elements(t.getShape()));
        launches = 0;
      }
      copyUs += bytes / bw * 1e6 + launches * tgt.launchOverheadUs;
    }
    double net = before.predictedUs / (after.predictedUs + copyUs);
    if (!force && net <= 1.0) {
      ms << "not padded: " << what << " predicts "
         << llvm::format("%.1f", before.predictedUs) << " -> "
         << llvm::format("%.1f", after.predictedUs) << " us + "
         << llvm::format("%.1f", copyUs) << " us of copies (no net gain)";
      return false;
    }
    ms << "padded " << what << ": predicted "
       << llvm::format("%.1f", before.predictedUs) << " -> "
       << llvm::format("%.1f", after.predictedUs) << " us + "
       << llvm::format("%.1f", copyUs) << " us of pad copies = "
       << llvm::format("%.2fx", net) << (force ? " (forced)" : "");
    return true;
  }

  /// Replaces `op` by its padded form: each changed operand zero-padded (a
  /// filled init rebuilt at the padded size), the clone on the padded
  /// operands, and slices of the original sizes. `ms` holds the remark so
  /// far; the operands that could be stored pre-padded are added to it.
  void rewrite(linalg::LinalgOp op, ArrayRef<bool> changes,
               ArrayRef<AffineMap> maps, ArrayRef<int64_t> padded,
               llvm::raw_string_ostream &ms) {
    OpBuilder b(op);
    Location loc = op.getLoc();
    // Each operand is padded with a zero of its own element type: an f32
    // accumulator of a bf16 GEMM gets an f32 zero.
    llvm::DenseMap<Type, Value> zeros;
    auto zeroOf = [&](Type t) {
      Value &z = zeros[t];
      if (!z)
        z = arith::ConstantOp::create(b, loc, b.getZeroAttr(t));
      return z;
    };
    SmallVector<Value> operands;
    std::string stored;
    for (OpOperand &operand : op->getOpOperands()) {
      Value v = operand.get();
      unsigned i = operand.getOperandNumber();
      if (!changes[i]) {
        operands.push_back(v);
        continue;
      }
      auto t = cast<RankedTensorType>(v.getType());
      SmallVector<int64_t> ps = paddedShape(maps[i], t.getShape(), padded);
      if (auto fill = filledEmpty(v)) {
        // Rebuild the filled init at the padded size.
        Value empty = tensor::EmptyOp::create(b, loc, ps, t.getElementType());
        operands.push_back(
            linalg::FillOp::create(b, loc, ValueRange{fill.getInputs()[0]},
                                   ValueRange{empty})
                .getResult(0));
        continue;
      }
      SmallVector<OpFoldResult> low(t.getRank(), b.getIndexAttr(0)), high;
      for (auto [o, n] : llvm::zip(t.getShape(), ps))
        high.push_back(b.getIndexAttr(n - o));
      auto padOp = tensor::PadOp::create(
          b, loc, RankedTensorType::get(ps, t.getElementType()), v, low, high,
          zeroOf(t.getElementType()));
      operands.push_back(padOp);
      bool isInput = !op.isDpsInit(&operand);
      if (isInput && (v.getDefiningOp<arith::ConstantOp>() ||
                      (isa<BlockArgument>(v) &&
                       isa<func::FuncOp>(
                           cast<BlockArgument>(v).getOwner()->getParentOp()))))
        stored += (stored.empty() ? "" : ", ") + std::string("operand ") +
                  std::to_string(i) +
                  (v.getDefiningOp<arith::ConstantOp>() ? " (a constant)"
                                                        : " (a function "
                                                          "argument)");
    }
    SmallVector<Type> resultTypes;
    for (Value init : ArrayRef<Value>(operands).drop_front(op.getNumDpsInputs()))
      resultTypes.push_back(init.getType());
    Operation *paddedOp = mlir::clone(b, op.getOperation(), resultTypes, operands);
    SmallVector<Value> results;
    for (auto [orig, res] :
         llvm::zip(op->getResults(), paddedOp->getResults())) {
      auto t = cast<RankedTensorType>(orig.getType());
      SmallVector<OpFoldResult> offsets(t.getRank(), b.getIndexAttr(0)),
          sizes, strides(t.getRank(), b.getIndexAttr(1));
      for (int64_t d : t.getShape())
        sizes.push_back(b.getIndexAttr(d));
      results.push_back(tensor::ExtractSliceOp::create(b, loc, t, res, offsets,
                                                       sizes, strides));
    }
    if (!stored.empty())
      ms << "; " << stored
         << " could be stored pre-padded to drop its copy";
    op->emitRemark(ms.str());
    op->replaceAllUsesWith(results);
    op->erase();
    ++numPadded;
  }
};
} // namespace
