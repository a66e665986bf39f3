//===- TShapeDialect.cpp - tshape dialect ---------------------------------===//
//
// Dialect registration, typed attributes and verification of the dialect's
// discardable attributes.
//
//===----------------------------------------------------------------------===//

#include "tshape/Dialect/TShape/IR/TShapeDialect.h"
#include "tshape/Dialect/TShape/IR/GemmAttributes.h"
#include "tshape/Dialect/TShape/IR/TShapeAttrs.h"
#include "tshape/Dialect/TShape/IR/TShapeOps.h"
#include "tshape/Dialect/TShape/IR/ModelConfigBridge.h"
#include "tshape/Target/GpuTarget.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/TypeSwitch.h"

#include "llvm/ADT/StringExtras.h"

#include <map>

using namespace mlir;
using namespace tshape;

#include "tshape/Dialect/TShape/IR/TShapeDialect.cpp.inc"
#include "tshape/Dialect/TShape/IR/TShapeEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "tshape/Dialect/TShape/IR/TShapeAttrs.cpp.inc"

void TShapeDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "tshape/Dialect/TShape/IR/TShapeOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tshape/Dialect/TShape/IR/TShapeAttrs.cpp.inc"
      >();
}

/// Rule P1: every parallel degree is positive.
LogicalResult
ParallelAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                     int64_t tp, int64_t pp, int64_t dp, int64_t ep,
                     int64_t cp) {
  model::ModelConfig c;
  c.parallel = {tp, pp, dp, ep, cp};
  for (model::Param p : model::allParams())
    if (model::paramInfo(p).kind == model::ParamKind::Degree &&
        model::getParam(c, p) <= 0)
      return emitError() << "rule P1: " << model::paramPhrase(p) << " "
                         << model::paramName(p) << " must be positive, got "
                         << model::getParam(c, p);
  return success();
}

/// Rule P3: a run's kv length is 0 (the sequence) or positive; draft
/// tokens belong to a decode step and leave at least one cached key; the
/// KV cache's element type and the linear layers' precision are ones the
/// models know.
LogicalResult RunAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                              Phase phase, int64_t kvLength, int64_t draft,
                              StringRef kvCache, StringRef precision) {
  if (kvLength < 0)
    return emitError() << "rule P3: kv_length must be positive (or 0: the "
                          "sequence length), got "
                       << kvLength;
  if (draft < 0 || (draft > 0 && phase != Phase::decode))
    return emitError() << "rule P3: draft = " << draft
                       << " needs phase decode and draft >= 0 (the draft "
                          "tokens of speculative decoding); remove it or "
                          "use decode";
  if (kvLength > 0 && phase == Phase::decode && kvLength <= 1 + draft)
    return emitError() << "rule P3: kv_length " << kvLength
                       << " leaves no cached key for the " << 1 + draft
                       << " queries of a decode step; use kv_length >= "
                       << 2 + draft;
  if (!kvCache.empty()) {
    std::optional<model::DType> t = model::parseDType(kvCache.str());
    if (!t || *t == model::DType::TF32 || *t == model::DType::FP32)
      return emitError() << "rule P3: unknown KV-cache element type '"
                         << kvCache << "' (expected bf16, fp16 or fp8)";
  }
  if (!precision.empty() && !parsePrecision(precision.str()))
    return emitError() << "rule P3: unknown precision '" << precision
                       << "' (expected " << precisionNames() << ")";
  return success();
}

/// Rule P2: a target names a built-in GPU or a .json file.
LogicalResult TargetAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 StringRef name) {
  if (name.ends_with(".json") ||
      ::tshape::target::findBuiltinTarget(name.str()))
    return success();
  return emitError() << "rule P2: unknown target '" << name
                     << "' (built-in: "
                     << ::tshape::target::builtinTargetNames()
                     << "; or a .json target file)";
}

