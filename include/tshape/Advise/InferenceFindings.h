//===- InferenceFindings.h - What a serving step's shape costs -*- C++ -*-===//
//
// Findings of a prefill or decode step (Cost/Inference.h), each traced to
// the hyperparameter (or run parameter) that decides it: the batch at
// which the weight GEMMs leave the memory-bound regime; the KV-cache bytes
// per token from kv_heads x head_dim and what fewer kv heads or an fp8
// cache would save; head counts that break a decode kernel's grouping
// (more query heads per kv head than its query tile, kv heads replicated
// over tp). The alignment findings at small M are the analysis' own
// (ShapeReport.h), run on the step's GEMMs. docs/inference.md. Plain C++.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_ADVISE_INFERENCEFINDINGS_H
#define TSHAPE_ADVISE_INFERENCEFINDINGS_H

#include "tshape/Cost/Inference.h"

#include <string>
#include <vector>

namespace tshape::advise {

struct InferenceFinding {
  /// "memory-bound-batch", "kv-cache", "decode-grouping".
  std::string kind;
  model::Param parameter = model::Param::Microbatch;
  int64_t value = 0;     ///< the parameter's value now
  int64_t suggested = 0; ///< the value the finding suggests; 0: none
  /// The step time and the largest batch that fits with the suggestion
  /// (0 when not evaluated).
  double stepUsAfter = 0;
  int64_t maxBatchAfter = 0;
  std::string message; ///< one sentence with the numbers and the fix
};

/// The smallest batch (sequences, each of the run's queries) from which
/// the weight GEMM `role` of `c` is compute-bound on `target`; 0 when it
/// stays memory-bound up to `limit` sequences.
int64_t computeBoundBatch(const model::ModelConfig &c,
                          const model::RunShape &run, model::Role role,
                          const target::GpuTarget &target,
                          int64_t limit = 16384);

/// The findings of `est` (estimateInference of `c` and `run`).
std::vector<InferenceFinding>
inferenceFindings(const model::ModelConfig &c, const model::RunShape &run,
                  const target::GpuTarget &target,
                  const cost::InferenceOptions &options,
                  const cost::InferenceEstimate &est);

} // namespace tshape::advise

#endif // TSHAPE_ADVISE_INFERENCEFINDINGS_H
