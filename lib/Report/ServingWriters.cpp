//===- ServingWriters.cpp - tshape serve's JSON and terminal summary ------===//

#include "tshape/Report/ServingReport.h"

#include "tshape/Report/Svg.h"
#include "tshape/Support/DType.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace tshape;
using namespace tshape::report;
namespace json = llvm::json;

namespace {
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
double round6(double v) { return std::round(v * 1e6) / 1e6; }
double round3(double v) { return std::round(v * 1e3) / 1e3; }

json::Value launchJson(const std::optional<ServingLaunch> &l,
                       const std::string &error) {
  if (!l)
    return json::Object{{"error", error}};
  json::Array notes;
  for (const std::string &n : l->notes)
    notes.push_back(n);
  return json::Object{{"command", l->command},
                      {"arguments", l->arguments},
                      {"options_yaml", l->optionsYaml},
                      {"notes", std::move(notes)}};
}

void launchText(llvm::raw_ostream &os, const std::optional<ServingLaunch> &l,
                const std::string &error, llvm::StringRef engine) {
  if (!l) {
    if (!error.empty())
      os << "launch: none: " << error << "\n";
    return;
  }
  os << "launch (" << engine << "):\n  " << l->command << "\n";
  for (const std::string &n : l->notes)
    os << "  # note: " << n << "\n";
  if (!l->optionsYaml.empty()) {
    llvm::SmallVector<llvm::StringRef> lines;
    llvm::StringRef(l->optionsYaml).split(lines, '\n', -1, false);
    for (llvm::StringRef line : lines)
      os << "  | " << line << "\n";
  }
}

/// Dollars per million output tokens of what is served: the rate's
/// tokens on the GPUs it needs, else the replica's throughput.
double servedCost(const ServingReport &r) {
  const double perGpu =
      r.rate ? r.rate->rate * double(r.workload.osl) / double(r.rate->gpus)
             : r.estimate.outputTokensPerSecondPerGpu;
  return cost::costPerMillionTokens(r.gpuHourPrice, perGpu);
}

/// The figures of one estimate, shared by the serving report and each
/// configuration of the search's.
void addFigures(json::Object &o, const cost::ServingEstimate &e) {
  o["concurrency"] = e.concurrency;
  o["memory_bound"] = e.memoryBound;
  o["tpot_ms"] = round6(e.tpotMs);
  o["itl_p90_ms"] = round6(e.itlP90Ms);
  o["ttft_ms"] = round6(e.ttftMs);
  o["ttft_prompt_ms"] = round6(e.promptMs);
  o["output_tokens_per_s_per_gpu"] = round3(e.outputTokensPerSecondPerGpu);
  o["output_tokens_per_s_per_user"] = round3(e.outputTokensPerSecondPerUser);
  o["requests_per_s"] = round6(e.requestsPerSecond);
}
} // namespace

json::Value tshape::report::servingJson(const ServingReport &r) {
  const cost::ServingEstimate &e = r.estimate;
  const cost::ServingPlan &p = r.config.plan;
  const cost::ServingMemory &m = e.memory;
  json::Array notes;
  for (const std::string &n : e.notes)
    notes.push_back(n);
  auto step = [](const cost::ServingStep &s) {
    return json::Object{{"decode_sequences", round3(s.decodeSequences)},
                        {"prefill_tokens", round3(s.prefillTokens)},
                        {"ms", round6(s.us / 1e3)}};
  };
  json::Object o{
      {"schema", "tshape-serve/1"},
      {"model", r.model},
      {"target", r.target},
      {"cluster", r.cluster},
      {"workload", json::Object{{"isl", r.workload.isl},
                                {"osl", r.workload.osl},
                                {"concurrency", r.workload.concurrency}}},
      {"config",
       json::Object{
           {"engine", e.rules.name},
           {"attention_tp", p.attentionTp},
           {"attention_dp", p.attentionDp},
           {"expert_ep", p.ep()},
           {"expert_tp", p.etp()},
           {"pp", p.pp},
           {"gpus", e.gpus},
           {"precision", r.config.precision
                             ? json::Value(precisionName(*r.config.precision))
                             : json::Value(nullptr)},
           {"kv_cache_dtype",
            r.config.kvCache ? json::Value(dtypeName(*r.config.kvCache))
                             : json::Value(nullptr)},
           {"max_num_tokens", e.tokenBudget},
           {"max_sequences", e.maxSequences},
           {"kv_cache_fraction", round3(e.kvFraction)},
           {"engine_defaults", e.rules.source}}},
      {"output_tokens_per_s", round3(e.outputTokensPerSecond)},
      {"steps_per_cycle", round3(e.steps)},
      {"prefill_steps_per_cycle", round3(e.prefillSteps)},
      {"decode_step", step(e.decodeStep)},
      {"prefill_step", step(e.prefillStep)},
      {"memory_gib",
       json::Object{{"capacity", round3(m.capacity / kGiB)},
                    {"weights", round3(m.weights / kGiB)},
                    {"activations", round3(m.activations / kGiB)},
                    {"kv_cache", round3(m.kvCache / kGiB)},
                    {"per_request", round6(m.perSequence / kGiB)}}},
      {"cache_requests", m.cacheRequests},
      {"notes", std::move(notes)},
      {"launch", launchJson(r.launch, r.launchError)},
      {"cost_per_million_tokens", round6(servedCost(r))},
  };
  if (r.rate)
    o["rate"] = json::Object{{"requests_per_s", r.rate->rate},
                             {"replicas", r.rate->replicas},
                             {"gpus", r.rate->gpus}};
  addFigures(o, e);
  return json::Value(std::move(o));
}

