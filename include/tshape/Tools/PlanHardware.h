//===- PlanHardware.h - The plan command's hardware modes -------*- C++ -*-===//
//
// The hardware co-search (--search --clusters=...) and the projection
// (--project) of the plan command: their options and their runs, on
// advise::searchHardware and advise::project. PlanCommand.cpp hands over
// the model, the batch and the plan choices the command line fixes.
// docs/plan.md, "Hardware co-search" and "Projection".
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_TOOLS_PLANHARDWARE_H
#define TSHAPE_TOOLS_PLANHARDWARE_H

#include "tshape/Advise/HardwareSearch.h"

#include "llvm/Support/CommandLine.h"

#include <functional>
#include <optional>
#include <string>

namespace tshape::planhw {

/// The options of the hardware modes.
llvm::cl::OptionCategory &category();

/// Whether a hardware option (--clusters, --scale, --price, --project and
/// its options) was given.
bool requested();

/// What tshape-plan.cpp knows: the command line's shared choices.
struct Context {
  std::string model;   ///< the config's path
  std::string command; ///< the command line, for the SVG's caption
  bool search = false; ///< --search
  /// --cluster, --cluster-file, --target or --target-file given (an error
  /// with --clusters: each cluster names its GPU).
  bool singleHardwareGiven = false;
  bool dpGiven = false;
  int64_t gpus = 0, globalBatch = 0;
  std::string report; ///< --report
  advise::FixedPlanChoices fixed;
  advise::PlanSearchOptions options;
  /// Imports the config (errors printed, nullopt on failure).
  std::function<std::optional<model::ModelConfig>()> importModel;
};

/// Runs the mode the options ask for; the tool's exit status. Errors are
/// printed as "TOOL: error: ..." (setTool; "tshape-plan" unless set).
int run(const Context &ctx);
void setTool(const char *tool);

} // namespace tshape::planhw

#endif // TSHAPE_TOOLS_PLANHARDWARE_H
