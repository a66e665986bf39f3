//===- Serve.cpp - tshape serve: one serving configuration ----------------===//
//
// `tshape serve CONFIG.json`: a workload (prompt and output lengths, the
// requests in flight) on one engine replica (attention tp x dp, experts
// ep), priced by cost::estimateServing; the terminal summary and, with
// --report, JSON or Markdown. docs/serving.md.
//
//===----------------------------------------------------------------------===//

#include "Subcommands.h"

#include "tshape/Advise/ServingSearch.h"
#include "tshape/Cost/Cluster.h"
#include "tshape/Cost/Serving.h"
#include "tshape/Interop/HFConfig.h"
#include "tshape/Interop/ServingLaunch.h"
#include "tshape/Report/ServingReport.h"
#include "tshape/Report/Writers.h"
#include "tshape/Support/DType.h"
#include "tshape/Target/GpuTarget.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

using namespace tshape;
using namespace tshape::driver;
namespace cl = llvm::cl;

cl::SubCommand &tshape::driver::serveCommand() {
  static cl::SubCommand cmd(
      "serve", "a serving workload on one engine replica: time per output "
               "token, time to first token, tokens/s per GPU and per user, "
               "memory and the batch the KV cache holds");
  return cmd;
}

cl::OptionCategory &tshape::driver::serveCategory() {
  static cl::OptionCategory cat("Serve options",
                                "tshape serve CONFIG.json [options]");
  return cat;
}

