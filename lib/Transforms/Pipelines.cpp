//===- Pipelines.cpp - tshape pass pipelines ------------------------------===//
//
// The registered pipelines, built from the passes' own options.
//
//===----------------------------------------------------------------------===//

#include "tshape/Transforms/Pipelines.h"
#include "tshape/Analysis/Passes.h"
#include "tshape/Conversion/Passes.h"

#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

void tshape::buildAnalyzeModelPipeline(OpPassManager &pm,
                                       const AnalyzeModelOptions &o) {
  TShapeLowerToLinalgOptions lower;
  lower.phase = o.phase;
  // The lowering answers the removed option with an error naming phase=.
  lower.training = o.training;
  pm.addPass(createTShapeLowerToLinalg(lower));
  TShapeGemmAnalysisOptions analysis;
  analysis.targetName = o.target;
  analysis.report = o.report;
  analysis.threshold = o.threshold;
  pm.addPass(createTShapeGemmAnalysis(analysis));
}

void tshape::registerTShapePipelines() {
  PassPipelineRegistration<AnalyzeModelOptions>(
      "tshape-analyze-model",
      "lower tshape IR to linalg GEMMs and analyze them on a GPU target",
      buildAnalyzeModelPipeline);
}
