//===- HFFamilies.cpp - Family quirks and layer plans of the HF importer --===//
//
// The hooks of HFFamilies.h, one row per family that needs one; each
// follows the transformers configuration class and modeling code of its
// type (docs/importer.md).
//
//===----------------------------------------------------------------------===//

#include "HFFamilies.h"

#include "llvm/ADT/STLExtras.h"

using namespace tshape;
using namespace tshape::hf;
using model::BlockKind;
using model::LayerKind;

namespace {
using Layers = std::optional<std::vector<LayerKind>>;

/// Writes `value` at `key` of the sub-object `sub` (created if need be),
/// or at the top level without one.
void putIn(json::Object &out, const char *sub, const char *key,
           json::Value value) {
  if (!sub) {
    out[key] = std::move(value);
    return;
  }
  if (!out.getObject(sub))
    out[sub] = json::Object();
  (*out.getObject(sub))[key] = std::move(value);
}

//===--- Key/value heads and MLP sizes stated with flags -----------------===//

/// Falcon (configuration_falcon.py): new_decoder_architecture reads
/// num_kv_heads; else multi_query (true by default) means one.
std::optional<int64_t> falconKv(const TypeSpec &spec, Reader &r,
                                int64_t heads) {
  auto newArch = r.flag({"new_decoder_architecture"}, false);
  auto multiQuery = r.flag({"multi_query"}, true);
  if (newArch && *newArch)
    return r.size(spec.kvHeads, heads, "key/value heads");
  if (r.failed())
    return std::nullopt;
  return multiQuery && *multiQuery ? 1 : heads;
}

void falconExportKv(const ExportSizes &s, json::Object &out) {
  if (!s.kvChanged)
    return;
  const bool mq = s.kvHeads == 1;
  out["multi_query"] = mq;
  out["new_decoder_architecture"] = !mq;
  if (!mq)
    out["num_kv_heads"] = s.kvHeads;
}

/// RefinedWeb (configuration_RW.py): n_head_kv when given, else
/// multi_query (false by default) means one.
std::optional<int64_t> refinedWebKv(const TypeSpec &spec, Reader &r,
                                    int64_t heads) {
  auto multiQuery = r.flag({"multi_query"}, false);
  if (r.find(spec.kvHeads))
    return r.size(spec.kvHeads, heads, "key/value heads");
  if (r.failed())
    return std::nullopt;
  return multiQuery && *multiQuery ? 1 : heads;
}

/// MPT: attn_config.attn_type multiquery_attention (one kv head),
/// grouped_query_attention (kv_n_heads, default 1), else multi-head.
std::optional<int64_t> mptKv(const TypeSpec &spec, Reader &r, int64_t heads) {
  const char *typeKey = nullptr;
  std::optional<std::string> attnType = r.string({"attn_type"}, &typeKey);
  if (r.failed())
    return std::nullopt;
  if (attnType && *attnType == "multiquery_attention")
    return 1;
  if (attnType && *attnType == "grouped_query_attention")
    return r.size(spec.kvHeads, 1, "key/value heads");
  return heads;
}

void mptExportKv(const ExportSizes &s, json::Object &out) {
  if (!s.kvChanged)
    return;
  putIn(out, "attn_config", "attn_type",
        s.kvHeads == s.heads ? "multihead_attention"
        : s.kvHeads == 1     ? "multiquery_attention"
                             : "grouped_query_attention");
  if (s.kvHeads != s.heads && s.kvHeads != 1)
    putIn(out, "attn_config", "kv_n_heads", s.kvHeads);
}

/// MPT: ffn_config.ffn_hidden_size, else expansion_ratio (4) x d_model.
std::optional<int64_t> mptInner(Reader &r, int64_t hidden) {
  auto ratio = r.size({"expansion_ratio"}, 4, "MLP expansion ratio");
  auto f = model::checkedMul(ratio.value_or(1), hidden);
  if (!ratio || !f)
    return r.fail(r.find({"expansion_ratio"}),
                  "key 'expansion_ratio': expansion_ratio x d_model "
                  "overflows 64 bits",
                  std::optional<int64_t>());
  return *f;
}

void mptExportInner(const ExportSizes &s, json::Object &out) {
  if (!s.ffnChanged)
    return;
  const json::Object *ffnConfig =
      s.base ? s.base->getObject("ffn_config") : nullptr;
  if (s.ffn % s.hidden == 0 &&
      !(ffnConfig && ffnConfig->get("ffn_hidden_size")))
    out["expansion_ratio"] = s.ffn / s.hidden;
  else
    putIn(out, "ffn_config", "ffn_hidden_size", s.ffn);
}

/// ChatGLM: multi_query_attention (false by default) reads
/// multi_query_group_num (1) key/value heads.
std::optional<int64_t> chatglmKv(const TypeSpec &spec, Reader &r,
                                 int64_t heads) {
  auto multiQuery = r.flag({"multi_query_attention"}, false);
  if (multiQuery && *multiQuery)
    return r.size(spec.kvHeads, 1, "key/value heads");
  if (r.failed())
    return std::nullopt;
  return heads;
}

void chatglmExportKv(const ExportSizes &s, json::Object &out) {
  if (!s.kvChanged)
    return;
  out["multi_query_attention"] = s.kvHeads != s.heads;
  if (s.kvHeads != s.heads)
    out["multi_query_group_num"] = s.kvHeads;
}

//===--- Layer plans -------------------------------------------------------===//

/// Layer indices under `key` (absent or null: none), each in [0, layers).
std::optional<std::vector<int64_t>> indices(Reader &r, const json::Object &obj,
                                            const char *key, int64_t layers) {
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
}

/// Attention then the MoE block where `moe` says, else the MLP.
std::vector<LayerKind> moeOrMlp(const std::vector<bool> &moe) {
  std::vector<LayerKind> out;
  for (bool m : moe)
    out.push_back({{BlockKind::Attention, m ? BlockKind::Moe : BlockKind::Mlp}});
  return out;
}

/// Qwen2/3-MoE (modeling_qwen2_moe.py): layer i is MoE when not in
/// mlp_only_layers and (i + 1) % decoder_sparse_step == 0.
Layers qwenMoeLayers(Reader &r, const json::Object &obj, int64_t layers,
                     bool) {
  auto step = r.size({"decoder_sparse_step"}, 1, "sparse step");
  auto dense = indices(r, obj, "mlp_only_layers", layers);
  if (!step || !dense)
    return std::nullopt;
  std::vector<bool> moe(static_cast<size_t>(layers));
  for (int64_t i = 0; i < layers; ++i)
    moe[size_t(i)] = (i + 1) % *step == 0;
  for (int64_t i : *dense)
    moe[size_t(i)] = false;
  return moeOrMlp(moe);
}

/// Llama 4 (modeling_llama4.py): layer i is MoE when listed in
/// moe_layers, by default every interleave_moe_layer_step-th layer
/// counting from step - 1.
Layers llama4Layers(Reader &r, const json::Object &obj, int64_t layers,
                    bool) {
  auto step = r.size({"interleave_moe_layer_step"}, 1, "interleave step");
  auto listed = indices(r, obj, "moe_layers", layers);
  if (!step || !listed)
    return std::nullopt;
  std::vector<bool> moe(static_cast<size_t>(layers));
  for (int64_t i = 0; i < layers; ++i)
    moe[size_t(i)] = listed->empty() ? i % *step == *step - 1
                                     : llvm::is_contained(*listed, i);
  return moeOrMlp(moe);
}

/// DeepSeek (modeling_deepseek.py, DeepseekV2/V3DecoderLayer): layer i is
/// MoE when i >= first_k_dense_replace and i % moe_layer_freq == 0; the
/// first first_k_dense_replace layers are dense MLPs. (readMla puts the MLA
/// block in place of the attention.)
Layers deepseekLayers(Reader &r, const json::Object &obj, int64_t layers,
                      bool) {
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
                    Layers());
    firstDense = *v;
  }
  auto freq = r.size({"moe_layer_freq"}, 1, "MoE layer frequency");
  if (!freq)
    return std::nullopt;
  std::vector<bool> moe(static_cast<size_t>(layers));
  for (int64_t i = 0; i < layers; ++i)
    moe[size_t(i)] = i >= firstDense && i % *freq == 0;
  return moeOrMlp(moe);
}

