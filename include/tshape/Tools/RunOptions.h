//===- RunOptions.h - One reading of the run options ----------*- C++ -*-===//
//
// The run a command line states (--phase, --seq, --context, --chunk,
// --draft-tokens, --kv-cache-dtype, --precision), read by one function for
// every tool that takes them (tshape advise, tshape-translate): the same
// rules and the same messages, each naming the option and its fix.
// Plain C++ over the model's RunShape.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_TOOLS_RUNOPTIONS_H
#define TSHAPE_TOOLS_RUNOPTIONS_H

#include "tshape/Model/RunShape.h"

#include <optional>
#include <string>
#include <utility>

namespace tshape {

/// What a command line says about the run: each option's value when it
/// was given (nullopt: not given, or the tool has no such option).
struct RunInputs {
  std::optional<model::Phase> phase;
  /// The phase when --phase is not given (tshape advise: train;
  /// tshape-translate: prefill, whose tensors are the prompt's).
  model::Phase defaultPhase = model::Phase::Prefill;
  /// --seq's value, given or its default, and whether it was given.
  int64_t seq = 0;
  bool seqGiven = false;
  std::optional<int64_t> context, chunk, draft;
  std::optional<std::string> kvCache, precision;
};

/// The run shape the inputs state and the tokens per sequence of the step
/// (--seq; a prefill chunk's --chunk; a decode step's 1 + drafts); nullopt
/// with `error` naming the option and its fix.
std::optional<std::pair<model::RunShape, int64_t>>
runFromOptions(const RunInputs &in, std::string &error);

} // namespace tshape

#endif // TSHAPE_TOOLS_RUNOPTIONS_H
