//===- Svg.h - Inline SVG charts for the reports ----------------*- C++ -*-===//
//
// The few drawing helpers the reports share: XML/HTML escaping, a colour
// palette, an SVG element's opening, a horizontal bar chart and a line
// chart with marked x values. Self-contained output: no script, no
// external style or font. Used by the projection's SVG and by the advise
// report's HTML. Plain C++.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_REPORT_SVG_H
#define TSHAPE_REPORT_SVG_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace tshape::report::svg {

/// `s` with &, <, >, " and ' escaped: safe in XML and HTML text and in
/// quoted attributes.
std::string escape(llvm::StringRef s);

/// Series colours, in order.
inline constexpr const char *kColors[] = {"#1f77b4", "#d62728", "#2ca02c",
                                          "#9467bd", "#ff7f0e", "#8c564b",
                                          "#e377c2", "#17becf"};
inline constexpr size_t kNumColors = sizeof(kColors) / sizeof(kColors[0]);

/// `<svg ...>` of `width` x `height` with a `<title>` and a white
/// background; close it with `</svg>`.
void open(llvm::raw_ostream &os, double width, double height,
          llvm::StringRef title);

/// One bar: its label, its value, and the text written after it.
struct Bar {
  std::string label;
  double value = 0;
  std::string text;
};
/// A horizontal bar chart, bars scaled to the largest value.
void barChart(llvm::raw_ostream &os, llvm::StringRef title,
              const std::vector<Bar> &bars);

/// A marked x value of a line chart (a vertical line and its label).
struct Marker {
  double x = 0;
  std::string label;
  const char *color = kColors[1];
};
/// A line chart of (x, y) points (ascending x), with its axes' names and
/// the markers; y starts at 0.
void lineChart(llvm::raw_ostream &os, llvm::StringRef title,
               llvm::StringRef xName, llvm::StringRef yName,
               const std::vector<std::pair<double, double>> &points,
               const std::vector<Marker> &markers);

} // namespace tshape::report::svg

#endif // TSHAPE_REPORT_SVG_H
