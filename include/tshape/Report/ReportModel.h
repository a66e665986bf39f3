//===- ReportModel.h - What tshape reports, computed once -------*- C++ -*-===//
//
// The models of tshape's three reports, filled by the passes and rendered
// by the writers of Writers.h (JSON for programs, Markdown for people; an
// HTML writer renders the same models), after llvm-mca's split of a view's
// data (collectData) from its printers. Plain C++: no MLIR types.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_REPORT_REPORTMODEL_H
#define TSHAPE_REPORT_REPORTMODEL_H

#include "tshape/Advise/Guidelines.h"
#include "tshape/Advise/ShapeReport.h"
#include "tshape/Advise/ShapeSearch.h"

#include <string>
#include <vector>

namespace tshape::report {

/// tshape-gemm-analysis: every GEMM predicted, totals and ranked findings
/// (docs/report-schema.md).
struct AnalysisReport {
  target::GpuTarget target;
  double threshold = 0.1;
  std::vector<advise::KernelRecord> records;
  advise::Totals totals;
  std::vector<advise::Finding> findings;
  /// The paper's rules, each priced on the target (Guidelines.h).
  std::vector<advise::Guideline> guidelines;
  int64_t skipped = 0; ///< contractions not analyzed
};

/// The GEMMs of `records` with identical layers merged: each distinct
/// (name, batch x M x N x K) once, in program order, with its count. The
/// GEMM tables of the Markdown and HTML reports.
std::vector<std::pair<const advise::KernelRecord *, int64_t>>
mergedGemms(const std::vector<advise::KernelRecord> &records);

/// Predicts `records` on `target` and fills the whole report.
AnalysisReport analyze(const target::GpuTarget &target, double threshold,
                       std::vector<advise::KernelRecord> records,
                       int64_t skipped);

/// tshape-optimize-shapes: per function, the changes and both sides.
struct OptimizationReport {
  struct Side {
    advise::StepPrediction step;
    int64_t parameters = 0;
    AnalysisReport analysis;
  };
  struct Function {
    std::string name;
    std::string summary; ///< the pass's one-line result
    std::vector<advise::Change> changes;
    /// Changes undone because each added less than min-gain.
    std::vector<advise::Change> dropped;
    Side before, after;
    int64_t evaluated = 0, feasible = 0;
    /// Parameters whose candidates stopped at the search's bound.
    std::vector<std::string> bounded;
  };
  target::GpuTarget target;
  std::vector<Function> functions;
};

/// tshape-gemm-summary: GEMMs grouped by role and shape, in program order.
struct SummaryReport {
  struct Group {
    std::string role;
    int64_t firstLayer = -1, lastLayer = -1, count = 0;
    int64_t batch = 1, m = 0, n = 0, k = 0;
    double flops = 0;
  };
  std::vector<Group> groups;
  double totalFlops = 0;
  int64_t gemms = 0;
  /// Ops with a reduction not read as GEMMs, counted by kind, in order.
  std::vector<std::pair<std::string, int64_t>> skipped;
};

} // namespace tshape::report

#endif // TSHAPE_REPORT_REPORTMODEL_H
