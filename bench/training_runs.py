#!/usr/bin/env python3
"""tshape-plan against published whole training runs.

Reads ../shared/data/published/training-runs.json (Megatron-Bridge 26.x
performance tables with each run's full plan; the file's README says how
they were measured), prices every run on a tshape cluster with tshape-plan
under the run's own plan, and prints the error of the predicted tokens/s
per GPU against the published one, per run and grouped by system and by
dense or MoE, for the fit part and the held-out part of the file.

A run tshape cannot express is listed with the reason (the first one found)
and is not priced: a model family tshape does not import (Nemotron 3's
Mamba layers), a precision it does not price (NVFP4); or tshape-plan's
own error (a layer count the
run's pipeline does not divide where Bridge's layout has no tshape form:
none left in the data). DeepSeek-V3's layouts are given as Megatron-LM's
layout strings (LAYOUT). Activation CPU offload is priced
(--offload-layers), and the models whose Megatron-Bridge recipe counts the
embedding and the loss in the pipeline split are run so (PIPELINE_SPLIT).
Recompute modules are priced as the run names them (--recompute-modules).
Approximations a priced run carries are named in its notes: CUDA graphs
and the MoE dispatcher's kind are not modelled.

The split: a run is in the held-out part when a hash of its plan (model,
system, precision, GPUs, degrees, batch, sequence) is odd, so that the same
plan measured in several releases lands in one part. No constant of tshape
has been fitted on this file yet; both parts are reported so that a fit can
use the first and be judged on the second (docs/model-accuracy.md).

Python standard library only; the figures are those of tshape-plan's JSON
report (docs/report-schema.md).

With --search-rank it also runs tshape-plan --search on each priced run's
GPUs, global batch, sequence and precision (its ep and expert overlap fixed) and says which
group of equals the published plan's predicted step falls in (the issue's
"published plan among the top 3, equals grouped"; about two minutes).

usage: training_runs.py [--build BUILD] [--data FILE] [--search-rank]
                        [--update-doc]
"""
import argparse
import datetime
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.path.join(os.path.dirname(ROOT), "shared", "data")

# The architecture each published model name trains: a real config of
# ../shared/data/hf-configs, or a bundled example written from the model
# card (the Llama 3 configs are gated, the shapes public).
MODELS = {
    "LLAMA3.1_405B": ("examples", "llama-3.1-405b.json", "dense"),
    "LLAMA3_70B": ("examples", "llama-3-70b.json", "dense"),
    "DeepSeekV3": ("hf-configs", "deepseek-v3.json", "moe"),
    "Qwen3_235B_a22B": ("hf-configs", "qwen3-235b-a22b.json", "moe"),
    "Qwen3_30B_a3B": ("hf-configs", "qwen3-30b-a3b.json", "moe"),
    "GPT OSS 120B": ("hf-configs", "gpt-oss-120b.json", "moe"),
    "Kimi-K2": ("hf-configs", "kimi-k2-instruct.json", "moe"),
}
# The precision names of the file (its README) as tshape-plan's options.
PRECISION = {"BF16": [], "FP8-CS": ["--precision=fp8"],
             "FP8-MX": ["--precision=mxfp8"]}
# Models whose Megatron-Bridge base recipe sets
# account_for_embedding_in_pipeline_split and
# account_for_loss_in_pipeline_split, which the benchmark recipes inherit
# (Megatron-Bridge 067f987d: src/megatron/bridge/recipes/llama/h100/
# llama3.py:1218-1228 for Llama 3.1 405B; recipes/qwen/h100/qwen3_moe.py:
# 248-262 for Qwen3-235B-A22B). A plan fact, not a fitted one.
PIPELINE_SPLIT = {"LLAMA3.1_405B", "Qwen3_235B_a22B"}
# DeepSeek-V3's pipeline layouts as Megatron-Bridge's performance scripts
# set them (scripts/performance/utils/overrides.py:600-609 calls
# set_deepseek_v3_pipeline_model_parallel_layout; the table is
# src/megatron/bridge/recipes/deepseek/h100/deepseek_v3.py:50-58 at
# 067f987d): 16 chunks, the embedding and 4 decoder layers, 14 of 4, then 1
# decoder layer with the MTP layer and the loss, at pp 16 (vp 1), pp 8 (vp
# 2) and pp 4 (vp 4). Written as Megatron-LM's layout string
# (--pipeline-layout). A plan fact, not a fitted one.
DEEPSEEK_V3_16 = "Etttt|(tttt|)*14tmL"
LAYOUT = {("DeepSeekV3", 16, 1): DEEPSEEK_V3_16,
          ("DeepSeekV3", 8, 2): DEEPSEEK_V3_16,
          ("DeepSeekV3", 4, 4): DEEPSEEK_V3_16}
