#!/usr/bin/env python3
"""Every example model x every lowering option x tp in {1, 2, 4, 8}, and
every example's FP8 training step at tp 1.

For each combination the importer accepts (a tp that does not divide the
heads, kv heads, FFN size or vocabulary is rejected by rules A3/A4/M1/V1 and
counted as skipped), this runs tshape-test-gemm-consistency (the lowered
contractions are exactly the model's GEMM list) and tshape-gemm-analysis,
then checks that every finding's `value` is the model's own value of the
parameter it names: global, not per rank, not a multiple. The model's values
are read from the imported tshape IR, not from the analysis.

usage: sweep_examples.py EXAMPLES_DIR TMP_DIR
"""
import glob
import json
import os
import re
import subprocess
import sys

OPTIONS = ["", "phase=train", "fuse-gated-mlp=true",
           "phase=train fuse-gated-mlp=true"]


def model_values(ir):
    """The hyperparameters of the (uniform) imported model, by report name."""
    v = {}
    att = re.search(r"tshape\.attention %\S+ heads = (\d+) kv_heads = (\d+)"
                    r"(?: head_dim = (\d+))?[^:]*: tensor<(\d+)x(\d+)x(\d+)x",
                    ir)
    if not att:
        # Multi-head latent attention: its ranks and head dims by name, one
        # key/value per head.
        att = re.search(r"tshape\.mla %\S+ heads = (\d+)()()([^:]*): "
                        r"tensor<(\d+)x(\d+)x(\d+)x", ir)
        for name, value in re.findall(r"(\w+) = (\d+)", att.group(4)):
            v[name] = int(value)
        att = re.search(r"tshape\.mla %\S+ heads = (\d+)()()[^:]*: "
                        r"tensor<(\d+)x(\d+)x(\d+)x", ir)
        v["heads"] = v["kv_heads"] = int(att.group(1))
    else:
        v["heads"], v["kv_heads"] = int(att.group(1)), int(att.group(2))
    v["microbatch"], v["seq"], v["hidden"] = (int(att.group(4)),
                                              int(att.group(5)),
                                              int(att.group(6)))
    v["head_dim"] = int(att.group(3)) if att.group(3) else None
    v["ffn"] = int(re.search(r"inner = (\d+)", ir).group(1))
    moe = re.search(r"tshape\.moe %\S+ experts = (\d+) topk = (\d+) "
                    r"inner = (\d+)[^:]*", ir)
    if moe:
        v["experts"], v["topk"], v["moe_ffn"] = map(int, moe.groups())
        shared = re.search(r"shared_experts = (\d+) shared_inner = (\d+)",
                           moe.group(0))
        if shared:
            v["shared_experts"], v["shared_ffn"] = map(int, shared.groups())
    vocab = re.search(r"vocab = (\d+)", ir)
    v["vocab"] = int(vocab.group(1)) if vocab else None
    return v


def main():
    examples, tmp = sys.argv[1], sys.argv[2]
    os.makedirs(tmp, exist_ok=True)
    counts = {"runs": 0, "fp8": 0, "findings": 0, "wrong": 0}
    skipped = 0

    def check(ir, values, opts, where, counter):
        """Consistency (the lowered contractions are the model's kernels,
        posed alike under the run) and the analysis' findings, on `ir`."""
        report = os.path.join(tmp, "report.json")
        run = subprocess.run(
            ["tshape-opt", f"--tshape-test-gemm-consistency={opts}",
             f"--tshape-gemm-analysis=report={report} remarks=none",
             "-mlir-print-op-on-diagnostic=false", "-o", os.devnull],
            input=ir, capture_output=True, text=True)
        if run.returncode != 0 or "contractions match" not in run.stderr:
            print(f"MISMATCH {where}: {run.stderr.strip()[:400]}")
            counts["wrong"] += 1
            return
        counts[counter] += 1
        for f in json.load(open(report))["findings"]:
            counts["findings"] += 1
            own = values.get(f["parameter"])
            if f["value"] != own:
                print(f"WRONG {where}: {f['parameter']} "
                      f"{f['value']} != config's {own}")
                counts["wrong"] += 1

    for path in sorted(glob.glob(os.path.join(examples, "*.json"))):
        name = os.path.basename(path)
        for tp in (1, 2, 4, 8):
            imp = subprocess.run(["tshape-translate", "--import-hf-config",
                                  path, f"--tp={tp}"],
                                 capture_output=True, text=True)
            if imp.returncode != 0:
                skipped += 1
                continue
            values = model_values(imp.stdout)
            for opts in OPTIONS:
                check(imp.stdout, values, opts, f"{name} tp={tp} [{opts}]",
                      "runs")
        # An FP8 training step at tp = 1: every weight GEMM an FP8 linear
        # layer on both sides, the findings still the config's own values.
        imp = subprocess.run(["tshape-translate", "--import-hf-config", path,
                              "--precision=fp8"],
                             capture_output=True, text=True)
        if imp.returncode == 0:
            check(imp.stdout, model_values(imp.stdout), "phase=train",
                  f"{name} fp8 [phase=train]", "fp8")
    print(f"runs: {counts['runs']} (skipped by the importer's rules: "
          f"{skipped} x {len(OPTIONS)} options)")
    print(f"fp8 training runs: {counts['fp8']}")
    print(f"findings checked: {counts['findings']}, wrong or mismatched: "
          f"{counts['wrong']}")
    return 1 if counts["wrong"] else 0


if __name__ == "__main__":
    sys.exit(main())
