//===- HardwareReport.h - Co-search and projection reports ------*- C++ -*-===//
//
// tshape-plan --search --clusters=...: the hardware choices ranked, each
// with its best plan (advise::searchHardware); JSON (schema
// tshape-plan-hardware/1, docs/report-schema.md), Markdown and the
// terminal summary. tshape-plan --project: the communication share per
// (model scale, hardware) point (advise::project); CSV (the columns in
// docs/report-schema.md), a self-contained SVG plot and the terminal
// table. Plain C++: no MLIR types.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_REPORT_HARDWAREREPORT_H
#define TSHAPE_REPORT_HARDWAREREPORT_H

#include "tshape/Advise/Projection.h"

#include "llvm/Support/raw_ostream.h"

#include <string>

namespace tshape::report {

struct HardwareSearchReport {
  std::string model;
  int64_t gpus = 0, globalBatch = 0;
  /// The memory limit given (0: each target's own memory).
  double memoryLimitGiB = 0;
  advise::HardwareSearchResult result;
  double seconds = 0; ///< wall time (the terminal summary only)
};

void writeJson(llvm::raw_ostream &os, const HardwareSearchReport &r);
void writeMarkdown(llvm::raw_ostream &os, const HardwareSearchReport &r);
/// The ranked table, one line per choice, and how each search ended.
void writeText(llvm::raw_ostream &os, const HardwareSearchReport &r);

struct ProjectionReport {
  std::string model; ///< the family's config
  advise::ProjectionResult result;
  std::string command; ///< shown in the SVG's caption when not empty
  double seconds = 0;  ///< wall time (the terminal summary only)
};

/// One row per point (docs/report-schema.md, "The projection CSV").
void writeCsv(llvm::raw_ostream &os, const ProjectionReport &r);
/// Communication share (total: solid, exposed: dashed) against parameters
/// (log scale), one colour per hardware choice, with Pati et al.'s 40-75%
/// band; self-contained SVG 1.1.
void writeSvg(llvm::raw_ostream &os, const ProjectionReport &r);
/// The table of points and the rule.
void writeText(llvm::raw_ostream &os, const ProjectionReport &r);

} // namespace tshape::report

#endif // TSHAPE_REPORT_HARDWAREREPORT_H
