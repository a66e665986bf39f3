//===- TShapeDialect.h - tshape dialect -------------------------*- C++ -*-===//
//
// Declares the tshape dialect and the helpers that read the model-wide
// attributes (parallel degrees, f32 math mode) from the enclosing ops.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_DIALECT_TSHAPE_IR_TSHAPEDIALECT_H
#define TSHAPE_DIALECT_TSHAPE_IR_TSHAPEDIALECT_H

#include "tshape/Model/Kernel.h"
#include "tshape/Model/Transformer.h"

#include "mlir/IR/Dialect.h"

#include "tshape/Dialect/TShape/IR/TShapeDialect.h.inc"

namespace tshape {
/// The parallel degrees in force at `op`: the `tshape.parallel` attribute
/// of the nearest enclosing op (or `op` itself) that has one, or all 1 when
/// none does.
model::Parallelism getParallelism(mlir::Operation *op);

/// The run shape in force at `op`: the `tshape.run` attribute of the
/// nearest enclosing op (or `op` itself) that has one, a #tshape.run or
/// the builtin string lowered IR keeps (model::parseRunShape); nullopt
/// when none states one.
std::optional<model::RunShape> getRunShape(mlir::Operation *op);

/// Whether f32 GEMMs at `op` use TF32 tensor cores: the nearest enclosing op
/// (or `op`) that says so with `tshape.math = #tshape.math<tf32>`, or with
/// the lowered form `tshape.tf32`. `#tshape.math<ieee>` says no.
bool usesTf32Math(mlir::Operation *op);

/// The cost model's element type for GEMM operands of type `t` at `op`
/// (f32 is TF32 where usesTf32Math); nullopt for types without a GEMM
/// model (integers, f64).
std::optional<model::DType> gemmDType(mlir::Operation *op, mlir::Type t);

/// Where a GEMM's sizes came from, as the lowering stamps it on the op:
/// `tshape.role` (the model's GEMM name), `tshape.layer`, and `tshape.sizes`,
/// a builtin dictionary {batch, m, n, k: expression strings over the names
/// of Params.h; params: {name = value}}. Builtin attributes keep lowered IR
/// readable by upstream tools (mlir-opt, mlir-runner) without this dialect;
/// the dialect's attribute verifier checks the dictionary's schema.
void setGemmProvenance(mlir::Operation *op, const model::GemmSpec &spec);

/// The model's description of the GEMM `op` performs, read back from its
/// attributes, with the sizes `batch x m x n x k` of the op itself. Nullopt
/// when the op has no (or a malformed) provenance, or when its expressions
/// no longer give its sizes (a rewrite such as padding changed them).
std::optional<model::GemmSpec> getGemmProvenance(mlir::Operation *op,
                                                 int64_t batch, int64_t m,
                                                 int64_t n, int64_t k);

/// Stamps the fused attention kernel `a` on its score GEMM `op` (which has
/// its tshape.sizes): `tshape.attention`, a builtin dictionary of the
/// kernel's size expressions (Kernel::dims) and `causal`.
void setAttentionProvenance(mlir::Operation *op, const model::AttentionSpec &a);

/// The fused attention kernel stamped on `op`, its sizes evaluated with the
/// parameters of the op's tshape.sizes. Nullopt when the op carries none (or
/// a malformed one).
std::optional<model::AttentionSpec> getAttentionProvenance(mlir::Operation *op);

/// Stamps the memory-bound elementwise kernel `e` on the op that stands for
/// it (MLA's merge, a linalg.add): `tshape.elementwise`, a builtin
/// dictionary {role, layer, rows, width: expressions; count, tensors:
/// integers; row_bytes: a float; params: {name = value}}.
void setElementwiseProvenance(mlir::Operation *op,
                              const model::ElementwiseSpec &e);

/// The elementwise kernel stamped on `op`; nullopt when it carries none
/// (or a malformed one).
std::optional<model::ElementwiseSpec>
getElementwiseProvenance(mlir::Operation *op);

/// Stamps the kernels of a block that no op of its lowering computes (its
/// tensor-parallel collectives, an all-to-all, a scan, a top-k:
/// model::Kernel::hasOp false) on `op`, the op its lowering ends with:
/// `tshape.kernels`, an array of dictionaries {kind, role, layer, params,
/// sizes: {name = expression}, words: {name = string}, flags: {name =
/// bool}} (model::KernelFields).
void setKernelsProvenance(mlir::Operation *op,
                          llvm::ArrayRef<model::Kernel> kernels);

/// The kernels stamped on `op` (none when it carries none; a malformed
/// entry, which the dialect's verifier rejects, is skipped).
std::vector<model::Kernel> getKernelsProvenance(mlir::Operation *op);
} // namespace tshape

#endif // TSHAPE_DIALECT_TSHAPE_IR_TSHAPEDIALECT_H
