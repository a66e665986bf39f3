//===- TShapeDialect.h - tshape dialect -------------------------*- C++ -*-===//
//
// Declares the tshape dialect and the helpers that read the model-wide
// attributes (tensor-parallel degree, f32 math mode) from the enclosing ops.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_DIALECT_TSHAPE_IR_TSHAPEDIALECT_H
#define TSHAPE_DIALECT_TSHAPE_IR_TSHAPEDIALECT_H

#include "mlir/IR/Dialect.h"

#include "tshape/Dialect/TShape/IR/TShapeDialect.h.inc"

namespace tshape {
/// The tensor-parallel degree in force at `op`: the `tshape.parallel`
/// attribute of the nearest enclosing op (or `op` itself) that has one, or
/// 1 when none does.
int64_t getTensorParallelDegree(mlir::Operation *op);
} // namespace tshape

#endif // TSHAPE_DIALECT_TSHAPE_IR_TSHAPEDIALECT_H
