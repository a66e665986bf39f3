#!/usr/bin/env python3
"""Times a GEMM list with PyTorch, as a check on tshape-bench-gemms.

  python3 bench/torch_gemms.py LIST.csv > torch.csv

LIST.csv has the columns batch,m,n,k,dtype,trans_a,trans_b (others
ignored); rows with batch 1, trans_a 0 and trans_b 1 (y = x W^T, W stored
[n, k], as nn.Linear keeps it) are timed, bf16 through
torch.nn.functional.linear and fp8 (e4m3, per-tensor scales, bf16 output)
through torch._scaled_mm; other rows are skipped. Each of --iters timed runs
is preceded by a write of 256 MiB, so no operand is left in the L2 by the
run before, and is timed alone with CUDA events; the median is reported, as
tshape-bench-gemms reports its own. Output: the shape, torch_us, and the
error or 'skipped' in `note`. Needs a GPU and PyTorch (the lent device
machines have both; nothing here is used by the tools).
"""
import argparse
import csv
import statistics
import sys

import torch


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("list")
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--iters", type=int, default=20)
    a = p.parse_args()
    dev = torch.device("cuda")
    flush = torch.empty(256 << 20, dtype=torch.uint8, device=dev)
    w = csv.writer(sys.stdout, lineterminator="\n")
    w.writerow(["batch", "m", "n", "k", "dtype", "trans_a", "trans_b",
                "torch_us", "note"])
    seen = set()
    for r in csv.DictReader(open(a.list)):
        key = tuple(r[c] for c in ("batch", "m", "n", "k", "dtype",
                                   "trans_a", "trans_b"))
        if key in seen:
            continue
        seen.add(key)
        b, m, n, k = (int(x) for x in key[:4])
        dtype = key[4]
        if b != 1 or key[5] != "0" or key[6] != "1" or \
                dtype not in ("bf16", "fp8"):
            w.writerow(list(key) + ["", "skipped"])
            continue
        try:
            x = torch.rand(m, k, device=dev, dtype=torch.bfloat16) * 2 - 1
            wt = torch.rand(n, k, device=dev, dtype=torch.bfloat16) * 2 - 1
            if dtype == "bf16":
                run = lambda: torch.nn.functional.linear(x, wt)
            else:
                xf = x.to(torch.float8_e4m3fn)
                wf = wt.to(torch.float8_e4m3fn)
                one = torch.ones((), device=dev, dtype=torch.float32)
                run = lambda: torch._scaled_mm(xf, wf.t(), scale_a=one,
                                               scale_b=one,
                                               out_dtype=torch.bfloat16)
            for _ in range(a.warmup):
                run()
            times = []
            for _ in range(a.iters):
                flush.zero_()
                s = torch.cuda.Event(enable_timing=True)
                e = torch.cuda.Event(enable_timing=True)
                s.record()
                run()
                e.record()
                e.synchronize()
                times.append(s.elapsed_time(e) * 1000.0)
            w.writerow(list(key) + [f"{statistics.median(times):.3f}", ""])
        except Exception as ex:  # one shape's failure is noted, not fatal
            w.writerow(list(key) + ["", str(ex).splitlines()[0][:120]])
        sys.stdout.flush()


if __name__ == "__main__":
    main()
