//===- HFConfig.cpp - Hugging Face config.json import ---------------------===//
//
// One table row per model_type gives the key names (with aliases) and the
// documented defaults; the reader turns every problem into a located
// diagnostic. docs/importer.md mirrors the table.
//
//===----------------------------------------------------------------------===//

#include "tshape/Interop/HFConfig.h"

#include "HFArchitecture.h"
#include "HFConfigTypes.h"
#include "HFFamilies.h"
#include "HFReader.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <cstdio>
#include <map>

using namespace tshape;
using namespace tshape::model;
using model::getParam;
using model::Param;
using model::setParam;
namespace json = llvm::json;
using hf::Keys;
using hf::Reader;
using hf::TypeSpec;
using hf::typeSpecs;

namespace {

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
  for (const TypeSpec &t : typeSpecs())
    for (const KeyField &f : kKeyFields)
      for (const char *k : t.*f.keys)
        out.push_back({f.param, k});
  for (const hf::WindowSpec &w : hf::windowSpecs())
    for (const char *k : w.keys)
      out.push_back({Param::Window, k});
  return out;
}

namespace {

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
json::Object mergedObject(const json::Object &root, const TypeSpec &spec,
                          std::map<std::string, std::string> &origin) {
  json::Object merged = root;
  for (const char *n : spec.nested)
    if (const json::Object *sub = root.getObject(n))
      for (const auto &kv : *sub) {
        merged[kv.first] = kv.second;
        origin[kv.first.str()] = n;
      }
  return merged;
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

/// The stack of these layers: uniform (empty) when they are all alike, one
/// repeated pattern when they are periodic (an interleave), else a segment
/// per run of alike layers (dense then MoE).
std::vector<StackSegment> stackOf(const std::vector<LayerKind> &layers) {
  // Any period up to half the layers, bounded so that a corrupt count (up
  // to kMaxImportLayers) stays linear: a pattern is at most a model's
  // layers, and the deepest models have about 128.
  constexpr size_t kMaxPeriod = 256;
  const size_t n = layers.size();
  for (size_t period = 1; period <= std::min(n / 2, kMaxPeriod); ++period) {
    bool periodic = true;
    for (size_t i = period; i < n && periodic; ++i)
      periodic = layers[i] == layers[i - period];
    if (!periodic)
      continue;
    if (period == 1)
      return {};
    std::vector<StackSegment> out = {StackSegment{
        std::vector<LayerKind>(layers.begin(), layers.begin() + period),
        int64_t(n / period)}};
    // A period that does not divide the layers (Gemma 3 4B: 34 = 5 x 6 +
    // 4) leaves a start of the pattern: one more segment, one layer
    // repeated when its layers are alike.
    if (size_t rest = n % period) {
      std::vector<LayerKind> tail(layers.begin(), layers.begin() + rest);
      if (std::all_of(tail.begin(), tail.end(),
                      [&](const LayerKind &k) { return k == tail[0]; }))
        out.push_back({{tail[0]}, int64_t(rest)});
      else
        out.push_back({tail, 1});
    }
    return out;
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

namespace {
const TypeSpec *findType(llvm::StringRef type) {
  for (const TypeSpec &s : typeSpecs())
    if (type == s.type)
      return &s;
  return nullptr;
}

std::string knownTypes() {
  std::string known;
  for (const TypeSpec &s : typeSpecs())
    known += std::string(known.empty() ? "" : ", ") + s.type;
  return known;
}

/// The class default of `p` for a type (TypeSpec::defaults), else
/// `fallback`.
int64_t classDefault(const TypeSpec &spec, Param p, int64_t fallback) {
  for (const auto &[q, v] : spec.defaults)
    if (q == p)
      return v;
  return fallback;
}

/// The window W and which layers use it (hf::WindowSpec; docs/importer.md):
/// sets W (0 when no layer is windowed) and LayerKind::fullAttention of
/// each layer. False after recording an error in `r`.
bool readWindows(const hf::WindowSpec &w, Reader &r, const json::Object &obj,
                 ModelConfig &c, std::vector<LayerKind> &layers) {
  const int64_t n = int64_t(layers.size());
  // A key given as null means no window (Qwen3, Mixtral, Phi-4).
  const json::Value *given = nullptr;
  for (const char *k : w.keys)
    if (!given)
      given = obj.get(k);
  if (given && given->kind() == json::Value::Null)
    return true;
  // Absent with no class default (Mixtral, Phi-3, StarCoder2): none.
  if (!given && w.keyDefault == 0)
    return true;
  if (w.layers == hf::WindowLayers::Qwen) {
    auto use = r.flag({"use_sliding_window"}, false);
    if (!use || !*use)
      return !r.failed();
  }
  std::optional<int64_t> window =
      r.size(w.keys, w.keyDefault, paramPhrase(Param::Window));
  if (!window)
    return !r.failed();
  std::vector<bool> windowed(size_t(n), true);
  if (w.layers == hf::WindowLayers::Qwen) {
    // Qwen2/3: windows only with use_sliding_window, on layers from
    // max_window_layers (28) on.
    auto from = r.size({"max_window_layers"}, 28, "max window layers");
    if (!from)
      return false;
    for (int64_t i = 0; i < n; ++i)
      windowed[i] = i >= *from;
  } else if (w.layers == hf::WindowLayers::Pattern) {
    int64_t period = w.patternDefault;
    if (w.patternKey) {
      auto p = r.size({w.patternKey}, w.patternDefault, "window pattern");
      if (!p)
        return false;
      period = *p;
    }
    for (int64_t i = 0; i < n; ++i)
      windowed[i] = (i + 1) % period != 0;
    // An explicit per-layer list wins: layer_types ("full_attention" or a
    // windowed kind), or Llama 4's no_rope_layers (1: RoPE, chunked).
    for (const char *key : {"layer_types", "no_rope_layers"}) {
      const json::Value *v = obj.get(key);
      if (!v || v->kind() == json::Value::Null)
        continue;
      const json::Array *a = v->getAsArray();
      if (!a || int64_t(a->size()) != n)
        return r.fail(key,
                      std::string("key '") + key + "': expected a list of " +
                          std::to_string(n) + " entries, one per layer",
                      false);
      for (int64_t i = 0; i < n; ++i) {
        const json::Value &e = (*a)[i];
        if (auto s = e.getAsString()) {
          if (*s != "full_attention" && *s != "sliding_attention" &&
              *s != "chunked_attention")
            return r.fail(key,
                          std::string("key '") + key + "': entry " +
                              std::to_string(i) + " is '" + s->str() +
                              "', expected \"full_attention\", "
                              "\"sliding_attention\" or "
                              "\"chunked_attention\"",
                          false);
          windowed[i] = *s != "full_attention";
        } else if (auto b = e.getAsInteger())
          windowed[i] = *b != 0;
        else
          return r.fail(key,
                        std::string("key '") + key + "': entry " +
                            std::to_string(i) + " is " + Reader::kindName(e) +
                            ", expected a layer type",
                        false);
      }
    }
  }
  if (std::find(windowed.begin(), windowed.end(), true) == windowed.end())
    return true;
  setParam(c, Param::Window, *window);
  c.attention.chunked = w.chunked;
  for (int64_t i = 0; i < n; ++i)
    layers[i].fullAttention = !windowed[i];
  return true;
}
} // namespace

std::optional<HFTie> tshape::hfTie(llvm::StringRef modelType, Param p) {
  const TypeSpec *spec = findType(modelType);
  if (!spec || p != Param::SharedFfn)
    return std::nullopt;
  // Llama 4: one key sizes the routed and the shared expert; DeepSeek:
  // n_shared_experts of the routed experts' size.
  if (spec->sharedIsMoeInner || !spec->sharedCount.empty())
    return HFTie{Param::MoeFfn, spec->moeInner.empty()
                                    ? std::string()
                                    : std::string(spec->moeInner.front())};
  return std::nullopt;
}

std::vector<std::string> tshape::supportedModelTypes() {
  std::vector<std::string> out;
  for (const TypeSpec &s : typeSpecs())
    out.push_back(s.type);
  return out;
}

namespace {
/// A config parsed and its family's row: the object, the model_type it
/// states and the family it is read as (--as-model-type).
struct ParsedConfig {
  json::Value value = nullptr;
  const TypeSpec *spec = nullptr;
  std::string type, family;
};

/// Parses `text` and finds its family's row; nullopt with `diag` set.
std::optional<ParsedConfig> parseConfig(llvm::StringRef text,
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
  // --as-model-type reads the keys as that family's, whatever the file
  // says (a fine-tune or a renamed architecture).
  ParsedConfig out;
  out.type = *type;
  out.family = opts.asModelType.empty() ? *type : opts.asModelType;
  out.spec = findType(out.family);
  if (!out.spec) {
    if (!opts.asModelType.empty()) {
      diag.message = "--as-model-type: unsupported model type '" +
                     out.family + "' (supported: " + knownTypes() + ")";
      return std::nullopt;
    }
    root.fail("model_type", "key 'model_type': unsupported model type '" +
                                *type + "' (supported: " + knownTypes() +
                                "); if its keys follow a supported family, "
                                "try --as-model-type=<type>");
    return std::nullopt;
  }
  // A nested sub-object (Llama 4's text_config, DBRX's ffn_config) must be
  // one: a string or a list there is an error at its key.
  for (const char *n : out.spec->nested)
    if (const json::Value *v = obj->get(n); v && !v->getAsObject()) {
      root.fail(n, std::string("key '") + n + "': expected an object (the "
                   "nested config), got " + Reader::kindName(*v));
      return std::nullopt;
    }
  out.value = std::move(*parsed);
  return out;
}

/// The sizes every type states (hidden, heads, layers, vocabulary) and
/// its attention's and MLP's (the MLP size, the key/value heads, the head
/// dim, the residual, tying, the activation), by the row's keys and the
/// family's hooks; false with `r` failed.
bool readSizes(const TypeSpec &spec, const hf::FamilyHooks &hooks, Reader &r,
               ModelConfig &c) {
  for (Param p : {Param::Hidden, Param::Heads, Param::Layers, Param::Vocab}) {
    const KeyField &f = keyField(p);
    if (auto v = r.size(spec.*f.keys, classDefault(spec, p, 0), f.what))
      setParam(c, p, *v);
  }
  if (r.failed())
    return false;
  // The importer keeps one entry per layer (MoE and window patterns): a
  // bound, far above any model's (the deepest ones have about 128), keeps
  // a corrupt count from allocating terabytes.
  constexpr int64_t kMaxImportLayers = 100'000;
  if (getParam(c, Param::Layers) > kMaxImportLayers) {
    const char *key = r.find(spec.layers);
    return r.fail(key, std::string("key '") + (key ? key : "layers") + "': " +
                           std::to_string(getParam(c, Param::Layers)) +
                           " layers is more than tshape imports (at most " +
                           std::to_string(kMaxImportLayers) + ")",
                  false);
  }
  const int64_t hidden = getParam(c, Param::Hidden),
                heads = getParam(c, Param::Heads);
  std::optional<int64_t> innerDefault = spec.innerDefault;
  if (!spec.innerDefault) {
    innerDefault = checkedMul(4, hidden);
    if (!innerDefault)
      return r.fail(r.find(spec.hidden),
                    "hidden size " + std::to_string(hidden) +
                        " is too large: 4 x hidden overflows 64 bits",
                    false);
  }
  if (hooks.innerDefault && !(innerDefault = hooks.innerDefault(r, hidden)))
    return false;
  auto inner = r.size(spec.inner, *innerDefault, keyField(Param::Ffn).what);
  // Key/value heads: the family's flags, else the row's key.
  std::optional<int64_t> kv = heads;
  if (hooks.kvHeads)
    kv = hooks.kvHeads(spec, r, heads);
  else if (!spec.kvHeads.empty())
    kv = r.size(spec.kvHeads, classDefault(spec, Param::KvHeads, heads),
                keyField(Param::KvHeads).what);
  std::optional<int64_t> headDim = 0;
  if (!spec.headDim.empty() && (r.find(spec.headDim) || spec.headDimDefault))
    headDim = r.size(spec.headDim, spec.headDimDefault,
                     keyField(Param::HeadDim).what);
  auto parallel = r.flag(spec.parallelResidual, spec.parallelDefault);
  auto tied = r.flag({"tie_word_embeddings"}, spec.tiedDefault);
  const char *actKey = nullptr;
  std::optional<std::string> actName = r.string(spec.activation, &actKey);
  if (r.failed() || !inner || !kv || !headDim || !parallel || !tied)
    return false;
  setParam(c, Param::Ffn, *inner);
  c.mlp.gated = spec.gated;
  c.mlp.activation = spec.activationDefault;
  if (actName) {
    auto act = parseActivation(*actName);
    if (!act)
      return r.fail(actKey,
                    std::string("key '") + actKey +
                        "': unsupported activation '" + *actName +
                        "' (supported: gelu*, relu, silu, swish)",
                    false);
    c.mlp.activation = *act;
  }
  setParam(c, Param::KvHeads, *kv);
  setParam(c, Param::HeadDim, *headDim);
  c.attention.causal = spec.causal;
  c.residual = *parallel ? ResidualMode::Parallel : ResidualMode::Sequential;
  c.tiedEmbeddings = *tied;
  return true;
}

/// The layers: the experts' sizes, each layer's blocks by the family's
/// layer plan (hf::FamilyHooks::layerPlan), windowed or full attention,
/// and the stack they make; false with `r` failed.
bool readLayers(const TypeSpec &spec, const hf::FamilyHooks &hooks,
                Reader &r, const json::Object &merged, llvm::StringRef family,
                ModelConfig &c) {
  const int64_t n = getParam(c, Param::Layers);
  const bool experts = !spec.experts.empty();
  if (experts) {
    for (Param p : {Param::Experts, Param::TopK, Param::MoeFfn}) {
      const KeyField &f = keyField(p);
      if (auto v = r.size(spec.*f.keys, 0, f.what))
        setParam(c, p, *v);
    }
    if (r.find(spec.sharedInner))
      if (auto v =
              r.size(spec.sharedInner, 0, keyField(Param::SharedFfn).what)) {
        setParam(c, Param::SharedExperts, 1);
        setParam(c, Param::SharedFfn, *v);
      }
    if (spec.sharedIsMoeInner) {
      setParam(c, Param::SharedExperts, 1);
      setParam(c, Param::SharedFfn, getParam(c, Param::MoeFfn));
    }
    c.moe.gated = true;
    c.moe.activation = c.mlp.activation;
  }
  std::optional<std::vector<LayerKind>> layers =
      hooks.layerPlan ? hooks.layerPlan(r, merged, n, experts)
                      : hf::uniformLayers(n, experts);
  if (r.failed() || !layers)
    return false;
  if (int64_t(layers->size()) != n)
    return r.fail(r.find(spec.layers),
                  "the layer plan of '" + family.str() + "' gives " +
                      std::to_string(layers->size()) + " layers, not " +
                      std::to_string(n),
                  false);
  // A model with no dense MLP layer has no dense MLP size.
  if (experts && llvm::none_of(*layers, [](const LayerKind &k) {
        return llvm::is_contained(k.blocks, BlockKind::Mlp);
      }))
    setParam(c, Param::Ffn, 0);
  if (const hf::WindowSpec *w = hf::windowSpec(family))
    if (!readWindows(*w, r, merged, c, *layers))
      return false;
  c.stack = stackOf(*layers);
  if (!layers->empty()) {
    c.layerBlocks = layers->front().blocks;
    c.attention.fullAttention = layers->front().fullAttention;
  }
  return true;
}
} // namespace

std::optional<ModelConfig> tshape::importHFConfig(llvm::StringRef text,
                                                  const ImportOptions &opts,
                                                  ImportDiagnostic &diag) {
  std::optional<ParsedConfig> p = parseConfig(text, opts, diag);
  if (!p)
    return std::nullopt;
  const TypeSpec &spec = *p->spec;
  const hf::FamilyHooks &hooks = hf::familyHooks(p->family);
  // The type's keys, nested sub-objects included.
  std::map<std::string, std::string> origin;
  const json::Object merged =
      mergedObject(*p->value.getAsObject(), spec, origin);
  Reader r(text, merged, diag, &origin);
  if (spec.unsupportedKey) {
    const char *at =
        r.find({spec.unsupportedKey}) ? spec.unsupportedKey : "model_type";
    r.fail(at, std::string("key '") + at + "': model type '" + p->family +
                   "': " + spec.unsupportedWhy);
    return std::nullopt;
  }

  ModelConfig c;
  c.name = opts.name.empty() ? p->type : opts.name;
  c.modelType = p->family;
  setParam(c, Param::Microbatch, opts.microbatch);
  setParam(c, Param::Seq, opts.seq);
  c.parallel = opts.parallel;
  c.dtype = opts.dtype;
  c.attention.fused = opts.fusedAttention;
  if (!readSizes(spec, hooks, r, c) ||
      !readLayers(spec, hooks, r, merged, p->family, c))
    return std::nullopt;
  if (!spec.kvLoraRank.empty() && !readMla(spec, r, c))
    return std::nullopt;
  // What the model is beyond its sizes (positions, norms, biases, router).
  if (!hf::readArchitecture(p->family, r, c.arch))
    return std::nullopt;

  if (auto v = checkModel(c)) {
    const char *key = ruleKey(spec, r, v->rule);
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
  const TypeSpec *spec = findType(modelType);
  if (!spec) {
    error = "unknown model_type '" + modelType + "'";
    return std::nullopt;
  }
  // A base of another model_type (read with --as-model-type) is read as
  // this family and keeps its own model_type.
  const json::Value *baseType = base ? base->get("model_type") : nullptr;
  const bool keepType = baseType && baseType->getAsString() &&
                        !findType(*baseType->getAsString());
  // A size the format ties to another cannot be written apart from it.
  if (getParam(c, Param::SharedExperts) > 0)
    if (std::optional<HFTie> tie = hfTie(modelType, Param::SharedFfn);
        tie && getParam(c, Param::SharedFfn) != getParam(c, tie->follows)) {
      error = "model_type '" + modelType +
              "' has no key for the shared experts' inner size: '" +
              tie->key + "' sizes them and the routed experts alike, but "
              "shared_ffn is " +
              std::to_string(getParam(c, Param::SharedFfn)) +
              " and moe_ffn " + std::to_string(getParam(c, tie->follows)) +
              " (make them equal, e.g. optimize without varying shared_ffn)";
      return std::nullopt;
    }
  // The base's own sizes, read exactly as the importer reads them.
  std::optional<ModelConfig> was;
  if (base) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << json::Value(json::Object(*base));
    ImportOptions o;
    if (keepType)
      o.asModelType = modelType;
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
  if (!keepType)
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
  const std::string type = spec->type;
  // A family that states its key/value heads or its MLP size with flags
  // writes them itself (hf::FamilyHooks, below).
  const hf::FamilyHooks &hooks = hf::familyHooks(type);
  for (const KeyField &f : kKeyFields) {
    const int64_t v = getParam(c, f.param), old = was ? getParam(*was, f.param) : 0;
    // A head dim of 0 is implicit (hidden/heads) and has no key.
    if ((f.param == Param::KvHeads && hooks.exportKvHeads) ||
        (f.param == Param::Ffn && hooks.exportInner) ||
        (f.param == Param::HeadDim && v == 0) ||
        (f.param == Param::Ffn && v == 0) ||
        (f.param == Param::SharedFfn && v == 0) ||
        (f.param == Param::QLoraRank && v == 0))
      continue;
    put(spec->*f.keys, v, old);
  }
  hf::ExportSizes sizes;
  sizes.heads = getParam(c, Param::Heads);
  sizes.kvHeads = kvHeads;
  sizes.hidden = hidden;
  sizes.ffn = ffn;
  sizes.kvChanged = !was || kvHeads != getParam(*was, Param::KvHeads);
  sizes.ffnChanged = !was || ffn != getParam(*was, Param::Ffn);
  sizes.base = base;
  if (hooks.exportKvHeads)
    hooks.exportKvHeads(sizes, out);
  if (hooks.exportInner)
    hooks.exportInner(sizes, out);
  // The window, where the type states one (hf::WindowSpec): written when
  // it changed; which layers use it is the type's rule, kept.
  if (const hf::WindowSpec *w = hf::windowSpec(type)) {
    const int64_t win = getParam(c, Param::Window);
    if (win > 0 && (!was || win != getParam(*was, Param::Window))) {
      bool nested = false;
      for (const char *n : spec->nested)
        if (json::Object *sub = out.getObject(n))
          if (sub->get(w->keys.front())) {
            (*sub)[w->keys.front()] = win;
            nested = true;
          }
      if (!nested)
        out[w->keys.front()] = win;
    }
  }
  if (!was || was->tiedEmbeddings != c.tiedEmbeddings)
    out["tie_word_embeddings"] = c.tiedEmbeddings;
  if (!spec->kvLoraRank.empty())
    exportMla(c, was ? &*was : nullptr, out);
  return out;
}
