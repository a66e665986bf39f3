//===- InitAll.h - Register tshape dialects and passes ----------*- C++ -*-===//
//
// One call each to make a tool (tshape-opt, or an embedding project's opt)
// know the tshape dialect, the dialects its passes emit, and its passes.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_INITALL_H
#define TSHAPE_INITALL_H

#include "tshape/Analysis/Passes.h"
#include "tshape/Conversion/Passes.h"
#include "tshape/Dialect/TShape/IR/TShapeDialect.h"
#include "tshape/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"

namespace tshape {

/// The tshape dialect and the standard dialects of lowered IR.
inline void registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<TShapeDialect, mlir::arith::ArithDialect,
                  mlir::func::FuncDialect, mlir::linalg::LinalgDialect,
                  mlir::math::MathDialect, mlir::tensor::TensorDialect>();
}

/// Every tshape pass (flags start with `tshape-`).
inline void registerAllPasses() {
  registerTShapeConversionPasses();
  registerTShapeAnalysisPasses();
  registerTShapeTransformsPasses();
}

} // namespace tshape

#endif // TSHAPE_INITALL_H
