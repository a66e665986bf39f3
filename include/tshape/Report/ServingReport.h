//===- ServingReport.h - One serving configuration, evaluated --*- C++ -*-===//
//
// `tshape serve`'s report: the workload, the configuration (layout,
// precision, engine and its limits) and what cost::estimateServing says
// of it, led by what a serving engineer reads (time per output token,
// time to first token, tokens/s per GPU and per user, memory per GPU and
// whether it fits). Rendered as JSON (docs/report-schema.md) and as the
// terminal summary. Plain C++: no MLIR types.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_REPORT_SERVINGREPORT_H
#define TSHAPE_REPORT_SERVINGREPORT_H

#include "tshape/Advise/ServingSearch.h"
#include "tshape/Cost/Serving.h"
#include "tshape/Interop/ServingLaunch.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace tshape::report {

struct ServingReport {
  std::string model;   ///< the config's path or name
  std::string target;  ///< GPU target name
  std::string cluster; ///< cluster name
  cost::ServingWorkload workload;
  cost::ServingConfig config;
  cost::ServingEstimate estimate;
  /// The engine's launch command, or why the engine cannot say the plan.
  std::optional<ServingLaunch> launch;
  std::string launchError;
  /// At a request rate (--rate): the replicas and the estimate on each
  /// (then `estimate` is that one).
  std::optional<cost::RateEstimate> rate;
  double gpuHourPrice = 0; ///< dollars per GPU-hour, 0: none
};

/// `tshape serve --search`: the space, the targets and the result.
struct ServingSearchReport {
  std::string model, target, cluster;
  cost::ServingWorkload workload;
  cost::ServingConfig base; ///< the engine and its limits
  advise::ServingSpace space;
  advise::ServingTargets targets;
  advise::ServingSearchResult result;
  double seconds = 0; ///< the search's wall time
  /// The launch of the best configuration (or why not).
  std::optional<ServingLaunch> launch;
  std::string launchError;
};

/// The report as JSON ("schema": "tshape-serve/1").
llvm::json::Value servingJson(const ServingReport &r);
/// The JSON and Markdown views (writeReport: by the file's extension).
void writeJson(llvm::raw_ostream &os, const ServingReport &r);
void writeMarkdown(llvm::raw_ostream &os, const ServingReport &r);
/// The terminal summary: a few lines, the figures first.
void writeServingText(const ServingReport &r, llvm::raw_ostream &os);

/// The search as JSON ("schema": "tshape-serve-search/1"), Markdown and
/// the terminal summary (counts, the best configurations, the Pareto
/// front, the rejections, and what misses when nothing meets the targets).
void writeJson(llvm::raw_ostream &os, const ServingSearchReport &r);
void writeMarkdown(llvm::raw_ostream &os, const ServingSearchReport &r);
void writeServingSearchText(const ServingSearchReport &r,
                            llvm::raw_ostream &os);
/// The search as one self-contained HTML page: the counts and targets,
/// the Pareto plot (tokens/s per GPU against tokens/s per user: every
/// configuration, those meeting the targets, the front), the best
/// configurations, the front and the rejections.
void writeServingSearchHtml(const ServingSearchReport &r,
                            llvm::raw_ostream &os);

} // namespace tshape::report

#endif // TSHAPE_REPORT_SERVINGREPORT_H