namespace {
/// Expressions (by key) and parameter values of a tshape.sizes or
/// tshape.attention dictionary.
struct Sizes {
  std::map<std::string, model::DimExpr> exprs;
  model::Bindings env;
  bool causal = false, grouped = false, cross = false, backward = false;
  std::optional<model::DType> kvCache;
  model::DimExpr get(const std::string &key) const {
    auto it = exprs.find(key);
    return it == exprs.end() ? model::DimExpr() : it->second;
  }
};

/// The keys of a GEMM's tshape.sizes.
const std::vector<std::string> kGemmKeys = {"batch", "m", "n", "k"};

/// The keys of a tshape.attention: the attention kernel's size names.
const std::vector<std::string> &attentionKeys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> k;
    for (auto [name, d] : model::Kernel(model::AttentionSpec()).dims())
      k.push_back(name);
    return k;
  }();
  return keys;
}

/// The entries of a tshape.attention besides its sizes: the unit flags
/// `causal`, `grouped`, `cross` (keys not the queries' own) and `backward`
/// (the kernel's backward), and `kv_cache`, the cache's element type.
const char *const kAttentionExtras =
    "causal, grouped, cross, backward, kv_cache";

/// The `params` dictionary {name = value} of the parameters `env` binds.
DictionaryAttr paramsAttr(Builder &b, const model::Bindings &env) {
  SmallVector<NamedAttribute> params;
  for (size_t i = 0; i < model::kNumParams; ++i)
    if (auto v = env.get(model::Param(i)))
      params.push_back(b.getNamedAttr(model::paramName(model::Param(i)),
                                      b.getI64IntegerAttr(*v)));
  return b.getDictionaryAttr(params);
}

/// Reads a `params` dictionary {name = value} into `env`; false with
/// `error` set on an unknown name or a value that is not an integer.
bool parseParams(DictionaryAttr params, model::Bindings &env,
                 std::string &error) {
  for (NamedAttribute p : params) {
    auto which = model::parseParam(p.getName().getValue());
    auto v = dyn_cast<IntegerAttr>(p.getValue());
    if (!which || !v) {
      error = "parameter '" + p.getName().getValue().str() +
              "' must be a known parameter name with an integer value";
      return false;
    }
    env.set(*which, v.getInt());
  }
  return true;
}

/// Parses a dictionary of size expressions under `keys`, with `params`
/// (tshape.sizes, `allow` = "params") or the attention's extras (`allow`
/// = kAttentionExtras).
std::optional<Sizes> parseSizes(DictionaryAttr d,
                                const std::vector<std::string> &keys,
                                StringRef allow, std::string &error) {
  const bool attention = allow == kAttentionExtras;
  Sizes s;
  for (NamedAttribute a : d) {
    StringRef key = a.getName().getValue();
    if (llvm::is_contained(keys, key.str())) {
      auto str = dyn_cast<StringAttr>(a.getValue());
      if (!str) {
        error = "entry '" + key.str() + "' must be a string expression";
        return std::nullopt;
      }
      std::string e;
      auto expr = model::DimExpr::parse(str.getValue().str(), e);
      if (!expr) {
        error = "entry '" + key.str() + "': " + e;
        return std::nullopt;
      }
      s.exprs.emplace(key.str(), *expr);
      continue;
    }
    const bool flag = attention && (key == "causal" || key == "grouped" ||
                                    key == "cross" || key == "backward");
    if (!flag && !(attention && key == "kv_cache") &&
        !(!attention && key == allow)) {
      error = "has an unknown entry '" + key.str() + "' (expected " +
              llvm::join(keys, ", ") + ", " + allow.str() + ")";
      return std::nullopt;
    }
    if (flag) {
      if (!isa<UnitAttr>(a.getValue())) {
        error = "entry '" + key.str() + "' must be a unit attribute";
        return std::nullopt;
      }
      (key == "causal"    ? s.causal
       : key == "grouped" ? s.grouped
       : key == "cross"   ? s.cross
                          : s.backward) = true;
      continue;
    }
    if (key == "kv_cache") {
      auto str = dyn_cast<StringAttr>(a.getValue());
      s.kvCache = str ? model::parseDType(str.getValue().str()) : std::nullopt;
      if (!s.kvCache) {
        error = "entry 'kv_cache' must name an element type (bf16, fp16, "
                "fp8)";
        return std::nullopt;
      }
      continue;
    }
    auto params = dyn_cast<DictionaryAttr>(a.getValue());
    if (!params) {
      error = "entry 'params' must be a dictionary";
      return std::nullopt;
    }
    if (!parseParams(params, s.env, error))
      return std::nullopt;
  }
  return s;
}
} // namespace