GOAL_EACH, GOAL_MEAN = 15.0, 8.0


def config_path(model):
    where, name, _ = MODELS[model]
    if where == "examples":
        return os.path.join(ROOT, "examples", name)
    return os.path.join(SHARED, "hf-configs", name)


def held_out(case):
    key = "|".join(str(case[k]) for k in (
        "model", "system", "precision", "gpus", "tp", "pp", "cp", "vp", "ep",
        "etp", "mbs", "gbs", "seq"))
    return hashlib.sha256(key.encode()).digest()[0] % 2 == 1


def plan_of(case):
    """(tshape-plan arguments, notes) for a run, or (None, reason)."""
    if case["model"] not in MODELS:
        return None, f"model family not imported ({case['model']})"
    if case["precision"] not in PRECISION:
        return None, f"precision {case['precision']} not priced"
    path = config_path(case["model"])
    if not os.path.exists(path):
        return None, f"no config ({os.path.basename(path)})"
    tp, pp, cp, ep = case["tp"], case["pp"], case["cp"], case["ep"]
    vp = case["vp"] or 1
    etp = case["etp"]
    moe = MODELS[case["model"]][2] == "moe"
    notes = []
    recompute = ["--recompute=none"]
    rc = case.get("recompute")
    if rc and rc.get("modules"):
        # Megatron-LM's selective recompute with these modules
        # (--recompute-modules): tshape-plan takes the same names.
        recompute = ["--recompute-modules=" + ",".join(rc["modules"])]
    if case.get("cuda_graph"):
        notes.append("CUDA graphs not modelled")
    if moe and case.get("moe_dispatcher"):
        notes.append(f"{case['moe_dispatcher']} dispatcher not modelled")
    args = [path, f"--cluster={case['tshape_cluster']}",
            f"--gpus={case['gpus']}", f"--tp={tp}", f"--pp={pp}",
            f"--cp={cp}", f"--microbatch={case['mbs']}",
            f"--global-batch={case['gbs']}", f"--seq={case['seq']}",
            *recompute,
            "--sharding=" + ("fsdp" if case["fsdp"] else
                             "distributed-optimizer")]
    if moe:
        args.append(f"--ep={ep}")
        if etp is not None and etp != tp:
            args.append(f"--etp={etp}")
    # The Bridge preset's moe_a2a_overlap is Megatron-LM's
    # overlap_moe_expert_parallel_comm (a plan fact of the run).
    if moe and case.get("moe_a2a_overlap"):
        args.append("--overlap-ep-comm")
    if case.get("cpu_offload_layers"):
        args.append(f"--offload-layers={case['cpu_offload_layers']}")
        notes.append("offload priced as activations only")
    if case["model"] in PIPELINE_SPLIT and pp > 1:
        args += ["--embedding-in-split", "--loss-in-split"]
    layout = LAYOUT.get((case["model"], pp, vp))
    if layout:
        args.append(f"--pipeline-layout={layout}")
    if vp > 1 and not layout:
        args.append(f"--vp={vp}")
    if tp > 1:
        args.append("--sequence-parallel")
    args += PRECISION[case["precision"]]
    return args, notes


def predict(plan_bin, args):
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "plan.json")
        run = subprocess.run([plan_bin] + args + [f"--report={report}"],
                             capture_output=True, text=True)
        if not os.path.exists(report):
            err = (run.stderr.strip().splitlines() or ["no report"])[-1]
            return None, err.replace("tshape-plan: error: ", "")
        r = json.load(open(report))
        # A run that ran but does not fit tshape's memory model is priced
        # all the same (its step time is still a prediction to check) and
        # the disagreement is a note: the memory model is pessimistic there.
        if not r.get("fits", True):
            return r, ("tshape's memory model: %.0f GiB > %.0f GiB, yet it "
                       "ran" % (r["memory_gib"]["total"],
                                r["memory_capacity_gib"]))
        return r, None


# The searches run so far, by their tshape-plan arguments.
SEARCHES = {}


