//===- ServingLaunchTest.cpp - The serving engines' launch commands -------===//
//
// Interop/ServingLaunch.h: each engine's command for one configuration
// checked flag by flag against its encoded table (every flag known, every
// value of its kind, each one the configuration's), each encoded rule with
// a line that breaks it, and the layouts an engine cannot say.
//
//===----------------------------------------------------------------------===//

#include "tshape/Interop/ServingLaunch.h"

#include <gtest/gtest.h>

using namespace tshape;
using cost::Engine;

namespace {
/// Mixtral at attention tp 1 dp 4, experts ep 4, FP8 weights and cache;
/// the engine's limits: 8192 tokens a step per rank, 1024 requests per
/// rank, fraction 0.9.
cost::ServingConfig config(Engine e) {
  cost::ServingConfig c;
  c.plan.attentionTp = 1;
  c.plan.attentionDp = 4;
  c.plan.expertEp = 4;
  c.precision = Precision::FP8;
  c.kvCache = DType::FP8;
  c.engine = e;
  return c;
}

cost::ServingEstimate limits() {
  cost::ServingEstimate e;
  e.tokenBudget = 8192;
  e.maxSequences = 1024;
  e.kvFraction = 0.9;
  return e;
}

/// The launch's flags, parsed against the engine's own table.
CliArgs flagsOf(Engine e, const ServingLaunch &l) {
  std::vector<std::string> problems;
  llvm::ArrayRef<CliFlag> table = servingFlags(e);
  CliArgs a = parseCliArguments(
      l.arguments,
      [&](llvm::StringRef name) -> const CliFlag * {
        for (const CliFlag &f : table)
          if (name == f.name)
            return &f;
        return nullptr;
      },
      problems);
  EXPECT_TRUE(problems.empty()) << problems.front();
  return a;
}
} // namespace

// vLLM: attention tp 1 dp 4 is --tensor-parallel-size 1
// --data-parallel-size 4; ep 4 = tp x dp is --enable-expert-parallel; FP8
// online quantization and an FP8 cache; context 1024 + 128; the limits.
TEST(ServingLaunch, VllmFlagByFlag) {
  std::string err;
  auto l = servingLaunch(config(Engine::Vllm), limits(), "mistralai/Mixtral",
                         1152, err);
  ASSERT_TRUE(l) << err;
  EXPECT_EQ(l->command.rfind("vllm serve mistralai/Mixtral ", 0), 0u);
  CliArgs a = flagsOf(Engine::Vllm, *l);
  EXPECT_EQ(a.integer("--tensor-parallel-size"), 1);
  EXPECT_EQ(a.integer("--data-parallel-size"), 4);
  EXPECT_TRUE(a.has("--enable-expert-parallel"));
  EXPECT_EQ(a.text("--quantization"), "fp8");
  EXPECT_EQ(a.text("--kv-cache-dtype"), "fp8");
  EXPECT_EQ(a.integer("--max-model-len"), 1152);
  EXPECT_EQ(a.integer("--max-num-batched-tokens"), 8192);
  EXPECT_EQ(a.integer("--max-num-seqs"), 1024);
  EXPECT_EQ(a.number("--gpu-memory-utilization"), 0.9);
  EXPECT_EQ(a.flags.size(), 9u);
  EXPECT_TRUE(validateServingLaunch(Engine::Vllm, l->arguments).empty());
}

// SGLang: --tp-size is the replica's 4 GPUs, --dp-size 4 with DP
// attention, --ep-size 4; the chunk 8192 per rank x 4 ranks = 32768 (SGLang
// divides it among them); the cache fp8_e4m3 (SGLang has no plain fp8).
TEST(ServingLaunch, SglangFlagByFlag) {
  std::string err;
  auto l = servingLaunch(config(Engine::Sglang), limits(), "mistralai/Mixtral",
                         1152, err);
  ASSERT_TRUE(l) << err;
  CliArgs a = flagsOf(Engine::Sglang, *l);
  EXPECT_EQ(a.text("--model-path"), "mistralai/Mixtral");
  EXPECT_EQ(a.integer("--tp-size"), 4);
  EXPECT_EQ(a.integer("--dp-size"), 4);
  EXPECT_TRUE(a.has("--enable-dp-attention"));
  EXPECT_EQ(a.integer("--ep-size"), 4);
  EXPECT_EQ(a.text("--quantization"), "fp8");
  EXPECT_EQ(a.text("--kv-cache-dtype"), "fp8_e4m3");
  EXPECT_EQ(a.integer("--context-length"), 1152);
  EXPECT_EQ(a.integer("--chunked-prefill-size"), 32768);
  // SGLang sizes its request pool itself: no --max-running-requests
  // unless asked.
  EXPECT_FALSE(a.has("--max-running-requests"));
  EXPECT_EQ(a.number("--mem-fraction-static"), 0.9);
  EXPECT_EQ(a.flags.size(), 10u);
}

