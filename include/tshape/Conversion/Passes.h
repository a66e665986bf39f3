//===- Passes.h - tshape conversion passes ----------------------*- C++ -*-===//
//
// Declarations of the tshape lowering and summary passes.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_CONVERSION_PASSES_H
#define TSHAPE_CONVERSION_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace tshape {

#define GEN_PASS_DECL
#include "tshape/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tshape/Conversion/Passes.h.inc"

} // namespace tshape

#endif // TSHAPE_CONVERSION_PASSES_H