def search_group(plan_bin, case, step_time):
    """The group of equals (tshape-plan --search, its default band) the
    published plan's predicted step falls in among the plans the search
    ranks on the same GPUs, global batch, sequence and precision (the
    published ep and expert overlap fixed, every other choice searched),
    or None when the
    search fails. A plan faster than every ranked one is in group 1.
    Runs of one plan in several releases share one search (SEARCHES).
    """
    args = [config_path(case["model"]), f"--cluster={case['tshape_cluster']}",
            f"--gpus={case['gpus']}", f"--global-batch={case['gbs']}",
            f"--seq={case['seq']}", "--search", "--top=200"]
    if MODELS[case["model"]][2] == "moe":
        # Its ep and its expert overlap fixed: the search ranks the rest.
        args.append(f"--ep={case['ep']}")
        args.append("--overlap-ep-comm=%s" % (
            "true" if case.get("moe_a2a_overlap") else "false"))
    args += PRECISION[case["precision"]]
    key = tuple(args)
    if key not in SEARCHES:
        with tempfile.TemporaryDirectory() as tmp:
            report = os.path.join(tmp, "search.json")
            subprocess.run([plan_bin] + args + [f"--report={report}"],
                           capture_output=True, text=True)
            SEARCHES[key] = (json.load(open(report))
                             if os.path.exists(report) else None)
    r = SEARCHES[key]
    if r is None:
        return None
    band = r.get("equal_within", 0)
    starts = {}
    for p in r.get("plans", []):
        g = p.get("group", 0)
        starts[g] = min(starts.get(g, p["step_time_s"]), p["step_time_s"])
    if not starts:
        return None
    for g in sorted(starts):
        if step_time <= starts[g] * (1 + band):
            return g
    return max(starts) + 1


def summary(rows):
    errs = [r["error"] for r in rows]
    if not errs:
        return "| 0 | | | | | |"
    within = sum(abs(e) <= GOAL_EACH for e in errs)
    return "| %d | %+.1f%% | %.1f%% | %.1f%% | %+.1f%% .. %+.1f%% | %d of %d |" % (
        len(errs), statistics.mean(errs),
        statistics.mean(abs(e) for e in errs),
        statistics.median(abs(e) for e in errs), min(errs), max(errs),
        within, len(errs))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--data", default=os.path.join(
        SHARED, "published", "training-runs.json"))
    ap.add_argument("--search-rank", action="store_true",
                    help="also search each priced run's GPUs and batch and "
                    "say which group of equals its published plan is in "
                    "(the issue's top-3 goal; minutes)")
    ap.add_argument("--update-doc", action="store_true",
                    help="write the tables into docs/model-accuracy.md "
                    "(its last section, which bench/model-accuracy.sh keeps)")
    a = ap.parse_args()
    if not os.path.exists(a.data):
        print(f"training_runs.py: no {a.data} (the published runs live "
              "beside the clone; nothing to compare)", file=sys.stderr)
        return 2
    plan_bin = os.path.join(a.build, "bin", "tshape-plan")
    data = json.load(open(a.data))
    priced, skipped = [], []
    for case in data["cases"]:
        if not case.get("tshape_cluster"):
            continue
        args, notes = plan_of(case)
        if args is None:
            skipped.append((case, notes))
            continue
        r, err = predict(plan_bin, args)
        if r is None:
            skipped.append((case, err))
            continue
        if err:
            notes = notes + [err]
        pred = r["tokens_per_s_per_gpu"]
        meas = case["tokens_per_s_per_gpu"]
        priced.append({"case": case, "pred": pred, "meas": meas,
                       "error": 100.0 * (pred / meas - 1.0),
                       "kind": MODELS[case["model"]][2], "notes": notes,
                       "held": held_out(case),
                       "args": " ".join(os.path.basename(x) if i == 0 else x
                                        for i, x in enumerate(args)),
                       "group": (search_group(plan_bin, case,
                                              r["step_time_s"])
                                 if a.search_rank else None)})
    on_cluster = len(priced) + len(skipped)
    out = []
    out.append("Runs on a tshape cluster: %d; priced: %d (%.0f%%); not "
               "expressible: %d." % (on_cluster, len(priced),
                                     100.0 * len(priced) / max(1, on_cluster),
                                     len(skipped)))
    out.append("")
    out.append("Error = predicted / published tokens/s per GPU - 1 "
               "(positive: tshape is optimistic).")
    out.append("")
    out.append("| part | system | kind | runs | mean error | mean abs error "
               "| median abs error | range | within 15% |")
    out.append("| --- | --- | --- | ---: | ---: | ---: | ---: | --- | ---: |")
    for part, held in (("fit", False), ("held-out", True)):
        rows = [r for r in priced if r["held"] == held]
        systems = sorted({r["case"]["system"] for r in rows})
        for s in systems:
            for kind in ("dense", "moe"):
                sel = [r for r in rows if r["case"]["system"] == s and
                       r["kind"] == kind]
                if sel:
                    out.append(f"| {part} | {s} | {kind} " + summary(sel))
        out.append(f"| {part} | all | all " + summary(rows))
    out.append("")
    out.append("| part | system | model | precision | release | plan | "
               "published tok/s/GPU | predicted | error | notes |")
    out.append("| --- | --- | --- | --- | --- | --- | ---: | ---: | ---: | --- |")
    for r in sorted(priced, key=lambda r: (r["held"], r["case"]["system"],
                                           r["case"]["model"],
                                           r["case"]["precision"],
                                           r["case"]["release"])):
        c = r["case"]
        plan = "tp%d pp%d cp%d vp%s ep%d mbs%d gbs%d%s" % (
            c["tp"], c["pp"], c["cp"], c["vp"] or 1, c["ep"], c["mbs"],
            c["gbs"], " fsdp" if c["fsdp"] else "") + (
            " a2a-overlap" if MODELS[c["model"]][2] == "moe" and
            c.get("moe_a2a_overlap") else "")
        out.append("| %s | %s | %s | %s | %s | %s | %d | %.0f | %+.1f%% | %s |"
                   % ("held-out" if r["held"] else "fit", c["system"],
                      c["model"], c["precision"], c["release"], plan,
                      r["meas"], r["pred"], r["error"],
                      "; ".join(r["notes"] + (
                          ["search group g%d" % r["group"]]
                          if r["group"] is not None else []))))
    out.append("")
    if a.search_rank:
        ranked = [r for r in priced if r["group"] is not None]
        top3 = [r for r in ranked if r["group"] <= 3]
        out.append("The published plan in the search's first 3 groups of "
                   "equals (tshape-plan --search on the run's GPUs, global "
                   "batch, sequence and precision, its ep and expert overlap fixed, the default "
                   "band): %d of %d runs searched (%s)." % (
                       len(top3), len(ranked),
                       ", ".join("g%d: %d" % (g, sum(r["group"] == g
                                                     for r in ranked))
                                 for g in sorted({r["group"]
                                                  for r in ranked}))))
        out.append("")
    out.append("Not expressible (or not priced), by reason:")
    out.append("")
    reasons = {}
    for c, why in skipped:
        reasons.setdefault(why, []).append(c)
    for why, cs in sorted(reasons.items(), key=lambda x: -len(x[1])):
        names = sorted({f"{c['model']} on {c['system']}" for c in cs})
        out.append(f"- {len(cs)}: {why} ({', '.join(names)})")
    text = "\n".join(out)
    print(text)
    if a.update_doc:
        update_doc(text, data)
    return 0


