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
  model::RunShape run = stated.value_or(model::RunShape{phase, 0});
  if (phase.getNumOccurrences())
    run.phase = phase;
  return run;
}

} // namespace tshape

#endif // TSHAPE_PASSRUNSHAPE_H
