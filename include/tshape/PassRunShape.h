//===- PassRunShape.h - The run shape a pass works under --------*- C++ -*-===//
//
// Passes that emit or price a run (tshape-lower-to-linalg,
// tshape-optimize-shapes) take it from one place: their `phase=` option
// when given on the command line, else the `tshape.run` attribute in force
// (getRunShape), else the option's value (prefill, the forward, unless a
// pipeline set it). The removed `training=true` is answered with an error
// naming its replacement.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_PASSRUNSHAPE_H
#define TSHAPE_PASSRUNSHAPE_H

#include "tshape/Dialect/TShape/IR/ModelConfigBridge.h"
#include "tshape/Dialect/TShape/IR/TShapeDialect.h"
#include "tshape/PassDiagnostics.h"

namespace tshape {

/// The run shape `pass`, with its options `phase` and `training`, uses at
/// `op`; failure, with an error at `op`, when the removed `training=true`
/// was given.
inline mlir::FailureOr<model::RunShape>
passRunShape(const mlir::Pass &pass, mlir::Operation *op,
             const mlir::Pass::Option<model::Phase> &phase, bool training) {
  if (training) {
    mlir::emitError(op->getLoc())
        << passPrefix(pass) << "option 'training' was replaced by 'phase=train' "
        << "(phases: " << model::phaseNames() << ")";
    return mlir::failure();
  }
  std::optional<model::RunShape> stated = getRunShape(op);
  model::RunShape run = stated.value_or(model::RunShape::of(phase, 0, 0));
  if (phase.getNumOccurrences()) {
    run.phase = phase;
    // A training step attends to its own sequence (no cache, no drafts;
    // kept, a prefill chunk's kv length would lower a training step over a
    // cache), and only a decode step verifies drafts.
    if (run.phase == model::Phase::Train)
      run.kvLength = 0;
    if (run.phase != model::Phase::Decode)
      run.draft = 0;
  }
  return run;
}

/// A function's model and the run `pass` prices it under, for the passes
/// that read a model through the IR bridge (tshape-optimize-shapes,
/// tshape-inference-report).
struct PassModel {
  model::ModelConfig config;
  model::RunShape run;
  bool hasVocab = false; ///< an embedding or LM head gave the vocabulary
};

/// The model of `fn` (extractModelConfig) and its run (passRunShape);
/// failure, with an error at `fn`, when either cannot be read.
inline mlir::FailureOr<PassModel>
passModel(const mlir::Pass &pass, mlir::func::FuncOp fn,
          const mlir::Pass::Option<model::Phase> &phase, bool training) {
  PassModel m;
  std::string err;
  std::optional<model::ModelConfig> c = extractModelConfig(fn, m.hasVocab, err);
  if (!c) {
    fn.emitError() << passPrefix(pass) << err;
    return mlir::failure();
  }
  mlir::FailureOr<model::RunShape> run = passRunShape(pass, fn, phase, training);
  if (mlir::failed(run))
    return mlir::failure();
  m.config = std::move(*c);
  m.run = *run;
  return m;
}

/// Runs `body` on the model (passModel) of every function of `module` that
/// holds one; failure, after visiting them all, when a model could not be
/// read or `body` failed (each diagnosed at its function).
inline mlir::LogicalResult forEachPassModel(
    const mlir::Pass &pass, mlir::ModuleOp module,
    const mlir::Pass::Option<model::Phase> &phase, bool training,
    llvm::function_ref<mlir::LogicalResult(mlir::func::FuncOp, PassModel &)>
        body) {
  bool failedAny = false;
  for (mlir::func::FuncOp fn : module.getOps<mlir::func::FuncOp>()) {
    if (!holdsModel(fn))
      continue;
    mlir::FailureOr<PassModel> m = passModel(pass, fn, phase, training);
    failedAny |= mlir::failed(m) || mlir::failed(body(fn, *m));
  }
  return mlir::failure(failedAny);
}

} // namespace tshape

#endif // TSHAPE_PASSRUNSHAPE_H
