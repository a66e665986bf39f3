#!/usr/bin/env python3
"""Reads optimized tshape IR on stdin and the optimizer's remarks from a
file; prints vocab, head_dim and the parameter change, and whether vocab and
head_dim are multiples of 64 and the change is within the budget (percent).
Usage: check_aligned.py REMARKS BUDGET_PERCENT < optimized.mlir"""
import re
import sys

ir = sys.stdin.read()
remarks = open(sys.argv[1]).read()
budget = float(sys.argv[2])
vocab = int(re.search(r"tshape\.embedding %\w+ vocab = (\d+)", ir).group(1))
attn = re.search(r"tshape\.attention %\w+ heads = (\d+) kv_heads = (\d+)"
                 r"(?: head_dim = (\d+))?.*: tensor<\d+x\d+x(\d+)x", ir)
heads, hidden = int(attn.group(1)), int(attn.group(4))
head_dim = int(attn.group(3)) if attn.group(3) else hidden // heads
m = re.search(r"parameters \d+ -> \d+ \(([+-][0-9.]+)%\)", remarks)
delta = float(m.group(1)) if m else 0.0
ok = vocab % 64 == 0 and head_dim % 64 == 0 and abs(delta) <= budget
print(f"vocab {vocab} head_dim {head_dim} params {delta:+.3f}% "
      + ("aligned-within-budget" if ok else "NOT-OK"))
