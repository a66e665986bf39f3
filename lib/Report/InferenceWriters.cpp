//===- InferenceWriters.cpp - tshape-inference-report's report -------------===//
//
// One serving step per function (InferenceReport.h) as JSON (schema
// tshape-inference/1, docs/report-schema.md) and Markdown.
//
//===----------------------------------------------------------------------===//

#include "tshape/Report/InferenceReport.h"
#include "tshape/Cost/Memory.h"
#include "tshape/Report/Writers.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"

#include <cmath>

using namespace tshape;
using namespace tshape::report;
using cost::kGiB;

namespace {
/// "; <lead> 80 GiB: 33", or, when the weights alone fill the memory,
/// what they need and what to change ("" when the target states no
/// memory).
std::string batchFit(const cost::InferenceEstimate &e, const char *lead) {
  const cost::InferenceMemory &m = e.memory;
  if (m.maxBatch < 0)
    return "";
  char buf[200];
  if (m.maxBatch == 0 && m.weights >= m.capacity)
    snprintf(buf, sizeof(buf),
             "; no sequence fits %.0f GiB: the weights alone need %.2f GiB "
             "per GPU (raise tp)",
             m.capacity / kGiB, m.weights / kGiB);
  else
    snprintf(buf, sizeof(buf), "; %s %.0f GiB: %lld", lead, m.capacity / kGiB,
             (long long)m.maxBatch);
  return buf;
}

double round3(double v) { return std::round(v * 1e3) / 1e3; }

/// " + workspace 0.94 (MLA context: ...)" when the model holds MLA's
/// context workspace, else "".
std::string workspaceTerm(const cost::InferenceMemory &m) {
  if (m.workspace <= 0)
    return "";
  std::string s;
  llvm::raw_string_ostream os(s);
  os << llvm::format(" + workspace %.2f (MLA context: gathered latents %.2f",
                     m.workspace / kGiB,
                     (m.workspace - m.workspacePiece) / kGiB);
  if (m.workspacePieceTokens > 0)
    os << llvm::format(", up-projected piece of %lld tokens x %.0f bytes "
                       "%.2f",
                       (long long)m.workspacePieceTokens, m.workspacePerToken,
                       m.workspacePiece / kGiB);
  os << ")";
  return s;
}

std::string runLine(const InferenceReport::Function &f) {
  const cost::InferenceEstimate &e = f.estimate;
  std::string s = std::string(model::phaseName(e.run.phase)) + ", batch " +
                  std::to_string(e.sequences) + ", " +
                  std::to_string(e.queries) + " token" +
                  (e.queries == 1 ? "" : "s") + " per sequence";
  if (e.run.draft)
    s += " (1 + " + std::to_string(e.run.draft) + " draft)";
  s += ", kv length " + std::to_string(e.keys);
  s += ", tp " + std::to_string(e.tp);
  s += std::string(", ") + model::dtypeName(f.config.dtype) + " weights, ";
  // An FP8 precision: the linear layers' weights and GEMMs run at it.
  if (e.run.precision && *e.run.precision != Precision::BF16)
    s += std::string(precisionName(*e.run.precision)) + " linear layers, ";
  s += std::string(model::dtypeName(e.cacheDType)) + " cache";
  return s;
}

void shareAttrs(llvm::json::OStream &j, const cost::TimeShares &s) {
  j.attribute("weights_us", round3(s.weightsUs));
  j.attribute("kv_cache_us", round3(s.cacheUs));
  j.attribute("activations_us", round3(s.activationsUs));
  j.attribute("compute_us", round3(s.computeUs));
  j.attribute("communication_us", round3(s.communicationUs));
  j.attribute("launch_us", round3(s.launchUs));
}
} // namespace

