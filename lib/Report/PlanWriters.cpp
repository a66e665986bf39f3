//===- PlanWriters.cpp - tshape-plan's report ------------------------------===//
//
// One evaluated training plan (PlanReport.h) as JSON (schema tshape-plan/1,
// docs/report-schema.md), Markdown and the tool's terminal summary.
//
//===----------------------------------------------------------------------===//

#include "tshape/Report/PlanReport.h"
#include "tshape/Report/Writers.h"
#include "tshape/Interop/Megatron.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <cctype>
#include <cmath>

using namespace tshape;
using namespace tshape::report;

double PlanReport::peakGiB() const {
  return step.memory.stages.empty() ? 0 : step.memory.peak().total() / cost::kGiB;
}

bool PlanReport::fits() const {
  return memoryCapacityGiB <= 0 || peakGiB() <= memoryCapacityGiB;
}

namespace {
std::string n(int64_t v) { return std::to_string(v); }

/// The ranks a launch keeps in one host: Megatron-LM lays out tp, then
/// cp, fastest, and the step prices their collectives in the NVLink
/// domain; tp x cp where a host holds them, else tp, else none.
int64_t hostGroup(const model::ModelConfig &c, const cost::Cluster &cluster) {
  const int64_t tp = c.parallel.tp, tpCp = tp * c.parallel.cp;
  const int64_t host = cluster.hostGpus();
  return tpCp <= host ? tpCp : tp <= host ? tp : 1;
}
} // namespace

cost::StateBytes tshape::report::stateBytes(model::DType dtype) {
  if (dtype == model::DType::FP16)
    return {2, 2, 16};
  if (dtype == model::DType::FP32)
    return {4, 4, 8};
  return {};
}

std::optional<PlanReport> tshape::report::evaluatePlan(
    const std::string &modelName, const model::ModelConfig &config,
    const cost::TrainingPlan &plan, const target::GpuTarget &target,
    const cost::Cluster &cluster, int64_t world, int64_t originalVocab,
    std::string &error) {
  std::optional<MegatronLaunch> launch =
      megatronLaunch(config, originalVocab, plan, &error);
  if (!launch) {
    // The command check says so itself ("Megatron-LM would reject the
    // command: rule ..."); the writer's own refusals do not.
    if (error.rfind("Megatron-LM", 0) != 0)
      error = "Megatron-LM would reject this plan: " + error;
    return std::nullopt;
  }
  // Megatron-LM turns sequence parallelism off at tp 1: price what it runs.
  cost::TrainingPlan priced = plan;
  priced.sequenceParallel = plan.sequenceParallel && config.parallel.tp > 1;
  std::optional<cost::StepEstimate> step =
      cost::estimateStep(config, priced, target, cluster, {}, &error);
  if (!step)
    return std::nullopt;
  PlanReport r;
  r.model = modelName;
  r.target = target.name;
  r.cluster = cluster.name;
  r.memoryCapacityGiB = target.memoryGiB;
  r.gpus = world;
  r.config = config;
  r.plan = priced;
  r.step = *step;
  r.megatronArguments = launch->arguments;
  r.megatronNotes = launch->notes;
  // LoRA: Megatron-LM's pretrain_gpt.py would train every weight, another
  // run than the one priced; the plan's degrees are what to give
  // Megatron-Bridge's finetuning.
  if (plan.loraRank > 0) {
    r.megatronArguments.clear();
    r.megatronCommand =
        "# none: Megatron-LM has no LoRA (its pretrain_gpt.py would train "
        "every weight)";
    r.megatronNotes.insert(
        r.megatronNotes.begin(),
        "LoRA rank " + n(plan.loraRank) +
            " is Megatron-Bridge's PEFT (peft=lora, dim " +
            n(plan.loraRank) +
            "): run its finetuning with the degrees of this plan");
  }
  const int64_t padded = getParam(config, model::Param::Vocab);
  if (padded != originalVocab)
    r.megatronNotes.insert(r.megatronNotes.begin(),
                           "vocab " + n(originalVocab) + " padded to " +
                               n(padded) + ", a multiple of " +
                               n(kMegatronVocabDivisibleBy) + " x tp " +
                               n(config.parallel.tp) +
                               ", as Megatron-LM pads it by default");
  // torchrun runs once a host: a GB200 NVL72 rack is 18 hosts of 4 GPUs.
  const int64_t perHost = cluster.hostGpus();
  const int64_t group = hostGroup(config, cluster);
  const int64_t launched = launchProcessesPerHost(world, perHost, group);
  if (plan.loraRank == 0) // (LoRA has no command: above.)
    r.megatronCommand = launch->command(world, launched);
  if (world > launched)
    r.megatronNotes.push_back(
        "run the command on each of the " + n(world / launched) +
        " hosts with NODE_RANK 0, 1, ... and MASTER_ADDR the address of "
        "host 0");
  if (launched < std::min(world, perHost))
    r.megatronNotes.push_back(
        n(world) + " GPUs do not fill whole " + n(perHost) +
        "-GPU hosts: torchrun starts the same number of processes on every "
        "host, so the command runs " +
        n(launched) + " on each of " + n(world / launched) +
        " hosts (the step was priced with the ranks packed into whole "
        "hosts)");
  if (group > 1 && launched % group)
    r.megatronNotes.push_back(
        "a group of tp x cp = " + n(group) + " ranks spans two hosts (no "
        "count of whole groups divides " + n(world) + " GPUs on " +
        n(perHost) + "-GPU hosts), where the step prices it in one");
  // (On a DGX the host is the NVLink domain: said above.)
  if (cluster.gpusPerNode != perHost && world > cluster.gpusPerNode &&
      world % cluster.gpusPerNode)
    r.megatronNotes.push_back(
        n(world) + " GPUs do not fill whole " + n(cluster.gpusPerNode) +
        "-GPU NVLink domains: the last one holds " +
        n(world % cluster.gpusPerNode));
  return r;
}

