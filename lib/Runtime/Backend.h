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

/// A row-major GEMM as BLAS's column-major D = op(X) . op(Y). Row-major
/// C (M x N) is column-major C^T (N x M) = op(B)^T . op(A)^T, so X is the
/// B buffer and Y the A buffer; a buffer stored row-major R x C reads as
/// column-major C x R with leading dimension C. Every matrix is packed
/// (leading dimension = its stored row count here) and batches follow each
/// other (strides in elements).
struct ColumnMajorGemm {
  bool transX, transY;               // op(X) = X^T, op(Y) = Y^T
  int64_t rows, cols, depth;         // D = C^T: N x M, contracted over K
  int64_t xRows, xCols, yRows, yCols; // stored, column-major
  int64_t strideX, strideY, strideD;
};
ColumnMajorGemm columnMajorGemm(const tshapeRtGemmDesc &d);

/// How many copies of the operands (`setBytes` each) to rotate through so
/// that the copies not in use add up to at least twice the L2 cache, which
/// evicts a copy before it is used again: ceil(2 L2 / setBytes) + 1, capped
/// at `maxSets`.
int rotatingSets(double setBytes, double l2Bytes, int maxSets);

/// `d` in the layout cuBLASLt's FP8 kernels require on Hopper and Ada ("TN":
/// X = B transposed, Y = A not), i.e. transA = 0 and transB = 1.
tshapeRtGemmDesc tnLayout(const tshapeRtGemmDesc &d);
/// Row-major operands of `d` rearranged for `tnLayout(d)`: A as M x K and B
/// as N x K per batch (copies; unchanged when already so).
void toTnLayout(const tshapeRtGemmDesc &d, const float *a, const float *b,
                std::vector<float> &aOut, std::vector<float> &bOut);
/// The check's error of a computed C against an fp64 reference, in units of
/// the typical output magnitude: max over sampled outputs of
/// |c - ref| / (sqrt(K) rms(A) rms(B)). A deterministic stride picks
/// `samples` outputs (<= 0: all).
double checkError(const tshapeRtGemmDesc &d, const float *a, const float *b,
                  const float *c, int64_t samples);

} // namespace tshape::runtime

#endif // TSHAPE_RUNTIME_BACKEND_H
