#!/usr/bin/env python3
"""Writes the paper's sweeps as MLIR modules for tshape-opt:
  wave      GEMM throughput vs N across wave boundaries (M = K = 4096)
  heads     head-count sweep at h = 2560 (attention GEMMs, b = 4, s = 2048)
  vocab     logits GEMM, vocab 50257 vs 50304 (b*s = 8192, h = 2560)
  swiglu    SwiGLU MLP at h = 4096, inner 10922 vs 10944
Usage: gpu_sweeps.py KIND > module.mlir"""
import sys

kind = sys.argv[1]


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
    body = "".join(gemm(i, 4096, n, 4096)
                   for i, n in enumerate(range(1024, 16384 + 1, 128)))
    print("func.func @wave() {\n" + body + "  return\n}")
elif kind == "vocab":
    print("func.func @vocab() {\n" + gemm(0, 8192, 50257, 2560, tb=True) +
          gemm(1, 8192, 50304, 2560, tb=True) + "  return\n}")
elif kind == "swiglu":
    out = []
    for i, f in enumerate([10922, 10944]):
        out.append(gemm(2 * i, 8192, f, 4096, tb=True))
        out.append(gemm(2 * i + 1, 8192, 4096, f, tb=True))
    print("func.func @swiglu() {\n" + "".join(out) + "  return\n}")
elif kind == "heads":
    for a in [10, 16, 20, 32, 40, 64, 80]:
        print(f"func.func @heads{a}(%x: tensor<4x2048x2560xbf16>) -> "
              f"tensor<4x2048x2560xbf16> {{\n"
              f"  %y = tshape.attention %x heads = {a} kv_heads = {a} causal"
              f" : tensor<4x2048x2560xbf16> -> tensor<4x2048x2560xbf16>\n"
              f"  return %y : tensor<4x2048x2560xbf16>\n}}")
else:
    sys.exit(f"unknown sweep {kind!r}")