namespace {
cl::SubCommand &cmd = serveCommand();
cl::OptionCategory &cat = serveCategory();

cl::opt<std::string> input(cl::Positional, cl::desc("<config.json>"),
                           cl::sub(cmd), cl::cat(cat));
cl::opt<std::string>
    targetName("target",
               cl::desc("GPU target (default: the cluster's GPU)"),
               cl::sub(cmd), cl::cat(cat));
cl::opt<std::string> clusterName(
    "cluster",
    cl::desc("cluster the collectives run on (default: the target's, "
             "else dgx-h100)"),
    cl::sub(cmd), cl::cat(cat));
cl::opt<int64_t> tp("tp", cl::desc("the attention's tensor-parallel degree "
                                   "(vLLM --tensor-parallel-size)"),
                    cl::init(1), cl::sub(cmd), cl::cat(cat));
cl::opt<int64_t>
    dp("dp",
       cl::desc("the attention's data-parallel degree inside the replica "
                "(attention data parallelism; vLLM --data-parallel-size "
                "with --enable-expert-parallel)"),
       cl::init(1), cl::sub(cmd), cl::cat(cat));
cl::opt<int64_t> ep(
    "ep",
    cl::desc("the routed experts' expert-parallel degree (0: the engine's "
             "default, every expert split over the replica's tp x dp GPUs); "
             "the experts' tensor-parallel degree is tp x dp / ep"),
    cl::init(0), cl::sub(cmd), cl::cat(cat));
cl::opt<int64_t> isl("isl", cl::desc("prompt tokens per request"),
                     cl::init(1024), cl::sub(cmd), cl::cat(cat));
cl::opt<int64_t> osl("osl", cl::desc("output tokens per request"),
                     cl::init(128), cl::sub(cmd), cl::cat(cat));
cl::opt<int64_t> concurrency(
    "concurrency",
    cl::desc("requests in flight on the replica (0: as many as the KV cache "
             "holds, the offline maximum throughput)"),
    cl::init(0), cl::sub(cmd), cl::cat(cat));
cl::opt<std::string> engineName(
    "engine", cl::desc("serving engine: vllm, sglang or trtllm (its memory "
                       "accounting and defaults; docs/serving.md#engines)"),
    cl::init("vllm"), cl::sub(cmd), cl::cat(cat));
cl::opt<std::string> dtypeOpt("dtype",
                               cl::desc("the model's dtype: bf16 or fp16"),
                               cl::init("bf16"), cl::sub(cmd), cl::cat(cat));
cl::opt<std::string> precisionOpt(
    "precision",
    cl::desc("the linear layers' precision (bf16, fp8, mxfp8; default: the "
             "dtype)"),
    cl::sub(cmd), cl::cat(cat));
cl::opt<std::string> kvCacheOpt(
    "kv-cache-dtype",
    cl::desc("the KV cache's element type (bf16, fp16, fp8; default: the "
             "dtype)"),
    cl::sub(cmd), cl::cat(cat));
cl::opt<int64_t> maxNumTokens(
    "max-num-tokens",
    cl::desc("tokens per engine step, prompt chunks included (0: the "
             "engine's default)"),
    cl::init(0), cl::sub(cmd), cl::cat(cat));
cl::opt<int64_t> maxBatch(
    "max-batch",
    cl::desc("requests in flight at most per attention rank (0: the "
             "engine's default)"),
    cl::init(0), cl::sub(cmd), cl::cat(cat));
cl::opt<double> kvFraction(
    "kv-cache-fraction",
    cl::desc("the engine's memory fraction (vLLM gpu_memory_utilization, "
             "SGLang mem_fraction_static, TensorRT-LLM "
             "free_gpu_memory_fraction; 0: the engine's default)"),
    cl::init(0), cl::sub(cmd), cl::cat(cat));
cl::opt<bool> trtllmBench(
    "trtllm-bench",
    cl::desc("size max_batch_size and max_num_tokens as trtllm-bench "
             "throughput does when not told (its tuning.py), at its KV-cache "
             "fraction 0.95; needs --engine=trtllm"),
    cl::sub(cmd), cl::cat(cat));
cl::opt<bool> search(
    "search",
    cl::desc("search the layouts (attention tp and dp, experts ep), the "
             "precisions of --precisions and the requests in flight on up to "
             "--gpus GPUs a replica; rank those that meet --ttft-ms and "
             "--tpot-ms by tokens/s per GPU, and give the Pareto front"),
    cl::sub(cmd), cl::cat(cat));
cl::opt<int64_t> gpus(
    "gpus",
    cl::desc("--search: GPUs of one replica at most (default: the "
             "cluster's NVLink domain)"),
    cl::init(0), cl::sub(cmd), cl::cat(cat));
cl::opt<double> ttftMs("ttft-ms",
                       cl::desc("--search: time to first token at most, "
                                "in ms (0: no target)"),
                       cl::init(0), cl::sub(cmd), cl::cat(cat));
cl::opt<double> tpotMs("tpot-ms",
                       cl::desc("--search: time per output token at "
                                "most, in ms (0: no target)"),
                       cl::init(0), cl::sub(cmd), cl::cat(cat));
cl::opt<std::string> precisions(
    "precisions",
    cl::desc("--search: the linear layers' precisions to try, "
             "comma-separated (default: --precision's, or the dtype)"),
    cl::sub(cmd), cl::cat(cat));
cl::opt<unsigned> top("top",
                      cl::desc("--search: configurations listed (default 10)"),
                      cl::init(10), cl::sub(cmd), cl::cat(cat));
cl::opt<std::string> htmlPath(
    "html",
    cl::desc("--search: write the search as an HTML page with the Pareto "
             "plot (FILE.html)"),
    cl::sub(cmd), cl::cat(cat));
cl::opt<int64_t> draftTokens(
    "draft-tokens",
    cl::desc("speculative decoding: draft tokens a decode step verifies, "
             "made by the model's multi-token-prediction layers (0: none)"),
    cl::init(0), cl::sub(cmd), cl::cat(cat));
cl::opt<double> acceptance(
    "acceptance",
    cl::desc("speculative decoding: the chance each draft token is accepted "
             "once those before it were; required with --draft-tokens"),
    cl::init(-1), cl::sub(cmd), cl::cat(cat));
cl::opt<double> rate(
    "rate",
    cl::desc("requests/s to serve: the replicas needed and, on each, the "
             "fewest requests in flight that serve its share (with --search: "
             "each configuration's GPUs, the fewest first)"),
    cl::init(0), cl::sub(cmd), cl::cat(cat));
cl::opt<double> gpuHourPrice(
    "gpu-hour-price",
    cl::desc("dollars per GPU-hour: the cost per million output tokens"),
    cl::init(0), cl::sub(cmd), cl::cat(cat));
cl::opt<std::string> modelId(
    "model-id",
    cl::desc("the checkpoint the launch command serves (a Hugging Face id or "
             "a local directory; default: the config's _name_or_path, else "
             "<model>)"),
    cl::sub(cmd), cl::cat(cat));
cl::opt<std::string> reportPath(
    "report",
    cl::desc("write the report: FILE.json, FILE.md or - (Markdown on "
             "stdout)"),
    cl::sub(cmd), cl::cat(cat));
} // namespace

