//===- Serving.h - A serving workload on one engine replica ----*- C++ -*-===//
//
// What a serving engine does with a workload: requests of `isl` prompt
// tokens and `osl` output tokens, `concurrency` of them in flight on one
// replica (an engine instance over attention tp x dp GPUs, the experts
// over ep x etp of them: ServingPlan), scheduled by continuous batching
// with chunked prefill under a token budget per step, as vLLM, SGLang and
// TensorRT-LLM schedule them (decodes first, then prefill chunks up to the
// budget). From the engine's memory accounting (weights, the activations
// of a budget-sized step, the KV-cache fraction) the most requests the
// cache holds; from the prefill and decode steps of Cost/Inference.h the
// time per output token and the p90 inter-token latency, the time to
// first token, output
// tokens/s per GPU and per user and requests/s. docs/serving.md states
// every formula and its limits. Plain C++: no MLIR types.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_COST_SERVING_H
#define TSHAPE_COST_SERVING_H

#include "tshape/Cost/Cluster.h"
#include "tshape/Cost/Plan.h"
#include "tshape/Model/Transformer.h"
#include "tshape/Target/GpuTarget.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace tshape::cost {

/// The serving engines whose scheduling and memory accounting tshape
/// models (and whose launch commands it will write).
enum class Engine { Vllm, Sglang, Trtllm };

/// What the KV-cache fraction is a fraction of.
enum class KvFractionOf {
  /// vLLM's gpu_memory_utilization: of the GPU's memory; the weights,
  /// the profiled activations and the cache share it.
  Total,
  /// TensorRT-LLM's free_gpu_memory_fraction: of what is free after the
  /// weights and the activations of a budget-sized step.
  Free,
  /// SGLang's mem_fraction_static: of the GPU's memory, for the weights
  /// and the cache (the activations live outside it).
  TotalStatic,
};

/// An engine's defaults on one GPU, as its source states them
/// (docs/serving.md#engines cites the commit and file of each).
struct EngineRules {
  Engine engine = Engine::Vllm;
  const char *name = "";   ///< "vllm", "sglang", "trtllm"
  std::string source;      ///< where the defaults come from
  double kvFraction = 0.9;
  KvFractionOf fractionOf = KvFractionOf::Total;
  int64_t tokenBudget = 8192; ///< tokens per step (prefill chunks included)
  /// Requests in flight at most per attention rank; 0: no cap but the
  /// cache.
  int64_t maxSequences = 256;
};

/// The defaults of `e` on `t` for a replica whose attention spans
/// `tpTimesPp` GPUs (SGLang's reserve grows with it).
EngineRules engineRules(Engine e, const target::GpuTarget &t,
                        int64_t tpTimesPp);
/// What trtllm-bench throughput sets when not told (its
/// tensorrt_llm/bench/build/tuning.py, docs/serving.md#trtllm-bench): the
/// requests its estimate of the cache holds, and from them max_batch_size
/// and max_num_tokens rounded as it rounds them.
struct TrtllmBenchLimits {
  double cacheRequests = 0;
  int64_t maxBatch = 0, maxNumTokens = 0;
};
TrtllmBenchLimits trtllmBenchLimits(const model::ModelConfig &c,
                                    const target::GpuTarget &t, int64_t tp,
                                    std::optional<Precision> precision,
                                    std::optional<model::DType> kvCache,
                                    int64_t isl, int64_t osl);
/// "vllm", "sglang", "trtllm" (also "tensorrt-llm"); nullopt otherwise.
std::optional<Engine> parseEngine(const std::string &name);
/// "vllm", "sglang", "trtllm".
const char *engineName(Engine e);
/// The engines' names, comma-separated, for messages.
std::string engineList();

/// The bounds of a workload a serving estimate takes (a request longer
/// than any model's context, more requests than any cache holds, a rate
/// no deployment serves): beyond them the counts would overflow.
inline constexpr int64_t kMaxServingTokens = 100000000;
inline constexpr int64_t kMaxServingConcurrency = 1000000000;
inline constexpr double kMaxServingRate = 1e9;

/// A workload: fixed prompt and output lengths, and the requests in flight
/// on one replica (0: as many as the KV cache holds, the offline maximum
/// throughput of trtllm-bench throughput).
struct ServingWorkload {
  int64_t isl = 1024, osl = 128;
  int64_t concurrency = 0;
};

/// One serving configuration: the layout, the precision of the linear
/// layers and of the cache, the engine and its limits (0: the engine's
/// default from engineRules).
struct ServingConfig {
  ServingPlan plan;
  std::optional<Precision> precision;
  std::optional<model::DType> kvCache;
  Engine engine = Engine::Vllm;
  int64_t tokenBudget = 0;
  int64_t maxSequences = 0;
  double kvFraction = 0;
  /// Speculative decoding: draft tokens a decode step verifies (the
  /// model's multi-token-prediction layers drafting them), and the chance
  /// that each is accepted, given the ones before it were
  /// (docs/serving.md#speculative-decoding).
  int64_t draftTokens = 0;
  double acceptance = 1;
};

/// The tokens a decode step gives a sequence on average with `drafts`
/// draft tokens each accepted with probability `a` once those before it
/// were: 1 + a + a^2 + ... + a^drafts.
double tokensPerDecodeStep(int64_t drafts, double a);

