//===- RuntimeTest.cpp - Unit tests of the tshape runtime C ABI -----------===//
//
// The CPU backend end to end through the C ABI, the dtype rounding, and the
// error paths (statuses and messages, never a crash).
//
//===----------------------------------------------------------------------===//

#include "Backend.h"
#include "tshape/Runtime/Runtime.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

using namespace tshape::runtime;

namespace {
tshapeRtGemmDesc desc(int64_t batch, int64_t m, int64_t n, int64_t k,
                      tshapeRtDType t, int transA = 0, int transB = 0) {
  return {batch, m, n, k, t, transA, transB, /*warmup=*/1, /*iters=*/3,
          /*seed=*/42};
}
} // namespace

TEST(Runtime, CpuTimesAndChecks) {
  tshapeRtContext *ctx = nullptr;
  ASSERT_EQ(tshapeRtCreate("cpu", nullptr, &ctx), TSHAPE_RT_OK);
  EXPECT_STREQ(tshapeRtDeviceName(ctx), "CPU reference (single thread)");
  tshapeRtGemmDesc d = desc(2, 33, 17, 45, TSHAPE_RT_FP32, 1, 1);
  tshapeRtGemmResult r{};
  ASSERT_EQ(tshapeRtTimeGemm(ctx, &d, &r), TSHAPE_RT_OK);
  EXPECT_GT(r.medianUs, 0);
  EXPECT_LE(r.minUs, r.medianUs);
  EXPECT_LE(r.medianUs, r.maxUs);
  EXPECT_EQ(r.iters, 3);
  // TFLOP/s = 2 * 2 * 33 * 17 * 45 / median.
  EXPECT_NEAR(r.tflops, 2.0 * 2 * 33 * 17 * 45 / (r.medianUs * 1e-6) / 1e12,
              1e-12);
  // The CPU backend accumulates in float; the check's error is in units of
  // the typical output magnitude sqrt(K) rms(A) rms(B), and float
  // accumulation keeps it under 2 K 2^-23 = 1.1e-5 here (K = 45).
  double err = 1;
  ASSERT_EQ(tshapeRtCheckGemm(ctx, &d, 0, &err), TSHAPE_RT_OK);
  EXPECT_LT(err, tshapeRtCheckTolerance(TSHAPE_RT_FP32, 45));
  EXPECT_GT(err, 0); // float accumulation is not exact: the check is real
  for (tshapeRtDType t : {TSHAPE_RT_BF16, TSHAPE_RT_FP16, TSHAPE_RT_TF32,
                          TSHAPE_RT_FP8}) {
    tshapeRtGemmDesc dt = desc(1, 16, 24, 32, t);
    ASSERT_EQ(tshapeRtCheckGemm(ctx, &dt, 64, &err), TSHAPE_RT_OK);
    EXPECT_LT(err, 1e-4) << t;
  }
  tshapeRtDestroy(ctx);
}

TEST(Runtime, ErrorsAreStatusesWithMessages) {
  tshapeRtContext *ctx = nullptr;
  EXPECT_EQ(tshapeRtCreate("tpu", nullptr, &ctx), TSHAPE_RT_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(tshapeRtLastError(ctx)),
            "unknown backend 'tpu' (expected cpu or cublas)");
  tshapeRtDestroy(ctx);

  // No GPU here (or no backend library): a status, not a crash.
  ctx = nullptr;
  tshapeRtStatus s = tshapeRtCreate("cublas", "/nonexistent/libx.so", &ctx);
  EXPECT_EQ(s, TSHAPE_RT_BACKEND_UNAVAILABLE);
  EXPECT_NE(std::string(tshapeRtLastError(ctx)).find("cannot load"),
            std::string::npos);
  tshapeRtDestroy(ctx);

  ASSERT_EQ(tshapeRtCreate("cpu", nullptr, &ctx), TSHAPE_RT_OK);
  tshapeRtGemmDesc bad = desc(1, 0, 8, 8, TSHAPE_RT_FP32);
  tshapeRtGemmResult r{};
  EXPECT_EQ(tshapeRtTimeGemm(ctx, &bad, &r), TSHAPE_RT_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tshapeRtLastError(ctx)).find("invalid GEMM"),
            std::string::npos);
  bad = desc(1, 8, 8, 8, TSHAPE_RT_FP32);
  bad.iters = 0;
  EXPECT_EQ(tshapeRtTimeGemm(ctx, &bad, &r), TSHAPE_RT_INVALID_ARGUMENT);
  EXPECT_EQ(tshapeRtCheckGemm(ctx, &bad, 1, nullptr),
            TSHAPE_RT_INVALID_ARGUMENT);
  EXPECT_STREQ(tshapeRtStatusString(TSHAPE_RT_NO_DEVICE), "no device");
  tshapeRtDestroy(ctx);
  tshapeRtDestroy(nullptr); // harmless
}

