//===- Megatron.h - Megatron-LM arguments for a model -----------*- C++ -*-===//
//
// The one writer of Megatron-LM command-line arguments: the exporter, the
// planner and `advise` all call it. Each parameter's flag comes from the
// vocabulary (Params.h); a training plan's flags (schedule, recompute,
// sequence parallelism, sharding, batch) and the check of the combination
// against Megatron-LM's own argument rules (megatron/training/arguments.py,
// docs/plan.md) are here too. Plain C++.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_INTEROP_MEGATRON_H
#define TSHAPE_INTEROP_MEGATRON_H

#include "tshape/Cost/Plan.h"
#include "tshape/Model/Transformer.h"

#include <optional>
#include <string>
#include <vector>

namespace tshape {

/// Megatron-LM arguments for `c` (one line, then a `# note:` line for each
/// feature Megatron-LM has no argument for). `originalVocab` is the
/// tokenizer's size, for --make-vocab-size-divisible-by. A `precision` of
/// fp8 or mxfp8 (the run's, RunShape::precision) adds Transformer Engine's
/// --fp8-format and --fp8-recipe (docs/plan.md#precision).
std::string megatronArguments(
    const model::ModelConfig &c, int64_t originalVocab,
    std::optional<Precision> precision = std::nullopt);

/// The Megatron-LM launch of a training plan: `c`'s degrees, microbatch and
/// sequence under `plan` (global batch m x b x dp).
/// Megatron-LM's --make-vocab-size-divisible-by default: the vocabulary is
/// padded to a multiple of this times the tensor-parallel degree
/// (megatron/training/arguments.py; _vocab_size_with_padding).
inline constexpr int64_t kMegatronVocabDivisibleBy = 128;

struct MegatronLaunch {
  /// pretrain_gpt.py's arguments, one line, no comment in it.
  std::string arguments;
  /// Environment the launch needs (`CUDA_DEVICE_MAX_CONNECTIONS=1` with
  /// tensor or context parallelism), "" when none.
  std::string environment;
  /// What Megatron-LM cannot express or what tshape assumed, one sentence
  /// each (printed after `# note: `).
  std::vector<std::string> notes;
  /// `[ENV ]torchrun --nnodes N --nproc_per_node G pretrain_gpt.py ARGS`
  /// for `gpus` GPUs, G = `perHost` processes on each host (what
  /// launchProcessesPerHost chose: it divides `gpus`); on several hosts
  /// with `--node_rank $NODE_RANK --master_addr $MASTER_ADDR --master_port
  /// ${MASTER_PORT:-6000}`, the line each host runs.
  std::string command(int64_t gpus, int64_t perHost) const;
};

/// The processes torchrun starts on each host for `gpus` GPUs on hosts of
/// `gpusPerHost`: the largest count up to gpusPerHost that divides gpus
/// (torchrun starts the same number on every host) and, where one exists,
/// is a multiple of `group` (the ranks a plan keeps in one host, its tp x
/// cp: Megatron-LM lays tp and cp out fastest, so 12 GPUs at tp 4 on 8-GPU
/// hosts run 3 hosts of 4, not 2 of 6 with a tp group across two hosts).
int64_t launchProcessesPerHost(int64_t gpus, int64_t gpusPerHost,
                               int64_t group = 1);

/// Megatron-LM's argument rules (megatron/training/arguments.py
/// validate_args, megatron/core/num_microbatches_calculator.py) that the
/// plan could break; the first violation, with its numbers and what to
/// change. Megatron-LM turning an option off (sequence parallelism at
/// tp = 1) is a note of megatronLaunch, not a violation.
std::optional<std::string> checkMegatronRules(const model::ModelConfig &c,
                                              const cost::TrainingPlan &plan);

/// The launch of `c` under `plan` (its precision too); nullopt with
/// `*error` set when checkMegatronRules fails.
std::optional<MegatronLaunch> megatronLaunch(const model::ModelConfig &c,
                                             int64_t originalVocab,
                                             const cost::TrainingPlan &plan,
                                             std::string *error = nullptr);

} // namespace tshape

#endif // TSHAPE_INTEROP_MEGATRON_H
