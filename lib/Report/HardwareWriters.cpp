//===- HardwareWriters.cpp - The hardware co-search's report --------------===//
//
// A hardware co-search (HardwareReport.h, advise::searchHardware) as JSON
// (schema tshape-plan-hardware/1, docs/report-schema.md), Markdown and the
// tool's terminal summary.
//
//===----------------------------------------------------------------------===//

#include "tshape/Report/HardwareReport.h"
#include "tshape/Report/PlanReport.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"

using namespace tshape;
using namespace tshape::report;

namespace {
const char *rankingKey(advise::HardwareRanking r) {
  return r == advise::HardwareRanking::TokensPerDollar ? "tokens_per_dollar"
                                                       : "tokens_per_s_per_gpu";
}
const char *rankingWords(advise::HardwareRanking r) {
  return r == advise::HardwareRanking::TokensPerDollar
             ? "tokens per dollar (prices per GPU-hour are user inputs)"
             : "tokens/s per GPU";
}

/// The outcome's key over the best's: 1 for the best, 0 when nothing fits.
double relative(const advise::HardwareSearchResult &r,
                const advise::HardwareOutcome &o) {
  const double best = r.outcomes.empty() ? 0 : r.key(r.outcomes.front());
  return best > 0 ? r.key(o) / best : 0;
}

/// How the choice's search ended, in one line: the counts, and the bound
/// when it was hit.
std::string searchLine(const advise::PlanSearchResult &s) {
  std::string line = std::to_string(s.spaceSize) + " candidates, " +
                     std::to_string(s.priced) + " priced, " +
                     std::to_string(s.timed) + " fit";
  if (s.bounded())
    line += "; stopped at the bound with " + std::to_string(s.unvisited) +
            " not visited";
  return line;
}
} // namespace

void tshape::report::writeJson(llvm::raw_ostream &os,
                               const HardwareSearchReport &rep) {
  const advise::HardwareSearchResult &r = rep.result;
  llvm::json::OStream j(os, 2);
  j.object([&] {
    j.attribute("schema", "tshape-plan-hardware/1");
    j.attribute("model", rep.model);
    j.attribute("gpus", rep.gpus);
    j.attribute("global_batch", rep.globalBatch);
    j.attribute("memory_limit_gib", rep.memoryLimitGiB);
    j.attribute("ranked_by", rankingKey(r.ranking));
    j.attributeArray("hardware", [&] {
      int64_t rank = 0;
      for (const advise::HardwareOutcome &o : r.outcomes)
        j.object([&] {
          const advise::HardwareChoice &c = o.choice;
          const advise::PlanSearchResult &s = o.search;
          j.attribute("rank", ++rank);
          j.attribute("label", c.label);
          j.attribute("base", c.base);
          j.attribute("cluster", c.hw.cluster.name);
          j.attribute("target", c.hw.target.name);
          j.attributeObject("factors", [&] {
            j.attribute("compute", c.factors.compute);
            j.attribute("hbm_bw", c.factors.hbmBandwidth);
            j.attribute("hbm", c.factors.hbmCapacity);
            j.attribute("link", c.factors.link);
            j.attribute("nvlink", c.factors.nvlink);
            j.attribute("network", c.factors.network);
          });
          if (c.pricePerGpuHour)
            j.attribute("price_per_gpu_hour", *c.pricePerGpuHour);
          j.attribute("memory_limit_gib", s.memoryLimitGiB);
          writeCandidatesJson(j, s);
          if (const advise::PlanCandidate *b = o.best()) {
            j.attribute("relative", relative(r, o));
            if (c.pricePerGpuHour)
              j.attribute("tokens_per_dollar", o.tokensPerDollar());
            j.attribute("description", b->describe());
            j.attributeObject(
                "best", [&] { writePlanJson(j, b->config, b->plan, b->step); });
          } else {
            j.attribute("no_plan_fits", advise::noPlanFits(s));
          }
        });
    });
  });
  os << "\n";
}

void tshape::report::writeMarkdown(llvm::raw_ostream &os,
                                   const HardwareSearchReport &rep) {
  const advise::HardwareSearchResult &r = rep.result;
  const bool priced = r.ranking == advise::HardwareRanking::TokensPerDollar;
  os << "# tshape hardware co-search: " << rep.model << " on " << rep.gpus
     << " GPUs\n\nGlobal batch " << rep.globalBatch << "; each hardware "
     << "choice's best plan from the plan search; ranked by "
     << rankingWords(r.ranking) << ".\n\n"
     << "| # | hardware | best plan | step (s) | tokens/s per GPU | TFLOP/s "
        "per GPU | MFU | memory (GiB) |";
  if (priced)
    os << " price per GPU-hour | tokens per dollar |";
  os << " vs best | search |\n| ---: | --- | --- | ---: | ---: | ---: | ---: "
        "| ---: |";
  if (priced)
    os << " ---: | ---: |";
  os << " ---: | --- |\n";
  int64_t rank = 0;
  for (const advise::HardwareOutcome &o : r.outcomes) {
    os << "| " << ++rank << " | " << o.choice.label << " | ";
    if (const advise::PlanCandidate *b = o.best()) {
      os << b->describe()
         << llvm::format(" | %.3f | %.0f | %.1f | %.1f%% | %.1f |",
                         b->step.stepTime, b->step.tokensPerSPerGpu,
                         b->step.tflopsPerGpu, 100 * b->step.mfu, b->peakGiB());
      if (priced)
        os << llvm::format(" %.2f | %.0f |", *o.choice.pricePerGpuHour,
                           o.tokensPerDollar());
      os << llvm::format(" %.2f |", relative(r, o));
    } else {
      os << advise::noPlanFits(o.search) << " | | | | | |";
      if (priced)
        os << llvm::format(" %.2f | |", *o.choice.pricePerGpuHour);
      os << " |";
    }
    os << " " << searchLine(o.search) << " |\n";
  }
}

void tshape::report::writeText(llvm::raw_ostream &os,
                               const HardwareSearchReport &rep) {
  const advise::HardwareSearchResult &r = rep.result;
  const bool priced = r.ranking == advise::HardwareRanking::TokensPerDollar;
  os << rep.model << ": hardware co-search on " << rep.gpus
     << " GPUs, global batch " << rep.globalBatch << "; ranked by "
     << rankingWords(r.ranking) << "\n";
  os << llvm::format("searched %zu hardware choices in %.2f s\n",
                     r.outcomes.size(), rep.seconds);
  int64_t rank = 0;
  for (const advise::HardwareOutcome &o : r.outcomes) {
    os << llvm::format("%3lld. %s\n", (long long)++rank,
                       o.choice.label.c_str());
    if (const advise::PlanCandidate *b = o.best()) {
      os << llvm::format("     %.3f s  %6.0f tok/s/GPU  %5.1f TFLOP/s  MFU "
                         "%4.1f%%  %5.1f GiB",
                         b->step.stepTime, b->step.tokensPerSPerGpu,
                         b->step.tflopsPerGpu, 100 * b->step.mfu, b->peakGiB());
      if (priced)
        os << llvm::format("  %.0f tokens/$ at %.2f per GPU-hour",
                           o.tokensPerDollar(), *o.choice.pricePerGpuHour);
      os << llvm::format("  x%.2f of the best\n", relative(r, o));
      os << "     " << b->describe() << "\n";
    } else {
      os << "     " << advise::noPlanFits(o.search) << "\n";
    }
    os << "     " << searchLine(o.search) << "\n";
  }
}