void tshape::setGemmProvenance(Operation *op, const model::GemmSpec &spec) {
  Builder b(op->getContext());
  op->setAttr(TShapeDialect::kRoleAttrName, b.getStringAttr(spec.name()));
  op->setAttr(TShapeDialect::kLayerAttrName, b.getI64IntegerAttr(spec.layer));
  if (spec.inputShared)
    op->setAttr(TShapeDialect::kInputSharedAttrName, b.getUnitAttr());
  SmallVector<NamedAttribute> entries;
  for (auto [key, dim] : model::Kernel(spec).dims())
    if (!(key == StringRef("batch") && dim.expr.isConstant(1)))
      entries.push_back(
          b.getNamedAttr(key, b.getStringAttr(dim.expr.str())));
  entries.push_back(b.getNamedAttr("params", paramsAttr(b, spec.env)));
  op->setAttr(TShapeDialect::kSizesAttrName, b.getDictionaryAttr(entries));
}

std::optional<model::GemmSpec>
tshape::getGemmProvenance(Operation *op, int64_t batch, int64_t m, int64_t n,
                          int64_t k) {
  auto role = op->getAttrOfType<StringAttr>(TShapeDialect::kRoleAttrName);
  auto sizes = op->getAttrOfType<DictionaryAttr>(TShapeDialect::kSizesAttrName);
  if (!role || !sizes)
    return std::nullopt;
  auto name = model::parseGemmName(role.getValue());
  std::string error;
  auto parsed = parseSizes(sizes, kGemmKeys, "params", error);
  if (!name || !parsed)
    return std::nullopt;
  model::GemmSpec g;
  g.role = name->first;
  g.pass = name->second;
  if (auto l = op->getAttrOfType<IntegerAttr>(TShapeDialect::kLayerAttrName))
    g.layer = l.getInt();
  g.inputShared = op->hasAttr(TShapeDialect::kInputSharedAttrName);
  g.env = parsed->env;
  for (auto [dim, key, value] :
       {std::tuple<model::Dim *, const char *, int64_t>{&g.batch, "batch",
                                                        batch},
        {&g.m, "m", m},
        {&g.n, "n", n},
        {&g.k, "k", k}}) {
    model::DimExpr expr = parsed->get(key);
    if (expr.eval(g.env) != value)
      return std::nullopt;
    dim->expr = expr;
    dim->value = value;
  }
  return g;
}

void tshape::setAttentionProvenance(Operation *op,
                                    const model::AttentionSpec &a) {
  Builder b(op->getContext());
  SmallVector<NamedAttribute> entries;
  for (auto [key, dim] : model::Kernel(a).dims())
    entries.push_back(b.getNamedAttr(key, b.getStringAttr(dim.expr.str())));
  if (a.causal)
    entries.push_back(b.getNamedAttr("causal", b.getUnitAttr()));
  if (a.grouped)
    entries.push_back(b.getNamedAttr("grouped", b.getUnitAttr()));
  if (a.cross)
    entries.push_back(b.getNamedAttr("cross", b.getUnitAttr()));
  if (a.backward)
    entries.push_back(b.getNamedAttr("backward", b.getUnitAttr()));
  if (a.cacheDType)
    entries.push_back(b.getNamedAttr(
        "kv_cache", b.getStringAttr(model::dtypeName(*a.cacheDType))));
  op->setAttr(TShapeDialect::kAttentionAttrName,
              b.getDictionaryAttr(entries));
}

