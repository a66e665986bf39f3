//===- TShapeInterfaces.cpp - tshape op interfaces ------------------------===//
//
// The generated definitions of the block op interface (TShapeInterfaces.td);
// each op implements it in TShapeOps.cpp.
//
//===----------------------------------------------------------------------===//

#include "tshape/Dialect/TShape/IR/TShapeInterfaces.h"

#include "tshape/Dialect/TShape/IR/TShapeInterfaces.cpp.inc"

void tshape::readActivationSizes(tshape::model::ModelConfig &c,
                                 mlir::RankedTensorType type) {
  using tshape::model::Param;
  tshape::model::setParam(c, Param::Microbatch, type.getDimSize(0));
  tshape::model::setParam(c, Param::Seq, type.getDimSize(1));
  tshape::model::setParam(c, Param::Hidden, type.getDimSize(2));
}

void tshape::setLastDim(mlir::Value v, int64_t n) {
  auto t = mlir::cast<mlir::RankedTensorType>(v.getType());
  if (t.getDimSize(t.getRank() - 1) == n)
    return;
  llvm::SmallVector<int64_t> shape(t.getShape());
  shape.back() = n;
  v.setType(mlir::RankedTensorType::get(shape, t.getElementType()));
}
