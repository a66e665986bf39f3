//===- Passes.h - tshape analysis passes ------------------------*- C++ -*-===//
//
// Declarations of the tshape analysis passes.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_ANALYSIS_PASSES_H
#define TSHAPE_ANALYSIS_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace tshape {

#define GEN_PASS_DECL
#include "tshape/Analysis/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tshape/Analysis/Passes.h.inc"

} // namespace tshape

#endif // TSHAPE_ANALYSIS_PASSES_H
