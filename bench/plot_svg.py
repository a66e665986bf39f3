#!/usr/bin/env python3
"""A small SVG plotting routine (Python standard library only, no PyPI):
line charts of CSV columns and grouped bar charts, for bench/gpu-sweeps.sh.

  plot_svg.py line CSV X Y1[,Y2...] TITLE XLABEL YLABEL OUT.svg
      one line per Y column against column X (columns by header name)
  plot_svg.py bars CSV LABEL Y1[,Y2...] TITLE YLABEL OUT.svg
      one group of bars per row, labelled by column LABEL
  plot_svg.py loglog CSV X Y SERIES TITLE XLABEL YLABEL OUT.svg
      a log-log scatter of Y against X, one colour per value of column
      SERIES, with the line y = x (and y = x / 1.25, x * 1.25 dashed)

Rows whose cells do not parse as numbers are skipped, with a note on stderr.
"""
import csv
import math
import re
import sys
from xml.sax.saxutils import escape

W, H = 900, 500
LEFT, RIGHT, TOP, BOTTOM = 80, 200, 50, 60
COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e"]


def nice_ticks(lo, hi, count=6):
    """Round tick values from at most lo to at least hi."""
    if hi <= lo:
        hi = lo + 1
    raw = (hi - lo) / count
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    start = math.floor(lo / step) * step
    ticks, t = [], start
    while not ticks or ticks[-1] < hi - step * 1e-9:
        ticks.append(round(t, 10))
        t += step
    return ticks


def fmt(v):
    return f"{v:g}" if abs(v) < 1e6 else f"{v:.3g}"


class Chart:
    def __init__(self, title, xlabel, ylabel):
        self.out = [
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" '
            f'height="{H}" font-family="sans-serif" font-size="12">',
            f'<rect width="{W}" height="{H}" fill="white"/>',
            f'<text x="{(LEFT + W - RIGHT) / 2}" y="25" text-anchor="middle" '
            f'font-size="15">{escape(title)}</text>',
            f'<text x="{(LEFT + W - RIGHT) / 2}" y="{H - 15}" '
            f'text-anchor="middle">{escape(xlabel)}</text>',
            f'<text x="20" y="{(TOP + H - BOTTOM) / 2}" text-anchor="middle" '
            f'transform="rotate(-90 20 {(TOP + H - BOTTOM) / 2})">'
            f'{escape(ylabel)}</text>']

    def axes(self, yticks, ymin, ymax):
        self.ymin, self.ymax = ymin, ymax
        x0, x1 = LEFT, W - RIGHT
        for t in yticks:
            y = self.y(t)
            self.out.append(f'<line x1="{x0}" y1="{y:.1f}" x2="{x1}" '
                            f'y2="{y:.1f}" stroke="#ddd"/>')
            self.out.append(f'<text x="{x0 - 6}" y="{y + 4:.1f}" '
                            f'text-anchor="end">{fmt(t)}</text>')
        self.out.append(f'<rect x="{x0}" y="{TOP}" width="{x1 - x0}" '
                        f'height="{H - BOTTOM - TOP}" fill="none" '
                        f'stroke="black"/>')

    def y(self, v):
        span = self.ymax - self.ymin or 1
        return H - BOTTOM - (v - self.ymin) / span * (H - BOTTOM - TOP)

    def legend(self, names):
        for i, name in enumerate(names):
            y = TOP + 10 + 20 * i
            c = COLORS[i % len(COLORS)]
            self.out.append(f'<rect x="{W - RIGHT + 15}" y="{y - 9}" '
                            f'width="14" height="10" fill="{c}"/>')
            self.out.append(f'<text x="{W - RIGHT + 35}" y="{y}">'
                            f'{escape(name)}</text>')

    def save(self, path):
        self.out.append("</svg>")
        with open(path, "w") as f:
            f.write("\n".join(self.out) + "\n")


def read(path, columns):
    with open(path) as f:
        rows = list(csv.DictReader(f))
    for c in columns:
        if rows and c not in rows[0]:
            sys.exit(f"plot_svg: {path}: no column {c!r} "
                     f"(have {', '.join(rows[0])})")
    return rows


def numbers(rows, columns, path):
    good = []
    for i, r in enumerate(rows):
        try:
            good.append([float(r[c]) for c in columns])
        except ValueError:
            print(f"plot_svg: {path}: row {i + 2} skipped (not numeric)",
                  file=sys.stderr)
    return good


