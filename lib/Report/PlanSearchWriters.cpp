//===- PlanSearchWriters.cpp - tshape-plan --search's report ---------------===//
//
// A plan search (PlanReport.h, advise::searchPlans) as JSON (schema
// tshape-plan-search/1, docs/report-schema.md), Markdown and the tool's
// terminal summary.
//
//===----------------------------------------------------------------------===//

#include "tshape/Report/PlanReport.h"
#include "tshape/Report/Writers.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/FormatVariadic.h"

using namespace tshape;
using namespace tshape::report;

namespace {
const char *kMethod =
    "exhaustive over the space, with provable pruning: a cut removes a "
    "family of candidates that all break the rule named";

template <typename T, typename F>
std::string joined(const std::vector<T> &values, F str) {
  std::string s;
  for (const T &v : values)
    s += (s.empty() ? "" : ",") + str(v);
  return s;
}

std::string ints(const std::vector<int64_t> &v) {
  return joined(v, [](int64_t x) { return std::to_string(x); });
}

/// The space, one choice per line: "tp: 1,2,4,...".
std::vector<std::pair<std::string, std::string>>
spaceLines(const advise::PlanSpace &s) {
  return {
      {"tp", ints(s.tp)},
      {"pp", ints(s.pp)},
      {"cp", ints(s.cp)},
      {"ep", ints(s.ep)},
      {"microbatch", ints(s.microbatch)},
      {"virtual_stages", ints(s.virtualStages)},
      {"recompute", joined(s.recompute,
                           [](cost::Recompute r) {
                             return std::string(cost::recomputeName(r));
                           })},
      {"sequence_parallel",
       joined(s.sequenceParallel,
              [](bool b) { return std::string(b ? "on" : "off"); })},
      {"sharding", joined(s.sharding,
                          [](cost::StateSharding x) {
                            return std::string(cost::shardingName(x));
                          })},
      {"overlap_ep_comm",
       joined(s.overlapEpComm,
              [](bool b) { return std::string(b ? "on" : "off"); })},
  };
}

/// "heads 96 -> 128, ffn 49152 -> 49408", or "keep the shape".
std::string changesLine(const advise::SearchResult &s) {
  std::string line;
  for (const advise::Change &c : s.changes)
    line += (line.empty() ? "" : ", ") + c.parameter + " " +
            std::to_string(c.before) + " -> " + std::to_string(c.after);
  return line.empty() ? "keep the shape" : line;
}

/// The co-searched step time of one plan: its model's and the best shape's.
double gainOf(const PlanShapes &p) {
  return p.shapes.predAfter.us > 0 && p.shapes.predBefore.us > 0
             ? p.shapes.predBefore.us / p.shapes.predAfter.us - 1
             : 0;
}

void counts(llvm::raw_ostream &os, const advise::PlanSearchResult &r,
            const char *indent) {
  os << indent << r.spaceSize << " candidates in the space: " << r.cut
     << " cut by a rule, " << r.priced << " priced for memory, " << r.timed
     << " fit and timed";
  if (r.bounded())
    os << "; the search stopped at its bound with " << r.unvisited
       << " not visited";
  os << " (" << r.pricedShapes << " per-rank shapes priced)\n";
}
/// What a ranking's groups mean, with the band and where it was measured.
std::string equalsLine(const advise::PlanSearchResult &r) {
  return llvm::formatv(
             "plans within {0:F1}% of their group's fastest are equals (the "
             "step model's mean |error| on {1} held-out published runs; MoE "
             "runs up to +{2:F0}%): grouped g1, g2, ..., the conventional "
             "plan first (less recompute, the default sharding, fewer "
             "parallel dimensions, no interleaving), the rest by time; {3} "
             "plans in g1",
             100 * r.equalWithin, cost::kStepHeldOutRuns,
             100 * cost::kStepMoeWorstError, r.firstGroupSize)
      .str();
}
} // namespace

void tshape::report::writeCandidatesJson(llvm::json::OStream &j,
                                         const advise::PlanSearchResult &r) {
  j.attributeObject("candidates", [&] {
    j.attribute("space", r.spaceSize);
    j.attribute("cut", r.cut);
    j.attribute("priced", r.priced);
    j.attribute("fit", r.timed);
    j.attribute("unvisited", r.unvisited);
    j.attribute("bounded", r.bounded());
  });
}

