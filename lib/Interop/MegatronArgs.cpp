//===- MegatronArgs.cpp - Megatron-LM's command line, encoded -------------===//
//
// The flag table is Megatron-LM's parser at kMegatronCommit (megatron/
// training/arguments.py builds most flags from the config dataclasses'
// fields, megatron/training/argument_utils.py); the rules are
// validate_args (arguments.py) and the __post_init__ of TransformerConfig
// (megatron/core/transformer/transformer_config.py, "TC" below) and
// ModelParallelConfig, and the few run-time checks every training step
// meets at its first step. Each rule cites its line at that commit.
//
//===----------------------------------------------------------------------===//

#include "tshape/Interop/MegatronArgs.h"

#include "tshape/Cost/PipelineLayout.h"

#include "llvm/ADT/StringExtras.h"

#include <algorithm>
#include <cmath>

using namespace tshape;

namespace {
using K = MegatronFlag::Kind;
constexpr K Switch = K::Switch, Int = K::Int, Float = K::Float,
            String = K::String, Choice = K::Choice, IntPair = K::IntPair,
            Pattern = K::Pattern;

// Megatron-LM's parser at kMegatronCommit: name, kind, choices, nargs='+',
// where it is declared ("(field)": generated from that dataclass field).
const MegatronFlag kFlags[] = {
    {"--num-layers", Int, "", 0, "transformer_config.py:65 (field)"},
    {"--hidden-size", Int, "", 0, "transformer_config.py:145 (field)"},
    {"--ffn-hidden-size", Int, "", 0, "transformer_config.py:180 (field)"},
    {"--num-attention-heads", Int, "", 0, "transformer_config.py:148 (field)"},
    {"--group-query-attention", Switch, "", 0, "arguments.py:2382"},
    {"--num-query-groups", Int, "", 0, "transformer_config.py:175 (field)"},
    {"--kv-channels", Int, "", 0, "transformer_config.py:184 (field)"},
    {"--seq-length", Int, "", 0, "arguments.py:3305"},
    {"--max-position-embeddings", Int, "", 0, "arguments.py:2394"},
    {"--micro-batch-size", Int, "", 0, "config/training_config.py:11 (field)"},
    {"--global-batch-size", Int, "", 0, "config/training_config.py:15 (field)"},
    {"--tensor-model-parallel-size", Int, "", 0, "model_parallel_config.py:55 (field)"},
    {"--pipeline-model-parallel-size", Int, "", 0, "model_parallel_config.py:83 (field)"},
    {"--context-parallel-size", Int, "", 0, "model_parallel_config.py:100 (field)"},
    {"--expert-model-parallel-size", Int, "", 0, "model_parallel_config.py:127 (field)"},
    {"--expert-tensor-parallel-size", Int, "", 0, "model_parallel_config.py:130 (field)"},
    {"--num-layers-per-virtual-pipeline-stage", Int, "", 0, "arguments.py:3114"},
    {"--num-virtual-stages-per-pipeline-rank", Int, "", 0, "arguments.py:3116"},
    {"--decoder-first-pipeline-num-layers", Int, "", 0, "arguments.py:3095"},
    {"--decoder-last-pipeline-num-layers", Int, "", 0, "arguments.py:3099"},
    {"--account-for-embedding-in-pipeline-split", Switch, "", 0, "transformer_config.py:137 (field)"},
    {"--account-for-loss-in-pipeline-split", Switch, "", 0, "transformer_config.py:141 (field)"},
    {"--pipeline-model-parallel-layout", String, "", 0, "arguments.py:3103"},
    {"--no-overlap-p2p-communication", Switch, "", 0, "arguments.py:3118"},
    {"--overlap-p2p-communication-warmup-flush", Switch, "", 0, "model_parallel_config.py:424 (argparse_meta)"},
    {"--microbatch-group-size-per-virtual-pipeline-stage", Int, "", 0, "model_parallel_config.py:434 (argparse_meta)"},
    {"--make-vocab-size-divisible-by", Int, "", 0, "arguments.py:2441"},
    {"--position-embedding-type", Choice, "learned_absolute,rope,yarn,mrope,relative,none", 0, "arguments.py:2397"},
    {"--rotary-base", Int, "", 0, "arguments.py:2418"},
    {"--rotary-percent", Float, "", 0, "arguments.py:2420"},
    {"--rotary-interleaved", Switch, "", 0, "transformer_config.py:243 (field)"},
    {"--rotary-seq-len-interpolation-factor", Int, "", 0, "arguments.py:2422"},
    {"--use-rope-scaling", Switch, "", 0, "arguments.py:2424"},
    {"--rope-scaling-factor", Float, "", 0, "arguments.py:2426"},
    {"--rope-type", Choice, "rope,yarn", 0, "arguments.py:2906"},
    {"--rotary-scaling-factor", Float, "", 0, "arguments.py:3558"},
    {"--yarn-original-max-position-embeddings", Int, "", 0, "arguments.py:2400"},
    {"--yarn-beta-fast", Float, "", 0, "arguments.py:2402"},
    {"--yarn-beta-slow", Float, "", 0, "arguments.py:2404"},
    {"--yarn-correction-range-round-to-int", Switch, "", 0, "arguments.py:2406"},
    {"--no-yarn-correction-range-round-to-int", Switch, "", 0, "arguments.py:2408"},
    {"--mscale", Float, "", 0, "arguments.py:3560"},
    {"--mscale-all-dim", Float, "", 0, "arguments.py:3562"},
    {"--no-rope-fusion", Switch, "", 0, "arguments.py:2902"},
    {"--no-rope-freq", Pattern, "", 0, "arguments.py:2428"},
    {"--use-rotary-position-embeddings", Switch, "", 0, "arguments.py:2415"},
    {"--mrope-section", Int, "", 1, "transformer_config.py:1252 (field)"},
    {"--normalization", Choice, "LayerNorm,RMSNorm", 0, "transformer_config.py:256 (field)"},
    {"--norm-epsilon", Float, "", 0, "transformer_config.py:202 (argparse_meta)"},
    {"--apply-layernorm-1p", Switch, "", 0, "transformer_config.py:207 (argparse_meta)"},
    {"--qk-layernorm", Switch, "", 0, "transformer_config.py:259 (field)"},
    {"--qk-l2-norm", Switch, "", 0, "transformer_config.py:262 (field)"},
    {"--disable-bias-linear", Switch, "", 0, "transformer_config.py:213 (argparse_meta)"},
    {"--add-qkv-bias", Switch, "", 0, "transformer_config.py:218 (field)"},
    {"--swiglu", Switch, "", 0, "arguments.py:2450"},
    {"--squared-relu", Switch, "", 0, "arguments.py:2448"},
    {"--quick-geglu", Switch, "", 0, "arguments.py:2452"},
    {"--glu-linear-offset", Float, "", 0, "transformer_config.py:231 (field)"},
    {"--activation-func-clamp-value", Float, "", 0, "transformer_config.py:235 (field)"},
    {"--openai-gelu", Switch, "", 0, "arguments.py:2444"},
    {"--onnx-safe", String, "", 0, "arguments.py:2454"},
    {"--use-te-activation-func", Switch, "", 0, "transformer_config.py:1199 (field)"},
    {"--softmax-type", Choice, "vanilla,off-by-one,learnable", 0, "transformer_config.py:170 (field)"},
    {"--window-size", IntPair, "", 0, "arguments.py:2384"},
    {"--window-attn-skip-freq", Pattern, "", 0, "arguments.py:2387"},
    {"--untie-embeddings-and-output-weights", Switch, "", 0, "arguments.py:2460"},
    {"--apply-residual-connection-post-layernorm", Switch, "", 0, "transformer_config.py:198 (field)"},
    {"--attention-output-gate", Switch, "", 0, "transformer_config.py:278 (field)"},
    {"--apply-query-key-layer-scaling", Switch, "", 0, "transformer_config.py:481 (field)"},
    {"--attention-softmax-in-fp32", Switch, "", 0, "arguments.py:3067"},
    {"--bf16", Switch, "", 0, "model_parallel_config.py:180 (field)"},
    {"--fp16", Switch, "", 0, "model_parallel_config.py:177 (field)"},
    {"--fp8-format", Choice, "e4m3,hybrid", 0, "transformer_config.py:588 (argparse_meta)"},
    {"--fp8-recipe", Choice, "tensorwise,delayed,mxfp8,blockwise,custom", 0, "transformer_config.py:594 (field)"},
    {"--fp8-param-gather", Switch, "", 0, "arguments.py:2016"},
    {"--fp4-format", Choice, "e2m1", 0, "transformer_config.py:674 (argparse_meta)"},
    {"--fp4-recipe", Choice, "nvfp4,custom", 0, "transformer_config.py:679 (field)"},
    {"--fp4-param-gather", Switch, "", 0, "arguments.py:2012"},
    {"--attention-backend", Choice, "flash,fused,unfused,local,auto", 0, "transformer_config.py:151 (field)"},
    {"--num-experts", Int, "", 0, "arguments.py:3518"},
    {"--moe-router-topk", Int, "", 0, "transformer_config.py:760 (field)"},
    {"--moe-ffn-hidden-size", Int, "", 0, "transformer_config.py:740 (field)"},
    {"--moe-shared-expert-intermediate-size", Int, "", 0, "transformer_config.py:701 (field)"},
    {"--moe-shared-expert-gate", Switch, "", 0, "transformer_config.py:713 (field)"},
    {"--moe-apply-probs-on-input", Switch, "", 0, "transformer_config.py:949 (field)"},
    {"--moe-shared-expert-overlap", Switch, "", 0, "transformer_config.py:717 (field)"},
    {"--overlap-moe-expert-parallel-comm", Switch, "", 0, "model_parallel_config.py:343 (field)"},
    {"--moe-layer-freq", Pattern, "", 0, "arguments.py:3520"},
    {"--moe-grouped-gemm", Switch, "", 0, "transformer_config.py:850 (field)"},
    {"--moe-token-dispatcher-type", Choice, "allgather,alltoall,flex", 0, "transformer_config.py:891 (field)"},
    {"--moe-expert-capacity-factor", Float, "", 0, "transformer_config.py:917 (field)"},
    {"--moe-router-score-function", Choice, "softmax,sigmoid,sqrtsoftplus", 0, "transformer_config.py:808 (field)"},
    {"--moe-router-pre-softmax", Switch, "", 0, "transformer_config.py:799 (field)"},
    {"--moe-router-enable-expert-bias", Switch, "", 0, "transformer_config.py:816 (field)"},
    {"--moe-router-topk-scaling-factor", Float, "", 0, "transformer_config.py:804 (field)"},
    {"--moe-router-num-groups", Int, "", 0, "transformer_config.py:780 (field)"},
    {"--moe-router-group-topk", Int, "", 0, "transformer_config.py:796 (field)"},
    {"--moe-router-load-balancing-type", Choice, "aux_loss,seq_aux_loss,global_aux_loss,sinkhorn,quantile_balancing,none", 1, "arguments.py:3532"},
    {"--moe-router-dtype", Choice, "fp32,fp64", 0, "transformer_config.py:811 (field)"},
    {"--moe-aux-loss-coeff", Float, "", 1, "arguments.py:3536"},
    {"--moe-enable-deepep", Switch, "", 0, "transformer_config.py:895 (field)"},
    {"--moe-flex-dispatcher-backend", Choice, "deepep,hybridep,ncclep", 0, "transformer_config.py:898 (field)"},
    {"--moe-permute-fusion", Switch, "", 0, "transformer_config.py:941 (field)"},
    {"--moe-z-loss-coeff", Float, "", 0, "transformer_config.py:880 (field)"},
    {"--multi-latent-attention", Switch, "", 0, "transformer_config.py:288 (field)"},
    {"--q-lora-rank", Int, "", 0, "arguments.py:3548"},
    {"--kv-lora-rank", Int, "", 0, "arguments.py:3550"},
    {"--qk-head-dim", Int, "", 0, "arguments.py:3552"},
    {"--qk-pos-emb-head-dim", Int, "", 0, "arguments.py:3554"},
    {"--v-head-dim", Int, "", 0, "arguments.py:3556"},
    {"--mtp-num-layers", Int, "", 0, "transformer_config.py:68 (field)"},
    {"--mtp-loss-scaling-factor", Float, "", 0, "transformer_config.py:75 (field)"},
    {"--sequence-parallel", Switch, "", 0, "model_parallel_config.py:94 (field)"},
    {"--recompute-granularity", Choice, "full,selective", 0, "transformer_config.py:532 (field)"},
    {"--recompute-method", Choice, "uniform,block", 0, "transformer_config.py:543 (field)"},
    {"--recompute-num-layers", Int, "", 0, "transformer_config.py:551 (field)"},
    {"--recompute-modules", String, "", 1, "transformer_config.py:560 (field)"},
    {"--recompute-activations", Switch, "", 0, "arguments.py:2869"},
    {"--cpu-offloading-num-layers", Int, "", 0, "model_parallel_config.py:461 (field)"},
    {"--optimizer-cpu-offload", Switch, "", 0, "arguments.py:2918"},
    {"--use-precision-aware-optimizer", Switch, "", 0, "arguments.py:3667"},
    {"--fine-grained-activation-offloading", Switch, "", 0, "transformer_config.py:1323 (field)"},
    {"--offload-modules", String, "", 1, "transformer_config.py:1328 (field)"},
    {"--use-distributed-optimizer", Switch, "", 0, "arguments.py:3156"},
    {"--overlap-grad-reduce", Switch, "", 0, "arguments.py:3121"},
    {"--overlap-param-gather", Switch, "", 0, "arguments.py:3148"},
    {"--use-torch-fsdp2", Switch, "", 0, "config/common_config.py:95 (field)"},
    {"--use-megatron-fsdp", Switch, "", 0, "config/common_config.py:92 (field)"},
    {"--ckpt-format", Choice, "torch,torch_dist,torch_dcp,fsdp_dtensor", 0, "config/training_config.py:486 (field)"},
    {"--no-gradient-accumulation-fusion", Switch, "", 0, "arguments.py:2944"},
    {"--tp-comm-overlap", Switch, "", 0, "model_parallel_config.py:265 (field)"},
    {"--transformer-impl", Choice, "local,transformer_engine,inference_optimized", 0, "transformer_config.py:1314 (field)"},
    {"--use-mcore-models", Switch, "", 0, "arguments.py:2949"},
    {"--init-method-std", Float, "", 0, "transformer_config.py:400 (field)"},
    {"--hidden-dropout", Float, "", 0, "transformer_config.py:188 (field)"},
    {"--attention-dropout", Float, "", 0, "transformer_config.py:191 (field)"},
    {"--vocab-size", Int, "", 0, "config/training_config.py:679 (field)"},
    {"--padded-vocab-size", Int, "", 0, "config/training_config.py:682 (field)"},
    {"--tokenizer-type", Choice, "BertWordPieceLowerCase,BertWordPieceCase,GPT2BPETokenizer,SentencePieceTokenizer,GPTSentencePieceTokenizer,HuggingFaceTokenizer,Llama2Tokenizer,TikTokenizer,MultimodalTokenizer,NullTokenizer,NullMultimodalTokenizer,SFTTokenizer", 0, "config/training_config.py:698 (field)"},
    {"--calculate-per-token-loss", Switch, "", 0, "transformer_config.py:284 (field)"},
    {"--no-masked-softmax-fusion", Switch, "", 0, "arguments.py:2887"},
    {"--no-bias-swiglu-fusion", Switch, "", 0, "arguments.py:2895"},
    {"--no-bias-gelu-fusion", Switch, "", 0, "arguments.py:2892"},
    {"--no-bias-dropout-fusion", Switch, "", 0, "arguments.py:2899"},
    {"--no-position-embedding", Switch, "", 0, "arguments.py:2437"},
    {"--no-persist-layer-norm", Switch, "", 0, "arguments.py:2939"},
};
} // namespace

