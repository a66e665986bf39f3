//===- Guidelines.h - The paper's shape rules as a checklist ----*- C++ -*-===//
//
// The rules of Anthony et al. (ICPP '24) and of practice (Megatron-LM,
// nanoGPT), checked against a program's GEMMs: vocab a multiple of 64 (and
// of 64 x t), head_dim a multiple of 64 (64 or 128 ideal), h/t and b x s
// multiples of 64, (b x a)/t whole, a divisible by t, a gated MLP's inner
// size a multiple of 64, and for a mixture of experts the tokens per expert
// and moe_ffn multiples of 64. Each entry is priced on the target even when
// the flags stay silent: the parameter the rule moves is set to its nearest
// passing value and the GEMMs it sizes are re-predicted by the cost model
// (ShapeAnalysis::price). Plain C++: no MLIR types. docs/advise.md.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_ADVISE_GUIDELINES_H
#define TSHAPE_ADVISE_GUIDELINES_H

#include "tshape/Advise/ShapeReport.h"

#include <optional>
#include <string>
#include <vector>

namespace tshape::advise {

/// One rule of the checklist.
struct Guideline {
  std::string rule;      ///< "vocab a multiple of 64"
  std::string parameter; ///< the quantity the rule reads ("vocab", "b*s")
  int64_t value = 0;     ///< its value in the model
  bool ok = true;
  /// Share of the predicted step the violation costs: the time the nearest
  /// passing value saves at equal FLOPs over the step time (negative: the
  /// passing value is predicted slower). 0 when ok or not priced.
  double predictedCost = 0;
  bool priced = false;
  /// The change that was priced ("vocab 50272 -> 50304"); "" when none.
  std::string fix;
  std::string note;
};

/// How far the nearest passing value is looked for, each side of the
/// value; a rule with none in reach says so.
inline constexpr int64_t kGuidelineReach = 4096;

/// The checklist for the analyzed `records` (ShapeAnalysis::analyze run):
/// only the rules whose quantities the records bind. Costs are shares of
/// the records' predicted step on `analysis.gpu()`; a failed rule costing
/// less than `analysis.flagThreshold()` says so.
std::vector<Guideline> checkGuidelines(ShapeAnalysis &analysis,
                                       const std::vector<KernelRecord> &records);

/// A share as the checklist writes it: "2.1%", "0.0041%" (two significant
/// digits under 1%).
std::string costPercent(double share);

/// One point of a sweep: the parameter's value and the predicted
/// throughput (TFLOP/s) of the GEMMs it sizes at that value.
struct SweepPoint {
  int64_t value = 0;
  double tflops = 0;
};

/// The paper's figure for one parameter of the user's model: predicted
/// throughput of the GEMMs `p` sizes at values around `value`, a window of
/// 64 steps each side widened to hold `suggested`, at most 257 points (the
/// step grows to keep that bound); values that break a rule are left out.
struct Sweep {
  Param parameter = Param::Hidden;
  int64_t value = 0, suggested = 0;
  int64_t step = 1;
  std::vector<SweepPoint> points; ///< ascending; holds `value`
};
Sweep sweepParameter(ShapeAnalysis &analysis,
                     const std::vector<KernelRecord> &records, Param p,
                     int64_t value, int64_t suggested);

} // namespace tshape::advise

#endif // TSHAPE_ADVISE_GUIDELINES_H
