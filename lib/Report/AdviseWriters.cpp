//===- AdviseWriters.cpp - tshape advise's JSON, Markdown and summary -----===//
//
// The JSON (schema tshape-advise/1, docs/report-schema.md) carries the
// advise report's own keys and the reports it is made of, each as its own
// writer renders it (tshape-report/1, tshape-inference/1, tshape-plan/1);
// the Markdown likewise. The terminal summary is a few lines.
//
//===----------------------------------------------------------------------===//

#include "tshape/Report/AdviseReport.h"
#include "tshape/Advise/Neighbourhood.h"
#include "tshape/Report/Writers.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"

#include <cmath>

using namespace tshape;
using namespace tshape::report;

namespace {

/// `model` rendered by its own JSON writer, as a value to embed.
template <typename Model> llvm::json::Value embedded(const Model &model) {
  std::string s;
  llvm::raw_string_ostream os(s);
  writeJson(os, model);
  llvm::Expected<llvm::json::Value> v = llvm::json::parse(s);
  if (!v) {
    llvm::consumeError(v.takeError());
    return nullptr;
  }
  return std::move(*v);
}

double round3(double v) { return std::round(v * 1000) / 1000; }

/// "; the search stopped at its bound for heads, ffn (the 512 values
/// nearest each)" when it did, else "".
std::string boundNote(const advise::SearchResult &s) {
  if (s.bounded.empty())
    return "";
  std::string names;
  for (const std::string &b : s.bounded)
    names += (names.empty() ? "" : ", ") + b;
  return "; the search stopped at its bound for " + names + " (the " +
         std::to_string(advise::kMaxCandidates) + " values nearest each)";
}

std::string signedCount(int64_t v) {
  return (v >= 0 ? "+" : "") + std::to_string(v);
}

double gain(const advise::SearchResult &s) {
  return s.predBefore.tflops() > 0
             ? s.predAfter.tflops() / s.predBefore.tflops()
             : 1;
}

/// "b = 4, s = 2048, tp = 1" and the phase's own numbers.
std::string runLine(const AdviseReport &r) {
  const model::ModelConfig &c = r.config;
  const model::RunShape &run = r.options.run;
  std::string s = std::string(model::phaseName(run.phase)) +
                  ", b = " + std::to_string(c.microbatch) +
                  ", s = " + std::to_string(c.seq);
  if (run.kvLength)
    s += ", kv length = " + std::to_string(run.kvLength);
  s += ", tp = " + std::to_string(c.parallel.tp) + ", " +
       model::dtypeName(c.dtype);
  return s + linearPrecisionNote(r);
}

} // namespace

std::string tshape::report::linearPrecisionNote(const AdviseReport &r) {
  const std::optional<Precision> p = r.options.run.precision;
  return p && *p != Precision::BF16
             ? std::string(" (linear layers ") + precisionName(*p) + ")"
             : std::string();
}

void tshape::report::writeJson(llvm::raw_ostream &os, const AdviseReport &r) {
  llvm::json::OStream j(os, 2);
  const model::ModelConfig &c = r.config;
  j.object([&] {
    j.attribute("schema", "tshape-advise/1");
    j.attribute("model", r.model);
    j.attribute("model_type", r.modelType);
    j.attribute("target", r.options.target.name);
    j.attributeObject("run", [&] {
      j.attribute("phase", model::phaseName(r.options.run.phase));
      j.attribute("microbatch", c.microbatch);
      j.attribute("seq", c.seq);
      j.attribute("kv_length", r.options.run.kvLength);
      j.attribute("tp", c.parallel.tp);
      j.attribute("dtype", model::dtypeName(c.dtype));
      j.attribute("precision",
                  r.options.run.precision
                      ? precisionName(*r.options.run.precision)
                      : model::dtypeName(c.dtype));
    });
    j.attributeArray("notes", [&] {
      for (const std::string &n : r.options.notes)
        j.value(n);
    });
    j.attribute("predicted_step_us", round3(r.stepUs()));
    const advise::Totals &t = r.analysis.totals;
    j.attribute("tflops",
                round3(t.stepUs > 0 ? t.flops / (t.stepUs * 1e6) : 0));
    writeGuidelinesJson(j, r.analysis.guidelines);
    j.attributeObject("optimized", [&] {
      j.attribute("param_tolerance", r.options.paramTolerance);
      if (!r.search) {
        j.attribute("error", r.searchError);
        return;
      }
      const advise::SearchResult &s = *r.search;
      j.attribute("kept", s.changes.empty());
      writeChangesJson(j, "changes", s.changes);
      writeChangesJson(j, "dropped", s.dropped);
      j.attribute("step_us_before", round3(s.predBefore.us));
      j.attribute("step_us_after", round3(s.predAfter.us));
      j.attribute("tflops_before", round3(s.predBefore.tflops()));
      j.attribute("tflops_after", round3(s.predAfter.tflops()));
      j.attribute("speedup", round3(gain(s)));
      j.attribute("parameters_before", s.paramsBefore);
      j.attribute("parameters_after", s.paramsAfter);
      j.attribute("evaluated", s.evaluated);
      j.attribute("feasible", s.feasible);
      j.attributeArray("bounded", [&] {
        for (const std::string &b : s.bounded)
          j.value(b);
      });
    });
    j.attributeArray("sweeps", [&] {
      for (const advise::Sweep &s : r.sweeps)
        j.object([&] {
          j.attribute("parameter", model::paramName(s.parameter));
          j.attribute("value", s.value);
          j.attribute("suggested", s.suggested);
          j.attribute("step", s.step);
          j.attributeArray("points", [&] {
            for (const advise::SweepPoint &p : s.points)
              j.array([&] {
                j.value(p.value);
                j.value(round3(p.tflops));
              });
          });
        });
    });
    j.attribute("analysis", embedded(r.analysis));
    if (r.inference)
      j.attribute("inference", embedded(*r.inference));
    if (r.plan)
      j.attribute("plan", embedded(*r.plan));
    else if (!r.planError.empty())
      j.attribute("plan_error", r.planError);
    j.attribute("megatron_arguments", r.megatronArguments);
    j.attributeArray("files", [&] {
      for (const std::string &f : r.files)
        j.value(f);
    });
  });
  os << "\n";
}

