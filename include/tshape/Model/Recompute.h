//===- Recompute.h - What a selective recompute runs again ------*- C++ -*-===//
//
// The submodules of a decoder layer that a selective activation recompute
// discards in the forward and runs again in the backward: Megatron Core's
// recompute_modules (megatron/core/transformer/transformer_config.py:560
// at Megatron-LM d98e8a64, the commit MegatronArgs.h names). Each is a
// bit; a plan's set is their union. A kernel's role says which modules'
// recompute runs it again (RoleInfo::recomputedBy); a block's activation
// and elementwise hooks say what each module saves and reruns.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_MODEL_RECOMPUTE_H
#define TSHAPE_MODEL_RECOMPUTE_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tshape::model {

/// One recompute module, as Megatron Core names it.
enum class RecomputeModule : uint8_t {
  /// The attention core (scores, softmax, values): Korthikanti et al.
  /// 2022's selective recompute, Megatron's default.
  CoreAttn = 1,
  /// The norms that are modules of their own (output-discarding): an MoE
  /// layer's pre-MLP norm and MLA's input norm. Transformer Engine fuses a
  /// dense layer's norms into the next linear layer (gpt_layer_specs.py:
  /// 295-336), which this does not recompute.
  LayerNorm = 2,
  /// MLA's query and key/value up projections and RoPE (output-discarding).
  MlaUpProj = 4,
  /// The dense MLP, whole (from its input).
  Mlp = 8,
  /// The MoE layer, whole: router, dispatch, experts, combine.
  Moe = 16,
  /// The routed experts' activation function (output-discarding).
  MoeAct = 32,
  /// The shared experts, whole.
  SharedExperts = 64,
};

/// A set of modules: a bit per module.
using RecomputeModules = uint8_t;
/// Every module, and one past the largest set (for tables indexed by set).
inline constexpr RecomputeModules kAllRecomputeModules = 127;
inline constexpr int kRecomputeSets = 128;

inline bool recomputes(RecomputeModules set, RecomputeModule m) {
  return set & RecomputeModules(m);
}

/// "core_attn", "layernorm", "mla_up_proj", "mlp", "moe", "moe_act",
/// "shared_experts".
const char *recomputeModuleName(RecomputeModule m);
/// The set's modules in Megatron Core's order (transformer_config.py:562).
std::vector<RecomputeModule> recomputeModuleList(RecomputeModules set);
/// The set's names in Megatron Core's order, joined by `separator`.
std::string recomputeModulesText(RecomputeModules set,
                                 const char *separator = ",");
/// The set a comma-separated list names ("layernorm,moe_act"); nullopt with
/// `error` set for an unknown name or an empty list.
std::optional<RecomputeModules> parseRecomputeModules(const std::string &list,
                                                      std::string &error);

} // namespace tshape::model

#endif // TSHAPE_MODEL_RECOMPUTE_H
