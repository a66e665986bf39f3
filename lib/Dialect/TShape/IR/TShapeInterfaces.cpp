//===- TShapeInterfaces.cpp - tshape op interfaces ------------------------===//
//
// The generated definitions of the block op interface (TShapeInterfaces.td);
// each op implements it in TShapeOps.cpp.
//
//===----------------------------------------------------------------------===//

#include "tshape/Dialect/TShape/IR/TShapeInterfaces.h"

#include "tshape/Dialect/TShape/IR/TShapeInterfaces.cpp.inc"