void tshape::report::writeServingText(const ServingReport &r,
                                      llvm::raw_ostream &os) {
  const cost::ServingEstimate &e = r.estimate;
  const cost::ServingMemory &m = e.memory;
  os << "tshape serve: " << r.model << " on " << e.gpus << " x " << r.target
     << " (" << r.config.plan.str() << "), " << (e.rules.name)
     << ", isl " << r.workload.isl << ", osl " << r.workload.osl << "\n";
  if (r.rate)
    os << llvm::format("at %g requests/s: %lld replica%s (%lld GPU%s), each "
                       "serving %g requests/s; %.0f output tokens/s, %.1f "
                       "per GPU\n",
                       r.rate->rate, (long long)r.rate->replicas,
                       r.rate->replicas == 1 ? "" : "s",
                       (long long)r.rate->gpus, r.rate->gpus == 1 ? "" : "s",
                       r.rate->rate / double(r.rate->replicas),
                       r.rate->rate * double(r.workload.osl),
                       r.rate->rate * double(r.workload.osl) /
                           double(r.rate->gpus));
  os << llvm::format("%lld request%s in flight", (long long)e.concurrency,
                     e.concurrency == 1 ? "" : "s")
     << (e.memoryBound ? " (as many as the KV cache holds)" : "") << "\n";
  if (e.tpotMs > 0)
    os << llvm::format("time per output token: %.2f ms (%.1f tokens/s per "
                       "user), p90 inter-token latency %.2f ms\n",
                       e.tpotMs, e.outputTokensPerSecondPerUser, e.itlP90Ms);
  if (e.ttftMs > e.promptMs * 1.001)
    os << llvm::format("time to first token: %.1f ms (its prompt %.1f ms, "
                       "waiting for the token budget %.1f ms)\n",
                       e.ttftMs, e.promptMs, e.ttftMs - e.promptMs);
  else
    os << llvm::format("time to first token: %.1f ms (its prompt's steps)\n",
                       e.ttftMs);
  os << llvm::format("output: %.0f tokens/s per GPU, %.0f per replica, "
                     "%.2f requests/s\n",
                     e.outputTokensPerSecondPerGpu, e.outputTokensPerSecond,
                     e.requestsPerSecond);
  os << llvm::format("memory per GPU: %.1f GiB weights, %.1f GiB "
                     "activations, %.1f GiB KV cache of %.1f GiB "
                     "(%lld requests of %lld tokens)\n",
                     m.weights / kGiB, m.activations / kGiB, m.kvCache / kGiB,
                     m.capacity / kGiB, (long long)m.cacheRequests,
                     (long long)(r.workload.isl + r.workload.osl));
  if (r.gpuHourPrice > 0)
    os << llvm::format("cost: $%.3f per million output tokens at $%g per "
                       "GPU-hour%s\n",
                       servedCost(r), r.gpuHourPrice,
                       r.rate ? " (the rate's tokens on its GPUs)" : "");
  for (const std::string &n : e.notes)
    os << "note: " << n << "\n";
  launchText(os, r.launch, r.launchError, e.rules.name);
}

