//===- Writers.h - Render the report models ---------------------*- C++ -*-===//
//
// One JSON and one Markdown writer per report model (ReportModel.h). The
// passes choose by the output's name (".md" or "-": Markdown).
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_REPORT_WRITERS_H
#define TSHAPE_REPORT_WRITERS_H

#include "tshape/Report/ReportModel.h"

#include "llvm/Support/raw_ostream.h"

namespace tshape::report {

void writeJson(llvm::raw_ostream &os, const AnalysisReport &r);
void writeMarkdown(llvm::raw_ostream &os, const AnalysisReport &r);

void writeJson(llvm::raw_ostream &os, const OptimizationReport &r);
void writeMarkdown(llvm::raw_ostream &os, const OptimizationReport &r);

void writeJson(llvm::raw_ostream &os, const SummaryReport &r);
void writeMarkdown(llvm::raw_ostream &os, const SummaryReport &r);

/// Whether `path` asks for Markdown ("-" or a .md file).
inline bool wantsMarkdown(llvm::StringRef path) {
  return path == "-" || path.ends_with(".md");
}

} // namespace tshape::report

#endif // TSHAPE_REPORT_WRITERS_H
