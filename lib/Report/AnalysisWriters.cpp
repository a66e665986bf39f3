//===- AnalysisWriters.cpp - JSON and Markdown analysis reports -----------===//
//
// The report formats of docs/report-schema.md: JSON for programs, Markdown
// for people. Both render one AnalysisReport.
//
//===----------------------------------------------------------------------===//

#include "tshape/Report/Writers.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"

#include <map>

using namespace tshape;
using namespace tshape::cost;
using namespace tshape::advise;
using namespace tshape::report;

namespace {
const char *bound(const KernelRecord &r) {
  if (r.fused() && r.estimate.attention.supported)
    return "fused";
  if (r.estimate.communication)
    return "communication";
  return r.estimate.memoryBound ? "memory" : "compute";
}

/// Its FLOPs as the report's column states them: a GEMM's 2 x batch x M x
/// N x K, another kind's useful FLOPs.
double columnFlops(const KernelRecord &r) {
  if (r.kernel && !r.spec())
    return r.estimate.flops;
  return 2.0 * r.problem.batch * double(r.problem.m) * double(r.problem.n) *
         double(r.problem.k);
}

bool aligned(const KernelRecord &r) {
  const GemmEstimate &e = r.estimate.gemm;
  return e.lda.meetsMin && e.ldb.meetsMin && e.ldc.meetsMin &&
         e.m.meetsMin && e.n.meetsMin && e.k.meetsMin;
}

/// A number rounded to 3 decimals, written without binary noise
/// (1.529, not 1.5289999999999999).
struct Num {
  double v;
};
Num round3(double v) { return Num{std::round(v * 1000) / 1000}; }

void attr(llvm::json::OStream &j, llvm::StringRef key, Num n) {
  char buf[64];
  snprintf(buf, sizeof(buf), "%.3f", n.v);
  std::string s = buf;
  // Trim trailing zeros: 2.000 -> 2, 1.500 -> 1.5.
  while (!s.empty() && s.back() == '0')
    s.pop_back();
  if (!s.empty() && s.back() == '.')
    s.pop_back();
  if (s == "-0")
    s = "0";
  j.attributeBegin(key);
  j.rawValue(s);
  j.attributeEnd();
}
} // namespace

