//===- HFConfig.cpp - Hugging Face config.json import ---------------------===//
//
// One table row per model_type gives the key names (with aliases) and the
// documented defaults; the reader turns every problem into a located
// diagnostic. docs/importer.md mirrors the table.
//
//===----------------------------------------------------------------------===//

#include "tshape/Interop/HFConfig.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <cstdio>

using namespace tshape;
using namespace tshape::model;
using model::getParam;
using model::Param;
using model::setParam;
namespace json = llvm::json;

namespace {

using Keys = std::vector<const char *>;

/// How one model_type names its hyperparameters.
struct TypeSpec {
  const char *type;
  Keys hidden, heads, layers, vocab;
  Keys inner;          ///< MLP inner size
  int64_t innerDefault;///< > 0: that value; 0: 4 * hidden
  Keys kvHeads;        ///< empty: multi-head (kv = heads)
  Keys headDim;        ///< explicit head dimension, if the type has one
  int64_t headDimDefault; ///< used when headDim keys are absent (0: h/a)
  Keys activation;
  Activation activationDefault;
  bool gated;
  Keys parallelResidual; ///< boolean key; empty: fixed by `parallelDefault`
  bool parallelDefault;
  bool tiedDefault;
  bool causal;
  // Mixture of experts (empty: a dense type). Which layers are MoE is the
  // type's rule (moeLayers); a type with shared experts names their inner
  // size, or states one of `moeInner` (Llama 4: sharedIsMoeInner).
  Keys experts = {}, topk = {}, moeInner = {}, sharedInner = {};
  bool sharedIsMoeInner = false;
  /// Sub-objects whose keys are read as the type's own (DBRX's attn_config
  /// and ffn_config, Llama 4's text_config), later ones first.
  Keys nested = {};
  /// A key whose presence means an attention tshape cannot express yet,
  /// and the error that names it.
  const char *unsupportedKey = nullptr;
  const char *unsupportedWhy = nullptr;
  // Multi-head latent attention (DeepSeek-V2/V3; empty: none): its keys,
  // read by readMla. The query latent is optional (null or absent: none).
  Keys qLoraRank = {}, kvLoraRank = {}, qkNopeDim = {}, qkRopeDim = {},
       vHeadDim = {};
  /// The number of shared experts, each of the routed experts' inner size
  /// (DeepSeek's n_shared_experts).
  Keys sharedCount = {};
};

/// DeepSeek's architecture (DeepseekV2/V3Config; Kimi-K2 declares its own
/// type with V3's): llama's keys but heads for key/value heads, MoE with
/// dense layers of `innerDefault`, and multi-head latent attention
/// (readMla, deepseekMoeLayers).
TypeSpec deepseekSpec(const char *type, int64_t innerDefault) {
  TypeSpec t{type, {"hidden_size"}, {"num_attention_heads"},
             {"num_hidden_layers"}, {"vocab_size"}, {"intermediate_size"},
             innerDefault, {}, {}, 0, {"hidden_act"}, Activation::SiLU, true,
             {}, false, false, true};
  t.experts = {"n_routed_experts"};
  t.topk = {"num_experts_per_tok"};
  t.moeInner = {"moe_intermediate_size"};
  t.qLoraRank = {"q_lora_rank"};
  t.kvLoraRank = {"kv_lora_rank"};
  t.qkNopeDim = {"qk_nope_head_dim"};
  t.qkRopeDim = {"qk_rope_head_dim"};
  t.vHeadDim = {"v_head_dim"};
  t.sharedCount = {"n_shared_experts"};
  return t;
}

// Defaults follow the transformers configuration classes' documented
// defaults (see docs/importer.md for each).
const TypeSpec kSpecs[] = {
    {"gpt2", {"n_embd"}, {"n_head"}, {"n_layer"}, {"vocab_size"},
     {"n_inner"}, 0, {}, {}, 0, {"activation_function"}, Activation::GELU,
     false, {}, false, true, true},
    {"gpt_neo", {"hidden_size"}, {"num_heads"}, {"num_layers"},
     {"vocab_size"}, {"intermediate_size"}, 0, {}, {}, 0,
     {"activation_function"}, Activation::GELU, false, {}, false, true, true},
    {"gptj", {"n_embd"}, {"n_head"}, {"n_layer"}, {"vocab_size"},
     {"n_inner"}, 0, {}, {}, 0, {"activation_function"}, Activation::GELU,
     false, {}, true, false, true},
    {"gpt_neox", {"hidden_size"}, {"num_attention_heads"},
     {"num_hidden_layers"}, {"vocab_size"}, {"intermediate_size"}, 0, {}, {},
     0, {"hidden_act"}, Activation::GELU, false, {"use_parallel_residual"},
     true, false, true},
    {"opt", {"hidden_size"}, {"num_attention_heads"}, {"num_hidden_layers"},
     {"vocab_size"}, {"ffn_dim"}, 0, {}, {}, 0, {"activation_function"},
     Activation::ReLU, false, {}, false, true, true},
    {"llama", {"hidden_size"}, {"num_attention_heads"},
     {"num_hidden_layers"}, {"vocab_size"}, {"intermediate_size"}, 11008,
     {"num_key_value_heads"}, {"head_dim"}, 0, {"hidden_act"},
     Activation::SiLU, true, {}, false, false, true},
    {"mistral", {"hidden_size"}, {"num_attention_heads"},
     {"num_hidden_layers"}, {"vocab_size"}, {"intermediate_size"}, 14336,
     {"num_key_value_heads"}, {"head_dim"}, 0, {"hidden_act"},
     Activation::SiLU, true, {}, false, false, true},
    {"qwen2", {"hidden_size"}, {"num_attention_heads"},
     {"num_hidden_layers"}, {"vocab_size"}, {"intermediate_size"}, 22016,
     {"num_key_value_heads"}, {"head_dim"}, 0, {"hidden_act"},
     Activation::SiLU, true, {}, false, false, true},
    {"phi", {"hidden_size"}, {"num_attention_heads"}, {"num_hidden_layers"},
     {"vocab_size"}, {"intermediate_size"}, 0, {"num_key_value_heads"}, {},
     0, {"hidden_act"}, Activation::GELU, false, {}, true, false, true},
    {"falcon", {"hidden_size"}, {"num_attention_heads", "n_head"},
     {"num_hidden_layers", "n_layer"}, {"vocab_size"}, {"ffn_hidden_size"},
     0, {"num_kv_heads"}, {}, 0, {"activation"}, Activation::GELU, false,
     {"parallel_attn"}, true, true, true},
    {"bloom", {"hidden_size", "n_embed"}, {"n_head", "num_attention_heads"},
     {"n_layer", "num_hidden_layers"}, {"vocab_size"}, {}, 0, {}, {}, 0, {},
     Activation::GELU, false, {}, false, true, true},
    {"gemma", {"hidden_size"}, {"num_attention_heads"},
     {"num_hidden_layers"}, {"vocab_size"}, {"intermediate_size"}, 24576,
     {"num_key_value_heads"}, {"head_dim"}, 256,
     {"hidden_activation", "hidden_act"}, Activation::GELU, true, {}, false,
     true, true},
    {"stablelm", {"hidden_size"}, {"num_attention_heads"},
     {"num_hidden_layers"}, {"vocab_size"}, {"intermediate_size"}, 6912,
     {"num_key_value_heads"}, {}, 0, {"hidden_act"}, Activation::SiLU, true,
     {"use_parallel_residual"}, false, false, true},
    {"bert", {"hidden_size"}, {"num_attention_heads"}, {"num_hidden_layers"},
     {"vocab_size"}, {"intermediate_size"}, 0, {}, {}, 0, {"hidden_act"},
     Activation::GELU, false, {}, false, true, false},
    // Mixtures of experts (transformers' configuration classes; the layer
    // rules in moeLayers). Every layer of Mixtral, gpt-oss and DBRX is MoE,
    // so they state no dense MLP (ffn 0).
    {"mixtral", {"hidden_size"}, {"num_attention_heads"},
     {"num_hidden_layers"}, {"vocab_size"}, {}, 0, {"num_key_value_heads"},
     {"head_dim"}, 0, {"hidden_act"}, Activation::SiLU, true, {}, false,
     false, true, {"num_local_experts"}, {"num_experts_per_tok"},
     {"intermediate_size"}},
    {"qwen2_moe", {"hidden_size"}, {"num_attention_heads"},
     {"num_hidden_layers"}, {"vocab_size"}, {"intermediate_size"}, 22016,
     {"num_key_value_heads"}, {}, 0, {"hidden_act"}, Activation::SiLU, true,
     {}, false, false, true, {"num_experts"}, {"num_experts_per_tok"},
     {"moe_intermediate_size"}, {"shared_expert_intermediate_size"}},
    {"qwen3_moe", {"hidden_size"}, {"num_attention_heads"},
     {"num_hidden_layers"}, {"vocab_size"}, {"intermediate_size"}, 6144,
     {"num_key_value_heads"}, {"head_dim"}, 0, {"hidden_act"},
     Activation::SiLU, true, {}, false, false, true, {"num_experts"},
     {"num_experts_per_tok"}, {"moe_intermediate_size"}},
    // gpt-oss alternates sliding-window (128) and full attention
    // (layer_types); windows are not modelled yet, so every layer is priced
    // as full causal attention (docs/importer.md).
    {"gpt_oss", {"hidden_size"}, {"num_attention_heads"},
     {"num_hidden_layers"}, {"vocab_size"}, {}, 0, {"num_key_value_heads"},
     {"head_dim"}, 64, {"hidden_act"}, Activation::SiLU, true, {}, false,
     false, true, {"num_local_experts"},
     {"num_experts_per_tok", "experts_per_token"}, {"intermediate_size"}},
    {"dbrx", {"d_model"}, {"n_heads"}, {"n_layers"}, {"vocab_size"}, {}, 0,
     {"kv_n_heads"}, {}, 0, {}, Activation::SiLU, true, {}, false, false,
     true, {"moe_num_experts"}, {"moe_top_k"}, {"ffn_hidden_size"}, {},
     false, {"attn_config", "ffn_config"}},
    // Llama 4: one shared expert of the routed experts' inner size; dense
    // layers (interleave step > 1) use intermediate_size_mlp.
    {"llama4", {"hidden_size"}, {"num_attention_heads"},
     {"num_hidden_layers"}, {"vocab_size"}, {"intermediate_size_mlp"}, 16384,
     {"num_key_value_heads"}, {"head_dim"}, 128, {"hidden_act"},
     Activation::SiLU, true, {}, false, false, true, {"num_local_experts"},
     {"num_experts_per_tok"}, {"intermediate_size"}, {}, true,
     {"text_config"}},
    // Multi-head latent attention with DeepSeek's MoE (readMla,
    // deepseekMoeLayers): DeepSeek-V2/V3, and Kimi-K2 with DeepSeek-V3's
    // architecture. Defaults: DeepseekV2Config / DeepseekV3Config.
    deepseekSpec("deepseek_v2", 11008),
    deepseekSpec("deepseek_v3", 18432),
    deepseekSpec("kimi_k2", 18432),
};

/// The key list of each parameter a TypeSpec names: the HF reader's key
/// table. Import, export and hfKeysInUse walk it; the values go through the
/// parameter table's accessors.
struct KeyField {
  Param param;
  Keys TypeSpec::*keys;
  const char *what; ///< for messages
};
const KeyField kKeyFields[] = {
    {Param::Hidden, &TypeSpec::hidden, "hidden size"},
    {Param::Heads, &TypeSpec::heads, "attention heads"},
    {Param::KvHeads, &TypeSpec::kvHeads, "key/value heads"},
    {Param::HeadDim, &TypeSpec::headDim, "head dimension"},
    {Param::Ffn, &TypeSpec::inner, "MLP inner size"},
    {Param::Vocab, &TypeSpec::vocab, "vocabulary size"},
    {Param::Layers, &TypeSpec::layers, "layers"},
    {Param::Experts, &TypeSpec::experts, "routed experts"},
    {Param::TopK, &TypeSpec::topk, "experts per token"},
    {Param::MoeFfn, &TypeSpec::moeInner, "expert inner size"},
    {Param::SharedFfn, &TypeSpec::sharedInner, "shared expert inner size"},
    {Param::QLoraRank, &TypeSpec::qLoraRank, "query latent rank"},
    {Param::KvLoraRank, &TypeSpec::kvLoraRank, "key/value latent rank"},
    {Param::QkNopeDim, &TypeSpec::qkNopeDim, "query/key head dim without rotary embedding"},
    {Param::QkRopeDim, &TypeSpec::qkRopeDim, "rotary query/key head dim"},
    {Param::VHeadDim, &TypeSpec::vHeadDim, "value head dim"},
    {Param::SharedExperts, &TypeSpec::sharedCount, "shared experts"},
};
const KeyField &keyField(Param p) {
  for (const KeyField &f : kKeyFields)
    if (f.param == p)
      return f;
  return kKeyFields[0];
}

} // namespace