namespace {
double round6(double v) { return std::round(v * 1e6) / 1e6; }
double round3(double v) { return std::round(v * 1e3) / 1e3; }

/// "tensor-parallel communication" -> "tensor_parallel_communication".
std::string key(const std::string &name) {
  std::string k;
  for (char c : name)
    if (std::isalnum((unsigned char)c))
      k += c;
    else if (!k.empty() && k.back() != '_')
      k += '_';
  return k;
}

/// "tp 2, pp 2, dp 16, cp 1; ..." : the plan in one line.
std::string planLine(const PlanReport &r) {
  const model::Parallelism &p = r.config.parallel;
  std::string s = "tp " + std::to_string(p.tp) + ", pp " +
                  std::to_string(p.pp) + ", dp " + std::to_string(p.dp) +
                  ", cp " + std::to_string(p.cp);
  if (p.ep != 1)
    s += ", ep " + std::to_string(p.ep);
  if (p.expertTpOwn())
    s += ", etp " + std::to_string(p.expertTp());
  s += "; microbatch " + std::to_string(r.config.microbatch) + ", seq " +
       std::to_string(r.config.seq) + ", global batch " +
       std::to_string(r.step.globalBatch) + " (" +
       std::to_string(r.step.microbatches) + " microbatches); " +
       cost::scheduleName(r.plan.schedule);
  if (r.plan.virtualStages > 1)
    s += " (" + std::to_string(r.plan.virtualStages) + " virtual stages)";
  if (r.plan.firstStageLayers || r.plan.lastStageLayers ||
      r.plan.embeddingInSplit || r.plan.lossInSplit || r.plan.layout) {
    s += ", stages of ";
    const std::vector<int64_t> layers = cost::stageLayers(r.config, r.plan);
    for (size_t i = 0; i < layers.size(); ++i)
      s += (i ? "+" : "") + std::to_string(layers[i]);
    s += " layers";
    if (r.plan.layout)
      s += " (layout " + r.plan.layout->text + ")";
  }
  s += ", recompute " + cost::recomputeText(r.plan.recompute,
                                             r.plan.selectiveModules());
  if (r.plan.embeddingInSplit || r.plan.lossInSplit)
    s += std::string(", the ") +
         (r.plan.embeddingInSplit && r.plan.lossInSplit ? "embedding and loss"
          : r.plan.embeddingInSplit                      ? "embedding"
                                                         : "loss") +
         " counted as layers in the split";
  if (r.plan.loraRank > 0)
    s += ", LoRA rank " + std::to_string(r.plan.loraRank) +
         " (base weights frozen)";
  if (r.plan.overlapEpComm)
    s += ", expert all-to-alls overlapped";
  if (r.plan.offloadLayers > 0)
    s += ", activations of " + std::to_string(r.plan.offloadLayers) +
         " layers offloaded to the host";
  if (r.plan.sequenceParallel)
    s += ", sequence parallel";
  if (r.plan.sharding != cost::StateSharding::None)
    s += std::string(", ") + cost::shardingName(r.plan.sharding);
  s += std::string(", ") + model::dtypeName(r.config.dtype);
  if (r.plan.precision)
    s += std::string(", ") + precisionName(*r.plan.precision) +
         " linear layers";
  return s;
}

std::string fitLine(const PlanReport &r) {
  char buf[160];
  if (r.memoryCapacityGiB <= 0)
    snprintf(buf, sizeof(buf), "unknown (%.1f GiB; the target states no memory)",
             r.peakGiB());
  else if (r.fits())
    snprintf(buf, sizeof(buf), "yes: %.1f GiB <= %.0f GiB", r.peakGiB(),
             r.memoryCapacityGiB);
  else
    snprintf(buf, sizeof(buf), "no: %.1f GiB > %.0f GiB", r.peakGiB(),
             r.memoryCapacityGiB);
  return buf;
}

const char *kCommandKind =
    "torchrun command for Megatron-LM's pretrain_gpt.py; data, tokenizer and "
    "training-length arguments are yours to add";
} // namespace

