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

struct ModelConfig;

/// A named quantity. Run shape: Microbatch, Seq. Parallel degrees: Tp, Pp,
/// Dp, Ep, Cp (Parallelism.h).
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
  Experts,       ///< routed experts E of a mixture-of-experts block
  TopK,          ///< experts each token is routed to
  MoeFfn,        ///< inner size of one routed expert
  SharedExperts, ///< experts every token runs (DeepSeek, Qwen2-MoE, Llama 4)
  SharedFfn,     ///< inner size of one shared expert
  Capacity,      ///< busiest expert's load, percent of balanced (0: balanced)
  Window,        ///< keys a windowed layer's query sees (0: no window)
  QLoraRank,     ///< latent rank of an MLA block's queries (0: no query LoRA)
  KvLoraRank,    ///< latent rank of an MLA block's keys and values
  QkNopeDim,     ///< per-head query/key dims without rotary embedding
  QkRopeDim,     ///< per-head query/key dims with rotary embedding (shared key)
  VHeadDim,      ///< per-head value dims of an MLA block
  Tp,
  Pp,
  Dp,
  Ep,
  Cp,
};
inline constexpr size_t kNumParams = size_t(Param::Cp) + 1;

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
  /// The rule (docs/dialect.md) that it be divisible by `splitBy`; "" when
  /// it is not split.
  const char *splitRule;
  /// Whether a finding or the shape search may change it.
  bool searchable;
  /// 0 means "not given" (head_dim: hidden/heads), not a size of 0.
  bool zeroIsUnset;
  /// It may only grow (the vocabulary: the tokenizer's ids must fit): a
  /// rule's fix pads it, and the search never shrinks it.
  bool growOnly;
  /// The field of ModelConfig that holds it: the only code that names the
  /// fields (Params.cpp). Every consumer goes through get/set.
  int64_t (*get)(const ModelConfig &);
  void (*set)(ModelConfig &, int64_t);
  /// How it reads in a message ("tensor-parallel degree"); else `name`.
  const char *longName;
};

/// The entry of `p`.
const ParamInfo &paramInfo(Param p);
/// The one name of `p`.
inline const char *paramName(Param p) { return paramInfo(p).name; }
/// How `p` reads in a sentence: the long name of a degree, else the name.
inline const char *paramPhrase(Param p) {
  return paramInfo(p).longName ? paramInfo(p).longName : paramInfo(p).name;
}
/// Parses a name of the vocabulary; nullopt when unknown.
std::optional<Param> parseParam(std::string_view name);
/// The names of the searchable parameters, comma separated, for messages.
std::string searchableParamNames();
/// Every parameter, in vocabulary order (for range-for).
const std::array<Param, kNumParams> &allParams();

/// The value of `p` in `c` (ParamInfo::get); 0 for an unset optional one.
inline int64_t getParam(const ModelConfig &c, Param p) {
  return paramInfo(p).get(c);
}
inline void setParam(ModelConfig &c, Param p, int64_t v) {
  paramInfo(p).set(c, v);
}

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
