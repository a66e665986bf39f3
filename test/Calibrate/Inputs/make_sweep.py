#!/usr/bin/env python3
"""Writes a module of bf16 GEMMs spanning compute-bound, memory-bound and
launch-bound shapes (M x N x K over a grid), one linalg.matmul each."""
import itertools
shapes = list(itertools.product([1, 16, 128, 1024, 4096], [1024, 4096, 8192],
                                [64, 1024, 4096]))
print("func.func @sweep() {")
for i, (m, n, k) in enumerate(shapes):
    print(f"  %a{i} = tensor.empty() : tensor<{m}x{k}xbf16>")
    print(f"  %b{i} = tensor.empty() : tensor<{k}x{n}xbf16>")
    print(f"  %c{i} = tensor.empty() : tensor<{m}x{n}xbf16>")
    print(f"  %r{i} = linalg.matmul ins(%a{i}, %b{i} : tensor<{m}x{k}xbf16>, "
          f"tensor<{k}x{n}xbf16>) outs(%c{i} : tensor<{m}x{n}xbf16>) -> "
          f"tensor<{m}x{n}xbf16>")
print("  return")
print("}")
