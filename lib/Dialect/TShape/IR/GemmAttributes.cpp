//===- GemmAttributes.cpp - The records tshape passes put on GEMMs --------===//

#include "tshape/Dialect/TShape/IR/GemmAttributes.h"
#include "tshape/Dialect/TShape/IR/TShapeDialect.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace tshape;

namespace {
enum class Kind { F64, I64, Str, Bool, I64Pair };

/// One field of a record: its key, kind, whether it must be present, and
/// where it lives in the struct (one of the pointers is set).
template <typename Record> struct Field {
  const char *key;
  Kind kind;
  bool required;
  double Record::*f64 = nullptr;
  int64_t Record::*i64 = nullptr;
  std::string Record::*str = nullptr;
  bool Record::*flag = nullptr;
  std::optional<double> Record::*opt = nullptr;
  int64_t Record::*second = nullptr; ///< I64Pair: the second value
};

template <typename R> Field<R> f64(const char *k, double R::*m) {
  Field<R> f{k, Kind::F64, true};
  f.f64 = m;
  return f;
}
template <typename R> Field<R> opt(const char *k, std::optional<double> R::*m) {
  Field<R> f{k, Kind::F64, false};
  f.opt = m;
  return f;
}
template <typename R> Field<R> i64(const char *k, int64_t R::*m) {
  Field<R> f{k, Kind::I64, true};
  f.i64 = m;
  return f;
}
template <typename R> Field<R> str(const char *k, std::string R::*m) {
  Field<R> f{k, Kind::Str, true};
  f.str = m;
  return f;
}
template <typename R> Field<R> flag(const char *k, bool R::*m) {
  Field<R> f{k, Kind::Bool, true};
  f.flag = m;
  return f;
}
template <typename R>
Field<R> pair(const char *k, int64_t R::*a, int64_t R::*b) {
  Field<R> f{k, Kind::I64Pair, true};
  f.i64 = a;
  f.second = b;
  return f;
}

using M = GemmMeasurement;
const Field<M> kMeasured[] = {
    str<M>("backend", &M::backend),
    f64<M>("median_us", &M::medianUs),
    f64<M>("min_us", &M::minUs),
    f64<M>("max_us", &M::maxUs),
    f64<M>("tflops", &M::tflops),
    i64<M>("iters", &M::iters),
    i64<M>("algo_id", &M::algoId),
    i64<M>("tile_id", &M::tileId),
    i64<M>("tile_m", &M::tileM),
    i64<M>("tile_n", &M::tileN),
    f64<M>("waves_count", &M::wavesCount),
    opt<M>("prediction_error", &M::predictionError),
    opt<M>("max_rel_error", &M::maxRelError),
};

using P = GemmPrediction;
const Field<P> kPredicted[] = {
    str<P>("bound", &P::bound),
    f64<P>("predicted_us", &P::predictedUs),
    f64<P>("loss", &P::loss),
    flag<P>("flagged", &P::flagged),
    pair<P>("tile", &P::tileM, &P::tileN),
    i64<P>("split_k", &P::splitK),
    i64<P>("waves", &P::waves),
    f64<P>("tile_efficiency", &P::tileEfficiency),
    f64<P>("k_efficiency", &P::kEfficiency),
    f64<P>("wave_efficiency", &P::waveEfficiency),
    f64<P>("align_factor", &P::alignFactor),
};

template <typename R, size_t N>
DictionaryAttr write(MLIRContext *ctx, const Field<R> (&fields)[N],
                     const R &r) {
  Builder b(ctx);
  NamedAttrList d;
  for (const Field<R> &f : fields) {
    switch (f.kind) {
    case Kind::F64:
      if (f.opt) {
        if (r.*f.opt)
          d.append(f.key, b.getF64FloatAttr(*(r.*f.opt)));
      } else {
        d.append(f.key, b.getF64FloatAttr(r.*f.f64));
      }
      break;
    case Kind::I64:
      d.append(f.key, b.getI64IntegerAttr(r.*f.i64));
      break;
    case Kind::Str:
      d.append(f.key, b.getStringAttr(r.*f.str));
      break;
    case Kind::Bool:
      d.append(f.key, b.getBoolAttr(r.*f.flag));
      break;
    case Kind::I64Pair:
      d.append(f.key, b.getDenseI64ArrayAttr({r.*f.i64, r.*f.second}));
      break;
    }
  }
  return d.getDictionary(ctx);
}

/// Reads (or, with `out` null, only checks) a record.
template <typename R, size_t N>
bool read(DictionaryAttr d, const Field<R> (&fields)[N], R *out,
          std::string &error) {
  for (NamedAttribute a : d) {
    bool known = false;
    for (const Field<R> &f : fields)
      known |= a.getName().getValue() == f.key;
    if (!known) {
      error = "has an unknown entry '" + a.getName().getValue().str() + "'";
      return false;
    }
  }
  for (const Field<R> &f : fields) {
    Attribute v = d.get(f.key);
    if (!v) {
      if (f.required) {
        error = "lacks the entry '" + std::string(f.key) + "'";
        return false;
      }
      continue;
    }
    auto bad = [&](const char *what) {
      error = "entry '" + std::string(f.key) + "' must be " + what;
      return false;
    };
    switch (f.kind) {
    case Kind::F64: {
      auto x = dyn_cast<FloatAttr>(v);
      if (!x)
        return bad("a float");
      if (out && f.opt)
        out->*f.opt = x.getValueAsDouble();
      else if (out)
        out->*f.f64 = x.getValueAsDouble();
      break;
    }
    case Kind::I64: {
      auto x = dyn_cast<IntegerAttr>(v);
      if (!x)
        return bad("an integer");
      if (out)
        out->*f.i64 = x.getInt();
      break;
    }
    case Kind::Str: {
      auto x = dyn_cast<StringAttr>(v);
      if (!x)
        return bad("a string");
      if (out)
        out->*f.str = x.str();
      break;
    }
    case Kind::Bool: {
      auto x = dyn_cast<BoolAttr>(v);
      if (!x)
        return bad("a boolean");
      if (out)
        out->*f.flag = x.getValue();
      break;
    }
    case Kind::I64Pair: {
      auto x = dyn_cast<DenseI64ArrayAttr>(v);
      if (!x || x.size() != 2)
        return bad("an array of two i64");
      if (out) {
        out->*f.i64 = x[0];
        out->*f.second = x[1];
      }
      break;
    }
    }
  }
  return true;
}
} // namespace