std::vector<std::pair<model::Param, std::string>> tshape::hfKeysInUse() {
  std::vector<std::pair<model::Param, std::string>> out;
  for (const TypeSpec &t : kSpecs)
    for (const KeyField &f : kKeyFields)
      for (const char *k : t.*f.keys)
        out.push_back({f.param, k});
  return out;
}

namespace {

/// Reads keys of one JSON object and records the first problem.
class Reader {
public:
  Reader(llvm::StringRef text, const json::Object &obj, ImportDiagnostic &diag)
      : text(text), obj(obj), diag(diag) {}

  /// The first of `keys` present and not null, or nullptr.
  const char *find(const Keys &keys) const {
    for (const char *k : keys)
      if (const json::Value *v = obj.get(k); v && v->kind() != json::Value::Null)
        return k;
    return nullptr;
  }

  /// A positive integer under one of `keys`; `fallback` when absent (0:
  /// required).
  std::optional<int64_t> size(const Keys &keys, int64_t fallback,
                              const char *what) {
    const char *key = find(keys);
    if (!key) {
      if (fallback > 0)
        return fallback;
      return fail(nullptr, llvm::formatv("missing required key '{0}' ({1})",
                                         keys.empty() ? what : keys.front(),
                                         what));
    }
    const json::Value &v = *obj.get(key);
    std::optional<int64_t> i = v.getAsInteger();
    if (!i) {
      if (v.kind() == json::Value::Number)
        return fail(key, llvm::formatv("key '{0}': expected an integer that "
                                       "fits in 64 bits, got {1}",
                                       key, render(v)));
      return fail(key, llvm::formatv("key '{0}': expected an integer, got "
                                     "{1} {2}",
                                     key, kindName(v), render(v)));
    }
    if (*i <= 0)
      return fail(key, llvm::formatv("key '{0}': {1} must be positive, got "
                                     "{2}",
                                     key, what, *i));
    return i;
  }

