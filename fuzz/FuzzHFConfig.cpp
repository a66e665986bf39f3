//===- FuzzHFConfig.cpp - libFuzzer target: the HF config importer --------===//
//
// Bytes -> importHFConfig -> (when accepted) the tshape IR builder, the GEMM
// list and the counts. Any crash, hang or sanitizer report is a finding.
//
//===----------------------------------------------------------------------===//

#include "tshape/Dialect/TShape/IR/ModelConfigBridge.h"
#include "tshape/Dialect/TShape/IR/TShapeDialect.h"
#include "tshape/Interop/HFConfig.h"

#include "mlir/IR/MLIRContext.h"

#include <cstdint>
#include <cstddef>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  tshape::ImportOptions options;
  // Small run shapes keep each input cheap; the first byte varies them.
  options.seq = size ? 1 + data[0] % 64 : 8;
  options.microbatch = 1;
  tshape::model::setDegree(options.parallel, tshape::model::Param::Tp,
                           size > 1 ? 1 << (data[1] % 4) : 1);
  tshape::ImportDiagnostic diag;
  auto config = tshape::importHFConfig(text, options, diag);
  if (!config)
    return 0;
  (void)tshape::model::countParameters(*config);
  (void)tshape::model::countFlops(*config, tshape::model::RunShape::train());
  (void)tshape::model::layerKernels(*config, tshape::model::RunShape::train(), 0);
  mlir::MLIRContext ctx;
  ctx.loadDialect<tshape::TShapeDialect, mlir::func::FuncDialect>();
  auto module = tshape::buildModelModule(&ctx, *config,
                                         mlir::UnknownLoc::get(&ctx));
  (void)module;
  return 0;
}
