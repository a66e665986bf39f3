//===- Passes.h - tshape analysis passes ------------------------*- C++ -*-===//
//
// Declarations of the tshape analysis passes.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_ANALYSIS_PASSES_H
#define TSHAPE_ANALYSIS_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "llvm/Support/CommandLine.h"

namespace tshape {

/// Which GEMMs tshape-gemm-analysis reports as diagnostics (its remarks=
/// option, and the global -tshape-remarks).
enum class AnalysisRemarks {
  None,    ///< no diagnostics
  Flagged, ///< a warning for each GEMM above the threshold
  All,     ///< also a remark for every other GEMM and every skipped one
};

/// The names of AnalysisRemarks on the command line, shared by remarks=
/// and -tshape-remarks so that the two accept the same words.
inline llvm::cl::ValuesClass analysisRemarksValues() {
  return llvm::cl::values(
      clEnumValN(AnalysisRemarks::None, "none", "no diagnostics"),
      clEnumValN(AnalysisRemarks::Flagged, "flagged",
                 "a warning for each GEMM above the threshold"),
      clEnumValN(AnalysisRemarks::All, "all",
                 "also a remark for every other GEMM and skipped op"));
}

#define GEN_PASS_DECL
#include "tshape/Analysis/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tshape/Analysis/Passes.h.inc"

} // namespace tshape

#endif // TSHAPE_ANALYSIS_PASSES_H