void tshape::report::writePlanJson(llvm::json::OStream &j,
                                   const model::ModelConfig &config,
                                   const cost::TrainingPlan &plan,
                                   const cost::StepEstimate &e) {
  const model::Parallelism &p = config.parallel;
  j.attributeObject("plan", [&] {
    j.attribute("tp", p.tp);
    j.attribute("pp", p.pp);
    j.attribute("dp", p.dp);
    j.attribute("cp", p.cp);
    j.attribute("ep", p.ep);
    j.attribute("etp", p.expertTp());
    j.attribute("microbatch", config.microbatch);
    j.attribute("seq", config.seq);
    j.attribute("global_batch", e.globalBatch);
    j.attribute("microbatches", e.microbatches);
    j.attribute("virtual_stages", plan.virtualStages);
    j.attribute("schedule", cost::scheduleName(plan.schedule));
    j.attribute("recompute", cost::recomputeName(plan.recompute));
    // Selective recompute's modules (Megatron-LM's --recompute-modules);
    // empty under none and full.
    j.attributeArray("recompute_modules", [&] {
      for (model::RecomputeModule m :
           model::recomputeModuleList(plan.selectiveModules()))
        j.value(model::recomputeModuleName(m));
    });
    j.attribute("offload_layers", plan.offloadLayers);
    j.attribute("overlap_ep_comm", plan.overlapEpComm);
    j.attribute("lora_rank", plan.loraRank);
    j.attribute("embedding_in_split", plan.embeddingInSplit);
    j.attribute("loss_in_split", plan.lossInSplit);
    // Megatron-LM's layout string, when the plan has one ("" otherwise).
    j.attribute("pipeline_layout", plan.layout ? plan.layout->text : "");
    j.attributeArray("stage_layers", [&] {
      for (int64_t n : cost::stageLayers(config, plan))
        j.value(n);
    });
    j.attribute("sequence_parallel", plan.sequenceParallel);
    j.attribute("sharding", cost::shardingName(plan.sharding));
    j.attribute("dtype", model::dtypeName(config.dtype));
    if (plan.precision)
      j.attribute("precision", precisionName(*plan.precision));
    else
      j.attribute("precision", nullptr);
  });
  j.attribute("step_time_s", round6(e.stepTime));
  j.attributeObject("error_band", [&] {
    j.attribute("held_out_mean_abs", cost::kStepHeldOutMeanAbsError);
    j.attribute("held_out_runs", cost::kStepHeldOutRuns);
    j.attribute("moe_worst", cost::kStepMoeWorstError);
    j.attribute("source", "docs/model-accuracy.md, published training runs");
  });
  j.attribute("tflops_per_gpu", round3(e.tflopsPerGpu));
  j.attribute("hardware_tflops_per_gpu", round3(e.hardwareTflopsPerGpu));
  j.attribute("tokens_per_s_per_gpu", round3(e.tokensPerSPerGpu));
  j.attribute("mfu", round6(e.mfu));
  j.attribute("hfu", round6(e.hfu));
  j.attribute("mfu_peak", e.peakPrecision);
  j.attribute("model_flops", e.modelFlops);
  j.attribute("bubble_fraction", round6(e.bubbleFraction));
  j.attributeObject("time_s", [&] {
    for (const cost::StepLine &l : e.lines())
      j.attribute(key(l.name), round6(l.seconds));
  });
  j.attributeObject("hidden_time_s", [&] {
    for (const cost::StepLine &l : e.lines())
      if (l.name.find("communication") != std::string::npos ||
          l.name.find("send") != std::string::npos ||
          l.name.find("offload") != std::string::npos)
        j.attribute(key(l.name), round6(l.hiddenSeconds));
  });
  j.attribute("peak_stage", int64_t(e.memory.peakStage));
  j.attributeObject("memory_gib", [&] {
    if (e.memory.stages.empty())
      return;
    for (const cost::MemoryLine &l : e.memory.peak().lines())
      j.attribute(key(l.name), round3(l.bytes / cost::kGiB));
    j.attribute("total", round3(e.memory.peak().total() / cost::kGiB));
  });
  j.attributeArray("memory_per_stage_gib", [&] {
    for (const cost::StageMemory &s : e.memory.stages)
      j.value(round3(s.total() / cost::kGiB));
  });
}