std::string tshape::report::summaryLine(const InferenceReport::Function &f,
                                        const target::GpuTarget &t) {
  const cost::InferenceEstimate &e = f.estimate;
  std::string s;
  llvm::raw_string_ostream os(s);
  os << runLine(f) << " on " << t.name << ": "
     << llvm::format("step %.1f us, %.3f ms per token, %.0f tokens/s per "
                     "GPU, %.1f per sequence; ",
                     e.stepUs, e.perTokenMs, e.tokensPerSecondPerGpu,
                     e.tokensPerSecondPerSequence)
     << (e.memoryBound() ? "memory-bound" : "compute-bound")
     << llvm::format("; memory per GPU %.2f GiB (weights %.2f, KV cache "
                     "%.2f, activations %.2f)",
                     e.memory.total() / kGiB, e.memory.weights / kGiB,
                     e.memory.kvCache / kGiB, e.memory.activations / kGiB);
  if (e.memory.workspace > 0)
    os << llvm::format("; MLA workspace %.2f", e.memory.workspace / kGiB);
  os << batchFit(e, "largest batch that fits");
  return s;
}

void tshape::report::writeJson(llvm::raw_ostream &os,
                               const InferenceReport &r) {
  llvm::json::OStream j(os, 2);
  j.object([&] {
    j.attribute("schema", "tshape-inference/1");
    j.attribute("target", r.target.name);
    j.attributeArray("functions", [&] {
      for (const InferenceReport::Function &f : r.functions) {
        const cost::InferenceEstimate &e = f.estimate;
        j.object([&] {
          j.attribute("name", f.name);
          j.attribute("phase", model::phaseName(e.run.phase));
          j.attribute("batch", e.sequences);
          j.attribute("queries", e.queries);
          j.attribute("draft", e.run.draft);
          j.attribute("kv_length", e.keys);
          j.attribute("tp", e.tp);
          j.attribute("kv_cache_dtype", model::dtypeName(e.cacheDType));
          j.attribute("cluster", e.cluster);
          j.attribute("step_us", round3(e.stepUs));
          j.attribute("per_token_ms", round3(e.perTokenMs));
          j.attribute("tokens_per_s_per_gpu", round3(e.tokensPerSecondPerGpu));
          j.attribute("tokens_per_s_per_sequence",
                      round3(e.tokensPerSecondPerSequence));
          j.attribute("memory_bound", e.memoryBound());
          j.attributeObject("time", [&] { shareAttrs(j, e.shares); });
          j.attributeObject("memory", [&] {
            j.attribute("weights_gib", round3(e.memory.weights / kGiB));
            j.attribute("kv_cache_gib", round3(e.memory.kvCache / kGiB));
            j.attribute("activations_gib",
                        round3(e.memory.activations / kGiB));
            j.attribute("workspace_gib", round3(e.memory.workspace / kGiB));
            j.attribute("workspace_piece_tokens",
                        e.memory.workspacePieceTokens);
            j.attribute("total_gib", round3(e.memory.total() / kGiB));
            j.attribute("capacity_gib", round3(e.memory.capacity / kGiB));
            j.attribute("kv_cache_bytes_per_token", e.memory.cachePerToken);
            j.attribute("kv_cache_bytes_per_sequence",
                        e.memory.cachePerSequence);
            j.attribute("max_batch", e.memory.maxBatch);
          });
          j.attributeArray("kernels", [&] {
            for (const cost::InferenceKernel &k : e.kernels)
              j.object([&] {
                j.attribute("name", k.name);
                j.attribute("kind", model::kernelKindName(k.kind));
                j.attribute("count", k.count);
                j.attribute("batch", k.batch);
                j.attribute("m", k.m);
                j.attribute("n", k.n);
                j.attribute("k", k.k);
                j.attribute("us", round3(k.us));
                j.attribute("flops", k.flops);
                j.attribute("regime", k.regime);
                j.attribute("intensity", round3(k.intensity));
                if (k.ridge > 0)
                  j.attribute("ridge", round3(k.ridge));
                if (!k.supported)
                  j.attribute("unsupported", k.unsupported);
              });
          });
          j.attributeArray("findings", [&] {
            for (const advise::InferenceFinding &x : f.findings)
              j.object([&] {
                j.attribute("kind", x.kind);
                j.attribute("parameter", model::paramName(x.parameter));
                j.attribute("value", x.value);
                j.attribute("suggested", x.suggested);
                j.attribute("message", x.message);
              });
            for (const advise::Finding &x : f.shapeFindings)
              j.object([&] {
                j.attribute("kind", "shape");
                j.attribute("parameter", model::paramName(x.parameter));
                j.attribute("value", x.value);
                j.attribute("suggested", x.suggested);
                j.attribute("message", x.reason);
              });
          });
          j.attributeArray("notes", [&] {
            for (const std::string &n : e.notes)
              j.value(n);
          });
        });
      }
    });
  });
  os << "\n";
}

