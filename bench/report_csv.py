#!/usr/bin/env python3
"""Analysis report (tshape-gemm-analysis report=...) -> the GEMM list with
its predictions, one row per GEMM in report order, with the role group and
the model's parameter values of each GEMM. tshape-bench-gemms reads
it (it needs batch,m,n,k,dtype,trans_a,trans_b and ignores the rest), and
bench/join.py sets its measurements beside the predictions.
Usage: report_csv.py REPORT.json > GEMMS.csv"""
import json
import sys

r = json.load(open(sys.argv[1]))
print("name,layer,batch,m,n,k,dtype,trans_a,trans_b,predicted_us,"
      "predicted_tflops,predicted_tile,predicted_waves,group,params")
for g in r["gemms"]:
    tile = "x".join(str(v) for v in g["tile"])
    # The model's parameter values, as the report gives them (never
    # re-derived from the sizes): "ffn=11008;hidden=4096;...".
    params = ";".join(f"{k}={v}" for k, v in g.get("params", {}).items())
    print(f"{g['name']},{g['layer']},{g['batch']},{g['m']},{g['n']},"
          f"{g['k']},{g['dtype']},{int(g['trans_a'])},{int(g['trans_b'])},"
          f"{g['predicted_us']},{g['tflops']},{tile},{g['waves']},"
          f"{g['group']},{params}")
