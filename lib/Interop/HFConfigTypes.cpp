//===- HFConfigTypes.cpp - The HF importer's table of model types ---------===//
//
// The rows of HFConfigTypes.h: one per model_type.
//
//===----------------------------------------------------------------------===//

#include "HFConfigTypes.h"

using namespace tshape::model;
using tshape::hf::TypeSpec;

namespace {
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
    // Multi-head latent attention (DeepSeek-V2/V3, and Kimi-K2 with
    // DeepSeek-V3's architecture) is not built yet.
    {"deepseek_v2", {"hidden_size"}, {"num_attention_heads"},
     {"num_hidden_layers"}, {"vocab_size"}, {}, 0, {}, {}, 0, {}, Activation::SiLU, true, {},
     false, false, true, {}, {}, {}, {}, false, {}, "kv_lora_rank",
     "multi-head latent attention (kv_lora_rank) is not supported yet"},
    {"deepseek_v3", {"hidden_size"}, {"num_attention_heads"},
     {"num_hidden_layers"}, {"vocab_size"}, {}, 0, {}, {}, 0, {}, Activation::SiLU, true, {},
     false, false, true, {}, {}, {}, {}, false, {}, "kv_lora_rank",
     "multi-head latent attention (kv_lora_rank) is not supported yet"},
    {"kimi_k2", {"hidden_size"}, {"num_attention_heads"},
     {"num_hidden_layers"}, {"vocab_size"}, {}, 0, {}, {}, 0, {}, Activation::SiLU, true, {},
     false, false, true, {}, {}, {}, {}, false, {}, "kv_lora_rank",
     "multi-head latent attention (kv_lora_rank) is not supported yet"},
};

} // namespace

llvm::ArrayRef<TypeSpec> tshape::hf::typeSpecs() { return kSpecs; }
