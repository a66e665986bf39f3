//===- Megatron.cpp - Megatron-LM arguments for a model -------------------===//

#include "tshape/Interop/Megatron.h"

#include <algorithm>

using namespace tshape;
using namespace tshape::model;

namespace {
/// Appends flags to one argument line.
struct ArgLine {
  std::string s;
  void flag(const std::string &name) { s += (s.empty() ? "" : " ") + name; }
  void arg(const std::string &name, int64_t v) {
    flag(name + " " + std::to_string(v));
  }
};

const char *flagOf(Param p) { return model::paramInfo(p).megatronFlag; }

/// Which layers of the stack have a property (1) or not (0), as the Python
/// list expression Megatron-LM evaluates (--moe-layer-freq,
/// --window-attn-skip-freq), e.g. "([0]*3+[1]*58)".
template <typename Has>
std::string layerPattern(const ModelConfig &c, Has has) {
  std::string s;
  for (const StackSegment &seg : c.stack) {
    std::string pattern;
    for (const LayerKind &k : seg.pattern)
      pattern += std::string(pattern.empty() ? "" : ",") + (has(k) ? "1" : "0");
    s += (s.empty() ? "" : "+") + ("[" + pattern + "]*" +
                                    std::to_string(seg.repeats));
  }
  return "\"(" + s + ")\"";
}

bool isMoe(const LayerKind &k) {
  return std::count(k.blocks.begin(), k.blocks.end(), BlockKind::Moe) > 0;
}

/// --moe-layer-freq: which layers are MoE (1) or dense (0).
std::string moeLayerFreq(const ModelConfig &c) {
  return layerPattern(c, isMoe);
}

/// Sliding-window attention (megatron/training/arguments.py:
/// --window-size LEFT,RIGHT and --window-attn-skip-freq, whose integer N
/// makes every N-th layer, counting from 1, full attention and the others
/// windowed, and whose list marks the windowed layers 1). Chunked
/// attention has no argument: a note.
void windowArguments(const ModelConfig &c, ArgLine &line,
                     std::vector<std::string> &notes) {
  const int64_t w = c.attention.window;
  if (w <= 0)
    return;
  if (c.attention.chunked) {
    notes.push_back("chunked attention (each query over its own aligned "
                    "chunk of " + std::to_string(w) +
                    " keys, Llama 4's attention_chunk_size) has no "
                    "Megatron-LM argument: those layers run full attention");
    return;
  }
  line.flag("--window-size " + std::to_string(w) + ",0");
  if (c.stack.empty())
    return; // every layer windowed
  // The integer form N when layer l (from 0) is full attention exactly
  // when (l + 1) % N == 0 (gpt-oss: 2, Gemma 3: 6, whatever the tail);
  // N is the first full layer's number. Else the list. The layers are
  // walked only up to a bound (the list form needs none).
  constexpr int64_t kMaxWalk = int64_t(1) << 20;
  std::vector<bool> windowed;
  for (const StackSegment &seg : c.stack)
    for (int64_t r = 0; r < seg.repeats && int64_t(windowed.size()) <= kMaxWalk;
         ++r)
      for (const LayerKind &k : seg.pattern)
        windowed.push_back(!k.fullAttention);
  if (int64_t(windowed.size()) <= kMaxWalk) {
    const auto full = std::find(windowed.begin(), windowed.end(), false);
    if (full == windowed.end())
      return; // every layer windowed
    const int64_t every = int64_t(full - windowed.begin()) + 1;
    bool fits = every >= 2;
    for (size_t l = 0; l < windowed.size() && fits; ++l)
      fits = windowed[l] == ((int64_t(l) + 1) % every != 0);
    if (fits) {
      line.arg("--window-attn-skip-freq", every);
      return;
    }
  }
  line.flag("--window-attn-skip-freq " +
            layerPattern(c, [](const LayerKind &k) { return !k.fullAttention; }));
}

/// The mixture-of-experts flags (megatron/training/arguments.py,
/// _add_moe_args): experts, top-k, the expert and shared inner sizes,
/// grouped GEMMs and the all-to-all dispatcher tshape's MoE block models.
void moeArguments(const ModelConfig &c, ArgLine &line,
                  std::vector<std::string> &notes) {
  auto value = [&](Param p) { return getParam(c, p); };
  for (Param p : {Param::Experts, Param::TopK, Param::MoeFfn})
    line.arg(flagOf(p), value(p));
  // Megatron-LM takes the shared experts' total inner size.
  if (value(Param::SharedExperts))
    line.arg("--moe-shared-expert-intermediate-size",
             value(Param::SharedExperts) * value(Param::SharedFfn));
  // Only when some layer is dense (a stack may be heterogeneous in its
  // attention alone: gpt-oss's windows).
  bool dense = false;
  for (const StackSegment &seg : c.stack)
    for (const LayerKind &k : seg.pattern)
      dense |= !isMoe(k);
  if (dense)
    line.flag("--moe-layer-freq " + moeLayerFreq(c));
  line.flag("--moe-grouped-gemm --moe-token-dispatcher-type alltoall");
  if (int64_t cap = value(Param::Capacity); cap > 0 && cap != 100) {
    line.flag("--moe-expert-capacity-factor " + std::to_string(cap / 100) +
              "." + (cap % 100 < 10 ? "0" : "") + std::to_string(cap % 100));
    notes.push_back("tshape prices the busiest expert at the capacity; "
                    "Megatron-LM drops the tokens beyond it");
  }
  if (!c.moe.gated || c.moe.activation != Activation::SiLU)
    notes.push_back("experts other than SwiGLU have no Megatron-LM argument "
                    "here (--swiglu applies to every MLP)");
}

/// The multi-latent-attention flags (megatron/training/arguments.py,
/// MLATransformerConfig): the ranks and head dims; --qk-head-dim is the
/// part without rotary embedding. No --q-lora-rank: no query latent
/// (Megatron-LM's default, None).
void mlaArguments(const ModelConfig &c, ArgLine &line,
                  std::vector<std::string> &notes) {
  line.flag("--multi-latent-attention");
  for (Param p : {Param::QLoraRank, Param::KvLoraRank, Param::QkNopeDim,
                  Param::QkRopeDim, Param::VHeadDim})
    if (int64_t v = getParam(c, p))
      line.arg(flagOf(p), v);
  if (hasBlock(c, BlockKind::Attention))
    notes.push_back("layers of both multi-latent and plain attention have "
                    "no Megatron-LM argument (--multi-latent-attention "
                    "applies to every layer)");
}

/// The linear layers' precision as Megatron-LM's Transformer Engine flags
/// (megatron/training/arguments.py, _add_transformer_engine_args:
/// --fp8-format e4m3|hybrid, --fp8-recipe tensorwise|delayed|mxfp8|
/// blockwise, default delayed). fp8 is Transformer Engine's per-tensor
/// current scaling (Float8CurrentScaling), `tensorwise`, in the hybrid
/// format (E4M3 forward, E5M2 gradients); mxfp8 is MXFP8BlockScaling,
/// E4M3 throughout, as Megatron-LM's DeepSeek-V3 GB200 guide launches it
/// (`--fp8-recipe mxfp8 --fp8-format e4m3`). bf16 (or none) writes none.
void precisionArguments(std::optional<Precision> precision, ArgLine &line) {
  if (!precision || *precision == Precision::BF16)
    return;
  if (*precision == Precision::FP8)
    line.flag("--fp8-format hybrid --fp8-recipe tensorwise");
  else
    line.flag("--fp8-format e4m3 --fp8-recipe mxfp8");
}

/// The model's flags (and its degrees and microbatch) into `line`; what
/// Megatron-LM cannot express into `notes`.
void modelArguments(const ModelConfig &c, int64_t originalVocab,
                    std::optional<Precision> precision, ArgLine &line,
                    std::vector<std::string> &notes) {
  // The flag of each parameter comes from the vocabulary (Params.h), its
  // value through the table's accessor.
  auto value = [&](Param p) { return getParam(c, p); };
  line.arg(flagOf(Param::Layers), value(Param::Layers));
  line.arg(flagOf(Param::Hidden), value(Param::Hidden));
  line.arg(flagOf(Param::Heads), value(Param::Heads));
  if (value(Param::KvHeads) != value(Param::Heads)) {
    line.flag("--group-query-attention");
    line.arg(flagOf(Param::KvHeads), value(Param::KvHeads));
  }
  if (value(Param::HeadDim))
    line.arg(flagOf(Param::HeadDim), value(Param::HeadDim));
  // A model whose every layer is MoE has no dense MLP (Megatron-LM then
  // takes 4h, unused).
  if (value(Param::Ffn))
    line.arg(flagOf(Param::Ffn), value(Param::Ffn));
  line.arg(flagOf(Param::Seq), value(Param::Seq));
  line.arg("--max-position-embeddings", value(Param::Seq));
  line.arg(flagOf(Param::Microbatch), value(Param::Microbatch));
  // Degrees: tp always; the others with a flag when they are not 1.
  for (Param p : model::allParams())
    if (model::paramInfo(p).kind == model::ParamKind::Degree &&
        *flagOf(p) && (p == Param::Tp || value(p) != 1))
      line.arg(flagOf(p), value(p));
  // Megatron pads the tokenizer's vocabulary up to a multiple of
  // (divisible-by x the degree that splits it): pick the largest power of
  // two that lands exactly on the model's vocab.
  const int64_t vocab = value(Param::Vocab),
                split = value(*model::paramInfo(Param::Vocab).splitBy);
  int64_t vo = originalVocab > 0 ? originalVocab : vocab, best = 0;
  for (int64_t x = 1; x <= 8192; x *= 2) {
    int64_t m = x * split;
    if ((vo + m - 1) / m * m == vocab)
      best = x;
  }
  if (best)
    line.arg(flagOf(Param::Vocab), best);
  else
    notes.push_back("vocab " + std::to_string(vocab) +
                    " is not reachable by Megatron's padding from " +
                    std::to_string(vo) + " (" + flagOf(Param::Vocab) +
                    " not written)");
  if (value(Param::Experts))
    moeArguments(c, line, notes);
  if (hasBlock(c, BlockKind::Mla))
    mlaArguments(c, line, notes);
  windowArguments(c, line, notes);
  if (c.modelType == "gpt_oss") {
    // gpt-oss's experts run x * sigmoid(1.702 x) gated, clamped at 7, with
    // the up projection offset by 1, and its attention has learned sinks:
    // no GEMM effect (the importer reads past them), written as the public
    // gpt-oss launches of Megatron-LM write them.
    line.flag("--quick-geglu --glu-linear-offset 1.0 "
              "--activation-func-clamp-value 7.0 --softmax-type learnable");
  } else if ((c.mlp.gated || value(Param::Experts)) &&
             (value(Param::Ffn) == 0 ||
              c.mlp.activation == Activation::SiLU)) {
    line.flag("--swiglu");
  }
  if (!c.tiedEmbeddings)
    line.flag("--untie-embeddings-and-output-weights");
  if (c.dtype == DType::BF16)
    line.flag("--bf16");
  else if (c.dtype == DType::FP16)
    line.flag("--fp16");
  precisionArguments(precision, line);
  // What Megatron-LM has no argument for, said rather than dropped.
  if (c.mlp.gated && c.mlp.activation != Activation::SiLU)
    notes.push_back("a gated non-SiLU MLP (GeGLU) has no Megatron-LM argument");
  if (c.residual == ResidualMode::Parallel)
    notes.push_back("the parallel attention+MLP residual has no Megatron-LM "
                    "argument (GPT-NeoX: gpt_j_residual)");
}

std::string n(int64_t v) { return std::to_string(v); }
} // namespace