void tshape::report::writeJson(llvm::raw_ostream &os, const PlanReport &r) {
  llvm::json::OStream j(os, 2);
  j.object([&] {
    j.attribute("schema", "tshape-plan/1");
    j.attribute("model", r.model);
    j.attribute("target", r.target);
    j.attribute("cluster", r.cluster);
    j.attribute("gpus", r.gpus);
    writePlanJson(j, r.config, r.plan, r.step);
    j.attribute("memory_capacity_gib", r.memoryCapacityGiB);
    j.attribute("fits", r.fits());
    j.attribute("megatron_command", r.megatronCommand);
    j.attribute("megatron_args", r.megatronArguments);
    j.attributeArray("megatron_notes", [&] {
      for (const std::string &n : r.megatronNotes)
        j.value(n);
    });
  });
  os << "\n";
}

namespace {
/// The error band every step prediction carries (cost::kStep*: measured on
/// published runs, docs/model-accuracy.md).
std::string errorBandLine() {
  return llvm::formatv("model error on published runs: mean |error| {0:F1}% "
                       "on {1} held-out runs; MoE runs up to +{2:F0}% "
                       "(optimistic: the token dispatcher is not modelled "
                       "yet; docs/model-accuracy.md)",
                       100 * cost::kStepHeldOutMeanAbsError,
                       cost::kStepHeldOutRuns, 100 * cost::kStepMoeWorstError)
      .str();
}
} // namespace

