//===- Runtime.cpp - tshape GEMM runtime: C ABI, CPU backend, loader ------===//
//
// The C ABI of Runtime.h, the CPU reference backend, and the on-demand
// loading of the cuBLASLt backend library.
//
//===----------------------------------------------------------------------===//

#include "Backend.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <new>
#include <string>
#include <vector>

using namespace tshape::runtime;

struct tshapeRtContext {
  tshapeRtBackend backend{};
  void *library = nullptr;
  std::string error;
  std::string device;
};

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

namespace {
tshapeRtStatus fail(char *err, size_t len, tshapeRtStatus s, const char *msg) {
  if (err && len)
    snprintf(err, len, "%s", msg);
  return s;
}

bool validDesc(const tshapeRtGemmDesc *d) {
  return d && d->batch > 0 && d->m > 0 && d->n > 0 && d->k > 0 &&
         d->iters > 0 && d->warmup >= 0 && d->dtype >= TSHAPE_RT_BF16 &&
         d->dtype <= TSHAPE_RT_FP8;
}

/// C (batch x M x N) = op(A) . op(B), float accumulation.
void referenceGemm(const tshapeRtGemmDesc &d, const float *a, const float *b,
                   float *c) {
  int64_t sa, sb, sc;
  operandSizes(d, sa, sb, sc);
  for (int64_t p = 0; p < d.batch; ++p) {
    const float *A = a + p * sa, *B = b + p * sb;
    float *C = c + p * sc;
    for (int64_t i = 0; i < d.m; ++i)
      for (int64_t j = 0; j < d.n; ++j) {
        float acc = 0;
        for (int64_t l = 0; l < d.k; ++l) {
          float x = d.transA ? A[l * d.m + i] : A[i * d.k + l];
          float y = d.transB ? B[j * d.k + l] : B[l * d.n + j];
          acc += x * y;
        }
        C[i * d.n + j] = acc;
      }
  }
}

// The CPU backend.
const char *cpuName(void *) { return "CPU reference (single thread)"; }

tshapeRtStatus cpuRun(void *, const tshapeRtGemmDesc *d, const float *a,
                      const float *b, float *c, char *, size_t) {
  referenceGemm(*d, a, b, c);
  return TSHAPE_RT_OK;
}

tshapeRtStatus cpuTime(void *, const tshapeRtGemmDesc *d,
                       tshapeRtGemmResult *r, char *err, size_t len) {
  int64_t sa, sb, sc;
  operandSizes(*d, sa, sb, sc);
  // Two rotating input sets.
  const int sets = 2;
  std::vector<float> a, b, c;
  try {
    a.resize(size_t(sets * sa * d->batch));
    b.resize(size_t(sets * sb * d->batch));
    c.resize(size_t(sc * d->batch));
  } catch (const std::bad_alloc &) {
    return fail(err, len, TSHAPE_RT_OUT_OF_MEMORY,
                "cpu backend: cannot allocate the operands");
  }
  fillRandom(a.data(), int64_t(a.size()), d->seed, d->dtype);
  fillRandom(b.data(), int64_t(b.size()), d->seed + 1, d->dtype);
  std::vector<double> us;
  for (int i = 0; i < d->warmup + d->iters; ++i) {
    int set = i % sets;
    auto t0 = std::chrono::steady_clock::now();
    referenceGemm(*d, a.data() + set * sa * d->batch,
                  b.data() + set * sb * d->batch, c.data());
    auto t1 = std::chrono::steady_clock::now();
    if (i >= d->warmup)
      us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
  }
  summarizeTimes(us, *d, *r);
  r->algoId = -1;
  r->tileId = -1;
  r->wavesCount = 0;
  r->tileM = r->tileN = 0;
  return TSHAPE_RT_OK;
}
} // namespace

//===----------------------------------------------------------------------===//
// C ABI
//===----------------------------------------------------------------------===//