  /// A boolean under one of `keys`, or `fallback`.
  std::optional<bool> flag(const Keys &keys, bool fallback) {
    const char *key = find(keys);
    if (!key)
      return fallback;
    if (auto b = obj.get(key)->getAsBoolean())
      return *b;
    return fail(key, llvm::formatv("key '{0}': expected true or false, got "
                                   "{1} {2}",
                                   key, kindName(*obj.get(key)),
                                   render(*obj.get(key))),
                std::optional<bool>());
  }

  /// A string under one of `keys`; nullopt when absent (no error) or
  /// mistyped (error).
  std::optional<std::string> string(const Keys &keys, const char **usedKey) {
    const char *key = find(keys);
    *usedKey = key;
    if (!key)
      return std::nullopt;
    if (auto s = obj.get(key)->getAsString())
      return s->str();
    fail(key, llvm::formatv("key '{0}': expected a string, got {1} {2}", key,
                            kindName(*obj.get(key)), render(*obj.get(key))));
    return std::nullopt;
  }

  bool failed() const { return !diag.message.empty(); }

  /// Records `message` at `key` (or the whole file); returns `ret`.
  template <typename T = std::optional<int64_t>>
  T fail(const char *key, const std::string &message, T ret = T()) {
    if (diag.message.empty()) {
      diag.message = message;
      if (key)
        locate(key);
    }
    return ret;
  }

