//===- InferenceReport.cpp - tshape-inference-report ----------------------===//
//
// Thin driver: reads each function's model and run, prices one serving
// step (Cost/Inference.h), gathers its findings (Advise/InferenceFindings.h
// and the analysis' own on the step's GEMMs), states the summary in a
// remark and writes the report (Report/InferenceReport.h).
//
//===----------------------------------------------------------------------===//

#include "tshape/Advise/ShapeSearch.h"
#include "tshape/Analysis/TargetResolution.h"
#include "tshape/Dialect/TShape/IR/ModelConfigBridge.h"
#include "tshape/PassRunShape.h"
#include "tshape/Report/InferenceReport.h"
#include "tshape/Report/Writers.h"
#include "tshape/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace tshape {
#define GEN_PASS_DEF_TSHAPEINFERENCEREPORT
#include "tshape/Transforms/Passes.h.inc"
} // namespace tshape

using namespace mlir;
using namespace tshape;

namespace {
struct TShapeInferenceReportPass
    : public tshape::impl::TShapeInferenceReportBase<
          TShapeInferenceReportPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::optional<target::GpuTarget> tgt =
        resolveTarget(module, getArgument(), targetName, targetFile);
    if (!tgt)
      return signalPassFailure();
    cost::InferenceOptions options;
    if (!clusterName.empty()) {
      options.cluster = cost::findBuiltinCluster(clusterName);
      if (!options.cluster) {
        emitError(module.getLoc())
            << passPrefix(*this) << "unknown cluster '"
            << clusterName.getValue()
            << "' (built-in: " << cost::builtinClusterNames() << ")";
        return signalPassFailure();
      }
    }
    if (prefillChunk < 0) {
      emitError(module.getLoc())
          << passPrefix(*this) << "prefill-chunk must be >= 0, got "
          << prefillChunk.getValue();
      return signalPassFailure();
    }
    options.prefillChunk = prefillChunk;

    report::InferenceReport rep;
    rep.target = *tgt;
    LogicalResult result = forEachPassModel(
        *this, module, phase, training,
        [&](func::FuncOp fn, PassModel &pm) -> LogicalResult {
      const model::ModelConfig *c = &pm.config;
      const model::RunShape *run = &pm.run;
      std::string err;
      std::optional<cost::InferenceEstimate> est =
          cost::estimateInference(*c, *run, *tgt, options, err);
      if (!est) {
        fn.emitError() << passPrefix(*this) << err;
        return failure();
      }
      report::InferenceReport::Function f;
      f.name = fn.getName().str();
      f.config = *c;
      f.estimate = *est;
      f.findings = advise::inferenceFindings(*c, *run, *tgt, options, *est);
      // Alignment and the other shape causes at the step's small M: the
      // analysis' findings on the step's GEMMs.
      f.shapeFindings =
          report::analyze(*tgt, 0.1, advise::recordsFor(*c, *run), 0).findings;
      fn.emitRemark() << passPrefix(*this) << report::summaryLine(f, *tgt);
      // One model priced: its kernel rows, and the findings the report
      // lists (the step's own, then the shape findings on its GEMMs).
      ++numModels;
      numKernels += f.estimate.kernels.size();
      numFindings += f.findings.size() + f.shapeFindings.size();
      rep.functions.push_back(std::move(f));
      return success();
    });
    if (failed(result))
      return signalPassFailure();
    if (report.empty())
      return markAllAnalysesPreserved();
    if (llvm::Error e = report::writeReport(report, rep)) {
      emitError(module.getLoc())
          << passPrefix(*this) << llvm::toString(std::move(e));
      return signalPassFailure();
    }
    markAllAnalysesPreserved();
  }
};
} // namespace
