//===- Writers.h - Render the report models ---------------------*- C++ -*-===//
//
// One JSON and one Markdown writer per report model (ReportModel.h,
// AccuracyReport.h), the one rule that picks a report's format from its
// path, and the one helper every pass and tool writes a report through.
// The prediction tools' terminal views (text) render the same models.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_REPORT_WRITERS_H
#define TSHAPE_REPORT_WRITERS_H

#include "tshape/Report/ReportModel.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace tshape::report {

struct AccuracyReport;
struct CalibrationReport;
struct PlanReport;
struct PlanSearchReport;
struct InferenceReport;

void writeJson(llvm::raw_ostream &os, const AnalysisReport &r);
void writeMarkdown(llvm::raw_ostream &os, const AnalysisReport &r);

void writeJson(llvm::raw_ostream &os, const OptimizationReport &r);
void writeMarkdown(llvm::raw_ostream &os, const OptimizationReport &r);

void writeJson(llvm::raw_ostream &os, const SummaryReport &r);
void writeMarkdown(llvm::raw_ostream &os, const SummaryReport &r);

void writeJson(llvm::raw_ostream &os, const AccuracyReport &r);
void writeMarkdown(llvm::raw_ostream &os, const AccuracyReport &r);

void writeJson(llvm::raw_ostream &os, const CalibrationReport &r);
void writeMarkdown(llvm::raw_ostream &os, const CalibrationReport &r);

void writeJson(llvm::raw_ostream &os, const PlanReport &r);
void writeMarkdown(llvm::raw_ostream &os, const PlanReport &r);

void writeJson(llvm::raw_ostream &os, const PlanSearchReport &r);
void writeMarkdown(llvm::raw_ostream &os, const PlanSearchReport &r);
void writeJson(llvm::raw_ostream &os, const InferenceReport &r);
void writeMarkdown(llvm::raw_ostream &os, const InferenceReport &r);

/// The guidelines checklist (advise::checkGuidelines): the `guidelines`
/// array into an open JSON object, and a Markdown section; every report
/// that carries it writes it through these.
void writeGuidelinesJson(llvm::json::OStream &j,
                         const std::vector<advise::Guideline> &guidelines);
void writeGuidelinesMarkdown(llvm::raw_ostream &os,
                             const std::vector<advise::Guideline> &guidelines);

/// A shape search's changes (or dropped changes) as the array `key` of an
/// open JSON object: parameter, before, after, speedup_alone,
/// gain_in_result, param_delta. The optimization and advise reports.
void writeChangesJson(llvm::json::OStream &j, llvm::StringRef key,
                      const std::vector<advise::Change> &changes);

/// The terminal views: tshape-predict --compare's lines for one file of
/// `r`, and tshape-calibrate's summary on stderr.
void writeText(llvm::raw_ostream &os, const AccuracyReport &r, size_t file);
/// The calibration summary on stderr, each line led by `tool`.
void writeText(llvm::raw_ostream &os, const CalibrationReport &r,
               llvm::StringRef tool);

/// tshape-plan's summary: step time, throughput, time and memory per
/// component, the fit, the Megatron-LM command and its notes.
void writeText(llvm::raw_ostream &os, const PlanReport &r);
/// tshape-plan --search's summary: the counts, the ranked plans, each
/// tensor-parallel family's outcome, the rejections by rule, and the
/// fastest plan's summary and launch.
void writeText(llvm::raw_ostream &os, const PlanSearchReport &r);

enum class Format { Json, Markdown };

/// The one rule for every report a pass or tool writes: "-" (stdout) and
/// names ending in ".md" are Markdown, for people; ".json" and names with
/// no extension are JSON, for programs; writeFile refuses any other
/// extension (docs/report-schema.md).
Format formatFor(llvm::StringRef path);

/// Renders `model` in `format`.
template <typename Model>
void write(llvm::raw_ostream &os, const Model &model, Format format) {
  if (format == Format::Markdown)
    writeMarkdown(os, model);
  else
    writeJson(os, model);
}

/// Opens `path` ("-": stdout), lets `body` write to it and keeps the file.
/// On failure nothing is kept and the error says "cannot open report
/// 'PATH': REASON" or "cannot write report 'PATH': REASON"; the caller
/// reports it in its own voice (a pass's diagnostic, a tool's error line).
llvm::Error writeFile(llvm::StringRef path,
                      llvm::function_ref<void(llvm::raw_ostream &)> body);

/// Success for "-", a name ending in .json or .md, or one with no
/// extension; an error naming the formats for any other (out.txt).
llvm::Error checkReportName(llvm::StringRef path);

/// A role group's name as the pages print it ("MLP" for mlp; the others as
/// they are).
inline std::string groupLabel(const std::string &group) {
  return group == "mlp" ? "MLP" : group;
}

/// Writes `model` to `path` in formatFor(path), through writeFile; a name
/// checkReportName refuses is an error and writes nothing.
template <typename Model>
llvm::Error writeReport(llvm::StringRef path, const Model &model) {
  if (llvm::Error err = checkReportName(path))
    return err;
  Format format = formatFor(path);
  return writeFile(path,
                   [&](llvm::raw_ostream &os) { write(os, model, format); });
}

} // namespace tshape::report

#endif // TSHAPE_REPORT_WRITERS_H
