//===- TestBlockOps.cpp - The test block's op -----------------------------===//
//
// Step 2 of "Adding a block": the op, with the block op interface (its
// block's name, what it states, reading and writing the config).
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

LogicalResult ProjOp::verify() {
  auto in = cast<RankedTensorType>(getInput().getType());
  if (in.getRank() != 3 || !in.hasStaticShape() ||
      in != getResult().getType())
    return emitOpError() << "input and result must be one static batch x seq "
                            "x hidden type, got "
                         << in << " -> " << getResult().getType();
  return success();
}

StringRef ProjOp::getBlockName() { return "test_proj"; }
bool ProjOp::isResidualSubLayer() { return true; }
TypedValue<RankedTensorType> ProjOp::getActivations() {
  return cast<TypedValue<RankedTensorType>>(getInput());
}
SmallVector<tshape::model::Param> ProjOp::getStatedParams() { return {}; }
StringRef ProjOp::getConfigGroup() { return "test_proj ops"; }
void ProjOp::readConfig(tshape::model::ModelConfig &config) {
  tshape::readActivationSizes(config, getActivations().getType());
}
void ProjOp::writeConfig(const tshape::model::ModelConfig &config) {
  tshape::setLastDim(getResult(),
                     tshape::model::getParam(config,
                                             tshape::model::Param::Hidden));
}
