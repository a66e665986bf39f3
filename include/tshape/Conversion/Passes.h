//===- Passes.h - tshape conversion passes ----------------------*- C++ -*-===//
//
// Declarations of the tshape lowering and summary passes.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_CONVERSION_PASSES_H
#define TSHAPE_CONVERSION_PASSES_H

#include "tshape/Model/RunShape.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace tshape {

/// The values tshape-lower-to-linalg gives the weights (its weights=
/// option).
enum class WeightValues {
  Splat,   ///< every weight 0.01: compact IR at any size
  Pattern, ///< 0.1 sin(0.37 i + 1.13 j + seed), distinct per weight
};

#define GEN_PASS_DECL
#include "tshape/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tshape/Conversion/Passes.h.inc"

} // namespace tshape

#endif // TSHAPE_CONVERSION_PASSES_H
