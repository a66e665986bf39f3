//===- Calibration.cpp - Fit the cost model to measurements ---------------===//
//
// Coordinate search over math_efficiency, memory_efficiency and
// launch_overhead_us, minimising the median relative error on the training
// rows; the held-out rows measure the result. docs/runtime.md describes it.
//
//===----------------------------------------------------------------------===//

#include "tshape/Analysis/Calibration.h"
#include "tshape/Support/Csv.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <sstream>

using namespace tshape;
using namespace tshape::analysis;

bool tshape::analysis::parseMeasurements(const std::string &csv,
                                         std::vector<Measurement> &out,
                                         std::string &error) {
  std::istringstream in(csv);
  bool header = false;
  size_t columns = 8;
  const char *names[] = {"batch",   "m",       "n",          "k",
                         "dtype",   "trans_a", "trans_b",    "measured_us"};
  bool ok = csv::forEachRecord(in, [&](int lineNo,
                                       const std::vector<std::string> &f) {
    auto bad = [&](const std::string &why) {
      error = "line " + std::to_string(lineNo) + ": " + why;
      return false;
    };
    if (!header) {
      // Further columns (tshape-bench-gemms writes them) are ignored.
      if (f.size() < 8 || !std::equal(std::begin(names), std::end(names),
                                      f.begin()))
        return bad("expected the header "
                   "'batch,m,n,k,dtype,trans_a,trans_b,measured_us' (further "
                   "columns allowed)");
      columns = f.size();
      header = true;
      return true;
    }
    if (f.size() != columns)
      return bad("expected " + std::to_string(columns) +
                 " fields as in the header, got " + std::to_string(f.size()));
    Measurement m;
    char *end = nullptr;
    int64_t *ints[] = {&m.problem.batch, &m.problem.m, &m.problem.n,
                       &m.problem.k};
    for (int i = 0; i < 4; ++i) {
      long long v = std::strtoll(f[i].c_str(), &end, 10);
      if (f[i].empty() || *end || v <= 0)
        return bad("field " + std::to_string(i + 1) +
                   " must be a positive integer, got '" + f[i] + "'");
      *ints[i] = v;
    }
    auto dt = model::parseDType(f[4]);
    if (!dt)
      return bad("unknown dtype '" + f[4] + "'");
    m.problem.dtype = *dt;
    m.problem.transA = f[5] == "1";
    m.problem.transB = f[6] == "1";
    m.measuredUs = std::strtod(f[7].c_str(), &end);
    if (f[7].empty() || *end || !(m.measuredUs > 0))
      return bad("measured_us must be a positive number, got '" + f[7] + "'");
    out.push_back(m);
    return true;
  });
  if (!ok)
    return false;
  if (!header) {
    error = "empty file: expected a CSV header";
    return false;
  }
  if (out.empty()) {
    error = "no measurements after the header";
    return false;
  }
  return true;
}

ErrorStats tshape::analysis::predictionError(
    const std::vector<Measurement> &rows, const target::GpuTarget &t) {
  std::vector<double> e;
  for (const Measurement &m : rows)
    e.push_back(std::fabs(estimateGemm(m.problem, t).predictedUs -
                          m.measuredUs) /
                m.measuredUs);
  ErrorStats s;
  s.count = e.size();
  if (e.empty())
    return s;
  std::sort(e.begin(), e.end());
  auto at = [&](double q) {
    size_t i = size_t(std::ceil(q * e.size())) - 1;
    return e[std::min(i, e.size() - 1)];
  };
  s.median = at(0.5);
  s.p90 = at(0.9);
  return s;
}

bool tshape::analysis::calibrate(const std::vector<Measurement> &rows,
                                 const target::GpuTarget &base,
                                 int holdoutEvery, CalibrationResult &out,
                                 std::string &error) {
  if (holdoutEvery < 2) {
    error = "holdout-every must be >= 2";
    return false;
  }
  std::vector<Measurement> train, held;
  for (size_t i = 0; i < rows.size(); ++i)
    ((i + 1) % holdoutEvery == 0 ? held : train).push_back(rows[i]);
  if (train.size() < 4) {
    error = "need at least 4 training measurements, got " +
            std::to_string(train.size());
    return false;
  }
  target::GpuTarget t = base;
  auto score = [&](const target::GpuTarget &c) {
    return predictionError(train, c).median;
  };
  double best = score(t);
  // Coordinate search: each constant over a grid of 141 points across its
  // range, a few rounds.
  const CalibrationRange ranges[] = {kMathEfficiencyRange,
                                     kMemoryEfficiencyRange,
                                     kLaunchOverheadRange};
  auto field = [](target::GpuTarget &c, int which) -> double & {
    return which == 0   ? c.mathEfficiency
           : which == 1 ? c.memoryEfficiency
                        : c.launchOverheadUs;
  };
  for (int round = 0; round < 4; ++round) {
    for (int which = 0; which < 3; ++which) {
      const CalibrationRange &r = ranges[which];
      for (int step = 0; step <= 140; ++step) {
        target::GpuTarget c = t;
        field(c, which) = r.lo + (r.hi - r.lo) * step / 140.0;
        double s = score(c);
        if (s < best - 1e-12) {
          best = s;
          t = c;
        }
      }
    }
  }
  for (int which = 0; which < 3; ++which) {
    double v = field(t, which);
    const CalibrationRange &r = ranges[which];
    // The launch overhead may honestly be ~0; only its upper edge counts.
    if ((which != 2 && v <= r.lo + 1e-9) || v >= r.hi - 1e-9)
      out.atEdge.push_back(r);
  }
  t.name = base.name + "-calibrated";
  t.description = base.description + " (calibrated)";
  out.fitted = t;
  out.trainRows = train.size();
  out.heldOutRows = held.size();
  out.trainBefore = predictionError(train, base);
  out.trainAfter = predictionError(train, t);
  out.heldOutBefore = predictionError(held, base);
  out.heldOutAfter = predictionError(held, t);
  return true;
}

std::string tshape::analysis::targetFileJson(const target::GpuTarget &t,
                                             const std::string &base) {
  llvm::json::Object o{{"name", t.name},
                       {"description", t.description},
                       {"base", base},
                       {"math_efficiency", std::round(t.mathEfficiency * 1000) / 1000},
                       {"memory_efficiency",
                        std::round(t.memoryEfficiency * 1000) / 1000},
                       {"launch_overhead_us",
                        std::round(t.launchOverheadUs * 1000) / 1000}};
  std::string s;
  llvm::raw_string_ostream os(s);
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(o))) << "\n";
  return s;
}