std::optional<model::AttentionSpec>
tshape::getAttentionProvenance(Operation *op) {
  auto dict =
      op->getAttrOfType<DictionaryAttr>(TShapeDialect::kAttentionAttrName);
  auto sizes = op->getAttrOfType<DictionaryAttr>(TShapeDialect::kSizesAttrName);
  if (!dict || !sizes)
    return std::nullopt;
  std::string error;
  auto parsed = parseSizes(dict, attentionKeys(), kAttentionExtras, error);
  auto params = parseSizes(sizes, kGemmKeys, "params", error);
  if (!parsed || !params)
    return std::nullopt;
  model::AttentionSpec a;
  if (auto l = op->getAttrOfType<IntegerAttr>(TShapeDialect::kLayerAttrName))
    a.layer = l.getInt();
  a.causal = parsed->causal;
  a.grouped = parsed->grouped;
  a.cross = parsed->cross;
  a.backward = parsed->backward;
  a.cacheDType = parsed->kvCache;
  for (auto [key, dim] : a.dims())
    dim->expr = parsed->get(key);
  a.rebind(params->env);
  return a;
}

namespace {
/// Reads a tshape.elementwise dictionary (setElementwiseProvenance);
/// nullopt with `error` set when an entry is missing or malformed.
std::optional<model::ElementwiseSpec> parseElementwise(DictionaryAttr d,
                                                       std::string &error) {
  model::ElementwiseSpec e;
  auto role = d.getAs<StringAttr>("role");
  auto name = role ? model::parseGemmName(role.getValue().str())
                   : std::nullopt;
  if (!name || name->second != model::GemmPass::Forward) {
    error = "entry 'role' must name a kernel role (such as mla_merge)";
    return std::nullopt;
  }
  e.role = name->first;
  auto params = d.getAs<DictionaryAttr>("params");
  if (!params) {
    error = "entry 'params' must be a dictionary";
    return std::nullopt;
  }
  if (!parseParams(params, e.env, error))
    return std::nullopt;
  for (auto [key, dim] :
       {std::pair<const char *, model::Dim *>{"rows", &e.rows},
        {"width", &e.width}}) {
    auto str = d.getAs<StringAttr>(key);
    std::string why;
    auto expr =
        str ? model::DimExpr::parse(str.getValue().str(), why) : std::nullopt;
    std::optional<int64_t> v = expr ? expr->eval(e.env) : std::nullopt;
    if (!v) {
      error = std::string("entry '") + key +
              "' must be a size expression over its params" +
              (why.empty() ? "" : ": " + why);
      return std::nullopt;
    }
    dim->expr = *expr;
    dim->value = *v;
  }
  auto count = d.getAs<IntegerAttr>("count"),
       tensors = d.getAs<IntegerAttr>("tensors");
  auto extra = d.getAs<FloatAttr>("row_bytes");
  auto layer = d.getAs<IntegerAttr>("layer");
  if (!count || count.getInt() < 1 || !tensors || tensors.getInt() < 1 ||
      !extra || extra.getValueAsDouble() < 0 || !layer) {
    error = "needs 'layer' (an integer), 'count' and 'tensors' (positive "
            "integers) and 'row_bytes' (a float >= 0)";
    return std::nullopt;
  }
  e.layer = layer.getInt();
  e.count = count.getInt();
  e.tensors = tensors.getInt();
  e.rowExtraBytes = extra.getValueAsDouble();
  return e;
}
} // namespace

void tshape::setElementwiseProvenance(Operation *op,
                                      const model::ElementwiseSpec &e) {
  Builder b(op->getContext());
  NamedAttribute entries[] = {
      b.getNamedAttr("role", b.getStringAttr(model::roleInfo(e.role).name)),
      b.getNamedAttr("layer", b.getI64IntegerAttr(e.layer)),
      b.getNamedAttr("rows", b.getStringAttr(e.rows.expr.str())),
      b.getNamedAttr("width", b.getStringAttr(e.width.expr.str())),
      b.getNamedAttr("count", b.getI64IntegerAttr(e.count)),
      b.getNamedAttr("tensors", b.getI64IntegerAttr(e.tensors)),
      b.getNamedAttr("row_bytes", b.getF64FloatAttr(e.rowExtraBytes)),
      b.getNamedAttr("params", paramsAttr(b, e.env))};
  op->setAttr(TShapeDialect::kElementwiseAttrName,
              b.getDictionaryAttr(entries));
}

