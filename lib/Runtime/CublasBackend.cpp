//===- CublasBackend.cpp - tshape runtime backend on cuBLASLt -------------===//
//
// Built into its own shared library (libtshape_runtime_cublas.so) and loaded
// with dlopen by the runtime only when backend "cublas" is asked for. Row-
// major GEMMs run as the column-major C^T = op(B)^T . op(A)^T. Inputs are
// filled on the host (deterministic random values, never zero), converted
// to the dtype and copied once per rotating set; timing uses CUDA events
// after warm-up. cuBLASLt's heuristic choice (algorithm, tile, wavesCount)
// is reported.
//
//===----------------------------------------------------------------------===//

#include "Backend.h"

#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

using namespace tshape::runtime;

namespace {
struct State {
  cublasLtHandle_t handle = nullptr;
  cudaDeviceProp prop{};
  void *workspace = nullptr;
  size_t workspaceBytes = 32u << 20;
  std::string name;
};

tshapeRtStatus fail(char *err, size_t len, tshapeRtStatus s,
                    const std::string &msg) {
  if (err && len)
    snprintf(err, len, "%s", msg.c_str());
  return s;
}

tshapeRtStatus cudaFail(char *err, size_t len, cudaError_t e,
                        const char *what) {
  tshapeRtStatus s = e == cudaErrorMemoryAllocation ? TSHAPE_RT_OUT_OF_MEMORY
                     : (e == cudaErrorNoDevice ||
                        e == cudaErrorInsufficientDriver)
                         ? TSHAPE_RT_NO_DEVICE
                         : TSHAPE_RT_LIBRARY_ERROR;
  return fail(err, len, s,
              std::string(what) + ": " + cudaGetErrorString(e));
}

size_t elementBytes(tshapeRtDType t) {
  switch (t) {
  case TSHAPE_RT_BF16:
  case TSHAPE_RT_FP16:
    return 2;
  case TSHAPE_RT_FP32:
  case TSHAPE_RT_TF32:
    return 4;
  case TSHAPE_RT_FP8:
    return 1;
  }
  return 4;
}

cudaDataType_t inputType(tshapeRtDType t) {
  switch (t) {
  case TSHAPE_RT_BF16:
    return CUDA_R_16BF;
  case TSHAPE_RT_FP16:
    return CUDA_R_16F;
  case TSHAPE_RT_FP8:
    return CUDA_R_8F_E4M3;
  default:
    return CUDA_R_32F;
  }
}

/// Output type: FP8 GEMMs write bf16; the others their input type.
cudaDataType_t outputType(tshapeRtDType t) {
  return t == TSHAPE_RT_FP8 ? CUDA_R_16BF : inputType(t);
}

size_t outputBytes(tshapeRtDType t) {
  return t == TSHAPE_RT_FP8 ? 2 : elementBytes(t);
}

/// Host floats converted to the device element type.
std::vector<unsigned char> convert(const float *v, size_t n, tshapeRtDType t) {
  std::vector<unsigned char> out(n * elementBytes(t));
  for (size_t i = 0; i < n; ++i) {
    switch (t) {
    case TSHAPE_RT_BF16: {
      __nv_bfloat16 x = __float2bfloat16(v[i]);
      std::memcpy(&out[i * 2], &x, 2);
      break;
    }
    case TSHAPE_RT_FP16: {
      __half x = __float2half(v[i]);
      std::memcpy(&out[i * 2], &x, 2);
      break;
    }
    case TSHAPE_RT_FP8: {
      __nv_fp8_e4m3 x(v[i]);
      std::memcpy(&out[i], &x, 1);
      break;
    }
    default:
      std::memcpy(&out[i * 4], &v[i], 4);
    }
  }
  return out;
}

/// The cuBLASLt descriptors of one GEMM.
struct Plan {
  tshapeRtGemmDesc desc{}; ///< the GEMM as executed (see makePlan)
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t x = nullptr, y = nullptr, c = nullptr;
  cublasLtMatmulHeuristicResult_t heuristic{};
  ~Plan() {
    if (op)
      cublasLtMatmulDescDestroy(op);
    for (auto l : {x, y, c})
      if (l)
        cublasLtMatrixLayoutDestroy(l);
  }
};

/// The tile of cuBLASLt's tile id as rows x columns of its output D, read
/// from the enumerator names of the cublasLt.h this library is built
/// against (CUBLASLT_MATMUL_TILE_128x256 = 23). {0, 0} when unknown.
std::pair<int, int> tileShape(int id) {
  static const int table[][3] = {
#define TSHAPE_CUBLASLT_TILE(ID, ROWS, COLS) {ID, ROWS, COLS},
#include "CublasTiles.inc"
#undef TSHAPE_CUBLASLT_TILE
  };
  for (const auto &t : table)
    if (t[0] == id)
      return {t[1], t[2]};
  return {0, 0};
}

/// Descriptors and cuBLASLt's heuristic choice for `requested`. FP8 GEMMs
/// run in the TN layout cuBLASLt's FP8 kernels require on Hopper and Ada
/// (weights stored N x K, as FP8 training frameworks keep them); p.desc is
/// the layout executed.
tshapeRtStatus makePlan(State *s, const tshapeRtGemmDesc &requested, Plan &p,
                        char *err, size_t len) {
  p.desc = requested.dtype == TSHAPE_RT_FP8 ? tnLayout(requested) : requested;
  const tshapeRtGemmDesc *d = &p.desc;
  ColumnMajorGemm g = columnMajorGemm(*d);
  cublasOperation_t opX = g.transX ? CUBLAS_OP_T : CUBLAS_OP_N;
  cublasOperation_t opY = g.transY ? CUBLAS_OP_T : CUBLAS_OP_N;
  cublasComputeType_t compute = d->dtype == TSHAPE_RT_TF32
                                    ? CUBLAS_COMPUTE_32F_FAST_TF32
                                    : CUBLAS_COMPUTE_32F;
  auto libraryError = [&](const char *what) {
    return fail(err, len, TSHAPE_RT_LIBRARY_ERROR,
                std::string(what) + " failed");
  };
  if (cublasLtMatmulDescCreate(&p.op, compute, CUDA_R_32F) !=
      CUBLAS_STATUS_SUCCESS)
    return libraryError("cublasLtMatmulDescCreate");
  if (cublasLtMatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_TRANSA, &opX,
                                     sizeof(opX)) != CUBLAS_STATUS_SUCCESS ||
      cublasLtMatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_TRANSB, &opY,
                                     sizeof(opY)) != CUBLAS_STATUS_SUCCESS)
    return libraryError("cublasLtMatmulDescSetAttribute");
  cudaDataType_t in = inputType(d->dtype), out = outputType(d->dtype);
  if (cublasLtMatrixLayoutCreate(&p.x, in, g.xRows, g.xCols, g.xRows) !=
          CUBLAS_STATUS_SUCCESS ||
      cublasLtMatrixLayoutCreate(&p.y, in, g.yRows, g.yCols, g.yRows) !=
          CUBLAS_STATUS_SUCCESS ||
      cublasLtMatrixLayoutCreate(&p.c, out, g.rows, g.cols, g.rows) !=
          CUBLAS_STATUS_SUCCESS)
    return libraryError("cublasLtMatrixLayoutCreate");
  if (d->batch > 1) {
    int32_t count = int32_t(d->batch);
    int64_t strides[] = {g.strideX, g.strideY, g.strideD};
    cublasLtMatrixLayout_t layouts[] = {p.x, p.y, p.c};
    for (int i = 0; i < 3; ++i)
      if (cublasLtMatrixLayoutSetAttribute(
              layouts[i], CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count,
              sizeof(count)) != CUBLAS_STATUS_SUCCESS ||
          cublasLtMatrixLayoutSetAttribute(
              layouts[i], CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
              &strides[i], sizeof(strides[i])) != CUBLAS_STATUS_SUCCESS)
        return libraryError("cublasLtMatrixLayoutSetAttribute");
  }
  cublasLtMatmulPreference_t pref;
  if (cublasLtMatmulPreferenceCreate(&pref) != CUBLAS_STATUS_SUCCESS)
    return libraryError("cublasLtMatmulPreferenceCreate");
  cublasLtMatmulPreferenceSetAttribute(pref,
                                       CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                       &s->workspaceBytes,
                                       sizeof(s->workspaceBytes));
  int found = 0;
  cublasStatus_t st = cublasLtMatmulAlgoGetHeuristic(
      s->handle, p.op, p.x, p.y, p.c, p.c, pref, 1, &p.heuristic, &found);
  cublasLtMatmulPreferenceDestroy(pref);
  if (st != CUBLAS_STATUS_SUCCESS || found == 0) {
    bool fp8 = d->dtype == TSHAPE_RT_FP8;
    bool noFp8 = fp8 && s->prop.major * 10 + s->prop.minor < 89;
    std::string why;
    if (noFp8)
      why = " (FP8 GEMMs need compute capability 8.9 or newer; this GPU is " +
            std::to_string(s->prop.major) + "." +
            std::to_string(s->prop.minor) + ")";
    else if (fp8)
      why = " (FP8 needs 16-byte aligned dimensions: K a multiple of 16 and N "
            "of 8; got N=" +
            std::to_string(d->n) + ", K=" + std::to_string(d->k) + ")";
    return fail(err, len,
                noFp8 || st == CUBLAS_STATUS_NOT_SUPPORTED
                    ? TSHAPE_RT_UNSUPPORTED_DTYPE
                    : TSHAPE_RT_LIBRARY_ERROR,
                std::string("cuBLASLt has no algorithm for this GEMM on ") +
                    s->prop.name + why);
  }
  return TSHAPE_RT_OK;
}

