//===- TShapeDialect.h - tshape dialect -------------------------*- C++ -*-===//
//
// Declares the tshape dialect and the helpers that read the model-wide
// attributes (tensor-parallel degree, f32 math mode) from the enclosing ops.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_DIALECT_TSHAPE_IR_TSHAPEDIALECT_H
#define TSHAPE_DIALECT_TSHAPE_IR_TSHAPEDIALECT_H

#include "tshape/Model/Transformer.h"

#include "mlir/IR/Dialect.h"

#include "tshape/Dialect/TShape/IR/TShapeDialect.h.inc"

namespace tshape {
/// The tensor-parallel degree in force at `op`: the `tshape.parallel`
/// attribute of the nearest enclosing op (or `op` itself) that has one, or
/// 1 when none does.
int64_t getTensorParallelDegree(mlir::Operation *op);

/// Whether f32 GEMMs at `op` use TF32 tensor cores: the nearest enclosing op
/// (or `op`) that says so with `tshape.math = #tshape.math<tf32>`, or with
/// the lowered form `tshape.tf32`. `#tshape.math<ieee>` says no.
bool usesTf32Math(mlir::Operation *op);

/// The cost model's element type for GEMM operands of type `t` at `op`
/// (f32 is TF32 where usesTf32Math); nullopt for types without a GEMM
/// model (integers, f64).
std::optional<model::DType> gemmDType(mlir::Operation *op, mlir::Type t);
} // namespace tshape

#endif // TSHAPE_DIALECT_TSHAPE_IR_TSHAPEDIALECT_H
