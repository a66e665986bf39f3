//===- Hardware.cpp - tshape-plan's hardware modes ------------------------===//
//
// --search --clusters=A,B [--scale=BASE:FACTORS ...] [--price=LABEL:P ...]
//   the plan search on each hardware choice, ranked (advise::searchHardware);
// --project [--project-rule=R] [--project-points=...] [--clusters ...]
//   [--csv=FILE] [--svg=FILE]
//   the communication share of the best plan per (model scale, hardware)
//   (advise::project). docs/plan.md.
//
//===----------------------------------------------------------------------===//

#include "tshape/Tools/PlanHardware.h"
#include "tshape/Tools/PlanCommand.h"

#include "tshape/Advise/Projection.h"
#include "tshape/Report/HardwareReport.h"
#include "tshape/Report/Writers.h"
#include "tshape/Support/Progress.h"

#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <memory>

using namespace tshape;
namespace cl = llvm::cl;

namespace {
cl::OptionCategory hwCat("tshape-plan hardware options");

cl::list<std::string> clusters(
    "clusters",
    cl::desc("--search or --project on each of these clusters: built-in "
             "names or cluster files (*.json), comma-separated"),
    cl::CommaSeparated, cl::sub(plancmd::subCommand()), cl::cat(hwCat));
cl::list<std::string>
    scales("scale",
           cl::desc("a scaled variant, BASE:FACTOR=X,...[,name=LABEL]; factors "
                    "compute, hbm-bw, hbm, link, nvlink, network (repeatable)"),
           cl::sub(plancmd::subCommand()), cl::cat(hwCat));
cl::list<std::string>
    prices("price",
           cl::desc("LABEL:PRICE, the user's price per GPU-hour of a hardware "
                    "choice (repeatable; all choices or none): ranks by tokens "
                    "per dollar"),
           cl::CommaSeparated, cl::sub(plancmd::subCommand()), cl::cat(hwCat));
cl::opt<bool> project(
    "project",
    cl::desc("project the communication share of the best plan over model "
             "scale x hardware (docs/plan.md)"),
    cl::sub(plancmd::subCommand()), cl::cat(hwCat));
cl::opt<std::string> projectRule(
    "project-rule",
    cl::desc("--project: how h and L grow (megatron-2021, aspect-128)"),
    cl::init("megatron-2021"), cl::sub(plancmd::subCommand()), cl::cat(hwCat));
cl::list<std::string> projectPoints(
    "project-points",
    cl::desc("--project: the rule's points (megatron-2021: names such as "
             "1.7B,145.6B; aspect-128: layer counts)"),
    cl::CommaSeparated, cl::sub(plancmd::subCommand()), cl::cat(hwCat));
cl::opt<std::string> csvPath("csv",
                             cl::desc("--project: write the CSV here (- for "
                                      "stdout)"),
                             cl::init(""), cl::sub(plancmd::subCommand()), cl::cat(hwCat));
cl::opt<std::string> svgPath("svg",
                             cl::desc("--project: write the SVG plot here"),
                             cl::init(""), cl::sub(plancmd::subCommand()), cl::cat(hwCat));

/// --project's hardware when no --clusters or --scale is given: three
/// generations of DGX.
const std::vector<std::string> kDefaultProjectClusters = {
    "dgx-a100", "dgx-h100", "dgx-b200"};

const char *kTool = "tshape-plan";

int fail(const std::string &msg) {
  llvm::errs() << kTool << ": error: " << msg << "\n";
  return 1;
}

bool given(const cl::Option &o) { return o.getNumOccurrences() > 0; }

/// The sweep's progress through the one status line of the tools
/// (Support/Progress.h): on a terminal only, after two seconds.
advise::SearchProgress progressLine(Progress &progress) {
  return [&progress](size_t done, size_t total, const std::string &what) {
    progress.update(what, int64_t(done) + 1, int64_t(total));
  };
}

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

int runCoSearch(const planhw::Context &ctx, const model::ModelConfig &config,
                const std::vector<advise::HardwareChoice> &choices) {
  const advise::PlanSpace space = advise::narrowSpace(
      advise::defaultPlanSpace(config, ctx.gpus, ctx.globalBatch), ctx.fixed);
  std::string error;
  const auto start = std::chrono::steady_clock::now();
  Progress progress("tshape-plan");
  std::optional<advise::HardwareSearchResult> result = advise::searchHardware(
      config, space, choices, ctx.options, error, progressLine(progress));
  progress.done();
  if (!result)
    return fail(error);
  report::HardwareSearchReport rep;
  rep.model = ctx.model;
  rep.gpus = ctx.gpus;
  rep.globalBatch = ctx.globalBatch;
  rep.memoryLimitGiB = ctx.options.memoryLimitGiB;
  rep.result = std::move(*result);
  rep.seconds = secondsSince(start);
  if (ctx.report != "-")
    report::writeText(llvm::outs(), rep);
  if (!ctx.report.empty())
    if (llvm::Error err = report::writeReport(ctx.report, rep))
      return fail(llvm::toString(std::move(err)));
  if (!rep.result.outcomes.front().best())
    return fail("no plan fits on any hardware choice");
  return 0;
}

int runProjection(const planhw::Context &ctx, const model::ModelConfig &family,
                  const std::vector<advise::HardwareChoice> &choices) {
  if ((ctx.gpus > 0) != (ctx.globalBatch > 0))
    return fail("--project takes --gpus and --global-batch together (or "
                "neither: each point's own)");
  std::optional<advise::ScalingRule> rule =
      advise::parseScalingRule(projectRule);
  if (!rule)
    return fail("unknown --project-rule '" + projectRule +
                "' (known: megatron-2021, aspect-128)");
  std::string error;
  std::optional<std::vector<advise::ModelPoint>> points =
      advise::scalingPoints(*rule, projectPoints, error);
  if (!points)
    return fail(error);
  advise::ProjectionOptions opt;
  opt.rule = *rule;
  opt.gpus = ctx.gpus;
  opt.globalBatch = ctx.globalBatch;
  opt.fixed = ctx.fixed;
  opt.search = ctx.options;
  opt.search.top = 1;
  const auto start = std::chrono::steady_clock::now();
  Progress progress("tshape-plan");
  std::optional<advise::ProjectionResult> result =
      advise::project(family, *points, choices, opt, error,
                      progressLine(progress));
  progress.done();
  if (!result)
    return fail(error);
  report::ProjectionReport rep;
  rep.model = ctx.model;
  rep.command = ctx.command;
  rep.result = std::move(*result);
  rep.seconds = secondsSince(start);
  if (csvPath != "-")
    report::writeText(llvm::outs(), rep);
  for (auto [path, csv] :
       {std::pair<std::string, bool>{csvPath, true}, {svgPath, false}}) {
    if (path.empty())
      continue;
    if (llvm::Error err = report::writeFile(path, [&](llvm::raw_ostream &os) {
          if (csv)
            report::writeCsv(os, rep);
          else
            report::writeSvg(os, rep);
        }))
      return fail(llvm::toString(std::move(err)));
  }
  return 0;
}
} // namespace

