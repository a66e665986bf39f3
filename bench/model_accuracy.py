#!/usr/bin/env python3
"""The work of bench/model-accuracy.sh (run that): calibrate each measured
GPU, compare before and after on the held-out part, predict each GPU from
another's fit, and write docs/model-accuracy.md with its SVG.

Python standard library only. Every figure comes from the JSON accuracy
reports of tshape-predict --report (docs/report-schema.md) and the target
files tshape-calibrate writes; nothing here models a GPU and no tool's text
output is parsed.
"""
import argparse
import csv
import datetime
import json
import math
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plot_svg  # noqa: E402

# Where bench/training_runs.py's section of docs/model-accuracy.md begins.
TRAINING_RUNS_MARK = "<!-- published training runs: bench/training_runs.py"
# (label, data file suffix, built-in target, has attention timings)
GPUS = [("H100", "h100-sxm", "h100-sxm", True),
        ("A100", "a100-sxm", "a100-80gb", True),
        ("B200", "b200", "b200", False)]
# Each GPU predicted from another GPU's fit: what a target without data
# gets (docs/targets.md).
CROSS = [("B200", "H100"), ("H100", "B200"), ("A100", "H100"),
         ("H100", "A100")]
# NCCL collectives of one node: (label, data file suffix, built-in target,
# built-in cluster whose node tier is fitted).
NCCL = [("A100", "a100-sxm", "a100-80gb", "dgx-a100"),
        ("H100", "h100-sxm", "h100-sxm", "dgx-h100"),
        ("B200", "b200", "b200", "dgx-b200")]
GOAL_NCCL_MEDIAN = 10.0
GOAL_GEMM = (6.0, 18.0)
GOAL_ATTN_MEDIAN = 10.0
GOAL_DIRECTION = 80.0
# The constants attention timings identify (prefill, decode).
ATTENTION_KEYS = ("attention_", "decode_")
# The other software stack of the H100 attention timings (the data's
# README): fitted into its own target file, compared with the built-in.
STACK = ("vLLM 0.24", "h100-sxm-vllm0.24", "h100-sxm")
SHORT = {"GEMM": "GEMM", "fp8 GEMM": "fp8 GEMM",
         "prefill attention": "prefill", "decode attention": "decode"}
# The GPUs with fp8 GEMM rows (an FP8 linear layer each: vLLM's per-tensor
# dynamic scaling, the input's quantization included), and the constants
# they identify.
FP8 = ("H100", "B200")
FP8_KEYS = ("fp8_", "quantize_")
# The fused MoE layer's constants (tshape-calibrate fits them on the MoE
# layer rows).
MOE_KEYS = ("grouped_gemm_", "moe_")
# The MoE regimes of tshape-predict's report: routing, then the tokens
# entering the layer (decode-sized batches first).
MOE_ROUTING = ("balanced routing", "power-law routing")
MOE_TOKENS = ("tokens <= 16", "16 < tokens <= 256", "tokens > 256")
# Goal of the fp8 GEMM figures: within this many points of the bf16 ones.
GOAL_FP8_POINTS = 2.0
SOURCE = ("NVIDIA's aiconfigurator performance database "
          "(ai-dynamo/aiconfigurator @ "
          "095f58a51c4ca8e61b66ec108d86f223f8d559ce, Apache-2.0)")


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"model_accuracy: {' '.join(cmd)} failed:\n{p.stderr}")
    return p.stdout + p.stderr


def compare(cmd, report):
    """Runs tshape-predict `cmd` (one input file) with --report=REPORT, a
    .json path, and returns the figures of its JSON accuracy report
    (docs/report-schema.md): per regime (rows, median %, p90 %), and the
    m -> m+1 direction agreement (None when no pair qualifies). Percentages
    are rounded to the page's one decimal: the goals and the built-in check
    are judged on the figures the page shows."""
    run(cmd + [f"--report={report}"])
    with open(report) as f:
        doc = json.load(f)
    if doc.get("schema") != "tshape-accuracy/1" or len(doc["files"]) != 1:
        sys.exit(f"model_accuracy: {report} is not a one-file "
                 "tshape-accuracy/1 report")
    figures = doc["files"][0]
    out = {"regimes": {g["regime"]: (g["rows"], percent(g["median"]),
                                     percent(g["p90"]))
                       for g in figures["regimes"]},
           "direction": None}
    d = figures["direction"]
    if d:
        out["direction"] = dict(
            agree=d["agree"], pairs=d["pairs"], pct=percent(d["agreement"]),
            drops=d["drops"], drops_agree=d["drops_agree"],
            without=percent(d["agreement_without_drops"]))
    if "all" not in out["regimes"]:
        sys.exit(f"model_accuracy: no 'all' regime in {report}")
    return out


def percent(fraction):
    """A fraction as a percentage with one decimal, as the page shows it."""
    return float(f"{100 * fraction:.1f}")


def write_target(path, target, description, constants):
    doc = {"name": f"{target}-calibrated", "base": target,
           "description": f"{description} (calibrated)"}
    for k in sorted(constants):
        doc[k] = float(f"{constants[k]:.6g}")
    with open(path, "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")


def constants_of(path):
    with open(path) as f:
        doc = json.load(f)
    return {k: v for k, v in doc.items()
            if k not in ("name", "base", "description")}


def read_rows(path):
    """The rows of a tshape-predict output CSV ('#' lines are comments)."""
    with open(path) as f:
        return list(csv.DictReader(l for l in f if not l.startswith("#")))


def direction_ceiling(rows):
    """Over held-out m -> m+1 pairs (> 10% measured change), the agreement
    of the best answer that depends on m alone, and of always 'slower'."""
    times = {}
    for r in rows:
        key = (int(r["m"]), int(r["n"]), int(r["k"]))
        times.setdefault(key, []).append(float(r["latency_us"]))
    mean = {k: sum(v) / len(v) for k, v in times.items()}
    by_m = {}
    for (m, n, k), t in mean.items():
        t1 = mean.get((m + 1, n, k))
        if t1 is None or abs(t1 - t) <= 0.10 * min(t, t1):
            continue
        slower = t1 > 1.05 * t
        by_m.setdefault(m, [0, 0])[slower] += 1
    total = sum(a + b for a, b in by_m.values())
    if not total:
        return None
    best = sum(max(a, b) for a, b in by_m.values())
    rises = sum(b for a, b in by_m.values())
    return 100.0 * best / total, 100.0 * rises / total


