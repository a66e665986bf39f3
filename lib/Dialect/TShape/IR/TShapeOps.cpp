//===- TShapeOps.cpp - tshape operations ----------------------------------===//
//
// Builders and verifiers. Every verifier rule has a number (S1, A1, ...);
// the shape rules themselves are the plain-C++ ones of tshape/Model, shared
// with the importer. docs/dialect.md lists them; errors.mlir tests each.
//
//===----------------------------------------------------------------------===//

#include "tshape/Dialect/TShape/IR/TShapeOps.h"
#include "tshape/Model/Transformer.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace tshape;

#define GET_OP_CLASSES
#include "tshape/Dialect/TShape/IR/TShapeOps.cpp.inc"

namespace {
/// Emits a violated plain-C++ rule at `op`.
LogicalResult report(Operation *op,
                     const std::optional<model::RuleViolation> &v) {
  if (!v)
    return success();
  return op->emitOpError() << "rule " << v->rule << ": " << v->message;
}

/// Rule T1: activations are `batch x seq x hidden` with static positive
/// sizes.
LogicalResult verifyActivations(Operation *op, RankedTensorType type,
                                StringRef what) {
  if (type.getRank() != 3 || !type.hasStaticShape() ||
      llvm::any_of(type.getShape(), [](int64_t d) { return d <= 0; }))
    return op->emitOpError()
           << "rule T1: " << what
           << " must be a static batch x seq x hidden tensor with positive "
              "sizes, got "
           << type;
  return success();
}

/// Rule T2: a sub-layer keeps the activation type.
LogicalResult verifySameType(Operation *op, Type in, Type out) {
  if (in != out)
    return op->emitOpError() << "rule T2: result type " << out
                             << " must equal the input type " << in;
  return success();
}

/// Rule S2: the GEMMs an op implies must be countable in int64. `config`
/// holds the op's sizes with 1 for the sizes it does not use.
LogicalResult verifyNoOverflow(Operation *op, model::ModelConfig config) {
  if (model::countFlops(config, model::RunShape::train()) &&
      model::countParameters(config))
    return success();
  return op->emitOpError()
         << "rule S2: sizes overflow 64-bit arithmetic: the GEMM FLOP or "
            "parameter count of this op exceeds 2^63-1";
}

/// A model config holding only the activation sizes of `type` (b, s, h) and
/// the parallel degrees at `op`, with `sizes` set through the parameter
/// table; other sizes are 1.
model::ModelConfig
baseConfig(Operation *op, RankedTensorType type,
           std::initializer_list<std::pair<model::Param, int64_t>> sizes) {
  model::ModelConfig c;
  using model::Param;
  readActivationSizes(c, type);
  for (Param p : {Param::Vocab, Param::Heads, Param::KvHeads, Param::HeadDim,
                  Param::Ffn})
    model::setParam(c, p, 1);
  c.parallel = getParallelism(op);
  for (auto [p, v] : sizes)
    model::setParam(c, p, v);
  return c;
}

/// The values an op states, with the hidden size of `type` and the degrees
/// in force at `op`, for the table's rules (checkBindings).
model::Bindings
opBindings(Operation *op, RankedTensorType type,
           std::initializer_list<std::pair<model::Param, int64_t>> sizes) {
  model::Bindings env;
  env.set(model::Param::Hidden, type.getDimSize(2));
  for (auto [p, v] : sizes)
    env.set(p, v);
  model::bindDegrees(getParallelism(op), env);
  return env;
}

model::Activation fromIR(Activation a) {
  switch (a) {
  case Activation::gelu:
    return model::Activation::GELU;
  case Activation::relu:
    return model::Activation::ReLU;
  case Activation::silu:
    return model::Activation::SiLU;
  }
  return model::Activation::GELU;
}

Activation toIR(model::Activation a) {
  switch (a) {
  case model::Activation::GELU:
    return Activation::gelu;
  case model::Activation::ReLU:
    return Activation::relu;
  case model::Activation::SiLU:
    return Activation::silu;
  }
  return Activation::gelu;
}
} // namespace

//===----------------------------------------------------------------------===//
// EmbeddingOp
//===----------------------------------------------------------------------===//

