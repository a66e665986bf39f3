#!/usr/bin/env python3
"""K-fold cross-validation of the prefill-attention fit on the FITTING part
of one attention file only (how the fused-attention form was chosen,
docs/cost-model.md#fused-attention). The held-out rows (splitmix64 of
(heads, kv_heads) mod 4 == 0, as tshape-predict --part splits them) are
dropped unread; the fitting rows are grouped by (heads, kv_heads) into
folds by bits 8 and up of the same hash; each fold is predicted by
tshape-calibrate's fit (from START, e.g. the GEMM fit with the attention
constants at their guesses) on the other folds. Prints the median and p90
of |predicted - measured| / measured over every fitting row, and each
fold's rows, median and fitted attention constants.

  attention_cv.py --bin build/bin --start a100-gemm.json \\
      ../shared/data/measured/context-attention-a100-sxm.csv [--folds 4]"""
import argparse
import csv
import json
import os
import statistics
import subprocess
import tempfile

MASK = (1 << 64) - 1


def splitmix(z):
    z &= MASK
    z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & MASK
    z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & MASK
    return z ^ (z >> 31)


def shape_hash(a, b):
    """lib/Predict/Accuracy.cpp's shapeHash."""
    return splitmix(((a * 0x9e3779b97f4a7c15) & MASK) ^ b)


def quantile(sorted_values, q):
    """The errorStats quantile: the ceil(q n)-th smallest."""
    i = -(-q * len(sorted_values) // 1)
    return sorted_values[min(len(sorted_values) - 1, max(0, int(i) - 1))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--start", required=True)
    ap.add_argument("--folds", type=int, default=4)
    ap.add_argument("data")
    a = ap.parse_args()
    lines = open(a.data).read().splitlines()
    source, header, rows = lines[0], lines[1], lines[2:]
    col = {c: i for i, c in enumerate(header.split(","))}
    fit = []
    for r in rows:
        f = r.split(",")
        h = shape_hash(int(f[col["heads"]]), int(f[col["kv_heads"]]))
        if h % 4 != 0:
            fit.append(((h >> 8) % a.folds, r))
    work = tempfile.mkdtemp(prefix="attention-cv-")
    errors = []
    for k in range(a.folds):
        train, test = (os.path.join(work, f"{n}{k}.csv") for n in ("train", "test"))
        for path, keep in ((train, lambda fo: fo != k), (test, lambda fo: fo == k)):
            with open(path, "w") as out:
                out.write("\n".join([source, header] +
                                    [r for fo, r in fit if keep(fo)]) + "\n")
        fitted = os.path.join(work, f"fit{k}.json")
        subprocess.run([os.path.join(a.bin, "tshape-calibrate"),
                        f"--target-file={a.start}", train, "-o", fitted],
                       check=True, capture_output=True)
        out = subprocess.run([os.path.join(a.bin, "tshape-predict"),
                              f"--target-file={fitted}", test], check=True,
                             capture_output=True, text=True).stdout
        e = [abs(float(x["predicted_us"]) - float(x["latency_us"])) /
             float(x["latency_us"])
             for x in csv.DictReader(l for l in out.splitlines()
                                     if not l.startswith("#"))
             if x["predicted_us"]]
        errors += e
        constants = {c: round(v, 3) for c, v in json.load(open(fitted)).items()
                     if c.startswith("attention_")}
        print(f"fold {k}: {len(e)} rows, median {100 * statistics.median(e):.1f}%, {constants}")
    errors.sort()
    print(f"cross-validated: {len(errors)} rows, median "
          f"{100 * quantile(errors, 0.5):.1f}%, p90 {100 * quantile(errors, 0.9):.1f}%")


if __name__ == "__main__":
    main()
