//===- DType.h - Element types of GEMM operands -----------------*- C++ -*-===//
//
// The element types the cost models know. Header-only and free of LLVM, so
// that the GPU descriptions, the transformer model and the runtime-only
// build all share one definition without depending on each other.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_SUPPORT_DTYPE_H
#define TSHAPE_SUPPORT_DTYPE_H

#include <cstdint>
#include <optional>
#include <string>

namespace tshape {

/// Storage/compute element type of a GEMM. The order indexes per-type
/// tables (GpuTarget::peakTflops): append, never reorder.
enum class DType { BF16, FP16, FP32, TF32, FP8 };
inline constexpr int kNumDTypes = 5;

/// Size of one element in bytes.
inline int64_t dtypeBytes(DType t) {
  switch (t) {
  case DType::BF16:
  case DType::FP16:
    return 2;
  case DType::FP32:
  case DType::TF32:
    return 4;
  case DType::FP8:
    return 1;
  }
  return 2;
}

/// Canonical lower-case name ("bf16", "fp16", "fp32", "tf32", "fp8").
inline const char *dtypeName(DType t) {
  switch (t) {
  case DType::BF16:
    return "bf16";
  case DType::FP16:
    return "fp16";
  case DType::FP32:
    return "fp32";
  case DType::TF32:
    return "tf32";
  case DType::FP8:
    return "fp8";
  }
  return "bf16";
}

/// Parses a canonical name; nullopt when unknown.
inline std::optional<DType> parseDType(const std::string &name) {
  for (DType t :
       {DType::BF16, DType::FP16, DType::FP32, DType::TF32, DType::FP8})
    if (name == dtypeName(t))
      return t;
  return std::nullopt;
}

/// The precision a run computes its linear layers in, as frameworks run
/// it: bf16, FP8 with per-tensor current scaling (Transformer Engine's
/// `Float8CurrentScaling`: each input's amax, then a cast to E4M3, the
/// gradients in E5M2), or MXFP8 (block scaling: one E8M0 scale per 32
/// elements, Blackwell). Attention and the other non-weight products stay
/// in bf16 under every precision.
enum class Precision : uint8_t { BF16, FP8, MXFP8 };

/// What one precision is, as a row of the precision table: its element
/// size with its scales, how its inputs are quantized and the flags that
/// select it in Megatron-LM. A new precision (NVFP4: 4-bit elements, an
/// E4M3 scale per 16) is a Precision value and a row here, then the
/// targets that run it (GpuTarget::supports) and its GEMM price.
struct PrecisionInfo {
  Precision precision;
  const char *name;
  /// Bits of one element as stored.
  double elementBits;
  /// Elements that share one stored scale; 0: none per element (bf16, or
  /// one fp32 scale per tensor, which the bytes leave out).
  int64_t scaleBlock;
  /// The per-block scale's type and bits ("e8m0", 8); "" and 0 for none.
  const char *scaleType;
  double scaleBits;
  /// How a linear layer's inputs are quantized.
  const char *quantize;
  /// The Megatron-LM flags that select it (Transformer Engine's recipes,
  /// megatron/training/arguments.py, _add_transformer_engine_args); "" for
  /// none: bf16 is the default.
  const char *megatronFlags;
  /// Which targets run it (GpuTarget::supports): those with a tensor-core
  /// peak in `mathType`, and, for a per-block scale, block-scaled tensor
  /// cores (Blackwell's; Hopper runs FP8 with per-tensor scales only).
  DType mathType;

  /// Bytes per element with its block scales: elementBits / 8 +
  /// scaleBits / (8 scaleBlock) (MXFP8: 1 + 1/32).
  double bytesPerElement() const {
    return elementBits / 8 +
           (scaleBlock > 0 ? scaleBits / (8 * double(scaleBlock)) : 0);
  }
};

/// The table, one row per Precision in its order.
inline const PrecisionInfo *precisionTable(int *count = nullptr) {
  static const PrecisionInfo rows[] = {
      {Precision::BF16, "bf16", 16, 0, "", 0, "none", "", DType::BF16},
      // Transformer Engine's Float8CurrentScaling (`tensorwise`), E4M3
      // forward and E5M2 gradients (the hybrid format).
      {Precision::FP8, "fp8", 8, 0, "", 0,
       "per-tensor current scaling (E4M3 forward, E5M2 gradients)",
       "--fp8-format hybrid --fp8-recipe tensorwise", DType::FP8},
      // MXFP8BlockScaling: E4M3 throughout, one E8M0 scale per 32
      // elements, as Megatron-LM's DeepSeek-V3 GB200 guide launches it.
      {Precision::MXFP8, "mxfp8", 8, 32, "e8m0", 8,
       "block scaling (E4M3, an E8M0 scale per 32 elements)",
       "--fp8-format e4m3 --fp8-recipe mxfp8", DType::FP8},
  };
  if (count)
    *count = int(sizeof rows / sizeof rows[0]);
  return rows;
}

/// The row of `p`.
inline const PrecisionInfo &precisionInfo(Precision p) {
  return precisionTable()[int(p)];
}

/// "bf16", "fp8", "mxfp8".
inline const char *precisionName(Precision p) { return precisionInfo(p).name; }

/// The precision named `name`; nullopt when it names none.
inline std::optional<Precision> parsePrecision(const std::string &name) {
  int n = 0;
  const PrecisionInfo *rows = precisionTable(&n);
  for (int i = 0; i < n; ++i)
    if (name == rows[i].name)
      return rows[i].precision;
  return std::nullopt;
}

/// "bf16|fp8|mxfp8", for option help and errors.
inline std::string precisionNames() {
  int n = 0;
  const PrecisionInfo *rows = precisionTable(&n);
  std::string s;
  for (int i = 0; i < n; ++i)
    s += (i ? "|" : "") + std::string(rows[i].name);
  return s;
}

namespace model {
// The model's spelling of the same names.
using ::tshape::DType;
using ::tshape::dtypeBytes;
using ::tshape::dtypeName;
using ::tshape::parseDType;
using ::tshape::parsePrecision;
using ::tshape::Precision;
using ::tshape::precisionInfo;
using ::tshape::precisionName;
} // namespace model

} // namespace tshape

#endif // TSHAPE_SUPPORT_DTYPE_H