  /// Sets the diagnostic's line and column to where `"key"` is written.
  void locate(const char *key) {
    std::string quoted = std::string("\"") + key + "\"";
    size_t pos = 0;
    while ((pos = text.find(quoted, pos)) != llvm::StringRef::npos) {
      size_t after = text.find_first_not_of(" \t\r\n", pos + quoted.size());
      if (after != llvm::StringRef::npos && text[after] == ':')
        break;
      pos += quoted.size();
    }
    if (pos == llvm::StringRef::npos)
      return;
    llvm::StringRef before = text.take_front(pos);
    diag.line = before.count('\n') + 1;
    size_t nl = before.rfind('\n');
    diag.column = pos - (nl == llvm::StringRef::npos ? 0 : nl + 1) + 1;
  }

  static const char *kindName(const json::Value &v) {
    switch (v.kind()) {
    case json::Value::Null:
      return "null";
    case json::Value::Boolean:
      return "boolean";
    case json::Value::Number:
      return "number";
    case json::Value::String:
      return "string";
    case json::Value::Array:
      return "array";
    case json::Value::Object:
      return "object";
    }
    return "value";
  }

  static std::string render(const json::Value &v) {
    std::string s;
    llvm::raw_string_ostream os(s);
    os << v;
    if (s.size() > 40)
      s = s.substr(0, 37) + "...";
    return s;
  }

private:
  llvm::StringRef text;
  const json::Object &obj;
  ImportDiagnostic &diag;
};

std::optional<Activation> parseActivation(llvm::StringRef s) {
  if (s.starts_with("gelu"))
    return Activation::GELU;
  if (s == "relu")
    return Activation::ReLU;
  if (s == "silu" || s == "swish")
    return Activation::SiLU;
  return std::nullopt;
}

/// The config key a structural rule is about, to place its diagnostic.
const char *ruleKey(const TypeSpec &spec, const Reader &r,
                    const std::string &rule) {
  // A divisibility rule is about the parameter the table names for it.
  for (const KeyField &f : kKeyFields)
    if (rule == model::paramInfo(f.param).splitRule && r.find(spec.*f.keys))
      return r.find(spec.*f.keys);
  if (rule[0] == 'A')
    return r.find(spec.heads);
  if (rule == "E2")
    return r.find(spec.topk);
  if (rule == "E4")
    return r.find(spec.sharedInner);
  return nullptr;
}
} // namespace

