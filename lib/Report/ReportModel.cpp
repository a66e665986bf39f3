//===- ReportModel.cpp - What tshape reports, computed once ---------------===//

#include "tshape/Report/ReportModel.h"

using namespace tshape;
using namespace tshape::report;

AnalysisReport tshape::report::analyze(const target::GpuTarget &target,
                                       double threshold,
                                       std::vector<advise::GemmRecord> records,
                                       int64_t skipped) {
  AnalysisReport r;
  r.target = target;
  r.threshold = threshold;
  advise::ShapeAnalysis a(r.target, threshold);
  a.analyze(records);
  r.findings = a.findings(records);
  r.totals = a.totals(records);
  r.guidelines = advise::checkGuidelines(a, records);
  r.records = std::move(records);
  r.skipped = skipped;
  return r;
}