/// Memory per GPU in bytes, as the engine accounts it.
struct ServingMemory {
  double capacity = 0;     ///< the GPU's memory
  double weights = 0;      ///< what one GPU holds of the weights
  double activations = 0;  ///< a forward of tokenBudget tokens, workspace
  double kvCache = 0;      ///< the cache the engine allocates
  double perSequence = 0;  ///< one request's cache at isl + osl tokens
  /// The requests the cache holds (per replica: x the attention's dp),
  /// before the engine's maxSequences cap; 0 when nothing fits.
  int64_t cacheRequests = 0;
};

/// One kind of engine step, priced.
struct ServingStep {
  double decodeSequences = 0; ///< per replica
  double prefillTokens = 0;   ///< per replica
  double us = 0;              ///< the step's time
};

struct ServingEstimate {
  EngineRules rules;
  int64_t tokenBudget = 0, maxSequences = 0;
  double kvFraction = 0;
  int64_t gpus = 1;        ///< of one replica
  int64_t concurrency = 0; ///< requests in flight on the replica
  /// Whether `concurrency` is the most memory allows (the offline case).
  bool memoryBound = false;
  ServingMemory memory;
  /// Engine steps per cycle (the time `concurrency` requests take to
  /// finish in steady state), of which `prefillSteps` carry a chunk.
  double steps = 0, prefillSteps = 0;
  ServingStep decodeStep, prefillStep;
  double cycleUs = 0;
  /// Time per output token of a request ((end - first token) / (osl -
  /// 1): the same for every request in the steady state, so its p90 too)
  /// and the p90 of the gaps between one request's tokens.
  double tpotMs = 0, itlP90Ms = 0;
  /// Tokens a decode step gives a sequence (1 without drafts).
  double tokensPerDecodeStep = 1;
  double ttftMs = 0;                ///< time to first token (no queue)
  double promptMs = 0; ///< of it, its own prompt's steps (the rest: waiting)
  double outputTokensPerSecond = 0; ///< of the replica
  double outputTokensPerSecondPerGpu = 0;
  double outputTokensPerSecondPerUser = 0; ///< 1000 / tpot
  double requestsPerSecond = 0;
  std::vector<std::string> notes;
};

/// The steady state of continuous batching with chunked prefill on one
/// replica (docs/serving.md#continuous-batching): `concurrency` requests
/// of `isl` prompt and `osl` output tokens in flight, at most
/// `budgetTokens` tokens a step, decodes first; `stepUs(decodes, prompt)`
/// prices a step of that many decoding sequences and prompt tokens.
struct BatchingCycle {
  double steps = 0;        ///< S: steps in which the requests all finish
  double prefillSteps = 0; ///< of them, those that carry a prompt chunk
  double decodes = 0;      ///< D: decoding sequences in every step
  double chunk = 0;        ///< prompt tokens in a step that carries them
  double decodeStepUs = 0, prefillStepUs = 0, cycleUs = 0;
  double ttftUs = 0, tpotUs = 0, itlP90Us = 0; ///< tpot 0 when osl is 1
  double ownSteps = 1; ///< the steps of one request's own prompt
  double promptUs = 0; ///< their time: TTFT less the wait for the budget
};
/// With speculative decoding a decode step gives `tokensPerDecodeStep`
/// tokens a sequence on average and verifies `verifiedPerDecode` (1 +
/// drafts) of the budget. `rankBudget` (0: the budget) is one attention
/// rank's: a prompt stays on one rank, so a step holds at most that much
/// of it.
std::optional<BatchingCycle> batchingCycle(
    int64_t isl, int64_t osl, double concurrency, double budgetTokens,
    const std::function<std::optional<double>(double, double)> &stepUs,
    double tokensPerDecodeStep = 1, int64_t verifiedPerDecode = 1,
    double rankBudget = 0);

/// Estimates `workload` on one replica of `cfg` for `c` (imported at
/// degree 1) on `target`, its collectives on `cluster` (null: the
/// target's default cluster). nullopt with `error` for a plan the model
/// does not split by, a workload with lengths below 1, pp above 1 (not
/// modelled yet), or weights that do not fit.
std::optional<ServingEstimate>
estimateServing(const model::ModelConfig &c, const ServingWorkload &workload,
                const ServingConfig &cfg, const target::GpuTarget &target,
                const Cluster *cluster, std::string &error);

/// A workload at a request rate: the replicas it needs and, on each, the
/// fewest requests in flight whose throughput reaches its share of the
/// rate (docs/serving.md#a-request-rate).
struct RateEstimate {
  double rate = 0;       ///< requests/s asked, over all replicas
  int64_t replicas = 1;  ///< replicas needed
  int64_t gpus = 1;      ///< replicas x the replica's GPUs
  /// The estimate on one replica at rate / replicas.
  ServingEstimate perReplica;
};

/// `workload` (its concurrency ignored) at `rate` requests/s on replicas
/// of `cfg`: as many replicas as the most requests the cache holds on
/// one need, then on each the fewest in flight that serve rate / replicas
/// (a bisection over the requests in flight). nullopt with `error` as
/// estimateServing, or for a rate that is not positive.
std::optional<RateEstimate>
estimateAtRate(const model::ModelConfig &c, const ServingWorkload &workload,
               const ServingConfig &cfg, const target::GpuTarget &target,
               const Cluster *cluster, double rate, std::string &error);

/// Dollars per million output tokens at `dollarsPerGpuHour` on GPUs that
/// give `tokensPerSecondPerGpu`; 0 when either is not positive.
double costPerMillionTokens(double dollarsPerGpuHour,
                            double tokensPerSecondPerGpu);

} // namespace tshape::cost

#endif // TSHAPE_COST_SERVING_H