std::optional<model::ElementwiseSpec>
tshape::getElementwiseProvenance(Operation *op) {
  std::string error;
  if (auto d = op->getAttrOfType<DictionaryAttr>(
          TShapeDialect::kElementwiseAttrName))
    return parseElementwise(d, error);
  return std::nullopt;
}

namespace {
/// Reads one entry of tshape.kernels (setKernelsProvenance): {kind, role,
/// layer, params, sizes: {name = expression}, words: {name = string},
/// flags: {name = bool}}; nullopt with `error` set when malformed.
std::optional<model::Kernel> parseKernelEntry(Attribute entry,
                                              std::string &error) {
  auto d = dyn_cast<DictionaryAttr>(entry);
  if (!d) {
    error = "entries must be dictionaries";
    return std::nullopt;
  }
  model::KernelFields f;
  auto kind = d.getAs<StringAttr>("kind");
  std::optional<model::KernelKind> k =
      kind ? model::parseKernelKind(kind.getValue()) : std::nullopt;
  auto role = d.getAs<StringAttr>("role");
  auto name = role ? model::parseGemmName(role.getValue().str())
                   : std::nullopt;
  auto layer = d.getAs<IntegerAttr>("layer");
  auto params = d.getAs<DictionaryAttr>("params");
  auto sizes = d.getAs<DictionaryAttr>("sizes");
  auto words = d.getAs<DictionaryAttr>("words");
  auto flags = d.getAs<DictionaryAttr>("flags");
  if (!k || !name || name->second != model::GemmPass::Forward || !layer ||
      !params || !sizes || !words || !flags) {
    error = "entries must have a kind (a kernel kind's name), a role (a "
            "kernel role's name), an integer layer and the dictionaries "
            "params, sizes, words and flags";
    return std::nullopt;
  }
  f.kind = *k;
  f.role = name->first;
  f.layer = layer.getInt();
  if (!parseParams(params, f.env, error))
    return std::nullopt;
  for (NamedAttribute a : sizes) {
    auto str = dyn_cast<StringAttr>(a.getValue());
    std::string why;
    auto expr =
        str ? model::DimExpr::parse(str.getValue().str(), why) : std::nullopt;
    if (!expr) {
      error = "size '" + a.getName().getValue().str() +
              "' must be a size expression" + (why.empty() ? "" : ": " + why);
      return std::nullopt;
    }
    f.sizes.push_back({a.getName().getValue().str(), *expr});
  }
  for (NamedAttribute a : words) {
    auto str = dyn_cast<StringAttr>(a.getValue());
    if (!str) {
      error = "word '" + a.getName().getValue().str() + "' must be a string";
      return std::nullopt;
    }
    f.words.push_back({a.getName().getValue().str(), str.getValue().str()});
  }
  for (NamedAttribute a : flags) {
    auto b = dyn_cast<BoolAttr>(a.getValue());
    if (!b) {
      error = "flag '" + a.getName().getValue().str() + "' must be a bool";
      return std::nullopt;
    }
    f.flags.push_back({a.getName().getValue().str(), b.getValue()});
  }
  return model::Kernel::fromFields(f, error);
}
} // namespace

