#!/usr/bin/env python3
"""The dependency rules of docs/architecture.md, checked on the sources.

For each plain-C++ library, every source file and every tshape header it
includes (transitively) must include no MLIR header ("mlir/..."); the GPU
description must not reach the transformer model, and the support headers
reach neither; the transformer model reaches no floor above it (cost,
advice, interop, reports, prediction) and the cost models neither interop
nor reports. Every source of a library is checked, its subfolders' too
(lib/Model/Blocks). Prints one line per library and exits 1 on a
violation, naming the include chain.

usage: check_walls.py SOURCE_ROOT
"""
import glob
import os
import re
import sys

root = sys.argv[1]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)

# library -> (its sources, include prefixes it must never reach)
RULES = {
    "Support (include/tshape/Support)": (
        glob.glob(f"{root}/include/tshape/Support/*.h"),
        ["mlir/", "llvm/", "tshape/Model/", "tshape/Target/"]),
    "TShapeModel (lib/Model)": (
        glob.glob(f"{root}/lib/Model/**/*.cpp", recursive=True),
        ["mlir/", "tshape/Target/", "tshape/Analysis/", "tshape/Dialect/",
         "tshape/Cost/", "tshape/Advise/", "tshape/Interop/",
         "tshape/Report/", "tshape/Predict/", "tshape/Runtime/"]),
    "TShapeTarget (lib/Target)": (
        glob.glob(f"{root}/lib/Target/*.cpp"),
        ["mlir/", "tshape/Model/", "tshape/Analysis/", "tshape/Dialect/"]),
    "TShapeReport (lib/Report)": (
        glob.glob(f"{root}/lib/Report/*.cpp"),
        ["mlir/", "tshape/Dialect/", "tshape/Conversion/",
         "tshape/Transforms/"]),
    "TShapeCost (lib/Cost)": (
        glob.glob(f"{root}/lib/Cost/*.cpp"),
        ["mlir/", "tshape/Dialect/", "tshape/Conversion/",
         "tshape/Transforms/", "tshape/Analysis/", "tshape/Advise/",
         "tshape/Interop/", "tshape/Report/", "tshape/Predict/"]),
    "TShapeAdvise (lib/Advise)": (
        glob.glob(f"{root}/lib/Advise/*.cpp"),
        ["mlir/", "tshape/Dialect/", "tshape/Conversion/",
         "tshape/Transforms/", "tshape/Analysis/"]),
    "TShapeInterop (lib/Interop)": (
        glob.glob(f"{root}/lib/Interop/*.cpp"),
        ["mlir/", "tshape/Dialect/", "tshape/Conversion/",
         "tshape/Transforms/", "tshape/Analysis/"]),
    # The tools' shared option vocabulary: plain C++ over the plan.
    "TShapeTools (lib/Tools)": (
        glob.glob(f"{root}/lib/Tools/*.cpp"),
        ["mlir/", "tshape/Dialect/", "tshape/Conversion/",
         "tshape/Transforms/", "tshape/Analysis/"]),
    # The accuracy and calibration reports build on Predict, not the
    # reverse.
    "TShapePredict (lib/Predict)": (
        glob.glob(f"{root}/lib/Predict/*.cpp"),
        ["mlir/", "tshape/Dialect/", "tshape/Conversion/",
         "tshape/Transforms/", "tshape/Report/"]),
}


def walk(path, chain, forbidden, seen, errors):
    text = open(path).read()
    for inc in INCLUDE.findall(text):
        here = chain + [inc]
        if any(inc.startswith(f) for f in forbidden):
            errors.append(" -> ".join(here))
            continue
        if inc.startswith("tshape/"):
            header = os.path.join(root, "include", inc)
            if os.path.exists(header) and header not in seen:
                seen.add(header)
                walk(header, here, forbidden, seen, errors)


bad = 0
for lib, (sources, forbidden) in RULES.items():
    if not sources:
        print(f"{lib}: no sources found")
        bad += 1
        continue
    errors = []
    for src in sorted(sources):
        walk(src, [os.path.relpath(src, root)], forbidden, set(), errors)
    if errors:
        bad += 1
        print(f"{lib}: VIOLATION")
        for e in errors:
            print(f"  {e}")
    else:
        print(f"{lib}: {len(sources)} files, clean")
sys.exit(1 if bad else 0)
