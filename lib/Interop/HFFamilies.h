//===- HFFamilies.h - Family quirks and layer plans of the HF importer -*- C++ -*-===//
//
// What a model_type does beyond naming its keys (HFConfigTypes.h): small
// hooks beside its row, so that the importer and the exporter read and
// write every family in one loop and never compare a model type's name.
// - how it states its key/value heads and its MLP size when not by one key
//   (Falcon's and RefinedWeb's multi_query flags, MPT's attn_config and
//   expansion_ratio, ChatGLM's multi_query_attention), each with its
//   writer;
// - its layer plan: each layer's blocks (Qwen-MoE's decoder_sparse_step,
//   Llama 4's interleave_moe_layer_step, DeepSeek's first_k_dense_replace,
//   a hybrid_override_pattern), by default attention then the MLP, or the
//   MoE block on a type with experts.
// Internal to lib/Interop.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_LIB_INTEROP_HFFAMILIES_H
#define TSHAPE_LIB_INTEROP_HFFAMILIES_H

#include "HFConfigTypes.h"
#include "HFReader.h"

#include <optional>
#include <vector>

namespace tshape::hf {

/// The sizes the writers of a family's quirks read, and whether each
/// changed from the base (always, without one).
struct ExportSizes {
  int64_t heads = 0, kvHeads = 0, hidden = 0, ffn = 0;
  bool kvChanged = true, ffnChanged = true;
  const json::Object *base = nullptr;
};

/// A family's hooks (null: the table's key alone says it).
struct FamilyHooks {
  const char *type = nullptr;
  /// The dense MLP's size when its key is absent (MPT: expansion_ratio x
  /// d_model); nullopt with `r` failed on an error.
  std::optional<int64_t> (*innerDefault)(Reader &r, int64_t hidden) = nullptr;
  /// The key/value heads the family states with flags; nullopt with `r`
  /// failed on an error.
  std::optional<int64_t> (*kvHeads)(const TypeSpec &spec, Reader &r,
                                    int64_t heads) = nullptr;
  /// Writes the key/value heads with their flags (the table's key is then
  /// not written).
  void (*exportKvHeads)(const ExportSizes &s, json::Object &out) = nullptr;
  /// Writes the dense MLP's size (the table's key is then not written).
  void (*exportInner)(const ExportSizes &s, json::Object &out) = nullptr;
  /// Each layer's blocks, `layers` of them; `experts`: the type names
  /// routed experts. nullopt with `r` failed on an error.
  std::optional<std::vector<model::LayerKind>> (*layerPlan)(
      Reader &r, const json::Object &obj, int64_t layers,
      bool experts) = nullptr;
};

/// The hooks of `type`: its row, or one with every hook null.
const FamilyHooks &familyHooks(llvm::StringRef type);

/// The default layer plan: attention then the MLP, or then the MoE block
/// when the type names routed experts, in every layer.
std::vector<model::LayerKind> uniformLayers(int64_t layers, bool experts);

/// A family added outside the tables (a test-only or out-of-tree one): its
/// row (typeSpecs lists it after the built-in ones) and its hooks
/// (`hooks.type` is taken from the row). Call at start-up, before any
/// import; a type already known is left as it is.
void registerFamily(TypeSpec spec, FamilyHooks hooks);

} // namespace tshape::hf

#endif // TSHAPE_LIB_INTEROP_HFFAMILIES_H
