//===- TShapeOps.h - tshape operations --------------------------*- C++ -*-===//
//
// Operations of the tshape dialect.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_DIALECT_TSHAPE_IR_TSHAPEOPS_H
#define TSHAPE_DIALECT_TSHAPE_IR_TSHAPEOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "tshape/Dialect/TShape/IR/TShapeAttrs.h"
#include "tshape/Dialect/TShape/IR/TShapeDialect.h"
#include "tshape/Dialect/TShape/IR/TShapeInterfaces.h"

#define GET_OP_CLASSES
#include "tshape/Dialect/TShape/IR/TShapeOps.h.inc"

#endif // TSHAPE_DIALECT_TSHAPE_IR_TSHAPEOPS_H
