//===- OptimizeShapes.cpp - tshape-optimize-shapes ------------------------===//
//
// Thin driver: reads each function's model, runs the plain-C++ search
// (ShapeSearch.h), rewrites the tshape ops in place, explains every change
// in a remark and writes the before/after report.
//
//===----------------------------------------------------------------------===//

#include "tshape/Advise/Neighbourhood.h"
#include "tshape/Advise/ShapeSearch.h"
#include "tshape/Report/Writers.h"
#include "tshape/Analysis/TargetResolution.h"
#include "tshape/Dialect/TShape/IR/TShapeOps.h"
#include "tshape/Dialect/TShape/IR/ModelConfigBridge.h"
#include "tshape/Transforms/Passes.h"
#include "tshape/PassRunShape.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"

namespace tshape {
#define GEN_PASS_DEF_TSHAPEOPTIMIZESHAPES
#include "tshape/Transforms/Passes.h.inc"
} // namespace tshape

using namespace mlir;
using namespace tshape;
using namespace tshape::cost;
using namespace tshape::advise;

namespace {

std::string signedCount(int64_t v) {
  return (v >= 0 ? "+" : "") + std::to_string(v);
}

/// One side (before or after) of a function's optimization.
report::OptimizationReport::Side side(const target::GpuTarget &t,
                                      const model::ModelConfig &c,
                                      const StepPrediction &step,
                                      int64_t parameters,
                                      const model::RunShape &run) {
  report::OptimizationReport::Side s;
  s.step = step;
  s.parameters = parameters;
  s.analysis = report::analyze(t, 0.1, recordsFor(c, run), 0);
  return s;
}

struct TShapeOptimizeShapesPass
    : public tshape::impl::TShapeOptimizeShapesBase<TShapeOptimizeShapesPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SearchOptions so;
    so.paramTolerance = paramTolerance;
    so.minGain = minGain;
    so.minHeadDim = minHeadDim;
    so.maxHeadDim = maxHeadDim;
    if (!vary.empty())
      so.vary = std::set<std::string>(vary.begin(), vary.end());
    if (minGain < 0) {
      emitError(module.getLoc())
          << passPrefix(*this) << "min-gain must be >= 0, got "
          << minGain.getValue();
      return signalPassFailure();
    }
    std::optional<target::GpuTarget> tgt =
        resolveTarget(module, getArgument(), targetName, targetFile);
    if (!tgt)
      return signalPassFailure();
    ShapeSearch search(*tgt);
    {
      std::string err;
      if (!validateSearchOptions(so, err)) {
        emitError(module.getLoc()) << passPrefix(*this) << err;
        return signalPassFailure();
      }
    }

    report::OptimizationReport rep;
    rep.target = *tgt;
    LogicalResult result = forEachPassModel(
        *this, module, phase, training,
        [&](func::FuncOp fn, PassModel &pm) -> LogicalResult {
      const bool hasVocab = pm.hasVocab;
      const model::ModelConfig *c = &pm.config;
      const model::RunShape *run = &pm.run;
      std::string err;
      SearchOptions fo = so;
      fo.run = *run;
      if (!hasVocab)
        fo.vary.erase(model::paramName(model::Param::Vocab));
      std::optional<SearchResult> res = search.search(*c, fo, err);
      if (!res) {
        fn.emitError() << passPrefix(*this) << err;
        return failure();
      }
      if (!res->bounded.empty()) {
        std::string names;
        for (const std::string &n : res->bounded)
          names += (names.empty() ? "" : ", ") + n;
        fn.emitRemark() << passPrefix(*this)
                        << "the search stopped at its bound: the candidates of "
                        << names << " are the " << kMaxCandidates
                        << " values nearest the current one";
      }
      std::string summary;
      llvm::raw_string_ostream ss(summary);
      ss << getArgument() << " on " << tgt->name << ": "
         << res->evaluated << " shapes evaluated, " << res->feasible
         << " feasible; ";
      if (res->changes.empty()) {
        ss << "kept: the best feasible shape gains "
           << llvm::format("%.1f%%", 100 * std::max(0.0, res->bestGain))
           << ", below min-gain "
           << llvm::format("%.1f%%", 100 * minGain.getValue());
        fn.emitRemark(ss.str());
      } else {
        applyModelConfig(fn, res->before, res->after);
        for (const Change &ch : res->changes) {
          std::string m;
          llvm::raw_string_ostream ms(m);
          ms << passPrefix(*this) << ch.parameter << " "
             << ch.before << " -> " << ch.after << ": ";
          if (ch.speedup > 0)
            ms << llvm::format("%.3fx", ch.speedup)
               << " predicted step throughput alone";
          else
            ms << "feasible only with the other changes";
          ms << ", " << signedCount(ch.paramDelta) << " parameters ("
             << llvm::format("%+.3f%%",
                             100.0 * ch.paramDelta / res->paramsBefore)
             << "); ";
          if (ch.gainInResult <= 0)
            ms << "needed by the other changes";
          else
            ms << llvm::format("%.3fx", ch.gainInResult)
               << " added to the other changes";
          if (ch.gainInResult > 0 && ch.gainInResult < 1 + minGain &&
              ch.aligns)
            ms << " (below min-gain, kept: it puts " << ch.parameter
               << " on the target's best alignment of "
               << tgt->bestAlignBytes << " bytes)";
          fn.emitRemark(ms.str());
        }
        for (const Change &ch : res->dropped) {
          std::string m;
          llvm::raw_string_ostream ms(m);
          ms << passPrefix(*this) << ch.parameter << " " << ch.before
             << " -> " << ch.after << " dropped: it adds only "
             << llvm::format("%.3fx", ch.gainInResult)
             << " to the other changes, below min-gain "
             << llvm::format("%.1f%%", 100 * minGain.getValue()) << ", for "
             << signedCount(ch.paramDelta) << " parameters ("
             << llvm::format("%+.3f%%",
                             100.0 * ch.paramDelta / res->paramsBefore)
             << ")";
          fn.emitRemark(ms.str());
        }
        ss << llvm::format("predicted step %.1f -> %.1f us, %.0f -> %.0f "
                           "TFLOP/s (%.3fx); ",
                           res->predBefore.us, res->predAfter.us,
                           res->predBefore.tflops(), res->predAfter.tflops(),
                           res->predAfter.tflops() / res->predBefore.tflops())
           << "parameters " << res->paramsBefore << " -> " << res->paramsAfter
           << " ("
           << llvm::format("%+.3f%%", 100.0 *
                                          (res->paramsAfter -
                                           res->paramsBefore) /
                                          res->paramsBefore)
           << ")";
        fn.emitRemark(ss.str());
      }
      if (report.empty())
        return success();
      report::OptimizationReport::Function f;
      f.name = fn.getName().str();
      f.summary = summary;
      f.changes = res->changes;
      f.dropped = res->dropped;
      f.evaluated = res->evaluated;
      f.feasible = res->feasible;
      f.bounded = res->bounded;
      f.before = side(*tgt, res->before, res->predBefore, res->paramsBefore,
                      *run);
      f.after = side(*tgt, res->after, res->predAfter, res->paramsAfter,
                     *run);
      rep.functions.push_back(std::move(f));
      return success();
    });
    if (failed(result))
      return signalPassFailure();
    if (report.empty())
      return;
    if (llvm::Error err = report::writeReport(report, rep)) {
      emitError(module.getLoc())
          << passPrefix(*this) << llvm::toString(std::move(err));
      return signalPassFailure();
    }
  }
};
} // namespace
