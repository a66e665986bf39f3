//===- HFConfigTypes.cpp - The HF importer's table of model types ---------===//
//
// The rows of HFConfigTypes.h: one per model_type.
//
//===----------------------------------------------------------------------===//

#include "HFConfigTypes.h"

using namespace tshape::model;
using tshape::hf::TypeSpec;
using tshape::hf::WindowLayers;
using tshape::hf::WindowSpec;

namespace {
/// A row with its class defaults of sizes (the fields after `nested`).
TypeSpec withClass(TypeSpec s, std::vector<std::pair<Param, int64_t>> d) {
  s.defaults = std::move(d);
  return s;
}

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
    // Dense types of 2024-2026 (docs/importer.md cites each default).
    // QKV is one GEMM of width (a + 2g) d in every block model, whether a
    // model packs it (Phi-3 qkv_proj, InternLM2 wqkv, ChatGLM
    // query_key_value, Baichuan W_pack, Falcon) or not.
    withClass({"qwen3", {"hidden_size"}, {"num_attention_heads"},
               {"num_hidden_layers"}, {"vocab_size"}, {"intermediate_size"},
               22016, {"num_key_value_heads"}, {"head_dim"}, 128,
               {"hidden_act"}, Activation::SiLU, true, {}, false, false, true},
              {}),
    withClass({"gemma2", {"hidden_size"}, {"num_attention_heads"},
               {"num_hidden_layers"}, {"vocab_size"}, {"intermediate_size"},
               9216, {"num_key_value_heads"}, {"head_dim"}, 256,
               {"hidden_activation", "hidden_act"}, Activation::GELU, true,
               {}, false, true, true},
              {{Param::Heads, 8}, {Param::KvHeads, 4}, {Param::Vocab, 256000}}),
    // Gemma 3: the multimodal config nests the language model's keys in
    // text_config; gemma3_text is the bare language model.
    withClass({"gemma3", {"hidden_size"}, {"num_attention_heads"},
               {"num_hidden_layers"}, {"vocab_size"}, {"intermediate_size"},
               9216, {"num_key_value_heads"}, {"head_dim"}, 256,
               {"hidden_activation", "hidden_act"}, Activation::GELU, true,
               {}, false, true, true, {}, {}, {}, {}, false, {"text_config"}},
              {{Param::Heads, 8}, {Param::KvHeads, 4}, {Param::Vocab, 262208}}),
    withClass({"gemma3_text", {"hidden_size"}, {"num_attention_heads"},
               {"num_hidden_layers"}, {"vocab_size"}, {"intermediate_size"},
               9216, {"num_key_value_heads"}, {"head_dim"}, 256,
               {"hidden_activation", "hidden_act"}, Activation::GELU, true,
               {}, false, true, true},
              {{Param::Heads, 8}, {Param::KvHeads, 4}, {Param::Vocab, 262208}}),
    // Phi-3 and Phi-4: gate_up_proj is one GEMM of width 2f (lower with
    // fuse-gated-mlp for that layout).
    withClass({"phi3", {"hidden_size"}, {"num_attention_heads"},
               {"num_hidden_layers"}, {"vocab_size"}, {"intermediate_size"},
               8192, {"num_key_value_heads"}, {}, 0, {"hidden_act"},
               Activation::SiLU, true, {}, false, false, true},
              {}),
    withClass({"olmo2", {"hidden_size"}, {"num_attention_heads"},
               {"num_hidden_layers"}, {"vocab_size"}, {"intermediate_size"},
               11008, {"num_key_value_heads"}, {}, 0, {"hidden_act"},
               Activation::SiLU, true, {}, false, false, true},
              {}),
    withClass({"granite", {"hidden_size"}, {"num_attention_heads"},
               {"num_hidden_layers"}, {"vocab_size"}, {"intermediate_size"},
               11008, {"num_key_value_heads"}, {"head_dim"}, 0,
               {"hidden_act"}, Activation::SiLU, true, {}, false, false, true},
              {}),
    // Cohere (Command R) and Cohere2: attention and MLP in parallel on one
    // norm's output.
    withClass({"cohere", {"hidden_size"}, {"num_attention_heads"},
               {"num_hidden_layers"}, {"vocab_size"}, {"intermediate_size"},
               22528, {"num_key_value_heads"}, {}, 0, {"hidden_act"},
               Activation::SiLU, true, {}, true, true, true},
              {}),
    withClass({"cohere2", {"hidden_size"}, {"num_attention_heads"},
               {"num_hidden_layers"}, {"vocab_size"}, {"intermediate_size"},
               22528, {"num_key_value_heads"}, {"head_dim"}, 0,
               {"hidden_act"}, Activation::SiLU, true, {}, true, true, true},
              {}),
    withClass({"starcoder2", {"hidden_size"}, {"num_attention_heads"},
               {"num_hidden_layers"}, {"vocab_size"}, {"intermediate_size"},
               12288, {"num_key_value_heads"}, {}, 0, {"hidden_act"},
               Activation::GELU, false, {}, false, true, true},
              {{Param::KvHeads, 2}}),
    withClass({"internlm2", {"hidden_size"}, {"num_attention_heads"},
               {"num_hidden_layers"}, {"vocab_size"}, {"intermediate_size"},
               11008, {"num_key_value_heads"}, {}, 0, {"hidden_act"},
               Activation::SiLU, true, {}, false, false, true},
              {}),
    // MPT: d_model/n_heads/n_layers, attn_config (attn_type, kv_n_heads),
    // the MLP expansion_ratio x d_model unless ffn_config states
    // ffn_hidden_size (HFConfig.cpp); the LM head is the embedding.
    withClass({"mpt", {"d_model"}, {"n_heads"}, {"n_layers"}, {"vocab_size"},
               {"ffn_hidden_size"}, 0, {"kv_n_heads"}, {}, 0, {},
               Activation::GELU, false, {}, false, true, true, {}, {}, {},
               {}, false, {"attn_config", "ffn_config"}},
              {}),
    // Falcon's remote-code form (configuration_RW.py): n_head_kv (40B) or
    // multi_query (7B); parallel_attn.
    withClass({"RefinedWeb", {"hidden_size"}, {"n_head"}, {"n_layer"},
               {"vocab_size"}, {}, 0, {"n_head_kv"}, {}, 0, {},
               Activation::GELU, false, {"parallel_attn"}, false, true, true},
              {}),
    withClass({"RefinedWebModel", {"hidden_size"}, {"n_head"}, {"n_layer"},
               {"vocab_size"}, {}, 0, {"n_head_kv"}, {}, 0, {},
               Activation::GELU, false, {"parallel_attn"}, false, true, true},
              {}),
    // Baichuan (1 and 2): W_pack is the fused QKV; 13B uses ALiBi.
    withClass({"baichuan", {"hidden_size"}, {"num_attention_heads"},
               {"num_hidden_layers"}, {"vocab_size"}, {"intermediate_size"},
               11008, {}, {}, 0, {"hidden_act"}, Activation::SiLU, true, {},
               false, false, true},
              {}),
    // ChatGLM2/3: multi_query_group_num kv heads under
    // multi_query_attention (HFConfig.cpp); dense_h_to_4h is gate and up
    // as one GEMM of width 2f (fuse-gated-mlp).
    withClass({"chatglm", {"hidden_size"}, {"num_attention_heads"},
               {"num_layers"}, {"padded_vocab_size"}, {"ffn_hidden_size"},
               13696, {"multi_query_group_num"}, {"kv_channels"}, 128, {},
               Activation::SiLU, true, {}, false, false, true},
              {{Param::Layers, 28}, {Param::Vocab, 65024},
               {Param::Hidden, 4096}, {Param::Heads, 32}}),
};

