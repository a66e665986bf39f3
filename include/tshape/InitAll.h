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

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Complex/IR/Complex.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/MLProgram/IR/MLProgram.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
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

/// The upstream dialects that frontends leave around linalg, so that their
/// output parses as emitted: cf (torch-mlir's cf.assert shape checks),
/// ml_program (torch-mlir's globals), affine, vector, complex, index and
/// tosa (IREE, StableHLO and TOSA pipelines). Not all upstream dialects:
/// each one links a library, and these are the ones real pipelines put
/// next to linalg (docs/linalg-forms.md). A tool that calls this links
/// MLIRControlFlowDialect, MLIRMLProgramDialect, MLIRAffineDialect,
/// MLIRVectorDialect, MLIRComplexDialect, MLIRIndexDialect, MLIRTosaDialect.
inline void registerFrontendDialects(mlir::DialectRegistry &registry) {
  registry.insert<mlir::cf::ControlFlowDialect,
                  mlir::ml_program::MLProgramDialect,
                  mlir::affine::AffineDialect, mlir::vector::VectorDialect,
                  mlir::complex::ComplexDialect, mlir::index::IndexDialect,
                  mlir::tosa::TosaDialect>();
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
