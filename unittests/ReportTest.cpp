//===- ReportTest.cpp - Unit tests of the report rule and models ----------===//
//
// report::formatFor, the one rule that picks every report's format from its
// path, and report::writeFile's errors.
//
//===----------------------------------------------------------------------===//

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
