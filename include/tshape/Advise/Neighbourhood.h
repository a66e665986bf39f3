//===- Neighbourhood.h - Candidate values of one hyperparameter -*- C++ -*-===//
//
// The values near a hyperparameter's current one that the shape search
// tries and that a finding may suggest: one definition, so that the report
// never suggests a value the optimizer would not consider
// (docs/optimize-shapes.md, "Neighbourhood"). Every list is bounded by
// kMaxCandidates whatever the magnitude of the value. Plain C++.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_ADVISE_NEIGHBOURHOOD_H
#define TSHAPE_ADVISE_NEIGHBOURHOOD_H

#include "tshape/Model/Parallelism.h"

#include <cstdint>
#include <vector>

namespace tshape::advise {

struct NeighbourhoodContext {
  int64_t bestAlign = 64; ///< elements of the target's best alignment
  int64_t minAlign = 8;   ///< elements of its minimum (tensor-core) alignment
  /// The model's values: the degree that splits a parameter sets its step.
  model::Bindings env;
  int64_t minHeadDim = 64, maxHeadDim = 128;
};

/// Whether `headDim` is one the search and findings may move to: in
/// [minHeadDim, maxHeadDim] and a multiple of the best alignment.
inline bool headDimFits(int64_t headDim, const NeighbourhoodContext &ctx) {
  return headDim >= ctx.minHeadDim && headDim <= ctx.maxHeadDim &&
         headDim % ctx.bestAlign == 0;
}

/// At most this many candidates per parameter.
inline constexpr int64_t kMaxCandidates = 512;

struct Neighbourhood {
  std::vector<int64_t> values; ///< excluding the current value
  bool truncated = false;      ///< stopped at kMaxCandidates
};

/// Candidate values of `p` around `value`:
///   vocab    the next 8 multiples of bestAlign x its splitting degree
///            above it (only growth)
///   ffn      multiples of bestAlign x its splitting degree within +-8%
///   hidden   multiples of minAlign within +-3%
///   heads    a/2 .. 2a (the head-dim rules are the caller's)
///   kv_heads 1 .. value x 2
///   head_dim multiples of bestAlign in [minHeadDim, maxHeadDim]
///   seq      multiples of bestAlign within +-3%
/// Empty for the other parameters.
Neighbourhood neighbourhood(model::Param p, int64_t value,
                            const NeighbourhoodContext &ctx);

} // namespace tshape::advise

#endif // TSHAPE_ADVISE_NEIGHBOURHOOD_H
