#!/usr/bin/env python3
"""Checks `tshape-translate --hf-config-params` output (stdin) against a
published parameter count: the card's total within --total-tol (default 1%)
and, with --active, the active count within --active-tol (default 2%).

  --active-key   which line is the active count: `active` (the embedding
                 table counted, as most cards do) or `active_without_embedding`
                 (gpt-oss, DeepSeek: their active counts leave the table out)
  --plus N       added to tshape's total before the comparison: a part the
                 card counts and the config does not hold (a vision tower), or
                 a second stored copy of a tied table (`embedding`)

Prints `ok NAME total ... active ...` with the relative differences, or
`FAIL ...` and exits 1.
"""
import argparse
import re
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("name")
    ap.add_argument("--total", type=float, required=True)
    ap.add_argument("--total-tol", type=float, default=0.01)
    ap.add_argument("--active", type=float)
    ap.add_argument("--active-tol", type=float, default=0.02)
    ap.add_argument("--active-key", default="active",
                    choices=["active", "active_without_embedding"])
    ap.add_argument("--plus", default="0")
    a = ap.parse_args()

    counts = {}
    for line in sys.stdin:
        m = re.match(r"^(\w+): (-?\d+)", line)
        if m:
            counts[m.group(1)] = int(m.group(2))
    for key in ("total", "active", "embedding", a.active_key):
        if key not in counts:
            print(f"FAIL {a.name}: no '{key}:' line in the input")
            return 1
    plus = counts["embedding"] if a.plus == "embedding" else int(float(a.plus))

    failed = False
    words = [a.name]

    def check(what, ours, card, tol):
        nonlocal failed
        diff = (ours - card) / card
        ok = abs(diff) <= tol
        failed |= not ok
        words.append(f"{what} {ours / 1e9:.2f}B vs {card / 1e9:g}B "
                     f"{diff * 100:+.2f}% (bound {tol * 100:g}%)"
                     + ("" if ok else " OUTSIDE"))

    check("total", counts["total"] + plus, a.total, a.total_tol)
    if a.active is not None:
        check(a.active_key, counts[a.active_key], a.active, a.active_tol)
    print(("FAIL " if failed else "ok ") + " ".join(words))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
