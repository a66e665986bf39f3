//===- GpuTarget.h - GPU descriptions for the GEMM model --------*- C++ -*-===//
//
// What the GEMM cost model needs to know about a GPU: SM count, dense
// tensor-core peak per element type, memory bandwidth, L2 size, the alignment
// rules, the CTA tile menu and how many tiles an SM runs at once. Built-in
// figures come from vendor datasheets and whitepapers (docs/targets.md cites
// each). Plain C++: no MLIR types.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_TARGET_GPUTARGET_H
#define TSHAPE_TARGET_GPUTARGET_H

#include "tshape/Support/DType.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tshape::target {

/// One CTA tile shape of the GEMM library's menu.
struct TileConfig {
  int64_t m = 128, n = 128;
  /// Fraction of the per-SM peak this tile shape reaches on a large aligned
  /// GEMM (smaller tiles reuse operands less). Model constant.
  double efficiency = 1.0;
  /// How many such tiles one SM runs at once.
  int64_t ctasPerSm = 1;
};

/// One rule of a framework's FP8 linear-layer GEMM dispatch: a GEMM of M x
/// N x K that the bounds admit runs this tile, unsplit. Swapped-operand
/// kernels (the output computed transposed, for small M) are written with
/// the tile as the problem sees it (rows of M, columns of N). A kernel
/// without stream-K (a persistent or one-tile-per-CTA schedule) runs its
/// last wave whole: `streamK` false ignores the target's wave smoothing.
/// Facts read from the framework's dispatch code (docs/cost-model.md
/// cites it), not fitted.
struct Fp8LinearKernel {
  int64_t minM = 1, maxM = 0; ///< M in [minM, maxM]; maxM 0: no bound
  int64_t maxN = 0;           ///< N <= maxN; 0: no bound
  int64_t minK = 0;           ///< K >= minK
  TileConfig tile;
  bool streamK = false;
  /// The kernel's thread-block cluster, in CTAs along M (rows) and N
  /// (columns) of the problem as written (a swapped kernel's cluster with
  /// its modes exchanged). CUTLASS's persistent tile scheduler rounds the
  /// tiles along each mode up to whole clusters, and the padding CTAs run
  /// their main loops on out-of-bounds (zero-filled) operands.
  int64_t clusterM = 1, clusterN = 1;
  bool admits(int64_t m, int64_t n, int64_t k) const {
    return m >= minM && (maxM == 0 || m <= maxM) && (maxN == 0 || n <= maxN) &&
           k >= minK;
  }
};

