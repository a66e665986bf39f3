//===- ModelConfigBridge.h - tshape IR <-> plain-C++ model ------*- C++ -*-===//
//
// Builds tshape IR from a model::ModelConfig, reads a function's model back,
// and rewrites a function to another config. The importer, the shape
// rewrite pass and the exporter all go through here, so that a rewrite pass
// does not depend on the Hugging Face importer.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_DIALECT_TSHAPE_IR_MODELCONFIGBRIDGE_H
#define TSHAPE_DIALECT_TSHAPE_IR_MODELCONFIGBRIDGE_H

#include "tshape/Model/Transformer.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <optional>
#include <string>

namespace tshape {

/// Builds the tshape IR of `config`: a module holding one function that
/// takes `b x s` token ids and returns `b x s x v` logits.
mlir::OwningOpRef<mlir::ModuleOp> buildModelModule(mlir::MLIRContext *ctx,
                                                   const model::ModelConfig &config,
                                                   mlir::Location loc);

/// Whether `fn` holds a tshape model: a residual sub-layer (an op of the
/// block op interface, such as tshape.attention).
bool holdsModel(mlir::func::FuncOp fn);

/// Reads the model of a tshape function back into a ModelConfig through the
/// block op interface (readConfig): every attention op must share one
/// configuration, and so must every MLP, and the embedding and LM head one
/// vocabulary (BlockOpInterface::getConfigGroup); the layer count is the
/// largest number of ops of one residual sub-layer kind, each multiplied by
/// its enclosing repeats. `hasVocab` says whether an embedding or LM head
/// gave the vocabulary. On failure returns nullopt with `error` set.
std::optional<model::ModelConfig>
extractModelConfig(mlir::func::FuncOp fn, bool &hasVocab, std::string &error);

/// Rewrites the tshape ops of `fn` in place to `to` (from `from`) through the
/// block op interface (writeConfig): head counts, head dim, MLP inner size,
/// vocabulary, and the tensor types when hidden or vocab change.
void applyModelConfig(mlir::func::FuncOp fn, const model::ModelConfig &from,
                      const model::ModelConfig &to);

/// The `tshape.architecture` dictionary of `arch`: the fields that differ
/// from the defaults (model::changedArchFields), each as a bool, integer,
/// f64 or string attribute.
mlir::DictionaryAttr architectureAttr(mlir::MLIRContext *ctx,
                                      const model::Architecture &arch);

/// Reads a `tshape.architecture` dictionary (stated = true); false with
/// `error` naming the key on an unknown key, a value of the wrong kind or
/// an unknown choice.
bool parseArchitecture(mlir::DictionaryAttr dict, model::Architecture &arch,
                       std::string &error);

} // namespace tshape

#endif // TSHAPE_DIALECT_TSHAPE_IR_MODELCONFIGBRIDGE_H
