//===- AdviseHtml.cpp - tshape advise's self-contained HTML page ----------===//
//
// One file a browser opens with nothing else: inline CSS, inline SVG
// (Report/Svg.h), no script, no font or image fetched. Every string that
// comes from the config (model name, type, path) is escaped. Sections: the
// findings and the optimized shape before -> after, where the time goes,
// the paper's figure for each finding on the user's model (the sweep), the
// guidelines checklist, the GEMM table, and the serving step or the plan.
//
//===----------------------------------------------------------------------===//

#include "tshape/Report/AdviseReport.h"
#include "tshape/Report/Svg.h"
#include "tshape/Report/Writers.h"
#include "tshape/Advise/Neighbourhood.h"

#include "llvm/Support/Format.h"

#include <map>

using namespace tshape;
using namespace tshape::report;
using svg::escape;

namespace {


std::string num(const char *f, double v) {
  char buf[64];
  snprintf(buf, sizeof(buf), f, v);
  return buf;
}

void findings(llvm::raw_ostream &os, const AdviseReport &r) {
  os << "<h2 id=\"findings\">Findings</h2>\n";
  const std::vector<advise::Finding> &fs = r.analysis.findings;
  if (fs.empty()) {
    os << "<p>No hyperparameter change is predicted to help on "
       << escape(r.options.target.name) << ".</p>\n";
  } else {
    os << "<table><tr><th>#</th><th>parameter</th><th class=\"n\">now</th>"
          "<th class=\"n\">suggested</th><th class=\"n\">its GEMMs</th>"
          "<th class=\"n\">step</th><th>why</th></tr>\n";
    int i = 0;
    for (const advise::Finding &f : fs)
      os << "<tr><td>" << ++i << "</td><td>"
         << model::paramName(f.parameter) << "</td><td class=\"n\">"
         << f.value << "</td><td class=\"n\">" << f.suggested
         << (f.effect.empty() ? "" : " (" + escape(f.effect) + ")")
         << "</td><td class=\"n\">" << num("%.2fx", f.estimatedSpeedup)
         << "</td><td class=\"n\">" << num("%.3fx", f.stepSpeedup)
         << "</td><td>" << escape(f.reason) << "</td></tr>\n";
    os << "</table>\n";
  }

  os << "<h2 id=\"optimized\">Optimized shape</h2>\n";
  if (!r.search) {
    os << "<p>The shape search failed: " << escape(r.searchError) << "</p>\n";
    return;
  }
  const advise::SearchResult &s = *r.search;
  if (s.changes.empty())
    os << "<p>Kept: no shape within "
       << num("%.1f%%", 100 * r.options.paramTolerance)
       << " of the parameters gains enough (best candidate "
       << num("%+.1f%%", 100 * s.bestGain) << ").</p>\n";
  else
    os << "<p>Within " << num("%.1f%%", 100 * r.options.paramTolerance)
       << " of the parameters: predicted step "
       << num("%.1f", s.predBefore.us / 1e3) << " &rarr; "
       << num("%.1f", s.predAfter.us / 1e3) << " ms, "
       << num("%.0f", s.predBefore.tflops()) << " &rarr; "
       << num("%.0f", s.predAfter.tflops()) << " TFLOP/s (<b>"
       << num("%.3fx", s.predBefore.tflops() > 0
                           ? s.predAfter.tflops() / s.predBefore.tflops()
                           : 1)
       << "</b>); parameters " << s.paramsBefore << " &rarr; "
       << s.paramsAfter << ".</p>\n";
  if (!s.bounded.empty()) {
    os << "<p class=\"sub\">The search stopped at its bound for";
    for (const std::string &b : s.bounded)
      os << " " << escape(b);
    os << " (the " << advise::kMaxCandidates
       << " values nearest each).</p>\n";
  }
  os << "<table><tr><th>parameter</th><th class=\"n\">before</th><th></th>"
        "<th class=\"n\">after</th><th class=\"n\">throughput alone</th>"
        "<th class=\"n\">gain in result</th></tr>\n";
  for (model::Param p : model::allParams()) {
    const model::ParamInfo &info = model::paramInfo(p);
    if (info.kind != model::ParamKind::Hyperparam)
      continue;
    const int64_t before = model::getParam(s.before, p),
                  after = model::getParam(s.after, p);
    if (!before && !after)
      continue;
    const advise::Change *ch = nullptr;
    for (const advise::Change &c : s.changes)
      if (c.parameter == info.name)
        ch = &c;
    os << "<tr" << (before != after ? " class=\"changed\"" : "") << "><td>"
       << info.name << "</td><td class=\"n\">" << before
       << "</td><td class=\"arrow\">&rarr;</td><td class=\"n\">" << after
       << "</td><td class=\"n\">"
       << (ch ? (ch->speedup > 0 ? num("%.3fx", ch->speedup)
                                 : std::string("with the others"))
              : std::string(""))
       << "</td><td class=\"n\">"
       << (ch ? num("%.3fx", ch->gainInResult) : std::string(""))
       << "</td></tr>\n";
  }
  os << "</table>\n";
  for (const advise::Change &ch : s.dropped)
    os << "<p class=\"sub\">Dropped: " << escape(ch.parameter) << " "
       << ch.before << " &rarr; " << ch.after << " added only "
       << num("%.3fx", ch.gainInResult) << " to the others for "
       << (ch.paramDelta >= 0 ? "+" : "") << ch.paramDelta
       << " parameters.</p>\n";
}

void timeSection(llvm::raw_ostream &os, const AdviseReport &r) {
  const advise::Totals &t = r.analysis.totals;
  os << "<h2 id=\"time\">Where the time goes</h2>\n<div class=\"fig\">\n";
  std::vector<svg::Bar> bars;
  for (const advise::GroupShare &g : t.groups)
    bars.push_back({groupLabel(g.group), g.share,
                    num("%.1f%%", 100 * g.share) +
                        num(" (%.2f ms)", g.share * t.stepUs / 1e3)});
  svg::barChart(os, "Share of the predicted step by block", bars);
  os << "</div>\n<div class=\"fig\">\n";
  std::vector<svg::Bar> lost;
  for (auto [name, us] : {std::pair<const char *, double>{"tile fill",
                                                          t.lostTileUs},
                          {"K steps", t.lostKUs},
                          {"waves", t.lostWaveUs},
                          {"alignment", t.lostAlignUs},
                          {"fused head dim", t.lostFusedHeadDimUs}})
    lost.push_back({name, us, num("%.2f ms", us / 1e3)});
  svg::barChart(os, "Time lost to shape, per step", lost);
  os << "</div>\n";
}

void sweeps(llvm::raw_ostream &os, const AdviseReport &r) {
  if (r.sweeps.empty())
    return;
  os << "<h2 id=\"sweeps\">The paper's figure for your model</h2>\n"
     << "<p class=\"sub\">Predicted throughput of the GEMMs each parameter "
        "sizes on "
     << escape(r.options.target.name)
     << ", swept around its value (the other parameters fixed; values that "
        "break a rule left out).</p>\n";
  for (const advise::Sweep &s : r.sweeps) {
    std::vector<std::pair<double, double>> pts;
    double now = 0, then = 0;
    for (const advise::SweepPoint &p : s.points) {
      pts.push_back({double(p.value), p.tflops});
      if (p.value == s.value)
        now = p.tflops;
      if (p.value == s.suggested)
        then = p.tflops;
    }
    const char *name = model::paramName(s.parameter);
    std::vector<svg::Marker> marks = {
        {double(s.value),
         "now " + std::to_string(s.value) + num(": %.0f TFLOP/s", now),
         svg::kColors[1]}};
    if (s.suggested != s.value)
      marks.push_back({double(s.suggested),
                       "suggested " + std::to_string(s.suggested) +
                           num(": %.0f TFLOP/s", then),
                       svg::kColors[2]});
    os << "<div class=\"fig\">\n";
    svg::lineChart(os,
                   std::string(name) + ": throughput of the GEMMs it sizes" +
                       (s.step > 1 ? " (every " + std::to_string(s.step) +
                                         ")"
                                   : ""),
                   name, "TFLOP/s", pts, marks);
    os << "</div>\n";
  }
}

void checklist(llvm::raw_ostream &os, const AdviseReport &r) {
  os << "<h2 id=\"guidelines\">Guidelines checklist</h2>\n"
     << "<table><tr><th>rule</th><th>quantity</th><th class=\"n\">value</th>"
        "<th>ok</th><th class=\"n\">predicted cost</th><th>note</th></tr>\n";
  for (const advise::Guideline &g : r.analysis.guidelines)
    os << "<tr class=\"" << (g.ok ? "ok" : "fail") << "\"><td>"
       << escape(g.rule) << "</td><td>" << escape(g.parameter)
       << "</td><td class=\"n\">" << g.value << "</td><td class=\"ok\">"
       << (g.ok ? "yes" : "<b>no</b>") << "</td><td class=\"n\">"
       << (g.priced ? advise::costPercent(g.predictedCost) : "")
       << "</td><td>" << escape(g.note) << "</td></tr>\n";
  os << "</table>\n";
}

void gemmTable(llvm::raw_ostream &os, const AdviseReport &r) {
  os << "<h2 id=\"gemms\">GEMMs</h2>\n<p class=\"sub\">Identical shapes "
        "across layers merged; flagged ones in bold.</p>\n"
     << "<table><tr><th>GEMM</th><th class=\"n\">count</th><th>batch x M x "
        "N x K</th><th>tile</th><th class=\"n\">waves</th><th class=\"n\">us "
        "each</th><th class=\"n\">TFLOP/s</th><th class=\"n\">loss</th><th>"
        "causes</th></tr>\n";
  for (auto [g, count] : mergedGemms(r.analysis.records)) {
    std::string causes;
    for (const std::string &c : g->causes)
      causes += (causes.empty() ? "" : "; ") + c;
    const std::string name = escape(g->name);
    os << "<tr><td>" << (g->flagged ? "<b>" + name + "</b>" : name)
       << "</td><td class=\"n\">" << count << "</td><td>" << g->problem.batch
       << " x " << g->problem.m << " x " << g->problem.n << " x "
       << g->problem.k << "</td><td>"
       << (g->fused() ? std::string("fused")
                      : std::to_string(g->estimate.gemm.tile.m) + "x" +
                            std::to_string(g->estimate.gemm.tile.n))
       << "</td><td class=\"n\">" << g->estimate.gemm.waves
       << "</td><td class=\"n\">" << num("%.1f", g->predictedUs)
       << "</td><td class=\"n\">"
       << num("%.0f", g->predictedUs > 0
                          ? g->flops() / (g->predictedUs * 1e6)
                          : 0.0)
       << "</td><td class=\"n\">" << num("%.0f%%", 100 * g->lossFraction)
       << "</td><td>" << escape(causes) << "</td></tr>\n";
  }
  os << "</table>\n";
}

void runSection(llvm::raw_ostream &os, const AdviseReport &r) {
  if (r.inference && !r.inference->functions.empty()) {
    const InferenceReport::Function &f = r.inference->functions[0];
    const cost::InferenceEstimate &e = f.estimate;
    os << "<h2 id=\"serving\">Serving step ("
       << model::phaseName(r.options.run.phase) << ")</h2>\n<p>"
       << escape(summaryLine(f, r.options.target)) << "</p>\n";
    std::vector<svg::Bar> bars;
    for (auto [name, us] :
         {std::pair<const char *, double>{"weights", e.shares.weightsUs},
          {"KV cache", e.shares.cacheUs},
          {"activations", e.shares.activationsUs},
          {"compute", e.shares.computeUs},
          {"communication", e.shares.communicationUs},
          {"launches", e.shares.launchUs}})
      bars.push_back({name, us, num("%.1f us", us)});
    os << "<div class=\"fig\">\n";
    svg::barChart(os, "Where the serving step's time goes", bars);
    os << "</div>\n";
    if (!f.findings.empty()) {
      os << "<ul>\n";
      for (const advise::InferenceFinding &x : f.findings)
        os << "<li>" << escape(x.message) << "</li>\n";
      os << "</ul>\n";
    }
  }
  if (r.plan) {
    const PlanReport &p = *r.plan;
    os << "<h2 id=\"plan\">Training step on " << escape(p.cluster)
       << "</h2>\n<p>" << p.gpus << " GPUs: step "
       << num("%.3f s", p.step.stepTime) << ", "
       << num("%.0f TFLOP/s per GPU", p.step.tflopsPerGpu) << ", MFU "
       << num("%.1f%%", 100 * p.step.mfu) << ", "
       << num("%.1f GiB per GPU", p.peakGiB()) << (p.fits() ? "" : " (does "
                                                                  "not fit)")
       << ".</p>\n<pre>" << escape(p.megatronCommand) << "</pre>\n";
  } else if (!r.planError.empty()) {
    os << "<h2 id=\"plan\">Training step on the cluster</h2>\n<p>Not "
          "priced: "
       << escape(r.planError) << "</p>\n";
  }
}

} // namespace