void tshape::report::writeJson(llvm::raw_ostream &os,
                               const PlanSearchReport &rep) {
  const advise::PlanSearchResult &r = rep.result;
  llvm::json::OStream j(os, 2);
  j.object([&] {
    j.attribute("schema", "tshape-plan-search/1");
    j.attribute("model", rep.model);
    j.attribute("target", rep.target);
    j.attribute("cluster", rep.cluster);
    j.attribute("gpus", r.space.gpus);
    j.attribute("global_batch", r.space.globalBatch);
    j.attribute("memory_limit_gib", r.memoryLimitGiB);
    j.attribute("method", kMethod);
    j.attributeObject("space", [&] {
      for (const auto &[name, values] : spaceLines(r.space))
        j.attribute(name, values);
    });
    writeCandidatesJson(j, r);
    j.attributeArray("rejections", [&] {
      for (const advise::Rejection &x : r.rejections)
        j.object([&] {
          j.attribute("rule", x.rule);
          j.attribute("candidates", x.candidates);
          j.attribute("example", x.example);
        });
    });
    j.attributeArray("families", [&] {
      for (const advise::PlanFamily &f : r.families)
        j.object([&] {
          j.attribute("tp", f.tp);
          j.attribute("candidates", f.candidates);
          j.attribute("fit", f.fitting);
          j.attribute("summary", f.summary);
        });
    });
    j.attribute("equal_within", r.equalWithin);
    j.attribute("first_group_size", r.firstGroupSize);
    j.attributeArray("plans", [&] {
      int64_t rank = 0;
      for (const advise::PlanCandidate &c : r.ranked)
        j.object([&] {
          j.attribute("rank", ++rank);
          j.attribute("group", c.group);
          writePlanJson(j, c.config, c.plan, c.step);
        });
    });
    if (std::string none = advise::noPlanFits(r); !none.empty())
      j.attribute("no_plan_fits", none);
    if (!rep.coSearch.empty()) {
      j.attributeObject("co_search", [&] {
        j.attribute("vary", rep.coSearchVary);
        j.attribute("param_tolerance", rep.coSearchTolerance);
        j.attributeArray("plans", [&] {
          for (const PlanShapes &p : rep.coSearch)
            j.object([&] {
              j.attribute("tp", p.plan.config.parallel.tp);
              j.attribute("plan", p.plan.describe());
              j.attribute("step_time_s", p.shapes.predBefore.us * 1e-6);
              j.attribute("co_searched_step_time_s",
                          p.shapes.predAfter.us * 1e-6);
              j.attribute("speedup", 1 + gainOf(p));
              j.attribute("evaluated", p.shapes.evaluated);
              j.attribute("feasible", p.shapes.feasible);
              j.attributeArray("changes", [&] {
                for (const advise::Change &c : p.shapes.changes)
                  j.object([&] {
                    j.attribute("parameter", c.parameter);
                    j.attribute("before", c.before);
                    j.attribute("after", c.after);
                  });
              });
            });
        });
      });
    }
    if (rep.best) {
      j.attribute("megatron_command", rep.best->megatronCommand);
      j.attributeArray("megatron_notes", [&] {
        for (const std::string &n : rep.best->megatronNotes)
          j.value(n);
      });
    }
  });
  os << "\n";
}