namespace {
/// The object the reader reads: the root with the entries of the type's
/// nested sub-objects (DBRX's attn_config, Llama 4's text_config) over it.
json::Object mergedObject(const json::Object &root, const TypeSpec &spec) {
  json::Object merged = root;
  for (const char *n : spec.nested)
    if (const json::Object *sub = root.getObject(n))
      for (const auto &kv : *sub)
        merged[kv.first] = kv.second;
  return merged;
}

/// DeepSeek's MoE layers (modeling_deepseek.py, DeepseekV2/V3DecoderLayer):
/// layer i is MoE when i >= first_k_dense_replace and i % moe_layer_freq
/// == 0; the first first_k_dense_replace layers are dense MLPs of
/// intermediate_size.
std::optional<std::vector<bool>>
deepseekMoeLayers(Reader &r, const json::Object &obj, int64_t layers) {
  // first_k_dense_replace may be 0 (every layer MoE), which r.size rejects.
  int64_t firstDense = 0;
  if (const char *k = r.find({"first_k_dense_replace"})) {
    std::optional<int64_t> v = obj.get(k)->getAsInteger();
    if (!v || *v < 0 || *v > layers)
      return r.fail(k,
                    llvm::formatv("key '{0}': expected the number of dense "
                                  "layers, an integer in [0, {1}] "
                                  "(num_hidden_layers), got {2}",
                                  k, layers, Reader::render(*obj.get(k))),
                    std::optional<std::vector<bool>>());
    firstDense = *v;
  }
  auto freq = r.size({"moe_layer_freq"}, 1, "MoE layer frequency");
  if (!freq)
    return std::nullopt;
  std::vector<bool> moe(static_cast<size_t>(layers));
  for (int64_t i = 0; i < layers; ++i)
    moe[i] = i >= firstDense && i % *freq == 0;
  return moe;
}

/// Multi-head latent attention (DeepSeek-V2/V3, Kimi-K2): its sizes, the
/// shared experts (n_shared_experts of moe_intermediate_size each), and
/// the MLA block in place of the attention block in every layer.
bool readMla(const TypeSpec &spec, Reader &r, ModelConfig &c) {
  for (Param p : {Param::KvLoraRank, Param::QkNopeDim, Param::QkRopeDim,
                  Param::VHeadDim}) {
    const KeyField &f = keyField(p);
    if (auto v = r.size(spec.*f.keys, 0, f.what))
      setParam(c, p, *v);
  }
  // Null or absent: no query latent (DeepSeek-V2-Lite).
  if (r.find(spec.qLoraRank))
    if (auto v = r.size(spec.qLoraRank, 0, keyField(Param::QLoraRank).what))
      setParam(c, Param::QLoraRank, *v);
  if (r.find(spec.sharedCount))
    if (auto v = r.size(spec.sharedCount, 0,
                        keyField(Param::SharedExperts).what)) {
      setParam(c, Param::SharedExperts, *v);
      setParam(c, Param::SharedFfn, getParam(c, Param::MoeFfn));
    }
  if (r.failed())
    return false;
  auto toMla = [](std::vector<BlockKind> &blocks) {
    for (BlockKind &k : blocks)
      if (k == BlockKind::Attention)
        k = BlockKind::Mla;
  };
  toMla(c.layerBlocks);
  for (StackSegment &seg : c.stack)
    for (LayerKind &k : seg.pattern)
      toMla(k.blocks);
  return true;
}

/// Whether each layer is a MoE layer, by the type's rule (transformers'
/// modeling code): Qwen2/3-MoE: not in mlp_only_layers and (i + 1) %
/// decoder_sparse_step == 0; Llama 4: i in moe_layers, by default every
/// interleave_moe_layer_step-th layer counting from step - 1; the others:
/// every layer.
std::optional<std::vector<bool>> moeLayers(const TypeSpec &spec, Reader &r,
                                           const json::Object &obj,
                                           int64_t layers) {
  std::vector<bool> moe(size_t(layers), true);
  auto indices = [&](const char *key) -> std::optional<std::vector<int64_t>> {
    std::vector<int64_t> out;
    const json::Value *v = obj.get(key);
    if (!v || v->kind() == json::Value::Null)
      return out;
    const json::Array *a = v->getAsArray();
    if (!a)
      return r.fail(key, std::string("key '") + key +
                             "': expected a list of layer indices",
                    std::optional<std::vector<int64_t>>());
    for (const json::Value &e : *a) {
      std::optional<int64_t> i = e.getAsInteger();
      if (!i || *i < 0 || *i >= layers)
        return r.fail(key,
                      std::string("key '") + key + "': expected layer " +
                          "indices in [0, " + std::to_string(layers) + ")",
                      std::optional<std::vector<int64_t>>());
      out.push_back(*i);
    }
    return out;
  };
  const std::string type = spec.type;
  if (type == "qwen2_moe" || type == "qwen3_moe") {
    auto step = r.size({"decoder_sparse_step"}, 1, "sparse step");
    auto dense = indices("mlp_only_layers");
    if (!step || !dense)
      return std::nullopt;
    for (int64_t i = 0; i < layers; ++i)
      moe[i] = (i + 1) % *step == 0;
    for (int64_t i : *dense)
      moe[i] = false;
  } else if (!spec.kvLoraRank.empty()) {
    return deepseekMoeLayers(r, obj, layers);
  } else if (type == "llama4") {
    auto step = r.size({"interleave_moe_layer_step"}, 1, "interleave step");
    auto listed = indices("moe_layers");
    if (!step || !listed)
      return std::nullopt;
    for (int64_t i = 0; i < layers; ++i)
      moe[i] = listed->empty() ? i % *step == *step - 1
                               : llvm::is_contained(*listed, i);
  }
  return moe;
}

/// The stack of these layers: uniform (empty) when they are all alike, one
/// repeated pattern when they are periodic (an interleave), else a segment
/// per run of alike layers (dense then MoE).
std::vector<StackSegment> stackOf(const std::vector<LayerKind> &layers) {
  const size_t n = layers.size();
  for (size_t period = 1; period <= std::min<size_t>(n / 2, 8); ++period) {
    if (n % period)
      continue;
    bool periodic = true;
    for (size_t i = period; i < n && periodic; ++i)
      periodic = layers[i] == layers[i - period];
    if (!periodic)
      continue;
    if (period == 1)
      return {};
    return {StackSegment{
        std::vector<LayerKind>(layers.begin(), layers.begin() + period),
        int64_t(n / period)}};
  }
  std::vector<StackSegment> out;
  for (const LayerKind &k : layers) {
    if (!out.empty() && out.back().pattern.front() == k)
      ++out.back().repeats;
    else
      out.push_back({{k}, 1});
  }
  return out;
}
} // namespace