namespace {
/// The checkpoint a launch serves: --model-id, the config's
/// _name_or_path, or a placeholder the notes name.
std::string checkpointOf(llvm::StringRef configText) {
  if (!modelId.empty())
    return modelId;
  if (llvm::Expected<llvm::json::Value> v = llvm::json::parse(configText)) {
    if (const llvm::json::Object *o = v->getAsObject())
      if (std::optional<llvm::StringRef> n = o->getString("_name_or_path");
          n && !n->empty())
        return n->str();
  } else {
    llvm::consumeError(v.takeError());
  }
  return "<model>";
}

/// The model's longest context (max_position_embeddings, at the top or in
/// text_config), 0 when the config does not say.
int64_t maxPositionsOf(llvm::StringRef configText) {
  llvm::Expected<llvm::json::Value> v = llvm::json::parse(configText);
  if (!v) {
    llvm::consumeError(v.takeError());
    return 0;
  }
  const llvm::json::Object *o = v->getAsObject();
  for (int depth = 0; o && depth < 2; ++depth) {
    if (std::optional<int64_t> m = o->getInteger("max_position_embeddings"))
      return *m;
    o = o->getObject("text_config");
  }
  return 0;
}

/// The quantization a config declares (`quantization_config`'s
/// quant_method, at the top or in text_config), "" when none.
std::string declaredQuantization(llvm::StringRef configText) {
  llvm::Expected<llvm::json::Value> v = llvm::json::parse(configText);
  if (!v) {
    llvm::consumeError(v.takeError());
    return "";
  }
  const llvm::json::Object *o = v->getAsObject();
  for (int depth = 0; o && depth < 2; ++depth) {
    if (const llvm::json::Object *q = o->getObject("quantization_config")) {
      std::optional<llvm::StringRef> m = q->getString("quant_method");
      return m && !m->empty() ? m->str() : "unnamed";
    }
    o = o->getObject("text_config");
  }
  return "";
}

/// The launch of `est`'s configuration into `launch` or `error`.
void launchOf(const cost::ServingConfig &cfg, const cost::ServingEstimate &est,
              const std::string &checkpoint, int64_t context,
              std::optional<ServingLaunch> &launch, std::string &error) {
  launch = servingLaunch(cfg, est, checkpoint, context, error);
  if (launch && checkpoint == "<model>")
    launch->notes.push_back("replace <model> with the checkpoint's Hugging "
                            "Face id or directory (--model-id)");
}

int runSearch(const model::ModelConfig &model, const std::string &checkpoint,
              const cost::ServingWorkload &workload,
              const cost::ServingConfig &config,
              const target::GpuTarget &target, const cost::Cluster &cluster) {
  if (!htmlPath.empty() && !llvm::StringRef(htmlPath).ends_with(".html"))
    return fail("--html writes an HTML page: name it FILE.html (got '" +
                htmlPath + "')");
  if (trtllmBench)
    return fail("--trtllm-bench sizes one configuration; the search uses "
                "the engine's defaults or --max-num-tokens and --max-batch");
  if (gpus < 0 || ttftMs < 0 || tpotMs < 0)
    return fail("--gpus, --ttft-ms and --tpot-ms must be at least 0");
  advise::ServingSpace space;
  space.gpus = gpus > 0 ? int64_t(gpus) : cluster.gpusPerNode;
  if (space.gpus > 1024)
    return fail("--gpus " + std::to_string(space.gpus) +
                ": a replica of more than 1024 GPUs is beyond the search");
  space.precisions = {config.precision};
  if (!precisions.empty()) {
    space.precisions.clear();
    llvm::SmallVector<llvm::StringRef> names;
    llvm::StringRef(precisions).split(names, ',', -1, false);
    for (llvm::StringRef n : names) {
      std::optional<Precision> p = parsePrecision(n.trim().str());
      if (!p)
        return fail("unknown precision '" + n.trim().str() +
                    "' in --precisions (expected: " + precisionNames() + ")");
      space.precisions.push_back(*p);
    }
  }
  advise::ServingTargets targets;
  targets.ttftMs = ttftMs;
  targets.tpotMs = tpotMs;
  targets.rate = rate;
  targets.gpuHourPrice = gpuHourPrice;
  report::ServingSearchReport rep;
  rep.model = input;
  rep.target = target.name;
  rep.cluster = cluster.name;
  rep.workload = workload;
  rep.base = config;
  rep.space = space;
  rep.targets = targets;
  const auto start = std::chrono::steady_clock::now();
  rep.result = advise::searchServing(model, workload, config, space, targets,
                                     target, &cluster, top);
  rep.seconds = std::chrono::duration<double>(
                    std::chrono::steady_clock::now() - start)
                    .count();
  if (!rep.result.best.empty()) {
    const advise::ServingCandidate &b = rep.result.best.front();
    launchOf(b.config, b.estimate, checkpoint,
             workload.isl + workload.osl, rep.launch, rep.launchError);
  }
  report::writeServingSearchText(rep, llvm::outs());
  if (!reportPath.empty())
    if (llvm::Error err = report::writeReport(reportPath, rep))
      return fail(llvm::toString(std::move(err)));
  if (!htmlPath.empty())
    if (llvm::Error err = report::writeFile(htmlPath, [&](llvm::raw_ostream &os) {
          report::writeServingSearchHtml(rep, os);
        }))
      return fail(llvm::toString(std::move(err)));
  if (rep.result.evaluated == 0)
    return fail("no layout on up to " + std::to_string(space.gpus) + " x " +
                target.name + " can serve " + input +
                " (the rejections above say why): raise --gpus");
  return rep.result.meeting > 0 || (ttftMs <= 0 && tpotMs <= 0) ? 0 : 1;
}
} // namespace

