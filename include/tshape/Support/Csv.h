//===- Csv.h - Minimal CSV record reader (header-only) ----------*- C++ -*-===//
//
// The one CSV reader of tshape-calibrate and tshape-bench-gemms: plain C++,
// no LLVM, so that the runtime-only build can use it. Records are split at
// commas (no quoting: the files hold numbers and names); CR line ends,
// blank lines and lines starting with '#' are skipped; a trailing comma
// gives a trailing empty field.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_SUPPORT_CSV_H
#define TSHAPE_SUPPORT_CSV_H

#include <istream>
#include <string>
#include <vector>

namespace tshape::csv {

/// The fields of one line.
inline std::vector<std::string> splitFields(const std::string &line) {
  std::vector<std::string> fields(1);
  for (char c : line) {
    if (c == ',')
      fields.emplace_back();
    else
      fields.back() += c;
  }
  return fields;
}

/// Calls `fn(lineNo, fields)` for every record of `in` (1-based line
/// numbers); stops early and returns false when `fn` does.
template <typename Fn> bool forEachRecord(std::istream &in, Fn fn) {
  std::string line;
  int lineNo = 0;
  while (std::getline(in, line)) {
    ++lineNo;
    if (!line.empty() && line.back() == '\r')
      line.pop_back();
    if (line.empty() || line[0] == '#')
      continue;
    if (!fn(lineNo, splitFields(line)))
      return false;
  }
  return true;
}

} // namespace tshape::csv

#endif // TSHAPE_SUPPORT_CSV_H
