//===- AdviseReport.h - tshape advise: the whole path, one report -*- C++ -*-===//
//
// What `tshape advise` computes for one model, from the library's own
// pieces: the analysis of its GEMMs with findings and the guidelines
// checklist (report::analyze), the shape search within the parameter
// budget (advise::ShapeSearch), the throughput sweep behind each finding
// (advise::sweepParameter), and, by the run asked for, the serving step
// (cost::estimateInference, advise::inferenceFindings) or the training plan
// on a cluster (report::evaluatePlan). Rendered as JSON (schema
// tshape-advise/1), Markdown, a self-contained HTML page and the terminal
// summary (docs/advise.md). Plain C++: no MLIR types.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_REPORT_ADVISEREPORT_H
#define TSHAPE_REPORT_ADVISEREPORT_H

#include "tshape/Advise/Guidelines.h"
#include "tshape/Cost/Cluster.h"
#include "tshape/Report/InferenceReport.h"
#include "tshape/Report/PlanReport.h"
#include "tshape/Report/ReportModel.h"

#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace tshape::report {

struct AdviseOptions {
  std::string model;     ///< the config's path, as the report names it
  target::GpuTarget target;
  model::RunShape run;   ///< train, prefill or decode
  double paramTolerance = 0.02;
  double threshold = 0.1; ///< the analysis' flag threshold
  /// --cluster: the training step priced on this cluster under the plan of
  /// the config's degrees (tp x pp x cp GPUs, times ep data-parallel replicas
  /// when experts are split: Megatron-LM builds expert groups inside the
  /// data-parallel ranks), pp microbatches (the fewest that fill the
  /// pipeline) and `recompute`, as tshape-plan prices the same plan;
  /// absent: one GPU's kernels.
  std::optional<cost::Cluster> cluster;
  cost::Recompute recompute = cost::Recompute::None;
  /// Selective recompute's modules (--recompute-modules).
  model::RecomputeModules recomputeModules =
      model::RecomputeModules(model::RecomputeModule::CoreAttn);
  bool sequenceParallel = false;
  /// v: model chunks per pipeline rank (above 1: the interleaved
  /// schedule; its pp microbatches are a multiple of pp, as it needs).
  int64_t virtualStages = 1;
  /// The tokenizer's vocabulary (Megatron-LM's padding).
  int64_t originalVocab = 0;
  /// The findings that get a sweep, first ones first.
  size_t maxSweeps = 4;
  /// What the driver changed or assumed before the analysis, one sentence
  /// each (a vocabulary padded to a multiple of tp).
  std::vector<std::string> notes;
  /// Called with each stage's name (the terminal's progress line).
  std::function<void(llvm::StringRef)> onStage;
};

struct AdviseReport {
  std::string model, modelType;
  AdviseOptions options;
  model::ModelConfig config; ///< as imported
  AnalysisReport analysis;   ///< of `config` under the run
  /// The shape search; absent (with `searchError`) when it failed.
  std::optional<advise::SearchResult> search;
  std::string searchError;
  /// The optimized model's analysis, when the search changed it.
  std::optional<AnalysisReport> optimized;
  /// One per finding (and per searched change without one), for the figure.
  std::vector<advise::Sweep> sweeps;
  /// prefill or decode: the serving step.
  std::optional<InferenceReport> inference;
  /// --cluster (train): the plan's step on the cluster.
  std::optional<PlanReport> plan;
  std::string planError;
  /// Megatron-LM arguments of the optimized model (Interop/Megatron.h).
  std::string megatronArguments;
  /// The files written, in order (the terminal summary names them).
  std::vector<std::string> files;

  /// The model the search chose (the imported one when it kept it).
  const model::ModelConfig &result() const {
    return search ? search->after : config;
  }
  /// Predicted step of the imported model (us, one rank).
  double stepUs() const;
};

/// Runs the whole path on `config`; nullopt with `error` set when the run
/// cannot be priced (a serving step of a model that cannot be estimated).
/// A failed shape search or plan is reported inside, not as an error.
std::optional<AdviseReport> buildAdviseReport(const model::ModelConfig &config,
                                              const AdviseOptions &options,
                                              std::string &error);

void writeJson(llvm::raw_ostream &os, const AdviseReport &r);
/// " (linear layers fp8)" when the run's linear layers are not in the
/// model's type, else "": the run line of every format.
std::string linearPrecisionNote(const AdviseReport &r);
void writeMarkdown(llvm::raw_ostream &os, const AdviseReport &r);
/// One self-contained page: inline CSS and SVG, no script, nothing fetched.
void writeHtml(llvm::raw_ostream &os, const AdviseReport &r);
/// The terminal summary: the predicted step, the top findings, the
/// failed guidelines, the optimized shape and its gain, the files.
void writeText(llvm::raw_ostream &os, const AdviseReport &r);

} // namespace tshape::report

#endif // TSHAPE_REPORT_ADVISEREPORT_H