LogicalResult EmbeddingOp::verify() {
  auto result = getResult().getType();
  if (failed(verifyActivations(*this, result, "result")))
    return failure();
  auto tokens = getTokens().getType();
  if (tokens.getRank() != 2 || tokens.getShape() != result.getShape().take_front(2))
    return emitOpError() << "rule T3: tokens " << tokens
                         << " must be batch x seq matching the result "
                         << result;
  if (failed(report(*this, model::checkBindings(opBindings(
                               *this, result,
                               {{model::Param::Vocab, getVocab()}})))))
    return failure();
  return verifyNoOverflow(
      *this, baseConfig(*this, result, {{model::Param::Vocab, getVocab()}}));
}

void EmbeddingOp::readConfig(model::ModelConfig &config) {
  readActivationSizes(config, getResult().getType());
  model::setParam(config, model::Param::Vocab, getVocab());
}

void EmbeddingOp::writeConfig(const model::ModelConfig &config) {
  setVocab(model::getParam(config, model::Param::Vocab));
  setLastDim(getResult(), model::getParam(config, model::Param::Hidden));
}

//===----------------------------------------------------------------------===//
// LMHeadOp
//===----------------------------------------------------------------------===//

LogicalResult LMHeadOp::verify() {
  auto input = getInput().getType();
  if (failed(verifyActivations(*this, input, "input")))
    return failure();
  if (failed(report(*this, model::checkPositive("vocab", getVocab()))))
    return failure();
  auto result = getResult().getType();
  SmallVector<int64_t> expected = {input.getDimSize(0), input.getDimSize(1),
                                   int64_t(getVocab())};
  if (result.getShape() != ArrayRef<int64_t>(expected) ||
      result.getElementType() != input.getElementType())
    return emitOpError() << "rule T4: result " << result
                         << " must be batch x seq x vocab ("
                         << expected[0] << "x" << expected[1] << "x"
                         << expected[2] << ") of the input's element type";
  if (failed(report(*this, model::checkBindings(opBindings(
                               *this, input,
                               {{model::Param::Vocab, getVocab()}})))))
    return failure();
  if (getTied()) {
    // Rule L1: a tied head shares the embedding table of its function.
    Operation *scope = (*this)->getParentWithTrait<OpTrait::SymbolTable>();
    if (auto fn = (*this)->getParentOfType<FunctionOpInterface>())
      scope = fn;
    bool found = false;
    if (scope)
      scope->walk([&](EmbeddingOp emb) {
        found |= emb.getVocab() == getVocab() &&
                 emb.getResult().getType().getDimSize(2) ==
                     input.getDimSize(2);
      });
    if (!found)
      return emitOpError()
             << "rule L1: tied head needs a tshape.embedding with vocab "
             << getVocab() << " and hidden " << input.getDimSize(2)
             << " in the same function";
  }
  return verifyNoOverflow(
      *this, baseConfig(*this, input, {{model::Param::Vocab, getVocab()}}));
}

void LMHeadOp::readConfig(model::ModelConfig &config) {
  readActivationSizes(config, getInput().getType());
  model::setParam(config, model::Param::Vocab, getVocab());
  config.tiedEmbeddings = getTied();
}

void LMHeadOp::writeConfig(const model::ModelConfig &config) {
  const int64_t vocab = model::getParam(config, model::Param::Vocab);
  setVocab(vocab);
  setTied(config.tiedEmbeddings);
  setLastDim(getResult(), vocab);
}

//===----------------------------------------------------------------------===//
// AttentionOp
//===----------------------------------------------------------------------===//

int64_t AttentionOp::getHeadDimOrDefault() {
  model::Bindings env;
  env.set(model::Param::Hidden, getInput().getType().getDimSize(2));
  env.set(model::Param::Heads, getHeads());
  if (auto d = getHeadDim())
    env.set(model::Param::HeadDim, *d);
  return model::headDim(env);
}

