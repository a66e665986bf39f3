//===- Subcommands.h - The tshape driver's subcommands ----------*- C++ -*-===//
//
// Each subcommand of `tshape` owns an llvm::cl::SubCommand, its options
// (in its own category) and a run function called after the command line
// is parsed. Adding one: a file here, a row in tshape.cpp's table.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_TOOLS_TSHAPE_SUBCOMMANDS_H
#define TSHAPE_TOOLS_TSHAPE_SUBCOMMANDS_H

#include "llvm/Support/CommandLine.h"

#include <string>

namespace tshape::driver {

/// The driver's name, the start of every error line.
inline constexpr const char kTool[] = "tshape";

/// Prints "tshape: error: MESSAGE" and returns 1.
int fail(const std::string &message);

/// `tshape advise`: the subcommand, its option category, its run.
llvm::cl::SubCommand &adviseCommand();
llvm::cl::OptionCategory &adviseCategory();
int runAdvise();

/// `tshape serve` (Serve.cpp).
llvm::cl::SubCommand &serveCommand();
llvm::cl::OptionCategory &serveCategory();
int runServe();

} // namespace tshape::driver

#endif // TSHAPE_TOOLS_TSHAPE_SUBCOMMANDS_H