void tshape::report::writeJson(llvm::raw_ostream &os, const ServingReport &r) {
  os << llvm::formatv("{0:2}", servingJson(r)) << "\n";
}

void tshape::report::writeMarkdown(llvm::raw_ostream &os,
                                   const ServingReport &r) {
  os << "# Serving " << r.model << "\n\n```\n";
  writeServingText(r, os);
  os << "```\n";
}

namespace {
json::Value candidateJson(const advise::ServingCandidate &c) {
  const cost::ServingEstimate &e = c.estimate;
  const cost::ServingPlan &p = c.config.plan;
  json::Object o{
      {"attention_tp", p.attentionTp},
      {"attention_dp", p.attentionDp},
      {"expert_ep", p.ep()},
      {"expert_tp", p.etp()},
      {"gpus", e.gpus},
      {"precision", c.config.precision
                        ? json::Value(precisionName(*c.config.precision))
                        : json::Value(nullptr)},
      {"meets", c.meets},
      {"miss", c.miss},
      {"replicas", c.replicas},
      {"total_gpus", c.totalGpus},
      {"cost_per_million_tokens", round6(c.costPerMillion)},
  };
  addFigures(o, e);
  return json::Value(std::move(o));
}

void candidateLine(llvm::raw_ostream &os, const advise::ServingCandidate &c,
                   const advise::ServingTargets &t) {
  const cost::ServingEstimate &e = c.estimate;
  os << llvm::format("  %-56s %9.0f %9.1f %9.1f %9.2f %9.2f",
                     advise::describe(c).c_str(),
                     e.outputTokensPerSecondPerGpu,
                     e.outputTokensPerSecondPerUser, e.ttftMs, e.tpotMs,
                     e.itlP90Ms);
  if (t.rate > 0)
    os << llvm::format(" %9lld", (long long)c.totalGpus);
  if (t.gpuHourPrice > 0)
    os << llvm::format(" %9.3f", c.costPerMillion);
  if (!c.meets)
    os << "  (" << c.miss << ")";
  os << "\n";
}

void candidateHeader(llvm::raw_ostream &os, const advise::ServingTargets &t) {
  os << llvm::format("  %-56s %9s %9s %9s %9s %9s", "configuration",
                     "tok/s/GPU", "tok/s/usr", "TTFT ms", "TPOT ms",
                     "p90 ITL");
  if (t.rate > 0)
    os << llvm::format(" %9s", "GPUs");
  if (t.gpuHourPrice > 0)
    os << llvm::format(" %9s", "$/Mtok");
  os << "\n";
}
} // namespace

void tshape::report::writeJson(llvm::raw_ostream &os,
                               const ServingSearchReport &r) {
  const advise::ServingSearchResult &res = r.result;
  json::Array best, pareto, rejections, bounds;
  for (const advise::ServingCandidate &c : res.best)
    best.push_back(candidateJson(c));
  for (const advise::ServingCandidate &c : res.pareto)
    pareto.push_back(candidateJson(c));
  for (const auto &[kind, n] : res.rejections)
    rejections.push_back(json::Object{
        {"reason", kind},
        {"layouts", n},
        {"example", res.rejectionExamples.count(kind)
                        ? res.rejectionExamples.at(kind)
                        : std::string()}});
  for (const std::string &b : res.boundNotes)
    bounds.push_back(b);
  json::Object o{
      {"schema", "tshape-serve-search/1"},
      {"model", r.model},
      {"target", r.target},
      {"cluster", r.cluster},
      {"engine", cost::engineName(r.base.engine)},
      {"workload", json::Object{{"isl", r.workload.isl},
                                {"osl", r.workload.osl}}},
      {"targets", json::Object{{"ttft_ms", r.targets.ttftMs},
                               {"tpot_ms", r.targets.tpotMs},
                               {"rate", r.targets.rate},
                               {"gpu_hour_price", r.targets.gpuHourPrice}}},
      {"gpus_per_replica", r.space.gpus},
      {"space", res.space},
      {"layouts", res.layouts},
      {"layouts_priced", res.layoutsPriced},
      {"evaluated", res.evaluated},
      {"meeting", res.meeting},
      {"seconds", round3(r.seconds)},
      {"best", std::move(best)},
      {"pareto", std::move(pareto)},
      {"rejections", std::move(rejections)},
      {"closest", res.closest ? candidateJson(*res.closest)
                              : json::Value(nullptr)},
      {"bounds", std::move(bounds)},
      {"launch", res.best.empty() ? json::Value(nullptr)
                                  : launchJson(r.launch, r.launchError)},
  };
  os << llvm::formatv("{0:2}", json::Value(std::move(o))) << "\n";
}

