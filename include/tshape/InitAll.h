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
#include "tshape/Transforms/Pipelines.h"
#include "tshape/Transforms/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/DialectRegistry.h"

namespace tshape {

/// The tshape dialect, the standard dialects of lowered IR, and those that
/// pipelines around it commonly carry (bufferization, memref, scf).
inline void registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<TShapeDialect, mlir::arith::ArithDialect,
                  mlir::func::FuncDialect, mlir::linalg::LinalgDialect,
                  mlir::math::MathDialect, mlir::tensor::TensorDialect,
                  mlir::bufferization::BufferizationDialect,
                  mlir::memref::MemRefDialect, mlir::scf::SCFDialect>();
}

/// Every tshape pass and pipeline (flags start with `tshape-`).
inline void registerAllPasses() {
  registerTShapeConversionPasses();
  registerTShapeAnalysisPasses();
  registerTShapeTransformsPasses();
  registerTShapePipelines();
}

} // namespace tshape

#endif // TSHAPE_INITALL_H
