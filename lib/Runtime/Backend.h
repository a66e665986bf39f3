//===- Backend.h - Runtime backend interface (internal) ---------*- C++ -*-===//
//
// The table of functions a backend provides. The cuBLASLt backend lives in
// its own shared library and exports tshapeRtCublasBackendCreate, so that
// nothing links cuBLAS unless that backend is asked for.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_RUNTIME_BACKEND_H
#define TSHAPE_RUNTIME_BACKEND_H

#include "tshape/Runtime/Runtime.h"

#include <stddef.h>

#include <vector>

extern "C" {
typedef struct tshapeRtBackend {
  void *state;
  const char *(*name)(void *state);
  /* Times a GEMM on inputs it fills itself (seeded). */
  tshapeRtStatus (*time)(void *state, const tshapeRtGemmDesc *desc,
                         tshapeRtGemmResult *result, char *err, size_t errLen);
  /* Runs once on the given inputs (values already representable in the
   * dtype, stored as float, row-major as the desc says), writing the output
   * as float. */
  tshapeRtStatus (*run)(void *state, const tshapeRtGemmDesc *desc,
                        const float *a, const float *b, float *c, char *err,
                        size_t errLen);
  void (*destroy)(void *state);
} tshapeRtBackend;

/* Exported by libtshape_runtime_cublas.so. */
typedef tshapeRtStatus (*tshapeRtBackendCreateFn)(tshapeRtBackend *out,
                                                  char *err, size_t errLen);
}

namespace tshape::runtime {
/// Deterministic values in [-1, 1), never exactly zero, rounded to `dtype`.
void fillRandom(float *data, int64_t count, uint64_t seed, tshapeRtDType dtype);
/// `v` rounded to the nearest value of `dtype` (bf16, fp16, tf32, fp8 e4m3).
float roundToDType(float v, tshapeRtDType dtype);
/// Median, min, max, count and TFLOP/s of the timed runs `us` (sorted in
/// place; at least one).
void summarizeTimes(std::vector<double> &us, const tshapeRtGemmDesc &d,
                    tshapeRtGemmResult &r);
/// Element counts of A, B and C for one batch.
void operandSizes(const tshapeRtGemmDesc &d, int64_t &a, int64_t &b,
                  int64_t &c);
} // namespace tshape::runtime

#endif // TSHAPE_RUNTIME_BACKEND_H
