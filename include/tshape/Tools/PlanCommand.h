//===- PlanCommand.h - tshape-plan as a command of two binaries -*- C++ -*-===//
//
// The training-plan command: its options (on subCommand(), in category()
// and the hardware modes' planhw::category()), its overview and its run
// after the command line is parsed. Two binaries run it with the same
// options and output: tshape-plan (its options at the top level) and the
// driver's `tshape plan`; each defines subCommand().
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_TOOLS_PLANCOMMAND_H
#define TSHAPE_TOOLS_PLANCOMMAND_H

#include "llvm/Support/CommandLine.h"

#include <string>

namespace tshape::plancmd {

/// Where the command's options live; defined by each binary (the top
/// level in tshape-plan, `plan` in tshape).
llvm::cl::SubCommand &subCommand();
/// The command's own options (the hardware modes have planhw::category()).
llvm::cl::OptionCategory &category();
/// The --help overview, naming `tool`.
std::string overview(const char *tool);
/// Runs the parsed command line `argv` (the hardware modes' plots quote
/// it); errors start "TOOL: error: ". The exit status.
int run(const char *tool, int argc, char **argv);

} // namespace tshape::plancmd

#endif // TSHAPE_TOOLS_PLANCOMMAND_H
