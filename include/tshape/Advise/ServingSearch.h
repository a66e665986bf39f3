//===- ServingSearch.h - The serving configurations under targets -*- C++ -*-===//
//
// For a model, a GPU and a GPU budget per replica: every layout (the
// attention's tp and dp, the experts' ep), each linear-layer precision
// asked for, and the requests in flight (powers of two up to what the KV
// cache holds, and that most) priced by cost::estimateServing, through the
// one bounded odometer (Odometer.h). The configurations that meet the
// service targets (time to first token, time per output token) ranked
// by output tokens/s per GPU; the Pareto front of tokens/s per GPU against
// tokens/s per user over all of them; the layouts the model's rules or
// the memory reject, counted by reason; and, when nothing meets the
// targets, which bound fails and by how much. docs/serving.md#search.
// Plain C++: no MLIR types.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_ADVISE_SERVINGSEARCH_H
#define TSHAPE_ADVISE_SERVINGSEARCH_H

#include "tshape/Cost/Serving.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tshape::advise {

/// Service targets; 0: none.
struct ServingTargets {
  double ttftMs = 0; ///< time to first token, at most
  double tpotMs = 0; ///< time per output token, at most
  /// Requests/s the deployment must serve (0: none): each configuration
  /// then needs ceil(rate / its requests/s) replicas, and the fewest GPUs
  /// rank first.
  double rate = 0;
  /// Dollars per GPU-hour (0: none): each configuration's cost per
  /// million output tokens.
  double gpuHourPrice = 0;
};

/// What the search varies.
struct ServingSpace {
  int64_t gpus = 8; ///< GPUs of one replica at most (tp x dp)
  /// The linear layers' precisions to try (nullopt: the model's dtype).
  std::vector<std::optional<Precision>> precisions = {std::nullopt};
  /// Try attention data parallelism (and, for a model with routed
  /// experts, expert parallelism).
  bool attentionDp = true;
};

/// The requests in flight the search tries: 1, 2, 4, ... up to this, and
/// the most the cache holds.
inline constexpr int64_t kServingMaxConcurrencyStep = 4096;

struct ServingCandidate {
  cost::ServingConfig config;
  cost::ServingEstimate estimate;
  bool meets = true;
  /// The largest ratio of a figure to its target (<= 1 when it meets).
  double worstRatio = 0;
  /// What misses ("TPOT 61.2 ms > 50 ms"), empty when it meets.
  std::string miss;
  /// With a rate: the replicas and GPUs it needs.
  int64_t replicas = 1, totalGpus = 1;
  /// With a price: dollars per million output tokens (0: none).
  double costPerMillion = 0;
};

struct ServingSearchResult {
  int64_t layouts = 0;        ///< layouts x precisions tried
  int64_t layoutsPriced = 0;  ///< of them, those that split and fit
  int64_t evaluated = 0;      ///< configurations priced (with concurrency)
  int64_t meeting = 0;        ///< of them, those that meet the targets
  int64_t space = 0;          ///< the odometer's whole space
  /// Rejected layouts by reason ("rule A3", "does not fit in memory"),
  /// each with the first message of its kind.
  std::map<std::string, int64_t> rejections;
  std::map<std::string, std::string> rejectionExamples;
  /// The best configuration of each layout that meets the targets, by
  /// output tokens/s per GPU (with a rate: by the GPUs it needs, then
  /// tokens/s per GPU; at most `top`).
  std::vector<ServingCandidate> best;
  /// Every configuration priced, in the order of the search.
  std::vector<ServingCandidate> all;
  /// Every configuration priced that no other beats in both tokens/s per
  /// GPU and tokens/s per user, by tokens/s per user.
  std::vector<ServingCandidate> pareto;
  /// When nothing meets the targets: the closest configuration, and the
  /// best each bound reaches alone ("the lowest TPOT is 43.1 ms, tp
  /// 8 at 1 request").
  std::optional<ServingCandidate> closest;
  std::vector<std::string> boundNotes;
};

/// Searches the serving configurations of `c` (imported at degree 1) for
/// `workload` (its concurrency ignored: the search sets it) on `target`,
/// the engine and its limits from `base`. `top` bounds `best`.
ServingSearchResult searchServing(const model::ModelConfig &c,
                                  const cost::ServingWorkload &workload,
                                  const cost::ServingConfig &base,
                                  const ServingSpace &space,
                                  const ServingTargets &targets,
                                  const target::GpuTarget &target,
                                  const cost::Cluster *cluster, size_t top);

/// "attention tp 2 dp 1, fp8, 64 requests": one line per configuration.
std::string describe(const ServingCandidate &c);

} // namespace tshape::advise

#endif // TSHAPE_ADVISE_SERVINGSEARCH_H
