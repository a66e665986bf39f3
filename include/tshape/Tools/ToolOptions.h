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

#include "tshape/Cost/Plan.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/WithColor.h"

#include <initializer_list>

namespace tshape {

/// Moves every option registered so far that is in none of `own` (nor in
/// LLVM's "Generic Options": --help, --version) to --help-hidden.
void showOnlyOwnOptions(
    std::initializer_list<const llvm::cl::OptionCategory *> own);

/// The start of an error about the command line, not about an input file:
/// `tool: error: ` (no `<unknown>:0:` location); the caller ends the line.
inline llvm::raw_ostream &toolError(llvm::StringRef tool) {
  return llvm::WithColor::error(llvm::errs(), tool);
}

/// The values of a training plan's --recompute (tshape-plan, tshape
/// advise): one vocabulary for both tools.
inline llvm::cl::ValuesClass recomputeValues() {
  return llvm::cl::values(
      clEnumValN(cost::Recompute::None, "none", "nothing"),
      clEnumValN(cost::Recompute::Selective, "selective",
                 "the attention core"),
      clEnumValN(cost::Recompute::Full, "full", "every layer"));
}

/// The help text of --recompute-modules (tshape-plan, tshape advise).
inline constexpr const char *kRecomputeModulesHelp =
    "selective recompute's modules, comma-separated, as Megatron-LM's "
    "--recompute-modules names them: core_attn (the default), moe_act, "
    "layernorm, mla_up_proj, mlp, moe, shared_experts; implies "
    "--recompute=selective";

/// The training plan's recompute from --recompute and --recompute-modules:
/// the modules, when given, are parsed and make the recompute selective;
/// an error (unknown module, --recompute other than selective) is the
/// message, else empty.
std::string resolveRecompute(const llvm::cl::opt<cost::Recompute> &recompute,
                             const llvm::cl::opt<std::string> &modules,
                             cost::Recompute &outRecompute,
                             model::RecomputeModules &outModules);

} // namespace tshape

#endif // TSHAPE_TOOLS_TOOLOPTIONS_H
