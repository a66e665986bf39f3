//===- ToolOptions.cpp - what a tool's --help shows -----------------------===//
//
// Compiled without UBSan's vptr check (lib/Tools/CMakeLists.txt): the
// options it walks are defined in Debian's LLVM shared library, built
// without RTTI, so the check cannot see their dynamic type and reports
// every member access on them. The accesses are sound.
//
//===----------------------------------------------------------------------===//

#include "tshape/Tools/ToolOptions.h"

#include "llvm/ADT/STLExtras.h"

void tshape::showOnlyOwnOptions(
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

std::string tshape::resolveRecompute(
    const llvm::cl::opt<cost::Recompute> &recompute,
    const llvm::cl::opt<std::string> &modules, cost::Recompute &outRecompute,
    model::RecomputeModules &outModules) {
  outRecompute = recompute;
  outModules = model::RecomputeModules(model::RecomputeModule::CoreAttn);
  if (modules.getNumOccurrences() == 0)
    return "";
  std::string error;
  std::optional<model::RecomputeModules> parsed =
      model::parseRecomputeModules(modules, error);
  if (!parsed)
    return "--recompute-modules: " + error;
  if (recompute.getNumOccurrences() > 0 &&
      recompute != cost::Recompute::Selective)
    return std::string("--recompute-modules needs --recompute=selective, "
                       "got --recompute=") +
           cost::recomputeName(recompute);
  outRecompute = cost::Recompute::Selective;
  outModules = *parsed;
  return "";
}
