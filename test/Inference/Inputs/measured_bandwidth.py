#!/usr/bin/env python3
"""Check a decode report's step time against a measured HBM bandwidth.

usage: measured_bandwidth.py GEMM_CSV < report

The bandwidth is measured, not assumed: the bf16 GEMMs at m = 1 of GEMM_CSV
(aiconfigurator's H100 SXM timings, ../shared/data/measured) that move at least
256 MB are weight reads (a GEMV reads its n x k weight once); the median of
their bytes / latency is the bandwidth a weight read reaches. The report's
first decode line gives the predicted step and the bytes it reads (weights and
KV cache, in GiB). Prints the bandwidth, the bytes / bandwidth time, the
prediction, their ratio, the regime the report states, and whether the ratio lies within 25%.
"""
import csv
import re
import statistics
import sys


def measured_bandwidth(path):
    rates = []
    with open(path) as f:
        next(f)  # the "# source:" line
        for r in csv.DictReader(f):
            if r["dtype"] != "bf16" or int(r["m"]) != 1:
                continue
            n, k = int(r["n"]), int(r["k"])
            moved = 2 * (n * k + k + n)  # W, x and y in bf16
            if moved >= 256e6:
                rates.append(moved / (float(r["latency_us"]) * 1e-6))
    if not rates:
        sys.exit("no bf16 m = 1 GEMM of 256 MB or more in " + path)
    return len(rates), statistics.median(rates)


def main():
    count, bw = measured_bandwidth(sys.argv[1])
    text = sys.stdin.read()
    m = re.search(r"step ([0-9.]+) us,.*?memory per GPU [0-9.]+ GiB "
                  r"\(weights ([0-9.]+), KV cache ([0-9.]+)", text)
    if not m:
        sys.exit("no decode report line in the input")
    step_us = float(m.group(1))
    moved = (float(m.group(2)) + float(m.group(3))) * 2**30
    ideal_us = moved / bw * 1e6
    ratio = step_us / ideal_us
    print(f"measured bandwidth {bw / 1e12:.2f} TB/s over {count} GEMVs")
    print(f"bytes {moved / 1e9:.2f} GB: {ideal_us / 1e3:.2f} ms at that bandwidth;"
          f" predicted {step_us / 1e3:.2f} ms, ratio {ratio:.3f}")
    regime = re.search(r"; (memory|compute)-bound;", text)
    print("reported " + (regime.group(1) + "-bound" if regime else "with no regime"))
    print("within 25%" if 0.75 <= ratio <= 1.25 else "NOT within 25%")


if __name__ == "__main__":
    main()