LogicalResult AttentionOp::verify() {
  auto input = getInput().getType();
  if (failed(verifyActivations(*this, input, "input")) ||
      failed(verifySameType(*this, input, getResult().getType())))
    return failure();
  model::Bindings env =
      opBindings(*this, input,
                 {{model::Param::Heads, getHeads()},
                  {model::Param::KvHeads, getKvHeads()}});
  if (getHeadDim())
    env.set(model::Param::HeadDim, *getHeadDim());
  if (failed(report(*this, model::checkBindings(env))))
    return failure();
  if (getHeadDim() && *getHeadDim() == 0)
    return report(*this, model::checkPositive("head_dim", 0));
  if (failed(report(*this, model::checkWindow(getWindow(), getChunked(),
                                              getCausal()))))
    return failure();
  return verifyNoOverflow(
      *this, baseConfig(*this, input,
                        {{model::Param::Heads, getHeads()},
                         {model::Param::KvHeads, getKvHeads()},
                         {model::Param::HeadDim, getHeadDimOrDefault()}}));
}

void AttentionOp::readConfig(model::ModelConfig &config) {
  using model::Param;
  readActivationSizes(config, getInput().getType());
  model::setParam(config, Param::Heads, getHeads());
  model::setParam(config, Param::KvHeads, getKvHeads());
  model::setParam(config, Param::HeadDim, getHeadDim().value_or(0));
  config.attention.causal = getCausal();
  config.attention.fused = getFused();
  // A layer without a window in a model with one is a full-attention
  // layer; the window is the model's (the bridge reads which layers).
  if (auto w = getWindow()) {
    model::setParam(config, Param::Window, *w);
    config.attention.chunked = getChunked();
  }
  config.attention.fullAttention = !getWindow().has_value();
}

void AttentionOp::writeConfig(const model::ModelConfig &config) {
  using model::Param;
  setHeads(model::getParam(config, Param::Heads));
  setKvHeads(model::getParam(config, Param::KvHeads));
  if (int64_t d = model::getParam(config, Param::HeadDim))
    setHeadDim(d);
  else
    removeHeadDimAttr();
  setCausal(config.attention.causal);
  setFused(config.attention.fused);
  // Which layers are windowed is per layer: in a heterogeneous stack the
  // op keeps its own (a new value of W only); else the config says.
  const int64_t w = model::getParam(config, Param::Window);
  const bool windowed = config.stack.empty()
                            ? w > 0 && !config.attention.fullAttention
                            : getWindow().has_value() && w > 0;
  if (windowed)
    setWindow(w);
  else
    removeWindowAttr();
  setChunked(windowed && config.attention.chunked);
  setLastDim(getResult(), model::getParam(config, Param::Hidden));
}

//===----------------------------------------------------------------------===//
// MLPOp
//===----------------------------------------------------------------------===//

LogicalResult MLPOp::verify() {
  auto input = getInput().getType();
  if (failed(verifyActivations(*this, input, "input")) ||
      failed(verifySameType(*this, input, getResult().getType())))
    return failure();
  if (failed(report(*this, model::checkBindings(opBindings(
                               *this, input,
                               {{model::Param::Ffn, getInner()}})))) ||
      failed(report(*this, model::checkPositive(
                               model::paramName(model::Param::Ffn),
                               getInner()))))
    return failure();
  model::ModelConfig c =
      baseConfig(*this, input, {{model::Param::Ffn, getInner()}});
  c.mlp.gated = getGated();
  return verifyNoOverflow(*this, c);
}

void MLPOp::readConfig(model::ModelConfig &config) {
  readActivationSizes(config, getInput().getType());
  model::setParam(config, model::Param::Ffn, getInner());
  config.mlp.gated = getGated();
  config.mlp.activation = fromIR(getActivation());
}

void MLPOp::writeConfig(const model::ModelConfig &config) {
  setInner(model::getParam(config, model::Param::Ffn));
  setGated(config.mlp.gated);
  setActivation(toIR(config.mlp.activation));
  setLastDim(getResult(), model::getParam(config, model::Param::Hidden));
}

//===----------------------------------------------------------------------===//
// MoEOp
//===----------------------------------------------------------------------===//

