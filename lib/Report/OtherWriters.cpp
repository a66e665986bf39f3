//===- OtherWriters.cpp - Optimization and summary reports ----------------===//
//
// tshape-optimize-shapes' report (schema tshape-optimize/1: per function the
// changes and both sides, each with its full analysis report) and
// tshape-gemm-summary's table, in JSON and Markdown.
//
//===----------------------------------------------------------------------===//

#include "tshape/Report/Writers.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"

#include <cmath>

using namespace tshape;
using namespace tshape::report;

namespace {
double round3(double v) { return std::round(v * 1000) / 1000; }

std::string signedCount(int64_t v) {
  return (v >= 0 ? "+" : "") + std::to_string(v);
}

std::string render(const AnalysisReport &r, bool markdown) {
  std::string s;
  llvm::raw_string_ostream os(s);
  if (markdown)
    writeMarkdown(os, r);
  else
    writeJson(os, r);
  return s;
}

std::string layerRange(const SummaryReport::Group &g) {
  if (g.firstLayer < 0)
    return "-";
  if (g.count == 1)
    return std::to_string(g.firstLayer);
  return std::to_string(g.firstLayer) + ".." + std::to_string(g.lastLayer) +
         " (x" + std::to_string(g.count) + ")";
}
} // namespace

//===----------------------------------------------------------------------===//
// tshape-optimize-shapes
//===----------------------------------------------------------------------===//

void tshape::report::writeChangesJson(
    llvm::json::OStream &j, llvm::StringRef key,
    const std::vector<advise::Change> &changes) {
  j.attributeArray(key, [&] {
    for (const advise::Change &ch : changes)
      j.object([&] {
        j.attribute("parameter", ch.parameter);
        j.attribute("before", ch.before);
        j.attribute("after", ch.after);
        j.attribute("speedup_alone", round3(ch.speedup));
        j.attribute("gain_in_result", round3(ch.gainInResult));
        j.attribute("param_delta", ch.paramDelta);
      });
  });
}

void tshape::report::writeJson(llvm::raw_ostream &os,
                               const OptimizationReport &r) {
  llvm::json::OStream j(os);
  j.object([&] {
    j.attribute("schema", "tshape-optimize/1");
    j.attribute("target", r.target.name);
    j.attributeArray("functions", [&] {
      for (const OptimizationReport::Function &f : r.functions)
        j.object([&] {
          j.attribute("name", f.name);
          writeChangesJson(j, "changes", f.changes);
          writeChangesJson(j, "dropped", f.dropped);
          auto side = [&](const char *key,
                          const OptimizationReport::Side &s) {
            j.attributeObject(key, [&] {
              j.attribute("step_us", round3(s.step.us));
              j.attribute("tflops", round3(s.step.tflops()));
              j.attribute("parameters", s.parameters);
              j.attributeBegin("report");
              j.rawValue(render(s.analysis, false));
              j.attributeEnd();
            });
          };
          side("before", f.before);
          side("after", f.after);
          j.attribute("evaluated", f.evaluated);
          j.attribute("feasible", f.feasible);
          j.attributeArray("bounded", [&] {
            for (const std::string &b : f.bounded)
              j.value(b);
          });
        });
    });
  });
  os << "\n";
}

void tshape::report::writeMarkdown(llvm::raw_ostream &os,
                                   const OptimizationReport &r) {
  os << "# tshape shape optimization: " << r.target.description << "\n\n";
  for (const OptimizationReport::Function &f : r.functions) {
    os << "## @" << f.name << "\n\n" << f.summary << "\n\n";
    if (!f.bounded.empty()) {
      os << "The search stopped at its bound for:";
      for (const std::string &b : f.bounded)
        os << " " << b;
      os << " (the nearest candidates only).\n\n";
    }
    if (f.changes.empty())
      continue;
    os << "| parameter | before | after | speed-up alone | gain in result "
          "| parameter delta |\n| --- | ---: | ---: | ---: | ---: | ---: |\n";
    for (const advise::Change &ch : f.changes)
      os << "| " << ch.parameter << " | " << ch.before << " | " << ch.after
         << " | " << llvm::format("%.3fx", ch.speedup) << " | "
         << llvm::format("%.3fx", ch.gainInResult) << " | "
         << signedCount(ch.paramDelta) << " |\n";
    for (const advise::Change &ch : f.dropped)
      os << "\nDropped: " << ch.parameter << " " << ch.before << " -> "
         << ch.after << " added only "
         << llvm::format("%.3fx", ch.gainInResult) << " to the others for "
         << signedCount(ch.paramDelta) << " parameters.\n";
    os << "\n### Before\n\n"
       << render(f.before.analysis, true) << "\n### After\n\n"
       << render(f.after.analysis, true);
  }
}

//===----------------------------------------------------------------------===//
// tshape-gemm-summary
//===----------------------------------------------------------------------===//

void tshape::report::writeJson(llvm::raw_ostream &os,
                               const SummaryReport &r) {
  llvm::json::OStream j(os, 2);
  j.object([&] {
    j.attribute("schema", "tshape-summary/1");
    j.attributeArray("groups", [&] {
      for (const SummaryReport::Group &g : r.groups)
        j.object([&] {
          j.attribute("role", g.role);
          j.attribute("first_layer", g.firstLayer);
          j.attribute("last_layer", g.lastLayer);
          j.attribute("count", g.count);
          j.attribute("batch", g.batch);
          j.attribute("m", g.m);
          j.attribute("n", g.n);
          j.attribute("k", g.k);
          j.attribute("flops", g.flops);
        });
    });
    j.attribute("gemms", r.gemms);
    j.attribute("flops", r.totalFlops);
    j.attributeObject("skipped", [&] {
      for (auto &[kind, count] : r.skipped)
        j.attribute(kind, count);
    });
  });
  os << "\n";
}

void tshape::report::writeMarkdown(llvm::raw_ostream &os,
                                   const SummaryReport &r) {
  os << "| role | layers | batch | M | N | K | GFLOP (all) | share |\n"
     << "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n";
  for (const SummaryReport::Group &g : r.groups)
    os << "| " << g.role << " | " << layerRange(g) << " | " << g.batch
       << " | " << g.m << " | " << g.n << " | " << g.k << " | "
       << llvm::format("%.1f", g.flops / 1e9) << " | "
       << llvm::format("%.1f%%",
                       r.totalFlops > 0 ? 100.0 * g.flops / r.totalFlops : 0.0)
       << " |\n";
  os << "\n" << r.gemms << " GEMMs, "
     << llvm::format("%.2f", r.totalFlops / 1e12) << " TFLOP in all";
  if (!r.skipped.empty()) {
    os << "; not read as GEMMs:";
    for (size_t i = 0; i < r.skipped.size(); ++i)
      os << (i ? "," : "") << " " << r.skipped[i].second << " "
         << r.skipped[i].first;
  }
  os << "\n";
}