const char *name(void *state) { return ((State *)state)->name.c_str(); }

void destroy(void *state) {
  State *s = (State *)state;
  if (s->workspace)
    cudaFree(s->workspace);
  if (s->handle)
    cublasLtDestroy(s->handle);
  delete s;
}

/// Device memory for `sets` copies of A and B, one after the other in one
/// allocation, and one C.
struct Buffers {
  void *pool = nullptr, *c = nullptr;
  size_t aBytes = 0, setBytes = 0;
  int sets = 0;
  void *a(int set) const { return (char *)pool + set * setBytes; }
  void *b(int set) const { return (char *)pool + set * setBytes + aBytes; }
  ~Buffers() {
    if (pool)
      cudaFree(pool);
    if (c)
      cudaFree(c);
  }
};

size_t roundUp256(size_t n) { return (n + 255) / 256 * 256; }

/// Copies the first `have` bytes of `p` over the rest of its `total` bytes,
/// doubling the filled part each time (device to device).
cudaError_t repeatOnDevice(void *p, size_t have, size_t total) {
  cudaError_t e = cudaSuccess;
  while (have < total && e == cudaSuccess) {
    size_t n = std::min(have, total - have);
    e = cudaMemcpy((char *)p + have, p, n, cudaMemcpyDeviceToDevice);
    have += n;
  }
  return e;
}

