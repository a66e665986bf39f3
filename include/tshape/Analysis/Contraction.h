//===- Contraction.h - GEMM view of linalg contractions ---------*- C++ -*-===//
//
// Reads batch, M, N, K and the tshape role/layer of any static linalg
// contraction (named or generic), via linalg::inferContractionDims.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_ANALYSIS_CONTRACTION_H
#define TSHAPE_ANALYSIS_CONTRACTION_H

#include "tshape/Model/Transformer.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <optional>
#include <string>

namespace tshape {

/// The GEMM a contraction performs: batch x (M x K) . (K x N), with several
/// batch/M/N/K loop dimensions multiplied together.
struct ContractionShape {
  int64_t batch = 1, m = 1, n = 1, k = 1;
  std::string role; ///< tshape.role, or the op name when absent
  int64_t layer = -1;
  bool transA = false; ///< A's innermost dimension is an M dimension
  bool transB = false; ///< B's innermost dimension is a K dimension
  /// The model's description, when the op carries its provenance
  /// (tshape::getGemmProvenance).
  std::optional<model::GemmSpec> spec;
};

/// The batch, M, N and K loop dimensions of a contraction, from its two
/// matrix operands and its result (scalar operands such as zero points are
/// left out); result-only dimensions (a broadcast operand) join M or N.
mlir::FailureOr<mlir::linalg::ContractionDimensions>
contractionDims(mlir::linalg::LinalgOp op);

/// Operand layouts of a contraction: whether A's innermost dimension is an
/// M dimension (A stored K x M) and B's a K dimension (B stored N x K).
/// False when `op` is not a contraction.
bool getOperandLayouts(mlir::linalg::LinalgOp op, bool &transA, bool &transB);

/// The contraction's GEMM shape; nullopt when `op` is not a contraction,
/// and sets `dynamic` when it is one with dynamic sizes.
std::optional<ContractionShape> getContractionShape(mlir::linalg::LinalgOp op,
                                                    bool *dynamic = nullptr);

} // namespace tshape

#endif // TSHAPE_ANALYSIS_CONTRACTION_H