TEST(Runtime, CompiledEntryPointHonoursStridesAndTransposes) {
  // C (2 x 3) += A^T . B with A stored 4 x 2 (K x M), B 4 x 3 (K x N).
  float a[8] = {1, 2, 3, 4, 5, 6, 7, 8}; // A^T rows: [1 3 5 7], [2 4 6 8]
  float b[12] = {1, 0, 2, 0, 1, 0, 1, 1, 1, 2, 0, 3};
  float c[6] = {0.5f, 0, 0, 0, 0, 0};
  tshapeRtMemRef2DF32 A{a, a, 0, {4, 2}, {2, 1}};
  tshapeRtMemRef2DF32 B{b, b, 0, {4, 3}, {3, 1}};
  tshapeRtMemRef2DF32 C{c, c, 0, {2, 3}, {3, 1}};
  _mlir_ciface_tshapeRtMatmulF32(&A, &B, &C, 1, 0);
  // Row 0 of A^T = [1 3 5 7]; column 0 of B = [1 0 1 2]: 1 + 5 + 14 = 20,
  // plus the 0.5 already in C. Column 2 = [2 0 1 3]: 2 + 5 + 21 = 28.
  EXPECT_FLOAT_EQ(c[0], 20.5f);
  EXPECT_FLOAT_EQ(c[2], 28.0f);
  // Row 1 = [2 4 6 8] . column 1 [0 1 1 0] = 10.
  EXPECT_FLOAT_EQ(c[4], 10.0f);
}

namespace {
/// BLAS's column-major GEMM as the cuBLAS documentation defines it, batched:
/// D = op(X) . op(Y), D rows x cols, X stored xRows x xCols with leading
/// dimension xRows (op(X) = X^T when transX), Y likewise, batch i at
/// offset i x stride. What cublasLtMatmul computes for the descriptors the
/// cuBLASLt backend builds from a ColumnMajorGemm.
std::vector<double> blasColumnMajor(const ColumnMajorGemm &g, int64_t batch,
                                    const float *x, const float *y) {
  std::vector<double> d(size_t(batch * g.strideD));
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t i = 0; i < g.rows; ++i)
      for (int64_t j = 0; j < g.cols; ++j) {
        double sum = 0;
        for (int64_t l = 0; l < g.depth; ++l) {
          double xv = g.transX ? x[b * g.strideX + l + i * g.xRows]
                               : x[b * g.strideX + i + l * g.xRows];
          double yv = g.transY ? y[b * g.strideY + j + l * g.yRows]
                               : y[b * g.strideY + l + j * g.yRows];
          sum += xv * yv;
        }
        d[size_t(b * g.strideD + i + j * g.rows)] = sum;
      }
  return d;
}

/// The row-major GEMM the runtime's desc means (Runtime.h), batched.
std::vector<double> rowMajor(const tshapeRtGemmDesc &d, const float *a,
                             const float *b) {
  std::vector<double> c(size_t(d.batch * d.m * d.n));
  for (int64_t p = 0; p < d.batch; ++p)
    for (int64_t i = 0; i < d.m; ++i)
      for (int64_t j = 0; j < d.n; ++j) {
        double sum = 0;
        for (int64_t l = 0; l < d.k; ++l) {
          const float *pa = a + p * d.m * d.k, *pb = b + p * d.k * d.n;
          sum += double(d.transA ? pa[l * d.m + i] : pa[i * d.k + l]) *
                 (d.transB ? pb[j * d.k + l] : pb[l * d.n + j]);
        }
        c[size_t(p * d.m * d.n + i * d.n + j)] = sum;
      }
  return c;
}
} // namespace

