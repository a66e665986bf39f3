//===- Lowerer.h - The linalg builder the block lowerings share -*- C++ -*-===//
//
// tshape-lower-to-linalg lowers each block op with the lowering of its
// block (one file each in lib/Conversion/TShapeToLinalg:
// AttentionLowering.cpp, MlpLowering.cpp, EmbeddingLowering.cpp; a block
// defined elsewhere registers its own with registerBlockLowering). A block lowering takes its kernels from the block
// model (model::forwardKernels), finds each by its role, builds the data
// flow around them with the builders here, and pushes the backward of a
// training step onto the tape. Lowerer.cpp walks the function, unrolls
// repeats, wires residual blocks and replays the tape.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_CONVERSION_TSHAPETOLINALG_LOWERER_H
#define TSHAPE_CONVERSION_TSHAPETOLINALG_LOWERER_H

#include "tshape/Conversion/Passes.h"
#include "tshape/Dialect/TShape/IR/TShapeInterfaces.h"
#include "tshape/Dialect/TShape/IR/TShapeOps.h"
#include "tshape/Model/Blocks/Block.h"
#include "tshape/Model/Transformer.h"

#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/IRMapping.h"

#include <functional>

namespace tshape::lowering {

using mlir::Value;

/// Builds the linalg form of one function's tshape ops.
class Lowerer {
public:
  Lowerer(mlir::func::FuncOp fn, const model::RunShape &run, bool fuseGated,
          int64_t maxLayers, bool decomposeSoftmax, bool patternWeights)
      : fn(fn), b(fn.getLoc(), fn.getContext()), runShape(run),
        fuseGated(fuseGated), decomposeSoftmax(decomposeSoftmax),
        patternWeights(patternWeights), maxLayers(maxLayers),
        parallel(tshape::getParallelism(fn)) {}

  /// Lowers every tshape op in the function; fails with a diagnostic.
  mlir::LogicalResult run();

  int64_t gemmCount = 0;
  int64_t layerCount = 0;

  /// Maps the gradient of a value [b*s, x] to the gradient of its input.
  using Backward = std::function<Value(Value)>;

  //===--------------------------------------------------------------------===//
  // For the block lowerings
  //===--------------------------------------------------------------------===//

  /// The model config of one block op: what it states (readConfig of the
  /// block op interface: its activation sizes and hyperparameters), one
  /// layer, and the parallel degrees in force.
  model::ModelConfig config(tshape::BlockOpInterface op) const;
  /// The forward kernels of block `k` of config `c` at `layer`.
  std::vector<model::Kernel> kernels(model::BlockKind k,
                                     const model::ModelConfig &c,
                                     int64_t layer) const {
    return model::forwardKernels(k, c, runShape, layer);
  }
  /// The attention kernel of config `c` at `layer` (Blocks/Attention.cpp),
  /// fused or not.
  model::AttentionSpec attentionKernel(const model::ModelConfig &c,
                                       int64_t layer) const {
    return model::attentionKernel(c, runShape, layer);
  }
  /// Stamps the kernels of block op `sub` at `layer` that no op of its
  /// lowering computes (Kernel::hasOp false: its collectives; under a
  /// backward run the backward's too) on the op that defines `result`
  /// (tshape.kernels), and returns `result`.
  Value carryKernels(mlir::Operation *sub, int64_t layer, Value result);
  /// The GEMM of `kernels` with role `r`, if there is one.
  static const model::GemmSpec *find(const std::vector<model::Kernel> &kernels,
                                     model::Role r);

