#!/usr/bin/env python3
"""Sets tshape-bench-gemms' measurements beside the predictions, row by row
(both files list the same GEMMs in the same order; a mismatch is an error).
Usage: join.py GEMMS.csv MEASURED.csv > SWEEP.csv"""
import csv
import sys

pred = list(csv.DictReader(open(sys.argv[1])))
meas = list(csv.DictReader(open(sys.argv[2])))
if len(pred) != len(meas):
    sys.exit(f"join: {sys.argv[1]} has {len(pred)} GEMMs, {sys.argv[2]} "
             f"{len(meas)}")
key = ("batch", "m", "n", "k", "dtype", "trans_a", "trans_b")
print("name,layer,batch,m,n,k,dtype,trans_a,trans_b,predicted_us,measured_us,"
      "predicted_tflops,measured_tflops,prediction_error,predicted_tile,"
      "library_tile,predicted_waves,library_waves,max_rel_error,group,params")
for i, (p, m) in enumerate(zip(pred, meas)):
    if any(p[c] != m[c] for c in key):
        sys.exit(f"join: row {i + 2} differs: "
                 f"{[p[c] for c in key]} vs {[m[c] for c in key]}")
    pu, mu = float(p["predicted_us"]), float(m["measured_us"])
    print(f"{p['name']},{p['layer']},{','.join(p[c] for c in key)},{pu},{mu},"
          f"{p['predicted_tflops']},{m['tflops']},{(pu - mu) / mu:.4f},"
          f"{p['predicted_tile']},{m['tile_m']}x{m['tile_n']},"
          f"{p['predicted_waves']},{m['waves_count']},{m['max_rel_error']},"
          f"{p.get('group', 'other')},{p.get('params', '')}")