def fp8_not_met(results):
    """The fp8 bullet of "Where the goals are not met": each GPU's held-out
    figures against its bf16 ones, what is left, and what was tried."""
    parts = []
    for label in FP8:
        f = next(x for x in results if x["label"] == label
                 and x["kind"] == "fp8 GEMM")["after"]["regimes"]["all"]
        b = next(x for x in results if x["label"] == label
                 and x["kind"] == "GEMM")["after"]["regimes"]["all"]
        ok = (f[1] <= b[1] + GOAL_FP8_POINTS and
              f[2] <= b[2] + GOAL_FP8_POINTS)
        parts.append(f"{label} {pct(f[1])} / {pct(f[2])} against bf16 "
                     f"{pct(b[1])} / {pct(b[2])} (goal "
                     f"{'met' if ok else 'not met'})")
    return ("- **fp8 GEMMs.** Held-out median / p90: " + "; ".join(parts) +
            ". Modelling vLLM's kernels as they run took H100 from 8.4% / "
            "25.6% (2026-11-24: one tile by M alone, a dynamic scale's two "
            "quantization kernels, the target's wave smoothing) to the "
            "figures above: the measured layers quantize with a static "
            "scale (one cast, 3 bytes per element), small M runs "
            "swapped-operand tiles of 16 or 64 rows, and the persistent "
            "CUTLASS kernels stream no K, so their last wave runs whole "
            "(this was the under-prediction at 128 < m <= 1024; held-out "
            "6.2% / 19.2% with these). Then two mechanisms, each checked on "
            "the fitting part (H100 fp8 rows, median / p90 6.2% / 19.8%) "
            "before the held-out figures were looked at: each sm90 kernel "
            "launches whole thread-block clusters (vLLM's ClusterShape: "
            "2 along M for every kernel of M > 64 and the swapped one of "
            "M <= 16, N <= 1,280; 4 for 16 < M <= 64, N <= 1,280), so its "
            "tiles along M round up to whole clusters and the padding "
            "tiles run (6.1% / 18.4%; m > 256 p90 20.5% -> 17.6%); and "
            "the chip's FP8 rate, read as a power limit that the busy SMs "
            "share (no clock was measured): "
            "long-K GEMMs of 1 to 8 CTAs run each CTA at 0.95 to 0.97 of "
            "its SM's share of the datasheet peak (64 x 128 and 128 x 128 "
            "tiles), of 9 to 32 CTAs at 0.86 to 0.91, of many waves at "
            "0.57 to 0.69 (128 x 128), so a whole-wave kernel's wave of r CTAs takes the longer "
            "of one tile at the per-CTA rate and r tiles at the chip's "
            "(5.4% / 17.2%; `fp8_sm_efficiency` 0.954, "
            "`fp8_math_efficiency` 0.73, `fp8_output_bytes` at its lower "
            "edge, 2: the bf16 output written once). It trades m <= 16 "
            "(fitting p90 14.6% -> 20.0%; the fit lowers "
            "`quantize_efficiency` to 0.724, which the smallest kernels' "
            "over-prediction pays for) against 16 < m <= 256 (21.2% -> "
            "15.1%). Tried on the fitting rows and not adopted: a fixed "
            "latency per wave of the non-persistent swapped kernels "
            "(m <= 64 with n >= 51,200 and k <= 128 take about 2.5x the "
            "prediction: 15 us at m = 1, n = 65,536, k = 32), 0.6 to "
            "1.4 us (5.9-6.2% / 21-28%), and a per-CTA bandwidth cap of "
            "150 to 400 GB/s (6.1% / 16.7% at 150, no effect above 250). "
            "What is left on H100: the 128 x 128 ping-pong kernel at the "
            "largest long-K shapes (m >= 2,048, k >= 16,384, "
            "n >= 8,192) runs up to 2x slower than predicted (slower than "
            "bf16 there), while the 256 x 128 cooperative kernel runs "
            "a median 7 to 15% faster than predicted at any size: the FP8 rate "
            "under the power limit differs by kernel, which one chip rate "
            "does not follow. B200 (fitting part, median / p90): 7.6% / "
            "28.6% before this run; the layer's output costs 2.6x the bf16 "
            "GEMM's at output-bound shapes (k <= 64: 7.0 against 2.7 bytes "
            "per output element at the datasheet bandwidth), and "
            "`fp8_output_bytes` (fitted 4.64 on B200, 2.08 on H100 then) "
            "gave 6.1% / 21.7%; its GEMM does not split K (m <= 64, "
            "k >= 51,200: about 41 us at any n <= 1,536, linear in k; at "
            "n = 128, k = 65,536 41 to 65 us from m = 1 to 2,048), and a "
            "CTA runs near its SM's own FP8 peak while the full chip runs "
            "at 0.6x the bf16 rate: no split-K on Blackwell with a per-CTA "
            "rate (`fp8_sm_efficiency`, 0.635) under the chip's "
            "(`fp8_math_efficiency`, 0.382) gave 4.0% / 15.5% (H100: 6.2% / 19.8% on its fitting part, unchanged). Tried on the "
            "fitting rows and not adopted: no split-K alone (8.5% / 32.8%), "
            "and a per-CTA K-streaming latency (one K step per 60-72 ns) "
            "as a floor or added to the memory time, with or without "
            "split-K (7.8-9.8% / 29-40%; with the output bytes 6.5-7.5% / "
            "24-33%); vLLM's CUTLASS sm100 dispatch on B200 (fit median "
            "15.6% against the library choice's 7.6%: better below "
            "m = 256, 30-40% under-predicted above it with one FP8 "
            "efficiency); before, refitting every GEMM constant on the fp8 "
            "rows (8.5% H100) and a separate FP8 split-K threshold "
            "(10.0%). What is left on B200: the largest compute-bound rows "
            "(m >= 8,192) still run slower than the chip's fitted rate.")


def pct(v):
    return f"{v:.1f}%"


