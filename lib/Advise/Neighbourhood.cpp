//===- Neighbourhood.cpp - Candidate values of one hyperparameter ---------===//

#include "tshape/Advise/Neighbourhood.h"

#include <algorithm>
#include <cmath>

using namespace tshape;
using namespace tshape::advise;
using model::Param;

namespace {
/// Multiples of `step` in [lo, hi] other than `keep`, nearest to `keep`
/// first when the range holds more than the bound.
Neighbourhood multiples(int64_t lo, int64_t hi, int64_t step, int64_t keep) {
  Neighbourhood n;
  step = std::max<int64_t>(1, step);
  lo = std::max<int64_t>(lo, 1);
  if (hi < lo)
    return n;
  int64_t first = lo % step ? lo + (step - lo % step) : lo;
  if (first < lo) // overflow
    return n;
  // Count, then walk outward from keep when over the bound.
  int64_t count = first > hi ? 0 : (hi - first) / step + 1;
  if (count > kMaxCandidates) {
    n.truncated = true;
    int64_t centre = std::clamp(keep, first, hi);
    centre = first + (centre - first) / step * step;
    for (int64_t i = 0; (int64_t)n.values.size() < kMaxCandidates; ++i) {
      int64_t below = centre - i * step, above = centre + (i + 1) * step;
      if (below >= first && below != keep)
        n.values.push_back(below);
      if (above <= hi && above != keep &&
          (int64_t)n.values.size() < kMaxCandidates)
        n.values.push_back(above);
      if (below < first && above > hi)
        break;
    }
    std::sort(n.values.begin(), n.values.end());
    return n;
  }
  for (int64_t v = first; v <= hi; v += step) {
    if (v != keep)
      n.values.push_back(v);
    if (v > hi - step) // no overflow past hi
      break;
  }
  return n;
}

int64_t scaled(int64_t v, double f) {
  double r = std::floor(double(v) * f);
  return r >= 9.2e18 ? INT64_MAX : int64_t(r);
}
} // namespace

Neighbourhood tshape::advise::neighbourhood(Param p, int64_t value,
                                              const NeighbourhoodContext &c) {
  if (value <= 0)
    return {};
  // A split parameter steps by whole alignments on every rank.
  const int64_t splitStep =
      c.bestAlign * std::max<int64_t>(1, model::splitDegree(p, c.env));
  switch (p) {
  case Param::Vocab: {
    int64_t first = value % splitStep ? value / splitStep * splitStep + splitStep
                                      : value;
    return multiples(value, first + 7 * splitStep, splitStep, value);
  }
  case Param::Ffn:
  case Param::MoeFfn:
  case Param::SharedFfn:
    return multiples(scaled(value, 0.92), scaled(value, 1.08) + 1, splitStep,
                     value);
  case Param::Hidden:
    return multiples(scaled(value, 0.97), scaled(value, 1.03) + 1, c.minAlign,
                     value);
  case Param::Seq:
    return multiples(scaled(value, 0.97), scaled(value, 1.03) + 1,
                     c.bestAlign, value);
  case Param::Heads:
    return multiples(std::max<int64_t>(1, value / 2),
                     value > INT64_MAX / 2 ? INT64_MAX : 2 * value, 1, value);
  case Param::KvHeads:
    return multiples(1, value > INT64_MAX / 2 ? INT64_MAX : 2 * value, 1,
                     value);
  case Param::HeadDim:
    return multiples(c.minHeadDim, c.maxHeadDim, c.bestAlign, value);
  // Experts: half to twice the count, whole on every expert-parallel rank;
  // experts per token: 1 to twice as many (rule E2 caps it at the experts).
  case Param::Experts:
    return multiples(std::max<int64_t>(1, value / 2),
                     value > INT64_MAX / 2 ? INT64_MAX : 2 * value,
                     std::max<int64_t>(1, model::splitDegree(p, c.env)),
                     value);
  case Param::TopK:
    return multiples(1, value > INT64_MAX / 2 ? INT64_MAX : 2 * value, 1,
                     value);
  // A window is a band of keys: aligned widths within 8% (2047 -> 2048).
  case Param::Window:
    return multiples(scaled(value, 0.92), scaled(value, 1.08) + 1,
                     c.bestAlign, value);
  // MLA's latent ranks: within 8%, as an inner size, by whole alignments
  // (not split: every rank holds the whole latent).
  case Param::QLoraRank:
  case Param::KvLoraRank:
    return multiples(scaled(value, 0.92), scaled(value, 1.08) + 1,
                     c.bestAlign, value);
  // MLA's per-head dims: from half to twice, by whole alignments.
  case Param::QkNopeDim:
  case Param::QkRopeDim:
  case Param::VHeadDim:
    return multiples(std::max<int64_t>(c.bestAlign, value / 2),
                     value > INT64_MAX / 2 ? INT64_MAX : 2 * value,
                     c.bestAlign, value);
  default:
    return {};
  }
}
