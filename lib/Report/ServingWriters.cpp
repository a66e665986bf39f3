//===- ServingWriters.cpp - tshape serve's JSON and terminal summary ------===//

#include "tshape/Report/ServingReport.h"

#include "tshape/Support/DType.h"

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
  return json::Object{
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
      {"concurrency", e.concurrency},
      {"memory_bound", e.memoryBound},
      {"tpot_ms", round6(e.tpotMs)},
      {"tpot_p90_ms", round6(e.tpotP90Ms)},
      {"ttft_ms", round6(e.ttftMs)},
      {"output_tokens_per_s", round3(e.outputTokensPerSecond)},
      {"output_tokens_per_s_per_gpu", round3(e.outputTokensPerSecondPerGpu)},
      {"output_tokens_per_s_per_user", round3(e.outputTokensPerSecondPerUser)},
      {"requests_per_s", round6(e.requestsPerSecond)},
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
  };
}

void tshape::report::writeServingText(const ServingReport &r,
                                      llvm::raw_ostream &os) {
  const cost::ServingEstimate &e = r.estimate;
  const cost::ServingMemory &m = e.memory;
  os << "tshape serve: " << r.model << " on " << e.gpus << " x " << r.target
     << " (" << r.config.plan.str() << "), " << (e.rules.name)
     << ", isl " << r.workload.isl << ", osl " << r.workload.osl << "\n";
  os << llvm::format("%lld request%s in flight", (long long)e.concurrency,
                     e.concurrency == 1 ? "" : "s")
     << (e.memoryBound ? " (as many as the KV cache holds)" : "") << "\n";
  if (e.tpotMs > 0)
    os << llvm::format("time per output token: %.2f ms mean, %.2f ms p90 "
                       "(%.1f tokens/s per user)\n",
                       e.tpotMs, e.tpotP90Ms, e.outputTokensPerSecondPerUser);
  os << llvm::format("time to first token: %.1f ms (its prompt's steps; "
                     "no queueing)\n",
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
  for (const std::string &n : e.notes)
    os << "note: " << n << "\n";
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
