//===- tshape-plan.cpp - Evaluate or search training plans ----------------===//
//
// The standalone tool of the training-plan command (PlanCommand.h): its
// options at the top level. `tshape plan` runs the same command.
// docs/plan.md.
//
//===----------------------------------------------------------------------===//

#include "tshape/Tools/PlanHardware.h"
#include "tshape/Tools/PlanCommand.h"

#include "tshape/Tools/ToolOptions.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"

namespace cl = llvm::cl;

cl::SubCommand &tshape::plancmd::subCommand() {
  return cl::SubCommand::getTopLevel();
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  tshape::showOnlyOwnOptions(
      {&tshape::plancmd::category(), &tshape::planhw::category()});
  cl::ParseCommandLineOptions(argc, argv,
                              tshape::plancmd::overview("tshape-plan"));
  return tshape::plancmd::run("tshape-plan", argc, argv);
}