std::string tshape::megatronArguments(const ModelConfig &c,
                                      int64_t originalVocab,
                                      std::optional<Precision> precision) {
  ArgLine line;
  std::vector<std::string> notes;
  modelArguments(c, originalVocab, precision, line, notes);
  for (const std::string &note : notes)
    line.s += "\n# note: " + note;
  return line.s;
}

std::optional<std::string>
tshape::checkMegatronRules(const ModelConfig &c,
                           const cost::TrainingPlan &plan) {
  const Parallelism &par = c.parallel;
  const int64_t layers = c.layers, v = plan.virtualStages;
  // megatron/training/arguments.py, validate_args.
  if (par.pp > 0 && layers % par.pp)
    return "num-layers " + n(layers) +
           " not divisible by pipeline-model-parallel-size " + n(par.pp) +
           " (Megatron-LM: \"Number of layers should be divisible by the "
           "pipeline-model-parallel size\")";
  if (v > 1) {
    if (par.pp <= 2)
      return "the interleaved schedule (" + n(v) +
             " virtual stages) needs pipeline-model-parallel-size > 2, got " +
             n(par.pp) +
             " (Megatron-LM asserts it without --overlap-p2p-comm); use "
             "--vp=1 or pp > 2";
    if ((layers / par.pp) % v)
      return "layers per pipeline stage " + n(layers / par.pp) + " (" +
             n(layers) + "/" + n(par.pp) + ") not divisible by " + n(v) +
             " virtual stages (Megatron-LM: \"number of layers per pipeline "
             "stage must be divisible number of layers per virtual pipeline "
             "stage\")";
  }
  if (par.cp > 1 && c.seq % (2 * par.cp))
    return "seq-length " + n(c.seq) + " not a multiple of 2 x "
           "context-parallel-size = " + n(2 * par.cp) +
           " (Megatron-LM: \"seq-length should be a multiple of 2 * "
           "context-parallel-size\")";
  if (par.ep > 1 && c.moe.experts == 0)
    return "expert-model-parallel-size " + n(par.ep) +
           " needs --num-experts (Megatron-LM: \"num_experts must be non None "
           "to use expert model parallelism\"); this model has no experts";
  if (par.ep > 1 && c.moe.experts % par.ep)
    return "num-experts " + n(c.moe.experts) +
           " not divisible by expert-model-parallel-size " + n(par.ep) +
           " (Megatron-LM: \"num_moe_experts must be divisible by "
           "expert_model_parallel_size\"); use an ep dividing the experts";
  // The expert-parallel group is carved from the data-parallel (x context)
  // ranks: world = tp x pp x (dp x cp), with ep dividing dp x cp.
  if (par.ep > 1 && (par.dp * par.cp) % par.ep)
    return "expert-model-parallel-size " + n(par.ep) +
           " does not divide data-parallel x context-parallel = " +
           n(par.dp * par.cp) +
           " (Megatron-LM builds expert groups inside them); use an ep "
           "dividing " + n(par.dp * par.cp);
  // megatron/core/transformer/transformer_config.py.
  if (par.tp > 0 && c.attention.heads % par.tp)
    return "num-attention-heads " + n(c.attention.heads) +
           " not divisible by tensor-model-parallel-size " + n(par.tp);
  if (par.tp > 0 && c.attention.kvHeads % par.tp)
    return "num-query-groups " + n(c.attention.kvHeads) +
           " not a multiple of tensor-model-parallel-size " + n(par.tp) +
           " (Megatron-LM does not replicate key/value heads as tshape's "
           "rule A4 allows)";
  // FSDP is written as --use-torch-fsdp2, whose rules are these.
  if (plan.sharding == cost::StateSharding::Fsdp) {
    if (par.pp != 1)
      return "--use-torch-fsdp2 is not supported with pipeline parallelism "
             "(pp " + n(par.pp) + "); use --sharding=distributed-optimizer "
             "or pp 1";
    if (c.tiedEmbeddings)
      return "--use-torch-fsdp2 requires "
             "--untie-embeddings-and-output-weights, and this model ties its "
             "embeddings";
    if (c.dtype == DType::FP16)
      return "--use-torch-fsdp2 is not supported with fp16";
  }
  return std::nullopt;
}

