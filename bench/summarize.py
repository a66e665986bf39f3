#!/usr/bin/env python3
"""Summarizes a bench/gpu-sweeps.sh result folder as Markdown, ready for
docs/benchmarks.md: each sweep's measured and predicted figures, the
prediction error per sweep, and the calibration's held-out error.
Usage: summarize.py OUT_DIR > summary.md"""
import csv
import os
import statistics
import sys

out = sys.argv[1]


def rows(name):
    path = os.path.join(out, name)
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return list(csv.DictReader(f))


def text(name, default=""):
    path = os.path.join(out, name)
    return open(path).read().strip() if os.path.exists(path) else default


def total(rs, col):
    return sum(float(r[col]) for r in rs)


def flops(r):
    return 2.0 * int(r["batch"]) * int(r["m"]) * int(r["n"]) * int(r["k"])


def tflops(rs, col):
    t = total(rs, col)
    return sum(flops(r) for r in rs) / (t * 1e6) if t > 0 else 0.0


def param(r, name, default=None):
    """A model parameter of a GEMM row, from the report's params column
    (report_csv.py): the analysis knows where each size came from."""
    for item in r.get("params", "").split(";"):
        key, _, value = item.partition("=")
        if key == name:
            return int(value)
    if default is not None:
        return default
    sys.exit(f"summarize: a {r['name']} row has no '{name}' parameter")


def errors(rs):
    return sorted(abs(float(r["prediction_error"])) for r in rs)


def p90(xs):
    return xs[min(len(xs) - 1, int(0.9 * len(xs)))]


print(f"# tshape GPU sweeps: {text('device.txt', '?')}")
print()
print(f"- date: {text('date.txt', '?')}; backend: {text('backend.txt', '?')};"
      f" target model: {text('target.txt', '?')}")
print(f"- command: `{text('command.txt', '?')}`")
print("- times are medians of the measured runs after warm-up, with rotating"
      " inputs" + (" (CUDA events)" if text("backend.txt") == "cublas" else "")
      + "; TFLOP/s = 2 batch m n k / time")
missing = text("missing.txt").split()
if missing:
    print(f"- not measured (left out below): {', '.join(missing)}")
print()

wave = rows("wave.csv")
if wave:
    m = [float(r["measured_tflops"]) for r in wave]
    p = [float(r["predicted_tflops"]) for r in wave]
    lo, hi = m.index(min(m)), m.index(max(m))
    print(f"## Wave quantization: M = K = {wave[0]['m']}, N = "
          f"{wave[0]['n']}..{wave[-1]['n']} ({len(wave)} GEMMs, plot: "
          "wave.svg)")
    print()
    print(f"- measured: {min(m):.4g} TFLOP/s at N = {wave[lo]['n']}, "
          f"{max(m):.4g} at N = {wave[hi]['n']}")
    print(f"- predicted: {min(p):.4g} to {max(p):.4g} TFLOP/s")
    print()


def compare(title, name, key, label):
    rs = rows(name)
    if not rs:
        return
    print(f"## {title}")
    print()
    print(f"| {label} | measured us | measured TFLOP/s | predicted us |"
          " predicted TFLOP/s | cuBLASLt tile (M x N) | predicted tile |")
    print("|---|---|---|---|---|---|---|")
    groups = {}
    for r in rs:
        groups.setdefault(key(r), []).append(r)
    base = None
    for k, g in groups.items():
        mt = tflops(g, "measured_us")
        base = mt if base is None else base
        ratio = mt / base if base > 0 else 0.0
        print(f"| {k} | {total(g, 'measured_us'):.1f} | {mt:.4g} "
              f"({ratio:.2f}x) | {total(g, 'predicted_us'):.1f} | "
              f"{tflops(g, 'predicted_us'):.1f} | "
              f"{' '.join(r['library_tile'] for r in g)} | "
              f"{' '.join(r['predicted_tile'] for r in g)} |")
    print()


compare("Vocabulary (logits GEMM)", "vocab.csv",
        lambda r: str(param(r, "vocab")), "vocab")
compare("SwiGLU inner size (gate, up and down GEMMs)", "swiglu.csv",
        lambda r: str(param(r, "ffn")), "ffn")

heads = [(int(a), rows(f"heads-{a}.csv"))
         for a in text("heads.txt").split()]
heads = [(a, rs) for a, rs in heads if rs]
if heads:
    print("## Attention head count (unfused attention GEMMs, plot: "
          "heads.svg)")
    print()
    print("| heads | head_dim | measured us | measured TFLOP/s | "
          "predicted us | predicted TFLOP/s |")
    print("|---|---|---|---|---|---|")
    for a, rs in heads:
        q = next(r for r in rs if r["name"] == "qkv")
        # head_dim when explicit, else hidden/heads (the model's default)
        d = param(q, "head_dim", param(q, "hidden") // param(q, "heads"))
        print(f"| {param(q, 'heads')} | {d} | {total(rs, 'measured_us'):.1f} | "
              f"{tflops(rs, 'measured_us'):.4g} | "
              f"{total(rs, 'predicted_us'):.1f} | "
              f"{tflops(rs, 'predicted_us'):.1f} |")
    print()

orig, opt = rows("gpt3.csv"), rows("gpt3.opt.csv")
if orig and opt:
    print(f"## {text('model.txt', 'Model')}: original vs optimized "
          "(every GEMM of a forward step, one rank)")
    print()
    print("| | GEMMs | measured ms | measured TFLOP/s | predicted ms | "
          "predicted TFLOP/s |")
    print("|---|---|---|---|---|---|")
    for label, rs in (("original", orig), ("optimized", opt)):
        print(f"| {label} | {len(rs)} | {total(rs, 'measured_us') / 1e3:.2f}"
              f" | {tflops(rs, 'measured_us'):.4g} | "
              f"{total(rs, 'predicted_us') / 1e3:.2f} | "
              f"{tflops(rs, 'predicted_us'):.1f} |")
    mo, mn = tflops(orig, "measured_us"), tflops(opt, "measured_us")
    po, pn = tflops(orig, "predicted_us"), tflops(opt, "predicted_us")
    print()
    print(f"- throughput gain: measured {mn / mo:.3f}x, predicted "
          f"{pn / po:.3f}x")
    print(f"- step time: measured {total(orig, 'measured_us') / total(opt, 'measured_us'):.3f}x"
          f" faster, predicted {total(orig, 'predicted_us') / total(opt, 'predicted_us'):.3f}x")
    print()

print("## Prediction error of the default constants, "
      "|predicted - measured| / measured")
print()
print("| sweep | GEMMs | median | p90 |")
print("|---|---|---|---|")
sweeps = [("wave", wave), ("vocab", rows("vocab.csv")),
          ("swiglu", rows("swiglu.csv")),
          ("heads", [r for _, rs in heads for r in rs]),
          ("model, original", orig), ("model, optimized", opt)]
for name, rs in sweeps:
    if rs:
        e = errors(rs)
        print(f"| {name} | {len(e)} | {100 * statistics.median(e):.1f}% | "
              f"{100 * p90(e):.1f}% |")
print()
cal = text("calibration.txt")
if cal:
    print("## Calibration (tshape-calibrate, every 4th row held out)")
    print()
    print("```")
    print(cal)
    print("```")