void tshape::report::writeMarkdown(llvm::raw_ostream &os,
                                   const AdviseReport &r) {
  os << "# tshape advise: " << r.model << " on " << r.options.target.name
     << "\n\n"
     << "Model type `" << r.modelType << "`; " << runLine(r) << ".\n\n";
  for (const std::string &n : r.options.notes)
    os << "Note: " << n << ".\n\n";
  os << "## Optimized shape\n\n";
  if (!r.search) {
    os << "The shape search failed: " << r.searchError << ".\n\n";
  } else if (r.search->changes.empty()) {
    os << llvm::format("No shape within %.1f%% of the parameters gains "
                       "enough: the model is kept (best candidate %+.1f%%; "
                       "%lld shapes evaluated, %lld feasible)",
                       100 * r.options.paramTolerance,
                       100 * r.search->bestGain,
                       (long long)r.search->evaluated,
                       (long long)r.search->feasible)
       << boundNote(*r.search) << ".\n\n";
  } else {
    const advise::SearchResult &s = *r.search;
    os << "| parameter | before | after | throughput alone | gain in result "
          "| parameters |\n| --- | ---: | ---: | ---: | ---: | ---: |\n";
    for (const advise::Change &ch : s.changes) {
      os << "| " << ch.parameter << " | " << ch.before << " | " << ch.after
         << " | ";
      if (ch.speedup > 0)
        os << llvm::format("%.3fx", ch.speedup);
      else
        os << "only with the others";
      os << " | " << llvm::format("%.3fx", ch.gainInResult) << " | "
         << signedCount(ch.paramDelta) << " |\n";
    }
    for (const advise::Change &ch : s.dropped)
      os << "\nDropped: " << ch.parameter << " " << ch.before << " -> "
         << ch.after << " added only "
         << llvm::format("%.3fx", ch.gainInResult) << " to the others for "
         << signedCount(ch.paramDelta) << " parameters.\n";
    os << llvm::format("\nPredicted step %.1f -> %.1f us, %.0f -> %.0f "
                       "TFLOP/s (%.3fx); parameters %lld -> %lld (%+.3f%%), "
                       "within %.1f%%; %lld shapes evaluated, %lld "
                       "feasible",
                       s.predBefore.us, s.predAfter.us,
                       s.predBefore.tflops(), s.predAfter.tflops(), gain(s),
                       (long long)s.paramsBefore, (long long)s.paramsAfter,
                       100.0 * double(s.paramsAfter - s.paramsBefore) /
                           double(s.paramsBefore),
                       100 * r.options.paramTolerance,
                       (long long)s.evaluated, (long long)s.feasible);
    os << boundNote(s) << ".\n\n";
  }
  os << "## Megatron-LM arguments\n\n```\n" << r.megatronArguments
     << "\n```\n\n";
  if (r.plan) {
    os << "---\n\n";
    writeMarkdown(os, *r.plan);
    os << "\n";
  } else if (!r.planError.empty()) {
    os << "The plan on the cluster could not be priced: " << r.planError
       << ".\n\n";
  }
  if (r.inference) {
    os << "---\n\n";
    writeMarkdown(os, *r.inference);
    os << "\n";
  }
  os << "---\n\n";
  writeMarkdown(os, r.analysis);
  os << "\n";
}