std::vector<std::string> tshape::supportedModelTypes() {
  std::vector<std::string> out;
  for (const TypeSpec &s : kSpecs)
    out.push_back(s.type);
  return out;
}

std::optional<ModelConfig> tshape::importHFConfig(llvm::StringRef text,
                                                  const ImportOptions &opts,
                                                  ImportDiagnostic &diag) {
  if (text.trim().empty()) {
    diag.message = "empty file: expected a JSON object";
    return std::nullopt;
  }
  llvm::Expected<json::Value> parsed = json::parse(text);
  if (!parsed) {
    std::string msg = llvm::toString(parsed.takeError());
    unsigned line = 0, col = 0, byte = 0;
    char what[256] = {0};
    if (sscanf(msg.c_str(), "[%u:%u, byte=%u]: %255[^\n]", &line, &col, &byte,
               what) == 4) {
      diag.message = std::string("malformed JSON: ") + what;
      diag.line = line;
      diag.column = col;
    } else {
      diag.message = "malformed JSON: " + msg;
    }
    return std::nullopt;
  }
  const json::Object *obj = parsed->getAsObject();
  if (!obj) {
    diag.message = "expected a JSON object at the top level, got " +
                   std::string(Reader::kindName(*parsed));
    diag.line = diag.column = 1;
    return std::nullopt;
  }
  Reader root(text, *obj, diag);
  const char *typeKey = nullptr;
  std::optional<std::string> type = root.string({"model_type"}, &typeKey);
  if (root.failed())
    return std::nullopt;
  if (!type) {
    root.fail(nullptr, "missing required key 'model_type'");
    return std::nullopt;
  }
  const TypeSpec *spec = nullptr;
  for (const TypeSpec &s : kSpecs)
    if (*type == s.type)
      spec = &s;
  if (!spec) {
    std::string known;
    for (const TypeSpec &s : kSpecs)
      known += std::string(known.empty() ? "" : ", ") + s.type;
    root.fail("model_type", "key 'model_type': unsupported model type '" +
                                *type + "' (supported: " + known + ")");
    return std::nullopt;
  }
  // The type's keys, nested sub-objects included.
  const json::Object merged = mergedObject(*obj, *spec);
  Reader r(text, merged, diag);
  if (spec->unsupportedKey) {
    const char *at = r.find({spec->unsupportedKey}) ? spec->unsupportedKey
                                                    : "model_type";
    r.fail(at, std::string("key '") + at + "': model type '" + *type +
                   "': " + spec->unsupportedWhy);
    return std::nullopt;
  }

  ModelConfig c;
  c.name = opts.name.empty() ? *type : opts.name;
  c.modelType = *type;
  setParam(c, Param::Microbatch, opts.microbatch);
  setParam(c, Param::Seq, opts.seq);
  c.parallel = opts.parallel;
  c.dtype = opts.dtype;
  // The sizes every type states.
  for (Param p : {Param::Hidden, Param::Heads, Param::Layers, Param::Vocab}) {
    const KeyField &f = keyField(p);
    if (auto v = r.size(spec->*f.keys, 0, f.what))
      setParam(c, p, *v);
  }
  if (r.failed())
    return std::nullopt;
  const int64_t hidden = getParam(c, Param::Hidden),
                heads = getParam(c, Param::Heads);

  int64_t innerDefault = spec->innerDefault;
  if (!innerDefault) {
    auto four = checkedMul(4, hidden);
    if (!four)
      return r.fail(r.find(spec->hidden),
                    "hidden size " + std::to_string(hidden) +
                        " is too large: 4 x hidden overflows 64 bits",
                    std::optional<ModelConfig>());
    innerDefault = *four;
  }
  auto inner = r.size(spec->inner, innerDefault, keyField(Param::Ffn).what);
  // Key/value heads; Falcon's own rules first.
  const char *kvWhat = keyField(Param::KvHeads).what;
  std::optional<int64_t> kv = heads;
  if (std::string(spec->type) == "falcon") {
    auto newArch = r.flag({"new_decoder_architecture"}, false);
    auto multiQuery = r.flag({"multi_query"}, true);
    if (newArch && *newArch)
      kv = r.size(spec->kvHeads, heads, kvWhat);
    else if (multiQuery && *multiQuery)
      kv = 1;
  } else if (!spec->kvHeads.empty()) {
    kv = r.size(spec->kvHeads, heads, kvWhat);
  }
  std::optional<int64_t> headDim = 0;
  if (!spec->headDim.empty() && (r.find(spec->headDim) || spec->headDimDefault))
    headDim = r.size(spec->headDim, spec->headDimDefault,
                     keyField(Param::HeadDim).what);
  auto parallel = r.flag(spec->parallelResidual, spec->parallelDefault);
  auto tied = r.flag({"tie_word_embeddings"}, spec->tiedDefault);
  const char *actKey = nullptr;
  std::optional<std::string> actName = r.string(spec->activation, &actKey);
  if (r.failed())
    return std::nullopt;
  setParam(c, Param::Ffn, *inner);
  c.mlp.gated = spec->gated;
  c.mlp.activation = spec->activationDefault;
  if (actName) {
    auto act = parseActivation(*actName);
    if (!act)
      return r.fail(actKey,
                    std::string("key '") + actKey +
                        "': unsupported activation '" + *actName +
                        "' (supported: gelu*, relu, silu, swish)",
                    std::optional<ModelConfig>());
    c.mlp.activation = *act;
  }
  setParam(c, Param::KvHeads, *kv);
  setParam(c, Param::HeadDim, *headDim);
  c.attention.causal = spec->causal;
  c.residual = *parallel ? ResidualMode::Parallel : ResidualMode::Sequential;
  c.tiedEmbeddings = *tied;

  // Mixture of experts: its sizes, and which layers it replaces the MLP in.
  if (!spec->experts.empty()) {
    for (Param p : {Param::Experts, Param::TopK, Param::MoeFfn}) {
      const KeyField &f = keyField(p);
      if (auto v = r.size(spec->*f.keys, 0, f.what))
        setParam(c, p, *v);
    }
    if (r.find(spec->sharedInner))
      if (auto v = r.size(spec->sharedInner, 0, keyField(Param::SharedFfn).what)) {
        setParam(c, Param::SharedExperts, 1);
        setParam(c, Param::SharedFfn, *v);
      }
    if (spec->sharedIsMoeInner) {
      setParam(c, Param::SharedExperts, 1);
      setParam(c, Param::SharedFfn, getParam(c, Param::MoeFfn));
    }
    auto moe = moeLayers(*spec, r, merged, getParam(c, Param::Layers));
    if (r.failed() || !moe)
      return std::nullopt;
    c.moe.gated = true;
    c.moe.activation = c.mlp.activation;
    std::vector<LayerKind> layers;
    bool dense = false;
    for (bool m : *moe) {
      layers.push_back({{BlockKind::Attention, m ? BlockKind::Moe : BlockKind::Mlp}});
      dense |= !m;
    }
    c.stack = stackOf(layers);
    c.layerBlocks = layers.front().blocks;
    // A model with no dense layer has no dense MLP size.
    if (!dense)
      setParam(c, Param::Ffn, 0);
  }

  if (!spec->kvLoraRank.empty() && !readMla(*spec, r, c))
    return std::nullopt;

  if (auto v = checkModel(c)) {
    const char *key = ruleKey(*spec, r, v->rule);
    std::string where = key ? std::string("key '") + key + "': " : "";
    return r.fail(key, where + "rule " + v->rule + ": " + v->message,
                  std::optional<ModelConfig>());
  }
  return c;
}