void tshape::report::writeMarkdown(llvm::raw_ostream &os,
                                   const InferenceReport &r) {
  os << "# tshape inference report: " << r.target.description << "\n\n";
  for (const InferenceReport::Function &f : r.functions) {
    const cost::InferenceEstimate &e = f.estimate;
    const double step = std::max(e.stepUs, 1e-9);
    os << "## " << f.name << ": " << runLine(f) << "\n\n"
       << llvm::format("- step: %.1f us; per token %.3f ms; %.0f tokens/s "
                       "per GPU, %.1f per sequence; %s\n",
                       e.stepUs, e.perTokenMs, e.tokensPerSecondPerGpu,
                       e.tokensPerSecondPerSequence,
                       e.memoryBound() ? "memory-bound" : "compute-bound")
       << llvm::format("- time: weights %.1f%%, KV cache %.1f%%, "
                       "activations %.1f%%, compute %.1f%%, communication "
                       "%.1f%%, launches %.1f%%\n",
                       100 * e.shares.weightsUs / step,
                       100 * e.shares.cacheUs / step,
                       100 * e.shares.activationsUs / step,
                       100 * e.shares.computeUs / step,
                       100 * e.shares.communicationUs / step,
                       100 * e.shares.launchUs / step)
       << llvm::format("- memory per GPU: %.2f GiB = weights %.2f + KV cache "
                       "%.2f (%.0f KiB per token) + activations %.2f",
                       e.memory.total() / kGiB, e.memory.weights / kGiB,
                       e.memory.kvCache / kGiB, e.memory.cachePerToken / 1024,
                       e.memory.activations / kGiB)
       << workspaceTerm(e.memory);
    os << batchFit(e, "largest batch in") << "\n";
    if (!e.cluster.empty())
      os << "- " << (e.tp > 1 ? "tensor-parallel all-reduces" : "collectives")
         << " priced on " << e.cluster << "\n";
    os << "\n| kernel | count | batch | M | N | K | us each | regime | "
          "FLOP/byte |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- "
          "| ---: |\n";
    for (const cost::InferenceKernel &k : e.kernels)
      os << "| " << k.name << " | " << k.count << " | " << k.batch << " | "
         << k.m << " | " << k.n << " | " << k.k << " | "
         << llvm::format("%.2f", k.us) << " | " << k.regime << " | "
         << llvm::format("%.1f", k.intensity) << " |\n";
    os << "\n### Findings\n\n";
    if (f.findings.empty() && f.shapeFindings.empty())
      os << "None.\n";
    for (const advise::InferenceFinding &x : f.findings)
      os << "- " << x.kind << " (" << model::paramName(x.parameter)
         << "): " << x.message << "\n";
    for (const advise::Finding &x : f.shapeFindings)
      os << "- shape (" << model::paramName(x.parameter) << " " << x.value
         << " -> " << x.suggested << "): " << x.reason << "\n";
    for (const std::string &n : e.notes)
      os << "- note: " << n << "\n";
    os << "\n";
  }
}
