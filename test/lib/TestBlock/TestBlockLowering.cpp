//===- TestBlockLowering.cpp - The test block's lowering ------------------===//
//
// Step 3 of "Adding a block": the lowering file. Finds the block's GEMM by
// its role and emits it with its backward; the residual add and the layer
// index come from the lowering of tshape.block.
//
//===----------------------------------------------------------------------===//

#include "TestBlock.h"
#include "tshape/Conversion/TShapeToLinalg/Lowerer.h"

using namespace mlir;
using namespace tshape;
using namespace tshape::lowering;

namespace {
Value lowerProj(Lowerer &l, Operation *op, Value x2, int64_t layer,
                Lowerer::Backward &bwd) {
  model::ModelConfig c = l.config(cast<BlockOpInterface>(op));
  std::vector<model::Kernel> ks = l.kernels(test::testProjBlock(), c, layer);
  SmallVector<Lowerer::Backward> steps;
  Value y = l.linear(*Lowerer::find(ks, test::testProjRole()), x2, &steps);
  bwd = steps.front();
  return y;
}
} // namespace

void tshape::test::registerTestBlock(DialectRegistry &registry) {
  registry.insert<TShapeTestDialect>();
  registerBlockLowering({testProjBlock(), lowerProj, nullptr});
  // test_bare and test_scan have block models but, on purpose, no
  // lowering.
  testBareBlock();
  testScanBlock();
}
