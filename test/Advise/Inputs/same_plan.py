"""Compares the plan tshape advise priced (report.json's "plan") with the
one tshape-plan priced (its --report JSON): every figure and the Megatron-LM
arguments must be the same. Prints "same plan: STEP s, MEM GiB" or the keys
that differ."""
import json
import sys

KEYS = ["plan", "gpus", "step_time_s", "time_s", "hidden_time_s",
        "tflops_per_gpu", "hardware_tflops_per_gpu", "mfu", "hfu",
        "tokens_per_s_per_gpu", "bubble_fraction", "model_flops",
        "memory_gib", "memory_per_stage_gib", "peak_stage", "fits",
        "megatron_args"]

advise = json.load(open(sys.argv[1]))["plan"]
plan = json.load(open(sys.argv[2]))
diff = [k for k in KEYS if advise.get(k) != plan.get(k)]
if diff:
    print("plans differ:")
    for k in diff:
        print(f"  {k}: advise {advise.get(k)!r}, tshape-plan {plan.get(k)!r}")
    sys.exit(1)
print(f"same plan: {plan['step_time_s']:.3f} s, "
      f"{max(plan['memory_per_stage_gib']) if isinstance(plan['memory_per_stage_gib'], list) else plan['memory_gib']} GiB")