void tshape::setKernelsProvenance(Operation *op,
                                  llvm::ArrayRef<model::Kernel> kernels) {
  Builder b(op->getContext());
  SmallVector<Attribute> entries;
  for (const model::Kernel &k : kernels) {
    const model::KernelFields f = k.fields();
    SmallVector<NamedAttribute> sizes, words, flags;
    for (const auto &[n, e] : f.sizes)
      sizes.push_back(b.getNamedAttr(n, b.getStringAttr(e.str())));
    for (const auto &[n, w] : f.words)
      words.push_back(b.getNamedAttr(n, b.getStringAttr(w)));
    for (const auto &[n, v] : f.flags)
      flags.push_back(b.getNamedAttr(n, b.getBoolAttr(v)));
    NamedAttribute entry[] = {
        b.getNamedAttr("kind",
                       b.getStringAttr(model::kernelKindName(f.kind))),
        b.getNamedAttr("role", b.getStringAttr(model::roleInfo(f.role).name)),
        b.getNamedAttr("layer", b.getI64IntegerAttr(f.layer)),
        b.getNamedAttr("params", paramsAttr(b, f.env)),
        b.getNamedAttr("sizes", b.getDictionaryAttr(sizes)),
        b.getNamedAttr("words", b.getDictionaryAttr(words)),
        b.getNamedAttr("flags", b.getDictionaryAttr(flags))};
    entries.push_back(b.getDictionaryAttr(entry));
  }
  op->setAttr(TShapeDialect::kKernelsAttrName, b.getArrayAttr(entries));
}

std::vector<model::Kernel> tshape::getKernelsProvenance(Operation *op) {
  std::vector<model::Kernel> out;
  auto a = op->getAttrOfType<ArrayAttr>(TShapeDialect::kKernelsAttrName);
  if (!a)
    return out;
  for (Attribute entry : a) {
    std::string error;
    if (std::optional<model::Kernel> k = parseKernelEntry(entry, error))
      out.push_back(std::move(*k));
  }
  return out;
}

LogicalResult TShapeDialect::verifyOperationAttribute(Operation *op,
                                                      NamedAttribute attr) {
  // Each discardable tshape attribute and the kind of value it takes.
  struct Rule {
    StringRef name;
    bool (*accepts)(Attribute);
    const char *expected;
  };
  static const Rule rules[] = {
      {kParallelAttrName, [](Attribute a) { return isa<ParallelAttr>(a); },
       "a #tshape.parallel attribute"},
      {kRunAttrName,
       [](Attribute a) { return isa<RunAttr, StringAttr>(a); },
       "a #tshape.run attribute or its string form (lowered IR)"},
      {kMathAttrName, [](Attribute a) { return isa<MathModeAttr>(a); },
       "a #tshape.math attribute"},
      {kTargetAttrName,
       [](Attribute a) { return isa<TargetAttr, StringAttr>(a); },
       "a #tshape.target or a string"},
      {kAnalysisAttrName, [](Attribute a) { return isa<DictionaryAttr>(a); },
       "a dictionary"},
      {kMeasuredAttrName, [](Attribute a) { return isa<DictionaryAttr>(a); },
       "a dictionary"},
      {kRoleAttrName, [](Attribute a) { return isa<StringAttr>(a); },
       "a string"},
      {kModelTypeAttrName, [](Attribute a) { return isa<StringAttr>(a); },
       "a string"},
      {kArchitectureAttrName,
       [](Attribute a) { return isa<DictionaryAttr>(a); },
       "a dictionary of architecture fields"},
      {kTf32AttrName, [](Attribute a) { return isa<UnitAttr>(a); },
       "a unit attribute"},
      {kInputSharedAttrName, [](Attribute a) { return isa<UnitAttr>(a); },
       "a unit attribute"},
      {kLayerAttrName, [](Attribute a) { return isa<IntegerAttr>(a); },
       "an integer"},
      {kSizesAttrName, [](Attribute a) { return isa<DictionaryAttr>(a); },
       "a dictionary of size expressions"},
      {kFusedAttrName, [](Attribute a) { return isa<IntegerAttr>(a); },
       "an integer"},
      {kAttentionAttrName,
       [](Attribute a) { return isa<DictionaryAttr>(a); },
       "a dictionary of attention size expressions"},
      {kElementwiseAttrName,
       [](Attribute a) { return isa<DictionaryAttr>(a); },
       "a dictionary of an elementwise kernel's sizes"},
      {kTpAttrName, [](Attribute a) { return isa<IntegerAttr>(a); },
       "an integer"},
      {kKernelsAttrName, [](Attribute a) { return isa<ArrayAttr>(a); },
       "an array of kernel dictionaries"},
  };
  StringRef name = attr.getName().getValue();
  for (const Rule &r : rules)
    if (r.name == name) {
      if (r.accepts(attr.getValue())) {
        std::string error;
        if (name == kSizesAttrName &&
            !parseSizes(cast<DictionaryAttr>(attr.getValue()), kGemmKeys,
                        "params", error))
          return op->emitError() << "'" << name << "' " << error;
        if (name == kAttentionAttrName &&
            !parseSizes(cast<DictionaryAttr>(attr.getValue()),
                        attentionKeys(), kAttentionExtras, error))
          return op->emitError() << "'" << name << "' " << error;
        model::Architecture arch;
        if (name == kArchitectureAttrName &&
            !parseArchitecture(cast<DictionaryAttr>(attr.getValue()), arch,
                               error))
          return op->emitError() << error;
        if (name == kKernelsAttrName)
          for (Attribute entry : cast<ArrayAttr>(attr.getValue()))
            if (!parseKernelEntry(entry, error))
              return op->emitError() << "'" << name << "' " << error;
        if (name == kElementwiseAttrName &&
            !parseElementwise(cast<DictionaryAttr>(attr.getValue()), error))
          return op->emitError() << "'" << name << "' " << error;
        // Lowered IR states its run as a builtin string (docs/lowering.md).
        if (auto str = dyn_cast<StringAttr>(attr.getValue());
            str && name == kRunAttrName &&
            !model::parseRunShape(str.getValue()))
          return op->emitError()
                 << "'" << name << "' string '" << str.getValue()
                 << "' is not a run (expected PHASE [kv_length=N] [draft=N] "
                    "[kv_cache=TYPE] [precision="
                 << precisionNames() << "], PHASE " << model::phaseNames()
                 << ")";
        if ((name == kMeasuredAttrName || name == kAnalysisAttrName) &&
            !verifyGemmRecord(name, cast<DictionaryAttr>(attr.getValue()),
                              error))
          return op->emitError() << "'" << name << "' " << error;
        return success();
      }
      return op->emitError() << "'" << name << "' must be " << r.expected;
    }
  return op->emitError() << "unknown tshape attribute '" << name << "'";
}

