//===- TShapeInterfaces.h - tshape op interfaces ----------------*- C++ -*-===//
//
// The block op interface (TShapeInterfaces.td): the ops that stand for a
// block of the plain-C++ model name it, read the hyperparameters they state
// into a model::ModelConfig and rewrite themselves to another one.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_DIALECT_TSHAPE_IR_TSHAPEINTERFACES_H
#define TSHAPE_DIALECT_TSHAPE_IR_TSHAPEINTERFACES_H

#include "tshape/Model/Params.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"

#include "tshape/Dialect/TShape/IR/TShapeInterfaces.h.inc"

#endif // TSHAPE_DIALECT_TSHAPE_IR_TSHAPEINTERFACES_H
