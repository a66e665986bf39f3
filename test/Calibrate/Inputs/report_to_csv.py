#!/usr/bin/env python3
"""Turns an analysis report into calibration CSV: the report's predictions
(made with a 'true' target) become the 'measurements', with a deterministic
+-3% perturbation (1 + 0.03 sin(7 i)) standing in for measurement noise."""
import json
import math
import sys
r = json.load(open(sys.argv[1]))
print("batch,m,n,k,dtype,trans_a,trans_b,measured_us")
for i, g in enumerate(r["gemms"]):
    noisy = g["predicted_us"] * (1 + 0.03 * math.sin(7 * i))
    print(f"{g['batch']},{g['m']},{g['n']},{g['k']},{g['dtype']},0,0,{noisy:.4f}")