//===----------------------------------------------------------------------===//
// Export
//===----------------------------------------------------------------------===//

namespace {
/// What DeepSeek's config states besides the table's keys: the key/value
/// heads (one per head in MLA: num_key_value_heads = heads), a query
/// latent removed (null, as DeepSeek-V2-Lite writes it), the dense layers
/// (first_k_dense_replace) and the shared experts' size, which DeepSeek
/// ties to the routed experts' (n_shared_experts x moe_intermediate_size).
void exportMla(const ModelConfig &c, const ModelConfig *was,
               json::Object &out) {
  const int64_t heads = getParam(c, Param::Heads);
  if (!was || getParam(*was, Param::Heads) != heads)
    out["num_key_value_heads"] = heads;
  if (getParam(c, Param::QLoraRank) == 0 &&
      (!was || getParam(*was, Param::QLoraRank) != 0))
    out["q_lora_rank"] = nullptr;
  int64_t dense = 0;
  for (int64_t l = 0; l < c.layers; ++l) {
    const ModelConfig lc = layerConfig(c, l);
    if (llvm::is_contained(lc.layerBlocks, BlockKind::Moe))
      break;
    ++dense;
  }
  if (!was || was->stack != c.stack)
    out["first_k_dense_replace"] = dense;
}
} // namespace

