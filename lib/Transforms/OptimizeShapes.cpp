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
    so.activeTolerance = activeTolerance;
    so.minGain = minGain;
    so.minHeadDim = minHeadDim;
    so.maxHeadDim = maxHeadDim;
    if (!vary.empty())
      so.vary = std::set<std::string>(vary.begin(), vary.end());
    {
      std::string err;
      if (!parsePhaseMix(std::vector<std::string>(phaseMix.begin(),
                                                  phaseMix.end()),
                         so.mix, err)) {
        emitError(module.getLoc()) << passPrefix(*this) << err;
        return signalPassFailure();
      }
    }
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
      if (run->precision && !tgt->supports(*run->precision)) {
        fn.emitError() << passPrefix(*this) << "precision "
                       << precisionName(*run->precision)
                       << " is not supported on " << tgt->name
                       << " (it supports " << tgt->precisionList()
                       << "): use one of those, or a target that has it";
        return failure();
      }
      if (!fo.mix.empty() && run->phase != model::Phase::Prefill) {
        fn.emitError() << passPrefix(*this)
                       << "phase-mix prices a request from its prompt: the "
                          "run must be a prefill (import with "
                          "--phase=prefill --seq=PROMPT), got "
                       << model::phaseName(run->phase);
        return failure();
      }
      if (vary.empty())
        fo.vary = defaultVary(*c);
      if (!hasVocab)
        fo.vary.erase(model::paramName(model::Param::Vocab));
      std::optional<SearchResult> res = search.search(*c, fo, err);
      if (!res) {
        fn.emitError() << passPrefix(*this) << err;
        return failure();
      }
      numEvaluated += res->evaluated;
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
           << llvm::format("%.1f%%", 100 * std::max(0.0, res->bestGain));
        // Its changes that each earn their place may gain less than it.
        if (res->bestGain >= minGain.getValue())
          ss << ", but its changes that each add min-gain gain "
             << llvm::format("%.1f%%", 100 * std::max(0.0, res->prunedGain));
        ss << ", below min-gain "
           << llvm::format("%.1f%%", 100 * minGain.getValue());
        fn.emitRemark(ss.str());
      } else {
        applyModelConfig(fn, res->before, res->after);
        ++numRewritten;
        numChanged += res->changes.size();
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
        if (fo.mix.empty())
          ss << llvm::format("predicted step %.1f -> %.1f us, %.0f -> %.0f "
                             "TFLOP/s (%.3fx); ",
                             res->predBefore.us, res->predAfter.us,
                             res->predBefore.tflops(),
                             res->predAfter.tflops(),
                             res->predAfter.tflops() /
                                 res->predBefore.tflops());
        else
          ss << llvm::format("predicted request (the phase-mix's steps) "
                             "%.1f -> %.1f us, %.2f -> %.2f requests/s "
                             "(%.3fx); ",
                             res->predBefore.us, res->predAfter.us,
                             1e6 / res->predBefore.us,
                             1e6 / res->predAfter.us,
                             res->predBefore.us / res->predAfter.us);
        ss << "parameters " << res->paramsBefore << " -> " << res->paramsAfter
           << " ("
           << llvm::format("%+.3f%%", 100.0 *
                                          (res->paramsAfter -
                                           res->paramsBefore) /
                                          res->paramsBefore)
           << ")";
        fn.emitRemark(ss.str());
      }
      // Which budget bound: one that rejected a candidate faster than the
      // result, by more than min-gain over the original.
      const double rateBefore =
          objectiveRate(res->predBefore, res->before, fo);
      const double resultGain =
          res->changes.empty() || rateBefore <= 0
              ? 0.0
              : objectiveRate(res->predAfter, res->after, fo) / rateBefore -
                    1;
      for (auto [budget, what, option, tolerance] :
           {std::tuple<const SearchResult::Budget *, const char *,
                       const char *, double>{&res->total, "total",
                                             "param-tolerance",
                                             paramTolerance},
            {&res->active, "active", "active-param-tolerance",
             activeTolerance}})
        if (budget->rejected > 0 &&
            budget->bestGain > std::max<double>(resultGain, minGain) + 1e-9) {
          std::string m;
          llvm::raw_string_ostream ms(m);
          ms << passPrefix(*this) << "the " << what
             << "-parameter budget bound the search: " << option << " "
             << llvm::format("%.1f%%", 100 * tolerance) << " rejected "
             << budget->rejected << " candidates, the best of them "
             << llvm::format("%.3fx", 1 + budget->bestGain)
             << " the original's throughput (the result: "
             << llvm::format("%.3fx", 1 + resultGain) << "); raise " << option
             << " to consider them";
          fn.emitRemark(ms.str());
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
