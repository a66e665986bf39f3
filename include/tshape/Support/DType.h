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

/// "bf16", "fp8", "mxfp8".
inline const char *precisionName(Precision p) {
  switch (p) {
  case Precision::BF16:
    return "bf16";
  case Precision::FP8:
    return "fp8";
  case Precision::MXFP8:
    return "mxfp8";
  }
  return "bf16";
}

/// The precision named `name`; nullopt when it names none.
inline std::optional<Precision> parsePrecision(const std::string &name) {
  for (Precision p : {Precision::BF16, Precision::FP8, Precision::MXFP8})
    if (name == precisionName(p))
      return p;
  return std::nullopt;
}

/// "bf16|fp8|mxfp8", for option help and errors.
inline const char *precisionNames() { return "bf16|fp8|mxfp8"; }

namespace model {
// The model's spelling of the same names.
using ::tshape::DType;
using ::tshape::dtypeBytes;
using ::tshape::dtypeName;
using ::tshape::parseDType;
using ::tshape::parsePrecision;
using ::tshape::Precision;
using ::tshape::precisionName;
} // namespace model

} // namespace tshape

#endif // TSHAPE_SUPPORT_DTYPE_H
