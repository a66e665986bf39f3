//===- Svg.cpp - Inline SVG charts for the reports ------------------------===//

#include "tshape/Report/Svg.h"

#include "llvm/Support/Format.h"

#include <algorithm>
#include <cmath>

using namespace tshape::report;

std::string svg::escape(llvm::StringRef s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s)
    switch (c) {
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '"':
      out += "&quot;";
      break;
    case '\'':
      out += "&#39;";
      break;
    default:
      out += c;
    }
  return out;
}

void svg::open(llvm::raw_ostream &os, double width, double height,
               llvm::StringRef title) {
  os << llvm::format("<svg xmlns=\"http://www.w3.org/2000/svg\" "
                     "width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
                     "font-family=\"sans-serif\" font-size=\"12\">\n",
                     width, height, width, height)
     << "<title>" << escape(title) << "</title>\n"
     << llvm::format("<rect width=\"%.0f\" height=\"%.0f\" fill=\"white\"/>\n",
                     width, height);
}

void svg::barChart(llvm::raw_ostream &os, llvm::StringRef title,
                   const std::vector<Bar> &bars) {
  constexpr double W = 640, L = 170, R = 150, T = 34, Row = 26;
  const double H = T + Row * double(bars.size()) + 12;
  double top = 0;
  for (const Bar &b : bars)
    top = std::max(top, b.value);
  open(os, W, H, title);
  os << llvm::format("<text x=\"%.0f\" y=\"20\" font-size=\"14\">", L)
     << escape(title) << "</text>\n";
  for (size_t i = 0; i < bars.size(); ++i) {
    const Bar &b = bars[i];
    const double y = T + Row * double(i);
    const double w = top > 0 ? std::max(0.0, b.value / top) * (W - L - R) : 0;
    os << llvm::format("<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">",
                       L - 8, y + 15)
       << escape(b.label) << "</text>\n"
       << llvm::format("<rect x=\"%.0f\" y=\"%.1f\" width=\"%.1f\" "
                       "height=\"18\" fill=\"%s\"/>\n",
                       L, y + 2, w, kColors[i % kNumColors])
       << llvm::format("<text x=\"%.1f\" y=\"%.1f\">", L + w + 6, y + 15)
       << escape(b.text) << "</text>\n";
  }
  os << "</svg>\n";
}

namespace {
/// A chart's plot area: left, top, width, height, the SVG's height, and
/// the data's x range and largest y (y from 0).
struct Frame {
  double L, T, pw, ph, H, x0, x1, y1;
  double X(double x) const { return L + (x - x0) / (x1 - x0) * pw; }
  double Y(double y) const { return T + (1 - y / y1) * ph; }
};

/// The grid (five ticks on each axis), the frame and the axes' names.
void drawAxes(llvm::raw_ostream &os, const Frame &f, llvm::StringRef xName,
              llvm::StringRef yName) {
  for (int i = 0; i <= 4; ++i) {
    const double y = f.y1 * i / 4;
    os << llvm::format("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                       "stroke=\"#dddddd\"/>\n<text x=\"%.1f\" y=\"%.1f\" "
                       "text-anchor=\"end\">%.0f</text>\n",
                       f.L, f.Y(y), f.L + f.pw, f.Y(y), f.L - 6, f.Y(y) + 4, y);
    const double x = f.x0 + (f.x1 - f.x0) * i / 4;
    os << llvm::format("<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">"
                       "%.0f</text>\n",
                       f.X(x), f.T + f.ph + 16, x);
  }
  os << llvm::format("<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" "
                     "height=\"%.0f\" fill=\"none\" stroke=\"black\"/>\n",
                     f.L, f.T, f.pw, f.ph)
     << llvm::format("<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
                     f.L + f.pw / 2, f.H - 8)
     << svg::escape(xName) << "</text>\n"
     << llvm::format("<text x=\"14\" y=\"%.1f\" text-anchor=\"middle\" "
                     "transform=\"rotate(-90 14 %.1f)\">",
                     f.T + f.ph / 2, f.T + f.ph / 2)
     << svg::escape(yName) << "</text>\n";
}

/// Each marker: a dashed vertical line, and its label in the legend row
/// from `lx` (between the title and the plot, never over the data).
void drawMarkers(llvm::raw_ostream &os, const Frame &f,
                 const std::vector<svg::Marker> &markers, double lx) {
  for (const svg::Marker &m : markers) {
    os << llvm::format("<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" "
                       "y2=\"%.0f\" stroke=\"%s\" stroke-width=\"2\" "
                       "stroke-dasharray=\"5,3\"/>\n",
                       f.X(m.x), f.T, f.X(m.x), f.T + f.ph, m.color)
       << llvm::format("<line x1=\"%.1f\" y1=\"38\" x2=\"%.1f\" y2=\"38\" "
                       "stroke=\"%s\" stroke-width=\"2\" "
                       "stroke-dasharray=\"5,3\"/>\n",
                       lx, lx + 18, m.color)
       << llvm::format("<text x=\"%.1f\" y=\"42\" fill=\"%s\">", lx + 22,
                       m.color)
       << svg::escape(m.label) << "</text>\n";
    lx += 40 + 7.0 * double(m.label.size());
  }
}
} // namespace

