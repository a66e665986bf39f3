//===- HFConfigTypes.h - The HF importer's table of model types -*- C++ -*-===//
//
// One row per model_type: how it names its hyperparameters (with aliases)
// and the documented defaults of its configuration class. Internal to
// lib/Interop: HFConfig.cpp reads and writes configs through it, and
// docs/importer.md mirrors it.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_LIB_INTEROP_HFCONFIGTYPES_H
#define TSHAPE_LIB_INTEROP_HFCONFIGTYPES_H

#include "tshape/Model/Transformer.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <vector>

namespace tshape::hf {

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
  model::Activation activationDefault;
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
  // The dense types of issue 24 set these with `withClass` (HFConfigTypes.cpp).
  /// Class defaults of sizes a sparse config leaves out (Gemma 3's head
  /// counts), each from the transformers configuration class.
  std::vector<std::pair<model::Param, int64_t>> defaults = {};
  // Multi-head latent attention (DeepSeek-V2/V3; empty: none): its keys,
  // read by readMla. The query latent is optional (null or absent: none).
  Keys qLoraRank = {}, kvLoraRank = {}, qkNopeDim = {}, qkRopeDim = {},
       vHeadDim = {};
  /// The number of shared experts, each of the routed experts' inner size
  /// (DeepSeek's n_shared_experts).
  Keys sharedCount = {};
};

/// How a model_type states an attention window, and which layers use it
/// (transformers' modeling code). A table of its own so that the rows of
/// kSpecs stay as they are.
enum class WindowLayers : uint8_t {
  All,     ///< every layer (Mistral, StarCoder2, Phi-3)
  Pattern, ///< layer i windowed unless (i + 1) % pattern == 0 (Gemma,
           ///< Cohere2, gpt-oss, Llama 4), or as `layer_types` lists
  Qwen,    ///< use_sliding_window, then layers i >= max_window_layers
};
struct WindowSpec {
  const char *type;
  Keys keys;             ///< the window's key (null: no window)
  int64_t keyDefault;    ///< the class default when the key is absent
  WindowLayers layers;
  const char *patternKey; ///< Pattern: the period's key (nullptr: fixed)
  int64_t patternDefault;
  bool chunked = false;   ///< aligned chunks (Llama 4), not a sliding band
};
/// The window row of `type`, or nullptr (no window).
const WindowSpec *windowSpec(llvm::StringRef type);
/// Every window row (hfKeysInUse).
llvm::ArrayRef<WindowSpec> windowSpecs();

/// The table, in documentation order, then the rows registered
/// (registerFamily, HFFamilies.h).
llvm::ArrayRef<TypeSpec> typeSpecs();
/// Appends a row (registerFamily's).
void addTypeSpec(TypeSpec spec);

} // namespace tshape::hf

#endif // TSHAPE_LIB_INTEROP_HFCONFIGTYPES_H