void tshape::report::writeJson(llvm::raw_ostream &os,
                               const AnalysisReport &rep) {
  const std::vector<KernelRecord> &records = rep.records;
  const Totals &t = rep.totals;
  const std::vector<Finding> &findings = rep.findings;
  const int64_t skipped = rep.skipped;
  const target::GpuTarget &target = rep.target;
  const double threshold = rep.threshold;
  llvm::json::OStream j(os, 2);
  j.object([&] {
    j.attribute("schema", "tshape-report/1");
    j.attributeObject("target", [&] {
      j.attribute("name", target.name);
      j.attribute("description", target.description);
      j.attribute("constants", target.constantsSource);
      j.attribute("sm_count", target.smCount);
      j.attribute("memory_bandwidth_gbs", target.memoryBandwidthGBs);
      j.attributeObject("peak_tflops", [&] {
        for (model::DType d : {model::DType::BF16, model::DType::FP16,
                               model::DType::FP32, model::DType::TF32,
                               model::DType::FP8})
          j.attribute(model::dtypeName(d), target.peak(d));
      });
    });
    j.attribute("threshold", threshold);
    j.attributeArray("gemms", [&] {
      for (const KernelRecord &r : records) {
        const GemmEstimate &e = r.estimate.gemm;
        const model::GemmSpec *spec = r.spec();
        j.object([&] {
          j.attribute("name", r.name);
          j.attribute("layer", r.layer);
          j.attribute("location", r.location);
          j.attribute("group", r.group());
          if (spec) {
            // Where the sizes came from: the expressions and the values of
            // the parameters they use (Model/Gemm.h).
            j.attributeObject("sizes", [&] {
              j.attribute("batch", spec->batch.expr.str());
              j.attribute("m", spec->m.expr.str());
              j.attribute("n", spec->n.expr.str());
              j.attribute("k", spec->k.expr.str());
            });
            j.attributeObject("params", [&] {
              for (size_t i = 0; i < model::kNumParams; ++i)
                if (auto v = spec->env.get(model::Param(i)))
                  j.attribute(model::paramName(model::Param(i)), *v);
            });
          }
          j.attribute("kind", r.kernel ? model::kernelKindName(
                                              r.kernel->kind())
                                        : "gemm");
          j.attribute("batch", r.problem.batch);
          j.attribute("m", r.problem.m);
          j.attribute("n", r.problem.n);
          j.attribute("k", r.problem.k);
          j.attribute("dtype", model::dtypeName(r.problem.dtype));
          j.attribute("trans_a", r.problem.transA);
          j.attribute("trans_b", r.problem.transB);
          j.attribute("flops", columnFlops(r));
          j.attribute("aligned", aligned(r));
          j.attributeArray("tile", [&] {
            j.value(e.tile.m);
            j.value(e.tile.n);
          });
          j.attribute("split_k", e.splitK);
          attr(j, "tile_efficiency", round3(e.tileEfficiency));
          attr(j, "k_efficiency", round3(e.kEfficiency));
          j.attribute("waves", e.waves);
          attr(j, "wave_efficiency", round3(e.waveEfficiency));
          attr(j, "align_factor", round3(e.alignFactor));
          j.attribute("bound", bound(r));
          attr(j, "predicted_us", round3(r.predictedUs));
          attr(j, "tflops",
               round3(r.predictedUs > 0
                          ? r.flops() / (r.predictedUs * 1e6)
                          : 0.0));
          attr(j, "loss", round3(r.lossFraction));
          if (r.measuredUs > 0) {
            attr(j, "measured_us", round3(r.measuredUs));
            attr(j, "prediction_error",
                 round3((r.predictedUs - r.measuredUs) / r.measuredUs));
            attr(j, "library_waves", round3(r.libraryWaves));
            j.attribute("library_tile_id", r.libraryTileId);
            j.attributeArray("library_tile", [&] {
              j.value(r.libraryTileM);
              j.value(r.libraryTileN);
            });
          }
          j.attribute("flagged", r.flagged);
          j.attributeArray("causes", [&] {
            for (const std::string &c : r.causes)
              j.value(c);
          });
        });
      }
    });
    j.attribute("skipped", skipped);
    j.attributeObject("totals", [&] {
      attr(j, "step_us", round3(t.stepUs));
      attr(j, "per_layer_us", round3(t.perLayerUs));
      j.attribute("layers", t.layers);
      attr(j, "tflops",
           round3(t.stepUs > 0 ? t.flops / (t.stepUs * 1e6) : 0.0));
      j.attributeObject("share", [&] {
        for (const advise::GroupShare &g : t.groups)
          attr(j, g.group, round3(g.share));
      });
      j.attributeObject("lost_us", [&] {
        attr(j, "tile", round3(t.lostTileUs));
        attr(j, "k_step", round3(t.lostKUs));
        attr(j, "wave", round3(t.lostWaveUs));
        attr(j, "alignment", round3(t.lostAlignUs));
        attr(j, "fused_head_dim", round3(t.lostFusedHeadDimUs));
      });
    });
    j.attributeArray("findings", [&] {
      for (const Finding &f : findings)
        j.object([&] {
          j.attribute("parameter", paramName(f.parameter));
          j.attribute("value", f.value);
          j.attribute("suggested", f.suggested);
          attr(j, "estimated_speedup", round3(f.estimatedSpeedup));
          attr(j, "step_speedup", round3(f.stepSpeedup));
          attr(j, "time_saved_us", round3(f.timeSavedUs));
          j.attribute("gemms", f.gemms);
          if (!f.effect.empty())
            j.attribute("effect", f.effect);
          j.attribute("reason", f.reason);
        });
    });
    writeGuidelinesJson(j, rep.guidelines);
  });
  os << "\n";
}

