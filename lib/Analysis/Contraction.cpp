//===- Contraction.cpp - GEMM view of linalg contractions -----------------===//
//
// Reads batch, M, N, K, the operand layouts and the model's provenance of any
// static linalg contraction (named or generic) via inferContractionDims.
//
//===----------------------------------------------------------------------===//

#include "tshape/Analysis/Contraction.h"
#include "tshape/Dialect/TShape/IR/TShapeDialect.h"

using namespace mlir;
using namespace tshape;

bool tshape::getOperandLayouts(linalg::LinalgOp op, bool &transA,
                               bool &transB) {
  transA = transB = false;
  FailureOr<linalg::ContractionDimensions> dims = contractionDims(op);
  if (failed(dims))
    return false;
  // Which loop dimension is innermost in A and in B.
  auto innermost = [&](unsigned operand) -> std::optional<unsigned> {
    AffineMap map = op.getIndexingMapsArray()[operand];
    if (map.getNumResults() == 0)
      return std::nullopt;
    if (auto d = dyn_cast<AffineDimExpr>(map.getResults().back()))
      return d.getPosition();
    return std::nullopt;
  };
  if (auto a = innermost(0))
    transA = llvm::is_contained(dims->m, *a);
  if (auto b = innermost(1))
    transB = llvm::is_contained(dims->k, *b);
  return true;
}

FailureOr<linalg::ContractionDimensions>
tshape::contractionDims(linalg::LinalgOp op) {
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  // Scalar operands (the zero points of linalg.quantized_matmul) take no
  // part in the index structure: read the two matrix operands and the
  // result.
  if (op.getNumDpsInputs() > 2) {
    SmallVector<AffineMap> shaped;
    for (OpOperand *in : op.getDpsInputOperands())
      if (isa<ShapedType>(in->get().getType()))
        shaped.push_back(op.getMatchingIndexingMap(in));
    if (shaped.size() != 2 || op.getNumDpsInits() != 1)
      return failure();
    shaped.push_back(op.getMatchingIndexingMap(op.getDpsInitOperand(0)));
    maps = shaped;
  }
  if (maps.size() != 3)
    return failure();
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(maps);
  if (failed(dims))
    return failure();
  // A loop dimension only the result has (an operand broadcast along it,
  // MLIR 20+ indexing_maps) still multiplies the work: every point of the
  // result is computed. It joins M when there is no M, else N when there is
  // no N, else M.
  SmallVector<unsigned> seen;
  for (AffineMap m : {maps[0], maps[1]})
    for (AffineExpr e : m.getResults())
      if (auto d = dyn_cast<AffineDimExpr>(e))
        seen.push_back(d.getPosition());
  SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
  for (AffineExpr e : maps[2].getResults()) {
    auto d = dyn_cast<AffineDimExpr>(e);
    if (!d || llvm::is_contained(seen, d.getPosition()) ||
        iters[d.getPosition()] != utils::IteratorType::parallel)
      continue;
    if (dims->m.empty() || !dims->n.empty())
      dims->m.push_back(d.getPosition());
    else
      dims->n.push_back(d.getPosition());
  }
  return dims;
}

std::optional<ContractionShape>
tshape::getContractionShape(linalg::LinalgOp op, bool *dynamic) {
  if (dynamic)
    *dynamic = false;
  FailureOr<linalg::ContractionDimensions> dims = contractionDims(op);
  // GEMV forms (linalg.matvec, vecmat, batch_matvec) have no N or no M
  // dimension: they are GEMMs with N = 1 or M = 1. A contraction needs K.
  if (failed(dims) || dims->k.empty())
    return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  ContractionShape s;
  auto product = [&](ArrayRef<unsigned> ds, int64_t &out) {
    std::optional<int64_t> p = 1;
    for (unsigned d : ds) {
      if (ShapedType::isDynamic(ranges[d]))
        return false;
      p = model::checkedMul(p, ranges[d]);
    }
    if (!p)
      return false;
    out = *p;
    return true;
  };
  if (!product(dims->batch, s.batch) || !product(dims->m, s.m) ||
      !product(dims->n, s.n) || !product(dims->k, s.k)) {
    if (dynamic)
      *dynamic = true;
    return std::nullopt;
  }
  getOperandLayouts(op, s.transA, s.transB);
  if (auto role = op->getAttrOfType<StringAttr>(TShapeDialect::kRoleAttrName))
    s.role = role.str();
  else
    s.role = op->getName().getStringRef().str();
  if (auto layer =
          op->getAttrOfType<IntegerAttr>(TShapeDialect::kLayerAttrName))
    s.layer = layer.getInt();
  s.spec = getGemmProvenance(op, s.batch, s.m, s.n, s.k);
  if (s.spec) {
    s.spec->transA = s.transA;
    s.spec->transB = s.transB;
  }
  return s;
}

