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
#include "tshape/Support/DType.h"

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
  /// Speculative decoding: draft tokens verified per sequence in one decode
  /// step, so the step has 1 + draft query tokens per sequence (0 outside
  /// decode).
  int64_t draft = 0;
  /// The element type of the KV cache (an fp8 cache: fp8); nullopt: the
  /// model's element type.
  std::optional<DType> kvCache;
  /// The precision of the linear layers (bf16, fp8 with per-tensor current
  /// scaling, mxfp8 block scaling; Support/DType.h); nullopt: the model's
  /// element type for every GEMM. What predictKernel prices a weight GEMM
  /// as (Cost/PredictKernel.h); the target says which it supports.
  std::optional<Precision> precision;
  /// Megatron-LM's sequence parallelism (a training plan's choice, like the
  /// precision): a tensor-parallel region is entered by an all-gather and
  /// left by a reduce-scatter of the sequence instead of the all-reduces
  /// (tpCollectives, Blocks/Block.h).
  bool sequenceParallel = false;

  static RunShape train() { return of(Phase::Train, 0, 0); }
  static RunShape prefill(int64_t kvLength = 0) {
    return of(Phase::Prefill, kvLength, 0);
  }
  static RunShape decode(int64_t kvLength = 0, int64_t draft = 0) {
    return of(Phase::Decode, kvLength, draft);
  }
  static RunShape of(Phase phase, int64_t kvLength, int64_t draft) {
    RunShape r;
    r.phase = phase;
    r.kvLength = kvLength;
    r.draft = draft;
    return r;
  }

  /// Whether the backward kernels follow the forward ones.
  bool backward() const { return phase == Phase::Train; }
  /// Whether the attention reads keys cached by earlier steps: a decode
  /// step, or a prefill chunk over a longer kv length.
  bool readsCache() const { return phase == Phase::Decode || kvLength > 0; }
  /// Query tokens per sequence: seq, or 1 + draft for a decode step.
  DimExpr queries() const;
  /// Key (and value) tokens per sequence: seq, or kvLength when given.
  DimExpr keys() const;
  /// Tokens per rank of one run: microbatch x queries().
  DimExpr tokens() const;

  bool operator==(const RunShape &o) const {
    return phase == o.phase && kvLength == o.kvLength && draft == o.draft &&
           kvCache == o.kvCache && precision == o.precision &&
           sequenceParallel == o.sequenceParallel;
  }
};

/// "train", "prefill", "decode kv_length=4096", "decode kv_length=4100
/// draft=3 kv_cache=fp8", "train precision=fp8".
std::string str(const RunShape &r);

/// The run `s` states in str's form (the phase, then `key=value` fields in
/// any order); nullopt when it is not one (an unknown phase, key, element
/// type or precision, a malformed number). Lowered IR keeps its run in
/// this form (a builtin string `tshape.run`, docs/lowering.md).
std::optional<RunShape> parseRunShape(std::string_view s);

} // namespace tshape::model

#endif // TSHAPE_MODEL_RUNSHAPE_H