def line(path, xcol, ycols, title, xlabel, ylabel, out):
    rows = read(path, [xcol] + ycols)
    data = numbers(rows, [xcol] + ycols, path)
    if not data:
        sys.exit(f"plot_svg: {path}: no numeric rows to plot")
    xs = [d[0] for d in data]
    ys = [v for d in data for v in d[1:]]
    yt = nice_ticks(0, max(ys))
    ch = Chart(title, xlabel, ylabel)
    ch.axes(yt, yt[0], yt[-1])
    xlo, xhi = min(xs), max(xs)
    span = xhi - xlo or 1

    def x(v):
        return LEFT + (v - xlo) / span * (W - RIGHT - LEFT)
    for t in nice_ticks(xlo, xhi, 8):
        if xlo <= t <= xhi:
            ch.out.append(f'<text x="{x(t):.1f}" y="{H - BOTTOM + 18}" '
                          f'text-anchor="middle">{fmt(t)}</text>')
    for i in range(len(ycols)):
        pts = " ".join(f"{x(d[0]):.1f},{ch.y(d[i + 1]):.1f}" for d in data)
        ch.out.append(f'<polyline class="series" fill="none" '
                      f'stroke-width="1.5" '
                      f'stroke="{COLORS[i % len(COLORS)]}" points="{pts}"/>')
    ch.legend(ycols)
    ch.save(out)


def bars(path, label, ycols, title, ylabel, out):
    rows = read(path, [label] + ycols)
    data = numbers(rows, ycols, path)
    labels = [r[label] for r in rows][:len(data)]
    if not data:
        sys.exit(f"plot_svg: {path}: no numeric rows to plot")
    yt = nice_ticks(0, max(v for d in data for v in d))
    ch = Chart(title, label, ylabel)
    ch.axes(yt, yt[0], yt[-1])
    group = (W - RIGHT - LEFT) / len(data)
    bw = group * 0.8 / len(ycols)
    for g, d in enumerate(data):
        gx = LEFT + g * group + group * 0.1
        for i, v in enumerate(d):
            top = ch.y(v)
            ch.out.append(f'<rect class="bar" x="{gx + i * bw:.1f}" '
                          f'y="{top:.1f}" '
                          f'width="{bw:.1f}" height="{ch.y(0) - top:.1f}" '
                          f'fill="{COLORS[i % len(COLORS)]}"/>')
        ch.out.append(f'<text x="{gx + group * 0.4:.1f}" '
                      f'y="{H - BOTTOM + 18}" text-anchor="middle">'
                      f'{escape(labels[g])}</text>')
    ch.legend(ycols)
    ch.save(out)


def loglog(series, title, xlabel, ylabel, out):
    """series: [(name, [(x, y), ...]), ...], positive values only."""
    vals = [v for _, pts in series for p in pts for v in p if v > 0]
    if not vals:
        sys.exit(f"plot_svg: no positive values to plot in {out}")
    lo = math.floor(math.log10(min(vals)))
    hi = math.ceil(math.log10(max(vals)))
    if hi == lo:
        hi = lo + 1
    ch = Chart(title, xlabel, ylabel)
    ch.axes(range(lo, hi + 1), lo, hi)
    # The y axis labels are exponents; write them as powers of ten.
    ch.out = [o if 'text-anchor="end"' not in o else
              re.sub(r">(-?\d+)</text>",
                     lambda m: f">{fmt(10.0 ** int(m.group(1)))}</text>", o)
              for o in ch.out]

    def x(v):
        return LEFT + (math.log10(v) - lo) / (hi - lo) * (W - RIGHT - LEFT)

    def y(v):
        return ch.y(math.log10(v))
    for e in range(lo, hi + 1):
        ch.out.append(f'<text x="{x(10.0 ** e):.1f}" y="{H - BOTTOM + 18}" '
                      f'text-anchor="middle">{fmt(10.0 ** e)}</text>')
    a, b = 10.0 ** lo, 10.0 ** hi
    for f, dash in ((1.0, ""), (1.25, ' stroke-dasharray="4 3"'),
                    (0.8, ' stroke-dasharray="4 3"')):
        ch.out.append(f'<line x1="{x(max(a, a / f)):.1f}" '
                      f'y1="{y(max(a, a / f) * f):.1f}" '
                      f'x2="{x(min(b, b / f)):.1f}" '
                      f'y2="{y(min(b, b / f) * f):.1f}" stroke="#888"{dash}/>')
    for i, (_, pts) in enumerate(series):
        c = COLORS[i % len(COLORS)]
        for px, py in pts:
            if px > 0 and py > 0:
                ch.out.append(f'<circle cx="{x(px):.1f}" cy="{y(py):.1f}" '
                              f'r="1.6" fill="{c}" fill-opacity="0.55"/>')
    ch.legend([name for name, _ in series])
    ch.save(out)


def loglog_csv(path, xcol, ycol, scol, title, xlabel, ylabel, out):
    rows = read(path, [xcol, ycol, scol])
    groups = {}
    for r in rows:
        try:
            p = (float(r[xcol]), float(r[ycol]))
        except ValueError:
            continue
        groups.setdefault(r[scol], []).append(p)
    loglog(list(groups.items()), title, xlabel, ylabel, out)


def main(argv):
    if len(argv) == 9 and argv[1] == "line":
        line(argv[2], argv[3], argv[4].split(","), *argv[5:9])
    elif len(argv) == 10 and argv[1] == "loglog":
        loglog_csv(*argv[2:10])
    elif len(argv) == 8 and argv[1] == "bars":
        bars(argv[2], argv[3], argv[4].split(","), *argv[5:8])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
