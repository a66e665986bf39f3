//===- Helpers.cpp - Shared by the runtime backends -----------------------===//
//
// Deterministic random inputs, dtype rounding and operand sizes, compiled
// into both the runtime and the cuBLASLt backend library.
//
//===----------------------------------------------------------------------===//

#include "Backend.h"

#include <algorithm>
#include <cmath>
#include <cstring>

using namespace tshape::runtime;

float tshape::runtime::roundToDType(float v, tshapeRtDType dtype) {
  auto roundMantissa = [](float x, int keepBits) {
    uint32_t u;
    std::memcpy(&u, &x, 4);
    int drop = 23 - keepBits;
    uint32_t half = 1u << (drop - 1);
    uint32_t lsb = (u >> drop) & 1u;
    u = (u + half - 1 + lsb) & ~((1u << drop) - 1); // round to nearest even
    std::memcpy(&x, &u, 4);
    return x;
  };
  switch (dtype) {
  case TSHAPE_RT_BF16:
    return roundMantissa(v, 7);
  case TSHAPE_RT_TF32:
    return roundMantissa(v, 10);
  case TSHAPE_RT_FP16: {
    // Values here are in [-1, 1): fp16's normal range covers them down to
    // 2^-14; below that, round to the subnormal grid.
    if (std::fabs(v) < 6.103515625e-05f)
      return std::nearbyint(v / 5.960464477539063e-08f) *
             5.960464477539063e-08f;
    return roundMantissa(v, 10);
  }
  case TSHAPE_RT_FP8: {
    // e4m3fn: 3 mantissa bits, max 448, smallest normal 2^-6.
    float a = std::min(std::fabs(v), 448.0f);
    if (a < 0.015625f)
      a = std::nearbyint(a / 0.001953125f) * 0.001953125f;
    else
      a = roundMantissa(a, 3);
    return std::copysign(a, v);
  }
  case TSHAPE_RT_FP32:
    return v;
  }
  return v;
}

void tshape::runtime::fillRandom(float *data, int64_t count, uint64_t seed,
                                 tshapeRtDType dtype) {
  uint64_t s = seed * 6364136223846793005ULL + 1442695040888963407ULL;
  for (int64_t i = 0; i < count; ++i) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    float v = float((s >> 40) & 0xFFFFFF) / float(1 << 23) - 1.0f; // [-1,1)
    v = roundToDType(v, dtype);
    if (v == 0.0f)
      v = roundToDType(0.5f, dtype); // never zero
    data[i] = v;
  }
}

void tshape::runtime::operandSizes(const tshapeRtGemmDesc &d, int64_t &a,
                                   int64_t &b, int64_t &c) {
  a = d.m * d.k;
  b = d.k * d.n;
  c = d.m * d.n;
}

void tshape::runtime::summarizeTimes(std::vector<double> &us,
                                     const tshapeRtGemmDesc &d,
                                     tshapeRtGemmResult &r) {
  std::sort(us.begin(), us.end());
  r.medianUs = us[us.size() / 2];
  r.minUs = us.front();
  r.maxUs = us.back();
  r.iters = int32_t(us.size());
  r.tflops = 2.0 * d.batch * double(d.m) * d.n * d.k / (r.medianUs * 1e-6) /
             1e12;
}

ColumnMajorGemm tshape::runtime::columnMajorGemm(const tshapeRtGemmDesc &d) {
  ColumnMajorGemm g;
  // B is K x N row-major (N x K when transB): column-major N x K (K x N),
  // which is op(X) = B^T with op = N (T when transB). A likewise.
  g.transX = d.transB != 0;
  g.transY = d.transA != 0;
  g.rows = d.n;
  g.cols = d.m;
  g.depth = d.k;
  g.xRows = d.transB ? d.k : d.n;
  g.xCols = d.transB ? d.n : d.k;
  g.yRows = d.transA ? d.m : d.k;
  g.yCols = d.transA ? d.k : d.m;
  g.strideX = d.n * d.k;
  g.strideY = d.k * d.m;
  g.strideD = d.n * d.m;
  return g;
}

int tshape::runtime::rotatingSets(double setBytes, double l2Bytes,
                                  int maxSets) {
  if (setBytes <= 0)
    return 1;
  double sets = std::ceil(2.0 * l2Bytes / setBytes) + 1;
  return int(std::clamp(sets, 1.0, double(std::max(maxSets, 1))));
}

tshapeRtGemmDesc tshape::runtime::tnLayout(const tshapeRtGemmDesc &d) {
  tshapeRtGemmDesc t = d;
  t.transA = 0;
  t.transB = 1;
  return t;
}

namespace {
/// out[b][c][r] = in[b][r][c] for `batch` row-major rows x cols matrices.
void transposeBatched(const float *in, int64_t batch, int64_t rows,
                      int64_t cols, std::vector<float> &out) {
  out.resize(size_t(batch * rows * cols));
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c)
        out[size_t(b * rows * cols + c * rows + r)] =
            in[b * rows * cols + r * cols + c];
}
} // namespace

void tshape::runtime::toTnLayout(const tshapeRtGemmDesc &d, const float *a,
                                 const float *b, std::vector<float> &aOut,
                                 std::vector<float> &bOut) {
  int64_t sa, sb, sc;
  operandSizes(d, sa, sb, sc);
  if (d.transA) // stored K x M
    transposeBatched(a, d.batch, d.k, d.m, aOut);
  else
    aOut.assign(a, a + sa * d.batch);
  if (!d.transB) // stored K x N
    transposeBatched(b, d.batch, d.k, d.n, bOut);
  else
    bOut.assign(b, b + sb * d.batch);
}

double tshape::runtime::checkError(const tshapeRtGemmDesc &d, const float *a,
                                   const float *b, const float *c,
                                   int64_t samples) {
  int64_t sa, sb, sc;
  operandSizes(d, sa, sb, sc);
  auto rms = [](const float *x, int64_t n) {
    double s = 0;
    for (int64_t i = 0; i < n; ++i)
      s += double(x[i]) * x[i];
    return n ? std::sqrt(s / double(n)) : 0.0;
  };
  const double scale = std::sqrt(double(d.k)) * rms(a, sa * d.batch) *
                       rms(b, sb * d.batch);
  int64_t total = sc * d.batch;
  int64_t count = samples <= 0 || samples >= total ? total : samples;
  int64_t stride = std::max<int64_t>(1, total / count);
  double worst = 0;
  for (int64_t idx = 0, taken = 0; idx < total && taken < count;
       idx += stride, ++taken) {
    int64_t p = idx / sc, rest = idx % sc, i = rest / d.n, j = rest % d.n;
    const float *A = a + p * sa, *B = b + p * sb;
    double acc = 0; // fp64 reference
    for (int64_t l = 0; l < d.k; ++l) {
      double x = d.transA ? A[l * d.m + i] : A[i * d.k + l];
      double y = d.transB ? B[j * d.k + l] : B[l * d.n + j];
      acc += x * y;
    }
    worst = std::max(worst, std::fabs(double(c[idx]) - acc));
  }
  return scale > 0 ? worst / scale : worst;
}
