//===- RunOptions.cpp - One reading of the run options --------------------===//

#include "tshape/Tools/RunOptions.h"

using namespace tshape;
using model::Phase;

std::optional<std::pair<model::RunShape, int64_t>>
tshape::runFromOptions(const RunInputs &in, std::string &error) {
  const Phase phase = in.phase.value_or(in.defaultPhase);
  auto fail = [&](std::string message) {
    error = std::move(message);
    return std::nullopt;
  };
  auto needs = [&](const char *option, const char *phases) {
    return fail(std::string(option) + " needs --phase=" + phases +
                (in.phase ? " (got --phase=" +
                                std::string(model::phaseName(phase)) + ")"
                          : " (no --phase given)"));
  };
  for (auto [name, v] :
       {std::pair<const char *, std::optional<int64_t>>{"--context",
                                                        in.context},
        {"--chunk", in.chunk},
        {"--draft-tokens", in.draft}})
    if (v && *v < 0)
      return fail(std::string(name) + " must be >= 0, got " +
                  std::to_string(*v));
  const bool inference = in.phase && phase != Phase::Train;
  if ((in.context || in.kvCache) && !inference)
    return needs(in.context ? "--context" : "--kv-cache-dtype",
                 "prefill or --phase=decode");
  if (in.chunk && !(in.phase && phase == Phase::Prefill))
    return needs("--chunk", "prefill");
  if (in.draft && !(in.phase && phase == Phase::Decode))
    return needs("--draft-tokens", "decode");
  const int64_t draft = in.draft.value_or(0), context = in.context.value_or(0);
  model::RunShape run{phase, 0, draft};
  if (in.kvCache) {
    run.kvCache = model::parseDType(*in.kvCache);
    if (!run.kvCache || *run.kvCache == model::DType::FP32 ||
        *run.kvCache == model::DType::TF32)
      return fail("--kv-cache-dtype: unknown KV-cache element type '" +
                  *in.kvCache + "' (expected bf16, fp16 or fp8)");
  }
  if (in.precision) {
    run.precision = parsePrecision(*in.precision);
    if (!run.precision)
      return fail("--precision: unknown precision '" + *in.precision +
                  "' (expected " + precisionNames() + ")");
  }
  int64_t seq = in.seq;
  if (phase == Phase::Decode) {
    const std::string tokens =
        draft ? "1 + " + std::to_string(draft) + " new tokens" : "1 new token";
    if (in.seqGiven)
      return fail("--seq is a prompt's length; a decode step holds " +
                  tokens + " per sequence: give the cached tokens as "
                  "--context instead");
    if (context <= 0)
      return fail("--phase=decode needs --context > 0: the tokens in each "
                  "sequence's KV cache (for example --context=4096)");
    seq = 1 + draft;
  }
  if (in.chunk) {
    if (in.seqGiven)
      return fail("--chunk " + std::to_string(*in.chunk) + " and --seq " +
                  std::to_string(in.seq) +
                  " both give the prefill's tokens per sequence; give one "
                  "(--chunk with --context for a chunk after cached "
                  "tokens)");
    if (*in.chunk <= 0)
      return fail("--chunk must be positive, got " +
                  std::to_string(*in.chunk));
    seq = *in.chunk;
  }
  // Keys: the cached tokens and the step's own.
  if (context > 0)
    run.kvLength = context + seq;
  return std::make_pair(run, seq);
}
