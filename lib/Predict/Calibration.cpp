//===- Calibration.cpp - Fit a target's constants to measurements ---------===//
//
// Coordinate search with a shrinking grid: each constant in turn is set to
// the best of 21 values across its current window, eight rounds, the window
// halving around the best value each round, from two starts, then restarted
// from the best point while that helps (at most three times). The loss is
// the mean |log(predicted / measured)| over (a fixed stride sample of at
// most 4,000 of) the fitting rows: it weighs a 2x over- and under-prediction alike and
// is not dominated by the few kernels far off the model.
//
//===----------------------------------------------------------------------===//

#include "tshape/Predict/Calibration.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>

using namespace tshape;
using namespace tshape::predict;
using target::GpuTarget;

ErrorStats
tshape::predict::predictionError(const std::vector<const KernelRow *> &rows,
                                 const GpuTarget &t) {
  std::vector<double> e;
  for (const KernelRow *r : rows) {
    double p = predictRow(*r, t);
    if (r->measuredUs && p > 0)
      e.push_back(std::fabs(p - *r->measuredUs) / *r->measuredUs);
  }
  return errorStats(std::move(e));
}

namespace {
double logLoss(const std::vector<const KernelRow *> &rows,
               const GpuTarget &t) {
  double sum = 0;
  size_t n = 0;
  for (const KernelRow *r : rows) {
    double p = predictRow(*r, t);
    if (!(p > 0))
      continue;
    sum += std::fabs(std::log(p / *r->measuredUs));
    ++n;
  }
  return n ? sum / double(n) : 0;
}

/// A fixed stride sample of at most `limit` rows.
std::vector<const KernelRow *> sample(const std::vector<const KernelRow *> &v,
                                      size_t limit) {
  if (v.size() <= limit)
    return v;
  std::vector<const KernelRow *> out;
  double stride = double(v.size()) / double(limit);
  for (size_t i = 0; i < limit; ++i)
    out.push_back(v[size_t(double(i) * stride)]);
  return out;
}

/// Coordinate search from `t` (updated in place); returns the loss. The
/// first round spans each range; each later one a window half as wide
/// around the best value so far, eight rounds.
double search(const std::vector<const KernelRow *> &use,
              const std::vector<FitParam> &params, GpuTarget &t) {
  std::vector<double> width;
  for (const FitParam &p : params)
    width.push_back(p.hi - p.lo);
  double best = logLoss(use, t);
  for (int round = 0; round < 8; ++round) {
    for (size_t i = 0; i < params.size(); ++i) {
      const FitParam &p = params[i];
      double centre = t.*p.field;
      double lo = round == 0 ? p.lo : std::max(p.lo, centre - width[i] / 2);
      double hi = round == 0 ? p.hi : std::min(p.hi, centre + width[i] / 2);
      for (int step = 0; step <= 20; ++step) {
        GpuTarget c = t;
        c.*p.field = lo + (hi - lo) * step / 20.0;
        double s = logLoss(use, c);
        if (s < best - 1e-12) {
          best = s;
          t = c;
        }
      }
      width[i] /= 2;
    }
  }
  return best;
}
} // namespace

bool tshape::predict::calibrate(const std::vector<const KernelRow *> &rows,
                                const GpuTarget &base, CalibrationResult &out,
                                std::string &error) {
  std::vector<const KernelRow *> fit, held, all;
  for (const KernelRow *r : rows) {
    if (!r->measuredUs)
      continue;
    all.push_back(r);
    (inPart(*r, Part::HeldOut) ? held : fit).push_back(r);
  }
  // Too few shapes to hold one out: fit on everything, report no held-out.
  if (held.empty() || fit.empty()) {
    fit = all;
    held.clear();
  }
  if (fit.size() < 4) {
    error = "need at least 4 fitting measurements, got " +
            std::to_string(fit.size());
    return false;
  }
  std::vector<const KernelRow *> gemmRows, attnRows;
  for (const KernelRow *r : fit)
    (r->kind == KernelKind::Gemm ? gemmRows : attnRows).push_back(r);
  gemmRows = sample(gemmRows, 4000);
  attnRows = sample(attnRows, 4000);

  GpuTarget t = base;
  for (bool attention : {false, true}) {
    const std::vector<const KernelRow *> &use = attention ? attnRows
                                                          : gemmRows;
    std::vector<FitParam> params;
    for (const FitParam &p : target::modelConstants())
      if (p.attention == attention)
        (use.empty() ? out.unidentified : params).push_back(p);
    if (params.empty())
      continue;
    // Two starts, the given constants and every constant at the middle of
    // its range, so that one constant's effect hidden behind another's
    // starting value (a softmax cost behind a low efficiency) is found.
    GpuTarget mid = t;
    for (const FitParam &p : params)
      mid.*p.field = (p.lo + p.hi) / 2;
    double bestOverall = 0;
    GpuTarget winner = t;
    for (int start = 0; start < 2; ++start) {
      GpuTarget c0 = start == 0 ? t : mid;
      double best = search(use, params, c0);
      if (start == 0 || best < bestOverall - 1e-12) {
        bestOverall = best;
        winner = c0;
      }
    }
    // Restart from the winner with every window at full width again: the
    // shrinking windows can settle before one constant's best value is
    // reachable from where the others ended. Bounded: three restarts.
    for (int restart = 0; restart < 3; ++restart) {
      GpuTarget c = winner;
      double best = search(use, params, c);
      if (best >= bestOverall - 1e-6)
        break;
      bestOverall = best;
      winner = c;
    }
    t = winner;
    for (const FitParam &p : params) {
      double v = t.*p.field;
      // A lower edge of 0 ("none") is a legitimate fit: only the upper
      // edge counts there.
      bool zeroOk = p.lo == 0.0;
      if ((!zeroOk && std::fabs(v - p.lo) <= 1e-9) || v >= p.hi - 1e-9)
        out.atEdge.push_back(p);
    }
  }
  t.name = base.name + "-calibrated";
  t.description = base.description + " (calibrated)";
  out.fitted = t;
  out.fitRows = fit.size();
  out.heldOutRows = held.size();
  out.fitBefore = predictionError(fit, base);
  out.fitAfter = predictionError(fit, t);
  out.heldOutBefore = predictionError(held, base);
  out.heldOutAfter = predictionError(held, t);
  return true;
}

std::string tshape::predict::targetFileJson(const GpuTarget &t,
                                            const std::string &base) {
  llvm::json::Object o{{"name", t.name},
                       {"description", t.description},
                       {"base", base}};
  for (const FitParam &p : target::modelConstants())
    o[p.key] = std::round((t.*p.field) * 1000) / 1000;
  std::string s;
  llvm::raw_string_ostream os(s);
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(o))) << "\n";
  return s;
}
