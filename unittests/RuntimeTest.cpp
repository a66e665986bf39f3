//===- RuntimeTest.cpp - Unit tests of the tshape runtime C ABI -----------===//
//
// The CPU backend end to end through the C ABI, the dtype rounding, and the
// error paths (statuses and messages, never a crash).
//
//===----------------------------------------------------------------------===//

#include "tshape/Runtime/Runtime.h"

#include <gtest/gtest.h>

#include <string>

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
  // The CPU backend accumulates in float: each element's error is at most
  // about K x 2^-24 of sum |a b| (here 45 x 6e-8 = 2.7e-6 of it); relative
  // to a small element (the check floors |ref| at 1e-3 of the largest) it
  // can be larger, so the bound is the pass's fp32 tolerance, 1e-4.
  double err = 1;
  ASSERT_EQ(tshapeRtCheckGemm(ctx, &d, 0, &err), TSHAPE_RT_OK);
  EXPECT_LT(err, 1e-4);
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