// The cuBLASLt backend hands cuBLASLt X = the B buffer and Y = the A buffer
// with the shapes, transposes and batch strides of columnMajorGemm. Feeding
// those to the documented column-major semantics must give the row-major
// product in row-major order, for every transpose combination, non-square
// M != N != K and batches (a swapped M/N or stride would show here, where
// square shapes would hide it).
TEST(Runtime, ColumnMajorMappingComputesTheRowMajorGemm) {
  for (int transA : {0, 1})
    for (int transB : {0, 1}) {
      tshapeRtGemmDesc d = desc(3, 5, 7, 4, TSHAPE_RT_FP32, transA, transB);
      std::vector<float> a(3 * 5 * 4), b(3 * 4 * 7);
      fillRandom(a.data(), int64_t(a.size()), 1, TSHAPE_RT_FP32);
      fillRandom(b.data(), int64_t(b.size()), 2, TSHAPE_RT_FP32);
      ColumnMajorGemm g = columnMajorGemm(d);
      EXPECT_EQ(g.rows, 7);
      EXPECT_EQ(g.cols, 5);
      std::vector<double> got = blasColumnMajor(g, 3, b.data(), a.data());
      std::vector<double> want = rowMajor(d, a.data(), b.data());
      ASSERT_EQ(got.size(), want.size());
      for (size_t i = 0; i < got.size(); ++i)
        ASSERT_NEAR(got[i], want[i], 1e-12)
            << "transA=" << transA << " transB=" << transB << " at " << i;
    }
}

// FP8 runs in the TN layout (transA = 0, transB = 1): the operands
// rearranged by toTnLayout give the same product in every original layout.
TEST(Runtime, TnLayoutKeepsTheProduct) {
  for (int transA : {0, 1})
    for (int transB : {0, 1}) {
      tshapeRtGemmDesc d = desc(2, 3, 5, 4, TSHAPE_RT_FP8, transA, transB);
      std::vector<float> a(2 * 3 * 4), b(2 * 4 * 5), at, bt;
      fillRandom(a.data(), int64_t(a.size()), 3, TSHAPE_RT_FP8);
      fillRandom(b.data(), int64_t(b.size()), 4, TSHAPE_RT_FP8);
      tshapeRtGemmDesc tn = tnLayout(d);
      EXPECT_EQ(tn.transA, 0);
      EXPECT_EQ(tn.transB, 1);
      toTnLayout(d, a.data(), b.data(), at, bt);
      EXPECT_EQ(rowMajor(tn, at.data(), bt.data()),
                rowMajor(d, a.data(), b.data()));
      // And the mapping hands cuBLASLt the TN form: op(X) = T, op(Y) = N.
      ColumnMajorGemm g = columnMajorGemm(tn);
      EXPECT_TRUE(g.transX);
      EXPECT_FALSE(g.transY);
    }
}

TEST(Runtime, RotatingSetsOutgrowTheL2) {
  // H100 SXM: 50 MiB L2 = 52428800 B. A 4096^3 bf16 GEMM has A + B =
  // 2 x 4096 x 4096 x 2 B = 64 MiB per set: ceil(100 / 64) + 1 = 3 sets,
  // so the 2 sets not in use hold 128 MiB >= 2 x 50 MiB.
  EXPECT_EQ(rotatingSets(64.0 * 1048576, 52428800, 1 << 16), 3);
  // 64^3 bf16: 16 KiB per set, ceil(100 MiB / 16 KiB) + 1 = 6401 sets.
  EXPECT_EQ(rotatingSets(16384, 52428800, 1 << 16), 6401);
  EXPECT_EQ(rotatingSets(16384, 52428800, 100), 100);
  // A set larger than twice the L2 still gets a second copy to alternate
  // with: ceil(100 / 300) + 1 = 2.
  EXPECT_EQ(rotatingSets(300.0 * 1048576, 52428800, 1 << 16), 2);
  EXPECT_EQ(rotatingSets(0, 52428800, 16), 1);
}

