//===- Parallelism.h - Parallel degrees and per-rank sizes ------*- C++ -*-===//
//
// The parallel degrees of a run and the only code that divides a size by
// one. A hyperparameter's entry in Params.h names the degree that splits it
// (heads, kv_heads, ffn and vocab by tp); perRank() turns a global
// parameter into its per-rank expression. Pipeline, data, expert and
// context degrees join here as further Params and `splitBy` entries.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_MODEL_PARALLELISM_H
#define TSHAPE_MODEL_PARALLELISM_H

#include "tshape/Model/DimExpr.h"

namespace tshape::model {

struct Parallelism {
  int64_t tp = 1; ///< tensor-parallel degree
  /// The degrees as bindings (tp = ...).
  void bind(Bindings &env) const { env.set(Param::Tp, tp); }
};

/// The per-rank size of `global`, a size of parameter `p`: divided by the
/// degree that splits `p` (Params.h). Key/value heads are replicated when
/// tp exceeds them: max(1, kv_heads/tp).
DimExpr perRank(Param p, const DimExpr &global);
inline DimExpr perRank(Param p) { return perRank(p, DimExpr::param(p)); }

/// Tokens one rank processes per step: microbatch*seq.
DimExpr tokensPerRank();

} // namespace tshape::model

#endif // TSHAPE_MODEL_PARALLELISM_H
