//===- OptimizeShapes.cpp - tshape-optimize-shapes ------------------------===//
//
// Thin driver: reads each function's model, runs the plain-C++ search
// (ShapeSearch.h), rewrites the tshape ops in place, explains every change
// in a remark and writes the before/after report.
//
//===----------------------------------------------------------------------===//

#include "tshape/Analysis/ShapeSearch.h"
#include "tshape/Analysis/TargetResolution.h"
#include "tshape/Dialect/TShape/IR/TShapeOps.h"
#include "tshape/Dialect/TShape/IR/ModelConfigBridge.h"
#include "tshape/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/ToolOutputFile.h"

namespace tshape {
#define GEN_PASS_DEF_TSHAPEOPTIMIZESHAPES
#include "tshape/Transforms/Passes.h.inc"
} // namespace tshape

using namespace mlir;
using namespace tshape;
using namespace tshape::analysis;

namespace {

std::string signedCount(int64_t v) {
  return (v >= 0 ? "+" : "") + std::to_string(v);
}

/// The analysis report of a whole model, rendered as JSON or Markdown.
std::string renderReport(const target::GpuTarget &t,
                         const model::ModelConfig &c, bool training,
                         bool markdown) {
  std::vector<GemmRecord> records = recordsFor(c, training);
  ShapeAnalysis a(t, 0.1);
  a.analyze(records);
  Totals totals = a.totals(records);
  std::vector<Finding> findings = a.findings(records);
  std::string s;
  llvm::raw_string_ostream os(s);
  if (markdown)
    a.writeMarkdown(os, records, totals, findings, 0);
  else
    a.writeJson(os, records, totals, findings, 0);
  return s;
}

struct TShapeOptimizeShapesPass
    : public tshape::impl::TShapeOptimizeShapesBase<TShapeOptimizeShapesPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SearchOptions so;
    so.paramTolerance = paramTolerance;
    so.training = training;
    so.minGain = minGain;
    so.minHeadDim = minHeadDim;
    so.maxHeadDim = maxHeadDim;
    if (!vary.empty())
      so.vary = std::set<std::string>(vary.begin(), vary.end());
    if (minGain < 0) {
      emitError(module.getLoc())
          << "tshape-optimize-shapes: min-gain must be >= 0, got "
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
        emitError(module.getLoc()) << "tshape-optimize-shapes: " << err;
        return signalPassFailure();
      }
    }

    std::string jsonFunctions, markdown;
    bool failedAny = false;
    for (func::FuncOp fn : module.getOps<func::FuncOp>()) {
      bool hasTShape = false;
      fn.walk([&](tshape::AttentionOp) { hasTShape = true; });
      if (!hasTShape)
        continue;
      bool hasVocab = false;
      std::string err;
      std::optional<model::ModelConfig> c =
          extractModelConfig(fn, hasVocab, err);
      if (!c) {
        fn.emitError() << "tshape-optimize-shapes: " << err;
        failedAny = true;
        continue;
      }
      SearchOptions fo = so;
      if (!hasVocab)
        fo.vary.erase(model::paramName(model::Param::Vocab));
      std::optional<SearchResult> res = search.search(*c, fo, err);
      if (!res) {
        fn.emitError() << "tshape-optimize-shapes: " << err;
        failedAny = true;
        continue;
      }
      std::string summary;
      llvm::raw_string_ostream ss(summary);
      ss << "tshape-optimize-shapes on " << tgt->name << ": "
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
          ms << "tshape-optimize-shapes: " << ch.parameter << " "
             << ch.before << " -> " << ch.after << ": ";
          if (ch.speedup > 0)
            ms << llvm::format("%.3fx", ch.speedup)
               << " predicted step throughput alone";
          else
            ms << "feasible only with the other changes";
          ms << ", " << signedCount(ch.paramDelta) << " parameters ("
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
        continue;
      // Report sections.
      std::string js;
      llvm::raw_string_ostream jo(js);
      llvm::json::OStream j(jo);
      j.object([&] {
        j.attribute("name", fn.getName());
        j.attributeArray("changes", [&] {
          for (const Change &ch : res->changes)
            j.object([&] {
              j.attribute("parameter", ch.parameter);
              j.attribute("before", ch.before);
              j.attribute("after", ch.after);
              j.attribute("speedup_alone",
                          std::round(ch.speedup * 1000) / 1000);
              j.attribute("param_delta", ch.paramDelta);
            });
        });
        auto side = [&](const char *key, const StepPrediction &p,
                        int64_t params, const model::ModelConfig &mc) {
          j.attributeObject(key, [&] {
            j.attribute("step_us", std::round(p.us * 1000) / 1000);
            j.attribute("tflops", std::round(p.tflops() * 1000) / 1000);
            j.attribute("parameters", params);
            j.attributeBegin("report");
            j.rawValue(renderReport(*tgt, mc, training, false));
            j.attributeEnd();
          });
        };
        side("before", res->predBefore, res->paramsBefore, res->before);
        side("after", res->predAfter, res->paramsAfter, res->after);
        j.attribute("evaluated", res->evaluated);
        j.attribute("feasible", res->feasible);
      });
      jsonFunctions += (jsonFunctions.empty() ? "" : ",\n") + js;
      markdown += "## @" + fn.getName().str() + "\n\n" + summary + "\n\n";
      if (!res->changes.empty()) {
        markdown += "| parameter | before | after | speed-up alone | "
                    "parameter delta |\n| --- | ---: | ---: | ---: | ---: |\n";
        for (const Change &ch : res->changes) {
          char row[200];
          snprintf(row, sizeof(row), "| %s | %lld | %lld | %.3fx | %s |\n",
                   ch.parameter.c_str(), (long long)ch.before,
                   (long long)ch.after, ch.speedup,
                   signedCount(ch.paramDelta).c_str());
          markdown += row;
        }
        markdown += "\n### Before\n\n" +
                    renderReport(*tgt, res->before, training, true) +
                    "\n### After\n\n" +
                    renderReport(*tgt, res->after, training, true);
      }
    }
    if (failedAny)
      return signalPassFailure();
    if (report.empty())
      return;
    std::string err;
    auto file = openOutputFile(report, &err);
    if (!file) {
      emitError(module.getLoc())
          << "tshape-optimize-shapes: cannot open report '"
          << report.getValue() << "': " << err;
      return signalPassFailure();
    }
    if (report == "-" || StringRef(report).ends_with(".md"))
      file->os() << "# tshape shape optimization: " << tgt->description
                 << "\n\n"
                 << markdown;
    else
      file->os() << "{\"schema\": \"tshape-optimize/1\", \"target\": \""
                 << tgt->name << "\", \"functions\": [\n"
                 << jsonFunctions << "\n]}\n";
    file->keep();
  }
};
} // namespace