struct GpuTarget {
  std::string name;        ///< canonical name, e.g. "h100-sxm"
  std::string description; ///< e.g. "NVIDIA H100 SXM5 80GB"
  std::string arch;        ///< volta, ampere, ada, hopper, blackwell
  /// Where the model constants come from: a fit on measured timings, a
  /// derivation from another GPU's fit, a target file or the guesses.
  std::string constantsSource = "uncalibrated guesses";
  int64_t smCount = 0;
  /// The most threads and CTAs one SM holds at once (the CUDA C++
  /// Programming Guide, "Technical Specifications per Compute Capability":
  /// 2048 and 32 on compute capability 7.0, 8.0, 9.0 and 10.0; 1536 and 24
  /// on 8.9, Ada).
  int64_t smMaxThreads = 2048, smMaxCtas = 32;
  /// Dense tensor-core peak in TFLOP/s, indexed by model::DType; 0 means the
  /// type has no GEMM path on this GPU.
  double peakTflops[kNumDTypes] = {0, 0, 0, 0, 0};
  double memoryBandwidthGBs = 0; ///< DRAM bandwidth, GB/s
  /// Device memory in GiB (the datasheet's "80GB" HBM is 80 GiB: HBM
  /// stacks come in binary sizes); 0 when unknown. What a training plan's
  /// memory per GPU must fit in (tshape-plan).
  double memoryGiB = 0;
  double l2MB = 0;
  int64_t minAlignBytes = 16;  ///< tensor cores need 16-byte multiples
  int64_t bestAlignBytes = 128; ///< 128 bytes from Ampere on
  int64_t kTileBytes = 128;     ///< K consumed per main-loop step
  /// Fractions of peak compute and bandwidth a large, aligned GEMM reaches.
  /// Model constants. These defaults are the guesses used before
  /// calibration (target::uncalibrated); the built-in targets carry fitted
  /// values (docs/targets.md).
  double mathEfficiency = 0.8;
  double memoryEfficiency = 0.85;
  double launchOverheadUs = 2.0;
  /// How much of the last partial wave's idle time the library recovers:
  /// 0 runs whole waves (classic tiling), 1 shares the work out evenly
  /// (stream-K and persistent kernels). Model constant, fitted.
  double waveSmoothing = 0;
  /// How compute and memory time overlap: 0 takes the larger (perfect
  /// overlap), p > 0 their p-norm (1 adds them). Fitted.
  double overlapExponent = 0;
  /// Fraction of the output's write time that is not hidden behind other
  /// CTAs' main loops (the epilogue). Fitted.
  double epilogueSerialFraction = 0;
  /// Split-K slices hold at least this many elements of K. 0: any. Fitted.
  double splitKMinK = 0;
  /// Fraction of the dense peak a fused-attention kernel reaches on large
  /// problems, and its fixed cost per call (the kernel launches; the cache
  /// write's bytes are attentionCacheWriteCost's). Model constants, fitted on prefill attention timings.
  double attentionEfficiency = 0.8;
  /// A fused attention's backward kernel over its forward's time
  /// (model::AttentionSpec::backward). FlashAttention-2's backward runs
  /// five products per (query block, key block) pair where the forward
  /// runs two: the scores again, dP, dV, dQ and dK (Dao, 2023, Algorithm
  /// 2), so 2.5 at the forward's efficiency. Not fitted: the measured data
  /// holds no backward timings (docs/cost-model.md#fused-attention).
  double attentionBackwardFactor = 2.5;
  double attentionOverheadUs = 2.0;
  /// Query and key rows per attention block (FlashAttention's tile) when
  /// attentionTiles has no entry for the head dim.
  int64_t attentionBlock = 128;
  /// The FlashAttention forward tile (kBlockM queries x kBlockN keys) per
  /// padded query/key head dim, as vLLM runs it over its paged KV cache:
  /// FA3 on Hopper (hopper/tile_size.h, tile_size_fwd_sm90 with
  /// paged_kv_non_TMA), FA2's split-KV kernel on Ampere and Ada
  /// (run_mha_fwd_splitkv_dispatch; see docs/cost-model.md#fused-attention).
  /// Empty: attentionBlock square.
  /// Built-in only: a target file keeps its base's.
  struct AttentionTile {
    /// kBlockN causal, with a window (FA3's "local"), and neither.
    int64_t headDim, blockM, blockNCausal, blockNLocal, blockNFull;
  };
  std::vector<AttentionTile> attentionTiles;
  /// Whether a query block packs the query heads of one kv head (FA3's
  /// PackGQA, always on for a paged KV cache whose page is not a multiple
  /// of kBlockN: flash_api.cpp, get_pack_gqa): blocks of seq x heads/kv
  /// rows per (sequence, kv head). Built-in only.
  bool attentionPackGqa = false;
  /// The softmax's cost per score, in head dims of matrix work, and the
  /// fixed cost of a query block (loading Q, writing O), in key blocks.
  /// Model constants, fitted on prefill attention timings.
  double attentionSoftmaxDim = 0;
  double attentionQueryBlockCost = 0;
  /// The K/V tiles each (query block, key block) pair of one kv head loads:
  /// how many loads share one HBM read (the rest hit L2), and the p of the
  /// p-norm with which that traffic overlaps the matrix work (1: adds).
  /// Model constants, fitted on prefill attention timings.
  double attentionKvReuse = 8;
  double attentionKvOverlapExponent = 2;
  /// The attention kernel's share of the bandwidth for its compulsory
  /// bytes (Q, O, and K and V read once), and the K/V cache write, a
  /// kernel of its own before the attention kernel (vLLM's
  /// reshape_and_cache_flash), as a multiple of its bytes' time at the
  /// datasheet bandwidth (0: hidden; 1: at the datasheet bandwidth). Model
  /// constants, fitted on prefill attention timings.
  double attentionMemoryEfficiency = 0.85;
  double attentionCacheWriteCost = 0;
  /// The cache write's latency per CTA: reshape_and_cache_flash runs one
  /// CTA per new token of min(kv heads x head dim, 512) threads, and an SM
  /// holds min(smMaxCtas, smMaxThreads / threads) of them at once; the
  /// tokens over (SMs x that) times this (us) is added to the write's bytes
  /// time. Model constant, fitted on prefill attention timings.
  double attentionCacheWriteCtaUs = 0;
  /// Decode attention (one query token per sequence over a KV cache,
  /// Cost/DecodeAttention.h; docs/cost-model.md#decode-attention). Model
  /// constants, fitted on decode timings: the fraction of the datasheet
  /// bandwidth the cache read reaches; the fixed cost per call (launches,
  /// the new token's K/V write); the latency of one CTA (one sequence x kv
  /// head x query tile x split) on its SM; what one SM can read, as a
  /// multiple of its share of the bandwidth (bandwidth / SMs): a few CTAs
  /// cannot saturate HBM; the cost of merging split-KV partial results;
  /// and the p of the p-norm of the CTA schedule and the memory time (0:
  /// the larger).
  double decodeMemoryEfficiency = 0.85;
  double decodeOverheadUs = 2.0;
  double decodeCtaUs = 1.0;
  double decodeSmBandwidth = 2.0;
  double decodeCombineUs = 1.0;
  double decodeOverlapExponent = 0;
  /// The merge's further cost per split and wave of merging CTAs (each
  /// merging CTA loops over the splits), and, on FlashAttention 2's varlen
  /// path (decodeSplitGqaOnly), the copies around its swapped GQA layout:
  /// O back into the caller's layout, and Q into the swapped one when it
  /// cannot be a view (batch > 1 and kv heads > 1). Model constants, fitted
  /// on decode timings.
  double decodeSplitCombineUs = 0.1;
  double decodeOutCopyUs = 2.0;
  double decodeQueryCopyUs = 2.0;
  /// Query rows of one decode CTA: the query heads of one kv head are
  /// packed into them (GQA), padded up to it; more heads per kv head run
  /// as further CTAs. Not fitted (FlashAttention's decode tile).
  int64_t decodeQueryTile = 64;
  /// Whether the decode kernel is FlashAttention 2's varlen path (Ampere
  /// and Ada) rather than FlashAttention 3's (Hopper and Blackwell): it
  /// packs the query heads of a kv head only by swapping them into the
  /// sequence dimension (several query heads per kv head, no window; Q and
  /// O copied around it), splits the cache only in that layout, counts two
  /// CTAs per SM in its split heuristic (128-thread CTAs), and merges with
  /// one CTA per 4 rows of head dim 128 (8 at 64, else 16).
  bool decodeSplitGqaOnly = false;
  /// An FP8 linear layer (Precision::FP8, MXFP8; Cost/GemmModel.h): the
  /// fraction of the FP8 peak its GEMM reaches on a large aligned problem
  /// (in place of math_efficiency), and the quantization of its input
  /// before it: a memory-bound pass over the bf16 input at this fraction
  /// of the datasheet bandwidth, plus a fixed cost per quantization kernel
  /// (two under per-tensor current scaling: the amax reduction, then the
  /// cast; one under block scaling). Model constants, fitted on FP8
  /// linear-layer timings.
  double fp8MathEfficiency = 0.8;
  double quantizeEfficiency = 0.85;
  double quantizeOverheadUs = 2.0;
  /// DRAM bytes an FP8 linear layer moves per element of its (bf16)
  /// output: 2 where its GEMM writes the output once in bf16 (vLLM's
  /// CUTLASS kernels on Hopper); more where the measured layer's output
  /// costs more (B200's FP8 layers: at output-bound shapes they take
  /// 2.6x the bf16 GEMM's time, docs/targets.md#fp8-linear-layers). Model
  /// constant, fitted on FP8 linear-layer timings; never below 2.
  double fp8OutputBytes = 2.0;
  /// The fraction of one SM's share of the FP8 peak (peak / SMs) that one
  /// CTA of an FP8 linear layer's GEMM reaches. fp8MathEfficiency caps the
  /// whole chip, a power limit the busy SMs share; a GEMM of few CTAs runs
  /// each at this rate instead of its share of the cap, a whole-wave
  /// kernel wave by wave (docs/cost-model.md#fp8-linear-layers). 0: no
  /// per-CTA rate of its own. Model constant, fitted on FP8 linear-layer
  /// timings.
  double fp8SmEfficiency = 0.0;
  /// The fraction of the FP8 peak a block-scaled FP8 GEMM reaches (MXFP8
  /// training GEMMs, 128 x 128 block-scaled FP8 layers: their own kernels,
  /// DeepGEMM's or cuBLASLt's, not the per-tensor layer's whose constants
  /// are above). 0: the per-tensor figures price it too. Such a GEMM
  /// writes its bf16 output once and takes no per-CTA rate of its own.
  /// Model constant, fitted on block-scaled FP8 linear-layer timings.
  double blockFp8MathEfficiency = 0.0;
  /// A fused MoE layer (Cost/MoeLayer.h): the fraction of the library
  /// GEMM's math rate its grouped expert GEMMs reach (Triton's grouped
  /// kernel), the fraction of the datasheet bandwidth its permutation and
  /// activation reach, and its fixed cost (routing, alignment and the
  /// further launches). Model constants, fitted on fused MoE layer
  /// timings (tshape-calibrate on MoE layer rows).
  double groupedGemmEfficiency = 1.0;
  double moeMemoryEfficiency = 0.85;
  double moeOverheadUs = 10.0;
  /// Whether the tensor cores take block-scaled operands (MXFP8's E8M0
  /// scale per 32 elements): Blackwell. Datasheet fact, not fitted. A
  /// precision with a per-block scale (PrecisionInfo::scaleBlock) runs
  /// only here.
  bool mxfp8 = false;
  /// Whether its FP8 GEMMs take only the TN layout (both operands
  /// K-major), so that an FP8 tensor used column-wise (a weight in the data
  /// gradient, an input in the weight gradient) needs a physical transposed
  /// copy: Hopper and Ada, not Blackwell sm100, whose tensor cores take
  /// either layout (Transformer Engine's is_non_tn_fp8_gemm_supported:
  /// compute capability 10.x or 13+; docs/targets.md#fp8-layouts).
  /// Datasheet fact, not fitted. What the FP8 cast writes
  /// (Cost/PredictKernel.h, gemmProblem) and the FP8 weight copies a
  /// training step keeps (Cost/Memory.h, fp8WeightCopyBytes) follow it.
  bool fp8TnOnly = false;
  /// The attention software stack the attention and decode constants were
  /// fitted on ("vllm-0.19"; empty: not fitted on attention timings).
  std::string attentionStack;
  /// Head dimensions with a fused-attention (FlashAttention) kernel; other
  /// head dims run padded up to the next one listed.
  std::vector<int64_t> fusedHeadDims;
  /// (query/key, value) head-dim pairs with a fused kernel of their own
  /// when the value head dim differs (FlashAttention 3 on Hopper: 192 with
  /// a value dim of 128 or less, MLA's prefill); any other differing pair
  /// runs with the value padded to the query's kernel (fusedHeadDims in
  /// Cost/GemmModel.h). Built-in only: a target file keeps its base's.
  std::vector<std::pair<int64_t, int64_t>> fusedValueHeadDims;
  /// Head dims of the decode kernels for absorbed multi-head latent
  /// attention, whose values are the first part of each key (FlashMLA:
  /// 576 = 512 + 64 on Hopper and Blackwell); empty: none.
  std::vector<int64_t> latentDecodeHeadDims;
  std::vector<TileConfig> tiles;
  /// The FP8 linear layer's GEMM dispatch, first admitting rule wins;
  /// empty: the library's choice over `tiles` (a framework that calls
  /// cuBLASLt). Hopper: vLLM's CUTLASS kernels.
  std::vector<Fp8LinearKernel> fp8LinearKernels;
  /// Whether the library's choice for an FP8 linear layer (no
  /// fp8LinearKernels rule) may split K. False on Blackwell: the B200
  /// layers' time grows linearly in K where cuBLAS's bf16 GEMM splits it
  /// (docs/targets.md#model-constants-not-datasheet-facts). Measured, not fitted.
  bool fp8SplitK = true;

