//===- ToolOptions.h - what a tool's --help shows ---------------*- C++ -*-===//
//
// The tools link LLVM and MLIR libraries that register a few hundred
// command-line options of their own (code generators, sanitizers, ...).
// `showOnlyOwnOptions` moves every option registered so far that is not in
// one of the tool's categories to --help-hidden, so --help shows the tool's
// options and those its driver (MlirOptMain, mlirTranslateMain) registers
// afterwards; `toolError` starts an error about the command line. Unlike
// llvm::cl::HideUnrelatedOptions, which makes them ReallyHidden, they stay
// listed by --help-hidden and --help-list-hidden.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_TOOLS_TOOLOPTIONS_H
#define TSHAPE_TOOLS_TOOLOPTIONS_H

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/WithColor.h"

#include <initializer_list>

namespace tshape {

inline void showOnlyOwnOptions(
    std::initializer_list<const llvm::cl::OptionCategory *> own) {
  for (auto &entry : llvm::cl::getRegisteredOptions()) {
    llvm::cl::Option *opt = entry.second;
    // --help, --version and their kin are in LLVM's "Generic Options".
    bool keep = llvm::any_of(opt->Categories, [&](llvm::cl::OptionCategory *c) {
      return llvm::is_contained(own, c) || c->getName() == "Generic Options";
    });
    if (!keep && opt->getOptionHiddenFlag() == llvm::cl::NotHidden)
      opt->setHiddenFlag(llvm::cl::Hidden);
  }
}

/// The start of an error about the command line, not about an input file:
/// `tool: error: ` (no `<unknown>:0:` location); the caller ends the line.
inline llvm::raw_ostream &toolError(llvm::StringRef tool) {
  return llvm::WithColor::error(llvm::errs(), tool);
}

} // namespace tshape

#endif // TSHAPE_TOOLS_TOOLOPTIONS_H