extern "C" {

const char *tshapeRtStatusString(tshapeRtStatus s) {
  switch (s) {
  case TSHAPE_RT_OK:
    return "ok";
  case TSHAPE_RT_INVALID_ARGUMENT:
    return "invalid argument";
  case TSHAPE_RT_NO_DEVICE:
    return "no device";
  case TSHAPE_RT_OUT_OF_MEMORY:
    return "out of memory";
  case TSHAPE_RT_UNSUPPORTED_DTYPE:
    return "unsupported dtype";
  case TSHAPE_RT_BACKEND_UNAVAILABLE:
    return "backend unavailable";
  case TSHAPE_RT_LIBRARY_ERROR:
    return "library error";
  }
  return "unknown status";
}

double tshapeRtCheckTolerance(tshapeRtDType dtype, int64_t k) {
  // In units of the typical output magnitude sqrt(K) rms(A) rms(B) (the
  // check's error, Runtime.h). Inputs are exact in the dtype and their
  // products exact in fp32, so two roundings remain:
  //  - storing C: at most u_out |c|, and |c| stays under 8 typical
  //    magnitudes for these inputs: 8 u_out;
  //  - fp32 accumulation, in any order and even truncating:
  //    |err| <= u_acc sum_i |s_i| over the partial sums s_i, which stay
  //    under 2 typical magnitudes on average: 2 K u_acc, u_acc = 2^-23.
  double uOut;
  switch (dtype) {
  case TSHAPE_RT_FP32:
  case TSHAPE_RT_TF32:
    uOut = std::ldexp(1.0, -24);
    break;
  case TSHAPE_RT_FP16:
    uOut = std::ldexp(1.0, -11);
    break;
  case TSHAPE_RT_BF16:
  case TSHAPE_RT_FP8: // fp8 GEMMs write bf16
  default:
    uOut = std::ldexp(1.0, -8);
    break;
  }
  const double uAcc = std::ldexp(1.0, -23);
  return 8 * uOut + 2 * double(std::max<int64_t>(k, 1)) * uAcc;
}

tshapeRtStatus tshapeRtCreate(const char *backend, const char *backendLibrary,
                              tshapeRtContext **out) {
  if (!out)
    return TSHAPE_RT_INVALID_ARGUMENT;
  auto *ctx = new (std::nothrow) tshapeRtContext();
  *out = ctx;
  if (!ctx)
    return TSHAPE_RT_OUT_OF_MEMORY;
  std::string name = backend ? backend : "";
  if (name == "cpu") {
    ctx->backend = {nullptr, cpuName, cpuTime, cpuRun, nullptr};
    ctx->device = cpuName(nullptr);
    return TSHAPE_RT_OK;
  }
  if (name != "cublas") {
    ctx->error = "unknown backend '" + name + "' (expected cpu or cublas)";
    return TSHAPE_RT_INVALID_ARGUMENT;
  }
  std::string path;
  if (backendLibrary && *backendLibrary) {
    path = backendLibrary;
  } else {
    // Next to this library.
    Dl_info info;
    if (dladdr((void *)&tshapeRtCreate, &info) && info.dli_fname) {
      path = info.dli_fname;
      size_t slash = path.rfind('/');
      path = (slash == std::string::npos ? "" : path.substr(0, slash + 1)) +
             "libtshape_runtime_cublas.so";
    } else {
      path = "libtshape_runtime_cublas.so";
    }
  }
  ctx->library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!ctx->library) {
    const char *why = dlerror();
    ctx->error = "cannot load the cuBLAS backend '" + path + "': " +
                 (why ? why : "unknown error") +
                 " (was tshape built with CUDA?)";
    return TSHAPE_RT_BACKEND_UNAVAILABLE;
  }
  auto create = (tshapeRtBackendCreateFn)dlsym(ctx->library,
                                               "tshapeRtCublasBackendCreate");
  if (!create) {
    ctx->error = path + " does not export tshapeRtCublasBackendCreate";
    return TSHAPE_RT_BACKEND_UNAVAILABLE;
  }
  char err[512] = {0};
  tshapeRtStatus s = create(&ctx->backend, err, sizeof(err));
  if (s != TSHAPE_RT_OK) {
    ctx->error = err;
    ctx->backend = {};
    return s;
  }
  ctx->device = ctx->backend.name(ctx->backend.state);
  return TSHAPE_RT_OK;
}

void tshapeRtDestroy(tshapeRtContext *ctx) {
  if (!ctx)
    return;
  if (ctx->backend.destroy)
    ctx->backend.destroy(ctx->backend.state);
  if (ctx->library)
    dlclose(ctx->library);
  delete ctx;
}

const char *tshapeRtLastError(const tshapeRtContext *ctx) {
  return ctx ? ctx->error.c_str() : "no context";
}

const char *tshapeRtDeviceName(const tshapeRtContext *ctx) {
  return ctx ? ctx->device.c_str() : "";
}

