//===- TShapeAttrs.h - tshape attributes ------------------------*- C++ -*-===//
//
// Typed attributes and enums of the tshape dialect.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_DIALECT_TSHAPE_IR_TSHAPEATTRS_H
#define TSHAPE_DIALECT_TSHAPE_IR_TSHAPEATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"
#include "tshape/Model/Parallelism.h"
#include "tshape/Model/RunShape.h"

#include "tshape/Dialect/TShape/IR/TShapeEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "tshape/Dialect/TShape/IR/TShapeAttrs.h.inc"

#endif // TSHAPE_DIALECT_TSHAPE_IR_TSHAPEATTRS_H