void tshape::report::writeMarkdown(llvm::raw_ostream &os,
                                   const ServingSearchReport &r) {
  os << "# Serving search: " << r.model << "\n\n```\n";
  writeServingSearchText(r, os);
  os << "```\n";
}

void tshape::report::writeServingSearchText(const ServingSearchReport &r,
                                            llvm::raw_ostream &os) {
  const advise::ServingSearchResult &res = r.result;
  os << "tshape serve --search: " << r.model << " on up to " << r.space.gpus
     << " x " << r.target << " a replica, "
     << cost::engineName(r.base.engine) << ", isl "
     << r.workload.isl << ", osl " << r.workload.osl << "\n";
  os << "targets: ";
  if (r.targets.ttftMs <= 0 && r.targets.tpotMs <= 0)
    os << "none";
  if (r.targets.ttftMs > 0)
    os << llvm::format("TTFT <= %g ms", r.targets.ttftMs);
  if (r.targets.tpotMs > 0)
    os << (r.targets.ttftMs > 0 ? ", " : "")
       << llvm::format("TPOT <= %g ms", r.targets.tpotMs);
  if (r.targets.rate > 0)
    os << llvm::format("; %g requests/s (GPUs: the replicas it needs)",
                       r.targets.rate);
  if (r.targets.gpuHourPrice > 0)
    os << llvm::format("; $%g per GPU-hour", r.targets.gpuHourPrice);
  os << "\n";
  os << llvm::format("searched %lld layouts (%lld priced), %lld "
                     "configurations with their requests in flight, %lld "
                     "meet the targets (space %lld, %.2f s)\n",
                     (long long)res.layouts, (long long)res.layoutsPriced,
                     (long long)res.evaluated, (long long)res.meeting,
                     (long long)res.space, r.seconds);
  if (!res.best.empty()) {
    os << "best per layout that meets the targets, by "
       << (r.targets.rate > 0 ? "the GPUs the rate needs, then " : "")
       << "tokens/s per GPU:\n";
    candidateHeader(os, r.targets);
    for (const advise::ServingCandidate &c : res.best)
      candidateLine(os, c, r.targets);
  } else if (res.closest) {
    os << "no configuration meets the targets; the closest: "
       << advise::describe(*res.closest) << " (" << res.closest->miss
       << ")\n";
    for (const std::string &b : res.boundNotes)
      os << "  " << b << "\n";
  }
  if (!res.pareto.empty()) {
    os << "Pareto front (tokens/s per GPU against tokens/s per user):\n";
    candidateHeader(os, r.targets);
    for (const advise::ServingCandidate &c : res.pareto)
      candidateLine(os, c, r.targets);
  }
  for (const auto &[kind, n] : res.rejections)
    os << "rejected: " << n << (n == 1 ? " layout: " : " layouts: ") << kind
       << " (e.g. " << res.rejectionExamples.at(kind) << ")\n";
  if (!res.best.empty()) {
    os << "the best configuration, ";
    launchText(os, r.launch, r.launchError, cost::engineName(r.base.engine));
  }
}

namespace {
void candidateTable(llvm::raw_ostream &os,
                    const std::vector<advise::ServingCandidate> &cands) {
  using report::svg::escape;
  os << "<table>\n<tr><th>configuration</th><th class=\"n\">tokens/s per "
        "GPU</th><th class=\"n\">tokens/s per user</th><th class=\"n\">"
        "TTFT ms</th><th class=\"n\">TPOT ms</th><th class=\"n\">p90 ITL "
        "ms</th><th>targets</th></tr>\n";
  for (const advise::ServingCandidate &c : cands) {
    const cost::ServingEstimate &e = c.estimate;
    os << "<tr" << (c.meets ? "" : " class=\"fail\"") << "><td>"
       << escape(advise::describe(c)) << "</td>"
       << llvm::format("<td class=\"n\">%.0f</td><td class=\"n\">%.1f</td>"
                       "<td class=\"n\">%.1f</td><td class=\"n\">%.2f</td>"
                       "<td class=\"n\">%.2f</td>",
                       e.outputTokensPerSecondPerGpu,
                       e.outputTokensPerSecondPerUser, e.ttftMs, e.tpotMs,
                       e.itlP90Ms)
       << "<td>" << (c.meets ? "met" : escape(c.miss)) << "</td></tr>\n";
  }
  os << "</table>\n";
}
} // namespace

