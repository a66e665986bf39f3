//===- RunShape.h - What a run computes: train, prefill or decode -*- C++ -*-===//
//
// The run shape says which phase the kernels belong to and how long the
// keys are: a training step (forward and backward, each query attending to
// its own sequence), a prefill (the forward of a prompt, or of one chunk of
// it over the tokens already cached) or one decode step (one new token per
// sequence over its cache). Blocks emit their kernels under a run shape;
// the IR states it with #tshape.run, the passes with phase=.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_MODEL_RUNSHAPE_H
#define TSHAPE_MODEL_RUNSHAPE_H

#include "tshape/Model/DimExpr.h"

#include <optional>
#include <string>
#include <string_view>

namespace tshape::model {

enum class Phase : uint8_t { Train, Prefill, Decode };

/// "train", "prefill", "decode".
const char *phaseName(Phase p);
/// The phase named `name`; nullopt when it names none.
std::optional<Phase> parsePhase(std::string_view name);
/// The phase names, "train|prefill|decode", for option help and errors.
const char *phaseNames();

struct RunShape {
  Phase phase = Phase::Prefill;
  /// Keys each query attends to. 0: the sequence (seq): a training step,
  /// a whole-prompt prefill, or a decode step whose cache holds seq tokens.
  /// Otherwise the cached tokens plus the new ones (a chunked prefill, a
  /// decode step at a given context).
  int64_t kvLength = 0;

  static RunShape train() { return {Phase::Train, 0}; }
  static RunShape prefill(int64_t kvLength = 0) {
    return {Phase::Prefill, kvLength};
  }
  static RunShape decode(int64_t kvLength = 0) {
    return {Phase::Decode, kvLength};
  }

  /// Whether the backward kernels follow the forward ones.
  bool backward() const { return phase == Phase::Train; }
  /// Query tokens per sequence: seq, or 1 for a decode step.
  DimExpr queries() const;
  /// Key (and value) tokens per sequence: seq, or kvLength when given.
  DimExpr keys() const;
  /// Tokens per rank of one run: microbatch x queries().
  DimExpr tokens() const;

  bool operator==(const RunShape &o) const {
    return phase == o.phase && kvLength == o.kvLength;
  }
};

/// "train", "prefill", "decode kv_length=4096".
std::string str(const RunShape &r);

} // namespace tshape::model

#endif // TSHAPE_MODEL_RUNSHAPE_H