LogicalResult MoEOp::verify() {
  using model::Param;
  auto input = getInput().getType();
  if (failed(verifyActivations(*this, input, "input")) ||
      failed(verifySameType(*this, input, getResult().getType())))
    return failure();
  // S1 on each size (an absent optional one is 0: none, balanced), then
  // E1 (experts divisible by ep), E2, E4, E5, M2 and M3.
  for (auto [p, v] : {std::pair{Param::Experts, int64_t(getExperts())},
                      {Param::TopK, int64_t(getTopk())},
                      {Param::MoeFfn, int64_t(getInner())}})
    if (failed(report(*this, model::checkPositive(model::paramName(p), v))))
      return failure();
  model::Bindings env = opBindings(
      *this, input,
      {{Param::Experts, getExperts()},
       {Param::TopK, getTopk()},
       {Param::MoeFfn, getInner()},
       {Param::SharedExperts, getSharedExperts().value_or(0)},
       {Param::SharedFfn, getSharedInner().value_or(0)},
       {Param::Capacity, getCapacity().value_or(0)}});
  if (failed(report(*this, model::checkBindings(env))))
    return failure();
  model::ModelConfig c = baseConfig(*this, input, {});
  readConfig(c);
  c.layerBlocks = {*model::parseBlock(getBlockName())};
  return verifyNoOverflow(*this, c);
}

void MoEOp::readConfig(model::ModelConfig &config) {
  using model::Param;
  readActivationSizes(config, getInput().getType());
  model::setParam(config, Param::Experts, getExperts());
  model::setParam(config, Param::TopK, getTopk());
  model::setParam(config, Param::MoeFfn, getInner());
  model::setParam(config, Param::SharedExperts,
                  getSharedExperts().value_or(0));
  model::setParam(config, Param::SharedFfn, getSharedInner().value_or(0));
  model::setParam(config, Param::Capacity, getCapacity().value_or(0));
  config.moe.gated = getGated();
  config.moe.activation = fromIR(getActivation());
}

void MoEOp::writeConfig(const model::ModelConfig &config) {
  using model::Param;
  setExperts(model::getParam(config, Param::Experts));
  setTopk(model::getParam(config, Param::TopK));
  setInner(model::getParam(config, Param::MoeFfn));
  // Absent when 0 (no shared experts, balanced routing).
  const int64_t shared = model::getParam(config, Param::SharedExperts),
                sharedInner = model::getParam(config, Param::SharedFfn),
                capacity = model::getParam(config, Param::Capacity);
  if (shared)
    setSharedExperts(shared);
  else
    removeSharedExpertsAttr();
  if (sharedInner)
    setSharedInner(sharedInner);
  else
    removeSharedInnerAttr();
  if (capacity)
    setCapacity(capacity);
  else
    removeCapacityAttr();
  setGated(config.moe.gated);
  setActivation(toIR(config.moe.activation));
  setLastDim(getResult(), model::getParam(config, Param::Hidden));
}

//===----------------------------------------------------------------------===//
// MlaOp
//===----------------------------------------------------------------------===//

LogicalResult MlaOp::verify() {
  using model::Param;
  auto input = getInput().getType();
  if (failed(verifyActivations(*this, input, "input")) ||
      failed(verifySameType(*this, input, getResult().getType())))
    return failure();
  // Rule LA2: an absent q_lora_rank means no query latent; 0 is not a rank.
  if (getQLoraRank() && *getQLoraRank() <= 0)
    return emitOpError() << "rule LA2: q_lora_rank must be positive, got "
                         << *getQLoraRank()
                         << "; omit it for queries projected from the "
                            "hidden size directly (no query latent)";
  // S1 on each size, then A3 (heads divisible by tp) from the table.
  const std::pair<Param, int64_t> sizes[] = {
      {Param::Heads, int64_t(getHeads())},
      {Param::KvLoraRank, int64_t(getKvLoraRank())},
      {Param::QkNopeDim, int64_t(getQkNopeHeadDim())},
      {Param::QkRopeDim, int64_t(getQkRopeHeadDim())},
      {Param::VHeadDim, int64_t(getVHeadDim())}};
  for (auto [p, v] : sizes)
    if (failed(report(*this, model::checkPositive(model::paramName(p), v))))
      return failure();
  model::Bindings env = opBindings(*this, input, {});
  for (auto [p, v] : sizes)
    env.set(p, v);
  if (getQLoraRank())
    env.set(Param::QLoraRank, *getQLoraRank());
  if (failed(report(*this, model::checkBindings(env))))
    return failure();
  model::ModelConfig c = baseConfig(*this, input, {});
  readConfig(c);
  c.layerBlocks = {*model::parseBlock(getBlockName())};
  return verifyNoOverflow(*this, c);
}

