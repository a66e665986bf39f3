//===- GpuTarget.cpp - Built-in GPU targets -------------------------------===//
//
// Figures from vendor datasheets and whitepapers; docs/targets.md cites the
// source of each row. Peaks are dense (no 2:4 sparsity).
//
//===----------------------------------------------------------------------===//

#include "tshape/Target/GpuTarget.h"

#include <string>
#include <utility>

using namespace tshape::target;

namespace {
/// The cuBLAS-like tile menu (model constants, see docs/targets.md):
/// large tiles reach the full per-SM rate one at a time; smaller ones reuse
/// operands less but several fit on an SM.
std::vector<TileConfig> defaultTiles() {
  return {{256, 128, 1.00, 1}, {128, 256, 1.00, 1}, {128, 128, 0.95, 2},
          {256, 64, 0.92, 2},  {64, 256, 0.92, 2},  {128, 64, 0.85, 4},
          {64, 128, 0.85, 4},  {64, 64, 0.70, 4},
          // Skinny tiles for decode-sized GEMMs (M or N of a few rows).
          {16, 128, 0.40, 8},  {128, 16, 0.40, 8}};
}

/// vLLM's dispatch of a per-tensor FP8 linear layer's GEMM on Hopper
/// (cutlass_gemm_sm90_fp8_dispatch, vLLM 0.19): M <= 64 runs the operands
/// swapped (the output tile is 64 columns of N by 16 rows of M; 64 x 64
/// for 16 < M <= 64 when N > 1280), one tile per CTA; M <= 128 a 64 x 128
/// persistent ping-pong kernel; M >= 8192 with K >= 6144 a 256 x 128
/// cooperative one; the rest 128 x 128 ping-pong. None splits K or
/// streams it, and each takes a whole SM's shared memory (CUTLASS's
/// automatic stage count): one CTA per SM. The tile efficiencies are the
/// menu's for tiles of that size. Each kernel's ClusterShape, in rows of M
/// by columns of N (a swapped kernel's (1, c) is c along M): 2 x 1 for
/// M <= 16 with N <= 1280, 4 x 1 for 16 < M <= 64 with N <= 1280, none for
/// the other swapped ones, 2 x 1 for M > 64.
std::vector<Fp8LinearKernel> vllmSm90Fp8Kernels() {
  // {min M, max M (0: none), max N (0: none), min K, tile, stream-K,
  //  cluster M, cluster N}
  return {{1, 16, 1280, 0, {16, 64, 0.40, 1}, false, 2, 1},
          {17, 64, 1280, 0, {16, 64, 0.40, 1}, false, 4, 1},
          {1, 16, 0, 0, {16, 64, 0.40, 1}, false, 1, 1},
          {17, 64, 0, 0, {64, 64, 0.70, 1}, false, 1, 1},
          {65, 128, 0, 0, {64, 128, 0.85, 1}, false, 2, 1},
          {8192, 0, 0, 6144, {256, 128, 1.00, 1}, false, 2, 1},
          {129, 0, 0, 0, {128, 128, 0.95, 1}, false, 2, 1}};
}

// Peak order: BF16, FP16, FP32, TF32, FP8 (model::DType).
GpuTarget make(const char *name, const char *desc, const char *arch, int64_t sms,
               double bf16, double fp16, double fp32, double tf32, double fp8,
               double bwGBs, double l2MB, double memoryGiB) {
  GpuTarget t;
  t.name = name;
  t.description = desc;
  t.arch = arch;
  t.smCount = sms;
  t.peakTflops[0] = bf16;
  t.peakTflops[1] = fp16;
  t.peakTflops[2] = fp32;
  t.peakTflops[3] = tf32;
  t.peakTflops[4] = fp8;
  t.memoryBandwidthGBs = bwGBs;
  t.l2MB = l2MB;
  t.memoryGiB = memoryGiB;
  t.tiles = defaultTiles();
  bool volta = std::string(arch) == "volta";
  t.bestAlignBytes = volta ? 16 : 128;
  t.kTileBytes = volta ? 64 : 128;
  // FlashAttention kernels: FA3 on Hopper/Blackwell ships 64, 128, 256,
  // and 192 (with a value head dim of 192 or 128: MLA's prefill,
  // hopper/instantiations/flash_fwd_hdim192{,_128}_*_sm90.cu; cuDNN SDPA
  // runs d_qk 192 / d_v 128 forward and backward on Blackwell); FA2 on
  // Ampere/Ada compiles multiples of 32 up to 256; none on Volta. Their
  // decode paths: FA3 splits any decode's cache across CTAs, FA2's varlen
  // path only packed GQA heads without a window. Absorbed MLA decode (one
  // latent head of 576, values its first 512) has FlashMLA on Hopper and
  // Blackwell only.
  // MXFP8 (block-scaled FP8) tensor cores: Blackwell (the B200 and GB200
  // datasheets list MXFP8 at the FP8 rate).
  t.mxfp8 = std::string(arch) == "blackwell";
  // FP8 GEMMs in the TN layout only: Hopper and Ada (Transformer Engine,
  // transformer_engine/pytorch/utils.py is_non_tn_fp8_gemm_supported:
  // (10, 0) <= capability < (12, 0) or >= (13, 0); cublaslt_gemm.cu:
  // "Hopper only supports TN GEMMs for FP8").
  t.fp8TnOnly = std::string(arch) == "hopper" || std::string(arch) == "ada";
  if (std::string(arch) == "hopper" || std::string(arch) == "blackwell") {
    t.fusedHeadDims = {64, 128, 192, 256};
    t.fusedValueHeadDims = {{192, 128}};
    t.latentDecodeHeadDims = {576};
  }
  // FlashAttention 3's forward tiles on Hopper as vLLM calls it, over its
  // paged KV cache (a page of 16 or 64 tokens is no multiple of kBlockN,
  // so get_pagedkv_tma is false and the kernel loads K/V without TMA):
  // hopper/tile_size.h, tile_size_fwd_sm90(paged_kv_non_TMA = true), bf16:
  // d 64: 192 x 128 causal, 192 x 160 with a window or neither; d 128:
  // 128 x 128; d 192: 128 x 96; d 256: 128 x 80 (128 x 64 with a window).
  // That path always packs the query heads of a kv head into one query
  // block (flash_api.cpp, get_pack_gqa: PagedKVNonTMA).
  if (std::string(arch) == "hopper") {
    t.attentionTiles = {{64, 192, 128, 160, 160},
                        {128, 128, 128, 128, 128},
                        {192, 128, 96, 96, 96},
                        {256, 128, 80, 64, 80}};
    t.attentionPackGqa = true;
  }
  if (std::string(arch) != "hopper" && std::string(arch) != "blackwell") {
    t.decodeSplitGqaOnly = true;
    if (!volta)
      t.fusedHeadDims = {32, 64, 96, 128, 160, 192, 224, 256};
  }
  // FlashAttention 2 on Ampere and Ada as vLLM calls it over its paged KV
  // cache: mha_varlen_fwd with a block table runs run_mha_fwd(params,
  // stream, paged_KV), which forces the split-KV kernel whatever the
  // splits (csrc/flash_attn/flash_api.cpp in vllm-project/flash-attention),
  // and run_mha_fwd_splitkv_dispatch (flash_fwd_launch_template.h) gives
  // it kBlockM = 64 at every head dim and kBlockN = 256 up to head dim 64,
  // 128 up to 128, 64 above, with or without a window. Not packed.
  if (std::string(arch) == "ampere" || std::string(arch) == "ada")
    for (int64_t d : t.fusedHeadDims) {
      const int64_t n = d <= 64 ? 256 : d <= 128 ? 128 : 64;
      t.attentionTiles.push_back({d, 64, n, n, n});
    }
  if (std::string(arch) == "ada") {
    t.smMaxThreads = 1536;
    t.smMaxCtas = 24;
  }
  // An FP8 linear layer on Hopper runs vLLM's CUTLASS kernels (vLLM
  // 0.19, csrc/quantization/cutlass_w8a8/c3x/scaled_mm_sm90_fp8_dispatch.cuh;
  // on Blackwell FlashInfer's cuBLASLt path comes first: the library's
  // choice).
  if (std::string(arch) == "hopper")
    t.fp8LinearKernels = vllmSm90Fp8Kernels();
  // B200's FP8 layers do not split K (docs/targets.md: at N = 128,
  // K = 65,536 the GEMM takes 41-65 us from M = 1 to 2,048).
  t.fp8SplitK = std::string(arch) != "blackwell";
  return t;
}

/// Model constants by target-file key (modelConstants()).
using Constants = std::vector<std::pair<std::string, double>>;

/// The fits shipped in targets/*-calibrated.json, made by
/// bench/model-accuracy.sh with tshape-calibrate on NVIDIA's public
/// aiconfigurator timings (bf16 GEMMs, then prefill attention); the method,
/// the split and the held-out errors are in docs/model-accuracy.md.
/// test/Predict/builtin-constants.test checks that these equal the files.
Constants h100Gemm() {
  return {{"math_efficiency", 0.858},    {"memory_efficiency", 0.841},
          {"launch_overhead_us", 2.597}, {"wave_smoothing", 0.847},
          {"overlap_exponent", 5.186},   {"epilogue_serial_fraction", 0.615},
          {"split_k_min_k", 2621.44}};
}
Constants h100Attention() {
  return {{"attention_efficiency", 0.712},
          {"attention_overhead_us", 9},
          {"attention_softmax_dim", 82.6},
          {"attention_query_block_cost", 2.456},
          {"attention_kv_reuse", 64},
          {"attention_kv_overlap_exponent", 6.95},
          {"attention_memory_efficiency", 0.561},
          {"attention_cache_write_cost", 0},
          {"attention_cache_write_cta_us", 0.016}};
}
Constants a100Gemm() {
  return {{"math_efficiency", 0.862},    {"memory_efficiency", 0.759},
          {"launch_overhead_us", 3.583}, {"wave_smoothing", 0.914},
          {"overlap_exponent", 2.479},   {"epilogue_serial_fraction", 0.921},
          {"split_k_min_k", 1433.6}};
}
Constants a100Attention() {
  return {{"attention_efficiency", 0.589},
          {"attention_overhead_us", 9.25},
          {"attention_softmax_dim", 0},
          {"attention_query_block_cost", 0.769},
          {"attention_kv_reuse", 6.361},
          {"attention_kv_overlap_exponent", 1.883},
          {"attention_memory_efficiency", 0.518},
          {"attention_cache_write_cost", 0.438},
          {"attention_cache_write_cta_us", 4.216}};
}
/// Decode attention, fitted on the decode timings of the vLLM collection
/// the README calls the default (H100: vLLM 0.19; A100: vLLM 0.14).
/// targets/h100-sxm-vllm0.24.json holds the fit on vLLM 0.24 (the stack
/// is a choice: docs/model-accuracy.md#decode-attention).
Constants h100Decode() {
  return {{"decode_memory_efficiency", 1},   {"decode_overhead_us", 6.313},
          {"decode_cta_us", 3.177},          {"decode_sm_bandwidth", 13.275},
          {"decode_combine_us", 2.048},      {"decode_overlap_exponent", 1.271},
          // FlashAttention 2's merge and copies: no effect on Hopper's FA3,
          // left at their guesses.
          {"decode_split_combine_us", 0.1},  {"decode_out_copy_us", 2},
          {"decode_query_copy_us", 2}};
}
/// The same two fits on the H100 timings through vLLM 0.24 (FlashAttention
/// 3 and 4 kernels): the built-in h100-sxm-vllm0.24, the other attention
/// stack (docs/model-accuracy.md#attention-stacks).
Constants h100Vllm024Attention() {
  return {{"attention_efficiency", 0.846},
          {"attention_overhead_us", 11.016},
          {"attention_softmax_dim", 88.7},
          {"attention_query_block_cost", 2.606},
          {"attention_kv_reuse", 6.487},
          {"attention_kv_overlap_exponent", 1.193},
          {"attention_memory_efficiency", 0.594},
          {"attention_cache_write_cost", 0.971},
          {"attention_cache_write_cta_us", 1.95}};
}
Constants h100Vllm024Decode() {
  return {{"decode_memory_efficiency", 1}, {"decode_overhead_us", 8.491},
          {"decode_cta_us", 3.312},        {"decode_sm_bandwidth", 16},
          {"decode_combine_us", 1.916},    {"decode_overlap_exponent", 1.156},
          // FlashAttention 2's merge and copies: no effect on Hopper's FA3,
          // left at their guesses.
          {"decode_split_combine_us", 0.1}, {"decode_out_copy_us", 2},
          {"decode_query_copy_us", 2}};
}
Constants a100Decode() {
  return {{"decode_memory_efficiency", 0.738},  {"decode_overhead_us", 7.25},
          {"decode_cta_us", 4.23},             {"decode_sm_bandwidth", 1.403},
          {"decode_combine_us", 4.284},        {"decode_overlap_exponent", 3.767},
          {"decode_split_combine_us", 0.2},  {"decode_out_copy_us", 1.33},
          {"decode_query_copy_us", 5.969}};
}
/// FP8 linear layers (the GEMM and its input's static per-tensor cast),
/// fitted on the fp8 rows of the GEMM files from the bf16 GEMM fit.
Constants h100Fp8() {
  return {{"fp8_math_efficiency", 0.73},
          {"quantize_efficiency", 0.724},
          {"quantize_overhead_us", 2.472},
          {"fp8_output_bytes", 2.0},
          {"fp8_sm_efficiency", 0.954}};
}
Constants b200Fp8() {
  return {{"fp8_math_efficiency", 0.382},
          {"quantize_efficiency", 0.458},
          {"quantize_overhead_us", 3.016},
          {"fp8_output_bytes", 4.637},
          {"fp8_sm_efficiency", 0.635}};
}
/// Block-scaled FP8 linear layers (128 x 128 block scales, DeepGEMM
/// through vLLM 0.24), fitted from the GEMM and FP8 fits above on the
/// fitting part of the fp8_block rows of at least 2 ms (the rows were timed
/// without CUDA graphs: below that their 150-230 us host floor dominates;
/// bench/block_fp8.py, docs/model-accuracy.md). What MXFP8 training GEMMs
/// take on Blackwell: B200 0.611 of the FP8 peak where the per-tensor
/// layers reach 0.382.
Constants h100BlockFp8() { return {{"block_fp8_math_efficiency", 0.692}}; }
Constants b200BlockFp8() { return {{"block_fp8_math_efficiency", 0.611}}; }
/// Fused MoE layers (Cost/MoeLayer.h), fitted by tshape-calibrate on the
/// fitting half of the H100 MoE timings (vLLM 0.19's fused_moe;
/// bench/model-accuracy.sh). No other GPU has MoE timings: the others take
/// this fit.
Constants h100Moe() {
  return {{"grouped_gemm_efficiency", 0.768},
          {"moe_memory_efficiency", 0.894},
          {"moe_overhead_us", 21.031}};
}
Constants b200Gemm() {
  return {{"math_efficiency", 0.78},     {"memory_efficiency", 0.825},
          {"launch_overhead_us", 2.049}, {"wave_smoothing", 0.769},
          {"overlap_exponent", 2.695},   {"epilogue_serial_fraction", 0.459},
          {"split_k_min_k", 3276.8}};
}

Constants operator+(Constants a, const Constants &b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

/// `t` with `values` set. Efficiencies are fractions of `t`'s own datasheet
/// peaks, so a fit carried to another GPU of the same family scales with
/// that GPU's peaks and bandwidth.
GpuTarget with(GpuTarget t, const Constants &values, const char *source) {
  for (const auto &[key, v] : values)
    for (const ModelConstant &c : modelConstants())
      if (key == c.key)
        t.*c.field = v;
  t.constantsSource = source;
  return t;
}

const char *fromH100 = "derived: the H100 SXM fit with this GPU's datasheet "
                       "peaks and bandwidth (no timings of this GPU)";
const char *fromA100 = "derived: the A100 80GB fit with this GPU's datasheet "
                       "peaks and bandwidth (no timings of this GPU)";
} // namespace

const std::vector<GpuTarget> &tshape::target::builtinTargets() {
  // Model constants: the three GPUs with public timings carry their own fit;
  // the others take the fit of the nearest measured architecture
  // (docs/targets.md says which, and why).
  static const std::vector<GpuTarget> targets = [] {
    const Constants h100 =
        h100Gemm() + h100Attention() + h100Decode() + h100Fp8() +
        h100BlockFp8() + h100Moe();
    const Constants a100 =
        a100Gemm() + a100Attention() + a100Decode() + h100Moe();
    const Constants b200 =
        b200Gemm() + h100Attention() + h100Decode() + b200Fp8() +
        b200BlockFp8() + h100Moe();
    std::vector<GpuTarget> v{
        // V100 has no BF16 or TF32 tensor-core path: those GEMMs run on the
        // FP32 CUDA cores (15.7 TFLOP/s). No FP8.
        with(make("v100", "NVIDIA V100 SXM2 32GB", "volta", 80, 15.7, 125, 15.7,
                  15.7, 0, 900, 6, 32),
             a100, fromA100),
        with(make("a100-40gb", "NVIDIA A100 SXM4 40GB", "ampere", 108, 312, 312,
                  19.5, 156, 0, 1555, 40, 40),
             a100, fromA100),
        with(make("a100-80gb", "NVIDIA A100 SXM4 80GB", "ampere", 108, 312, 312,
                  19.5, 156, 0, 2039, 40, 80),
             a100,
             "fitted on A100 SXM bf16 GEMM, prefill- and decode-attention "
             "timings (aiconfigurator)"),
        with(make("h100-sxm", "NVIDIA H100 SXM5 80GB", "hopper", 132, 989.4,
                  989.4, 66.9, 494.7, 1978.9, 3350, 50, 80),
             h100,
             "fitted on H100 SXM bf16 GEMM, prefill- and decode-attention "
             "timings (aiconfigurator)"),
        // The H100 with the attention stack of vLLM 0.24: the same GPU and
        // GEMM fit, attention and decode constants fitted on that
        // release's timings (a median 1.23x slower than vLLM 0.19's).
        with(make("h100-sxm-vllm0.24",
                  "NVIDIA H100 SXM5 80GB, attention through vLLM 0.24",
                  "hopper", 132, 989.4, 989.4, 66.9, 494.7, 1978.9, 3350, 50,
                  80),
             h100 + h100Vllm024Attention() + h100Vllm024Decode(),
             "fitted on H100 SXM bf16 GEMM timings and prefill- and "
             "decode-attention timings through vLLM 0.24 (aiconfigurator)"),
        with(make("h100-pcie", "NVIDIA H100 PCIe 80GB", "hopper", 114, 756, 756,
                  51.2, 378, 1513, 2000, 50, 80),
             h100, fromH100),
        with(make("h200", "NVIDIA H200 SXM 141GB", "hopper", 132, 989.4, 989.4,
                  66.9, 494.7, 1978.9, 4800, 50, 141),
             h100, fromH100),
        with(
            make("b200", "NVIDIA B200 (HGX, 1000 W)", "blackwell", 148, 2250,
                 2250, 75, 1100, 4500, 7700, 126, 180),
            b200,
            "GEMM constants fitted on B200 bf16 GEMM timings (aiconfigurator); "
            "attention and decode constants from the H100 SXM fit (no B200 "
            "attention timings)"),
        // The GPU of a GB200 superchip (GB200 NVL72 datasheet, per GPU at
        // 1,200 W): the B200's die, so its SM count, L2 and fits.
        with(make("gb200",
                  "NVIDIA GB200 (Grace Blackwell superchip GPU, "
                  "1200 W)",
                  "blackwell", 148, 2500, 2500, 90, 1250, 5000, 8000, 126, 186),
             b200,
             "derived: the B200 GEMM fit and the H100 SXM attention and "
             "decode fit with "
             "this GPU's datasheet peaks and bandwidth (no timings of this "
             "GPU)"),
        with(make("l40s", "NVIDIA L40S 48GB", "ada", 142, 362.05, 362.05, 91.6,
                  183, 733, 864, 96, 48),
             a100, fromA100),
        with(make("rtx4090", "NVIDIA GeForce RTX 4090", "ada", 128, 165.2,
                  165.2, 82.6, 82.6, 330.3, 1008, 72, 24),
             a100, fromA100),
    };
    // The attention stack the attention and decode constants were fitted
    // on (the default collection of each GPU's timings; the README of the
    // data): vLLM 0.19 on H100, vLLM 0.14 on A100, carried with the fits.
    for (GpuTarget &t : v)
      t.attentionStack = t.name == "h100-sxm-vllm0.24" ? "vllm-0.24"
                         : t.arch == "hopper" || t.arch == "blackwell"
                             ? "vllm-0.19"
                             : "vllm-0.14";
    return v;
  }();
  return targets;
}

const std::vector<ModelConstant> &tshape::target::modelConstants() {
  // A range's lower edge of 0 means "none" (no overhead, no limit, no
  // smoothing) and is a legitimate fit.
  constexpr FitGroup gemm = FitGroup::Gemm,
                     prefill = FitGroup::PrefillAttention,
                     decode = FitGroup::DecodeAttention,
                     fp8 = FitGroup::Fp8Gemm, moe = FitGroup::MoeLayer,
                     blockFp8 = FitGroup::BlockFp8Gemm;
  static const std::vector<ModelConstant> constants = {
      {"math_efficiency", 0.30, 1.00, &GpuTarget::mathEfficiency, gemm},
      {"memory_efficiency", 0.30, 1.00, &GpuTarget::memoryEfficiency, gemm},
      {"launch_overhead_us", 0.0, 20.0, &GpuTarget::launchOverheadUs, gemm},
      {"wave_smoothing", 0.0, 1.0, &GpuTarget::waveSmoothing, gemm},
      {"overlap_exponent", 1.0, 8.0, &GpuTarget::overlapExponent, gemm},
      {"epilogue_serial_fraction", 0.0, 1.0, &GpuTarget::epilogueSerialFraction,
       gemm},
      {"split_k_min_k", 0.0, 16384.0, &GpuTarget::splitKMinK, gemm},
      {"attention_efficiency", 0.20, 1.00, &GpuTarget::attentionEfficiency,
       prefill},
      {"attention_overhead_us", 0.0, 40.0, &GpuTarget::attentionOverheadUs,
       prefill},
      {"attention_softmax_dim", 0.0, 256.0, &GpuTarget::attentionSoftmaxDim,
       prefill},
      {"attention_query_block_cost", 0.0, 8.0,
       &GpuTarget::attentionQueryBlockCost, prefill},
      {"attention_kv_reuse", 1.0, 64.0, &GpuTarget::attentionKvReuse, prefill},
      {"attention_kv_overlap_exponent", 1.0, 8.0,
       &GpuTarget::attentionKvOverlapExponent, prefill},
      {"attention_memory_efficiency", 0.20, 1.00,
       &GpuTarget::attentionMemoryEfficiency, prefill},
      {"attention_cache_write_cost", 0.0, 4.0,
       &GpuTarget::attentionCacheWriteCost, prefill},
      {"attention_cache_write_cta_us", 0.0, 8.0,
       &GpuTarget::attentionCacheWriteCtaUs, prefill},
      {"decode_memory_efficiency", 0.30, 1.00,
       &GpuTarget::decodeMemoryEfficiency, decode},
      {"decode_overhead_us", 0.0, 40.0, &GpuTarget::decodeOverheadUs, decode},
      {"decode_cta_us", 0.0, 20.0, &GpuTarget::decodeCtaUs, decode},
      {"decode_sm_bandwidth", 0.5, 16.0, &GpuTarget::decodeSmBandwidth, decode},
      {"decode_combine_us", 0.0, 20.0, &GpuTarget::decodeCombineUs, decode},
      {"decode_overlap_exponent", 1.0, 8.0, &GpuTarget::decodeOverlapExponent,
       decode},
      {"decode_split_combine_us", 0.0, 2.0, &GpuTarget::decodeSplitCombineUs,
       decode},
      {"decode_out_copy_us", 0.0, 20.0, &GpuTarget::decodeOutCopyUs, decode},
      {"decode_query_copy_us", 0.0, 20.0, &GpuTarget::decodeQueryCopyUs,
       decode},
      {"fp8_math_efficiency", 0.30, 1.00, &GpuTarget::fp8MathEfficiency, fp8},
      {"quantize_efficiency", 0.20, 1.00, &GpuTarget::quantizeEfficiency, fp8},
      {"quantize_overhead_us", 0.0, 20.0, &GpuTarget::quantizeOverheadUs, fp8},
      {"fp8_output_bytes", 2.0, 8.0, &GpuTarget::fp8OutputBytes, fp8},
      {"fp8_sm_efficiency", 0.0, 1.0, &GpuTarget::fp8SmEfficiency, fp8},
      {"block_fp8_math_efficiency", 0.0, 1.0,
       &GpuTarget::blockFp8MathEfficiency, blockFp8},
      {"grouped_gemm_efficiency", 0.20, 1.00, &GpuTarget::groupedGemmEfficiency,
       moe},
      {"moe_memory_efficiency", 0.05, 1.00, &GpuTarget::moeMemoryEfficiency,
       moe},
      {"moe_overhead_us", 0.0, 100.0, &GpuTarget::moeOverheadUs, moe},
  };
  return constants;
}

GpuTarget tshape::target::uncalibrated(const GpuTarget &t) {
  GpuTarget u = t;
  const GpuTarget guess;
  for (const ModelConstant &c : modelConstants())
    u.*c.field = guess.*c.field;
  u.constantsSource = guess.constantsSource;
  return u;
}

const GpuTarget *tshape::target::findBuiltinTarget(const std::string &name) {
  for (const GpuTarget &t : builtinTargets())
    if (t.name == name)
      return &t;
  return nullptr;
}

std::string tshape::target::builtinTargetNames() {
  std::string out;
  for (const GpuTarget &t : builtinTargets())
    out += (out.empty() ? "" : ", ") + t.name;
  return out;
}

std::string GpuTarget::precisionList() const {
  std::string s;
  int n = 0;
  const PrecisionInfo *rows = precisionTable(&n);
  for (int i = 0; i < n; ++i)
    if (supports(rows[i].precision))
      s += std::string(s.empty() ? "" : ", ") + rows[i].name;
  return s;
}