/// Uploads A and B (host floats, row-major as `d` says) into `sets` copies;
/// when that many do not fit, as many as do (at least one). The host arrays
/// may hold fewer elements than the operands (`a.size()` < batch x M x K):
/// they are then repeated on the device to fill them.
tshapeRtStatus upload(const tshapeRtGemmDesc *d, const std::vector<float> &a,
                      const std::vector<float> &b, int sets, Buffers &buf,
                      char *err, size_t len) {
  int64_t sa, sb, sc;
  operandSizes(*d, sa, sb, sc);
  std::vector<unsigned char> ha = convert(a.data(), a.size(), d->dtype),
                             hb = convert(b.data(), b.size(), d->dtype);
  size_t aBytes = size_t(sa * d->batch) * elementBytes(d->dtype),
         bBytes = size_t(sb * d->batch) * elementBytes(d->dtype);
  buf.aBytes = roundUp256(aBytes);
  buf.setBytes = buf.aBytes + roundUp256(bBytes);
  cudaError_t e = cudaErrorMemoryAllocation;
  for (buf.sets = sets; buf.sets >= 1; buf.sets /= 2) {
    e = cudaMalloc(&buf.pool, buf.setBytes * size_t(buf.sets));
    if (e != cudaErrorMemoryAllocation)
      break;
    cudaGetLastError(); // clear the allocation error, then try fewer
  }
  if (e != cudaSuccess) {
    buf.pool = nullptr;
    return cudaFail(err, len, e, "cudaMalloc of the GEMM operands");
  }
  e = cudaMemcpy(buf.a(0), ha.data(), ha.size(), cudaMemcpyHostToDevice);
  if (e == cudaSuccess)
    e = cudaMemcpy(buf.b(0), hb.data(), hb.size(), cudaMemcpyHostToDevice);
  if (e == cudaSuccess)
    e = repeatOnDevice(buf.a(0), ha.size(), aBytes);
  if (e == cudaSuccess)
    e = repeatOnDevice(buf.b(0), hb.size(), bBytes);
  for (int i = 1; i < buf.sets && e == cudaSuccess; ++i)
    e = cudaMemcpy(buf.a(i), buf.a(0), buf.setBytes,
                   cudaMemcpyDeviceToDevice);
  if (e != cudaSuccess)
    return cudaFail(err, len, e, "copying the GEMM operands to the device");
  e = cudaMalloc(&buf.c, size_t(sc * d->batch) * outputBytes(d->dtype));
  if (e != cudaSuccess) {
    buf.c = nullptr;
    return cudaFail(err, len, e, "cudaMalloc of the GEMM output");
  }
  return TSHAPE_RT_OK;
}