  double peak(model::DType t) const { return peakTflops[(int)t]; }
  /// Whether linear layers can run in `p` here, by its row of the
  /// precision table: a tensor-core peak in its math type, and block-scaled
  /// tensor cores for a per-block scale.
  bool supports(Precision p) const {
    const PrecisionInfo &row = precisionInfo(p);
    return peak(row.mathType) > 0 && (row.scaleBlock == 0 || mxfp8);
  }
  /// The precisions it supports, "bf16, fp8", for errors.
  std::string precisionList() const;
};

/// The built-in targets, in documentation order.
const std::vector<GpuTarget> &builtinTargets();
/// A built-in target by canonical name; nullptr when unknown.
const GpuTarget *findBuiltinTarget(const std::string &name);
/// "v100, a100-40gb, ..." for error messages.
std::string builtinTargetNames();

/// The kind of measurement that identifies a model constant.
enum class FitGroup : uint8_t {
  Gemm,
  PrefillAttention,
  DecodeAttention,
  Fp8Gemm, ///< FP8 linear layers (the GEMM and its input's quantization)
  BlockFp8Gemm, ///< block-scaled FP8 linear layers (MXFP8, 128 x 128)
  MoeLayer ///< fused MoE layers (tshape-calibrate fits them on MoE layer rows)
};