void tshape::report::writeMarkdown(llvm::raw_ostream &os,
                                   const AnalysisReport &rep) {
  const std::vector<KernelRecord> &records = rep.records;
  const Totals &t = rep.totals;
  const std::vector<Finding> &findings = rep.findings;
  const int64_t skipped = rep.skipped;
  const target::GpuTarget &target = rep.target;
  const double threshold = rep.threshold;
  os << "# tshape GEMM analysis: " << target.description << "\n\n"
     << "Cost-model constants: " << target.constantsSource << ".\n\n";
  int64_t flagged = 0;
  for (const KernelRecord &r : records)
    flagged += r.flagged;
  os << llvm::format("Predicted step: %.1f us for %zu GEMMs (%.0f TFLOP/s); "
                     "%lld flagged above %.0f%% loss",
                     t.stepUs, records.size(),
                     t.stepUs > 0 ? t.flops / (t.stepUs * 1e6) : 0.0,
                     (long long)flagged, threshold * 100);
  if (skipped)
    os << "; " << skipped << " dynamic-shaped skipped";
  os << ".\n\n## Findings\n\n";
  if (findings.empty()) {
    os << "No hyperparameter change is predicted to help.\n\n";
  } else {
    os << "| # | parameter | now | suggested | speed-up of its GEMMs | step "
          "speed-up | why |\n| ---: | --- | ---: | ---: | ---: | ---: | --- "
          "|\n";
    int i = 0;
    for (const Finding &f : findings)
      os << "| " << ++i << " | " << paramName(f.parameter) << " | "
         << f.value << " | " << f.suggested << " | "
         << llvm::format("%.2fx", f.estimatedSpeedup) << " | "
         << llvm::format("%.3fx", f.stepSpeedup) << " | " << f.reason
         << " |\n";
    os << "\n";
  }
  os << "## Where the time goes\n\n|";
  for (const advise::GroupShare &g : t.groups)
    os << " " << groupLabel(g.group) << " |";
  os << "\n|";
  for (size_t i = 0; i < t.groups.size(); ++i)
    os << " ---: |";
  os << "\n|";
  for (const advise::GroupShare &g : t.groups)
    os << llvm::format(" %.1f%% |", 100 * g.share);
  os << "\n\n"
     << llvm::format("Time lost to shape (us per step): tile %.1f, K-step "
                     "%.1f, wave %.1f, alignment %.1f, fused head dim %.1f.",
                     t.lostTileUs, t.lostKUs, t.lostWaveUs, t.lostAlignUs,
                     t.lostFusedHeadDimUs);
  if (t.layers)
    os << llvm::format(" Per layer: %.1f us over %lld layers.", t.perLayerUs,
                       (long long)t.layers);
  os << "\n\n";
  writeGuidelinesMarkdown(os, rep.guidelines);
  os << "## GEMMs (identical shapes across layers merged)\n\n"
     << "| GEMM | count | batch x M x N x K | tile | waves | tile/K/wave "
        "eff. | bound | us each | TFLOP/s | loss | causes |\n"
     << "| --- | ---: | --- | --- | ---: | --- | --- | ---: | ---: | ---: | "
        "--- |\n";
  for (auto [r, count] : mergedGemms(records)) {
    const GemmEstimate &e = r->estimate.gemm;
    std::string causes;
    for (const std::string &c : r->causes)
      causes += (causes.empty() ? "" : "; ") + c;
    const double flops = r->flops();
    os << "| " << (r->flagged ? "**" + r->name + "**" : r->name) << " | "
       << count << " | " << r->problem.batch << " x " << r->problem.m
       << " x " << r->problem.n << " x " << r->problem.k << " | "
       << e.tile.m << "x" << e.tile.n
       << (e.splitK > 1 ? " split-K " + std::to_string(e.splitK) : "")
       << " | " << e.waves << " | "
       << llvm::format("%.2f/%.2f/%.2f", e.tileEfficiency, e.kEfficiency,
                       e.waveEfficiency)
       << " | " << bound(*r) << " | "
       << llvm::format("%.1f", r->predictedUs) << " | "
       << llvm::format("%.0f", r->predictedUs > 0
                                   ? flops / (r->predictedUs * 1e6)
                                   : 0.0)
       << " | " << llvm::format("%.0f%%", 100 * r->lossFraction) << " | "
       << causes << " |\n";
  }
}
