/*===- Runtime.h - tshape GEMM runtime, C ABI ---------------------*- C -*-===//
 *
 * Runs and times GEMMs on a backend: "cpu" (a straightforward reference,
 * always available) or "cublas" (cuBLASLt, in its own shared library that is
 * loaded only when asked for). Every function returns a status; the context
 * keeps a readable message for the last error. Inputs are filled with
 * deterministic random values in [-1, 1) (never zeros). Timing reports the
 * median and spread over repeated runs after warm-up, rotating input buffers
 * so caches do not flatter small shapes.
 *
 * The _mlir_ciface_ functions are the entry points that
 * tshape-lower-linalg-to-runtime calls from compiled MLIR (memref
 * descriptors, CPU backend).
 *
 *===----------------------------------------------------------------------===*/

#ifndef TSHAPE_RUNTIME_RUNTIME_H
#define TSHAPE_RUNTIME_RUNTIME_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  TSHAPE_RT_OK = 0,
  TSHAPE_RT_INVALID_ARGUMENT = 1,
  TSHAPE_RT_NO_DEVICE = 2,         /* no GPU, or no driver */
  TSHAPE_RT_OUT_OF_MEMORY = 3,
  TSHAPE_RT_UNSUPPORTED_DTYPE = 4, /* e.g. fp8 on a GPU without FP8 GEMMs */
  TSHAPE_RT_BACKEND_UNAVAILABLE = 5,
  TSHAPE_RT_LIBRARY_ERROR = 6      /* cuBLAS / CUDA reported an error */
} tshapeRtStatus;

typedef enum {
  TSHAPE_RT_BF16 = 0,
  TSHAPE_RT_FP16 = 1,
  TSHAPE_RT_FP32 = 2,
  TSHAPE_RT_TF32 = 3,
  TSHAPE_RT_FP8 = 4
} tshapeRtDType;

typedef struct tshapeRtContext tshapeRtContext;

/* batch x (M x K) . (K x N); A stored K x M when transA, B stored N x K
 * when transB (nn.Linear weights). */
typedef struct {
  int64_t batch, m, n, k;
  tshapeRtDType dtype;
  int32_t transA, transB;
  int32_t warmup, iters; /* iters >= 1 */
  uint64_t seed;
} tshapeRtGemmDesc;

typedef struct {
  double medianUs, minUs, maxUs, tflops;
  int32_t iters;
  /* What the library chose (cublas): algorithm id, tile id (-1 if not
   * readable) and cuBLASLt's wavesCount; -1 / 0 on the cpu backend. */
  int32_t algoId, tileId;
  float wavesCount;
  /* The tile id's shape as M x N of this GEMM (cuBLASLt's own tile is
   * rows x columns of C^T, so they are swapped); 0 when unknown. */
  int32_t tileM, tileN;
} tshapeRtGemmResult;

/* The status as a short string ("ok", "no device", ...). */
const char *tshapeRtStatusString(tshapeRtStatus status);

/* The largest error (as tshapeRtCheckGemm measures it, in units of the
 * typical output magnitude) that a correct GEMM of `dtype` with inner size
 * `k` stays under, inputs being exact in the dtype: 8 u_out + 2 k 2^-23,
 * u_out the unit roundoff of the stored result (fp32 and tf32 2^-24, fp16
 * 2^-11, bf16 and fp8 (which writes bf16) 2^-8). Derivation in Runtime.cpp
 * and docs/runtime.md. A wrong layout gives errors of order 1. */
double tshapeRtCheckTolerance(tshapeRtDType dtype, int64_t k);

/* Creates a context for backend "cpu" or "cublas". For "cublas" the
 * cuBLASLt backend library is loaded from `backendLibrary` (NULL: next to
 * this library). On failure *ctx is still set (when ctx is not NULL) so
 * that tshapeRtLastError can say why; destroy it. */
tshapeRtStatus tshapeRtCreate(const char *backend, const char *backendLibrary,
                              tshapeRtContext **ctx);
void tshapeRtDestroy(tshapeRtContext *ctx);
/* The message of the last failing call on `ctx`. */
const char *tshapeRtLastError(const tshapeRtContext *ctx);
/* A description of the device ("CPU reference", "NVIDIA H100 ..."). */
const char *tshapeRtDeviceName(const tshapeRtContext *ctx);

/* Runs and times one GEMM on random inputs. */
tshapeRtStatus tshapeRtTimeGemm(tshapeRtContext *ctx,
                                const tshapeRtGemmDesc *desc,
                                tshapeRtGemmResult *result);

/* Runs one GEMM on random inputs on the context's backend and compares
 * `samples` output elements (all when samples <= 0 or >= the output size)
 * with an fp64 reference computed on the CPU from the same inputs rounded
 * to the dtype. *maxRelError receives the largest |got - ref| in units of
 * the typical output magnitude sqrt(K) rms(A) rms(B): a relative error
 * that does not blow up on outputs near zero (cancellation). */
tshapeRtStatus tshapeRtCheckGemm(tshapeRtContext *ctx,
                                 const tshapeRtGemmDesc *desc, int64_t samples,
                                 double *maxRelError);

/* Compiled-MLIR entry points (CPU, f32, memref descriptors). */
typedef struct {
  float *allocated, *aligned;
  int64_t offset;
  int64_t sizes[2];
  int64_t strides[2];
} tshapeRtMemRef2DF32;
typedef struct {
  float *allocated, *aligned;
  int64_t offset;
  int64_t sizes[3];
  int64_t strides[3];
} tshapeRtMemRef3DF32;
/* C += op(A) . op(B) with op = transpose when the flag is non-zero. */
void _mlir_ciface_tshapeRtMatmulF32(tshapeRtMemRef2DF32 *a,
                                    tshapeRtMemRef2DF32 *b,
                                    tshapeRtMemRef2DF32 *c, int32_t transA,
                                    int32_t transB);
void _mlir_ciface_tshapeRtBatchMatmulF32(tshapeRtMemRef3DF32 *a,
                                         tshapeRtMemRef3DF32 *b,
                                         tshapeRtMemRef3DF32 *c,
                                         int32_t transA, int32_t transB);

#ifdef __cplusplus
}
#endif

#endif /* TSHAPE_RUNTIME_RUNTIME_H */