void tshape::report::writeMarkdown(llvm::raw_ostream &os,
                                   const PlanSearchReport &rep) {
  const advise::PlanSearchResult &r = rep.result;
  os << "# tshape plan search: " << rep.model << " on " << r.space.gpus
     << " x " << rep.target << " (" << rep.cluster << ")\n\n"
     << "Global batch " << r.space.globalBatch << ", memory limit "
     << llvm::format("%.0f", r.memoryLimitGiB) << " GiB per GPU. Method: "
     << kMethod << ".\n\n";
  counts(os, r, "");
  os << "\n## Space\n\n| choice | values |\n| --- | --- |\n";
  for (const auto &[name, values] : spaceLines(r.space))
    os << "| " << name << " | " << values << " |\n";
  os << "\n## Ranked plans\n\n";
  if (std::string none = advise::noPlanFits(r); !none.empty())
    os << none << "\n";
  else
    os << (r.equalWithin > 0 ? equalsLine(r) + "\n\n" : std::string())
       << "| # | group | plan | step (s) | TFLOP/s per GPU | tokens/s per GPU "
          "| MFU | memory (GiB) |\n| ---: | ---: | --- | ---: | ---: | ---: | "
          "---: | ---: |\n";
  int64_t rank = 0;
  for (const advise::PlanCandidate &c : r.ranked)
    os << "| " << ++rank << " | " << c.group << " | " << c.describe()
       << llvm::format(" | %.3f | %.1f | %.0f | %.1f%% | %.1f |\n",
                       c.step.stepTime, c.step.tflopsPerGpu,
                       c.step.tokensPerSPerGpu, 100 * c.step.mfu,
                       c.peakGiB());
  os << "\n## Families (by tensor-parallel degree)\n\n";
  for (const advise::PlanFamily &f : r.families)
    os << "- " << f.summary << "\n";
  os << "\n## Rejected, by rule\n\n| rule | candidates | example |\n"
     << "| --- | ---: | --- |\n";
  for (const advise::Rejection &x : r.rejections)
    os << "| " << x.rule << " | " << x.candidates << " | " << x.example
       << " |\n";
  if (!rep.coSearch.empty()) {
    os << "\n## Shapes under each family's fastest plan\n\nThe shape "
          "search (vary "
       << rep.coSearchVary
       << llvm::format(", parameters within %.1f%%", 100 * rep.coSearchTolerance)
       << ") priced as training steps of the plan.\n\n"
       << "| tp | plan | step (s) | co-searched (s) | speedup | change |\n"
       << "| ---: | --- | ---: | ---: | ---: | --- |\n";
    for (const PlanShapes &p : rep.coSearch)
      os << "| " << p.plan.config.parallel.tp << " | " << p.plan.describe()
         << llvm::format(" | %.3f | %.3f | %.3fx | ",
                         p.shapes.predBefore.us * 1e-6,
                         p.shapes.predAfter.us * 1e-6, 1 + gainOf(p))
         << changesLine(p.shapes) << " |\n";
  }
  if (rep.best) {
    os << (r.equalWithin > 0 ? "\n## The first plan (the conventional one of "
                               "the fastest group)\n\n"
                             : "\n## The fastest plan\n\n");
    writeMarkdown(os, *rep.best);
  }
}

void tshape::report::writeText(llvm::raw_ostream &os,
                               const PlanSearchReport &rep) {
  const advise::PlanSearchResult &r = rep.result;
  os << rep.model << ": plan search on " << r.space.gpus << " x "
     << rep.target << " (" << rep.cluster << "), global batch "
     << r.space.globalBatch
     << llvm::format(", memory limit %.0f GiB per GPU\n", r.memoryLimitGiB);
  counts(os, r, "");
  os << llvm::format("searched in %.2f s\n", rep.seconds);
  if (std::string none = advise::noPlanFits(r); !none.empty())
    os << none << "\n";
  else if (r.equalWithin > 0)
    os << equalsLine(r) << "\n";
  int64_t rank = 0;
  for (const advise::PlanCandidate &c : r.ranked)
    os << (c.group ? llvm::formatv("g{0} ", c.group).str() : "")
       << llvm::format("%3lld. %.3f s  %5.1f TFLOP/s  %6.0f tok/s  MFU "
                       "%4.1f%%  %5.1f GiB  ",
                       (long long)++rank, c.step.stepTime,
                       c.step.tflopsPerGpu, c.step.tokensPerSPerGpu,
                       100 * c.step.mfu, c.peakGiB())
       << c.describe() << "\n";
  os << "by tensor-parallel degree:\n";
  for (const advise::PlanFamily &f : r.families)
    os << "  " << f.summary << "\n";
  os << "rejected, by rule:\n";
  for (const advise::Rejection &x : r.rejections) {
    os << llvm::format("  %-34s %12lld", x.rule.c_str(),
                       (long long)x.candidates);
    if (!x.example.empty())
      os << "  e.g. " << x.example;
    os << "\n";
  }
  if (!rep.coSearch.empty()) {
    os << "shapes under each family's fastest plan (vary " << rep.coSearchVary
       << llvm::format(", parameters within %.1f%%):\n",
                       100 * rep.coSearchTolerance);
    for (const PlanShapes &p : rep.coSearch)
      os << "  tp=" << p.plan.config.parallel.tp
         << llvm::format(": %.3f s -> %.3f s (%+.1f%%): ",
                         p.shapes.predBefore.us * 1e-6,
                         p.shapes.predAfter.us * 1e-6, 100 * gainOf(p))
         << changesLine(p.shapes) << "  [" << p.shapes.feasible << " of "
         << p.shapes.evaluated << " shapes feasible]\n";
  }
  if (rep.best) {
    os << (r.equalWithin > 0
               ? "\nthe first plan (the conventional one of the fastest "
                 "group):\n"
               : "\nthe fastest plan:\n");
    writeText(os, *rep.best);
  }
}
