//===- GemmModel.h - Predicted GEMM time on a GPU ---------------*- C++ -*-===//
//
// For one GEMM (batch x (M x K) . (K x N), element type, operand layouts) on
// a GpuTarget: alignment of M, N, K and the leading dimensions, the tile the
// library would plausibly pick (minimum predicted time over the target's
// menu), tile, K-step and wave quantization, a roofline bound, and the
// predicted time and TFLOP/s. docs/cost-model.md states every formula.
// Plain C++: no MLIR types.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_COST_GEMMMODEL_H
#define TSHAPE_COST_GEMMMODEL_H

#include "tshape/Target/GpuTarget.h"

#include <utility>

namespace tshape::cost {

/// How an FP8 linear layer makes its A operand (the input x forward, the
/// output gradient dY in the data-gradient GEMM) FP8 before the GEMM, as
/// Transformer Engine runs it: not at all (the operand is already FP8: a
/// bare FP8 GEMM, or the weight gradient, whose operands the forward and
/// data-gradient quantizations wrote), per-tensor current scaling (an amax
/// reduction over the bf16 operand, then a cast), or MXFP8 block scaling
/// (one cast writing an E8M0 scale per 32 elements). Static per-tensor
/// scaling (vLLM with a checkpoint's calibrated activation scale) skips
/// the amax pass: one cast.
enum class Quantize : uint8_t { None, PerTensor, Block, Static };

struct GemmProblem {
  int64_t batch = 1, m = 1, n = 1, k = 1;
  model::DType dtype = model::DType::BF16;
  bool transA = false; ///< A stored K x M (lda = M), else M x K (lda = K)
  bool transB = false; ///< B stored N x K (ldb = K), else K x N (ldb = N)
  /// dtype FP8 only: the quantization of A from bf16 that runs before the
  /// GEMM (an FP8 linear layer; its output is bf16, 2 bytes).
  Quantize quantize = Quantize::None;
  /// The cast also writes A transposed (Hopper in training: its FP8 GEMMs
  /// take only the TN layout, so the weight-gradient GEMM needs x and dY
  /// transposed, and TE's cast-transpose writes both copies at once).
  bool quantizeTranspose = false;
  /// A's FP8 copy was written by another layer's cast: the up projection of
  /// a gated pair, which Megatron-LM (linear_fc1) and vLLM (gate_up_proj)
  /// run as one linear layer of width 2f with one cast of x. No cast of its
  /// own (estimateQuantize is empty).
  bool inputQuantized = false;
  /// A block-scaled FP8 GEMM whatever quantizes its inputs (an MXFP8
  /// run's weight gradient reads the FP8 copies the other passes' casts
  /// wrote): it runs the target's block-scaled kernel
  /// (GpuTarget::blockFp8MathEfficiency) like a `Quantize::Block` layer.
  bool blockScaled = false;
  /// A grouped GEMM over experts (batch = the experts that get tokens):
  /// its kernel reaches grouped_gemm_efficiency of the library's rate.
  bool grouped = false;
};

/// The quantization of an FP8 linear layer's A operand.
struct QuantizeEstimate {
  int kernels = 0;  ///< 2 per-tensor (amax, cast), 1 block or static, 0 none
  double bytes = 0; ///< bf16 reads, FP8 writes and block scales
  double predictedUs = 0;
};

/// The quantization of the `m x k` (x batch) A operand of `p` on `t`:
/// per-tensor reads the bf16 operand twice (amax, then the cast) and writes
/// it once in FP8, 5 bytes per element; a static scale reads it once and
/// writes it once, 3 bytes; block scaling reads it once and
/// writes it with one scale byte per 32 elements, 3 + 1/32 bytes; a
/// transposed copy writes its FP8 bytes (and scales) again. Time = bytes /
/// (bandwidth x quantize_efficiency) + kernels x quantize_overhead_us.
QuantizeEstimate estimateQuantize(const GemmProblem &p,
                                  const target::GpuTarget &t);

/// Alignment of one size (in elements) against the target's rules.
struct DimAlignment {
  int64_t elements = 0;
  int64_t bytes = 0;
  bool meetsMin = true;  ///< multiple of minAlignBytes
  bool meetsBest = true; ///< multiple of bestAlignBytes
  int64_t vectorBytes = 16; ///< widest power of two <= 16 dividing bytes
};

struct GemmEstimate {
  bool supported = true; ///< the dtype has a GEMM path on the target
  target::TileConfig tile;
  /// K is split into this many slices run by separate CTAs (their partial
  /// sums are reduced in fp32 through memory).
  int64_t splitK = 1;
  int64_t tilesM = 0, tilesN = 0, tiles = 0, slots = 0, waves = 0;
  double tileEfficiency = 1, kEfficiency = 1, waveEfficiency = 1;
  double alignFactor = 1; ///< throughput factor of the narrowest load
  DimAlignment m, n, k, lda, ldb, ldc;
  double flops = 0, bytes = 0, intensity = 0;
  bool memoryBound = false;
  /// The FP8 linear layer's quantization of A, run before the GEMM and
  /// included in predictedUs (none unless GemmProblem::quantize).
  QuantizeEstimate quantize;
  double computeUs = 0, memoryUs = 0, predictedUs = 0, tflops = 0;
  /// The time with every shape effect removed: the same FLOPs and bytes at
  /// full tile, K-step, wave and alignment efficiency on the largest tile.
  double idealUs = 0;
  /// Time each cause adds over the ideal (zero when memory-bound).
  double lostTileUs = 0, lostKUs = 0, lostWaveUs = 0, lostAlignUs = 0;
  /// Fraction of issued tensor-core work that is useful:
  /// tile x K-step x wave x alignment.
  double shapeEfficiency() const {
    return tileEfficiency * kEfficiency * waveEfficiency * alignFactor;
  }
};

/// Compute and memory time overlapped: the larger of the two when p is 0
/// (a perfect overlap), their p-norm otherwise (p = 1 adds them).
double overlap(double compute, double memory, double p);

/// Throughput factor of global loads `vectorBytes` wide (16 = 1.0). Model
/// constants; the 4-byte value is fitted to a public H100 measurement (see
/// docs/cost-model.md).
double alignmentFactor(int64_t vectorBytes);

/// Alignment of `elements` elements of `dtype` on `target`.
DimAlignment alignmentOf(int64_t elements, model::DType dtype,
                         const target::GpuTarget &target);

/// Predicts one GEMM with a given tile and split-K factor. `streamK`
/// false: the kernel runs its last wave whole (no wave smoothing).
/// `clusterM` x `clusterN`: the kernel's thread-block cluster; the tiles
/// along M (N) are rounded up to a multiple of clusterM (clusterN), and
/// the padding tiles cost whole tiles (CUTLASS's persistent scheduler).
GemmEstimate estimateWithTile(const GemmProblem &p,
                              const target::GpuTarget &target,
                              const target::TileConfig &tile,
                              int64_t splitK = 1, bool streamK = true,
                              int64_t clusterM = 1, int64_t clusterN = 1);

/// The rule of `target`'s FP8 linear-layer dispatch that an FP8 linear
/// layer's GEMM `p` runs (GpuTarget::fp8LinearKernels); nullptr when none
/// admits it, or `p` is no FP8 linear layer or a grouped expert GEMM (the
/// fused MoE kernel's): then the library's choice.
const target::Fp8LinearKernel *fp8LinearKernel(const GemmProblem &p,
                                               const target::GpuTarget &target);

/// Predicts one GEMM with the tile and split-K of minimum predicted time
/// (ties: the earlier tile in the menu, then no split). Split-K is tried
/// only when the tiles do not fill one wave. An FP8 linear layer
/// (GemmProblem::quantize) that the target's FP8 dispatch admits takes
/// that rule's tile, unsplit (fp8LinearKernel).
GemmEstimate estimateGemm(const GemmProblem &p,
                          const target::GpuTarget &target);

/// One fused-attention (FlashAttention) call: `batch` sequences of `seq`
/// query tokens, `heads` query heads sharing `kvHeads` key/value heads
/// (GQA), causal or not, with a sliding window of `window` keys (0: none).
struct AttentionProblem {
  int64_t batch = 1, seq = 1, heads = 1, kvHeads = 1, headDim = 128;
  int64_t window = 0;
  bool causal = true;
  model::DType dtype = model::DType::BF16;
  /// Keys already in the cache before the first query (a prefill chunk
  /// after `cached` tokens): the keys are cached + seq, and the causal mask
  /// is aligned to their end, as FlashAttention aligns it (bottom right):
  /// query i sees cached + i + 1 keys (not causal: all of them). 0:
  /// self-attention, each query over its own sequence.
  int64_t cached = 0;
  /// The value head dim when it differs from headDim (MLA's prefill:
  /// query/key 192, value 128); 0: headDim.
  int64_t valueHeadDim = 0;
  /// Keys that are not the queries' own (a cross attention: MLA's chunk
  /// over its up-projected context): every query sees all of them, no mask,
  /// and none is written to a cache; 0: the keys are cached + seq.
  int64_t crossKeys = 0;
};

/// The kernel's predicted time: the score and value products over the
/// (query block, key block) pairs the mask leaves, at the target's
/// attention efficiency, with the head dims padded to the kernel the
/// target runs for them (fusedHeadDims); bounded below by the longest
/// CTA's work and by the bytes of Q, K, V, O and the cached K/V read,
/// plus the K/V cache write (a kernel of its own) and a fixed cost. `supported` is false when no
/// kernel covers the head dims. docs/cost-model.md#fused-attention.
struct FusedAttentionEstimate {
  bool supported = true;
  /// The kernel's query/key and value head dims (fusedHeadDims), and the
  /// useful share of their work: (d + dv) / (padded d + padded dv).
  int64_t paddedHeadDim = 0, paddedValueHeadDim = 0;
  double headDimEfficiency = 1;
  /// Useful FLOPs (the unmasked score and value products).
  double flops = 0;
  /// Fraction of the computed blocks' work that is unmasked.
  double blockEfficiency = 1;
  double computeUs = 0, criticalPathUs = 0, memoryUs = 0;
  /// The K and V tiles every (query block, key block) pair loads, per kv
  /// head, at the bandwidth: the share of them that misses L2.
  double kvStreamUs = 0;
  /// The K/V cache write, a kernel of its own (attentionCacheWriteCost).
  double cacheWriteUs = 0;
  double predictedUs = 0, tflops = 0;
  /// The kernel's bytes (the memory term's: Q, O, K and V once, and a
  /// chunk's cached K and V); of them, the cached keys and values a
  /// prefill chunk reads.
  double bytes = 0;
  double cacheBytes = 0;
};
FusedAttentionEstimate estimateAttention(const AttentionProblem &p,
                                         const target::GpuTarget &target);

/// The tiles a fused-attention kernel computes for `p` with its query/key
/// head dim padded to `paddedHeadDim`: tiles of `rows` query rows x `cols`
/// keys (the target's attentionTiles entry, else attentionBlock square; a
/// short sequence's rows and keys rounded up to 64), `queryBlocks` query
/// blocks per unit, and `pairs` (query block, key block) pairs per unit,
/// `longest` of them in the last query block. A unit is one (sequence,
/// query head), or with `packed` (attentionPackGqa) one (sequence, kv
/// head) whose query blocks hold seq x heads/kv_heads rows, the head
/// fastest. The causal mask is aligned to the keys' end (p.cached before
/// the queries) and a window bounds it below. A loop over key blocks
/// (bounded by the keys / cols). docs/cost-model.md#fused-attention.
struct AttentionBlocks {
  int64_t rows = 0, cols = 0, queryBlocks = 0, longest = 0;
  double pairs = 0;
  bool packed = false;
};
AttentionBlocks attentionBlocks(const AttentionProblem &p,
                                const target::GpuTarget &target,
                                int64_t paddedHeadDim);

/// Query-key pairs of one head that a causal mask with a window of
/// `window` keys (0: none) leaves, over `n` queries: sum of min(i+1, w).
/// Closed form: no loop over n.
double maskedPairs(int64_t n, int64_t window, bool causal);

/// The same over `n` queries that follow `cached` keys (a prefill chunk):
/// query i sees min(cached + i + 1, w) keys when causal, min(cached + n,
/// w) otherwise. Causal, it is the pairs of queries cached..cached+n-1 of
/// a sequence of cached + n: maskedPairs(cached + n) - maskedPairs(cached).
/// Equals maskedPairs(n, window, causal) at cached = 0.
double cachedPairs(int64_t n, int64_t cached, int64_t window, bool causal);

/// The fused kernel a target runs for query/key head dim `d` and value
/// head dim `dv`: both padded up the target's fusedHeadDims, a (d, dv)
/// pair of its own when the target lists one (GpuTarget::
/// fusedValueHeadDims: FlashAttention 3's 192/128 on Hopper), else both at
/// the menu size of the larger (the value zero-padded to the query's
/// width, as vLLM's MLA prefill does where its kernel has no such pair).
/// {0, 0} when no kernel covers them.
std::pair<int64_t, int64_t> fusedHeadDims(const target::GpuTarget &t,
                                          int64_t d, int64_t dv);

} // namespace tshape::cost

#endif // TSHAPE_COST_GEMMMODEL_H