std::optional<json::Object>
tshape::exportHFConfig(const ModelConfig &c, const std::string &modelType,
                       const json::Object *base, std::string &error) {
  const TypeSpec *spec = nullptr;
  for (const TypeSpec &s : kSpecs)
    if (modelType == s.type)
      spec = &s;
  if (!spec) {
    error = "unknown model_type '" + modelType + "'";
    return std::nullopt;
  }
  // The base's own sizes, read exactly as the importer reads them.
  std::optional<ModelConfig> was;
  if (base) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << json::Value(json::Object(*base));
    ImportOptions o;
    o.seq = getParam(c, Param::Seq);
    o.microbatch = getParam(c, Param::Microbatch);
    o.dtype = c.dtype;
    ImportDiagnostic diag;
    was = importHFConfig(text, o, diag);
    if (!was) {
      error = "--base: " + diag.message;
      return std::nullopt;
    }
  }
  json::Object out = base ? *base : json::Object();
  out["model_type"] = modelType;
  // Writes `value` under the alias the base used, else the first key; with
  // a base, only when the value changed.
  auto put = [&](const Keys &keys, int64_t value, int64_t old) {
    if (keys.empty() || (was && value == old))
      return;
    const char *key = keys.front();
    for (const char *k : keys)
      if (base && base->get(k))
        key = k;
    // A key of a nested sub-object (DBRX, Llama 4) is written there.
    for (const char *n : spec->nested)
      if (json::Object *sub = out.getObject(n))
        for (const char *k : keys)
          if (sub->get(k)) {
            (*sub)[k] = value;
            return;
          }
    out[key] = value;
  };
  const int64_t hidden = getParam(c, Param::Hidden),
                ffn = getParam(c, Param::Ffn),
                kvHeads = getParam(c, Param::KvHeads);
  // A type with no dense-MLP key: 4 x hidden, or none for a MoE type.
  if (spec->inner.empty() && ffn != (spec->experts.empty() ? 4 * hidden : 0)) {
    error = std::string("model_type '") + spec->type +
            "' has no key for an MLP inner size other than 4 x hidden";
    return std::nullopt;
  }
  for (const KeyField &f : kKeyFields) {
    const int64_t v = getParam(c, f.param), old = was ? getParam(*was, f.param) : 0;
    // Falcon states its key/value heads with flags; a head dim of 0 is
    // implicit (hidden/heads) and has no key.
    if ((f.param == Param::KvHeads && std::string(spec->type) == "falcon") ||
        (f.param == Param::HeadDim && v == 0) ||
        (f.param == Param::Ffn && v == 0) ||
        (f.param == Param::SharedFfn && v == 0) ||
        (f.param == Param::QLoraRank && v == 0))
      continue;
    put(spec->*f.keys, v, old);
  }
  if (std::string(spec->type) == "falcon") {
    int64_t old = was ? getParam(*was, Param::KvHeads) : 0;
    if (!was || kvHeads != old) {
      bool mq = kvHeads == 1;
      out["multi_query"] = mq;
      out["new_decoder_architecture"] = !mq;
      if (!mq)
        out["num_kv_heads"] = kvHeads;
    }
  }
  if (!was || was->tiedEmbeddings != c.tiedEmbeddings)
    out["tie_word_embeddings"] = c.tiedEmbeddings;
  if (!spec->kvLoraRank.empty())
    exportMla(c, was ? &*was : nullptr, out);
  return out;
}