def met(ok):
    return "yes" if ok else "**no**"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--src", required=True)
    a = ap.parse_args()
    calibrate = os.path.join(a.bin, "tshape-calibrate")
    predict = os.path.join(a.bin, "tshape-predict")
    targets_dir = os.path.join(a.src, "targets")
    work = tempfile.mkdtemp(prefix="tshape-accuracy-")
    fits, results, descs, results_moe = {}, [], {}, []

    # 1. Fit: GEMMs from the guesses, then attention from the GEMM fit.
    for label, suffix, target, has_attn in GPUS:
        gemm = os.path.join(a.data, f"gemm-{suffix}.csv")
        gemm_fit = os.path.join(work, f"{target}-gemm.json")
        print(f"model-accuracy: fitting {label} GEMMs", file=sys.stderr)
        run([calibrate, "--uncalibrated", "--dtype=bf16",
             f"--target={target}", gemm, "-o", gemm_fit])
        with open(gemm_fit) as f:
            descs[target] = json.load(f)["description"].replace(
                " (calibrated)", "")
        constants = constants_of(gemm_fit)
        if label in FP8:
            # FP8 linear layers (the GEMM and its input's quantization)
            # from the bf16 GEMM fit, on the fp8 rows.
            fp8_fit = os.path.join(work, f"{target}-fp8.json")
            print(f"model-accuracy: fitting {label} fp8 linear layers",
                  file=sys.stderr)
            run([calibrate, f"--target-file={gemm_fit}", "--dtype=fp8",
                 gemm, "-o", fp8_fit])
            for k, v in constants_of(fp8_fit).items():
                if k.startswith(FP8_KEYS):
                    constants[k] = v
        if has_attn:
            attn = os.path.join(a.data, f"context-attention-{suffix}.csv")
            attn_fit = os.path.join(work, f"{target}-attn.json")
            print(f"model-accuracy: fitting {label} attention",
                  file=sys.stderr)
            run([calibrate, f"--target-file={gemm_fit}", attn, "-o",
                 attn_fit])
            # Decode attention from the prefill fit (its compute bound
            # uses the attention efficiency), decode constants at their
            # guesses.
            for k, v in constants_of(attn_fit).items():
                if k.startswith("attention_"):
                    constants[k] = v
            prefill = os.path.join(work, f"{target}-prefill.json")
            write_target(prefill, target, descs[target], constants)
            dec = os.path.join(a.data, f"generation-attention-{suffix}.csv")
            dec_fit = os.path.join(work, f"{target}-decode.json")
            print(f"model-accuracy: fitting {label} decode attention",
                  file=sys.stderr)
            run([calibrate, f"--target-file={prefill}", dec, "-o",
                 dec_fit])
            for k, v in constants_of(dec_fit).items():
                if k.startswith(ATTENTION_KEYS):
                    constants[k] = v
        else:
            # No attention timings: the H100 fit's attention and decode
            # constants.
            for k, v in fits["H100"].items():
                if k.startswith(ATTENTION_KEYS):
                    constants[k] = v
        # The fused MoE layer's constants: fitted by tshape-calibrate on
        # the fitting half of the H100 MoE layers, from this H100 fit (MoE
        # constants at their guesses); no other GPU has MoE timings, and
        # the others take the H100's. Held-out figures per dtype before
        # (guesses) and after, from tshape-predict's report.
        if label == "H100":
            results_moe.append(fit_moe(a, calibrate, predict, work, target,
                                       descs[target], constants))
        else:
            for k, v in fits["H100"].items():
                if k.startswith(MOE_KEYS):
                    constants[k] = v
        fits[label] = constants
        write_target(os.path.join(targets_dir, f"{target}-calibrated.json"),
                     target, descs[target], constants)

    # 2. Held-out comparison, before and after; the built-in must agree.
    svg_series = []
    for label, suffix, target, has_attn in GPUS:
        fitted = os.path.join(targets_dir, f"{target}-calibrated.json")
        kinds = [("GEMM", f"gemm-{suffix}.csv", ["--dtype=bf16"])]
        if label in FP8:
            kinds.append(("fp8 GEMM", f"gemm-{suffix}.csv", ["--dtype=fp8"]))
        if has_attn:
            kinds.append(("prefill attention",
                          f"context-attention-{suffix}.csv", []))
            kinds.append(("decode attention",
                          f"generation-attention-{suffix}.csv", []))
        for kind, name, extra in kinds:
            path = os.path.join(a.data, name)
            base = [predict, "--compare", "--part=held-out"] + extra
            stem = os.path.join(work, f"{target}-{kind.replace(' ', '_')}")
            before = compare(base + [f"--target={target}", "--uncalibrated",
                                     path], f"{stem}-before.json")
            # The after figures and the held-out rows, in one run.
            out_csv = f"{stem}.csv"
            after = compare(base + [f"--target-file={fitted}", path, "-o",
                                    out_csv], f"{stem}-after.json")
            rows = read_rows(out_csv)
            builtin = compare(base + [f"--target={target}", path],
                              f"{stem}-builtin.json")
            if builtin["regimes"] != after["regimes"]:
                sys.exit(f"model_accuracy: built-in {target} differs from "
                         f"{fitted}: update lib/Target/GpuTarget.cpp")
            ceiling = direction_ceiling(rows) if kind == "GEMM" else None
            results.append(dict(label=label, kind=kind, file=name,
                                target=target, before=before, after=after,
                                ceiling=ceiling))
            svg_series.append((f"{label} {SHORT[kind]}", rows))

    # 3. Each GPU from another GPU's fit (no data of its own).
    cross = []
    by_label = {g[0]: g for g in GPUS}
    for dst, origin in CROSS:
        _, suffix, target, _ = by_label[dst]
        derived = os.path.join(work, f"{target}-from-{origin}.json")
        write_target(derived, target, descs[target], fits[origin])
        path = os.path.join(a.data, f"gemm-{suffix}.csv")
        r = compare([predict, "--compare", "--part=held-out",
                     "--dtype=bf16", f"--target-file={derived}", path],
                    derived.replace(".json", "-report.json"))
        own = next(x for x in results
                   if x["label"] == dst and x["kind"] == "GEMM")
        cross.append((dst, origin, r, own))

    # 4. The SVG: predicted against measured, held-out, log-log.
    svg = os.path.join(a.src, "docs", "model-accuracy.svg")
    points = []
    for name, rows in svg_series:
        pts = [(float(r["latency_us"]), float(r["predicted_us"]))
               for r in rows if r.get("predicted_us") and r.get("latency_us")]
        step = max(1, len(pts) // 300)
        points.append((f"{name} ({len(pts[::step])}/{len(pts)})",
                       pts[::step]))
    plot_svg.loglog(points, "Predicted vs measured, held-out shapes "
                    "(calibrated)", "measured us", "predicted us", svg)

    # 5. NCCL collectives: each cluster's node tier from the guesses, on
    # the fitting message sizes; held-out sizes before and after, per op.
    nccl = []
    for label, suffix, target, cluster in NCCL:
        path = os.path.join(a.data, f"nccl-{suffix}.csv")
        fitted = os.path.join(work, f"{cluster}-calibrated.json")
        print(f"model-accuracy: fitting {cluster} collectives",
              file=sys.stderr)
        run([calibrate, "--uncalibrated", f"--target={target}",
             f"--cluster={cluster}", path, "-o", fitted])
        base = [predict, "--compare", "--part=held-out", f"--target={target}"]
        stem = os.path.join(work, f"{cluster}-nccl")
        before = compare(base + [f"--cluster={cluster}", "--uncalibrated",
                                 path], f"{stem}-before.json")
        out_csv = f"{stem}.csv"
        after = compare(base + [f"--cluster-file={fitted}", path, "-o",
                                out_csv], f"{stem}-after.json")
        builtin = compare(base + [f"--cluster={cluster}", path],
                          f"{stem}-builtin.json")
        if builtin["regimes"] != after["regimes"]:
            sys.exit(f"model_accuracy: built-in {cluster} differs from its "
                     "fit: update lib/Cost/Cluster.cpp")
        with open(fitted) as f:
            node = json.load(f)["node"]
        nccl.append(dict(label=label, suffix=suffix, target=target,
                         cluster=cluster, before=before, after=after,
                         rows=read_rows(out_csv), node=node))

    stack = fit_stack(a, calibrate, predict, work, targets_dir, fits, descs)
    write_page(a.src, results, cross, nccl, stack, results_moe[0])
    print(f"model-accuracy: wrote docs/model-accuracy.md, "
          f"docs/model-accuracy.svg and targets/*-calibrated.json",
          file=sys.stderr)


def fit_moe(a, calibrate, predict, work, target, desc, constants):
    """Fits the MoE constants into `constants` (from the H100 fit so far,
    the MoE ones at their guesses) and returns the fit's report and the
    held-out figures per dtype before and after."""
    moe_csv = os.path.join(a.data, "moe-h100-sxm.csv")
    start = os.path.join(work, f"{target}-before-moe.json")
    write_target(start, target, desc, constants)
    fitted = os.path.join(work, f"{target}-moe.json")
    fit_report = os.path.join(work, f"{target}-moe-fit-report.json")
    print("model-accuracy: fitting H100 MoE layers", file=sys.stderr)
    run([calibrate, f"--target-file={start}", moe_csv, "-o", fitted,
         f"--report={fit_report}"])
    with open(fit_report) as f:
        fit = json.load(f)
    for k, v in constants_of(fitted).items():
        if k.startswith(MOE_KEYS):
            constants[k] = v
    after_target = os.path.join(work, f"{target}-after-moe.json")
    write_target(after_target, target, desc, constants)
    by_dtype = {}
    for dt in ("bf16", "fp8"):
        base = [predict, "--compare", "--part=held-out", f"--dtype={dt}",
                moe_csv]
        stem = os.path.join(work, f"{target}-moe-{dt}")
        by_dtype[dt] = dict(
            before=compare(base + [f"--target-file={start}"],
                           f"{stem}-before.json"),
            after=compare(base + [f"--target-file={after_target}"],
                          f"{stem}-after.json"))
    return dict(fit=fit, by_dtype=by_dtype,
                constants={k: v for k, v in constants.items()
                           if k.startswith(MOE_KEYS)})


def fit_stack(a, calibrate, predict, work, targets_dir, fits, descs):
    """The H100 attention timings of the other software stack (STACK):
    prefill and decode constants fitted on its files from the H100 GEMM
    fit, written to targets/NAME.json; its held-out rows compared with the
    built-in target (the default stack's fit) and with that file."""
    label, name, target = STACK
    # From the GEMM fit, attention and decode constants at their guesses.
    start = os.path.join(work, f"{name}-gemm.json")
    write_target(start, target, descs[target],
                 {k: v for k, v in constants_of(
                     os.path.join(work, f"{target}-gemm.json")).items()
                  if not k.startswith(ATTENTION_KEYS)})
    files = {"prefill attention": f"context-attention-{name}.csv",
             "decode attention": f"generation-attention-{name}.csv"}
    constants = dict(fits["H100"])
    for kind, f in files.items():
        out = os.path.join(work, f"{name}-{SHORT[kind]}.json")
        print(f"model-accuracy: fitting {label} {kind}", file=sys.stderr)
        run([calibrate, f"--target-file={start}",
             os.path.join(a.data, f), "-o", out])
        prefix = "decode_" if kind.startswith("decode") else "attention_"
        for k, v in constants_of(out).items():
            if k.startswith(prefix):
                constants[k] = v
        start = os.path.join(work, f"{name}-after-{SHORT[kind]}.json")
        write_target(start, target, descs[target], constants)
    path = os.path.join(targets_dir, f"{name}.json")
    write_target(path, target, f"{descs[target]}, attention through "
                 f"{label}", constants)
    with open(path) as fh:
        doc = json.load(fh)
    doc["name"] = name
    with open(path, "w") as fh:
        json.dump(doc, fh, indent=2)
        fh.write("\n")
    # Per release, held out: the guesses, the other release's fit, its own
    # fit (the built-in target of that stack, which must equal its file).
    out = []
    releases = [("vLLM 0.19", "h100-sxm", "h100-sxm", name, ""),
                (label, name, name, target, "-vllm0.24")]
    for kind in files:
        prefix = ("generation-attention-" if kind.startswith("decode")
                  else "context-attention-")
        for rel, own, builtin_name, other, suffix in releases:
            data = os.path.join(a.data, f"{prefix}h100-sxm{suffix}.csv")
            stem = os.path.join(work, f"{builtin_name}-{SHORT[kind]}-stack")
            base = [predict, "--compare", "--part=held-out"]
            guess = compare(base + [f"--target={target}", "--uncalibrated",
                                    data], f"{stem}-guess.json")
            cross = compare(base + [f"--target={other}", data],
                            f"{stem}-other.json")
            mine = compare(base + [f"--target={builtin_name}", data],
                           f"{stem}-own.json")
            if builtin_name == name:
                from_file = compare(base + [f"--target-file={path}", data],
                                    f"{stem}-file.json")
                if from_file["regimes"] != mine["regimes"]:
                    sys.exit(f"model_accuracy: built-in {name} differs from "
                             f"{path}: update lib/Target/GpuTarget.cpp")
            out.append(dict(kind=kind, release=rel, target=builtin_name,
                            other=other, file=os.path.basename(data),
                            guess=guess, cross=cross, own=mine))
    return out


def write_stack(w, stack):
    label, name, target = STACK
    w("## Attention stacks")
    w("")
    w("The data has the H100 attention kernels through two vLLM releases; "
      "at the shapes both share, vLLM 0.24 is a median 1.23x slower (the "
      "data's README). The stack is a choice of target: the built-in "
      f"`{target}` carries the fit on vLLM 0.19 (the files without a "
      f"suffix), and the built-in `{name}` (the same GPU and GEMM fit; "
      f"also `targets/{name}.json`) the prefill and decode constants "
      "fitted the same way on the vLLM 0.24 files. Each target says its "
      "stack (`attention_stack`: `vllm-0.19`, `vllm-0.24`; "
      "[targets.md](targets.md)). vLLM 0.24's head dims 192, 256 and 512 "
      "and windows 1024 and 8192 are not in the other collection; rows "
      "with a head dim no fused kernel of the target covers (512 on "
      "Hopper) are left out. Held-out part, per release:")
    w("")
    w("| kernels | release | rows | guesses | the other release's fit | "
      "its own fit (target) | goal | met |")
    w("| --- | --- | ---: | --- | --- | --- | --- | --- |")
    for r in stack:
        n, mg, pg = r["guess"]["regimes"]["all"]
        _, mx, px = r["cross"]["regimes"]["all"]
        _, mo, po = r["own"]["regimes"]["all"]
        w(f"| H100 bf16 {r['kind']} | {r['release']} | {n:,} | {pct(mg)} / "
          f"{pct(pg)} | {pct(mx)} / {pct(px)} (`{r['other']}`) | "
          f"{pct(mo)} / {pct(po)} (`{r['target']}`) | median ≤ "
          f"{GOAL_ATTN_MEDIAN:g}% | {met(mo <= GOAL_ATTN_MEDIAN)} |")
    w("")
    w("Cells are median / p90. `test/Predict/refit-decode.test` reruns "
      "the decode fits; `test/Predict/measured-accuracy.test` the held-out "
      "comparison of both stacks.")
    w("")
    w(f"Commands for {label} (as above; `h100-gemm-guess.json` is the H100 "
      "GEMM fit without its attention and decode constants, which start at "
      "their guesses; each fit keeps only its own prefix's constants, "
      "`attention_` then `decode_`):")
    w("")
    w("```")
    w(f"tshape-calibrate --target-file=h100-gemm-guess.json "
      f"$D/context-attention-{name}.csv -o {name}-prefill.json")
    w(f"tshape-calibrate --target-file={name}-prefill.json "
      f"$D/generation-attention-{name}.csv -o {name}-decode.json")
    for f in (f"context-attention-{name}.csv",
              f"generation-attention-{name}.csv"):
        for t in (name, target):
            w(f"tshape-predict --compare --part=held-out --target={t} $D/{f}")
    w("```")
    w("")


def write_moe(w, moe):
    fit = moe["fit"]
    w("## MoE layers")
    w("")
    w("The fused MoE layers of the data (H100, vLLM 0.19's `fused_moe`: "
      "top-k routing over given router logits, the permutation, both "
      "grouped expert GEMMs, the activation and the weighted sum; bf16 and "
      "fp8; balanced and power-law routing) are priced by "
      "`cost::estimateMoeLayer` ([cost-model.md](cost-model.md#moe-layers)): "
      "the MoE block's grouped expert GEMMs over the experts that get a "
      "token, min(E/ep, tokens x k) (at few tokens not every expert's "
      "weights are read), at `grouped_gemm_efficiency` of the library "
      "GEMM's rate, plus the permutation and activation bytes at "
      "`moe_memory_efficiency` of the bandwidth and `moe_overhead_us`. "
      "With `moe_ep` > 1 the measured rank holds every token and computes "
      "its E/ep experts' groups (vLLM's expert parallelism by masking), "
      "while its permutation still moves every routed copy. fp8 layers "
      "run at precision fp8 (FP8 expert GEMMs quantizing their input). "
      "Gate and up run as one grouped GEMM of width 2f, as `fused_moe` "
      "runs its `w13` weight. "
      "Power-law rows (`power_law_A`) are priced by the measured rank's "
      "expected load under the collector's distribution "
      "([cost-model.md](cost-model.md#skewed-routing): the copies and "
      "active experts of the busiest of the moe_ep ranks the sample's "
      "counts fall on at random, the collector's ties spread over the "
      "ranks, through the block's `capacity`; nothing fitted). "
      "`tshape-predict` and "
      "`tshape-calibrate` read the MoE file as it is "
      "([predict.md](predict.md#formats)); every row counts (repeats "
      f"included: {fit['measurements']:,} rows). **Split:** a fixed hash "
      "(splitmix64) of the shape (tokens, hidden, inter, topk, experts, "
      "moe_tp, moe_ep): half the shapes are held out, and every dtype, "
      "distribution and repeat of a shape falls on one side. **Fit:** the "
      "three MoE constants, from their guesses, by `tshape-calibrate`'s "
      "coordinate search (mean |log(predicted / measured)| on a stride "
      f"sample of at most 4,000 of the {fit['fit_rows']:,} fitting rows), "
      "everything else the H100 fit above.")
    w("")
    w("```")
    w("tshape-calibrate --target-file=h100.json $D/moe-h100-sxm.csv "
      "-o h100-moe.json")
    w("tshape-predict --compare --part=held-out --dtype=bf16 "
      "--target-file=h100-moe.json $D/moe-h100-sxm.csv")
    w("tshape-predict --compare --part=held-out --dtype=fp8 "
      "--target-file=h100-moe.json $D/moe-h100-sxm.csv")
    w("```")
    w("")
    w("Fitted: " + ", ".join(f"`{k}` {v:g}"
                             for k, v in sorted(moe["constants"].items()))
      + ". Held-out part:")
    w("")
    w("| dtype, routing | held-out rows | median: earlier → guesses → "
      "fit | p90: earlier → guesses → fit | goal | met |")
    w("| --- | ---: | --- | --- | --- | --- |")
    # The figures this page gave before tshape-predict read MoE rows
    # (commit 4464584, tshape-moe-accuracy: power-law rows priced as
    # balanced, balanced ep > 1 rows with every expert of the rank busy,
    # repeated keys averaged): held-out (median, p90).
    earlier = {("bf16", "balanced routing"): (9.2, 44.3),
               ("bf16", "power-law routing"): (14.5, 53.7),
               ("fp8", "balanced routing"): (11.8, 72.9),
               ("fp8", "power-law routing"): (15.2, 71.6)}
    for dt in ("bf16", "fp8"):
        d = moe["by_dtype"][dt]
        for regime in MOE_ROUTING:
            n, ma, pa = d["after"]["regimes"][regime]
            _, mb, pb = d["before"]["regimes"][regime]
            me, pe = earlier[(dt, regime)]
            w(f"| {dt}, {regime.replace(' routing', '')} | {n:,} | "
              f"{pct(me)} → {pct(mb)} → {pct(ma)} | {pct(pe)} → {pct(pb)} "
              f"→ {pct(pa)} | median ≤ 15% | {met(ma <= 15.0)} |")
    w("")
    w("\"Earlier\" is the figure this page gave before (commit 4464584, "
      "`tshape-moe-accuracy`: power-law rows priced as balanced, a "
      "balanced rank of moe_ep > 1 with all its experts busy at any token "
      "count, repeated keys averaged).")
    w("")
    w("**Decode-sized layers.** A decode step sends batch x k token "
      "copies to E experts: at 1-256 tokens most experts get a few tokens "
      "or none, and the layer reads the active experts' weights. Held-out "
      "median error by the tokens entering the layer, before → after the "
      "few-token work (before: commit 801757e, gate and up priced as two "
      "GEMMs and the power-law rank of moe_ep > 1 as the busiest expert "
      "with E/ep - 1 others of average load; both refitted):")
    w("")
    # Held-out medians of commit 801757e's shipped constants.
    before = {("bf16", "tokens <= 16"): 13.6,
              ("bf16", "16 < tokens <= 256"): 6.3,
              ("bf16", "tokens > 256"): 7.5,
              ("fp8", "tokens <= 16"): 16.5,
              ("fp8", "16 < tokens <= 256"): 7.2,
              ("fp8", "tokens > 256"): 11.2}
    w("| dtype | " + " | ".join(MOE_TOKENS) + " |")
    w("| --- |" + " --- |" * len(MOE_TOKENS))
    for dt in ("bf16", "fp8"):
        cells = []
        for regime in MOE_TOKENS:
            n, m, p = moe["by_dtype"][dt]["after"]["regimes"][regime]
            cells.append(f"{pct(before[(dt, regime)])} → {pct(m)} "
                         f"(p90 {pct(p)}, {n:,} rows)")
        w(f"| {dt} | " + " | ".join(cells) + " |")
    w("")
    w("What moved the few-token figures (fitting half, "
      "[cost-model.md](cost-model.md#moe-layers)): `fused_moe` runs gate "
      "and up as one GEMM, so a layer has two expert GEMMs, two launches "
      "and, under fp8, two input quantizations, not three GEMMs and six "
      "quantization kernels (fp8 layers at one token had been predicted "
      "at 0.99x the bf16 ones, measured 0.79x); and at 4-16 tokens the "
      "busiest of the moe_ep ranks holds more busy experts than the busiest "
      "expert plus average ones (power-law rows of <= 16 tokens with "
      "moe_ep > 1: median bias -14% → -2%, bf16). What remains at 1-16 "
      "tokens: at moe_tp 16-32 (per-rank expert width 64-168) the Triton "
      "kernel's small tiles take up to 3x the weight-read time (moe_tp 16 "
      "slower than moe_tp 8 on some shapes), which no term prices; "
      "balanced ep 1 rows are 9-10% high while power-law ep 1 rows are "
      "5-8% low at the same active-expert counts, a split the model's "
      "per-expert cost cannot make; and the fixed cost, one constant over "
      "all sizes, now sits a little high for the smallest fp8 layers.")
    w("")


def quantile(values, q):
    """The q-quantile as tshape-predict's errorStats takes it."""
    v = sorted(values)
    i = math.ceil(q * len(v))
    return v[min(max(i - 1, 0), len(v) - 1)]


def write_nccl(w, nccl):
    w("## NCCL collectives (one node)")
    w("")
    w("The node tier of the built-in clusters `dgx-a100`, `dgx-h100` and "
      "`dgx-b200` ([clusters.md](clusters.md)) is fitted on the NCCL files "
      "(`nccl-<gpu>.csv`: nccl-tests 2.27.3 inside one 8-GPU node, 2, 4 and "
      "8 ranks; all-reduce, reduce-scatter, all-gather and all-to-all; half "
      "and int8; message sizes 256 to 512 Mi elements). **Split:** by "
      "message size in bytes (the same hash, one size in four held out): "
      "the two parts share no size, and the repeated keys of the H100 "
      "(twice) and B200 (three times) files fall on one side. The fit "
      "starts from the guesses (`--uncalibrated`). The inter-node "
      "(network) tier is **not fitted**: the data has no multi-node "
      "timings, and its figures are datasheet bandwidths with assumed "
      "latency and efficiency.")
    w("")
    w("```")
    w("tshape-calibrate --uncalibrated --target=h100-sxm --cluster=dgx-h100 "
      "$D/nccl-h100-sxm.csv -o dgx-h100.json")
    w("tshape-predict --compare --part=held-out --target=h100-sxm "
      "--cluster=dgx-h100 $D/nccl-h100-sxm.csv")
    w("```")
    w("")
    w("(and `a100-80gb`/`dgx-a100` with `nccl-a100-sxm.csv`, `b200`/"
      "`dgx-b200` with `nccl-b200.csv`; per op from the rows written with "
      "`-o`).")
    w("")
    w("| cluster | held-out sizes (bytes) | rows | median before → after | "
      "p90 before → after | goal | met |")
    w("| --- | --- | ---: | --- | --- | --- | --- |")
    for r in nccl:
        n, mb, pb = r["before"]["regimes"]["all"]
        _, ma, pa = r["after"]["regimes"]["all"]
        sizes = sorted({int(x["message_elements"]) *
                        (1 if x["dtype"] == "int8" else 2)
                        for x in r["rows"]})
        w(f"| {r['cluster']} ({r['label']}) | "
          f"{', '.join(f'{v:,}' for v in sizes)} | {n:,} | {pct(mb)} → "
          f"{pct(ma)} | {pct(pb)} → {pct(pa)} | median ≤ "
          f"{GOAL_NCCL_MEDIAN:g}% | {met(ma <= GOAL_NCCL_MEDIAN)} |")
    w("")
    ops = ["all_reduce", "reduce_scatter", "all_gather", "alltoall"]
    w("Per op, held-out, after (median / p90, rows):")
    w("")
    w("| cluster | " + " | ".join(ops) + " |")
    w("| --- |" + " --- |" * len(ops))
    for r in nccl:
        cells = []
        for op in ops:
            e = [abs(float(x["predicted_us"]) / float(x["latency_us"]) - 1)
                 for x in r["rows"]
                 if x["op"] == op and x.get("predicted_us")]
            cells.append(f"{pct(100 * quantile(e, 0.5))} / "
                         f"{pct(100 * quantile(e, 0.9))}, {len(e)}"
                         if e else "-")
        w(f"| {r['cluster']} | " + " | ".join(cells) + " |")
    w("")
    keys = ["latency_us", "step_latency_us", "efficiency",
            "half_efficiency_bytes", "efficiency_exponent", "rank_offset",
            "in_network_efficiency"]
    w("Fitted node-tier constants (what `lib/Cost/Cluster.cpp` ships; the "
      "script fails when they differ):")
    w("")
    w("| cluster | " + " | ".join(f"`{k}`" for k in keys) + " |")
    w("| --- |" + " ---: |" * len(keys))
    for r in nccl:
        cells = []
        for k in keys:
            v = r["node"][k]
            if k == "in_network_efficiency" and \
                    not r["node"]["in_network_reduction"]:
                cells.append("- (none)")
            elif k == "half_efficiency_bytes":
                cells.append(f"{v:,.0f}")
            else:
                cells.append(f"{v:.4g}")
        w(f"| {r['cluster']} | " + " | ".join(cells) + " |")
    w("")
    w("`hgx-h200` takes the DGX H100 fit and `gb200-nvl72` the DGX B200 fit "
      "(the same NVLink generation; no timings of their own). The largest "
      "residuals are all-to-all (NCCL runs it as n-1 concurrent "
      "sends, whose latency the ring-step term describes only roughly) and "
      "the sizes around NCCL's protocol switches (LL, LL128, Simple), "
      "where the measured time moves by 20-40% from one size to the next; "
      "a smooth efficiency curve does not follow them. "
      "`test/Predict/collective-accuracy.test` reruns the held-out "
      "comparison and the A100 fit.")
    w("")


def write_page(src, results, cross, nccl, stack, moe):
    today = datetime.date.today().isoformat()
    L = []
    w = L.append
    w("# Model accuracy on public GPU timings")
    w("")
    w("Written by `bench/model-accuracy.sh` (do not edit by hand). The cost "
      "model's constants are fitted with `tshape-calibrate` and checked with "
      f"`tshape-predict --compare` on {SOURCE}, as kept in "
      "`../shared/data/measured/` beside the clone. The data is not in this "
      f"repository. Generated {today} on this project's 2-vCPU build machine "
      "(no GPU); the figures depend only on the data and the code, not on "
      "the machine that runs the script.")
    w("")
    w("## Method")
    w("")
    w("- **Split.** Each GEMM row is assigned by its weight shape (n, k), "
      "each prefill attention row by (heads, kv_heads), each decode "
      "attention row by its context length (the `step` cached tokens plus "
      "the new one, as the issue asks: held out by context length), "
      "through a fixed hash (splitmix64, about one in four held out). The "
      "fitting and held-out parts share no shape or context length, and "
      "repeated keys always fall on one side. The held-out context lengths "
      "of the decode files are 2, 4, 8, 512, 4,096, 8,192 and 16,384 "
      "(of 2 to 131,072 in powers of two). Every figure below is on the "
      "**held-out** part.")
    w("- **Fit.** bf16 GEMMs first, starting from the guess constants "
      "(`--uncalibrated`), then the fp8 GEMM rows (H100, B200) from the "
      "bf16 fit (only the FP8 constants move: `fp8_math_efficiency`, "
      "`quantize_efficiency`, `quantize_overhead_us`, `fp8_output_bytes`, "
      "`fp8_sm_efficiency`), then prefill "
      "attention starting from the GEMM fit, then decode attention "
      "starting from that (its decode constants at their guesses), then "
      "(H100) the fused MoE layers ([below](#moe-layers)). B200 has no "
      "attention timings and takes the H100 fit's attention and decode "
      "constants. The H100 attention files without a suffix (vLLM 0.19) "
      "are the default collection; the vLLM 0.24 ones have their own "
      "built-in target ([below](#attention-stacks)).")
    w("- **fp8 rows.** An fp8 GEMM row is vLLM's FP8 linear layer with a "
      "static per-tensor activation scale (the files' source path: "
      "`gemm/vllm/0.19.0`; aiconfigurator's collector builds vLLM's "
      "`Fp8Config` with `activation_scheme=\"static\"`), and its time "
      "includes the quantization of x: at memory-bound shapes the fp8 row "
      "takes about 2.2x the bf16 row (H100, m = 32,768, n = 32, "
      "k = 65,536: 3,270 us against 1,480 us; reading x once in bf16 at "
      "the datasheet bandwidth is 1,282 us), where a bare FP8 GEMM would "
      "be faster than bf16. 3,270 us is 2.55 reads of x: the static cast "
      "(read 2, write 1 byte per element) plus the GEMM's FP8 read of x "
      "(1 byte) is 2 reads at 78% of the datasheet bandwidth, where a "
      "dynamic scale's extra amax pass (6 bytes per element in all) would "
      "need more than the datasheet bandwidth. The model prices the layer "
      "as the GEMM at the FP8 peak plus one cast, 3 bytes per element of "
      "x at `quantize_efficiency` of the bandwidth, plus "
      "`quantize_overhead_us` ([cost-model.md]"
      "(cost-model.md#fp8-linear-layers)). On H100 the GEMM is vLLM's "
      "CUTLASS FP8 kernel as its sm90 dispatch picks it by M, N and K "
      "(swapped small-M tiles, 64 x 128, 128 x 128, 256 x 128 "
      "cooperative; no split-K, no stream-K, whole thread-block "
      "clusters: the target's `fp8_linear_kernels`), each wave of r "
      "CTAs at the longer of one tile at `fp8_sm_efficiency` of an SM's "
      "share of the FP8 peak and r tiles at the chip's "
      "`fp8_math_efficiency`; on B200 vLLM runs FlashInfer's `bmm_fp8` "
      "(a library path), priced as the library's choice over the menu "
      "without split-K (the target's `fp8_split_k`), each CTA at "
      "`fp8_sm_efficiency` of its SM's share of the FP8 peak under the "
      "chip's `fp8_math_efficiency`, its output at `fp8_output_bytes` per "
      "element.")
    w("- **Before** is the model with its guess constants; **after** is the "
      "fit, which the built-in `h100-sxm`, `a100-80gb` and `b200` targets "
      "carry (and `targets/*-calibrated.json`, written by the same run).")
    w("- **Error** of one kernel: |predicted - measured| / measured. "
      "**Direction agreement**: over held-out shapes measured at m and m+1 "
      "(same n, k) whose measured times differ by more than 10%, the "
      "fraction where \"m+1 is more than 5% slower\" is true of both the "
      "prediction and the measurement, or of neither.")
    w("")
    w("Commands (what the script runs, from the build directory, "
      "`D=../../shared/data/measured`):")
    w("")
    w("```")
    w("tshape-calibrate --uncalibrated --dtype=bf16 --target=h100-sxm "
      "$D/gemm-h100-sxm.csv -o h100-gemm.json")
    w("tshape-calibrate --target-file=h100-gemm.json --dtype=fp8 "
      "$D/gemm-h100-sxm.csv -o h100-fp8.json")
    w("tshape-calibrate --target-file=h100-gemm.json "
      "$D/context-attention-h100-sxm.csv -o h100-attn.json")
    w("tshape-calibrate --target-file=h100-attn.json "
      "$D/generation-attention-h100-sxm.csv -o h100.json")
    w("tshape-predict --compare --part=held-out --target=h100-sxm "
      "$D/generation-attention-h100-sxm.csv")
    w("tshape-predict --compare --part=held-out --dtype=bf16 "
      "--target=h100-sxm $D/gemm-h100-sxm.csv")
    w("tshape-predict --compare --part=held-out --dtype=bf16 "
      "--target=h100-sxm --uncalibrated $D/gemm-h100-sxm.csv")
    w("tshape-predict --compare --part=held-out --dtype=fp8 "
      "--target=h100-sxm $D/gemm-h100-sxm.csv")
    w("tshape-calibrate --target-file=h100.json $D/moe-h100-sxm.csv "
      "-o h100-moe.json")
    w("```")
    w("")
    w("(and the same for `a100-80gb` with the `a100-sxm` files, `b200` with "
      "`gemm-b200.csv`). Each `tshape-predict` run also gets "
      "`--report=FILE.json`, and the script takes its figures from that JSON "
      "report ([report-schema.md](report-schema.md#the-accuracy-report)).")
    w("")
    w("## Results (held-out)")
    w("")
    w("| kernels | rows | median before → after | p90 before → after | "
      "goal | met |")
    w("| --- | ---: | --- | --- | --- | --- |")
    for r in results:
        n, mb, pb = r["before"]["regimes"]["all"]
        _, ma, pa = r["after"]["regimes"]["all"]
        if r["kind"] == "GEMM":
            goal = f"≤ {GOAL_GEMM[0]:g}% / ≤ {GOAL_GEMM[1]:g}%"
            ok = ma <= GOAL_GEMM[0] and pa <= GOAL_GEMM[1]
        elif r["kind"] == "fp8 GEMM":
            bf16 = next(x for x in results if x["label"] == r["label"]
                        and x["kind"] == "GEMM")
            _, mbf, pbf = bf16["after"]["regimes"]["all"]
            goal = (f"≤ {mbf + GOAL_FP8_POINTS:.1f}% / ≤ "
                    f"{pbf + GOAL_FP8_POINTS:.1f}% (bf16 + "
                    f"{GOAL_FP8_POINTS:g} points)")
            ok = (ma <= mbf + GOAL_FP8_POINTS and
                  pa <= pbf + GOAL_FP8_POINTS)
        else:
            goal = f"median ≤ {GOAL_ATTN_MEDIAN:g}%"
            ok = ma <= GOAL_ATTN_MEDIAN
        kind = (r["kind"] if r["kind"].startswith("fp8")
                else f"bf16 {r['kind']}")
        w(f"| {r['label']} {kind} | {n:,} | {pct(mb)} → "
          f"{pct(ma)} | {pct(pb)} → {pct(pa)} | {goal} | {met(ok)} |")
    w("")
    w("By regime (after calibration; before in brackets):")
    w("")
    regimes = ["m <= 16", "16 < m <= 256", "m > 256", "< 1 GFLOP",
               "1-100 GFLOP", ">= 100 GFLOP"]
    w("| kernels | " + " | ".join(regimes) + " |")
    w("| --- |" + " --- |" * len(regimes))
    for r in results:
        cells = []
        for g in regimes:
            a = r["after"]["regimes"].get(g)
            b = r["before"]["regimes"].get(g)
            cells.append("-" if not a else
                         f"{pct(a[1])} / {pct(a[2])} "
                         f"({pct(b[1])} / {pct(b[2])}), {a[0]:,} rows")
        w(f"| {r['label']} {r['kind']} | " + " | ".join(cells) + " |")
    w("")
    w("Cells are median / p90. Attention rows have no m; their regimes are "
      "by FLOPs only.")
    w("")
    w("![Predicted against measured time, held-out shapes, log-log]"
      "(model-accuracy.svg)")
    w("")
    w("## Direction m → m+1")
    w("")
    w("A100 has pairs at m = 1 → 2 only, too few to judge a model by; the "
      "goal is for H100 and B200. Kernel-switch drops (the measured time falls by more than 10%) are "
      "counted apart; the headline includes them.")
    w("")
    w("| GPU | pairs | before | after | drops (agree) | after, rises only "
      "| best rule on m alone | \"always slower\" |")
    w("| --- | ---: | --- | --- | --- | --- | --- | --- |")
    for r in results:
        d, db = r["after"]["direction"], r["before"]["direction"]
        if r["kind"] != "GEMM" or not d:
            continue
        ceil = r["ceiling"]
        w(f"| {r['label']} | {d['pairs']:,} | {pct(db['pct'])} | "
          f"{pct(d['pct'])} | {d['drops']} ({d['drops_agree']}) | "
          f"{pct(d['without'])} | {pct(ceil[0]) if ceil else '-'} | "
          f"{pct(ceil[1]) if ceil else '-'} |")
    w("")
    w(f"The goal of {GOAL_DIRECTION:g}% is **not met**. \"Best rule on m "
      "alone\" is the agreement of the best answer that may depend on m but "
      "not on n or k (for each m, whichever of slower / not slower is more "
      "common in the measurements), the best a predicted step that depends "
      "on m alone can do. The tile and wave counts, n and k separate the "
      "rises from the drops only weakly in this data, so this is close to "
      "the ceiling of a tile and wave model; it is below the goal.")
    w("")
    w("## GPUs without data: derived from another GPU's fit")
    w("")
    w("A built-in target without timings (V100, A100 40 GB, H100 PCIe, H200, "
      "L40S, RTX 4090) takes the model constants of the nearest measured "
      "architecture with its own datasheet peaks, bandwidth and SM count "
      "([targets.md](targets.md)). To see what that derivation is worth, "
      "each measured GPU is predicted here from another GPU's fit, on its "
      "held-out GEMMs:")
    w("")
    w("| GPU | constants from | median | p90 | with its own fit | with the "
      "guesses |")
    w("| --- | --- | --- | --- | --- | --- |")
    for dst, origin, r, own in cross:
        _, m, p = r["regimes"]["all"]
        _, mo, po = own["after"]["regimes"]["all"]
        _, mg, pg = own["before"]["regimes"]["all"]
        w(f"| {dst} | {origin} fit | {pct(m)} | {pct(p)} | {pct(mo)} / "
          f"{pct(po)} | {pct(mg)} / {pct(pg)} |")
    w("")
    w("Within one architecture family (the H100 fit for H100 PCIe and H200, "
      "the A100 fit for A100 40 GB) only the datasheet figures change, and "
      "the GPUs run the same kernels; across families the table above is "
      "the evidence. A fit carried to another architecture is worse than "
      "that GPU's own fit, and can be worse than the guesses; the Ada and "
      "Volta targets, whose kernels differ most from the A100's, are the "
      "least certain.")
    w("")
    write_stack(w, stack)
    write_moe(w, moe)
    write_nccl(w, nccl)
    w("## Where the goals are not met, and why")
    w("")
    w("- **Direction.** The measured steps are mostly tail events: at most "
      "grid points the median measured change from m to m+1 is a few "
      "percent, and the pairs that change by more than 10% split into rises "
      "and drops at the same m. Which one happens depends on which kernel "
      "the library picked at m, which a tile and wave model cannot see. "
      "Modelling the library's bucketed tile choice (the tile picked for m "
      "rounded down to a multiple of 64, evaluated at the real m) was tried "
      "on the previous fit: it raised B200 agreement to about 57% and H100 "
      "to 54%, and made the held-out p90 worse by 1.4-1.9 points, so it was "
      "not adopted.")
    w("- **A100 and B200 GEMMs.** The largest residuals are small-m GEMMs "
      "with small N and long K. B200 measures them up to 2x slower than "
      "predicted (e.g. N 768, K 16384 at m = 1). A per-K-step latency floor "
      "describes this physically, but the coordinate search left it at 0 "
      "behind the split-K threshold, so it was removed. Fitted jointly with "
      "the other constants (in a Python copy of the model, 2026-11-23) it "
      "lowers the A100 p90 but raises its median, and "
      "fits to about 0 on B200; a per-wave cost and a per-SM bandwidth cap "
      "did not help either. Some of these residuals are kernel choices: at "
      "m = 1, n = 768 the B200 takes 13.9 us at K = 16384 but 16.5 us at "
      "K = 51200.")
    w(fp8_not_met(results))
    w("- **Attention.** The p90 is large: short sequences are dominated by "
      "the fixed cost, whose spread across batch sizes the model does not "
      "follow. The data has head dims 64 and 128 and windows 0 and 128 "
      "only (vLLM 0.24 adds 192, 256, 1024 and 8192); other head dims are "
      "modelled from the kernels' documented support, not validated. There "
      "are no B200 attention timings. **vLLM 0.24 prefill** met the goal "
      "once the model priced what that stack runs: FlashAttention 3 over "
      "vLLM's paged cache takes the non-TMA path, whose tiles (192 x 128 "
      "at head dim 64, 128 x 96 at 192, 128 x 80 at 256) and packed GQA "
      "(`get_pack_gqa`) the Hopper targets now carry as data; the kernel's "
      "bytes get a bandwidth share of their own; and the K/V cache write "
      "is a kernel of its own whose cost is fitted "
      "([cost-model.md](cost-model.md#fused-attention)). At the shapes "
      "both collections hold, vLLM 0.24's extra time is close to "
      "proportional to the new K/V elements (about 10 ps each from 32 to "
      "16,384 tokens), the cache write's signature; its fit prices the "
      "write at about 1x its datasheet time plus 1.95 us per resident CTA "
      "slot, and vLLM 0.19's at 0. Before (square 128 blocks, unpacked, "
      "the cache write inside the kernel's bytes): held-out 12.6% / 45.4%, "
      "the fit at the edges of its ranges (every tile load from HBM, 99% "
      "of the attention peak). With the cache write priced by its bytes "
      "alone the attention efficiency ended at 1.0, the top of its range; "
      "with its CTAs priced too it fits at 0.846. **A100 prefill**: "
      "FlashAttention 2 over vLLM's paged cache runs its split-KV kernel, "
      "64 query rows x 256 keys at head dim 64 and x 128 at 128 "
      "(`run_mha_fwd_splitkv_dispatch`), and the cache write runs one CTA "
      "per token, bound by its CTAs at few kv heads; with both (the form "
      "chosen by cross-validation on the fitting rows, "
      "[cost-model.md](cost-model.md#fused-attention)) the held-out p90 "
      "fell from 44.7% to 24.2%. Before, with square 128 blocks and the "
      "cache write priced by its bytes alone (fitted at 2.3x its datasheet "
      "time), MHA rows with 24-64 kv heads, held out, were over-predicted "
      "by a median 1.2-1.27x (the fitted cache write scaled with the kv "
      "heads).")
    w("- **Decode attention.** The model is the cache read at datasheet "
      "bandwidth x `decode_memory_efficiency`, the CTA waves x a CTA's "
      "latency (FlashAttention's split-KV heuristic decides the CTAs), "
      "their p-norm, a fixed cost and a split's merge "
      "([cost-model.md](cost-model.md#decode-attention)). On H100 the fit "
      "puts the memory efficiency at its upper edge, 1.0: the p-norm adds "
      "part of the CTA schedule to the memory time, so a large cache "
      "reads at about 0.9 of the datasheet bandwidth in effect; and caches "
      "smaller than the 50 MB L2 read faster than HBM in these timings "
      "(the benchmark reruns the kernel on the same cache, which a real "
      "step over many layers does not), which the model does not "
      "follow. On A100 (FlashAttention 2) the model follows the kernel's "
      "launch logic: the swapped GQA layout, which alone splits, with twice "
      "the SM count in the split heuristic, the merge's loop over the "
      "splits, and the copies of Q and O around the swap; before that the "
      "A100 held-out median was 14.7% (p90 26.5%), with MHA rows "
      "over-predicted by a median 19% and GQA rows at batch 2-64 and 16 "
      "cached tokens under-predicted by 16-20% (their Q copy). "
      "`decode_sm_bandwidth` (one SM's bandwidth) is identified only by "
      "the rows that cannot split the cache (A100 MHA); on H100 every "
      "decode splits and its fit is weakly determined. The FlashAttention "
      "2 merge and copy constants have no effect on Hopper's FlashAttention "
      "3 (a cost per split did not fit its timings better: 8.6% against "
      "8.4%).")
    w("- **Noise floor.** Two collection runs of the same H100 shapes differ "
      "by a median of 3-4% and a p90 of 10-15% (the data's README), so the "
      "GEMM figures are near the limit.")
    w("")
    w("`test/Predict/measured-accuracy.test` (lit feature `measured-data`, "
      "set when `../shared/data/measured` exists) reruns the held-out "
      "comparison with the built-in targets and fails when an error exceeds "
      "the figures above by more than half a point. "
      "`test/Predict/refit-attention.test` reruns the attention fits (about "
      "a second each) and `test/Predict/refit-decode.test` the decode fits "
      "(about 15 s each), and check that they give the shipped constants.")
    # The published training runs' section is bench/training_runs.py's
    # (--update-doc): kept as it stands, at the end.
    path = os.path.join(src, "docs", "model-accuracy.md")
    kept = ""
    if os.path.exists(path):
        old = open(path).read()
        at = old.find(TRAINING_RUNS_MARK)
        if at >= 0:
            kept = "\n" + old[at:]
    with open(path, "w") as f:
        f.write("\n".join(L) + "\n" + kept)


if __name__ == "__main__":
    main()