void tshape::setGemmMeasurement(Operation *op, const GemmMeasurement &m) {
  op->setAttr(TShapeDialect::kMeasuredAttrName,
              write(op->getContext(), kMeasured, m));
}

std::optional<GemmMeasurement> tshape::getGemmMeasurement(Operation *op) {
  auto d = op->getAttrOfType<DictionaryAttr>(TShapeDialect::kMeasuredAttrName);
  GemmMeasurement m;
  std::string error;
  if (!d || !read(d, kMeasured, &m, error))
    return std::nullopt;
  return m;
}

void tshape::setGemmPrediction(Operation *op, const GemmPrediction &p) {
  op->setAttr(TShapeDialect::kAnalysisAttrName,
              write(op->getContext(), kPredicted, p));
}

std::optional<GemmPrediction> tshape::getGemmPrediction(Operation *op) {
  auto d = op->getAttrOfType<DictionaryAttr>(TShapeDialect::kAnalysisAttrName);
  GemmPrediction p;
  std::string error;
  if (!d || !read(d, kPredicted, &p, error))
    return std::nullopt;
  return p;
}

bool tshape::verifyGemmRecord(StringRef name, DictionaryAttr dict,
                              std::string &error) {
  if (name == TShapeDialect::kMeasuredAttrName)
    return read<GemmMeasurement>(dict, kMeasured, nullptr, error);
  if (name == TShapeDialect::kAnalysisAttrName)
    return read<GemmPrediction>(dict, kPredicted, nullptr, error);
  return true;
}
