//===- GemmAttributes.h - The records tshape passes put on GEMMs -*- C++ -*-===//
//
// Lowered IR stays plain MLIR (docs/architecture.md), so the facts tshape
// passes attach to a GEMM are builtin dictionaries. This file is their one
// home: each record is a C++ struct with one writer and one reader, and one
// schema the dialect's attribute verifier checks (field names and kinds).
//   tshape.measured  what tshape-run-gemms measured (GemmMeasurement)
//   tshape.analysis  what tshape-gemm-analysis predicted (GemmPrediction)
// The size provenance (tshape.sizes) is in TShapeDialect.h.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_DIALECT_TSHAPE_IR_GEMMATTRIBUTES_H
#define TSHAPE_DIALECT_TSHAPE_IR_GEMMATTRIBUTES_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Operation.h"

#include <optional>
#include <string>

namespace tshape {

/// tshape.measured: one GEMM timed by the runtime.
struct GemmMeasurement {
  std::string backend;
  double medianUs = 0, minUs = 0, maxUs = 0, tflops = 0;
  int64_t iters = 0;
  int64_t algoId = -1, tileId = -1, tileM = 0, tileN = 0;
  double wavesCount = 0;
  std::optional<double> predictionError; ///< when predicted before
  std::optional<double> maxRelError;     ///< with check=true
};
void setGemmMeasurement(mlir::Operation *op, const GemmMeasurement &m);
std::optional<GemmMeasurement> getGemmMeasurement(mlir::Operation *op);

/// tshape.analysis: one GEMM as the cost model predicts it.
struct GemmPrediction {
  std::string bound; ///< compute, memory or fused
  double predictedUs = 0, loss = 0;
  bool flagged = false;
  int64_t tileM = 0, tileN = 0, splitK = 1, waves = 0;
  double tileEfficiency = 1, kEfficiency = 1, waveEfficiency = 1,
         alignFactor = 1;
};
void setGemmPrediction(mlir::Operation *op, const GemmPrediction &p);
std::optional<GemmPrediction> getGemmPrediction(mlir::Operation *op);

/// Checks a tshape.measured or tshape.analysis dictionary against its
/// schema; false with `error` set (for the dialect's attribute verifier).
bool verifyGemmRecord(llvm::StringRef name, mlir::DictionaryAttr dict,
                      std::string &error);

} // namespace tshape

#endif // TSHAPE_DIALECT_TSHAPE_IR_GEMMATTRIBUTES_H
