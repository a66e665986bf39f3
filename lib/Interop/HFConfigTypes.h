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
};

/// The table, in documentation order.
llvm::ArrayRef<TypeSpec> typeSpecs();

} // namespace tshape::hf

#endif // TSHAPE_LIB_INTEROP_HFCONFIGTYPES_H