MARK = "<!-- published training runs: bench/training_runs.py --update-doc -->"


def update_doc(tables, data):
    """Replace (or add) the last section of docs/model-accuracy.md."""
    path = os.path.join(ROOT, "docs", "model-accuracy.md")
    doc = open(path).read()
    at = doc.find(MARK)
    if at >= 0:
        doc = doc[:at].rstrip("\n") + "\n"
    src = data["cases"][0]["source"]
    section = [MARK, "", "## Published training runs", "",
               "Written by `python3 bench/training_runs.py --search-rank --update-doc` "
               "(do not edit by hand) on %s, from "
               "`../shared/data/published/training-runs.json`: "
               "Megatron-Bridge's 26.x performance tables (%s @ %s, "
               "`%s`, Apache-2.0), each run with its full plan; the data "
               "is not in this repository. Every run on a cluster tshape "
               "has (DGX-H100, DGX-B200, GB200 NVL72) is priced with "
               "`tshape-plan` under its own plan (GPUs, tp, pp, cp, vp, ep, "
               "microbatch, global batch, sequence, precision, FSDP or the "
               "distributed optimizer, sequence parallelism at tp > 1, "
               "activation CPU offload, the expert all-to-alls "
               "overlapped where the run's preset sets moe_a2a_overlap "
               "(Megatron-LM's --overlap-moe-expert-parallel-comm), "
               "and for Llama 3.1 405B and "
               "Qwen3-235B-A22B the embedding and loss counted in the "
               "pipeline split as their Bridge recipes set it) and "
               "the predicted tokens/s per GPU compared with the published "
               "one. The runs are pretraining with forced-balanced, "
               "dropless routing (the data's README), which is what "
               "tshape's MoE model assumes." % (
                   datetime.date.today().isoformat(), src["repo"],
                   src["commit"][:8], src["path"]),
               "",
               "- **Split.** A run is held out when a hash of its plan is "
               "odd, so the same plan measured in several releases is on "
               "one side. **No constant has been fitted on this file yet**: "
               "the fit part is there for the system-effect fits still to "
               "come, judged on the held-out part.",
               "- **Not expressible** runs are listed with the first reason "
               "found; approximations of a priced run are in its notes "
               "(a run that does not fit tshape's memory model is "
               "priced all the same and says so; CUDA graphs and the "
               "dispatcher kind are not "
               "modelled).",
               "- **Release drift** is a floor on any error: the same plan "
               "moves by a median 4.9% and up to 77% across releases (the "
               "data's README).",
               "", tables, ""]
    with open(path, "w") as f:
        f.write(doc + "\n" + "\n".join(section))


if __name__ == "__main__":
    sys.exit(main())
