//===- PassDiagnostics.h - The prefix of a pass's diagnostics ---*- C++ -*-===//
//
// Every diagnostic a tshape pass emits starts with the pass's flag
// ("tshape-pad-gemms: not padded: ..."), so that a remark in a long
// pipeline's output says which pass wrote it. The flag comes from the pass
// itself, never from a copy of its name in a string.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_PASSDIAGNOSTICS_H
#define TSHAPE_PASSDIAGNOSTICS_H

#include "mlir/Pass/Pass.h"

#include <string>

namespace tshape {

/// "<flag>: ", the start of each of `pass`'s diagnostics, from its
/// registered argument (`getArgument()`).
inline std::string passPrefix(const mlir::Pass &pass) {
  return (pass.getArgument() + ": ").str();
}

} // namespace tshape

#endif // TSHAPE_PASSDIAGNOSTICS_H