void tshape::report::writeHtml(llvm::raw_ostream &os, const AdviseReport &r) {
  const advise::Totals &t = r.analysis.totals;
  const std::string title =
      "tshape advise: " + r.model + " on " + r.options.target.name;
  svg::openPage(os, title);
  os << "<p class=\"sub\">Model type <code>" << escape(r.modelType)
     << "</code>; " << model::phaseName(r.options.run.phase) << ", b = "
     << r.config.microbatch << ", s = " << r.config.seq << ", tp = "
     << r.config.parallel.tp << ", " << model::dtypeName(r.config.dtype)
     << escape(linearPrecisionNote(r))
     << ". " << escape(r.options.target.description) << ".</p>\n";
  for (const std::string &n : r.options.notes)
    os << "<p class=\"sub\">Note: " << escape(n) << ".</p>\n";
  int failed = 0;
  for (const advise::Guideline &g : r.analysis.guidelines)
    failed += !g.ok;
  os << "<div class=\"cards\">\n<div class=\"card\">predicted step<b>"
     << num("%.2f ms", t.stepUs / 1e3) << "</b>"
     << num("%.0f TFLOP/s", t.stepUs > 0 ? t.flops / (t.stepUs * 1e6) : 0)
     << "</div>\n<div class=\"card\">findings<b>"
     << r.analysis.findings.size() << "</b>above the "
     << num("%.0f%%", 100 * r.options.threshold)
     << " loss threshold</div>\n<div class=\"card\">optimized shape<b>";
  if (r.search && !r.search->changes.empty())
    os << num("%.3fx", r.search->predBefore.tflops() > 0
                           ? r.search->predAfter.tflops() /
                                 r.search->predBefore.tflops()
                           : 1)
       << "</b>predicted throughput";
  else
    os << "kept</b>no change gains enough";
  os << "</div>\n<div class=\"card\">guidelines<b>" << failed << " of "
     << r.analysis.guidelines.size() << "</b>rules fail</div>\n</div>\n";
  findings(os, r);
  timeSection(os, r);
  sweeps(os, r);
  checklist(os, r);
  runSection(os, r);
  gemmTable(os, r);
  os << "<h2 id=\"megatron\">Megatron-LM arguments (optimized)</h2>\n<pre>"
     << escape(r.megatronArguments) << "</pre>\n";
  if (!r.files.empty()) {
    os << "<p class=\"sub\">Files:";
    for (const std::string &f : r.files)
      os << " <code>" << escape(f) << "</code>";
    os << "</p>\n";
  }
  os << "</body>\n</html>\n";
}