// Windows: the key, the class default, which layers (docs/importer.md).
const WindowSpec kWindows[] = {
    {"mistral", {"sliding_window"}, 4096, WindowLayers::All, nullptr, 0},
    {"mixtral", {"sliding_window"}, 0, WindowLayers::All, nullptr, 0},
    {"phi3", {"sliding_window"}, 0, WindowLayers::All, nullptr, 0},
    {"starcoder2", {"sliding_window"}, 0, WindowLayers::All, nullptr, 0},
    {"qwen2", {"sliding_window"}, 4096, WindowLayers::Qwen, nullptr, 0},
    {"qwen2_moe", {"sliding_window"}, 4096, WindowLayers::Qwen, nullptr, 0},
    {"qwen3", {"sliding_window"}, 4096, WindowLayers::Qwen, nullptr, 0},
    {"qwen3_moe", {"sliding_window"}, 4096, WindowLayers::Qwen, nullptr, 0},
    {"gemma2", {"sliding_window"}, 4096, WindowLayers::Pattern, nullptr, 2},
    {"gemma3", {"sliding_window"}, 4096, WindowLayers::Pattern,
     "sliding_window_pattern", 6},
    {"gemma3_text", {"sliding_window"}, 4096, WindowLayers::Pattern,
     "sliding_window_pattern", 6},
    {"cohere2", {"sliding_window"}, 4096, WindowLayers::Pattern,
     "sliding_window_pattern", 4},
    {"gpt_oss", {"sliding_window"}, 128, WindowLayers::Pattern, nullptr, 2},
    // Llama 4: chunked attention on the RoPE layers, no_rope_layers (1:
    // RoPE), by default all but every no_rope_layer_interval-th (4).
    {"llama4", {"attention_chunk_size"}, 8192, WindowLayers::Pattern,
     "no_rope_layer_interval", 4, true},
};
} // namespace

namespace {
std::vector<TypeSpec> &table() {
  static std::vector<TypeSpec> t(std::begin(kSpecs), std::end(kSpecs));
  return t;
}
} // namespace

llvm::ArrayRef<TypeSpec> tshape::hf::typeSpecs() { return table(); }

void tshape::hf::addTypeSpec(TypeSpec spec) {
  table().push_back(std::move(spec));
}

const tshape::hf::WindowSpec *tshape::hf::windowSpec(llvm::StringRef type) {
  for (const WindowSpec &w : kWindows)
    if (type == w.type)
      return &w;
  return nullptr;
}

llvm::ArrayRef<tshape::hf::WindowSpec> tshape::hf::windowSpecs() {
  return kWindows;
}