model::Parallelism tshape::getParallelism(Operation *op) {
  for (Operation *cur = op; cur; cur = cur->getParentOp())
    if (auto p = cur->getAttrOfType<ParallelAttr>(
            TShapeDialect::kParallelAttrName))
      return p.getDegrees();
  return {};
}

std::optional<model::RunShape> tshape::getRunShape(Operation *op) {
  for (Operation *cur = op; cur; cur = cur->getParentOp())
  {
    if (auto r = cur->getAttrOfType<RunAttr>(TShapeDialect::kRunAttrName))
      return r.getRunShape();
    // Lowered IR: the builtin string form (tshape-lower-to-linalg).
    if (auto s = cur->getAttrOfType<StringAttr>(TShapeDialect::kRunAttrName))
      return model::parseRunShape(s.getValue());
  }
  return std::nullopt;
}

bool tshape::usesTf32Math(Operation *op) {
  for (Operation *cur = op; cur; cur = cur->getParentOp()) {
    if (auto m = cur->getAttrOfType<MathModeAttr>(TShapeDialect::kMathAttrName))
      return m.getValue() == MathMode::tf32;
    if (cur->hasAttr(TShapeDialect::kTf32AttrName))
      return true;
  }
  return false;
}

std::optional<model::DType> tshape::gemmDType(Operation *op, Type t) {
  if (t.isBF16())
    return model::DType::BF16;
  if (t.isF16())
    return model::DType::FP16;
  if (t.isF32())
    return usesTf32Math(op) ? model::DType::TF32 : model::DType::FP32;
  if (isa<Float8E4M3FNType, Float8E5M2Type>(t))
    return model::DType::FP8;
  return std::nullopt;
}
