#!/usr/bin/env python3
"""The analysis of one model on its lowered IR (tshape-gemm-analysis's
report) and on its tshape IR (tshape-optimize-shapes's "before" report),
at bf16 and at fp8: the step and the findings must be equal on both paths.

usage: compare_paths.py LOWERED_BF16 IR_BF16 LOWERED_FP8 IR_FP8
"""
import json
import sys


def load(lowered, ir):
    low = json.load(open(lowered))
    before = json.load(open(ir))["functions"][0]["before"]["report"]
    return low, before


def findings(r):
    return [(f["parameter"], f["value"], f["suggested"],
             round(f["time_saved_us"], 3)) for f in r["findings"]]


def main():
    steps = {}
    for name, (lowered, ir) in (("bf16", sys.argv[1:3]),
                                ("fp8", sys.argv[3:5])):
        low, before = load(lowered, ir)
        same = (low["totals"]["step_us"] == before["totals"]["step_us"] and
                findings(low) == findings(before))
        print(f"{name}: lowered {'==' if same else '!='} tshape IR: "
              f"step and findings {'equal' if same else 'differ'} "
              f"({low['totals']['step_us']} vs {before['totals']['step_us']}"
              f"; {findings(low)} vs {findings(before)})")
        steps[name] = low
    print("fp8 step " +
          ("shorter" if steps["fp8"]["totals"]["step_us"] <
           steps["bf16"]["totals"]["step_us"] else "not shorter") +
          " than bf16")
    f = steps["fp8"]["findings"][0]
    print(f"fp8 finding: {f['parameter']} {f['value']} -> {f['suggested']}: "
          f"{f['reason']}")


if __name__ == "__main__":
    main()
