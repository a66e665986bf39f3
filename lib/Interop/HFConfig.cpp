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
};

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
  return nullptr;
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
  Reader r(text, *obj, diag);
  const char *typeKey = nullptr;
  std::optional<std::string> type = r.string({"model_type"}, &typeKey);
  if (r.failed())
    return std::nullopt;
  if (!type) {
    r.fail(nullptr, "missing required key 'model_type'");
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
    r.fail("model_type", "key 'model_type': unsupported model type '" +
                             *type + "' (supported: " + known + ")");
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
    out[key] = value;
  };
  const int64_t hidden = getParam(c, Param::Hidden),
                ffn = getParam(c, Param::Ffn),
                kvHeads = getParam(c, Param::KvHeads);
  if (spec->inner.empty() && ffn != 4 * hidden) {
    error = std::string("model_type '") + spec->type +
            "' has no key for an MLP inner size other than 4 x hidden";
    return std::nullopt;
  }
  for (const KeyField &f : kKeyFields) {
    const int64_t v = getParam(c, f.param), old = was ? getParam(*was, f.param) : 0;
    // Falcon states its key/value heads with flags; a head dim of 0 is
    // implicit (hidden/heads) and has no key.
    if ((f.param == Param::KvHeads && std::string(spec->type) == "falcon") ||
        (f.param == Param::HeadDim && v == 0))
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
  return out;
}
