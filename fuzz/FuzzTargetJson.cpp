//===- FuzzTargetJson.cpp - libFuzzer target: GPU target files ------------===//
//
// Bytes -> parseTargetJson -> (when accepted) a GEMM predicted on it.
//
//===----------------------------------------------------------------------===//

#include "tshape/Cost/GemmModel.h"
#include "tshape/Target/GpuTarget.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  std::string error;
  auto target = tshape::target::parseTargetJson(text, error);
  if (!target)
    return 0;
  tshape::cost::GemmProblem p{1, 4096, 4096, 4096, tshape::DType::BF16,
                                  false, true};
  (void)tshape::cost::estimateGemm(p, *target);
  p.m = 1;
  p.n = 50257;
  (void)tshape::cost::estimateGemm(p, *target);
  return 0;
}