#ifdef TSHAPE_HAVE_CUBLAS_TILES
// The tile table is generated from cublasLt.h; spot-check it against the
// enumerators (the header says CUBLASLT_MATMUL_TILE_128x128 = 20,
// CUBLASLT_MATMUL_TILE_128x256 = 23, CUBLASLT_MATMUL_TILE_8x8 = 1) and that
// every id appears once.
TEST(Runtime, CublasTileTableFollowsTheHeader) {
  struct Tile {
    int id, rows, cols;
  };
  const std::vector<Tile> tiles = {
#define TSHAPE_CUBLASLT_TILE(ID, ROWS, COLS) {ID, ROWS, COLS},
#include "CublasTiles.inc"
#undef TSHAPE_CUBLASLT_TILE
  };
  ASSERT_GT(tiles.size(), 30u);
  auto find = [&](int id) {
    int found = 0;
    Tile hit{-1, 0, 0};
    for (const Tile &t : tiles)
      if (t.id == id) {
        hit = t;
        ++found;
      }
    EXPECT_EQ(found, 1) << id;
    return hit;
  };
  EXPECT_EQ(find(1).rows, 8);
  EXPECT_EQ(find(20).rows, 128);
  EXPECT_EQ(find(20).cols, 128);
  EXPECT_EQ(find(23).rows, 128);
  EXPECT_EQ(find(23).cols, 256);
  for (const Tile &t : tiles)
    find(t.id);
}
#endif

TEST(Runtime, CheckRejectsAnErrorJustAboveTheTolerance) {
  // One GEMM (2 x 8 x 5 x 4096, A and B transposed): inputs exact in bf16,
  // C computed in double and stored as float (the best a backend can do).
  // An error of 1.01 x the tolerance (in units of the typical output
  // magnitude sqrt(K) rms(A) rms(B)) in one element is rejected; one of
  // 0.5 x is accepted.
  tshapeRtGemmDesc d = desc(2, 8, 5, 4096, TSHAPE_RT_BF16, 1, 1);
  int64_t sa, sb, sc;
  tshape::runtime::operandSizes(d, sa, sb, sc);
  std::vector<float> a(sa * d.batch), b(sb * d.batch), c(sc * d.batch);
  tshape::runtime::fillRandom(a.data(), a.size(), 7, d.dtype);
  tshape::runtime::fillRandom(b.data(), b.size(), 8, d.dtype);
  for (int64_t p = 0; p < d.batch; ++p)
    for (int64_t i = 0; i < d.m; ++i)
      for (int64_t j = 0; j < d.n; ++j) {
        double acc = 0;
        for (int64_t l = 0; l < d.k; ++l)
          acc += double(a[p * sa + l * d.m + i]) * b[p * sb + j * d.k + l];
        c[p * sc + i * d.n + j] = float(acc);
      }
  const double tol = tshapeRtCheckTolerance(d.dtype, d.k);
  // 8 x 2^-8 + 2 x 4096 x 2^-23 = 0.03223.
  EXPECT_NEAR(tol, 8.0 / 256 + 8192.0 / 8388608, 1e-12);
  double base =
      tshape::runtime::checkError(d, a.data(), b.data(), c.data(), 0);
  EXPECT_LT(base, 1e-6); // only float's rounding of the stored C
  auto rms = [](const std::vector<float> &x) {
    double s = 0;
    for (float v : x)
      s += double(v) * v;
    return std::sqrt(s / double(x.size()));
  };
  const double unit = std::sqrt(double(d.k)) * rms(a) * rms(b);
  std::vector<float> bad = c;
  bad[17] += float(1.01 * tol * unit);
  EXPECT_GT(tshape::runtime::checkError(d, a.data(), b.data(), bad.data(), 0),
            tol);
  std::vector<float> fine = c;
  fine[17] += float(0.5 * tol * unit);
  EXPECT_LT(tshape::runtime::checkError(d, a.data(), b.data(), fine.data(), 0),
            tol);
}
