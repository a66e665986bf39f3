//===- DegreeOptions.h - The degree and batch options, once ----*- C++ -*-===//
//
// The parallel degrees and the batch shape (--tp, --pp, --cp, --vp, --ep,
// --microbatch, --seq) as every tool that takes them declares them: one
// name, one help text, one check and one message (`tshape advise`, `tshape
// plan` and tshape-plan, tshape-translate). Only a default differs by
// purpose, and the help says it: the microbatch is 1 in a training plan and
// 4 in the GEMM analysis of `tshape advise` and tshape-translate.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_TOOLS_DEGREEOPTIONS_H
#define TSHAPE_TOOLS_DEGREEOPTIONS_H

#include "llvm/Support/CommandLine.h"

#include <initializer_list>
#include <optional>
#include <string>

namespace tshape {

enum class DegreeOption { Tp, Pp, Cp, Vp, Ep, Microbatch, Seq };

/// Declares option `o` (its name and help from the one table) in `cat`
/// of `sub` with the default `init`; it lives as long as the program, as
/// the tools' other options do.
llvm::cl::opt<int64_t> &declareDegree(DegreeOption o,
                                      llvm::cl::SubCommand &sub,
                                      llvm::cl::OptionCategory &cat,
                                      int64_t init);

/// "--tp must be at least 1, got 0" for the first of `options` below 1;
/// nullopt when each is at least 1.
std::optional<std::string>
checkDegrees(std::initializer_list<const llvm::cl::opt<int64_t> *> options);

} // namespace tshape

#endif // TSHAPE_TOOLS_DEGREEOPTIONS_H