std::optional<MegatronLaunch>
tshape::megatronLaunch(const ModelConfig &c, int64_t originalVocab,
                       const cost::TrainingPlan &plan, std::string *error) {
  if (auto broken = checkMegatronRules(c, plan)) {
    if (error)
      *error = *broken;
    return std::nullopt;
  }
  MegatronLaunch launch;
  ArgLine line;
  modelArguments(c, originalVocab, plan.precision, line, launch.notes);
  const Parallelism &par = c.parallel;
  if (plan.virtualStages > 1)
    line.arg("--num-layers-per-virtual-pipeline-stage",
             c.layers / (par.pp * plan.virtualStages));
  if (par.ep > 1 && par.tp > 1 && !plan.sequenceParallel)
    launch.notes.push_back("Megatron-LM requires --sequence-parallel with "
                           "expert and tensor parallelism together; add it");
  if (plan.sequenceParallel) {
    if (par.tp > 1)
      line.flag("--sequence-parallel");
    else
      launch.notes.push_back("sequence parallelism needs tp > 1: Megatron-LM "
                             "turns it off at tp 1 (not written)");
  }
  switch (plan.recompute) {
  case cost::Recompute::None:
    break;
  case cost::Recompute::Selective:
    // Megatron-LM rejects a recompute method with selective granularity.
    line.flag("--recompute-granularity selective");
    break;
  case cost::Recompute::Full:
    // Every layer's input kept and the layer recomputed (Korthikanti et
    // al.'s full recompute, what the memory model counts).
    line.flag("--recompute-granularity full --recompute-method uniform");
    line.arg("--recompute-num-layers", 1);
    break;
  }
  // The step-time model overlaps the data-parallel gradient reduction and
  // the parameter gather (StepOptions' defaults); Megatron-LM does so only
  // when asked.
  switch (plan.sharding) {
  case cost::StateSharding::None:
    line.flag("--overlap-grad-reduce");
    break;
  case cost::StateSharding::DistributedOptimizer:
    line.flag("--use-distributed-optimizer --overlap-grad-reduce "
              "--overlap-param-gather");
    break;
  case cost::StateSharding::Fsdp:
    line.flag("--use-torch-fsdp2 --ckpt-format torch_dist");
    launch.notes.push_back(
        "FSDP written as PyTorch FSDP2 (--use-torch-fsdp2); tshape's memory "
        "model shards weights, gradients and optimizer state over dp x cp");
    break;
  }
  // A fused attention kernel is Megatron-LM's default (--attention-backend
  // auto picks flash or cuDNN fused attention); the unfused one is asked for.
  if (!c.attention.fused)
    line.flag("--attention-backend unfused");
  line.arg("--global-batch-size",
           plan.microbatches * c.microbatch * par.dp);
  if (plan.bytes.weights != 2 || plan.bytes.gradients != 4 ||
      plan.bytes.optimizer != 12)
    launch.notes.push_back("bytes per parameter other than Megatron-LM's "
                           "bf16 Adam (2 + 4 + 12) are not written");
  if ((par.tp > 1 || par.cp > 1) &&
      plan.sharding != cost::StateSharding::Fsdp)
    launch.environment = "CUDA_DEVICE_MAX_CONNECTIONS=1";
  launch.arguments = line.s;
  return launch;
}

std::string MegatronLaunch::command(int64_t gpus, int64_t gpusPerNode) const {
  int64_t perNode = std::min(gpus, std::max<int64_t>(gpusPerNode, 1));
  int64_t nodes = (gpus + perNode - 1) / perNode;
  return (environment.empty() ? "" : environment + " ") + "torchrun --nnodes " +
         n(nodes) + " --nproc-per-node " + n(perNode) + " pretrain_gpt.py " +
         arguments;
}
