//===- FakeBackend.cpp - A GPU backend that fails on request --------------===//
//
// libtshape_runtime_fake.so exports the same entry point as the cuBLASLt
// backend (tshapeRtCublasBackendCreate), so that the runtime's GPU error
// paths run on a machine without a GPU. TSHAPE_FAKE_BACKEND chooses the
// failure:
//   no-device   creating the backend fails: no device
//   oom:N       the N-th buffer allocation (from 1) fails: out of memory
//   kernel      every GEMM launch fails: a library error
//   (unset)     a working backend that computes on the CPU
// Every buffer is counted; on destroy, with TSHAPE_FAKE_BACKEND_REPORT=1,
// the backend prints how many it allocated and freed, so a test can show
// that an error path leaks nothing. Test-only: not installed.
//
//===----------------------------------------------------------------------===//

#include "Backend.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {
struct Fake {
  std::string mode;
  long failAt = 0;        ///< oom:N
  long allocations = 0, frees = 0;
};

void say(char *err, size_t len, const char *msg) {
  std::snprintf(err, len, "%s", msg);
}

/// An allocation that fails as the mode says; counted.
float *allocate(Fake *f, size_t n, char *err, size_t len) {
  ++f->allocations;
  if (f->failAt && f->allocations == f->failAt) {
    --f->allocations; // nothing was allocated
    char buf[128];
    std::snprintf(buf, sizeof(buf),
                  "fake backend: out of memory at allocation %ld", f->failAt);
    say(err, len, buf);
    return nullptr;
  }
  return static_cast<float *>(std::calloc(n ? n : 1, sizeof(float)));
}

void release(Fake *f, float *p) {
  if (p) {
    ++f->frees;
    std::free(p);
  }
}

const char *fakeName(void *) { return "fake GPU (test backend)"; }

tshapeRtStatus gemm(Fake *f, const tshapeRtGemmDesc *d, const float *a,
                    const float *b, float *c, char *err, size_t len) {
  // Device buffers for A, B and C, as a GPU backend would allocate.
  int64_t sa, sb, sc;
  tshape::runtime::operandSizes(*d, sa, sb, sc);
  float *da = allocate(f, size_t(sa * d->batch), err, len);
  float *db = da ? allocate(f, size_t(sb * d->batch), err, len) : nullptr;
  float *dc = db ? allocate(f, size_t(sc * d->batch), err, len) : nullptr;
  tshapeRtStatus s = TSHAPE_RT_OK;
  if (!dc) {
    s = TSHAPE_RT_OUT_OF_MEMORY;
  } else if (f->mode == "kernel") {
    say(err, len, "fake backend: the GEMM kernel failed to launch");
    s = TSHAPE_RT_LIBRARY_ERROR;
  } else if (a && b && c) {
    for (int64_t p = 0; p < d->batch; ++p)
      for (int64_t i = 0; i < d->m; ++i)
        for (int64_t j = 0; j < d->n; ++j) {
          float acc = 0;
          for (int64_t l = 0; l < d->k; ++l)
            acc += (d->transA ? a[p * sa + l * d->m + i]
                              : a[p * sa + i * d->k + l]) *
                   (d->transB ? b[p * sb + j * d->k + l]
                              : b[p * sb + l * d->n + j]);
          c[p * sc + i * d->n + j] = acc;
        }
  }
  release(f, dc);
  release(f, db);
  release(f, da);
  return s;
}

tshapeRtStatus fakeTime(void *state, const tshapeRtGemmDesc *d,
                        tshapeRtGemmResult *r, char *err, size_t len) {
  auto *f = static_cast<Fake *>(state);
  for (int i = 0; i < d->warmup + d->iters; ++i)
    if (tshapeRtStatus s = gemm(f, d, nullptr, nullptr, nullptr, err, len))
      return s;
  std::vector<double> us(size_t(d->iters), 1.0);
  tshape::runtime::summarizeTimes(us, *d, *r);
  r->algoId = r->tileId = -1;
  return TSHAPE_RT_OK;
}

tshapeRtStatus fakeRun(void *state, const tshapeRtGemmDesc *d, const float *a,
                       const float *b, float *c, char *err, size_t len) {
  return gemm(static_cast<Fake *>(state), d, a, b, c, err, len);
}

void fakeDestroy(void *state) {
  auto *f = static_cast<Fake *>(state);
  if (const char *r = std::getenv("TSHAPE_FAKE_BACKEND_REPORT"); r && *r == '1')
    std::fprintf(stderr, "fake backend: %ld allocations, %ld freed\n",
                 f->allocations, f->frees);
  delete f;
}
} // namespace

extern "C" __attribute__((visibility("default"))) tshapeRtStatus
tshapeRtCublasBackendCreate(tshapeRtBackend *out, char *err, size_t len) {
  const char *env = std::getenv("TSHAPE_FAKE_BACKEND");
  std::string mode = env ? env : "";
  if (mode == "no-device") {
    say(err, len, "fake backend: no CUDA device (cudaGetDeviceCount = 0)");
    return TSHAPE_RT_NO_DEVICE;
  }
  auto *f = new Fake();
  f->mode = mode;
  if (mode.rfind("oom:", 0) == 0)
    f->failAt = std::atol(mode.c_str() + 4);
  *out = {f, fakeName, fakeTime, fakeRun, fakeDestroy};
  return TSHAPE_RT_OK;
}
