//===- ShapeReport.h - Model-level GEMM analysis and report -----*- C++ -*-===//
//
// Takes the GEMMs of a program (shape, role, layer), predicts each with the
// GEMM cost model, traces every M/N/K to the hyperparameter that sized it,
// aggregates the losses per hyperparameter into ranked findings with a
// suggested value found by search, and writes the JSON and Markdown reports
// (docs/report-schema.md). Plain C++: no MLIR types.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_ANALYSIS_SHAPEREPORT_H
#define TSHAPE_ANALYSIS_SHAPEREPORT_H

#include "tshape/Analysis/GemmModel.h"

#include "llvm/Support/raw_ostream.h"

#include <map>
#include <string>
#include <vector>

namespace tshape::analysis {

/// Canonical hyperparameter names (the report's `parameter`).
enum class Param { None, Vocab, Hidden, Heads, HeadDim, Ffn, Seq };
const char *paramName(Param p);

/// Which hyperparameter sized each GEMM dimension, from its role; None for
/// GEMMs without a tshape role. The batch of attention GEMMs is b*heads/t.
struct DimSources {
  Param batch = Param::None, m = Param::None, n = Param::None,
        k = Param::None;
};
DimSources dimSources(const std::string &role);

/// One GEMM of the program.
struct GemmRecord {
  std::string name;     ///< tshape role, or the op name
  int64_t layer = -1;   ///< -1: not in a layer (logits, foreign IR)
  std::string location; ///< file:line:col, for the report
  GemmProblem problem;
  /// Fused attention: scores and values of one layer form one kernel; the
  /// estimate goes to the scores GEMM and the values GEMM costs nothing.
  int64_t fusedGroup = -1;
  bool fusedPrimary = false;
  bool causal = false;
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
};

struct Finding {
  Param parameter = Param::None;
  int64_t value = 0, suggested = 0;
  double estimatedSpeedup = 1; ///< throughput ratio on the GEMMs it sizes
  double timeSavedUs = 0;      ///< per step, at equal FLOPs
  double stepSpeedup = 1;
  int64_t gemms = 0;           ///< GEMMs it sizes that were flagged
  std::string reason;
};

struct Totals {
  double stepUs = 0, perLayerUs = 0;
  int64_t layers = 0;
  double attentionShare = 0, mlpShare = 0, logitsShare = 0, otherShare = 0;
  double lostTileUs = 0, lostKUs = 0, lostWaveUs = 0, lostAlignUs = 0,
         lostFusedHeadDimUs = 0;
  double flops = 0;
};

class ShapeAnalysis {
public:
  ShapeAnalysis(const target::GpuTarget &target, double threshold,
                int64_t tp = 1)
      : target(target), threshold(threshold), tp(tp) {}

  /// Predicts every record (cached by shape: the cost of one GEMM does not
  /// depend on how many there are), fills flags and causes.
  void analyze(std::vector<GemmRecord> &records);
  Totals totals(const std::vector<GemmRecord> &records) const;
  /// Ranked by time saved, largest first.
  std::vector<Finding> findings(const std::vector<GemmRecord> &records);

  void writeJson(llvm::raw_ostream &os, const std::vector<GemmRecord> &records,
                 const Totals &totals, const std::vector<Finding> &findings,
                 int64_t skipped) const;
  void writeMarkdown(llvm::raw_ostream &os,
                     const std::vector<GemmRecord> &records,
                     const Totals &totals,
                     const std::vector<Finding> &findings,
                     int64_t skipped) const;

  /// The representative value of `p` in these GEMMs (global, not per rank),
  /// or 0 when no GEMM carries it.
  int64_t parameterValue(const std::vector<GemmRecord> &records,
                         Param p) const;

private:
  const GemmEstimate &estimate(const GemmProblem &p);
  void predict(GemmRecord &r);
  /// Throughput (FLOP/s) and time of `records` with `p` changed from `from`
  /// to `to`, over the GEMMs `p` sizes.
  bool evaluate(const std::vector<GemmRecord> &records, Param p, int64_t from,
                int64_t to, double &flops, double &us);

  const target::GpuTarget &target;
  double threshold;
  int64_t tp;
  std::map<std::tuple<int64_t, int64_t, int64_t, int64_t, int, bool, bool>,
           GemmEstimate>
      cache;
};

} // namespace tshape::analysis

#endif // TSHAPE_ANALYSIS_SHAPEREPORT_H
