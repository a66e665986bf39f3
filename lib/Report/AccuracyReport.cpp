//===- AccuracyReport.cpp - Predicted against measured, computed once -----===//

#include "tshape/Report/AccuracyReport.h"

#include <algorithm>
#include <cmath>

using namespace tshape;
using namespace tshape::predict;
using namespace tshape::report;

AccuracyReport::File tshape::report::compareTable(
    const KernelTable &table, const std::vector<double> &predicted,
    const std::vector<bool> &selected,
    const std::vector<const target::GpuTarget *> &targets) {
  AccuracyReport::File f;
  f.name = table.name;
  if (!table.rows.empty())
    f.kind = table.rows.front().kind;
  for (const target::GpuTarget *t : targets)
    if (std::none_of(
            f.targets.begin(), f.targets.end(),
            [&](const target::GpuTarget &u) { return u.name == t->name; }))
      f.targets.push_back(*t);
  std::vector<const KernelRow *> rows;
  std::vector<double> preds;
  for (size_t i = 0; i < table.rows.size(); ++i) {
    const KernelRow &r = table.rows[i];
    if (!selected[i])
      continue;
    if (!r.measuredUs) {
      ++f.unmeasured;
      continue;
    }
    if (!(predicted[i] > 0)) {
      ++f.noKernel;
      continue;
    }
    rows.push_back(&r);
    preds.push_back(predicted[i]);
  }
  f.measured = rows.size();
  if (rows.empty())
    return f;
  for (Regime g : kRegimes) {
    std::vector<double> e;
    for (size_t i = 0; i < rows.size(); ++i)
      if (inRegime(*rows[i], g))
        e.push_back(std::fabs(preds[i] - *rows[i]->measuredUs) /
                    *rows[i]->measuredUs);
    if (!e.empty())
      f.regimes.push_back({g, errorStats(std::move(e))});
  }
  f.direction = directionAgreement(rows, preds);
  return f;
}