void tshape::report::writeMarkdown(llvm::raw_ostream &os, const PlanReport &r) {
  const cost::StepEstimate &e = r.step;
  os << "# tshape plan: " << r.model << " on " << r.gpus << " x " << r.target
     << " (" << r.cluster << ")\n\n"
     << planLine(r) << "\n\n"
     << "| step time | TFLOP/s per GPU (model) | with recompute | "
        "tokens/s per GPU | MFU |\n"
     << "| ---: | ---: | ---: | ---: | ---: |\n"
     << llvm::format("| %.3f s | %.1f | %.1f | %.0f | %.1f%% of the %s "
                     "peak |\n\n",
                     e.stepTime, e.tflopsPerGpu, e.hardwareTflopsPerGpu,
                     e.tokensPerSPerGpu, 100 * e.mfu, e.peakPrecision.c_str())
     << errorBandLine() << ".\n\n"
     << "## Time per step\n\n| component | exposed (s) | hidden (s) |\n"
     << "| --- | ---: | ---: |\n";
  for (const cost::StepLine &l : e.lines())
    os << "| " << l.name << llvm::format(" | %.4f | %.4f |\n", l.seconds,
                                         l.hiddenSeconds);
  if (!e.memory.stages.empty()) {
    os << "\n## Memory per GPU (stage " << e.memory.peakStage << " of "
       << e.memory.stages.size() << ", the peak)\n\n"
       << "| component | GiB |\n| --- | ---: |\n";
    for (const cost::MemoryLine &l : e.memory.peak().lines())
      os << "| " << l.name << llvm::format(" | %.2f |\n", l.bytes / cost::kGiB);
    os << llvm::format("| total | %.2f |\n", r.peakGiB());
  }
  os << "\nFits the target's memory: " << fitLine(r) << "\n\n"
     << "## Megatron-LM launch\n\n(" << kCommandKind << ")\n\n```\n"
     << r.megatronCommand << "\n";
  for (const std::string &n : r.megatronNotes)
    os << "# note: " << n << "\n";
  os << "```\n";
}

void tshape::report::writeText(llvm::raw_ostream &os, const PlanReport &r) {
  const cost::StepEstimate &e = r.step;
  os << r.model << " on " << r.gpus << " x " << r.target << " (" << r.cluster
     << ")\nplan: " << planLine(r) << "\n"
     << llvm::format("step time %.3f s, %.1f TFLOP/s per GPU, %.0f tokens/s "
                     "per GPU, MFU %.1f%% (of the %s peak)",
                     e.stepTime, e.tflopsPerGpu, e.tokensPerSPerGpu,
                     100 * e.mfu, e.peakPrecision.c_str())
     << (e.hardwareTflopsPerGpu > e.tflopsPerGpu * (1 + 1e-9)
             ? llvm::formatv("; {0:F1} TFLOP/s with the recompute\n",
                             e.hardwareTflopsPerGpu)
                   .str()
             : std::string("\n"))
     << errorBandLine() << "\n"
     << "time per step (on the critical path; communication hidden behind "
        "compute in brackets):\n";
  for (const cost::StepLine &l : e.lines()) {
    os << llvm::format("  %-32s %9.4f s", l.name.c_str(), l.seconds);
    if (l.hiddenSeconds > 0)
      os << llvm::format("  (hidden %.4f s)", l.hiddenSeconds);
    os << "\n";
  }
  if (!e.memory.stages.empty()) {
    os << "memory per GPU, stage " << e.memory.peakStage << " of "
       << e.memory.stages.size() << " (the peak):\n";
    for (const cost::MemoryLine &l : e.memory.peak().lines())
      if (l.bytes > 0)
        os << llvm::format("  %-32s %9.2f GiB\n", l.name.c_str(),
                           l.bytes / cost::kGiB);
    os << llvm::format("  %-32s %9.2f GiB\n", "total", r.peakGiB());
    if (const cost::StageMemory &st = e.memory.peak(); st.offloadedLayers)
      os << llvm::format("  (in host memory: %.2f GiB, the activations of "
                         "%lld offloaded layers)\n",
                         st.offloadedActivations / cost::kGiB,
                         (long long)st.offloadedLayers);
  }
  os << "fits " << r.target << " memory: " << fitLine(r) << "\n"
     << "Megatron-LM (" << kCommandKind << "):\n"
     << r.megatronCommand << "\n";
  for (const std::string &n : r.megatronNotes)
    os << "# note: " << n << "\n";
}
