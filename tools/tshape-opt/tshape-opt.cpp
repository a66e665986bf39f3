//===- tshape-opt.cpp - tshape optimizer driver ---------------------------===//
//
// mlir-opt for tshape: the tshape dialect, the dialects its passes emit, and
// every tshape pass. It does not link cuBLAS.
//
//===----------------------------------------------------------------------===//

#include "tshape/InitAll.h"
#include "tshape/Tools/ToolOptions.h"

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
  // --help lists the passes and mlir-opt's options; the options of LLVM's
  // code generators, linked in but unrelated, stay under --help-hidden.
  // MlirOptMain registers its own options after this, so they stay shown.
  tshape::showOnlyOwnOptions({});
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "tshape optimizer: transformer shapes to efficient GEMMs\n",
      registry));
}
