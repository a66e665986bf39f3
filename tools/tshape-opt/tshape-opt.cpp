//===- tshape-opt.cpp - tshape optimizer driver ---------------------------===//
//
// mlir-opt for tshape: the tshape dialect, the dialects its passes emit, and
// every tshape pass. It does not link cuBLAS.
//
//===----------------------------------------------------------------------===//

#include "tshape/InitAll.h"

#include "mlir/Tools/mlir-opt/MlirOptMain.h"

namespace tshape::test {
void registerTestGemmConsistencyPass();
void registerTestKernelTablePass();
void registerTestBlock(mlir::DialectRegistry &registry);
} // namespace tshape::test

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  tshape::registerAllDialects(registry);
  tshape::registerFrontendDialects(registry);
  tshape::registerAllPasses();
  tshape::test::registerTestGemmConsistencyPass();
  tshape::test::registerTestKernelTablePass();
  tshape::test::registerTestBlock(registry);
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "tshape optimizer: transformer shapes to efficient GEMMs\n",
      registry));
}
