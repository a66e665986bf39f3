//===- TargetResolution.h - Pick the GPU a pass models ----------*- C++ -*-===//
//
// Shared by every pass with target= and target-file= options.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_ANALYSIS_TARGETRESOLUTION_H
#define TSHAPE_ANALYSIS_TARGETRESOLUTION_H

#include "tshape/Target/GpuTarget.h"

#include "mlir/IR/BuiltinOps.h"

namespace tshape {
/// The target: `file` if set, else `name`, else the module's tshape.target,
/// else h100-sxm. Emits an error prefixed with `pass` and returns nullopt
/// when the name is unknown or the file is bad.
std::optional<target::GpuTarget> resolveTarget(mlir::ModuleOp module,
                                               llvm::StringRef pass,
                                               const std::string &name,
                                               const std::string &file);
} // namespace tshape

#endif // TSHAPE_ANALYSIS_TARGETRESOLUTION_H
