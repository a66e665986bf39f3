//===- Inference.h - One prefill or decode step: time, memory, shares -*- C++ -*-===//
//
// What serving a model costs on one GPU of its tensor-parallel group, for
// the run shape of the IR (a decode step, or a prefill): every kernel of
// the step (model::modelKernels) priced by predictKernel (weight GEMMs at
// M = batch x queries with the GEMM model, the attention over the cache
// with the decode model), the tensor-parallel all-reduces per layer priced
// by the collective model on a cluster, and from them per-token latency,
// tokens/s, the share of the step spent reading weights, reading the
// cache, moving activations, computing, communicating and launching, the
// roofline regime of each kernel, and the memory per GPU (weights, the KV
// cache at the batch and kv length, the activations of a step or a
// prefill chunk) with the largest batch that fits the target's memory.
// docs/inference.md states every formula. Plain C++: no MLIR types.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_COST_INFERENCE_H
#define TSHAPE_COST_INFERENCE_H

#include "tshape/Cost/Cluster.h"
#include "tshape/Cost/PredictKernel.h"
#include "tshape/Model/Transformer.h"

#include <optional>
#include <string>
#include <vector>

namespace tshape::cost {

struct InferenceOptions {
  /// The cluster the tensor-parallel all-reduces run on; null: the
  /// target's default cluster (defaultClusterForTarget), and when it has
  /// none the collectives are left unpriced with a note.
  const Cluster *cluster = nullptr;
  /// Tokens per sequence of a prefill chunk whose activations must fit
  /// beside the cache (a server that mixes chunks into decode steps); 0:
  /// the run's own step.
  int64_t prefillChunk = 0;
};

/// Where a kernel's time goes (each kernel's predicted time split by
/// inferenceShares).
struct TimeShares {
  double weightsUs = 0;     ///< reading weights (memory-bound weight GEMMs)
  double cacheUs = 0;       ///< reading the KV cache (memory-bound attention)
  double activationsUs = 0; ///< moving activations (memory-bound, not weights)
  double computeUs = 0;     ///< compute- or latency-bound work
  double communicationUs = 0; ///< tensor-parallel collectives
  double launchUs = 0;      ///< the fixed cost of each kernel
  double total() const {
    return weightsUs + cacheUs + activationsUs + computeUs + communicationUs +
           launchUs;
  }
};

/// One kernel of the step (identical layers merged), priced.
struct InferenceKernel {
  std::string name;
  model::KernelKind kind = model::KernelKind::Gemm;
  model::Role role = model::Role::Qkv;
  int64_t count = 1; ///< instances per step (the layers, or 1)
  /// GEMM: batch x M x N x K; attention: its score GEMM's; collective:
  /// bytes in `n`, ranks in `batch`.
  int64_t batch = 1, m = 0, n = 0, k = 0;
  double us = 0; ///< one instance
  double flops = 0, bytes = 0;
  double weightBytes = 0, cacheBytes = 0;
  /// "memory", "compute", "launch" (the work takes less than the kernel's
  /// fixed cost) or "communication".
  std::string regime;
  /// FLOPs per byte moved, and the target's ridge point (peak x math
  /// efficiency over bandwidth x memory efficiency) for GEMMs.
  double intensity = 0, ridge = 0;
  bool supported = true;
  std::string unsupported;
  TimeShares shares; ///< of one instance
};

struct InferenceMemory {
  /// Bytes per GPU. `weights` at the run's precision: an FP8 linear
  /// layer's weights 1 byte per element (mxfp8 1 + 1/32), the embedding,
  /// LM head, norms and router in the model's dtype (weightElementBytes).
  double weights = 0, kvCache = 0, activations = 0;
  /// MLA's context workspace, as vLLM's MLA common backend holds it
  /// (docs/inference.md#the-mla-context-workspace): the gathered latents,
  /// a buffer of 64 Ki tokens x (r_kv + d_r) allocated once, and, in a
  /// prefill over a cache, the largest piece's up-projected keys and values
  /// (transient: one layer's piece at a time). 0 without an MLA block.
  double workspace = 0;
  /// Of which the up-projected piece: `workspacePieceTokens` tokens (b x
  /// the piece's tokens per sequence) x `workspacePerToken` bytes.
  double workspacePiece = 0, workspacePerToken = 0;
  int64_t workspacePieceTokens = 0;
  double total() const { return weights + kvCache + activations + workspace; }
  /// The target's memory in bytes (0: unknown).
  double capacity = 0;
  /// KV-cache bytes per GPU of one token of one sequence, all layers:
  /// 2 x layers x kv heads per rank x head dim x cache element bytes.
  double cachePerToken = 0;
  /// The bytes per GPU one sequence keeps at the step's kv length: its
  /// cache (windows capping it) and any fixed state (cacheBytesPerSequence).
  double cachePerSequence = 0;
  /// The largest batch whose cache (at this kv length), activations and
  /// workspace fit beside the weights (the workspace's piece bounded by
  /// min(64 Ki, batch x context) tokens); 0 when the weights alone do not
  /// fit, -1 when the capacity is unknown.
  int64_t maxBatch = -1;
};

struct InferenceEstimate {
  model::RunShape run;
  int64_t sequences = 0; ///< batch b
  int64_t queries = 0;   ///< tokens per sequence of the step (1 + draft, s)
  int64_t keys = 0;      ///< kv length: cached tokens plus the step's
  int64_t tp = 1;
  model::DType cacheDType = model::DType::BF16;
  std::vector<InferenceKernel> kernels;
  double stepUs = 0; ///< one step, one rank (all ranks run in lockstep)
  TimeShares shares; ///< of the whole step
  /// Per token of one sequence (step / queries: every draft accepted) in
  /// ms; tokens/s of one GPU (b x queries / step / tp) and of one sequence.
  double perTokenMs = 0, tokensPerSecondPerGpu = 0,
         tokensPerSecondPerSequence = 0;
  InferenceMemory memory;
  std::string cluster; ///< the cluster's name ("" when none priced)
  /// Kernels left unpriced and other caveats, one line each.
  std::vector<std::string> notes;
  /// The step is memory-bound: weights and cache reads exceed compute.
  bool memoryBound() const {
    return shares.weightsUs + shares.cacheUs + shares.activationsUs >
           shares.computeUs;
  }
};

/// The bytes of one state component's element on one rank: its own type,
/// else the run's cache type, else the model's.
double stateElementBytes(const model::StateComponent &s,
                         const model::ModelConfig &c,
                         const model::RunShape &run);
/// The KV-cache bytes per GPU of one token of one sequence (all layers:
/// the blocks' per-key state components).
double cacheBytesPerToken(const model::ModelConfig &c,
                          const model::RunShape &run);
/// The bytes per GPU one sequence of `keys` tokens keeps between steps:
/// each cache component holds min(keys, W + drafts) keys under a window W
/// (docs/inference.md#windows), all `keys` otherwise; a fixed state is
/// held once.
double cacheBytesPerSequence(const model::ModelConfig &c,
                             const model::RunShape &run, int64_t keys);
/// The state of `c` as a report says it, from the blocks' components:
/// "32 layers x 2 x 4 kv_heads per rank x 128 head_dim x 2 bytes" for the
/// per-key cache (`perToken`) or the fixed state per sequence (not);
/// layer groups with the same components are said once; "" when there is
/// none.
std::string stateFormula(const model::ModelConfig &c,
                         const model::RunShape &run, bool perToken);

/// Estimates one step of `run` (prefill or decode) of `c` on `target`;
/// nullopt with `error` for a training run or an invalid model.
std::optional<InferenceEstimate>
estimateInference(const model::ModelConfig &c, const model::RunShape &run,
                  const target::GpuTarget &target,
                  const InferenceOptions &options, std::string &error);

} // namespace tshape::cost

#endif // TSHAPE_COST_INFERENCE_H
