//===- Passes.h - tshape shape rewrites -------------------------*- C++ -*-===//
//
// Declarations of the tshape rewrite passes.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_TRANSFORMS_PASSES_H
#define TSHAPE_TRANSFORMS_PASSES_H

#include "tshape/Dialect/TShape/IR/TShapeDialect.h"

#include "tshape/Model/RunShape.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace tshape {

/// Where tshape-run-gemms runs the GEMMs (its backend= option).
enum class RunBackend {
  Cpu,    ///< the runtime's fp32 reference, everywhere
  Cublas, ///< cuBLASLt, through the GPU backend library
};

#define GEN_PASS_DECL
#include "tshape/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tshape/Transforms/Passes.h.inc"

} // namespace tshape

#endif // TSHAPE_TRANSFORMS_PASSES_H
