#!/usr/bin/env python3
"""Writes the paper's sweeps as MLIR modules for tshape-opt:
  wave        GEMM throughput vs N across wave boundaries (M = K = 4096)
  heads A     attention with A heads at h = 2560 (b = 4, s = 2048)
  vocab       logits GEMM, vocab 50257 vs 50304 (b*s = 8192, h = 2560)
  swiglu      SwiGLU MLP at h = 4096, inner 10922 vs 10944 (b*s = 8192)
  heads-list  the head counts of the heads sweep, one per line
With --smoke, the same sweeps at toy sizes, for exercising the pipeline on
the CPU backend (the numbers then say nothing about a GPU).
Usage: gpu_sweeps.py KIND [A] [--smoke] > module.mlir"""
import sys

args = [a for a in sys.argv[1:] if a != "--smoke"]
smoke = "--smoke" in sys.argv
if not args:
    sys.exit(__doc__)
kind = args[0]

# Paper sizes, and toy ones that keep each sweep's point (a wave sawtooth,
# an unaligned vocab against its multiple of 64, 8/3 h against its
# multiple of 64, head_dim 80 against 64 and 128).
S = dict(wave_mk=4096, wave_n=(1024, 16384, 128),
         vocab=(8192, 2560, [50257, 50304]),
         swiglu=(8192, 4096, [10922, 10944]),
         heads=(4, 2048, 2560, [10, 16, 20, 32, 40, 64, 80]))
if smoke:
    S = dict(wave_mk=256, wave_n=(64, 1024, 64),
             vocab=(512, 128, [1001, 1024]),
             swiglu=(256, 256, [682, 704]),
             heads=(1, 128, 320, [2, 4, 5]))


def gemm(i, m, n, k, dt="bf16", tb=False):
    b = f"tensor<{n}x{k}x{dt}>" if tb else f"tensor<{k}x{n}x{dt}>"
    maps = (" indexing_maps = [affine_map<(m, n, k) -> (m, k)>, "
            "affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]"
            if tb else "")
    return (f"  %a{i} = tensor.empty() : tensor<{m}x{k}x{dt}>\n"
            f"  %b{i} = tensor.empty() : {b}\n"
            f"  %c{i} = tensor.empty() : tensor<{m}x{n}x{dt}>\n"
            f"  %r{i} = linalg.matmul{maps} ins(%a{i}, %b{i} : "
            f"tensor<{m}x{k}x{dt}>, {b}) outs(%c{i} : tensor<{m}x{n}x{dt}>)"
            f" -> tensor<{m}x{n}x{dt}>\n")


if kind == "wave":
    mk = S["wave_mk"]
    lo, hi, step = S["wave_n"]
    body = "".join(gemm(i, mk, n, mk)
                   for i, n in enumerate(range(lo, hi + 1, step)))
    print("func.func @wave() {\n" + body + "  return\n}")
elif kind in ("vocab", "swiglu"):
    # tshape ops, lowered by the prepare phase, so that every GEMM carries
    # the parameter that sized it (the summary reads vocab and ffn from the
    # report instead of guessing them from M, N and K). b*s = m as 1 x m.
    m, h, sizes = S[kind]
    x = f"tensor<1x{m}x{h}xbf16>"
    out = []
    for i, v in enumerate(sizes):
        if kind == "vocab":
            out.append(f"  %y{i} = tshape.lm_head %x vocab = {v} : {x} -> "
                       f"tensor<1x{m}x{v}xbf16>\n")
        else:
            out.append(f"  %y{i} = tshape.mlp %x inner = {v} activation = "
                       f"silu gated : {x} -> {x}\n")
    print(f"func.func @{kind}(%x: {x}) {{\n" + "".join(out) +
          "  return\n}")
elif kind == "heads-list":
    print("\n".join(str(a) for a in S["heads"][3]))
elif kind == "heads":
    b, s, h, counts = S["heads"]
    a = int(args[1]) if len(args) > 1 else sys.exit("heads needs A")
    if h % a:
        sys.exit(f"heads: {a} does not divide h = {h}")
    t = f"tensor<{b}x{s}x{h}xbf16>"
    print(f"func.func @heads{a}(%x: {t}) -> {t} {{\n"
          f"  %y = tshape.attention %x heads = {a} kv_heads = {a} causal"
          f" : {t} -> {t}\n"
          f"  return %y : {t}\n}}")
else:
    sys.exit(f"unknown sweep {kind!r}\n{__doc__}")
