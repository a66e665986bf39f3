//===- Parallelism.h - Parallel degrees and per-rank sizes ------*- C++ -*-===//
//
// The parallel degrees of a run and the only code that divides a size by
// one. A hyperparameter's entry in Params.h names the degree that splits it
// (heads, kv_heads, ffn and vocab by tp) and the rule that it be divisible;
// perRank() turns a global parameter into its per-rank expression and
// checkSplits() states every divisibility rule. A new degree is a field
// here and a row in Params.cpp (docs/architecture.md).
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_MODEL_PARALLELISM_H
#define TSHAPE_MODEL_PARALLELISM_H

#include "tshape/Model/DimExpr.h"

#include <optional>
#include <string>
#include <vector>

namespace tshape::model {

/// The degrees of a run. tp splits heads, kv heads, ffn and vocab, ep the
/// routed experts and etp their width, cp the sequence (rankSeq); pp and
/// dp are stated (1 unless given) for the planner and the memory model.
struct Parallelism {
  /// The degrees in the order of Megatron-LM's flags; etp 0 is tp.
  Parallelism(int64_t tp = 1, int64_t pp = 1, int64_t dp = 1, int64_t ep = 1,
              int64_t cp = 1, int64_t etp = 0)
      : tp(tp), pp(pp), dp(dp), ep(ep), cp(cp), etp(etp) {}
  int64_t tp = 1; ///< tensor-parallel
  int64_t pp = 1; ///< pipeline-parallel
  int64_t dp = 1; ///< data-parallel
  int64_t ep = 1; ///< expert-parallel
  int64_t cp = 1; ///< context-parallel
  /// Expert tensor parallelism (Megatron-LM's
  /// --expert-tensor-parallel-size): the degree that splits the routed
  /// experts' width; 0 is Megatron-LM's default, tp. A plan choice, not a
  /// table degree: the MoE block states it as a constant in its sizes
  /// (Blocks/Moe.cpp), and the IR does not carry it.
  int64_t etp = 0;
  /// The expert tensor-parallel degree in effect: etp, or tp when unset.
  int64_t expertTp() const { return etp > 0 ? etp : tp; }
  /// Whether it differs from tp (the MoE block's sizes then say so).
  bool expertTpOwn() const { return etp > 0 && etp != tp; }
  bool operator==(const Parallelism &o) const {
    return tp == o.tp && pp == o.pp && dp == o.dp && ep == o.ep &&
           cp == o.cp && expertTp() == o.expertTp();
  }
};

/// The degree `p` of `par` (a Param of kind Degree), and setting it, through
/// the parameter table.
int64_t degree(const Parallelism &par, Param p);
void setDegree(Parallelism &par, Param p, int64_t value);

/// Binds the degrees that split some parameter (those size expressions can
/// mention), with their values in `env`'s model; others stay unbound so
/// that reports list only what the sizes use.
void bindDegrees(const Parallelism &p, Bindings &env);
/// The same for the degrees of a whole model (no copy: bindings() calls it
/// for every GEMM).
void bindDegrees(const ModelConfig &c, Bindings &env);

/// The degree that splits `p` in `env` (1 when none does, or it is unbound).
int64_t splitDegree(Param p, const Bindings &env);

/// The per-rank size of `global`, a size of parameter `p`: divided by the
/// degree that splits `p` (Params.h). Key/value heads are replicated when
/// the degree exceeds them: max(1, floordiv(kv_heads, tp)).
DimExpr perRank(Param p, const DimExpr &global);
inline DimExpr perRank(Param p) { return perRank(p, DimExpr::param(p)); }

/// The sequence one context-parallel rank holds: seq / cp. Megatron-LM's
/// context parallelism gives each rank s/cp of every sequence (the step
/// model requires cp to divide s). Seq has no `splitBy` row: the block
/// models state the kernels of whole sequences, and ring attention runs cp
/// blocks of the (s/cp)-long kernel, so the step and memory models take the
/// rank's share through these two, not through perRank.
int64_t rankSeq(const ModelConfig &c);
/// `c` with its sequence set to rankSeq(c): the config of the kernels one
/// context-parallel rank runs (each block of the ring attention included).
ModelConfig rankSeqConfig(const ModelConfig &c);

/// A violated rule: its number (see docs/dialect.md, "Verifier rules") and a
/// message that gives the numbers and what to change.
struct RuleViolation {
  std::string rule;
  std::string message;
};

/// Every divisibility rule of the table (ParamInfo::splitRule: A3, A4, M1,
/// V1 today) on the parameters `env` binds, in vocabulary order; the first
/// violation. A degree of 0 or less is rule S1's and is skipped here.
std::optional<RuleViolation> checkSplits(const Bindings &env);

/// Pads every grow-only parameter that a degree splits (the vocabulary)
/// and is not divisible by it up to a multiple of `unit` x that degree, as
/// frameworks pad it (Megatron-LM: --make-vocab-size-divisible-by, 128 by
/// default); the padded parameters, or none.
std::vector<Param> padGrowOnlySplits(ModelConfig &c, int64_t unit = 1);

} // namespace tshape::model

#endif // TSHAPE_MODEL_PARALLELISM_H