void tshape::report::writeText(llvm::raw_ostream &os, const AdviseReport &r) {
  const advise::Totals &t = r.analysis.totals;
  os << "tshape advise: " << r.model << " (" << r.modelType << ") on "
     << r.options.target.name << ", " << runLine(r) << "\n";
  for (const std::string &n : r.options.notes)
    os << "note: " << n << "\n";
  if (r.inference && !r.inference->functions.empty()) {
    const cost::InferenceEstimate &e = r.inference->functions[0].estimate;
    os << llvm::format("predicted %s step: %.3f ms, %.2f ms per token, %.0f "
                       "tokens/s per GPU\n",
                       model::phaseName(r.options.run.phase), e.stepUs / 1e3,
                       e.perTokenMs, e.tokensPerSecondPerGpu);
  } else {
    os << llvm::format("predicted step: %.2f ms of GEMMs and attention on one "
                       "GPU (%.0f TFLOP/s)\n",
                       t.stepUs / 1e3,
                       t.stepUs > 0 ? t.flops / (t.stepUs * 1e6) : 0.0);
  }
  if (r.plan)
    os << llvm::format("on %s (%lld GPUs): step %.3f s, %.0f TFLOP/s per GPU, "
                       "MFU %.1f%%, %.1f GiB per GPU%s (model error on "
                       "published runs: %.1f%% mean)\n",
                       r.plan->cluster.c_str(), (long long)r.plan->gpus,
                       r.plan->step.stepTime, r.plan->step.tflopsPerGpu,
                       100 * r.plan->step.mfu, r.plan->peakGiB(),
                       r.plan->fits() ? "" : ", does not fit",
                       100 * cost::kStepHeldOutMeanAbsError);
  else if (!r.planError.empty())
    os << "plan: not priced: " << r.planError << "\n";
  const std::vector<advise::Finding> &fs = r.analysis.findings;
  if (fs.empty())
    os << "findings: none above the " << llvm::format("%.0f%%",
                                                      100 * r.options.threshold)
       << " loss threshold\n";
  else
    os << "top findings:\n";
  for (size_t i = 0; i < fs.size() && i < 3; ++i) {
    const advise::Finding &f = fs[i];
    os << "  " << (i + 1) << ". " << model::paramName(f.parameter) << " "
       << f.value << " -> " << f.suggested;
    if (!f.effect.empty())
      os << " (" << f.effect << ")";
    os << llvm::format(": %.2fx on the GEMMs it sizes, %.3fx per step\n",
                       f.estimatedSpeedup, f.stepSpeedup);
  }
  int failed = 0;
  std::string failing;
  for (const advise::Guideline &g : r.analysis.guidelines)
    if (!g.ok) {
      ++failed;
      failing += std::string(failing.empty() ? "" : "; ") + g.parameter +
                 " " + std::to_string(g.value) +
                 (g.priced ? " (cost " + advise::costPercent(g.predictedCost) +
                                 ")"
                           : "");
    }
  os << "guidelines: " << failed << " of " << r.analysis.guidelines.size()
     << " rules fail" << (failing.empty() ? "" : ": " + failing) << "\n";
  if (!r.search) {
    os << "optimized shape: the search failed: " << r.searchError << "\n";
  } else if (r.search->changes.empty()) {
    os << llvm::format("optimized shape: kept (the best candidate within "
                       "%.1f%% parameters gains %.1f%%)",
                       100 * r.options.paramTolerance,
                       100 * std::max(0.0, r.search->bestGain))
       << boundNote(*r.search) << "\n";
  } else {
    const advise::SearchResult &s = *r.search;
    os << "optimized shape:";
    for (const advise::Change &ch : s.changes)
      os << " " << ch.parameter << " " << ch.before << " -> " << ch.after
         << (&ch == &s.changes.back() ? "" : ",");
    os << llvm::format(": predicted %.3fx (%.0f -> %.0f TFLOP/s), parameters "
                       "%+.2f%%",
                       gain(s), s.predBefore.tflops(), s.predAfter.tflops(),
                       100.0 * double(s.paramsAfter - s.paramsBefore) /
                           double(s.paramsBefore))
       << boundNote(s) << "\n";
    for (const advise::Change &ch : s.dropped)
      os << llvm::format("  dropped: %s %lld -> %lld (adds only %.3fx for "
                         "%+lld parameters)\n",
                         ch.parameter.c_str(), (long long)ch.before,
                         (long long)ch.after, ch.gainInResult,
                         (long long)ch.paramDelta);
  }
  if (!r.files.empty()) {
    os << "wrote:";
    for (const std::string &f : r.files)
      os << " " << f;
    os << "\n";
  }
}
