//===- ReportModel.cpp - What tshape reports, computed once ---------------===//

#include "tshape/Report/ReportModel.h"

#include <map>

using namespace tshape;
using namespace tshape::report;

AnalysisReport tshape::report::analyze(const target::GpuTarget &target,
                                       double threshold,
                                       std::vector<advise::KernelRecord> records,
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

std::vector<std::pair<const advise::KernelRecord *, int64_t>>
tshape::report::mergedGemms(const std::vector<advise::KernelRecord> &records) {
  std::vector<std::pair<const advise::KernelRecord *, int64_t>> out;
  std::map<std::string, size_t> index;
  for (const advise::KernelRecord &r : records) {
    std::string key = r.name + "/" + std::to_string(r.problem.batch) + "x" +
                      std::to_string(r.problem.m) + "x" +
                      std::to_string(r.problem.n) + "x" +
                      std::to_string(r.problem.k);
    auto [it, inserted] = index.try_emplace(key, out.size());
    if (inserted)
      out.push_back({&r, 0});
    ++out[it->second].second;
  }
  return out;
}
