//===- PlanReport.h - One training plan, evaluated --------------*- C++ -*-===//
//
// tshape-plan's report: the plan (degrees, batch, schedule, recompute,
// sharding), its step time and throughput (cost::estimateStep), the memory
// per GPU of its peak stage against the target's memory, and the
// Megatron-LM launch line (Interop/Megatron.h). Rendered as JSON, Markdown
// (Writers.h) and the tool's terminal summary (writeText);
// docs/report-schema.md gives the JSON keys. Plain C++: no MLIR types.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_REPORT_PLANREPORT_H
#define TSHAPE_REPORT_PLANREPORT_H

#include "tshape/Advise/PlanSearch.h"
#include "tshape/Cost/StepTime.h"

#include "llvm/Support/JSON.h"

#include <optional>

#include <string>
#include <vector>

namespace tshape::report {

struct PlanReport {
  std::string model;   ///< the config's path or name
  std::string target;  ///< GPU target name
  std::string cluster; ///< cluster name
  /// The target's memory per GPU in GiB; 0: unknown (fit not judged).
  double memoryCapacityGiB = 0;
  int64_t gpus = 0;
  /// The degrees, microbatch, sequence and dtype (`config.parallel`, ...).
  model::ModelConfig config;
  cost::TrainingPlan plan;
  cost::StepEstimate step;
  /// The Megatron-LM launch: the full command, its arguments alone, and
  /// the notes (what Megatron-LM cannot express or tshape assumed).
  std::string megatronCommand;
  std::string megatronArguments;
  std::vector<std::string> megatronNotes;

  /// The peak stage's memory in GiB.
  double peakGiB() const;
  /// Whether the peak stage fits the target's memory (true when unknown).
  bool fits() const;
};

/// Megatron-LM's bytes per parameter for the precision (Memory.h).
cost::StateBytes stateBytes(model::DType dtype);

/// One plan of `config` (degrees, microbatch, sequence) evaluated on
/// `world` GPUs of `cluster`: the report with its Megatron-LM launch;
/// nullopt with `error` set when Megatron-LM would reject it or it cannot
/// be priced. `modelName` is the report's `model`; `originalVocab` the
/// tokenizer's vocabulary. tshape-plan and `tshape advise --cluster`.
std::optional<PlanReport>
evaluatePlan(const std::string &modelName, const model::ModelConfig &config,
             const cost::TrainingPlan &plan, const target::GpuTarget &target,
             const cost::Cluster &cluster, int64_t world,
             int64_t originalVocab, std::string &error);

/// The plan's keys of tshape-plan/1 (plan, step_time_s ...
/// memory_per_stage_gib) into an open JSON object: one statement for the
/// evaluated plan and for every ranked plan of a search.
void writePlanJson(llvm::json::OStream &j, const model::ModelConfig &config,
                   const cost::TrainingPlan &plan,
                   const cost::StepEstimate &step);

/// A search's counts, tshape-plan-search/1's "candidates" object (space,
/// cut, priced, fit, unvisited, bounded), into an open JSON object.
void writeCandidatesJson(llvm::json::OStream &j,
                         const advise::PlanSearchResult &r);

/// tshape-plan --search's report: the space, what the search counted and
/// why it rejected each family, the ranked plans, and the fastest one
/// evaluated as tshape-plan evaluates one (with its Megatron-LM launch).
/// The shape co-search under one plan (advise::coSearchShapes).
struct PlanShapes {
  advise::PlanCandidate plan; ///< the plan, with the model's own shape
  advise::SearchResult shapes;
};

struct PlanSearchReport {
  std::string model, target, cluster;
  advise::PlanSearchResult result;
  /// --co-search: the shape search under each tensor-parallel family's
  /// fastest plan, and the parameters it varied.
  std::vector<PlanShapes> coSearch;
  std::string coSearchVary;
  double coSearchTolerance = 0;
  std::optional<PlanReport> best; ///< absent when no plan fits
  /// Wall-clock seconds of the search (the terminal summary only: reports
  /// stay deterministic).
  double seconds = 0;
};

} // namespace tshape::report

#endif // TSHAPE_REPORT_PLANREPORT_H
