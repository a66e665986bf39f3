#!/usr/bin/env python3
"""Analysis report (with measured_us from tshape-run-gemms) -> CSV, in the
format tshape-calibrate reads, or with the prediction, cuBLASLt's choice and
the name columns.
Usage: report_csv.py REPORT.json [--calibration]"""
import json
import sys

r = json.load(open(sys.argv[1]))
calib = "--calibration" in sys.argv
print("batch,m,n,k,dtype,trans_a,trans_b,measured_us" if calib else
      "name,layer,batch,m,n,k,dtype,predicted_us,measured_us,"
      "predicted_tflops,measured_tflops,prediction_error,"
      "predicted_tile,library_tile,predicted_waves,library_waves")
for g in r["gemms"]:
    if "measured_us" not in g:
        continue
    ta, tb = int(g["trans_a"]), int(g["trans_b"])
    if calib:
        print(f"{g['batch']},{g['m']},{g['n']},{g['k']},{g['dtype']},{ta},"
              f"{tb},{g['measured_us']}")
    else:
        mt = g["flops"] / (g["measured_us"] * 1e6)
        tile = "x".join(str(v) for v in g["tile"])
        lib = "x".join(str(v) for v in g["library_tile"])
        print(f"{g['name']},{g['layer']},{g['batch']},{g['m']},{g['n']},"
              f"{g['k']},{g['dtype']},{g['predicted_us']},{g['measured_us']},"
              f"{g['tflops']},{mt:.3f},{g['prediction_error']},{tile},{lib},"
              f"{g['waves']},{g['library_waves']}")
