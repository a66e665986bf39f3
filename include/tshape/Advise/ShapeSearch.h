//===- ShapeSearch.h - Hyperparameter search under a budget -----*- C++ -*-===//
//
// Searches the neighbourhood of a model's searchable parameters (the
// table's `searchable` flag, Params.h) for the shape with the highest
// predicted throughput on a GPU, within a parameter-count tolerance and
// every structural rule: one bounded odometer over the `vary` parameters
// that applies candidates through the table's accessors. Exhaustive over
// the neighbourhood defined in docs/optimize-shapes.md. Plain C++.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_ADVISE_SHAPESEARCH_H
#define TSHAPE_ADVISE_SHAPESEARCH_H

#include "tshape/Advise/ShapeReport.h"
#include "tshape/Model/Transformer.h"

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace tshape::advise {

using namespace tshape::cost;

/// A predicted step of a whole model.
struct StepPrediction {
  double us = 0;    ///< per step, one rank
  double flops = 0; ///< GEMM FLOPs per step, one rank
  double tflops() const { return us > 0 ? flops / (us * 1e6) : 0; }
};

struct SearchOptions {
  double paramTolerance = 0.02; ///< |P' - P| / P allowed
  /// |A' - A| / A allowed for the parameters active per token (a mixture of
  /// experts; A = P for a dense model, whose check is the total's).
  double activeTolerance = 0.02;
  /// Parameters that may change, by name: any the table marks searchable
  /// (seq, hidden, heads, kv_heads, head_dim, ffn, vocab).
  std::set<std::string> vary = {"vocab", "heads", "ffn"};
  /// The run the objective prices: a training step or a prefill (FLOP
  /// throughput), or a decode step (tokens/s at its batch and context).
  model::RunShape run;
  double minGain = 0.01; ///< keep the model unless throughput gains this
  int64_t minHeadDim = 64, maxHeadDim = 128;
  /// A serving mix instead of one run: the steps of each phase per request
  /// (prefill 1, decode 256: one prompt of the model's b x s tokens, then
  /// 256 decode steps of b sequences at the mean context s + 256/2). The
  /// objective is requests/s, 1 / sum(weight x step time). Prefill and
  /// decode only, each once, both present.
  std::vector<std::pair<model::Phase, double>> mix;
  /// When set, the objective instead of one GPU's kernels under `run`:
  /// the plan co-search prices a whole training step under a fixed plan
  /// (PlanSearch.h). Returns nullopt with `why` set when the candidate is
  /// infeasible there (it does not fit the memory, say).
  std::function<std::optional<StepPrediction>(const model::ModelConfig &,
                                              std::string &why)>
      objective;
};

/// What the search varies when the user names nothing: vocab, heads and
/// ffn, and for a mixture of experts the expert inner sizes (moe_ffn, and
/// shared_ffn when it has shared experts). Experts and topk are opt-in.
std::set<std::string> defaultVary(const model::ModelConfig &c);

/// Checks the options; false with `error` set when one is out of range.
bool validateSearchOptions(const SearchOptions &o, std::string &error);


struct Change {
  std::string parameter;
  int64_t before = 0, after = 0;
  double speedup = 1;     ///< throughput ratio with this change alone
  int64_t paramDelta = 0; ///< with this change alone
  /// What the change adds to the result: the result's throughput over that
  /// of the result without it (0 when the result without it breaks a rule).
  /// A kept change adds at least min-gain; a dropped one added less.
  double gainInResult = 1;
  /// The change puts a size on the target's best alignment (128 bytes from
  /// Ampere on). Such a change stays even when it adds less than min-gain:
  /// it is the paper's guideline, and it costs nothing the model can price.
  bool aligns = false;
};

struct SearchResult {
  model::ModelConfig before, after;
  StepPrediction predBefore, predAfter;
  int64_t paramsBefore = 0, paramsAfter = 0;
  std::vector<Change> changes; ///< empty: keep the model
  /// Changes of the best shape found that were undone because each added
  /// less than min-gain to the others (`gainInResult`), most useless first.
  std::vector<Change> dropped;
  int64_t evaluated = 0;       ///< candidate shapes predicted
  /// Parameters whose candidate list stopped at its bound (kMaxCandidates
  /// nearest values, Neighbourhood.h); empty when none did.
  std::vector<std::string> bounded;
  int64_t feasible = 0;        ///< of which met every constraint
  double bestGain = 0;         ///< the best candidate's throughput gain
  /// The gain of its changes that each earned min-gain (the pruning of
  /// "each change earns its place"); below bestGain when one was undone.
  double prunedGain = 0;
  /// A parameter budget's effect: the candidates it alone rejected, and
  /// the best gain among them over the original (0 when none was faster).
  struct Budget {
    int64_t rejected = 0;
    double bestGain = 0;
  };
  Budget total, active; ///< param-tolerance, active-param-tolerance
};

/// The search's objective for a predicted step of `c` under `run`: FLOP
/// throughput (TFLOP/s) for a training step or a prefill, tokens/s for a
/// decode step (its batch and context fixed, so fewer us is better).
double objectiveRate(const StepPrediction &p, const model::ModelConfig &c,
                     const model::RunShape &run);
/// The same for the search's options: a serving mix's is requests/s.
double objectiveRate(const StepPrediction &p, const model::ModelConfig &c,
                     const SearchOptions &o);
/// Parses "phase:weight" (phase-mix=prefill:1,decode:256); false with
/// `error` set on a malformed entry.
bool parsePhaseMix(const std::vector<std::string> &entries,
                   std::vector<std::pair<model::Phase, double>> &mix,
                   std::string &error);

class ShapeSearch {
public:
  ShapeSearch(const target::GpuTarget &target) : target(target) {}

  /// Predicted step of `c` (one layer's GEMMs x layers, plus the logits).
  StepPrediction predict(const model::ModelConfig &c,
                         const model::RunShape &run);

  /// Runs the search; nullopt with `error` set on bad options or when the
  /// model and every candidate break a constraint.
  std::optional<SearchResult> search(const model::ModelConfig &c,
                                     const SearchOptions &o,
                                     std::string &error);

  /// Why `c` breaks a constraint of the search (empty when it meets all).
  std::string violation(const model::ModelConfig &original,
                        const model::ModelConfig &c, const SearchOptions &o);

private:
  /// The objective of `o` for `c`: o.objective, else predict(c, o.run);
  /// nullopt with `why` set when the objective rejects `c`.
  std::optional<StepPrediction> evaluate(const model::ModelConfig &c,
                                         const SearchOptions &o,
                                         std::string &why);

  /// The same, with the original's parameter count computed once by the
  /// caller (the search checks every candidate against it); nullopt when
  /// it overflows.
  /// `budget`, when given, is set to the budget `c` breaks (&res.total or
  /// &res.active of `res`) when that is its only violation.
  std::string violation(const model::ModelConfig &original,
                        std::optional<model::ParamCount> originalParams,
                        const model::ModelConfig &c, const SearchOptions &o,
                        SearchResult *res = nullptr,
                        SearchResult::Budget **budget = nullptr);

  const target::GpuTarget &target;
  ShapeAnalysis analysis{target, 1.0};
};

} // namespace tshape::advise

#endif // TSHAPE_ADVISE_SHAPESEARCH_H