tshapeRtStatus launch(State *s, const Plan &p, void *a, void *b, void *c) {
  float alpha = 1.0f, beta = 0.0f;
  // X = B, Y = A (see makePlan).
  cublasStatus_t st = cublasLtMatmul(
      s->handle, p.op, &alpha, b, p.x, a, p.y, &beta, c, p.c, c, p.c,
      &p.heuristic.algo, s->workspace, s->workspaceBytes, nullptr);
  return st == CUBLAS_STATUS_SUCCESS ? TSHAPE_RT_OK : TSHAPE_RT_LIBRARY_ERROR;
}

tshapeRtStatus timeGemm(void *state, const tshapeRtGemmDesc *desc,
                        tshapeRtGemmResult *r, char *err, size_t len) {
  State *s = (State *)state;
  Plan plan;
  if (tshapeRtStatus st = makePlan(s, *desc, plan, err, len))
    return st;
  const tshapeRtGemmDesc *d = &plan.desc;
  int64_t sa, sb, sc;
  operandSizes(*d, sa, sb, sc);
  // Inputs are random either way, so they are generated in the executed
  // layout directly. Generating every element on the host took about 1 s
  // for a 4096 x 4096 x 16384 bf16 GEMM (on the first H200 run, 2026-11-28:
  // 121 GEMMs in 150 s), far longer than timing it, so at most
  // kRandomBlock elements of each operand are generated and repeated on the
  // device: a period of 2^20 elements is far longer than any tile a kernel
  // reads, and the values stay random and never zero.
  constexpr int64_t kRandomBlock = int64_t(1) << 20;
  std::vector<float> a(size_t(std::min(sa * d->batch, kRandomBlock))),
      b(size_t(std::min(sb * d->batch, kRandomBlock)));
  fillRandom(a.data(), int64_t(a.size()), d->seed, d->dtype);
  fillRandom(b.data(), int64_t(b.size()), d->seed + 1, d->dtype);
  double setBytes = double(sa + sb) * d->batch * elementBytes(d->dtype);
  Buffers buf;
  if (tshapeRtStatus st =
          upload(d, a, b, rotatingSets(setBytes, s->prop.l2CacheSize, 1 << 16),
                 buf, err, len))
    return st;
  int sets = buf.sets;
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  std::vector<double> us;
  for (int i = 0; i < d->warmup + d->iters; ++i) {
    int set = i % sets;
    cudaEventRecord(start);
    tshapeRtStatus st = launch(s, plan, buf.a(set), buf.b(set), buf.c);
    cudaEventRecord(stop);
    if (st != TSHAPE_RT_OK) {
      cudaEventDestroy(start);
      cudaEventDestroy(stop);
      return fail(err, len, st, "cublasLtMatmul failed");
    }
    cudaEventSynchronize(stop);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    if (i >= d->warmup)
      us.push_back(ms * 1000.0);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess)
    return cudaFail(err, len, e, "GEMM launch");
  summarizeTimes(us, *d, *r);
  size_t written = 0;
  int32_t id = -1, tile = -1;
  cublasLtMatmulAlgoConfigGetAttribute(&plan.heuristic.algo,
                                       CUBLASLT_ALGO_CONFIG_ID, &id,
                                       sizeof(id), &written);
  cublasLtMatmulAlgoConfigGetAttribute(&plan.heuristic.algo,
                                       CUBLASLT_ALGO_CONFIG_TILE_ID, &tile,
                                       sizeof(tile), &written);
  r->algoId = id;
  r->tileId = tile;
  // cuBLASLt's tile is rows x columns of its D = C^T, i.e. N x M here.
  auto [rows, cols] = tileShape(tile);
  r->tileM = cols;
  r->tileN = rows;
  r->wavesCount = plan.heuristic.wavesCount;
  return TSHAPE_RT_OK;
}