int tshape::driver::runServe() {
  if (input.empty())
    return fail("serve needs a config.json: tshape serve CONFIG.json "
                "[options]; see tshape serve --help");
  std::optional<cost::Engine> engine = cost::parseEngine(engineName);
  if (!engine)
    return fail("unknown engine '" + engineName +
                "' (expected one of: " + cost::engineList() + ")");
  std::optional<DType> dtype = parseDType(dtypeOpt);
  if (!dtype || (*dtype != DType::BF16 && *dtype != DType::FP16))
    return fail("--dtype must be bf16 or fp16, got '" + dtypeOpt + "'");
  cost::ServingConfig config;
  config.engine = *engine;
  if (!precisionOpt.empty()) {
    config.precision = parsePrecision(precisionOpt);
    if (!config.precision)
      return fail("unknown --precision '" + precisionOpt +
                  "' (expected one of: " + precisionNames() + ")");
  }
  if (!kvCacheOpt.empty()) {
    config.kvCache = parseDType(kvCacheOpt);
    if (!config.kvCache)
      return fail("unknown --kv-cache-dtype '" + kvCacheOpt +
                  "' (expected bf16, fp16 or fp8)");
  }
  if (rate < 0 || gpuHourPrice < 0 || rate > cost::kMaxServingRate)
    return fail("--rate and --gpu-hour-price must be at least 0, --rate at "
                "most 1e9 requests/s");
  if (isl > cost::kMaxServingTokens || osl > cost::kMaxServingTokens ||
      concurrency > cost::kMaxServingConcurrency)
    return fail("--isl and --osl must be at most " +
                std::to_string(cost::kMaxServingTokens) +
                " tokens and --concurrency at most " +
                std::to_string(cost::kMaxServingConcurrency));
  if (rate > 0 && concurrency > 0)
    return fail("--rate sets the requests in flight: drop --concurrency");
  if (tp > 65536 || dp > 65536 || ep > 65536 ||
      maxNumTokens > cost::kMaxServingTokens ||
      maxBatch > cost::kMaxServingConcurrency)
    return fail("--tp, --dp and --ep must be at most 65536, --max-num-tokens "
                "at most " + std::to_string(cost::kMaxServingTokens) +
                " and --max-batch at most " +
                std::to_string(cost::kMaxServingConcurrency));
  if (tp < 1 || dp < 1 || ep < 0 || maxNumTokens < 0 || maxBatch < 0 ||
      kvFraction < 0 || kvFraction > 1)
    return fail("--tp and --dp must be at least 1, --ep, --max-num-tokens "
                "and --max-batch at least 0, --kv-cache-fraction in [0, 1]");
  config.plan.attentionTp = tp;
  config.plan.attentionDp = dp;
  config.plan.expertEp = ep;
  if (draftTokens > 0 && acceptance < 0)
    return fail("--draft-tokens " + std::to_string(draftTokens) +
                " needs --acceptance: the chance each draft token is "
                "accepted (measure it on your traffic; 1 prices every draft "
                "accepted)");
  config.draftTokens = draftTokens;
  config.acceptance = acceptance < 0 ? 1.0 : double(acceptance);
  config.tokenBudget = maxNumTokens;
  config.maxSequences = maxBatch;
  config.kvFraction = kvFraction;
  cost::ServingWorkload workload;
  workload.isl = isl;
  workload.osl = osl;
  workload.concurrency = concurrency;

  std::string error;
  std::string cname = clusterName;
  if (cname.empty()) {
    const cost::Cluster *byTarget =
        targetName.empty() ? nullptr
                           : cost::defaultClusterForTarget(targetName);
    cname = byTarget ? byTarget->name : "dgx-h100";
  }
  std::optional<cost::Cluster> cluster = cost::resolveCluster(cname, "", error);
  if (!cluster)
    return fail(error);
  std::optional<target::GpuTarget> target = target::resolveTarget(
      targetName.empty() ? cluster->gpu : std::string(targetName), "", error);
  if (!target)
    return fail(error);

  auto buf = llvm::MemoryBuffer::getFileOrSTDIN(input, /*IsText=*/true);
  if (!buf)
    return fail("cannot read '" + input + "': " + buf.getError().message());
  ImportOptions options;
  options.dtype = *dtype;
  options.microbatch = 1;
  options.seq = isl > 0 ? int64_t(isl) : 1;
  ImportDiagnostic diag;
  std::optional<model::ModelConfig> model =
      importHFConfig((*buf)->getBuffer(), options, diag);
  if (!model) {
    llvm::errs() << input;
    if (diag.line)
      llvm::errs() << ":" << diag.line << ":" << diag.column;
    llvm::errs() << ": error: " << diag.message << "\n";
    return 1;
  }
  const std::string checkpoint = checkpointOf((*buf)->getBuffer());
  // A checkpoint that declares its weights' precision is not priced as
  // the dtype behind the user's back: tshape does not read the
  // declaration yet, so the user says it.
  if (std::string q = declaredQuantization((*buf)->getBuffer());
      !q.empty() && precisionOpt.empty() && precisions.empty())
    return fail(input + " declares quantization_config (quant_method '" + q +
                "'), which tshape does not read yet: say the linear layers' "
                "precision with --precision (fp8 for an FP8 checkpoint; "
                "bf16 prices the dtype anyway)");
  if (int64_t most = maxPositionsOf((*buf)->getBuffer());
      most > 0 && isl + osl > most)
    return fail("a request of " + std::to_string(isl) + " + " +
                std::to_string(osl) + " = " + std::to_string(isl + osl) +
                " tokens is longer than " + input +
                "'s max_position_embeddings " + std::to_string(most) +
                " (the engines refuse a longer --max-model-len): shorten "
                "--isl or --osl");
  if (search)
    return runSearch(*model, checkpoint, workload, config, *target, *cluster);
  if (!htmlPath.empty())
    return fail("--html draws the search's Pareto plot: add --search");
  if (trtllmBench) {
    if (config.engine != cost::Engine::Trtllm)
      return fail("--trtllm-bench sizes TensorRT-LLM's limits: it needs "
                  "--engine=trtllm");
    cost::TrtllmBenchLimits l = cost::trtllmBenchLimits(
        *model, *target, tp * dp, config.precision, config.kvCache, isl, osl);
    if (l.maxBatch <= 0)
      return fail("trtllm-bench's estimate leaves no memory for the KV "
                  "cache on " + std::to_string(tp * dp) + " x " +
                  target->name + ": use more GPUs");
    if (!maxBatch)
      config.maxSequences = l.maxBatch;
    if (!maxNumTokens)
      config.tokenBudget = l.maxNumTokens;
    if (kvFraction == 0)
      config.kvFraction = 0.95;
  }
  std::optional<cost::RateEstimate> atRate;
  std::optional<cost::ServingEstimate> est;
  if (rate > 0) {
    atRate = cost::estimateAtRate(*model, workload, config, *target,
                                  &*cluster, rate, error);
    if (atRate)
      est = atRate->perReplica;
  } else {
    est = cost::estimateServing(*model, workload, config, *target, &*cluster,
                                error);
  }
  if (!est)
    return fail(error);

  report::ServingReport rep;
  rep.model = input;
  rep.target = target->name;
  rep.cluster = cluster->name;
  rep.workload = workload;
  rep.config = config;
  rep.estimate = *est;
  rep.rate = atRate;
  rep.gpuHourPrice = gpuHourPrice;
  launchOf(config, *est, checkpoint, isl + osl, rep.launch, rep.launchError);
  report::writeServingText(rep, llvm::outs());
  if (!reportPath.empty())
    if (llvm::Error err = report::writeReport(reportPath, rep))
      return fail(llvm::toString(std::move(err)));
  return 0;
}