// TensorRT-LLM: --tp_size 4 with enable_attention_dp in the options,
// --ep_size 4, the limits on the command line, the cache dtype in the
// options; the precision comes from the checkpoint (a note).
TEST(ServingLaunch, TrtllmFlagByFlag) {
  std::string err;
  auto l = servingLaunch(config(Engine::Trtllm), limits(), "nvidia/Mixtral-FP8",
                         1152, err);
  ASSERT_TRUE(l) << err;
  CliArgs a = flagsOf(Engine::Trtllm, *l);
  EXPECT_EQ(a.integer("--tp_size"), 4);
  EXPECT_EQ(a.integer("--ep_size"), 4);
  EXPECT_EQ(a.integer("--max_batch_size"), 1024);
  EXPECT_EQ(a.integer("--max_num_tokens"), 8192);
  EXPECT_EQ(a.integer("--max_seq_len"), 1152);
  EXPECT_EQ(a.number("--kv_cache_free_gpu_memory_fraction"), 0.9);
  EXPECT_EQ(a.text("--backend"), "pytorch");
  EXPECT_EQ(a.text("--extra_llm_api_options"), "serve.yaml");
  EXPECT_EQ(a.flags.size(), 8u);
  EXPECT_EQ(l->optionsYaml, "enable_chunked_prefill: true\n"
                            "enable_attention_dp: true\n"
                            "kv_cache_config:\n  dtype: fp8\n");
  EXPECT_TRUE(
      validateServingLaunch(Engine::Trtllm, l->arguments, l->optionsYaml)
          .empty());
  bool checkpointNote = false;
  for (const std::string &n : l->notes)
    checkpointNote |= n.find("reads the precision from the checkpoint") !=
                      std::string::npos;
  EXPECT_TRUE(checkpointNote);
}

// Each rule with a line that breaks it, and the parse's own problems.
TEST(ServingLaunch, Rules) {
  auto first = [](Engine e, const char *line, const char *yaml = "") {
    std::vector<std::string> p = validateServingLaunch(e, line, yaml);
    return p.empty() ? std::string() : p.front();
  };
  EXPECT_NE(first(Engine::Vllm, "--gpu-memory-utilization 1.5")
                .find("rule V1"),
            std::string::npos);
  EXPECT_NE(first(Engine::Vllm, "--max-num-seqs 0").find("rule V2"),
            std::string::npos);
  EXPECT_NE(first(Engine::Vllm, "--max-num-batched-tokens 512 --max-num-seqs "
                                "1024")
                .find("rule V3"),
            std::string::npos);
  EXPECT_NE(first(Engine::Vllm, "--kv-cache-dtype fp16").find("expected one "
                                                             "of its choices"),
            std::string::npos);
  EXPECT_NE(first(Engine::Vllm, "--tp 2").find("unrecognized argument --tp"),
            std::string::npos);
  EXPECT_NE(first(Engine::Sglang, "--tp-size 2").find("rule S1"),
            std::string::npos);
  EXPECT_NE(first(Engine::Sglang, "--model-path m --tp-size 6 --dp-size 4 "
                                  "--enable-dp-attention")
                .find("rule S2"),
            std::string::npos);
  EXPECT_NE(first(Engine::Sglang, "--model-path m --tp-size 4 "
                                  "--enable-dp-attention")
                .find("rule S3"),
            std::string::npos);
  EXPECT_NE(first(Engine::Sglang, "--model-path m --tp-size 4 --ep-size 3")
                .find("rule S4"),
            std::string::npos);
  EXPECT_NE(first(Engine::Sglang, "--model-path m --mem-fraction-static 1")
                .find("rule S5"),
            std::string::npos);
  EXPECT_NE(first(Engine::Sglang, "--model-path m --kv-cache-dtype fp8")
                .find("expected one of its choices"),
            std::string::npos);
  EXPECT_NE(first(Engine::Trtllm, "--tp_size 4 --ep_size 3").find("rule T1"),
            std::string::npos);
  EXPECT_NE(first(Engine::Trtllm, "--kv_cache_free_gpu_memory_fraction 2")
                .find("rule T2"),
            std::string::npos);
  EXPECT_NE(first(Engine::Trtllm, "--tp_size 4", "enable_attention_dpp: true\n")
                .find("options YAML: unknown key enable_attention_dpp"),
            std::string::npos);
  EXPECT_NE(first(Engine::Trtllm, "--tp_size 4",
                  "kv_cache_config:\n  dtype: int8\n")
                .find("expected one of its choices"),
            std::string::npos);
}

// The layouts an engine cannot say are refused with the reason.
TEST(ServingLaunch, Refusals) {
  std::string err;
  cost::ServingConfig vllm = config(Engine::Vllm);
  vllm.plan.expertEp = 2; // ep 2 of 4 GPUs
  EXPECT_FALSE(servingLaunch(vllm, limits(), "m", 1152, err));
  EXPECT_NE(err.find("spans all tp x dp = 4 GPUs"), std::string::npos) << err;
  cost::ServingConfig trt = config(Engine::Trtllm);
  trt.plan.attentionTp = 2;
  trt.plan.attentionDp = 2;
  EXPECT_FALSE(servingLaunch(trt, limits(), "m", 1152, err));
  EXPECT_NE(err.find("enable_attention_dp runs attention at tp 1"),
            std::string::npos)
      << err;
  cost::ServingConfig mx = config(Engine::Vllm);
  mx.precision = Precision::MXFP8;
  EXPECT_FALSE(servingLaunch(mx, limits(), "m", 1152, err));
  EXPECT_NE(err.find("MXFP8"), std::string::npos) << err;
  // Drafts priced but not written: no command that would run without them.
  cost::ServingConfig spec = config(Engine::Sglang);
  spec.draftTokens = 3;
  EXPECT_FALSE(servingLaunch(spec, limits(), "m", 1152, err));
  EXPECT_NE(err.find("speculative decoding is priced"), std::string::npos)
      << err;
}