void tshape::report::writeServingSearchHtml(const ServingSearchReport &r,
                                            llvm::raw_ostream &os) {
  using svg::escape;
  const advise::ServingSearchResult &res = r.result;
  svg::openPage(os, "tshape serve --search: " + r.model + " on " + r.target);
  os << "<p class=\"sub\">" << escape(cost::engineName(r.base.engine))
     << ", isl " << r.workload.isl << ", osl " << r.workload.osl
     << ", up to " << r.space.gpus << " GPUs a replica; targets: ";
  if (r.targets.ttftMs <= 0 && r.targets.tpotMs <= 0)
    os << "none";
  if (r.targets.ttftMs > 0)
    os << llvm::format("TTFT &lt;= %g ms ", r.targets.ttftMs);
  if (r.targets.tpotMs > 0)
    os << llvm::format("TPOT &lt;= %g ms", r.targets.tpotMs);
  os << llvm::format(".</p>\n<div class=\"cards\"><div class=\"card\">"
                     "layouts<b>%lld</b>%lld priced</div><div class=\"card\">"
                     "configurations<b>%lld</b>%lld meet the targets</div>",
                     (long long)res.layouts, (long long)res.layoutsPriced,
                     (long long)res.evaluated, (long long)res.meeting);
  if (!res.best.empty())
    os << llvm::format("<div class=\"card\">best<b>%.0f tokens/s per GPU"
                       "</b>",
                       res.best.front().estimate.outputTokensPerSecondPerGpu)
       << escape(advise::describe(res.best.front())) << "</div>";
  os << "</div>\n";

  // The plot: the front joined by a line, every configuration and those
  // that meet the targets as dots; the TPOT target as the per-user line.
  std::vector<svg::Series> series(3);
  series[0] = {"configurations", "#bbbbbb", {}, false, 2.5};
  series[1] = {"meet the targets", svg::kColors[2], {}, false, 3};
  series[2] = {"Pareto front", svg::kColors[0], {}, true, 3.5};
  for (const advise::ServingCandidate &c : res.all) {
    const auto pt = std::make_pair(c.estimate.outputTokensPerSecondPerUser,
                                   c.estimate.outputTokensPerSecondPerGpu);
    series[c.meets ? 1 : 0].points.push_back(pt);
  }
  for (const advise::ServingCandidate &c : res.pareto)
    series[2].points.push_back({c.estimate.outputTokensPerSecondPerUser,
                                c.estimate.outputTokensPerSecondPerGpu});
  std::vector<svg::Marker> markers;
  if (r.targets.tpotMs > 0)
    markers.push_back({1e3 / r.targets.tpotMs,
                       [&] {
                       std::string t;
                       llvm::raw_string_ostream(t)
                           << llvm::format("TPOT %g ms", r.targets.tpotMs);
                       return t;
                     }(),
                       svg::kColors[1]});
  os << "<h2 id=\"pareto\">Pareto front</h2>\n<div class=\"fig\">";
  svg::scatterChart(os, "Output tokens/s per GPU against tokens/s per user",
                    "tokens/s per user", "tokens/s per GPU", series,
                    markers);
  os << "</div>\n";
  candidateTable(os, res.pareto);
  os << "<h2 id=\"best\">Best per layout</h2>\n";
  if (!res.best.empty())
    candidateTable(os, res.best);
  else if (res.closest) {
    os << "<p>No configuration meets the targets; the closest: "
       << escape(advise::describe(*res.closest)) << " ("
       << escape(res.closest->miss) << ").</p>\n<ul>\n";
    for (const std::string &b : res.boundNotes)
      os << "<li>" << escape(b) << "</li>\n";
    os << "</ul>\n";
  }
  if (!res.rejections.empty()) {
    os << "<h2 id=\"rejected\">Rejected layouts</h2>\n<table>\n<tr><th>"
          "reason</th><th class=\"n\">layouts</th><th>first message</th>"
          "</tr>\n";
    for (const auto &[kind, n] : res.rejections)
      os << "<tr><td>" << escape(kind) << "</td><td class=\"n\">" << n
         << "</td><td>" << escape(res.rejectionExamples.at(kind))
         << "</td></tr>\n";
    os << "</table>\n";
  }
  os << "</body>\n</html>\n";
}
