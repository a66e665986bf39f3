//===- TestBlockOps.cpp - The test block's op -----------------------------===//
//
// Step 2 of "Adding a block": the op, with the block op interface (its
// block's name, what it states, reading and writing the config: stated once
// for both test ops in TestBlockOps.td).
//
//===----------------------------------------------------------------------===//

#include "TestBlock.h"
#include "tshape/Model/Transformer.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace tshape::test;

#include "TestBlockDialect.cpp.inc"

void TShapeTestDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "TestBlockOps.cpp.inc"
      >();
}

#define GET_OP_CLASSES
#include "TestBlockOps.cpp.inc"

namespace {
/// Input and result are one static batch x seq x hidden type.
LogicalResult verifySubLayer(Operation *op, Type in, Type out) {
  auto t = cast<RankedTensorType>(in);
  if (t.getRank() != 3 || !t.hasStaticShape() || t != out)
    return op->emitOpError() << "input and result must be one static batch x "
                                "seq x hidden type, got "
                             << in << " -> " << out;
  return success();
}
} // namespace

LogicalResult ProjOp::verify() {
  return verifySubLayer(*this, getInput().getType(), getResult().getType());
}

LogicalResult BareOp::verify() {
  return verifySubLayer(*this, getInput().getType(), getResult().getType());
}

LogicalResult ScanOp::verify() {
  return verifySubLayer(*this, getInput().getType(), getResult().getType());
}
