"""Reads tshape-predict --compare output on stdin and fails when the 'all'
line's median or p90 error exceeds the given bounds (percent)."""
import re
import sys

median_max, p90_max = float(sys.argv[1]), float(sys.argv[2])
text = sys.stdin.read()
m = re.search(r"^\s+all\s+(\d+)\s+([\d.]+)%\s+([\d.]+)%", text, re.M)
if not m:
    sys.exit("no 'all' line in:\n" + text)
rows, median, p90 = int(m.group(1)), float(m.group(2)), float(m.group(3))
status = "ok" if median <= median_max and p90 <= p90_max else "REGRESSED"
print(f"{status}: {rows} rows, median {median}% (max {median_max}%), "
      f"p90 {p90}% (max {p90_max}%)")
sys.exit(0 if status == "ok" else 1)
