//===- HFConfig.h - Hugging Face config.json import -------------*- C++ -*-===//
//
// Reads a Hugging Face `config.json` into a tshape::ModelConfig and writes
// one back. Plain C++: the IR <-> ModelConfig bridge is in the dialect
// (ModelConfigBridge.h), Megatron-LM arguments in Megatron.h. The key table
// per model_type is documented in docs/importer.md.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_INTEROP_HFCONFIG_H
#define TSHAPE_INTEROP_HFCONFIG_H

#include "tshape/Model/Transformer.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"

#include <optional>
#include <string>
#include <vector>

namespace tshape {

/// The run shape the config does not say. Defaults are the paper's
/// benchmark setting (b = 4, s = 2048), one rank, bf16.
struct ImportOptions {
  int64_t seq = 2048;
  int64_t microbatch = 4;
  model::Parallelism parallel;
  model::DType dtype = model::DType::BF16;
  std::string name; ///< function name; empty: derived from model_type
  /// Read the keys as this supported model_type's, whatever the file's
  /// model_type says (`--as-model-type`); empty: the file's.
  std::string asModelType;
  /// State attention as one fused kernel, forward and backward
  /// (FlashAttention, cuDNN), as Megatron-LM and the serving engines run
  /// it: the tools' default (`--fused-attention`). Off: the score and
  /// value GEMMs of the unfused form, with their softmax, as the paper's
  /// analysis prices them.
  bool fusedAttention = true;
};

/// Where and why an import failed. Line and column are 1-based; 0 when the
/// problem has no single place in the file.
struct ImportDiagnostic {
  std::string message;
  unsigned line = 0, column = 0;
};

/// The model types the importer knows, in documentation order.
std::vector<std::string> supportedModelTypes();

/// Parses `text` (the contents of a config.json). Returns nullopt and fills
/// `diag` on malformed JSON, a missing or mistyped key, a bad size, an
/// unknown model_type or a model that breaks a structural rule.
std::optional<model::ModelConfig> importHFConfig(llvm::StringRef text,
                                          const ImportOptions &options,
                                          ImportDiagnostic &diag);

/// Every (parameter, key) pair the per-model-type key tables read, for
/// checking them against the vocabulary's HF keys (Params.h).
std::vector<std::pair<model::Param, std::string>> hfKeysInUse();

/// A size a model type's config has no key of its own for: it takes the
/// value of `follows`, stated under `key`. Llama 4 sizes its shared expert
/// with intermediate_size, DeepSeek-V2/V3 (and Kimi-K2) each shared expert
/// with moe_intermediate_size: their shared_ffn is moe_ffn.
struct HFTie {
  model::Param follows;
  std::string key;
};
/// The tie of `p` in `modelType`'s configs; nullopt when `p` is free there
/// (or the type is unknown).
std::optional<HFTie> hfTie(llvm::StringRef modelType, model::Param p);

/// The Hugging Face config of `c` for `modelType`. With `base` (the original
/// config.json), every key of the base is kept and only the keys of changed
/// sizes are rewritten (under the alias the base used). Fails on an unknown
/// model type.
std::optional<llvm::json::Object> exportHFConfig(const model::ModelConfig &c,
                                                 const std::string &modelType,
                                                 const llvm::json::Object *base,
                                                 std::string &error);

} // namespace tshape

#endif // TSHAPE_INTEROP_HFCONFIG_H
