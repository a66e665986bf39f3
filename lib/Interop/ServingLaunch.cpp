//===- ServingLaunch.cpp - The serving engines' launch commands -----------===//
//
// The tables encode each engine's parser at the commit in ServingLaunch.h:
// vLLM's vllm/engine/arg_utils.py (flags generated from the config
// dataclasses: vllm/config/{parallel,cache,scheduler,model}.py), SGLang's
// python/sglang/srt/server_args.py (flags derived from ServerArgs' fields,
// `tp_size` -> --tp-size), TensorRT-LLM's tensorrt_llm/commands/serve.py
// (click options) and tensorrt_llm/llmapi/llm_args.py (the YAML keys).
// docs/serving.md#launch-commands quotes the sources.
//
//===----------------------------------------------------------------------===//

#include "tshape/Interop/ServingLaunch.h"

#include "tshape/Support/DType.h"

#include "llvm/ADT/StringExtras.h"

#include <cstdio>

using namespace tshape;
using cost::Engine;

namespace {
using K = CliFlag::Kind;

// vLLM at kVllmCommit: vllm/engine/arg_utils.py (EngineArgs.add_cli_args).
const CliFlag kVllm[] = {
    {"--tensor-parallel-size", K::Int, "", false,
     "arg_utils.py (ParallelConfig.tensor_parallel_size)"},
    {"--pipeline-parallel-size", K::Int, "", false,
     "arg_utils.py (ParallelConfig.pipeline_parallel_size)"},
    {"--data-parallel-size", K::Int, "", false,
     "arg_utils.py (ParallelConfig.data_parallel_size)"},
    {"--enable-expert-parallel", K::Switch, "", false,
     "arg_utils.py (ParallelConfig.enable_expert_parallel)"},
    {"--max-num-seqs", K::Int, "", false,
     "arg_utils.py (SchedulerConfig.max_num_seqs)"},
    {"--max-num-batched-tokens", K::Int, "", false,
     "arg_utils.py (SchedulerConfig.max_num_batched_tokens)"},
    {"--gpu-memory-utilization", K::Float, "", false,
     "arg_utils.py (CacheConfig.gpu_memory_utilization)"},
    {"--kv-cache-dtype", K::Choice,
     "auto,float16,bfloat16,fp8,fp8_e4m3,fp8_e5m2,fp8_inc,fp8_ds_mla,"
     "nvfp4_ds_mla,turboquant_k8v4,turboquant_4bit_nc,turboquant_k3v4_nc,"
     "turboquant_3bit_nc,int4_per_token_head,int8_per_token_head,"
     "fp8_per_token_head,nvfp4,nvfp4_4over6",
     false, "vllm/config/cache.py (CacheDType)"},
    {"--quantization", K::String, "", false,
     "arg_utils.py (ModelConfig.quantization: QuantizationMethods)"},
    {"--max-model-len", K::Int, "", false,
     "arg_utils.py (ModelConfig.max_model_len)"},
};

// SGLang at kSglangCommit: python/sglang/srt/server_args.py (ServerArgs).
const CliFlag kSglang[] = {
    {"--model-path", K::String, "", false, "server_args.py (model_path)"},
    {"--tp-size", K::Int, "", false, "server_args.py (tp_size)"},
    {"--dp-size", K::Int, "", false, "server_args.py (dp_size)"},
    {"--ep-size", K::Int, "", false, "server_args.py (ep_size)"},
    {"--enable-dp-attention", K::Switch, "", false,
     "server_args.py (enable_dp_attention)"},
    {"--mem-fraction-static", K::Float, "", false,
     "server_args.py (mem_fraction_static)"},
    {"--chunked-prefill-size", K::Int, "", false,
     "server_args.py (chunked_prefill_size)"},
    {"--max-running-requests", K::Int, "", false,
     "server_args.py (max_running_requests)"},
    {"--kv-cache-dtype", K::Choice,
     "auto,fp8_e5m2,fp8_e4m3,mxfp8,bf16,bfloat16,nvfp4,fp4_mx_block16,"
     "fp4_e2m1",
     false, "server_args.py (kv_cache_dtype)"},
    {"--quantization", K::Choice,
     "awq,fp8,mxfp8,gptq,marlin,gptq_marlin,awq_marlin,bitsandbytes,gguf,"
     "modelopt,modelopt_fp8,modelopt_fp4,nvfp4_online,modelopt_mixed,"
     "petit_nvfp4,w8a8_int8,w8a8_fp8,moe_wna16,w4afp8,mxfp4,auto-round,"
     "auto-round-int8,compressed-tensors,modelslim,mxfp_w4a8,quark,"
     "quark_int4fp8_moe,quark_mxfp4,mlx_q4,mlx_q8,unquant,humming",
     false, "server_args.py (QUANTIZATION_CHOICES)"},
    {"--context-length", K::Int, "", false, "server_args.py (context_length)"},
};

// TensorRT-LLM's trtllm-serve at kTrtllmServeCommit:
// tensorrt_llm/commands/serve.py (click options).
const CliFlag kTrtllm[] = {
    {"--tp_size", K::Int, "", false, "serve.py (--tensor_parallel_size)"},
    {"--pp_size", K::Int, "", false, "serve.py (--pipeline_parallel_size)"},
    {"--ep_size", K::Int, "", false, "serve.py (--moe_expert_parallel_size)"},
    {"--max_batch_size", K::Int, "", false, "serve.py (--max_batch_size)"},
    {"--max_num_tokens", K::Int, "", false, "serve.py (--max_num_tokens)"},
    {"--max_seq_len", K::Int, "", false, "serve.py (--max_seq_len)"},
    {"--kv_cache_free_gpu_memory_fraction", K::Float, "", false,
     "serve.py (--free_gpu_memory_fraction)"},
    {"--backend", K::Choice, "pytorch,tensorrt,trt,_autodeploy", false,
     "serve.py (--backend)"},
    {"--extra_llm_api_options", K::String, "", false,
     "serve.py (--config)"},
};

// The YAML keys of --extra_llm_api_options tshape writes
// (tensorrt_llm/llmapi/llm_args.py at 00043967): "section.key".
const CliFlag kTrtllmYaml[] = {
    {"enable_attention_dp", K::Choice, "true,false", false,
     "llm_args.py (BaseLlmArgs.enable_attention_dp)"},
    {"enable_chunked_prefill", K::Choice, "true,false", false,
     "llm_args.py (BaseLlmArgs.enable_chunked_prefill)"},
    {"kv_cache_config.dtype", K::Choice, "auto,fp8,fp8_ds_mla,nvfp4", false,
     "llm_args.py (KvCacheConfig.dtype)"},
};

template <size_t N>
const CliFlag *find(const CliFlag (&table)[N], llvm::StringRef name) {
  for (const CliFlag &f : table)
    if (name == f.name)
      return &f;
  return nullptr;
}

const CliFlag *findFlag(Engine e, llvm::StringRef name) {
  switch (e) {
  case Engine::Vllm:
    return find(kVllm, name);
  case Engine::Sglang:
    return find(kSglang, name);
  case Engine::Trtllm:
    return find(kTrtllm, name);
  }
  return nullptr;
}

std::string n(int64_t v) { return std::to_string(v); }
std::string fraction(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

/// TensorRT-LLM's YAML as "section.key value" words for the flag parse.
std::string yamlAsFlags(llvm::StringRef yaml,
                        std::vector<std::string> &problems) {
  std::string out, section;
  llvm::SmallVector<llvm::StringRef> lines;
  yaml.split(lines, '\n', -1, false);
  for (llvm::StringRef line : lines) {
    if (line.trim().empty() || line.trim().starts_with("#"))
      continue;
    const bool nested = line.starts_with("  ");
    auto [key, value] = line.trim().split(':');
    key = key.trim();
    value = value.trim();
    if (!nested)
      section.clear();
    if (value.empty()) {
      if (nested) {
        problems.push_back("options YAML: '" + key.str() +
                           "' nested too deep");
        continue;
      }
      section = key.str();
      continue;
    }
    const std::string name =
        (nested && !section.empty() ? section + "." : std::string()) +
        key.str();
    out += "--" + name + " " + value.str() + " ";
  }
  return out;
}
} // namespace

llvm::ArrayRef<CliFlag> tshape::servingFlags(Engine e) {
  switch (e) {
  case Engine::Vllm:
    return kVllm;
  case Engine::Sglang:
    return kSglang;
  case Engine::Trtllm:
    return kTrtllm;
  }
  return {};
}

std::vector<std::string> tshape::validateServingLaunch(Engine e,
                                                       llvm::StringRef line,
                                                       llvm::StringRef yaml) {
  std::vector<std::string> out;
  CliArgs a = parseCliArguments(
      line, [e](llvm::StringRef name) { return findFlag(e, name); }, out);
  auto fail = [&](const char *id, const std::string &where,
                  const std::string &why) {
    out.push_back(std::string("rule ") + id + " (" + where + "): " + why);
  };
  switch (e) {
  case Engine::Vllm: {
    const std::string at = std::string(" @ ") + std::string(kVllmCommit).substr(0, 8);
    // CacheConfig: gpu_memory_utilization = Field(gt=0, le=1).
    if (auto f = a.number("--gpu-memory-utilization"); f && (*f <= 0 || *f > 1))
      fail("V1", "vllm/config/cache.py" + at,
           "--gpu-memory-utilization must be in (0, 1], got " + fraction(*f));
    // SchedulerConfig: max_num_batched_tokens >= max_num_seqs.
    if (auto t = a.integer("--max-num-batched-tokens"),
        q = a.integer("--max-num-seqs");
        t && q && *t < *q)
      fail("V3", "vllm/config/scheduler.py" + at,
           "--max-num-batched-tokens " + n(*t) + " below --max-num-seqs " +
               n(*q));
    // ParallelConfig: every size a positive integer.
    for (const char *f : {"--tensor-parallel-size", "--pipeline-parallel-size",
                          "--data-parallel-size", "--max-num-seqs",
                          "--max-num-batched-tokens", "--max-model-len"})
      if (auto v = a.integer(f); v && *v < 1)
        fail("V2", "vllm/config" + at, std::string(f) + " must be at least 1");
    break;
  }
  case Engine::Sglang: {
    const std::string at = std::string(" @ ") + std::string(kSglangCommit).substr(0, 8);
    if (!a.has("--model-path"))
      fail("S1", "server_args.py" + at, "--model-path is required");
    const int64_t tp = a.integer("--tp-size").value_or(1),
                  dp = a.integer("--dp-size").value_or(1),
                  ep = a.integer("--ep-size").value_or(1);
    // arg_groups/parallel_hook.py (008b79d2): assert tp_size % dp_size == 0
    // under DP attention.
    if (a.has("--enable-dp-attention") && tp % dp)
      fail("S2", "arg_groups/parallel_hook.py @ 008b79d2",
           "--tp-size " + n(tp) + " not divisible by --dp-size " + n(dp) +
               " with --enable-dp-attention");
    // overrides.py: DP attention at dp 1 is switched off silently; tshape
    // never asks for it there.
    if (a.has("--enable-dp-attention") && dp == 1)
      fail("S3", "arg_groups/overrides.py",
           "--enable-dp-attention at --dp-size 1 is switched off");
    // The experts span the tp group: moe_tp = tp_size / ep_size.
    if (ep > 1 && tp % ep)
      fail("S4", "server_args.py" + at,
           "--ep-size " + n(ep) + " does not divide --tp-size " + n(tp));
    if (auto f = a.number("--mem-fraction-static"); f && (*f <= 0 || *f >= 1))
      fail("S5", "server_args.py" + at,
           "--mem-fraction-static must be in (0, 1), got " + fraction(*f));
    break;
  }
  case Engine::Trtllm: {
    const std::string at = std::string(" @ ") + std::string(kTrtllmServeCommit).substr(0, 8);
    const int64_t tp = a.integer("--tp_size").value_or(1),
                  ep = a.integer("--ep_size").value_or(1);
    // tensorrt_llm/mapping.py (05ebebb2): tp_size must equal moe_tp_size x
    // moe_ep_size.
    if (tp % ep)
      fail("T1", "tensorrt_llm/mapping.py @ 05ebebb2",
           "--ep_size " + n(ep) + " does not divide --tp_size " + n(tp));
    if (auto f = a.number("--kv_cache_free_gpu_memory_fraction");
        f && (*f < 0 || *f > 1))
      fail("T2", "serve.py" + at,
           "--kv_cache_free_gpu_memory_fraction must be in [0, 1], got " +
               fraction(*f));
    if (!yaml.empty()) {
      std::vector<std::string> yp;
      const std::string flags = yamlAsFlags(yaml, yp);
      for (std::string &p : yp)
        out.push_back(p);
      std::vector<std::string> problems;
      parseCliArguments(
          flags,
          [](llvm::StringRef name) {
            name.consume_front("--");
            return find(kTrtllmYaml, name);
          },
          problems);
      for (std::string &p : problems) {
        // The YAML's keys are not flags: say them as keys.
        if (llvm::StringRef(p).starts_with("unrecognized argument --"))
          p = "options YAML: unknown key " + p.substr(24);
        out.push_back(p);
      }
    }
    break;
  }
  }
  return out;
}

std::optional<std::string>
tshape::launchRefusal(const cost::ServingConfig &cfg) {
  const cost::ServingPlan &p = cfg.plan;
  const int64_t tp = p.attentionTp, dp = p.attentionDp, gpus = tp * dp;
  const bool mx = cfg.precision && *cfg.precision == Precision::MXFP8;
  if (p.pp > 1)
    return std::string(
        "pipeline-parallel serving is not modelled, so not written");
  if (cfg.draftTokens > 0)
    return std::string(
        "speculative decoding is priced but its engine options are not "
        "written yet (vLLM's --speculative-config, SGLang's "
        "--speculative-algorithm, TensorRT-LLM's speculative_config): add "
        "them by hand");
  switch (cfg.engine) {
  case Engine::Vllm:
    // vLLM's expert parallelism spans every GPU of the replica (the MoE
    // layer flattens tp x dp into ep: fused_moe/config.py
    // FusedMoEParallelConfig.make); without it the experts split over
    // tp x dp, tshape's default.
    if (p.expertEp > 1 && p.ep() < gpus)
      return "vLLM cannot say " + p.str() + ": its expert parallelism "
             "spans all tp x dp = " + n(gpus) + " GPUs (--enable-expert-"
             "parallel) or none; use ep " + n(gpus) + " or the default";
    if (mx)
      return std::string("vLLM has no online MXFP8 (--quantization): serve "
                         "an MXFP8 checkpoint, or price fp8");
    break;
  case Engine::Sglang:
    break;
  case Engine::Trtllm:
    // TensorRT-LLM's attention data parallelism gives every rank of the
    // tp group its own attention (attention tp 1).
    if (dp > 1 && tp > 1)
      return "TensorRT-LLM cannot say " + p.str() + ": enable_attention_dp "
             "runs attention at tp 1 on each of the tp_size GPUs; use "
             "attention tp 1 dp " + n(gpus) + " or tp " + n(gpus) + " dp 1";
    break;
  }
  return std::nullopt;
}

std::optional<ServingLaunch>
tshape::servingLaunch(const cost::ServingConfig &cfg,
                      const cost::ServingEstimate &est,
                      const std::string &model, int64_t contextTokens,
                      std::string &error) {
  const cost::ServingPlan &p = cfg.plan;
  const int64_t tp = p.attentionTp, dp = p.attentionDp, gpus = tp * dp;
  const bool fp8 = cfg.precision && *cfg.precision == Precision::FP8;
  const bool mx = cfg.precision && *cfg.precision == Precision::MXFP8;
  const bool kvFp8 = cfg.kvCache && *cfg.kvCache == DType::FP8;
  if (std::optional<std::string> why = launchRefusal(cfg)) {
    error = *why;
    return std::nullopt;
  }
  ServingLaunch l;
  std::string args;
  auto add = [&](const std::string &flag, const std::string &value = "") {
    args += (args.empty() ? "" : " ") + flag +
            (value.empty() ? "" : " " + value);
  };
  const std::string engine = cost::engineName(cfg.engine);
  switch (cfg.engine) {
  case Engine::Vllm: {
    add("--tensor-parallel-size", n(tp));
    if (dp > 1)
      add("--data-parallel-size", n(dp));
    if (p.expertEp > 1)
      add("--enable-expert-parallel");
    if (fp8)
      add("--quantization", "fp8");
    if (kvFp8)
      add("--kv-cache-dtype", "fp8");
    add("--max-model-len", n(contextTokens));
    add("--max-num-batched-tokens", n(est.tokenBudget));
    add("--max-num-seqs", n(est.maxSequences));
    add("--gpu-memory-utilization", fraction(est.kvFraction));
    l.command = "vllm serve " + model + " " + args;
    if (fp8)
      l.notes.push_back("--quantization fp8 quantizes a bf16 checkpoint's "
                        "linear layers at load; an FP8 checkpoint needs no "
                        "flag");
    break;
  }
  case Engine::Sglang: {
    if (mx)
      l.notes.push_back("--quantization mxfp8: SGLang's online MXFP8");
    add("--model-path", model);
    add("--tp-size", n(gpus));
    if (dp > 1) {
      add("--dp-size", n(dp));
      add("--enable-dp-attention");
    }
    if (p.expertEp > 1)
      add("--ep-size", n(p.ep()));
    if (fp8 || mx)
      add("--quantization", fp8 ? "fp8" : "mxfp8");
    if (kvFp8)
      add("--kv-cache-dtype", "fp8_e4m3");
    add("--context-length", n(contextTokens));
    // SGLang divides it among the dp attention ranks (parallel_hook.py).
    add("--chunked-prefill-size", n(est.tokenBudget * dp));
    // Only when asked: SGLang sizes its request pool itself.
    if (cfg.maxSequences > 0)
      add("--max-running-requests", n(cfg.maxSequences * dp));
    add("--mem-fraction-static", fraction(est.kvFraction));
    l.command = "python3 -m sglang.launch_server " + args;
    if (dp > 1)
      l.notes.push_back("SGLang's --tp-size is the replica's GPUs; with "
                        "--enable-dp-attention each of the " + n(dp) +
                        " dp ranks runs attention at tp " + n(tp));
    break;
  }
  case Engine::Trtllm: {
    add("--tp_size", n(gpus));
    if (p.expertEp > 1)
      add("--ep_size", n(p.ep()));
    add("--max_batch_size", n(est.maxSequences));
    add("--max_num_tokens", n(est.tokenBudget));
    add("--max_seq_len", n(contextTokens));
    add("--kv_cache_free_gpu_memory_fraction", fraction(est.kvFraction));
    add("--backend", "pytorch");
    add("--extra_llm_api_options", "serve.yaml");
    l.optionsYaml = "enable_chunked_prefill: true\n";
    if (dp > 1)
      l.optionsYaml += "enable_attention_dp: true\n";
    if (kvFp8)
      l.optionsYaml += "kv_cache_config:\n  dtype: fp8\n";
    l.command = "trtllm-serve " + model + " " + args;
    l.notes.push_back("write the options below to serve.yaml "
                      "(--extra_llm_api_options)");
    if (fp8 || mx)
      l.notes.push_back("TensorRT-LLM reads the precision from the "
                        "checkpoint: serve an FP8 checkpoint (NVIDIA "
                        "ModelOpt's), there is no flag for it");
    break;
  }
  }
  l.arguments = args;
  // The flags after the program (and vLLM's and trtllm-serve's model).
  std::vector<std::string> problems =
      validateServingLaunch(cfg.engine, args, l.optionsYaml);
  if (!problems.empty()) {
    error = engine + " would reject the command: " + problems.front();
    return std::nullopt;
  }
  return l;
}
