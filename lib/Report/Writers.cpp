//===- Writers.cpp - One format rule and one way to write a report --------===//
//
// formatFor and writeFile of Writers.h: every pass and tool that writes a
// report (tshape-gemm-analysis, tshape-gemm-summary, tshape-optimize-shapes,
// tshape-predict, tshape-calibrate) picks its format and opens its file here.
//
//===----------------------------------------------------------------------===//

#include "tshape/Report/Writers.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace tshape;
using namespace tshape::report;

Format tshape::report::formatFor(llvm::StringRef path) {
  return path == "-" || path.ends_with(".md") ? Format::Markdown : Format::Json;
}

llvm::Error tshape::report::checkReportName(llvm::StringRef path) {
  // A name that says another format (out.txt) would get JSON it did not
  // ask for: refuse it (a name with no extension is JSON).
  llvm::StringRef ext = llvm::sys::path::extension(path);
  if (path == "-" || ext.empty() || ext == ".json" || ext == ".md")
    return llvm::Error::success();
  return llvm::createStringError(
      std::errc::invalid_argument,
      "cannot write report '%s': '%s' is not a report format; name it "
      ".json (JSON) or .md (Markdown), or - for Markdown on stdout",
      path.str().c_str(), ext.str().c_str());
}

llvm::Error
tshape::report::writeFile(llvm::StringRef path,
                          llvm::function_ref<void(llvm::raw_ostream &)> body) {
  auto failure = [&](const char *what, std::error_code ec) {
    return llvm::createStringError(ec, "cannot %s report '%s': %s", what,
                                   path.str().c_str(), ec.message().c_str());
  };

  std::error_code ec;
  llvm::ToolOutputFile file(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return failure("open", ec);
  // What the tool already printed comes first.
  if (path == "-")
    llvm::outs().flush();
  body(file.os());
  file.os().flush();
  if ((ec = file.os().error())) {
    file.os().clear_error();
    return failure("write", ec);
  }
  file.keep();
  return llvm::Error::success();
}
