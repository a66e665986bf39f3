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

/// The start of a self-contained HTML page (the reports' one style): the
/// doctype, the head with `title` and the style, the body's <h1>. Close
/// it with `</body></html>`.
void openPage(llvm::raw_ostream &os, llvm::StringRef title);

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

/// A series of a scatter chart: its points, drawn as dots, joined by a
/// line when `line`.
struct Series {
  std::string name;
  const char *color = kColors[0];
  std::vector<std::pair<double, double>> points;
  bool line = false;
  double radius = 3;
};

/// A scatter chart of `series` (later ones drawn on top), both axes from
/// 0, the series' names in a legend row between the title and the plot,
/// and the markers as dashed vertical lines (their labels in the legend).
void scatterChart(llvm::raw_ostream &os, llvm::StringRef title,
                  llvm::StringRef xName, llvm::StringRef yName,
                  const std::vector<Series> &series,
                  const std::vector<Marker> &markers);

} // namespace tshape::report::svg

#endif // TSHAPE_REPORT_SVG_H