void MlaOp::readConfig(model::ModelConfig &config) {
  using model::Param;
  readActivationSizes(config, getInput().getType());
  model::setParam(config, Param::Heads, getHeads());
  // Every head has its own key and value (MHA): no kv_heads of its own.
  model::setParam(config, Param::KvHeads, getHeads());
  model::setParam(config, Param::QLoraRank, getQLoraRank().value_or(0));
  model::setParam(config, Param::KvLoraRank, getKvLoraRank());
  model::setParam(config, Param::QkNopeDim, getQkNopeHeadDim());
  model::setParam(config, Param::QkRopeDim, getQkRopeHeadDim());
  model::setParam(config, Param::VHeadDim, getVHeadDim());
  config.attention.causal = getCausal();
  config.attention.fused = getFused();
}

void MlaOp::writeConfig(const model::ModelConfig &config) {
  using model::Param;
  setHeads(model::getParam(config, Param::Heads));
  if (int64_t r = model::getParam(config, Param::QLoraRank))
    setQLoraRank(r);
  else
    removeQLoraRankAttr();
  setKvLoraRank(model::getParam(config, Param::KvLoraRank));
  setQkNopeHeadDim(model::getParam(config, Param::QkNopeDim));
  setQkRopeHeadDim(model::getParam(config, Param::QkRopeDim));
  setVHeadDim(model::getParam(config, Param::VHeadDim));
  setCausal(config.attention.causal);
  setFused(config.attention.fused);
  setLastDim(getResult(), model::getParam(config, Param::Hidden));
}

//===----------------------------------------------------------------------===//
// BlockOp
//===----------------------------------------------------------------------===//

void BlockOp::build(OpBuilder &builder, OperationState &state, Value input,
                    ResidualMode mode) {
  state.addOperands(input);
  state.getOrAddProperties<Properties>().mode =
      ResidualModeAttr::get(builder.getContext(), mode);
  state.addTypes(input.getType());
  Region *body = state.addRegion();
  body->emplaceBlock().addArgument(input.getType(), state.location);
}

namespace {
/// `op` as a residual sub-layer, or null when it is none.
BlockOpInterface asSubLayer(Operation &op) {
  auto sub = dyn_cast<BlockOpInterface>(op);
  return sub && sub.isResidualSubLayer() ? sub : BlockOpInterface();
}

/// "`n` <noun>s", or "1 <noun>".
std::string count(size_t n, StringRef noun) {
  return std::to_string(n) + " " + noun.str() + (n == 1 ? "" : "s");
}

/// How a message names sub-layer `i` (0-based) of `subs`.
std::string describeSubLayer(ArrayRef<BlockOpInterface> subs, size_t i) {
  return "sub-layer " + std::to_string(i + 1) + " ('" +
         subs[i]->getName().getStringRef().str() + "')";
}
} // namespace

SmallVector<BlockOpInterface> BlockOp::getSubLayers() {
  SmallVector<BlockOpInterface> subs;
  for (Operation &op : getBody().front())
    if (BlockOpInterface sub = asSubLayer(op))
      subs.push_back(sub);
  return subs;
}