tshapeRtStatus tshapeRtTimeGemm(tshapeRtContext *ctx,
                                const tshapeRtGemmDesc *desc,
                                tshapeRtGemmResult *result) {
  if (!ctx || !ctx->backend.time)
    return TSHAPE_RT_BACKEND_UNAVAILABLE;
  if (!validDesc(desc) || !result) {
    ctx->error = "invalid GEMM description (sizes and iters must be "
                 "positive, warmup >= 0, dtype known)";
    return TSHAPE_RT_INVALID_ARGUMENT;
  }
  char err[512] = {0};
  tshapeRtStatus s =
      ctx->backend.time(ctx->backend.state, desc, result, err, sizeof(err));
  if (s != TSHAPE_RT_OK)
    ctx->error = err;
  return s;
}

tshapeRtStatus tshapeRtCheckGemm(tshapeRtContext *ctx,
                                 const tshapeRtGemmDesc *desc,
                                 int64_t samples, double *maxRelError) {
  if (!ctx || !ctx->backend.run)
    return TSHAPE_RT_BACKEND_UNAVAILABLE;
  if (!validDesc(desc) || !maxRelError) {
    ctx->error = "invalid GEMM description";
    return TSHAPE_RT_INVALID_ARGUMENT;
  }
  int64_t sa, sb, sc;
  operandSizes(*desc, sa, sb, sc);
  std::vector<float> a, b, c;
  try {
    a.resize(size_t(sa * desc->batch));
    b.resize(size_t(sb * desc->batch));
    c.resize(size_t(sc * desc->batch));
  } catch (const std::bad_alloc &) {
    ctx->error = "cannot allocate the check's host buffers";
    return TSHAPE_RT_OUT_OF_MEMORY;
  }
  fillRandom(a.data(), int64_t(a.size()), desc->seed, desc->dtype);
  fillRandom(b.data(), int64_t(b.size()), desc->seed + 1, desc->dtype);
  char err[512] = {0};
  tshapeRtStatus s = ctx->backend.run(ctx->backend.state, desc, a.data(),
                                      b.data(), c.data(), err, sizeof(err));
  if (s != TSHAPE_RT_OK) {
    ctx->error = err;
    return s;
  }
  double worst =
      tshape::runtime::checkError(*desc, a.data(), b.data(), c.data(), samples);
  *maxRelError = worst;
  return TSHAPE_RT_OK;
}

//===----------------------------------------------------------------------===//
// Compiled-MLIR entry points
//===----------------------------------------------------------------------===//

void _mlir_ciface_tshapeRtMatmulF32(tshapeRtMemRef2DF32 *a,
                                    tshapeRtMemRef2DF32 *b,
                                    tshapeRtMemRef2DF32 *c, int32_t transA,
                                    int32_t transB) {
  int64_t m = c->sizes[0], n = c->sizes[1];
  int64_t k = transA ? a->sizes[0] : a->sizes[1];
  const float *A = a->aligned + a->offset, *B = b->aligned + b->offset;
  float *C = c->aligned + c->offset;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float acc = C[i * c->strides[0] + j * c->strides[1]];
      for (int64_t l = 0; l < k; ++l) {
        float x = transA ? A[l * a->strides[0] + i * a->strides[1]]
                         : A[i * a->strides[0] + l * a->strides[1]];
        float y = transB ? B[j * b->strides[0] + l * b->strides[1]]
                         : B[l * b->strides[0] + j * b->strides[1]];
        acc += x * y;
      }
      C[i * c->strides[0] + j * c->strides[1]] = acc;
    }
}

void _mlir_ciface_tshapeRtBatchMatmulF32(tshapeRtMemRef3DF32 *a,
                                         tshapeRtMemRef3DF32 *b,
                                         tshapeRtMemRef3DF32 *c,
                                         int32_t transA, int32_t transB) {
  for (int64_t p = 0; p < c->sizes[0]; ++p) {
    tshapeRtMemRef2DF32 a2{a->allocated, a->aligned,
                           a->offset + p * a->strides[0],
                           {a->sizes[1], a->sizes[2]},
                           {a->strides[1], a->strides[2]}};
    tshapeRtMemRef2DF32 b2{b->allocated, b->aligned,
                           b->offset + p * b->strides[0],
                           {b->sizes[1], b->sizes[2]},
                           {b->strides[1], b->strides[2]}};
    tshapeRtMemRef2DF32 c2{c->allocated, c->aligned,
                           c->offset + p * c->strides[0],
                           {c->sizes[1], c->sizes[2]},
                           {c->strides[1], c->strides[2]}};
    _mlir_ciface_tshapeRtMatmulF32(&a2, &b2, &c2, transA, transB);
  }
}

} // extern "C"
