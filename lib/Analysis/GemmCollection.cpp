//===- GemmCollection.cpp - The GEMMs of a module, collected once ---------===//

#include "tshape/Analysis/GemmCollection.h"
#include "tshape/Dialect/TShape/IR/TShapeDialect.h"

using namespace mlir;
using namespace tshape;

namespace {
/// Why `op`, an op with a reduction, is not read as a GEMM; empty when it
/// may be one.
std::string notAGemm(linalg::LinalgOp op) {
  // Convolutions: their input is indexed by sums such as d1 + d4, which
  // inferContractionDims drops; read as GEMMs they would have a fraction of
  // their work. They are never counted as GEMMs.
  if (linalg::isaConvolutionOpInterface(op))
    return "convolution: its input window (indexed by sums of loop "
           "dimensions) is not a matrix operand; convolutions are not "
           "analyzed as GEMMs";
  for (AffineMap map : op.getIndexingMapsArray())
    if (!map.isProjectedPermutation(/*allowZeroInResults=*/true))
      return "an indexing map (" + [&] {
        std::string s;
        llvm::raw_string_ostream os(s);
        map.print(os);
        return s;
      }() + ") is not a projected permutation: a convolution-like access, "
            "not a GEMM";
  return "";
}

bool hasReduction(linalg::LinalgOp op) {
  return op.getNumReductionLoops() > 0;
}
} // namespace

GemmCollection::GemmCollection(Operation *root) {
  root->walk([&](linalg::LinalgOp op) {
    if (!hasReduction(op))
      return; // elementwise, fills, transposes: no GEMM work
    std::string why = notAGemm(op);
    if (!why.empty()) {
      notRead.push_back({op, "convolution", why});
      return;
    }
    bool dynamic = false;
    std::optional<ContractionShape> shape = getContractionShape(op, &dynamic);
    if (!shape) {
      if (dynamic)
        notRead.push_back({op, "dynamic shape",
                           "dynamic shape: only static GEMMs are read"});
      else
        notRead.push_back({op, "reduction",
                           "a reduction that is not a contraction (no "
                           "operand pair multiplies over it): not a GEMM"});
      return;
    }
    CollectedGemm g;
    g.op = op;
    g.shape = std::move(*shape);
    g.elementType =
        getElementTypeOrSelf(op.getDpsInputOperand(0)->get().getType());
    g.dtype = gemmDType(op, g.elementType);
    collected.push_back(std::move(g));
  });
}