  mlir::RankedTensorType type(llvm::ArrayRef<int64_t> shape) {
    return mlir::RankedTensorType::get(shape, elt);
  }
  Value zeros(llvm::ArrayRef<int64_t> shape);
  Value weight(llvm::ArrayRef<int64_t> shape);
  /// The contraction `spec` describes, on operands a and b.
  Value gemm(const model::GemmSpec &spec, Value a, Value bm);
  /// Marks `gemms` (the products of one fused attention kernel's pass, as
  /// AttentionSpec::passGemms lists them) as that kernel of `layer`: each
  /// carries tshape.fused_attention, the first the kernel itself, so the
  /// analysis prices the kernel (forward or backward) the block stated.
  void markFusedAttention(llvm::ArrayRef<Value> gemms,
                          const model::AttentionSpec &attn, int64_t layer);
  /// y = x . W^T with W [N, K] of `spec` (a new weight unless `w` is
  /// given); pushes its backward to `tape` when not null.
  Value linear(const model::GemmSpec &spec, Value x,
               llvm::SmallVectorImpl<Backward> *tape, Value w = Value());
  Value linearBackward(const model::GemmSpec &spec, Value x, Value w,
                       Value dy);
  /// x op y elementwise (linalg.add, linalg.mul).
  template <typename ElementwiseOp> Value elementwise(Value x, Value y);
  Value add(Value x, Value y);
  Value mul(Value x, Value y);
  Value activation(Value x, tshape::Activation act);
  Value softmax(Value x);
  Value collapse(Value x, llvm::ArrayRef<mlir::ReassociationIndices> groups);
  Value expand(Value x, llvm::ArrayRef<int64_t> shape,
               llvm::ArrayRef<mlir::ReassociationIndices> groups);
  Value transpose(Value x, llvm::ArrayRef<int64_t> perm);
  Value toHeads(Value x2, int64_t heads, int64_t d);
  Value fromHeads(Value x3, int64_t heads, int64_t d);
  Value broadcastGroups(Value x3, int64_t groups, int64_t repeat);
  /// [b*g*r, q, d] -> [b*g, r*q, d]: the r query heads of each of the g
  /// key/value heads as rows of one product (a decode kernel's grouping);
  /// ungroupHeads is the inverse.
  Value groupHeads(Value x3, int64_t groups, int64_t repeat);
  Value ungroupHeads(Value x3, int64_t groups, int64_t repeat);
  /// The keys or values of `fresh` [b*g, q, d] after `cached` tokens of a
  /// KV cache (a constant [b*g, cached, d]): [b*g, cached + q, d].
  Value withCache(Value fresh, int64_t cached);
  /// `v` (tokens [b, s] or activations [b, s, h] of the IR) at the run's
  /// query positions: the last q of s for a decode step (q = 1 + draft),
  /// else `v` itself.
  Value stepInput(Value v);
  Value reduceGroups(Value x3, int64_t groups, int64_t repeat);
  Value slice(Value x2, int64_t offset, int64_t size);
  Value concat(mlir::ValueRange parts);
  Value to2D(Value x3) { return collapse(x3, {{0, 1}, {2}}); }
  /// The run being lowered.
  const model::RunShape &runShapeOf() const { return runShape; }
  /// Sequences and query tokens per sequence of the lowered activations.
  int64_t batchSize() const { return batch; }
  int64_t queryTokens() const { return seq; }
  Value to3D(Value x2) {
    auto t = mlir::cast<mlir::RankedTensorType>(x2.getType());
    return expand(x2, {batch, seq, t.getDimSize(1)}, {{0, 1}, {2}});
  }
  int64_t dim(Value v, unsigned i) {
    return mlir::cast<mlir::RankedTensorType>(v.getType()).getDimSize(i);
  }

  mlir::ImplicitLocOpBuilder &builder() { return b; }
  bool fuseGatedMlp() const { return fuseGated; }
  /// The once-per-model backward steps (the LM head's).
  llvm::SmallVector<Backward> &tapeSteps() { return tape; }
  /// The embedding's rank-local table, which a tied LM head reads.
  Value embeddingTable;

private:
  mlir::FailureOr<Value> lowerOp(mlir::Operation *op, mlir::IRMapping &map);
  mlir::LogicalResult lowerBody(mlir::Block &body, mlir::ValueRange args,
                                mlir::IRMapping &map,
                                llvm::SmallVectorImpl<Value> &yielded);

  mlir::func::FuncOp fn;
  mlir::ImplicitLocOpBuilder b;
  model::RunShape runShape;
  bool fuseGated, decomposeSoftmax, patternWeights;
  int64_t weightSeed = 0;
  int64_t maxLayers;
  model::Parallelism parallel;
  /// The first disagreement between an emitted operand and the model.
  std::string modelMismatch;
  mlir::Type elt;
  /// Sequences, and query tokens per sequence of the lowered activations
  /// (the IR's s, or 1 + draft for a decode step).
  int64_t batch = 0, seq = 0;
  int64_t nextLayer = 0;
  /// Backward steps in forward order.
  llvm::SmallVector<Backward> tape;
  llvm::SmallVector<Value> weightGrads;
};

//===----------------------------------------------------------------------===//
// The block lowerings (one file each)
//===----------------------------------------------------------------------===//

/// A residual sub-layer's branch f(x) on 2-D activations [b*s, h] at
/// `layer`; sets `bwd` to its backward (dF [b*s,h] -> dX [b*s,h]).
using BranchLowering = Value (*)(Lowerer &l, mlir::Operation *op, Value x2,
                                 int64_t layer, Lowerer::Backward &bwd);
/// A once-per-model op on its (lowered) operand; pushes its backward to
/// the lowerer's tape.
using WholeLowering = Value (*)(Lowerer &l, mlir::Operation *op, Value in);

struct BlockLowering {
  model::BlockKind kind;
  BranchLowering branch; ///< residual sub-layers (BlockInfo::perLayer)
  WholeLowering whole;   ///< once-per-model blocks
};

/// The lowering of block `k` (the table in Lowerer.cpp, then the
/// registered ones); null when the block has none.
const BlockLowering *blockLowering(model::BlockKind k);
/// Adds the lowering of a block defined outside this library (see
/// model::registerBlock). Call at start-up, before the pass runs.
void registerBlockLowering(BlockLowering lowering);

Value lowerAttention(Lowerer &l, mlir::Operation *op, Value x2, int64_t layer,
                     Lowerer::Backward &bwd);
Value lowerMlp(Lowerer &l, mlir::Operation *op, Value x2, int64_t layer,
               Lowerer::Backward &bwd);
Value lowerMoe(Lowerer &l, mlir::Operation *op, Value x2, int64_t layer,
               Lowerer::Backward &bwd);
Value lowerMla(Lowerer &l, mlir::Operation *op, Value x2, int64_t layer,
               Lowerer::Backward &bwd);
Value lowerEmbedding(Lowerer &l, mlir::Operation *op, Value tokens);
Value lowerLMHead(Lowerer &l, mlir::Operation *op, Value x);

} // namespace tshape::lowering

#endif // TSHAPE_CONVERSION_TSHAPETOLINALG_LOWERER_H
