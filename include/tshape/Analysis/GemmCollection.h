//===- GemmCollection.h - The GEMMs of a module, collected once -*- C++ -*-===//
//
// Every static linalg contraction of an operation with its GEMM view
// (Contraction.h), its element type and the cost model's dtype, plus every
// other op with a reduction, with the reason it is not read as a GEMM. The
// passes that walk contractions (gemm-analysis, gemm-summary, pad-gemms,
// run-gemms) get it from the pass manager with getAnalysis<GemmCollection>(),
// in the way CIRCT's passes share an InstanceGraph.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_ANALYSIS_GEMMCOLLECTION_H
#define TSHAPE_ANALYSIS_GEMMCOLLECTION_H

#include "tshape/Analysis/Contraction.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <string>
#include <vector>

namespace tshape {

/// One contraction the GEMM passes can read.
struct CollectedGemm {
  mlir::linalg::LinalgOp op;
  ContractionShape shape;
  mlir::Type elementType; ///< of the A operand
  /// The cost model's element type; nullopt when it has none (integers, f64).
  std::optional<model::DType> dtype;
  /// 2 * batch * m * n * k.
  double flops() const {
    return 2.0 * double(shape.batch) * double(shape.m) * double(shape.n) *
           double(shape.k);
  }
};

/// An op with a reduction that was not read as a GEMM, and why: a dynamic
/// shape, a convolution, or a reduction that is not a contraction.
struct SkippedGemm {
  mlir::linalg::LinalgOp op;
  std::string kind;   ///< "dynamic shape", "convolution", "reduction"
  std::string reason; ///< a sentence: what it is and why it is not read
};

class GemmCollection {
public:
  /// Walks `op` (a module) in program order.
  explicit GemmCollection(mlir::Operation *op);

  const std::vector<CollectedGemm> &gemms() const { return collected; }
  const std::vector<SkippedGemm> &skipped() const { return notRead; }

private:
  std::vector<CollectedGemm> collected;
  std::vector<SkippedGemm> notRead;
};

} // namespace tshape

#endif // TSHAPE_ANALYSIS_GEMMCOLLECTION_H
