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

/// One GEMM of the program.
struct GemmRecord {
  std::string name;     ///< the model's GEMM name, or the op name
  /// The model's description of this GEMM: role, pass and each size as an
  /// expression over named parameters with their values. Absent for GEMMs
  /// the model did not define (foreign IR); those get no finding.
  std::optional<model::GemmSpec> spec;
  int64_t layer = -1;   ///< -1: not in a layer (logits, foreign IR)
  std::string location; ///< file:line:col, for the report
  /// The GEMM as the cost model runs it. With a `spec` and a `run`, the
  /// analysis poses it through gemmProblem (under the run's precision a
  /// weight GEMM is an FP8 linear layer; a grouped expert GEMM runs its
  /// active experts), from `problem`'s element type and the spec's sizes.
  GemmProblem problem;
  /// The run the GEMM belongs to (the tshape IR's #tshape.run, the lowered
  /// function's string form); absent for foreign IR, which is priced as
  /// its element types say.
  std::optional<model::RunShape> run;
  /// Fused attention: scores and values of one layer form one kernel; the
  /// estimate goes to the scores GEMM, which carries the kernel as the
  /// block model stated it (`attention`), and the values GEMM costs
  /// nothing.
  int64_t fusedGroup = -1;
  bool fusedPrimary = false;
  std::optional<model::AttentionSpec> attention;
  /// A memory-bound elementwise kernel of the block's list (MLA's merge),
  /// not a GEMM: priced by predictKernel (its bytes at the bandwidth plus
  /// a launch each), `problem` holding launches x rows x width x 0 as the
  /// inference report's table does; no cause, finding or flag.
  std::optional<model::ElementwiseSpec> elementwise;
  GemmEstimate estimate;
  FusedAttentionEstimate fused;
  double predictedUs = 0; ///< the time this GEMM contributes
  double measuredUs = -1; ///< from tshape-run-gemms, when it ran before
  /// What the library chose (cuBLASLt's wavesCount, tile id and that tile as
  /// M x N), when measured; compare with estimate.waves and estimate.tile.
  double libraryWaves = 0;
  int64_t libraryTileId = -1;
  int64_t libraryTileM = 0, libraryTileN = 0;
  double lossFraction = 0; ///< 1 - useful / issued tensor-core work
  bool flagged = false;
  std::vector<std::string> causes; ///< human-readable, with numbers
  /// The dimensions a cause blames (alignment, K steps, tile fill, fused
  /// head-dim padding): batch, M, N, K. Findings read these, never the text.
  bool faultBatch = false, faultM = false, faultN = false, faultK = false;
};

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
bool sizedBy(const GemmRecord &r, Param p);
/// Whether a dimension a cause of `r` blames mentions `p`.
bool blames(const GemmRecord &r, Param p);

class ShapeAnalysis {
public:
  ShapeAnalysis(const target::GpuTarget &target, double threshold)
      : target(target), threshold(threshold) {}

  /// Predicts every record (cached by shape: the cost of one GEMM does not
  /// depend on how many there are), fills flags and causes.
  void analyze(std::vector<GemmRecord> &records);
  Totals totals(const std::vector<GemmRecord> &records) const;
  /// Ranked by time saved, largest first.
  std::vector<Finding> findings(const std::vector<GemmRecord> &records);

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
  std::optional<Change> price(const std::vector<GemmRecord> &records, Param p,
                              int64_t to);

  double flagThreshold() const { return threshold; }
  const target::GpuTarget &gpu() const { return target; }

private:
  const GemmEstimate &estimate(const GemmProblem &p);
  void predict(GemmRecord &r);
  /// FLOPs and time, before and with `p` bound to `to`, of the `records`
  /// (each counted `weight` times) whose sizes change; false when a size
  /// has no value (a rule breaks) or none changes.
  bool evaluate(const std::vector<std::pair<const GemmRecord *, int64_t>> &
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
