//===- Calibration.cpp - Fit a target's constants to measurements ---------===//
//
// Each group of constants (GEMM, prefill attention, decode attention, fp8
// GEMM, fused MoE layer) on the rows of its kind. Coordinate search with a shrinking grid: each constant in turn is set to
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
                                 const GpuTarget &t,
                                 const cost::Cluster *cluster) {
  std::vector<double> e;
  for (const KernelRow *r : rows) {
    double p = predictRow(*r, t, cluster);
    if (r->measuredUs && p > 0)
      e.push_back(std::fabs(p - *r->measuredUs) / *r->measuredUs);
  }
  return errorStats(std::move(e));
}

namespace {
/// The mean |log(predicted / measured)| over `rows`, priced by `predict`.
template <class Predict>
double logLoss(const std::vector<const KernelRow *> &rows,
               const Predict &predict) {
  double sum = 0;
  size_t n = 0;
  for (const KernelRow *r : rows) {
    double p = predict(*r);
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

/// The value of constant `p` in state `t`, on the scale the search moves
/// it: log for a size, else linear.
template <class State, class Param> struct Access {
  double &(*ref)(State &, const Param &);
  bool (*logScale)(const Param &);
  double get(State &t, const Param &p) const {
    double v = ref(t, p);
    return logScale(p) ? std::log(v) : v;
  }
  void set(State &t, const Param &p, double v) const {
    ref(t, p) = logScale(p) ? std::exp(v) : v;
  }
  double lo(const Param &p) const {
    return logScale(p) ? std::log(p.lo) : p.lo;
  }
  double hi(const Param &p) const {
    return logScale(p) ? std::log(p.hi) : p.hi;
  }
};

/// Coordinate search from `t` (updated in place); returns the loss. The
/// first round spans each range; each later one a window half as wide
/// around the best value so far, eight rounds.
template <class State, class Param, class Loss>
double search(const std::vector<Param> &params, const Access<State, Param> &a,
              const Loss &loss, State &t) {
  std::vector<double> width;
  for (const Param &p : params)
    width.push_back(a.hi(p) - a.lo(p));
  double best = loss(t);
  for (int round = 0; round < 8; ++round) {
    for (size_t i = 0; i < params.size(); ++i) {
      const Param &p = params[i];
      double centre = a.get(t, p);
      double lo = round == 0 ? a.lo(p) : std::max(a.lo(p), centre - width[i] / 2);
      double hi = round == 0 ? a.hi(p) : std::min(a.hi(p), centre + width[i] / 2);
      for (int step = 0; step <= 20; ++step) {
        State c = t;
        a.set(c, p, lo + (hi - lo) * step / 20.0);
        double s = loss(c);
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

/// The search from two starts, the given constants and every constant at
/// the middle of its range (so that one constant's effect hidden behind
/// another's starting value, a softmax cost behind a low efficiency, is
/// found), then restarted from the winner with every window at full width
/// again while that helps (the shrinking windows can settle before one
/// constant's best value is reachable from where the others ended;
/// bounded: three restarts). Returns the winner; `atEdge` gets the
/// constants that ended on an edge of their range.
template <class State, class Param, class Loss>
State fitConstants(const std::vector<Param> &params, const Access<State, Param> &a,
          const Loss &loss, const State &t, std::vector<Param> &atEdge) {
  State mid = t;
  for (const Param &p : params)
    a.set(mid, p, (a.lo(p) + a.hi(p)) / 2);
  double bestOverall = 0;
  State winner = t;
  for (int start = 0; start < 2; ++start) {
    State c0 = start == 0 ? t : mid;
    double best = search(params, a, loss, c0);
    if (start == 0 || best < bestOverall - 1e-12) {
      bestOverall = best;
      winner = c0;
    }
  }
  for (int restart = 0; restart < 3; ++restart) {
    State c = winner;
    double best = search(params, a, loss, c);
    if (best >= bestOverall - 1e-6)
      break;
    bestOverall = best;
    winner = c;
  }
  for (const Param &p : params) {
    double v = a.ref(winner, p);
    // A lower edge of 0 ("none") is a legitimate fit: only the upper edge
    // counts there.
    bool zeroOk = p.lo == 0.0;
    if ((!zeroOk && std::fabs(v - p.lo) <= 1e-9 * std::max(1.0, p.lo)) ||
        v >= p.hi * (1 - 1e-9))
      atEdge.push_back(p);
  }
  return winner;
}

const Access<GpuTarget, FitParam> targetAccess{
    [](GpuTarget &t, const FitParam &p) -> double & { return t.*p.field; },
    [](const FitParam &) { return false; }};

/// The fit and held-out rows with a measurement (all rows as the fit when
/// the split leaves one side empty); false when fewer than 4 fit.
bool splitRows(const std::vector<const KernelRow *> &rows,
               std::vector<const KernelRow *> &fit,
               std::vector<const KernelRow *> &held, std::string &error) {
  std::vector<const KernelRow *> all;
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
  return true;
}
} // namespace

bool tshape::predict::calibrate(const std::vector<const KernelRow *> &rows,
                                const GpuTarget &base, CalibrationResult &out,
                                std::string &error) {
  std::vector<const KernelRow *> fit, held;
  if (!splitRows(rows, fit, held, error))
    return false;
  // Each group of constants is fitted on the rows that identify it, in
  // order (GEMMs, prefill attention, decode attention), each fit starting
  // from the one before.
  using target::FitGroup;
  auto groupOf = [](const KernelRow &r) {
    if (r.kind == KernelKind::MoeLayer)
      return FitGroup::MoeLayer;
    if (r.kind == KernelKind::Gemm && r.gemm.dtype == DType::FP8)
      return r.gemm.quantize == cost::Quantize::Block ? FitGroup::BlockFp8Gemm
                                                      : FitGroup::Fp8Gemm;
    return r.kind == KernelKind::Gemm ? FitGroup::Gemm
           : r.kind == KernelKind::DecodeAttention
               ? FitGroup::DecodeAttention
               : FitGroup::PrefillAttention;
  };
  GpuTarget t = base;
  for (FitGroup group :
       {FitGroup::Gemm, FitGroup::PrefillAttention, FitGroup::DecodeAttention,
        FitGroup::Fp8Gemm, FitGroup::BlockFp8Gemm, FitGroup::MoeLayer}) {
    std::vector<const KernelRow *> use;
    for (const KernelRow *r : fit)
      if (r->kind != KernelKind::Collective && groupOf(*r) == group)
        use.push_back(r);
    use = sample(use, 4000);
    std::vector<FitParam> params;
    for (const FitParam &p : target::modelConstants())
      if (p.group == group)
        (use.empty() ? out.unidentified : params).push_back(p);
    if (params.empty())
      continue;
    t = fitConstants(params, targetAccess,
            [&](const GpuTarget &c) {
              return logLoss(use, [&](const KernelRow &r) {
                return predictRow(r, c);
              });
            },
            t,
            out.atEdge);
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

bool tshape::predict::calibrateCluster(
    const std::vector<const KernelRow *> &rows, const cost::Cluster &base,
    const GpuTarget &target, ClusterCalibrationResult &out,
    std::string &error) {
  std::vector<const KernelRow *> fit, held;
  std::vector<const KernelRow *> collectives;
  for (const KernelRow *r : rows)
    if (r->kind == KernelKind::Collective &&
        r->collective.tier == model::Tier::Node)
      collectives.push_back(r);
  if (!splitRows(collectives, fit, held, error))
    return false;
  // Only an all-reduce on more than two ranks of a tier that reduces in
  // the network identifies the in-network efficiency.
  bool inNetwork = false;
  for (const KernelRow *r : fit)
    inNetwork = inNetwork || (base.node.inNetworkReduction &&
                              r->collective.op ==
                                  model::CollectiveOp::AllReduce &&
                              r->collective.ranks > 2);
  std::vector<cost::ClusterConstant> params;
  for (const cost::ClusterConstant &p : cost::clusterConstants())
    (p.field == &cost::TierLink::inNetworkEfficiency && !inNetwork
         ? out.unidentified
         : params)
        .push_back(p);
  const Access<cost::Cluster, cost::ClusterConstant> access{
      [](cost::Cluster &c, const cost::ClusterConstant &p) -> double & {
        return c.node.*p.field;
      },
      [](const cost::ClusterConstant &p) { return p.logScale; }};
  std::vector<const KernelRow *> use = sample(fit, 4000);
  cost::Cluster c = fitConstants(
      params, access,
      [&](const cost::Cluster &k) {
        return logLoss(use, [&](const KernelRow &r) {
          return predictRow(r, target, &k);
        });
      },
      base, out.atEdge);
  c.name = base.name + "-calibrated";
  c.description = base.description + " (calibrated)";
  c.node.constantsSource = "cluster file (tshape-calibrate)";
  out.fitted = c;
  out.fitRows = fit.size();
  out.heldOutRows = held.size();
  out.fitBefore = predictionError(fit, target, &base);
  out.fitAfter = predictionError(fit, target, &c);
  out.heldOutBefore = predictionError(held, target, &base);
  out.heldOutAfter = predictionError(held, target, &c);
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