std::vector<FamilyHooks> &hookTable() {
  static std::vector<FamilyHooks> t = [] {
    std::vector<FamilyHooks> v;
    auto row = [&](const char *type) -> FamilyHooks & {
      v.push_back(FamilyHooks());
      v.back().type = type;
      return v.back();
    };
    row("falcon").kvHeads = falconKv;
    v.back().exportKvHeads = falconExportKv;
    // RefinedWeb writes its n_head_kv key back (the table's).
    for (const char *rw : {"RefinedWeb", "RefinedWebModel"})
      row(rw).kvHeads = refinedWebKv;
    FamilyHooks &mpt = row("mpt");
    mpt.kvHeads = mptKv;
    mpt.exportKvHeads = mptExportKv;
    mpt.innerDefault = mptInner;
    mpt.exportInner = mptExportInner;
    row("chatglm").kvHeads = chatglmKv;
    v.back().exportKvHeads = chatglmExportKv;
    for (const char *q : {"qwen2_moe", "qwen3_moe"})
      row(q).layerPlan = qwenMoeLayers;
    row("llama4").layerPlan = llama4Layers;
    for (const char *d : {"deepseek_v2", "deepseek_v3", "kimi_k2"})
      row(d).layerPlan = deepseekLayers;
    return v;
  }();
  return t;
}
} // namespace

const FamilyHooks &tshape::hf::familyHooks(llvm::StringRef type) {
  static const FamilyHooks none;
  for (const FamilyHooks &h : hookTable())
    if (type == h.type)
      return h;
  return none;
}

std::vector<LayerKind> tshape::hf::uniformLayers(int64_t layers,
                                                 bool experts) {
  return std::vector<LayerKind>(
      size_t(layers),
      LayerKind{{BlockKind::Attention,
                 experts ? BlockKind::Moe : BlockKind::Mlp}});
}

void tshape::hf::registerFamily(TypeSpec spec, FamilyHooks hooks) {
  for (const TypeSpec &s : typeSpecs())
    if (llvm::StringRef(s.type) == spec.type)
      return;
  hooks.type = spec.type;
  hookTable().push_back(hooks);
  addTypeSpec(std::move(spec));
}
