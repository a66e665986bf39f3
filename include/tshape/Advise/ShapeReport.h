//===- ShapeReport.h - Model-level GEMM analysis and report -----*- C++ -*-===//
//
// Takes the GEMMs of a program (shape, role, layer), predicts each with the
// GEMM cost model, traces every M/N/K to the hyperparameter that sized it,
// aggregates the losses per hyperparameter into ranked findings with a
// suggested value found by search. The reports that render the results are
// in tshape/Report. Plain C++: no MLIR types.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_ADVISE_SHAPEREPORT_H
#define TSHAPE_ADVISE_SHAPEREPORT_H

#include "tshape/Advise/KernelRecord.h"
#include "tshape/Cost/GemmModel.h"
#include "tshape/Model/Kernel.h"
#include "tshape/Model/RunShape.h"

#include "llvm/Support/raw_ostream.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tshape::advise {

using namespace tshape::cost;

using model::Param;
using model::paramName;

struct Finding {
  Param parameter = Param::Hidden;
  int64_t value = 0, suggested = 0; ///< the parameter's own (global) values
  /// What else changes with it (head_dim when it is hidden/heads).
  std::string effect;
  double estimatedSpeedup = 1; ///< throughput ratio on the GEMMs it sizes
  double timeSavedUs = 0;      ///< per step, at equal FLOPs
  double stepSpeedup = 1;
  int64_t gemms = 0;           ///< GEMMs it sizes that were flagged
  std::string reason;
};

/// One group's share of the predicted step (RoleGroup: "attention",
/// "mlp", "logits", a registered group's name, and last "other": the
/// communication and what no group holds).
struct GroupShare {
  std::string group;
  double share = 0;
};

struct Totals {
  double stepUs = 0, perLayerUs = 0;
  int64_t layers = 0;
  /// Where the time goes, over every role group that has time and the
  /// built-in ones always, in allRoleGroups order, then "other".
  std::vector<GroupShare> groups;
  /// The built-in groups' shares (of `groups`), as the reports name them.
  double attentionShare = 0, mlpShare = 0, logitsShare = 0, otherShare = 0;
  double lostTileUs = 0, lostKUs = 0, lostWaveUs = 0, lostAlignUs = 0,
         lostFusedHeadDimUs = 0;
  double flops = 0;
};

/// Whether the model's expressions for `r` mention `p` (and bind it).
bool sizedBy(const KernelRecord &r, Param p);
/// Whether a dimension a cause of `r` blames mentions `p`.
bool blames(const KernelRecord &r, Param p);

class ShapeAnalysis {
public:
  ShapeAnalysis(const target::GpuTarget &target, double threshold)
      : target(target), threshold(threshold) {}

  /// Predicts every record (cached by shape: the cost of one GEMM does not
  /// depend on how many there are), fills flags and causes.
  void analyze(std::vector<KernelRecord> &records);
  Totals totals(const std::vector<KernelRecord> &records) const;
  /// Ranked by time saved, largest first.
  std::vector<Finding> findings(const std::vector<KernelRecord> &records);

  /// FLOPs and time of the GEMMs whose sizes change, before and after.
  struct Change {
    double baseFlops = 0, baseUs = 0, flops = 0, us = 0;
    /// Time the change saves per step at equal FLOPs (negative: it costs).
    double savedUs() const { return baseUs - us * (baseFlops / flops); }
    /// Throughput ratio on the GEMMs that change.
    double speedup() const { return (flops / us) / (baseFlops / baseUs); }
  };
  /// The analyzed `records` with every GEMM that `p` sizes re-predicted at
  /// `p` = `to` (identical layers predicted once and counted); nullopt
  /// when a rule breaks (checkBindings) or no size changes. What the
  /// findings, the guidelines checklist and the sweeps price a value with.
  std::optional<Change> price(const std::vector<KernelRecord> &records, Param p,
                              int64_t to);

  double flagThreshold() const { return threshold; }
  const target::GpuTarget &gpu() const { return target; }

private:
  const GemmEstimate &estimate(const GemmProblem &p);
  void predict(KernelRecord &r);
  /// FLOPs and time, before and with `p` bound to `to`, of the `records`
  /// (each counted `weight` times) whose sizes change; false when a size
  /// has no value (a rule breaks) or none changes.
  bool evaluate(const std::vector<std::pair<const KernelRecord *, int64_t>> &
                    records,
                Param p, int64_t to, Change &out);

  const target::GpuTarget &target;
  double threshold;
  std::map<std::tuple<int64_t, int64_t, int64_t, int64_t, int, bool, bool,
                      int, bool, bool, bool>,
           GemmEstimate>
      cache;
};

} // namespace tshape::advise

#endif // TSHAPE_ADVISE_SHAPEREPORT_H
