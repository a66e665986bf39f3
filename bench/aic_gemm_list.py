#!/usr/bin/env python3
"""A GEMM list for tshape-bench-gemms from an aiconfigurator GEMM table.

  bench/aic_gemm_list.py ../shared/data/measured/gemm-h100-sxm.csv \
      [--per-dtype=N] [--max-us=X] [--min-us=X] > list.csv

The tables time `y = x W^T` with x m x k and W stored [n, k] (README of the
measured data), which is trans_a = 0, trans_b = 1 here. Rows are taken by a
fixed stride per dtype, after keeping those whose published latency lies in
[--min-us, --max-us] and whose operands fit in 192 MiB, so the list times in
minutes on one GPU. The published latency travels as `aic_us` (ignored by
tshape-bench-gemms, joined back by bench/join.py's caller). The table is
third-party data: write the list to an ignored folder, never commit it.
"""
import argparse
import csv
import sys


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("table")
    p.add_argument("--per-dtype", type=int, default=300)
    p.add_argument("--min-us", type=float, default=3.0)
    p.add_argument("--max-us", type=float, default=3000.0)
    a = p.parse_args()
    rows = {}
    with open(a.table) as f:
        lines = (l for l in f if not l.startswith("#"))
        for r in csv.DictReader(lines):
            m, n, k = int(r["m"]), int(r["n"]), int(r["k"])
            us = float(r["latency_us"])
            if not a.min_us <= us <= a.max_us:
                continue
            if (m * k + n * k + m * n) * 2 > 192 << 20:
                continue
            rows.setdefault(r["dtype"], []).append((m, n, k, us))
    w = csv.writer(sys.stdout, lineterminator="\n")
    w.writerow(["batch", "m", "n", "k", "dtype", "trans_a", "trans_b",
                "aic_us"])
    for dtype in sorted(rows):
        rs = sorted(rows[dtype])
        stride = max(1, len(rs) // a.per_dtype)
        for m, n, k, us in rs[::stride][: a.per_dtype]:
            w.writerow([1, m, n, k, dtype, 0, 1, us])


if __name__ == "__main__":
    main()