tshapeRtStatus runGemm(void *state, const tshapeRtGemmDesc *desc,
                       const float *a, const float *b, float *c, char *err,
                       size_t len) {
  State *s = (State *)state;
  Plan plan;
  if (tshapeRtStatus st = makePlan(s, *desc, plan, err, len))
    return st;
  const tshapeRtGemmDesc *d = &plan.desc;
  int64_t sa, sb, sc;
  operandSizes(*d, sa, sb, sc);
  std::vector<float> at, bt;
  if (d->transA != desc->transA || d->transB != desc->transB) {
    toTnLayout(*desc, a, b, at, bt);
  } else {
    at.assign(a, a + sa * d->batch);
    bt.assign(b, b + sb * d->batch);
  }
  Buffers buf;
  if (tshapeRtStatus st = upload(d, at, bt, 1, buf, err, len))
    return st;
  if (launch(s, plan, buf.a(0), buf.b(0), buf.c) != TSHAPE_RT_OK)
    return fail(err, len, TSHAPE_RT_LIBRARY_ERROR, "cublasLtMatmul failed");
  size_t n = size_t(sc * d->batch);
  std::vector<unsigned char> host(n * outputBytes(d->dtype));
  cudaError_t e =
      cudaMemcpy(host.data(), buf.c, host.size(), cudaMemcpyDeviceToHost);
  if (e != cudaSuccess)
    return cudaFail(err, len, e, "copying the GEMM output back");
  for (size_t i = 0; i < n; ++i) {
    switch (outputType(d->dtype)) {
    case CUDA_R_16BF: {
      __nv_bfloat16 x;
      std::memcpy(&x, &host[i * 2], 2);
      c[i] = __bfloat162float(x);
      break;
    }
    case CUDA_R_16F: {
      __half x;
      std::memcpy(&x, &host[i * 2], 2);
      c[i] = __half2float(x);
      break;
    }
    default:
      std::memcpy(&c[i], &host[i * 4], 4);
    }
  }
  return TSHAPE_RT_OK;
}
} // namespace

extern "C" __attribute__((visibility("default"))) tshapeRtStatus
tshapeRtCublasBackendCreate(tshapeRtBackend *out, char *err, size_t len) {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  // Without a driver CUDA says cudaErrorInsufficientDriver, not NoDevice.
  if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver ||
      (e == cudaSuccess && count == 0))
    return fail(err, len, TSHAPE_RT_NO_DEVICE,
                std::string("no CUDA device: ") +
                    (e == cudaSuccess ? "0 devices"
                                      : cudaGetErrorString(e)));
  if (e != cudaSuccess)
    return cudaFail(err, len, e, "cudaGetDeviceCount");
  State *s = new State();
  cudaGetDeviceProperties(&s->prop, 0);
  s->name = s->prop.name;
  if (cublasLtCreate(&s->handle) != CUBLAS_STATUS_SUCCESS) {
    destroy(s);
    return fail(err, len, TSHAPE_RT_LIBRARY_ERROR, "cublasLtCreate failed");
  }
  e = cudaMalloc(&s->workspace, s->workspaceBytes);
  if (e != cudaSuccess) {
    destroy(s);
    return cudaFail(err, len, e, "cudaMalloc of the cuBLASLt workspace");
  }
  *out = {s, name, timeGemm, runGemm, destroy};
  return TSHAPE_RT_OK;
}
