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

namespace model {
// The model's spelling of the same names.
using ::tshape::DType;
using ::tshape::dtypeBytes;
using ::tshape::dtypeName;
using ::tshape::parseDType;
} // namespace model

} // namespace tshape

#endif // TSHAPE_SUPPORT_DTYPE_H
