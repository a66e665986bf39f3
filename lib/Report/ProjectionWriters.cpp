//===- ProjectionWriters.cpp - The projection's CSV, SVG, summary ---------===//
//
// A projection (HardwareReport.h, advise::project) as CSV (the columns in
// docs/report-schema.md), a self-contained SVG line chart (written here:
// no script, no external style) and the tool's terminal table.
//
//===----------------------------------------------------------------------===//

#include "tshape/Report/HardwareReport.h"
#include "tshape/Report/Svg.h"

#include "llvm/Support/Format.h"

#include <algorithm>
#include <cmath>

using namespace tshape;
using namespace tshape::report;

namespace {
/// A CSV field: quoted when it holds a comma, a quote or a newline.
std::string csvField(const std::string &s) {
  if (s.find_first_of(",\"\n") == std::string::npos)
    return s;
  std::string q = "\"";
  for (char c : s)
    q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

/// "175B", "1.3T", "350M".
std::string paramsLabel(double p) {
  char buf[32];
  if (p >= 1e12)
    snprintf(buf, sizeof(buf), "%gT", std::round(p / 1e10) / 100);
  else if (p >= 1e9)
    snprintf(buf, sizeof(buf), "%gB", std::round(p / 1e7) / 100);
  else
    snprintf(buf, sizeof(buf), "%gM", std::round(p / 1e4) / 100);
  return buf;
}

using svg::escape;
using svg::kColors;
} // namespace

void tshape::report::writeCsv(llvm::raw_ostream &os,
                              const ProjectionReport &rep) {
  os << "rule,model,parameters,hidden,layers,heads,gpus,global_batch,"
        "hardware,plan,step_time_s,tokens_per_s_per_gpu,mfu,memory_gib,"
        "comm_total_s,comm_exposed_s,comm_total_share,comm_exposed_share,"
        "tp_exposed_share,cp_exposed_share,p2p_exposed_share,"
        "dp_exposed_share,bubble_share,candidates,fit,unvisited,"
        "no_plan_fits\n";
  const char *rule = advise::scalingRuleName(rep.result.rule);
  for (const advise::ProjectionPoint &p : rep.result.points) {
    os << rule << "," << csvField(p.model.name) << "," << p.parameters << ","
       << p.model.hidden << "," << p.model.layers << "," << p.model.heads << ","
       << p.gpus << "," << p.globalBatch << "," << csvField(p.hardware) << ",";
    if (p.best) {
      const cost::StepEstimate &s = p.best->step;
      const advise::CommShare &c = p.share;
      os << csvField(p.best->describe())
         << llvm::format(",%.4f,%.1f,%.4f,%.2f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,"
                         "%.4f,%.4f,%.4f",
                         s.stepTime, s.tokensPerSPerGpu, s.mfu,
                         p.best->peakGiB(), c.total, c.exposed, c.totalShare,
                         c.exposedShare, c.tpShare, c.cpShare, c.p2pShare,
                         c.dpShare, c.bubbleShare);
    } else {
      os << ",,,,,,,,,,,,,";
    }
    os << "," << p.space << "," << p.fit << "," << p.unvisited << ","
       << csvField(p.noFit) << "\n";
  }
}

void tshape::report::writeSvg(llvm::raw_ostream &os,
                              const ProjectionReport &rep) {
  const advise::ProjectionResult &r = rep.result;
  constexpr double W = 900, H = 520, L = 70, R = 250, T = 50, B = 80;
  const double pw = W - L - R, ph = H - T - B;
  double lo = 1e300, hi = 0;
  for (const advise::ProjectionPoint &p : r.points)
    if (p.parameters > 0) {
      lo = std::min(lo, double(p.parameters));
      hi = std::max(hi, double(p.parameters));
    }
  if (hi <= 0)
    lo = hi = 1e9;
  // Whole decades; a point a hair above one (1008B) stays in the last.
  double x0 = std::floor(std::log10(lo) + 0.02),
         x1 = std::ceil(std::log10(hi) - 0.02);
  if (x1 <= x0)
    x1 = x0 + 1;
  auto X = [&](double params) {
    return L + (std::log10(params) - x0) / (x1 - x0) * pw;
  };
  auto Y = [&](double share) { return T + (1 - share) * ph; };
  os << llvm::format(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" "
            "width=\"%.0f\" height=\"%.0f\" font-family=\"sans-serif\" "
            "font-size=\"12\">\n",
            W, H)
     << "<title>Communication share of the step: tshape-plan --project ("
     << advise::scalingRuleName(r.rule) << ")</title>\n";
  if (!rep.command.empty())
    os << "<desc>" << escape(rep.command) << "</desc>\n";
  os << llvm::format("<rect width=\"%.0f\" height=\"%.0f\" fill=\"white\"/>\n",
                     W, H);
  // Pati et al.'s range.
  os << llvm::format("<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                     "height=\"%.1f\" fill=\"#fdebd0\"/>\n",
                     L, Y(0.75), pw, Y(0.40) - Y(0.75))
     << llvm::format("<text x=\"%.1f\" y=\"%.1f\" fill=\"#a04000\">Pati et "
                     "al. 2023: 40-75%% of runtime</text>\n",
                     L + 6, Y(0.75) + 14);
  // Axes, grid and ticks.
  for (int pct = 0; pct <= 100; pct += 25)
    os << llvm::format("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                       "y2=\"%.1f\" stroke=\"#dddddd\"/>\n<text x=\"%.1f\" "
                       "y=\"%.1f\" text-anchor=\"end\">%d%%</text>\n",
                       L, Y(pct / 100.0), L + pw, Y(pct / 100.0), L - 6,
                       Y(pct / 100.0) + 4, pct);
  for (double e = x0; e <= x1 + 1e-9; e += 1)
    os << llvm::format("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                       "y2=\"%.1f\" stroke=\"#dddddd\"/>\n",
                       X(std::pow(10, e)), T, X(std::pow(10, e)), T + ph)
       << llvm::format("<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
                       X(std::pow(10, e)), T + ph + 18)
       << paramsLabel(std::pow(10, e)) << "</text>\n";
  os << llvm::format("<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                     "height=\"%.1f\" fill=\"none\" stroke=\"black\"/>\n",
                     L, T, pw, ph)
     << llvm::format("<text x=\"%.1f\" y=\"28\" text-anchor=\"middle\" "
                     "font-size=\"15\">Communication share of the training "
                     "step, best plan per point</text>\n",
                     L + pw / 2)
     << llvm::format("<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">"
                     "parameters (log scale); model scale: ",
                     L + pw / 2, T + ph + 40)
     << advise::scalingRuleName(r.rule) << "</text>\n"
     << llvm::format("<text x=\"18\" y=\"%.1f\" text-anchor=\"middle\" "
                     "transform=\"rotate(-90 18 %.1f)\">share of step time"
                     "</text>\n",
                     T + ph / 2, T + ph / 2);
  // One colour per hardware choice: in all (solid, circles), exposed
  // (dashed, squares).
  for (size_t h = 0; h < r.hardware.size(); ++h) {
    const char *color = kColors[h % svg::kNumColors];
    for (bool exposed : {false, true}) {
      std::string points;
      for (const advise::ProjectionPoint &p : r.points) {
        if (p.hardware != r.hardware[h] || !p.best || p.parameters <= 0)
          continue;
        const double y = Y(exposed ? p.share.exposedShare : p.share.totalShare);
        const double x = X(double(p.parameters));
        char buf[64];
        snprintf(buf, sizeof(buf), "%.1f,%.1f ", x, y);
        points += buf;
        if (exposed)
          os << llvm::format("<rect x=\"%.1f\" y=\"%.1f\" width=\"6\" "
                             "height=\"6\" fill=\"%s\"/>\n",
                             x - 3, y - 3, color);
        else
          os << llvm::format("<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" "
                             "fill=\"%s\"/>\n",
                             x, y, color);
      }
      os << "<polyline fill=\"none\" stroke=\"" << color
         << "\" stroke-width=\"2\""
         << (exposed ? " stroke-dasharray=\"6,4\"" : "") << " points=\""
         << points << "\"/>\n";
    }
    const double ly = T + 10 + 20 * double(h);
    os << llvm::format("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                       "y2=\"%.1f\" stroke=\"%s\" stroke-width=\"3\"/>\n",
                       L + pw + 15, ly, L + pw + 40, ly, color)
       << llvm::format("<text x=\"%.1f\" y=\"%.1f\">", L + pw + 46, ly + 4)
       << escape(r.hardware[h]) << "</text>\n";
  }
  const double ly = T + 20 + 20 * double(r.hardware.size());
  os << llvm::format("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                     "stroke=\"black\" stroke-width=\"2\"/>\n<text x=\"%.1f\" "
                     "y=\"%.1f\">in all (serialized)</text>\n",
                     L + pw + 15, ly, L + pw + 40, ly, L + pw + 46, ly + 4)
     << llvm::format("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                     "stroke=\"black\" stroke-width=\"2\" "
                     "stroke-dasharray=\"6,4\"/>\n<text x=\"%.1f\" "
                     "y=\"%.1f\">exposed</text>\n",
                     L + pw + 15, ly + 20, L + pw + 40, ly + 20, L + pw + 46,
                     ly + 24)
     << llvm::format("<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" "
                     "fill=\"#555555\">in all: communication / (step with "
                     "nothing overlapped); exposed: / step; the bubble is "
                     "not communication</text>\n",
                     L, H - 12)
     << "</svg>\n";
}

void tshape::report::writeText(llvm::raw_ostream &os,
                               const ProjectionReport &rep) {
  const advise::ProjectionResult &r = rep.result;
  os << rep.model << ": projection, rule " << advise::scalingRuleName(r.rule)
     << " (" << advise::scalingRuleSource(r.rule) << ")\n";
  os << llvm::format("%zu points searched in %.2f s\n", r.points.size(),
                     rep.seconds);
  os << llvm::format("%-8s %8s %5s %6s  %-28s %9s %6s %6s %6s %6s  %s\n",
                     "model", "params", "GPUs", "batch", "hardware", "step (s)",
                     "MFU", "comm", "expos", "bubble", "plan");
  for (const advise::ProjectionPoint &p : r.points) {
    os << llvm::format("%-8s %8s %5lld %6lld  %-28s ", p.model.name.c_str(),
                       paramsLabel(double(p.parameters)).c_str(),
                       (long long)p.gpus, (long long)p.globalBatch,
                       p.hardware.c_str());
    if (!p.best) {
      os << p.noFit << "\n";
      continue;
    }
    os << llvm::format("%9.3f %5.1f%% %5.1f%% %5.1f%% %5.1f%%  ",
                       p.best->step.stepTime, 100 * p.best->step.mfu,
                       100 * p.share.totalShare, 100 * p.share.exposedShare,
                       100 * p.share.bubbleShare)
       << p.best->describe();
    if (p.unvisited)
      os << " [search stopped at its bound: " << p.unvisited << " not visited]";
    os << "\n";
  }
  os << "comm: communication in all over the step with nothing overlapped; "
        "expos: exposed communication over the step; bubble: the pipeline "
        "bubble over the step (not communication)\n";
}
