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
  auto X = [&](double x) { return L + (x - x0) / (x1 - x0) * pw; };
  auto Y = [&](double y) { return T + (1 - y / y1) * ph; };
  open(os, W, H, title);
  os << llvm::format("<text x=\"%.0f\" y=\"22\" font-size=\"14\">", L)
     << escape(title) << "</text>\n";
  // Grid: five y ticks, five x ticks.
  for (int i = 0; i <= 4; ++i) {
    const double y = y1 * i / 4;
    os << llvm::format("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                       "stroke=\"#dddddd\"/>\n<text x=\"%.1f\" y=\"%.1f\" "
                       "text-anchor=\"end\">%.0f</text>\n",
                       L, Y(y), L + pw, Y(y), L - 6, Y(y) + 4, y);
    const double x = x0 + (x1 - x0) * i / 4;
    os << llvm::format("<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">"
                       "%.0f</text>\n",
                       X(x), T + ph + 16, x);
  }
  os << llvm::format("<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" "
                     "height=\"%.0f\" fill=\"none\" stroke=\"black\"/>\n",
                     L, T, pw, ph)
     << llvm::format("<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
                     L + pw / 2, H - 8)
     << escape(xName) << "</text>\n"
     << llvm::format("<text x=\"14\" y=\"%.1f\" text-anchor=\"middle\" "
                     "transform=\"rotate(-90 14 %.1f)\">",
                     T + ph / 2, T + ph / 2)
     << escape(yName) << "</text>\n";
  std::string line;
  for (auto [x, y] : points)
    line += std::to_string(X(x)).substr(0, 7) + "," +
            std::to_string(Y(y)).substr(0, 7) + " ";
  os << "<polyline fill=\"none\" stroke=\"" << kColors[0]
     << "\" stroke-width=\"1.5\" points=\"" << line << "\"/>\n";
  // Each marker: a dashed vertical line, and its label in a legend row
  // between the title and the plot (never over the curve).
  double lx = L;
  for (size_t i = 0; i < markers.size(); ++i) {
    const Marker &m = markers[i];
    os << llvm::format("<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" "
                       "y2=\"%.0f\" stroke=\"%s\" stroke-width=\"2\" "
                       "stroke-dasharray=\"5,3\"/>\n",
                       X(m.x), T, X(m.x), T + ph, m.color)
       << llvm::format("<line x1=\"%.1f\" y1=\"38\" x2=\"%.1f\" y2=\"38\" "
                       "stroke=\"%s\" stroke-width=\"2\" "
                       "stroke-dasharray=\"5,3\"/>\n",
                       lx, lx + 18, m.color)
       << llvm::format("<text x=\"%.1f\" y=\"42\" fill=\"%s\">", lx + 22,
                       m.color)
       << escape(m.label) << "</text>\n";
    lx += 40 + 7.0 * double(m.label.size());
  }
  os << "</svg>\n";
}
