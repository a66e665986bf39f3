//===- my-opt.cpp - A downstream opt tool embedding tshape ----------------===//
//
// Shows the two calls an embedding project needs: register the tshape
// dialects and the tshape passes, next to its own.
//
//===----------------------------------------------------------------------===//

#include "tshape/InitAll.h"

#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  tshape::registerAllDialects(registry);
  tshape::registerAllPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "my-opt with tshape\n", registry));
}
