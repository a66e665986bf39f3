"""Compares the analysis `tshape advise` embeds in report.json with the
tshape-gemm-analysis report of the same model and run: findings, the
checklist, the step and the GEMM count must agree. Prints 'same' or the
first difference (and exits 1)."""
import json
import sys

advise = json.load(open(sys.argv[1]))["analysis"]
passes = json.load(open(sys.argv[2]))
for key in ("findings", "guidelines"):
    if advise[key] != passes[key]:
        print("%s differ:\n  advise: %s\n  passes: %s" % (key, advise[key], passes[key]))
        sys.exit(1)
if advise["totals"] != passes["totals"]:
    print("totals differ: %s vs %s" % (advise["totals"], passes["totals"]))
    sys.exit(1)
if len(advise["gemms"]) != len(passes["gemms"]):
    print("gemm counts differ: %d vs %d" % (len(advise["gemms"]), len(passes["gemms"])))
    sys.exit(1)
print("same: %d findings, %d rules, %d GEMMs" % (
    len(advise["findings"]), len(advise["guidelines"]), len(advise["gemms"])))