LogicalResult BlockOp::verify() {
  if (failed(verifyActivations(*this, getInput().getType(), "input")))
    return failure();
  Block &body = getBody().front();
  // Rule B1: one argument of the input type; one or more residual
  // sub-layers (ops of the block op interface), then the yield.
  if (body.getNumArguments() != 1 ||
      body.getArgument(0).getType() != getInput().getType())
    return emitOpError() << "rule B1: the body must take one argument of the "
                            "input type "
                         << getInput().getType();
  SmallVector<BlockOpInterface> subs = getSubLayers();
  const size_t numOps = body.getOperations().size();
  // The first op out of place: not a sub-layer before the last op, or a
  // last op that is not a yield.
  auto misplaced = llvm::find_if(body, [&](Operation &op) {
    return &op == &body.back() ? !isa<YieldOp>(op) : !asSubLayer(op);
  });
  if (subs.empty() || misplaced != body.end()) {
    InFlightDiagnostic diag =
        emitOpError()
        << "rule B1: the body must hold one or more residual sub-layers "
           "(such as tshape.attention and tshape.mlp), then tshape.yield; "
           "found "
        << count(numOps, "op") << ", " << subs.size()
        << " of them residual sub-layers";
    if (misplaced != body.end())
      diag << "; op " << std::distance(body.begin(), misplaced) + 1 << " is '"
           << misplaced->getName() << "'";
    return diag;
  }
  Value arg = body.getArgument(0);
  auto yielded = cast<YieldOp>(body.getTerminator()).getValues();
  // Rule B2: the first sub-layer reads the block input.
  if (subs.front().getActivations() != arg)
    return emitOpError() << "rule B2: the first sub-layer ('"
                         << subs.front()->getName()
                         << "') must read the block input";
  // Rule B3: the residual mode decides what the other sub-layers read and
  // what is yielded.
  const bool sequential = getMode() == ResidualMode::sequential;
  for (size_t i = 1; i < subs.size(); ++i) {
    Value input = sequential ? subs[i - 1]->getResult(0) : arg;
    if (subs[i].getActivations() == input)
      continue;
    return emitOpError() << "rule B3: a " << stringifyResidualMode(getMode())
                         << " block's " << describeSubLayer(subs, i)
                         << " must read "
                         << (sequential
                                 ? "the result of " +
                                       describeSubLayer(subs, i - 1)
                                 : std::string("the block input"));
  }
  SmallVector<Value> expected;
  if (sequential)
    expected.push_back(subs.back()->getResult(0));
  else
    for (BlockOpInterface sub : subs)
      expected.push_back(sub->getResult(0));
  if (llvm::equal(yielded, expected))
    return success();
  InFlightDiagnostic diag = emitOpError() << "rule B3: a ";
  if (sequential)
    diag << "sequential block's body must yield the result of its last "
            "sub-layer ("
         << subs.size() << ") and nothing else";
  else
    diag << "parallel block's body must yield the results of its "
         << subs.size() << " sub-layers, in order";
  diag << "; it yields " << count(yielded.size(), "value");
  if (yielded.size() == expected.size())
    for (size_t i = 0; i < yielded.size(); ++i)
      if (yielded[i] != expected[i]) {
        diag << ", and value " << i + 1 << " is not the result of sub-layer "
             << (sequential ? subs.size() : i + 1);
        break;
      }
  return diag;
}

//===----------------------------------------------------------------------===//
// RepeatOp
//===----------------------------------------------------------------------===//

void RepeatOp::build(OpBuilder &builder, OperationState &state, Value input,
                     int64_t layers) {
  state.addOperands(input);
  state.getOrAddProperties<Properties>().layers =
      builder.getI64IntegerAttr(layers);
  state.addTypes(input.getType());
  Region *body = state.addRegion();
  body->emplaceBlock().addArgument(input.getType(), state.location);
}

LogicalResult RepeatOp::verify() {
  if (failed(verifyActivations(*this, getInput().getType(), "input")))
    return failure();
  if (failed(report(*this, model::checkPositive("layers", getLayers()))))
    return failure();
  Block &body = getBody().front();
  auto yield = dyn_cast<YieldOp>(body.getTerminator());
  // Rule R1: one argument and one yielded value, both of the input type.
  if (body.getNumArguments() != 1 ||
      body.getArgument(0).getType() != getInput().getType() || !yield ||
      yield.getValues().size() != 1 ||
      yield.getValues()[0].getType() != getInput().getType())
    return emitOpError() << "rule R1: the body must take and yield one value "
                            "of the input type "
                         << getInput().getType();
  return success();
}