llvm::ArrayRef<MegatronFlag> tshape::megatronFlags() { return kFlags; }

const MegatronFlag *tshape::findMegatronFlag(llvm::StringRef name) {
  for (const MegatronFlag &f : kFlags)
    if (name == f.name)
      return &f;
  return nullptr;
}

MegatronArgs tshape::parseMegatronArguments(llvm::StringRef line,
                                            std::vector<std::string> &problems) {
  // The parser is built with allow_abbrev=False (arguments.py:119): a
  // flag is known by its whole name or not at all.
  return parseCliArguments(line, findMegatronFlag, problems);
}

namespace {
/// The rules' view of a parsed line: each setting after Megatron-LM's
/// defaults (docs/megatron.md, "Defaults").
struct Settings {
  const MegatronArgs &a;
  int64_t get(const char *flag, int64_t fallback) const {
    return a.integer(flag).value_or(fallback);
  }
  bool on(const char *flag) const { return a.has(flag); }
};

std::string n(int64_t v) { return std::to_string(v); }
} // namespace

std::vector<std::string>
tshape::validateMegatronArguments(llvm::StringRef line,
                                  const MegatronLaunchContext &ctx) {
  std::vector<std::string> out;
  MegatronArgs a = parseMegatronArguments(line, out);
  Settings s{a};
  auto fail = [&](const char *id, const char *where, const std::string &why) {
    out.push_back(std::string("rule ") + id + " (" + where + "): " + why);
  };
  const int64_t tp = s.get("--tensor-model-parallel-size", 1),
                pp = s.get("--pipeline-model-parallel-size", 1),
                cp = s.get("--context-parallel-size", 1),
                ep = s.get("--expert-model-parallel-size", 1),
                // validate_args sets an absent ETP to TP (arguments.py:587).
                etp = s.get("--expert-tensor-parallel-size", tp),
                layers = s.get("--num-layers", 0),
                heads = s.get("--num-attention-heads", 0),
                seq = s.get("--seq-length", 0),
                mbs = s.get("--micro-batch-size", 0),
                experts = s.get("--num-experts", 0),
                topk = s.get("--moe-router-topk", 2),
                first = s.get("--decoder-first-pipeline-num-layers", 0),
                last = s.get("--decoder-last-pipeline-num-layers", 0),
                perVirtual = s.get("--num-layers-per-virtual-pipeline-stage", 0);
  // --num-query-groups counts only with --group-query-attention, which
  // alone means one group (argument_utils.py:330-333).
  const int64_t groups = s.on("--group-query-attention")
                             ? s.get("--num-query-groups", 1)
                             : heads;
  const bool bias = !s.on("--disable-bias-linear");
  const std::string score = s.on("--moe-router-score-function")
                                ? a.text("--moe-router-score-function")
                                : "softmax";
  const std::string positions = s.on("--position-embedding-type")
                                    ? a.text("--position-embedding-type")
                                    : "learned_absolute";
  const bool mla = s.on("--multi-latent-attention");
  const bool fsdp2 = s.on("--use-torch-fsdp2");

  // Required sizes (arguments.py:1314-1317) and positions (1353).
  for (const char *f : {"--num-layers", "--hidden-size", "--num-attention-heads",
                        "--max-position-embeddings", "--micro-batch-size"})
    if (!s.on(f))
      fail("P1", "arguments.py:1314", std::string(f) + " is required");
  if (s.on("--max-position-embeddings") && seq >
      s.get("--max-position-embeddings", 0))
    fail("C2", "arguments.py:1353",
         "max-position-embeddings below seq-length " + n(seq));
  if (!s.on("--kv-channels") && heads > 0 &&
      s.get("--hidden-size", 0) % heads)
    fail("H3", "arguments.py:1331",
         "hidden-size not divisible by num-attention-heads and no "
         "--kv-channels");

  // Pipeline layouts. A layout string excludes the other layout arguments
  // (arguments.py:930-939; transformer_config.py:2242-2259) and is checked
  // as Megatron-LM parses and validates it.
  std::string layoutWhy;
  const std::optional<cost::PipelineLayout> layout =
      s.on("--pipeline-model-parallel-layout")
          ? cost::parsePipelineLayout(
                a.text("--pipeline-model-parallel-layout"), layoutWhy)
          : std::nullopt;
  if (s.on("--pipeline-model-parallel-layout")) {
    if (perVirtual || s.on("--num-virtual-stages-per-pipeline-rank"))
      fail("P11", "arguments.py:930",
           "--pipeline-model-parallel-layout excludes "
           "--num-layers-per-virtual-pipeline-stage and "
           "--num-virtual-stages-per-pipeline-rank");
    if (first || last ||
        s.on("--account-for-embedding-in-pipeline-split") ||
        s.on("--account-for-loss-in-pipeline-split"))
      fail("P12", "transformer_config.py:2242",
           "--pipeline-model-parallel-layout cannot be set with the first/"
           "last stage layer counts or the embedding/loss in the split");
    if (!layout)
      fail("P13", "pipeline_parallel_layer_layout.py:283", layoutWhy);
    else if (std::string bad = cost::checkPipelineLayout(
                 *layout, pp, layers, s.get("--mtp-num-layers", 0));
             !bad.empty())
      fail("P14", "pipeline_parallel_layer_layout.py:86", bad);
  }
  if (first || last) {
    if (s.on("--account-for-embedding-in-pipeline-split") ||
        s.on("--account-for-loss-in-pipeline-split"))
      fail("P4", "transformer_config.py:2229",
           "uneven first/last stages cannot be combined with "
           "--account-for-embedding/loss-in-pipeline-split");
    if (perVirtual)
      fail("P7", "arguments.py:955",
           "--num-layers-per-virtual-pipeline-stage cannot be used with "
           "uneven stages; use --num-virtual-stages-per-pipeline-rank");
    const int64_t given = (first > 0) + (last > 0), middle = pp - given,
                  rest = layers - first - last;
    if (rest < 0 || (middle > 0 ? rest % middle != 0 || rest == 0
                                : rest != 0))
      fail("P3", "transformer_config.py:2322",
           n(rest) + " middle layers cannot be split evenly over " +
               n(middle) + " middle stages");
  } else if (!s.on("--pipeline-model-parallel-layout")) {
    const int64_t extra = s.on("--account-for-embedding-in-pipeline-split") +
                          s.on("--account-for-loss-in-pipeline-split");
    if (pp > 0 && (layers + extra) % pp)
      fail("P2", "arguments.py:989",
           "num-layers " + n(layers) +
               (extra ? " (+" + n(extra) + " for embedding/loss)" : "") +
               " not divisible by pipeline-model-parallel-size " + n(pp));
    if (perVirtual && pp > 0 && ((layers + extra) / pp) % perVirtual)
      fail("P8", "arguments.py:972",
           "layers per pipeline stage " + n((layers + extra) / pp) +
               " not divisible by --num-layers-per-virtual-pipeline-stage " +
               n(perVirtual));
  }
  // More than one model chunk per rank, however given (Megatron-LM leaves
  // the virtual size None when it comes out 1: arguments.py:950-951,
  // 978-979).
  const bool interleaved =
      (perVirtual && pp > 0 && (layers / pp) / perVirtual > 1) ||
      s.get("--num-virtual-stages-per-pipeline-rank", 1) > 1 ||
      (layout && pp > 0 && layout->virtualStages(pp) > 1);
  if (interleaved) {
    const bool overlap = !s.on("--no-overlap-p2p-communication");
    if (pp <= (overlap ? 1 : 2))
      fail("P10", "arguments.py:1000",
           "the interleaved schedule needs pipeline-model-parallel-size > " +
               n(overlap ? 1 : 2) + ", got " + n(pp));
  }

  // Heads and tensor parallelism (TC __post_init__).
  if (tp > 0 && heads % tp)
    fail("H1", "transformer_config.py:1446",
         "num-attention-heads " + n(heads) + " not a multiple of "
         "tensor-model-parallel-size " + n(tp));
  if (tp > 0 && groups > 0 && groups % tp && tp % groups)
    fail("H2", "transformer_config.py:1461",
         "num-query-groups " + n(groups) + " neither a multiple nor a "
         "divisor of tensor-model-parallel-size " + n(tp));
  if (groups > 0 && heads % groups)
    fail("H2", "attention.py:357",
         "num-attention-heads " + n(heads) + " not a multiple of "
         "num-query-groups " + n(groups));
  if (cp > 1 && seq % (2 * cp))
    fail("C1", "arguments.py:1335",
         "seq-length " + n(seq) + " not a multiple of 2 x "
         "context-parallel-size = " + n(2 * cp));
  const bool sp = s.on("--sequence-parallel") && tp > 1; // S1: off at tp 1
  if (s.on("--tp-comm-overlap") && !sp)
    fail("S5", "arguments.py:1441",
         "--tp-comm-overlap needs --sequence-parallel (and tp > 1)");
  // (With the expert all-to-alls overlapped Megatron-LM only warns,
  // arguments.py:1466.)
  if (!ctx.blackwell && (tp > 1 || cp > 1) && !fsdp2 &&
      !s.on("--use-megatron-fsdp") &&
      !s.on("--overlap-moe-expert-parallel-comm") && !ctx.deviceMaxConnections1)
    fail("E1", "arguments.py:1453",
         "tensor or context parallelism needs CUDA_DEVICE_MAX_CONNECTIONS=1 "
         "in the environment (before Blackwell)");

  // Mixture of experts.
  if (ep > 1 && !experts)
    fail("X1", "arguments.py:1655",
         "expert-model-parallel-size " + n(ep) + " needs --num-experts");
  if (ep > 1 && experts % ep)
    fail("X2", "arguments.py:1657",
         "num-experts " + n(experts) + " not a multiple of "
         "expert-model-parallel-size " + n(ep));
  if (experts) {
    if (bias && etp != 1)
      fail("X5", "transformer_config.py:2612",
           "MoE with biased linear layers needs expert tensor parallelism "
           "1, got " + n(etp) + " (it defaults to tp): add "
           "--disable-bias-linear or --expert-tensor-parallel-size 1");
    if (topk == 1 && score == "softmax" && !s.on("--moe-router-pre-softmax") &&
        a.text("--moe-router-load-balancing-type") != "sinkhorn")
      fail("X6", "transformer_config.py:2661",
           "top-1 softmax routing needs --moe-router-pre-softmax");
    if (s.on("--moe-router-enable-expert-bias") && score == "softmax")
      fail("X7", "transformer_config.py:2617",
           "--moe-router-enable-expert-bias needs the sigmoid (or "
           "sqrtsoftplus) score function");
    if (s.on("--moe-router-group-topk")) {
      const int64_t g = s.get("--moe-router-num-groups", 0),
                    k = s.get("--moe-router-group-topk", 0);
      if (!g)
        fail("X8", "transformer_config.py:2671",
             "--moe-router-group-topk needs --moe-router-num-groups");
      else if (experts % g || k > g)
        fail("X8", "transformer_config.py:2680",
             "groups " + n(g) + " must divide the " + n(experts) +
                 " experts and be at least group-topk " + n(k));
    }
    if (s.on("--moe-apply-probs-on-input") && topk != 1)
      fail("X18", "moe/experts.py:918",
           "--moe-apply-probs-on-input works with top-1 routing only, got "
           "top-" + n(topk));
    if (tp > 1 && !sp)
      fail("S4", "moe_layer.py:636",
           "MoE with tensor parallelism needs --sequence-parallel (training "
           "raises at the first MoE layer)");
    if (s.on("--moe-shared-expert-overlap") &&
        a.text("--moe-token-dispatcher-type") != "alltoall" &&
        a.text("--moe-token-dispatcher-type") != "flex")
      fail("X12", "transformer_config.py:1813",
           "--moe-shared-expert-overlap needs the alltoall or flex "
           "dispatcher");
  } else if (s.on("--moe-ffn-hidden-size") && !s.on("--moe-layer-freq")) {
    fail("X4", "transformer_config.py:1689",
         "--moe-ffn-hidden-size without --num-experts");
  }

  // --recompute-modules as given (read at selective granularity only).
  const auto modulesIt = a.flags.find("--recompute-modules");
  const std::vector<std::string> noModules;
  const std::vector<std::string> &modules =
      modulesIt == a.flags.end() ? noModules : modulesIt->second;
  auto recomputes = [&](const char *m) {
    return std::find(modules.begin(), modules.end(), m) != modules.end();
  };

  // The expert all-to-alls overlapped with another microbatch's compute
  // (TC __post_init__, transformer_config.py:3002-3047).
  if (s.on("--overlap-moe-expert-parallel-comm")) {
    const bool moeModule = a.text("--recompute-granularity") == "selective" &&
                           recomputes("moe");
    if (pp > 1 && !interleaved)
      fail("M1", "transformer_config.py:3007",
           "--overlap-moe-expert-parallel-comm at pipeline-model-parallel-"
           "size " + n(pp) + " needs virtual pipeline stages");
    if (ep <= 1)
      fail("M2", "transformer_config.py:3013",
           "--overlap-moe-expert-parallel-comm needs expert parallelism "
           "(expert-model-parallel-size > 1)");
    const std::string dispatcher = a.text("--moe-token-dispatcher-type");
    if (dispatcher != "alltoall" && dispatcher != "flex")
      fail("M3", "transformer_config.py:3016",
           "--overlap-moe-expert-parallel-comm needs the alltoall or flex "
           "dispatcher");
    if (a.text("--recompute-granularity") == "full" ||
        s.on("--recompute-method"))
      fail("M4", "transformer_config.py:3021",
           "--overlap-moe-expert-parallel-comm excludes full recompute and "
           "--recompute-method");
    if (moeModule)
      fail("M5", "transformer_config.py:3030",
           "--overlap-moe-expert-parallel-comm excludes the moe recompute "
           "module");
    if (!s.on("--bf16") && !s.on("--fp16"))
      fail("M6", "transformer_config.py:3034",
           "--overlap-moe-expert-parallel-comm needs --bf16 or --fp16");
    if (s.on("--moe-shared-expert-overlap"))
      fail("M7", "transformer_config.py:3039",
           "--overlap-moe-expert-parallel-comm excludes "
           "--moe-shared-expert-overlap");
    if (s.get("--mtp-num-layers", 0) > 1)
      fail("M8", "transformer_config.py:3042",
           "--overlap-moe-expert-parallel-comm supports at most one MTP "
           "layer, got " + n(s.get("--mtp-num-layers", 0)));
  }

  // Sharding and overlap.
  if (fsdp2) {
    if (pp != 1)
      fail("F1", "arguments.py:1034",
           "--use-torch-fsdp2 is not supported with pipeline parallelism");
    if (ep != 1)
      fail("F1", "arguments.py:1036",
           "--use-torch-fsdp2 is not supported with expert parallelism");
    if (s.on("--use-distributed-optimizer"))
      fail("F1", "arguments.py:1038",
           "--use-torch-fsdp2 is not supported with the distributed "
           "optimizer");
    if (!s.on("--no-gradient-accumulation-fusion"))
      fail("F1", "arguments.py:1040",
           "--use-torch-fsdp2 needs --no-gradient-accumulation-fusion");
    if (s.on("--ckpt-format") && a.text("--ckpt-format") != "torch_dist" &&
        a.text("--ckpt-format") != "torch_dcp")
      fail("F1", "arguments.py:1042",
           "--use-torch-fsdp2 needs --ckpt-format torch_dist or torch_dcp");
    if (!s.on("--untie-embeddings-and-output-weights"))
      fail("F1", "arguments.py:1044",
           "--use-torch-fsdp2 needs --untie-embeddings-and-output-weights");
    if (s.on("--fp16"))
      fail("F1", "arguments.py:1046",
           "--use-torch-fsdp2 is not supported with --fp16");
    if (ctx.deviceMaxConnections1)
      fail("E2", "arguments.py:1048",
           "FSDP needs CUDA_DEVICE_MAX_CONNECTIONS unset or above 1");
  }
  if (s.on("--overlap-param-gather") &&
      (!s.on("--use-distributed-optimizer") || !s.on("--overlap-grad-reduce")))
    fail("F4", "arguments.py:1024",
         "--overlap-param-gather needs --use-distributed-optimizer and "
         "--overlap-grad-reduce");
  if (s.get("--cpu-offloading-num-layers", 0) > 0) {
    if (pp != 1)
      fail("F8", "transformer_config.py:1890",
           "activation CPU offloading is not supported with pipeline "
           "parallelism");
    if (s.on("--recompute-granularity"))
      fail("F8", "transformer_config.py:1894",
           "activation CPU offloading does not work with recompute");
    if (s.get("--cpu-offloading-num-layers", 0) >= layers)
      fail("F8", "transformer_config.py:1884",
           "--cpu-offloading-num-layers must be below num-layers");
  }
  if (s.on("--optimizer-cpu-offload") &&
      !s.on("--use-precision-aware-optimizer"))
    fail("F7", "arguments.py:1884",
         "--optimizer-cpu-offload needs --use-precision-aware-optimizer");

  // Recompute.
  const std::string granularity = a.text("--recompute-granularity");
  if (granularity == "selective" && (s.on("--recompute-method") ||
                                     s.on("--recompute-num-layers")))
    fail("R2", "arguments.py:1425",
         "selective recompute takes no --recompute-method or "
         "--recompute-num-layers");
  if (granularity == "full" &&
      (!s.on("--recompute-method") || !s.on("--recompute-num-layers")))
    fail("R4", "transformer_config.py:1913",
         "full recompute needs --recompute-method and "
         "--recompute-num-layers");
  // Selective recompute's modules (TC __post_init__, 1940-2011), read
  // only at selective granularity; the default is core_attn.
  if (granularity == "selective") {
    auto has = recomputes;
    static const char *const kAllowed[] = {
        "core_attn",   "moe_act", "layernorm",   "mla_up_proj",
        "mlp",         "moe",     "shared_experts", "gdn_norm_out",
        "gdp_in_proj", "gdp_qkv", "mhc"};
    for (const std::string &m : modules)
      if (std::find_if(std::begin(kAllowed), std::end(kAllowed),
                       [&](const char *x) { return m == x; }) ==
          std::end(kAllowed))
        fail("R5", "transformer_config.py:1959",
             "unknown recompute module '" + m + "'");
    if (has("moe_act") && !s.on("--moe-grouped-gemm"))
      fail("R6", "transformer_config.py:1964",
           "recompute module moe_act needs --moe-grouped-gemm");
    if (has("mla_up_proj") && !mla)
      fail("R7", "transformer_config.py:1969",
           "recompute module mla_up_proj needs --multi-latent-attention");
    if (has("shared_experts") &&
        s.on("--moe-shared-expert-intermediate-size") &&
        s.on("--moe-shared-expert-overlap"))
      fail("R8", "transformer_config.py:1991",
           "recompute module shared_experts cannot work with "
           "--moe-shared-expert-overlap");
    // --fp8-recipe defaults to delayed (transformer_config.py:594).
    if (s.on("--fp8-format") && (has("moe_act") || has("layernorm")) &&
        (!s.on("--fp8-recipe") || a.text("--fp8-recipe") == "delayed"))
      fail("R9", "transformer_config.py:2001",
           "delayed FP8 scaling does not support the moe_act and layernorm "
           "recompute modules: use another --fp8-recipe (tensorwise, "
           "mxfp8, blockwise)");
  }

  // Positions, MLA, MTP.
  if (s.on("--rope-type") && !mla && a.text("--rope-type") != "rope")
    fail("RP4", "argument_utils.py:335",
         "--rope-type other than rope needs --multi-latent-attention");
  if (mla) {
    if (s.on("--group-query-attention"))
      fail("ML1", "arguments.py:1973",
           "--multi-latent-attention excludes --group-query-attention");
    if (s.on("--rotary-interleaved"))
      fail("ML2", "transformer_config.py:2526",
           "--rotary-interleaved does not work with MLA");
    if (a.text("--rope-type") == "rope" && positions == "rope" &&
        !s.on("--no-rope-fusion"))
      fail("ML3", "transformer_config.py:3345",
           "MLA with --rope-type rope needs --no-rope-fusion");
    if (s.on("--qk-l2-norm"))
      fail("N2", "gpt_layer_specs.py:414", "--qk-l2-norm does not work with "
                                           "MLA");
  }
  if (s.get("--mtp-num-layers", 0) > 0 && positions != "rope" &&
      positions != "none")
    fail("MT1", "arguments.py:882",
         "multi-token prediction needs --position-embedding-type rope or "
         "none, got " + positions);
  if (s.on("--no-rope-freq")) {
    int64_t every;
    if (!llvm::StringRef(a.text("--no-rope-freq")).getAsInteger(10, every) &&
        (every <= 0 || layers % every))
      fail("RP5", "transformer_config.py:3138",
           "--no-rope-freq " + n(every) + " does not divide num-layers " +
               n(layers));
  }
  if (s.on("--squared-relu") && bias && !s.on("--no-bias-gelu-fusion"))
    fail("R-ACT1", "transformer_config.py:2421",
         "--squared-relu needs --no-bias-gelu-fusion or "
         "--disable-bias-linear");

  // Precision.
  if (s.on("--fp16") && s.on("--bf16"))
    fail("M1", "arguments.py:1195", "--fp16 and --bf16 together");
  if (s.on("--fp8-format") && s.on("--fp4-format"))
    fail("M2", "arguments.py:1100", "--fp8-format and --fp4-format together");

  // The world: dp from the model-parallel ranks, the batch from dp.
  if (ctx.worldSize > 0) {
    const int64_t model = tp * pp * cp;
    if (model <= 0 || ctx.worldSize % model) {
      fail("W1", "arguments.py:432",
           "world size " + n(ctx.worldSize) + " not divisible by tp x pp x "
           "cp = " + n(model));
    } else {
      const int64_t dp = ctx.worldSize / model;
      const int64_t expertRanks = etp * ep * pp;
      if (experts && (expertRanks <= 0 || ctx.worldSize % expertRanks))
        fail("W3", "parallel_state.py:881",
             "world size " + n(ctx.worldSize) + " not divisible by etp x ep "
             "x pp = " + n(expertRanks));
      const int64_t gbs = s.get("--global-batch-size", mbs * dp);
      if (mbs > 0 && gbs % (mbs * dp))
        fail("B4", "num_microbatches_calculator.py:381",
             "global batch " + n(gbs) + " not divisible by micro batch " +
                 n(mbs) + " x dp " + n(dp));
      else if (mbs > 0 && interleaved && gbs / (mbs * dp) < pp)
        fail("P14", "schedules.py:1160",
             "the interleaved schedule needs at least pp = " + n(pp) +
                 " microbatches, got " + n(gbs / (mbs * dp)));
    }
  }
  return out;
}
