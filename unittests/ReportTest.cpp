//===- ReportTest.cpp - Unit tests of the report rule and models ----------===//
//
// report::formatFor, the one rule that picks every report's format from its
// path; report::writeFile's errors; and report::compareTable, the accuracy
// report's figures from given predictions (not the cost model's), derived
// by hand in the comments.
//
//===----------------------------------------------------------------------===//

#include "tshape/Report/AccuracyReport.h"
#include "tshape/Report/Writers.h"

#include <gtest/gtest.h>

using namespace tshape;
using namespace tshape::report;

TEST(ReportFormat, DashAndMdAreMarkdownEverythingElseJson) {
  EXPECT_EQ(formatFor("-"), Format::Markdown);
  EXPECT_EQ(formatFor("report.md"), Format::Markdown);
  EXPECT_EQ(formatFor("dir/report.md"), Format::Markdown);
  EXPECT_EQ(formatFor("report.json"), Format::Json);
  // Neither .md nor .json: JSON (gemm-summary used to write Markdown).
  EXPECT_EQ(formatFor("report.txt"), Format::Json);
  EXPECT_EQ(formatFor("report"), Format::Json);
  EXPECT_EQ(formatFor("report.md.json"), Format::Json);
  EXPECT_EQ(formatFor("notes.md/report"), Format::Json);
  EXPECT_EQ(formatFor("/dev/stdout"), Format::Json);
}

TEST(ReportFormat, WriteFileNamesPathAndReason) {
  llvm::Error err = writeFile("/nonexistent-dir/r.json",
                              [](llvm::raw_ostream &os) { os << "x"; });
  ASSERT_TRUE(bool(err));
  EXPECT_EQ(llvm::toString(std::move(err)),
            "cannot open report '/nonexistent-dir/r.json': No such file or "
            "directory");
}

namespace {
predict::KernelTable table(const std::string &text) {
  predict::KernelTable t;
  std::string error;
  EXPECT_TRUE(predict::parseKernelTable(text, "t.csv", t, error)) << error;
  return t;
}
} // namespace

// Three measured bf16 GEMMs with (n, k) = (64, 64): m = 16 at 8 us, m = 17
// at 10 us, m = 300 at 4 us, "predicted" 10, 0 (no kernel) and 6 us.
// Errors: |10 - 8| / 8 = 0.25 and |6 - 4| / 4 = 0.5. Median of two is the
// first (ceil(0.5 x 2) = 1st), p90 the second (ceil(0.9 x 2) = 2nd). All
// are under 1 GFLOP (2 x 300 x 64 x 64 = 2.5 MFLOP). The m = 16, 17 pair
// has no prediction at 17, so no direction pair.
TEST(AccuracyReport, CompareTableFromGivenPredictions) {
  predict::KernelTable t = table("dtype,m,n,k,measured_us\n"
                                 "bf16,16,64,64,8\n"
                                 "bf16,17,64,64,10\n"
                                 "bf16,300,64,64,4\n");
  const target::GpuTarget *h100 = target::findBuiltinTarget("h100-sxm");
  std::vector<const target::GpuTarget *> targets(3, h100);
  AccuracyReport::File f =
      compareTable(t, {10, 0, 6}, {true, true, true}, targets);
  EXPECT_EQ(f.name, "t.csv");
  ASSERT_TRUE(f.kind.has_value());
  EXPECT_EQ(*f.kind, predict::KernelKind::Gemm);
  ASSERT_EQ(f.targets.size(), 1u); // one entry per distinct target
  EXPECT_EQ(f.targets[0].name, "h100-sxm");
  EXPECT_EQ(f.measured, 2u);
  EXPECT_EQ(f.unmeasured, 0u);
  EXPECT_EQ(f.noKernel, 1u);
  ASSERT_EQ(f.regimes.size(), 4u);
  EXPECT_EQ(f.regimes[0].regime, predict::Regime::All);
  EXPECT_EQ(f.regimes[0].errors.count, 2u);
  EXPECT_DOUBLE_EQ(f.regimes[0].errors.median, 0.25);
  EXPECT_DOUBLE_EQ(f.regimes[0].errors.p90, 0.5);
  EXPECT_EQ(f.regimes[1].regime, predict::Regime::SmallM);
  EXPECT_DOUBLE_EQ(f.regimes[1].errors.median, 0.25);
  EXPECT_EQ(f.regimes[2].regime, predict::Regime::LargeM);
  EXPECT_DOUBLE_EQ(f.regimes[2].errors.median, 0.5);
  EXPECT_EQ(f.regimes[3].regime, predict::Regime::Under1G);
  EXPECT_EQ(f.regimes[3].errors.count, 2u);
  EXPECT_EQ(f.direction.pairs, 0u);

  // Rows not selected are not counted at all.
  AccuracyReport::File part =
      compareTable(t, {10, 0, 6}, {false, true, true}, targets);
  EXPECT_EQ(part.measured, 1u);
  EXPECT_EQ(part.noKernel, 1u);
  ASSERT_FALSE(part.regimes.empty());
  EXPECT_DOUBLE_EQ(part.regimes[0].errors.median, 0.5);
}
