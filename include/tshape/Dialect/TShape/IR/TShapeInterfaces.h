//===- TShapeInterfaces.h - tshape op interfaces ----------------*- C++ -*-===//
//
// The block op interface (TShapeInterfaces.td): the ops that stand for a
// block of the plain-C++ model name it, read the hyperparameters they state
// into a model::ModelConfig and rewrite themselves to another one.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_DIALECT_TSHAPE_IR_TSHAPEINTERFACES_H
#define TSHAPE_DIALECT_TSHAPE_IR_TSHAPEINTERFACES_H

#include "tshape/Model/Params.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"

#include "tshape/Dialect/TShape/IR/TShapeInterfaces.h.inc"

namespace tshape {
/// For readConfig: sets microbatch, seq and hidden of `config` from the
/// `batch x seq x hidden` activations `type`.
void readActivationSizes(model::ModelConfig &config,
                         mlir::RankedTensorType type);
/// For writeConfig: retypes `v` with its last dimension `n` (hidden, or
/// vocab for logits); a no-op when it already is.
void setLastDim(mlir::Value v, int64_t n);
} // namespace tshape

#endif // TSHAPE_DIALECT_TSHAPE_IR_TSHAPEINTERFACES_H
