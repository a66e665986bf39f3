//===- tshape.cpp - The tshape driver ---------------------------------------===//
//
// One command for model designers, standing over the library the way
// iree-compile stands over iree-opt: `tshape <subcommand> ...`. Each
// subcommand calls the library's functions (import, analysis, search,
// reports, export); none re-implements a pass. Help shows tshape's own
// options; LLVM's are hidden (still under --help-hidden). docs/advise.md.
//
//===----------------------------------------------------------------------===//

#include "tshape/Tools/PlanHardware.h"
#include "tshape/Tools/PlanCommand.h"
#include "Subcommands.h"

#include "tshape/Tools/ToolOptions.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <vector>

using namespace tshape::driver;
namespace cl = llvm::cl;

int tshape::driver::fail(const std::string &message) {
  tshape::toolError(kTool) << message << "\n";
  return 1;
}

cl::SubCommand &tshape::plancmd::subCommand() {
  static cl::SubCommand plan("plan", "evaluate or search training plans");
  return plan;
}

namespace {
struct Entry {
  cl::SubCommand &(*command)();
  std::vector<const cl::OptionCategory *> (*categories)();
  int (*run)(int argc, char **argv);
};
const Entry kSubcommands[] = {
    {adviseCommand,
     [] { return std::vector<const cl::OptionCategory *>{&adviseCategory()}; },
     [](int, char **) { return runAdvise(); }},
    {tshape::plancmd::subCommand,
     [] {
       return std::vector<const cl::OptionCategory *>{
           &tshape::plancmd::category(), &tshape::planhw::category()};
     },
     [](int argc, char **argv) {
       return tshape::plancmd::run(kTool, argc, argv);
     }},
    {serveCommand,
     [] { return std::vector<const cl::OptionCategory *>{&serveCategory()}; },
     [](int, char **) { return runServe(); }},
};
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  // tshape's options first; LLVM's own (every option of the top level but
  // the generic ones) are hidden, not removed: --help-hidden lists them.
  tshape::showOnlyOwnOptions({});
  for (const Entry &e : kSubcommands)
    cl::HideUnrelatedOptions(e.categories(), e.command());

  // An unknown subcommand gets a clear error, not a positional argument.
  if (argc > 1 && argv[1][0] != '-') {
    bool known = false;
    std::string names;
    for (const Entry &e : kSubcommands) {
      known |= e.command().getName() == argv[1];
      names += (names.empty() ? "" : ", ") + e.command().getName().str();
    }
    if (!known)
      return fail("unknown subcommand '" + std::string(argv[1]) +
                  "' (expected: " + names + "); see tshape --help");
  }
  cl::ParseCommandLineOptions(
      argc, argv,
      "tshape: shape advice for transformer models\n\n"
      "  tshape advise CONFIG.json [-o DIR]   analyze a Hugging Face "
      "config.json,\n"
      "      search a faster shape within the parameter budget, and write "
      "an HTML,\n"
      "      JSON and Markdown report, the optimized config.json and "
      "Megatron-LM\n"
      "      arguments (tshape advise --help; docs/advise.md)\n\n"
      "  tshape plan CONFIG.json --gpus=N [--search]   price a training "
      "plan, or\n"
      "      search every plan that fits, and print the Megatron-LM launch "
      "command\n"
      "      (tshape plan --help; the same as tshape-plan; docs/plan.md)\n\n"
      "  tshape serve CONFIG.json [--tp=N --isl=N --osl=N]   price a serving "
      "workload\n"
      "      on one engine replica: time per output token, time to first "
      "token,\n"
      "      tokens/s per GPU and per user, memory per GPU (tshape serve "
      "--help;\n"
      "      docs/serving.md)\n\n"
      "The compiler tools stand below it: tshape-translate, tshape-opt, "
      "tshape-plan,\ntshape-predict, tshape-calibrate.\n");
  for (const Entry &e : kSubcommands)
    if (e.command())
      return e.run(argc, argv);
  cl::PrintHelpMessage();
  return 1;
}
