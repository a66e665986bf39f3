//===- FuzzPipeline.cpp - libFuzzer target: IR through the passes ---------===//
//
// Bytes -> parse as MLIR -> verify -> a pipeline of tshape passes chosen by
// the input's first byte: lower (forward or training), analyze, optimize
// shapes, pad GEMMs. Parse and pass failures are fine; crashes, hangs and
// sanitizer reports are findings.
//
//===----------------------------------------------------------------------===//

#include "tshape/InitAll.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  const uint8_t choice = data[0];
  // MLIR's lexer reads to a terminating NUL: parse a NUL-terminated copy
  // (the fuzzer's buffer has none).
  std::string text(reinterpret_cast<const char *>(data + 1), size - 1);
  mlir::DialectRegistry registry;
  tshape::registerAllDialects(registry);
  mlir::MLIRContext ctx(registry);
  ctx.printOpOnDiagnostic(false);
  ctx.getDiagEngine().registerHandler([](mlir::Diagnostic &) {});
  ctx.allowUnregisteredDialects();
  auto module = mlir::parseSourceString<mlir::ModuleOp>(text, &ctx);
  if (!module)
    return 0;
  mlir::PassManager pm(&ctx);
  tshape::TShapeLowerToLinalgOptions lower;
  lower.phase = choice & 1 ? tshape::model::Phase::Train : tshape::model::Phase::Prefill;
  lower.fuseGatedMlp = choice & 2;
  lower.maxLayers = 64; // bounded work per input
  if (choice & 4) {
    tshape::TShapeOptimizeShapesOptions opt;
    pm.addPass(tshape::createTShapeOptimizeShapes(opt));
  }
  pm.addPass(tshape::createTShapeLowerToLinalg(lower));
  tshape::TShapeGemmAnalysisOptions analysis;
  analysis.remarks = tshape::AnalysisRemarks::None;
  pm.addPass(tshape::createTShapeGemmAnalysis(analysis));
  if (choice & 8) {
    tshape::TShapePadGemmsOptions pad;
    pad.force = choice & 16;
    pm.addPass(tshape::createTShapePadGemms(pad));
  }
  (void)pm.run(*module);
  return 0;
}