/// One model constant of GpuTarget that calibration fits: its target-file
/// key, the range calibration searches and a target file may set, and the
/// kind of measurement that identifies it.
struct ModelConstant {
  const char *key;
  double lo, hi;
  double GpuTarget::*field;
  FitGroup group;
};
/// Every fitted model constant, in fitting order (docs/targets.md).
const std::vector<ModelConstant> &modelConstants();

/// `t` with its fitted model constants (every modelConstants() entry) put
/// back to the guesses they were before calibration, the GpuTarget
/// defaults: the "before" of before/after accuracy figures.
GpuTarget uncalibrated(const GpuTarget &t);

/// The target a tool's --target-file (when not empty) or --target names;
/// nullopt with `error` ("unknown target 'x' (built-in: ...)" or the file's
/// error) otherwise.
std::optional<GpuTarget> resolveTarget(const std::string &name,
                                       const std::string &file,
                                       std::string &error);

/// Parses a target description (JSON, schema in docs/targets.md). On error
/// returns nullopt and sets `error` (with line:column for malformed JSON).
std::optional<GpuTarget> parseTargetJson(const std::string &text,
                                         std::string &error);
/// Reads and parses a target file.
std::optional<GpuTarget> loadTargetFile(const std::string &path,
                                        std::string &error);

} // namespace tshape::target

#endif // TSHAPE_TARGET_GPUTARGET_H