cl::OptionCategory &tshape::planhw::category() { return hwCat; }

void tshape::planhw::setTool(const char *tool) { kTool = tool; }

bool tshape::planhw::requested() {
  const cl::Option *const all[] = {
      std::addressof(clusters),    std::addressof(scales),
      std::addressof(prices),      std::addressof(project),
      std::addressof(projectRule), std::addressof(projectPoints),
      std::addressof(csvPath),     std::addressof(svgPath)};
  for (const cl::Option *o : all)
    if (given(*o))
      return true;
  return false;
}

int tshape::planhw::run(const Context &ctx) {
  if (project && ctx.search)
    return fail("--search and --project are two modes: give one");
  if (!project && !ctx.search)
    return fail("--clusters, --scale and --price need --search (hardware "
                "co-search); --project-rule, --project-points, --csv and "
                "--svg need --project");
  const cl::Option *const projectOnly[] = {
      std::addressof(projectRule), std::addressof(projectPoints),
      std::addressof(csvPath), std::addressof(svgPath)};
  if (!project)
    for (const cl::Option *o : projectOnly)
      if (given(*o))
        return fail("--" + o->ArgStr.str() + " needs --project");
  if (project && given(prices))
    return fail("--price needs --search (the projection does not rank by "
                "cost)");
  if (project && !ctx.report.empty())
    return fail("--project writes --csv and --svg; --report is --search's");
  if (ctx.singleHardwareGiven && (given(clusters) || given(scales) || project))
    return fail("--cluster, --cluster-file, --target and --target-file pick "
                "one cluster; with --clusters, --scale or --project each "
                "cluster names its GPU (a cluster file's \"gpu\")");
  if (ctx.dpGiven)
    return fail("the hardware modes derive dp (gpus / (tp x pp x cp)); give "
                "--gpus, not --dp");
  std::vector<std::string> names(clusters.begin(), clusters.end());
  if (project && names.empty() && scales.empty())
    names = kDefaultProjectClusters;
  std::string error;
  std::optional<std::vector<advise::HardwareChoice>> choices =
      advise::hardwareChoices(
          names, std::vector<std::string>(scales.begin(), scales.end()),
          std::vector<std::string>(prices.begin(), prices.end()), error);
  if (!choices)
    return fail(error);
  std::optional<model::ModelConfig> config = ctx.importModel();
  if (!config)
    return 1;
  return project ? runProjection(ctx, *config, *choices)
                 : runCoSearch(ctx, *config, *choices);
}
