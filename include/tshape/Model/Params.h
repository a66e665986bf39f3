//===- Params.h - The vocabulary of hyperparameters -------------*- C++ -*-===//
//
// One table names every quantity a GEMM size can depend on: the model's
// hyperparameters, the run shape and the parallel degrees. Each entry gives
// the name used in reports, remarks, `vary=` lists and size expressions, the
// IR attribute that holds it, its Hugging Face keys, its Megatron-LM flag and
// the parallel degree that splits it across ranks. Every tool that names a
// hyperparameter reads it from here (docs/architecture.md).
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_MODEL_PARAMS_H
#define TSHAPE_MODEL_PARAMS_H

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tshape::model {

/// A named quantity. Run shape: Microbatch, Seq. Parallel degrees: Tp (and,
/// as they arrive, pipeline, data, expert and context degrees).
enum class Param : uint8_t {
  Microbatch,
  Seq,
  Hidden,
  Heads,
  KvHeads,
  HeadDim,
  Ffn,
  Vocab,
  Layers,
  Tp,
};
inline constexpr size_t kNumParams = size_t(Param::Tp) + 1;

enum class ParamKind : uint8_t {
  Run,         ///< how the model is run (microbatch, sequence)
  Hyperparam,  ///< a model hyperparameter (hidden, heads, ...)
  Degree,      ///< a parallel degree (tp, ...)
};

struct ParamInfo {
  Param param;
  /// The one name: reports, remarks, `vary=`, size expressions.
  const char *name;
  ParamKind kind;
  /// The tshape IR attribute that states it ("" when it lives in a type).
  const char *irAttribute;
  /// Hugging Face config.json keys, first the canonical one ("" for none).
  const char *hfKeys;
  /// Megatron-LM argument ("" for none).
  const char *megatronFlag;
  /// The parallel degree that splits it across ranks, if any.
  std::optional<Param> splitBy;
  /// Whether a finding or the shape search may change it.
  bool searchable;
};

/// The entry of `p`.
const ParamInfo &paramInfo(Param p);
/// The one name of `p`.
inline const char *paramName(Param p) { return paramInfo(p).name; }
/// Parses a name of the vocabulary; nullopt when unknown.
std::optional<Param> parseParam(std::string_view name);
/// The names of the searchable parameters, comma separated, for messages.
std::string searchableParamNames();

/// Values of the parameters one GEMM (or one model) depends on.
class Bindings {
public:
  void set(Param p, int64_t v) { values[size_t(p)] = v; }
  void erase(Param p) { values[size_t(p)].reset(); }
  std::optional<int64_t> get(Param p) const { return values[size_t(p)]; }
  bool has(Param p) const { return values[size_t(p)].has_value(); }
  bool operator==(const Bindings &o) const { return values == o.values; }
  bool operator<(const Bindings &o) const { return values < o.values; }

private:
  std::array<std::optional<int64_t>, kNumParams> values;
};

} // namespace tshape::model

#endif // TSHAPE_MODEL_PARAMS_H