void svg::lineChart(llvm::raw_ostream &os, llvm::StringRef title,
                    llvm::StringRef xName, llvm::StringRef yName,
                    const std::vector<std::pair<double, double>> &points,
                    const std::vector<Marker> &markers) {
  constexpr double W = 640, H = 316, L = 60, R = 20, T = 56, B = 46;
  const double pw = W - L - R, ph = H - T - B;
  double x0 = points.empty() ? 0 : points.front().first;
  double x1 = points.empty() ? 1 : points.back().first;
  for (const Marker &m : markers) {
    x0 = std::min(x0, m.x);
    x1 = std::max(x1, m.x);
  }
  if (x1 <= x0)
    x1 = x0 + 1;
  double y1 = 0;
  for (auto [x, y] : points)
    y1 = std::max(y1, y);
  y1 = y1 > 0 ? y1 * 1.1 : 1;
  const Frame f{L, T, pw, ph, H, x0, x1, y1};
  open(os, W, H, title);
  os << llvm::format("<text x=\"%.0f\" y=\"22\" font-size=\"14\">", L)
     << escape(title) << "</text>\n";
  drawAxes(os, f, xName, yName);
  std::string line;
  for (auto [x, y] : points)
    line += std::to_string(f.X(x)).substr(0, 7) + "," +
            std::to_string(f.Y(y)).substr(0, 7) + " ";
  os << "<polyline fill=\"none\" stroke=\"" << kColors[0]
     << "\" stroke-width=\"1.5\" points=\"" << line << "\"/>\n";
  drawMarkers(os, f, markers, L);
  os << "</svg>\n";
}

void svg::scatterChart(llvm::raw_ostream &os, llvm::StringRef title,
                       llvm::StringRef xName, llvm::StringRef yName,
                       const std::vector<Series> &series,
                       const std::vector<Marker> &markers) {
  constexpr double W = 720, H = 400, L = 70, R = 20, T = 60, B = 46;
  const double pw = W - L - R, ph = H - T - B;
  double x1 = 0, y1 = 0;
  for (const Series &s : series)
    for (auto [x, y] : s.points) {
      x1 = std::max(x1, x);
      y1 = std::max(y1, y);
    }
  for (const Marker &m : markers)
    x1 = std::max(x1, m.x);
  x1 = x1 > 0 ? x1 * 1.05 : 1;
  y1 = y1 > 0 ? y1 * 1.1 : 1;
  const Frame f{L, T, pw, ph, H, 0, x1, y1};
  open(os, W, H, title);
  os << llvm::format("<text x=\"%.0f\" y=\"22\" font-size=\"14\">", L)
     << escape(title) << "</text>\n";
  drawAxes(os, f, xName, yName);
  double lx = L;
  for (const Series &s : series) {
    if (s.line && s.points.size() > 1) {
      std::string pts;
      for (auto [x, y] : s.points)
        pts += std::to_string(f.X(x)).substr(0, 7) + "," +
               std::to_string(f.Y(y)).substr(0, 7) + " ";
      os << "<polyline fill=\"none\" stroke=\"" << s.color
         << "\" stroke-width=\"1.5\" points=\"" << pts << "\"/>\n";
    }
    for (auto [x, y] : s.points)
      os << llvm::format("<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" "
                         "fill=\"%s\"/>\n",
                         f.X(x), f.Y(y), s.radius, s.color);
    os << llvm::format("<circle cx=\"%.1f\" cy=\"38\" r=\"4\" "
                       "fill=\"%s\"/>\n<text x=\"%.1f\" y=\"42\">",
                       lx + 6, s.color, lx + 14)
       << escape(s.name) << "</text>\n";
    lx += 30 + 7.0 * double(s.name.size());
  }
  drawMarkers(os, f, markers, lx);
  os << "</svg>\n";
}

namespace {
constexpr const char kPageStyle[] = R"(
body{font-family:sans-serif;margin:24px auto;padding:0 16px;max-width:1100px;color:#222;line-height:1.4}
h1{font-size:22px;margin-bottom:4px}h2{font-size:18px;margin-top:28px;border-bottom:1px solid #ccc}
.sub{color:#555}.cards{display:flex;gap:12px;flex-wrap:wrap;margin:16px 0}
.card{border:1px solid #ccc;border-radius:6px;padding:10px 14px;min-width:180px}
.card b{display:block;font-size:20px}
table{border-collapse:collapse;font-size:13px;margin:8px 0}
th,td{border:1px solid #ddd;padding:4px 8px;text-align:left;vertical-align:top}
td.n,th.n{text-align:right}tr.fail td{background:#fdecea}tr.ok td.ok{color:#1b7a1b}
tr.changed td{background:#eaf4ea}.arrow{color:#888}pre{background:#f6f6f6;padding:8px;white-space:pre-wrap;word-break:break-all}
.fig{margin:12px 0}
)";
} // namespace

void svg::openPage(llvm::raw_ostream &os, llvm::StringRef title) {
  os << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta "
        "charset=\"utf-8\">\n<title>"
     << escape(title) << "</title>\n<style>" << kPageStyle
     << "</style>\n</head>\n<body>\n<h1>" << escape(title) << "</h1>\n";
}
