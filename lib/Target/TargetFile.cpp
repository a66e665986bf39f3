//===- TargetFile.cpp - GPU target descriptions in JSON -------------------===//
//
// Reads a user's GPU description. A file may start from a built-in target
// ("base") and override any field; without a base every required field must
// be given. Schema and example: docs/targets.md.
//
//===----------------------------------------------------------------------===//

#include "tshape/Target/GpuTarget.h"
#include "tshape/Target/JsonFile.h"

#include "llvm/Support/JSON.h"

#include <cstdio>

using namespace tshape::target;
namespace json = llvm::json;

namespace {
bool fail(std::string &error, const std::string &message) {
  error = message;
  return false;
}

/// Reads a positive number under `key` into `out`; absent keeps `out`
/// unless `required`.
bool number(const json::Object &o, const char *key, double &out,
            bool required, std::string &error, double maxValue = 1e300) {
  const json::Value *v = o.get(key);
  if (!v)
    return !required ||
           fail(error, std::string("missing required key '") + key + "'");
  std::optional<double> d = v->getAsNumber();
  if (!d)
    return fail(error, std::string("key '") + key + "': expected a number");
  if (!(*d > 0) || *d > maxValue) {
    char buf[160];
    snprintf(buf, sizeof(buf), "key '%s': must be in (0, %g], got %g", key,
             maxValue, *d);
    return fail(error, buf);
  }
  out = *d;
  return true;
}

bool integer(const json::Object &o, const char *key, int64_t &out,
             bool required, std::string &error) {
  const json::Value *v = o.get(key);
  if (!v)
    return !required ||
           fail(error, std::string("missing required key '") + key + "'");
  std::optional<int64_t> i = v->getAsInteger();
  if (!i || *i <= 0)
    return fail(error, std::string("key '") + key +
                           "': expected a positive integer");
  out = *i;
  return true;
}

/// An optional boolean key: `out` keeps its value when the key is absent.
bool boolean(const json::Object &o, const char *key, bool &out,
             std::string &error) {
  const json::Value *v = o.get(key);
  if (!v)
    return true;
  std::optional<bool> b = v->getAsBoolean();
  if (!b)
    return fail(error, std::string("key '") + key + "': expected true or false");
  out = *b;
  return true;
}

bool isPow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

/// Reads a tile's m, n (required), efficiency and ctas_per_sm from `o`.
bool tile(const json::Object &o, TileConfig &c, std::string &error) {
  double eff = 1.0;
  if (!integer(o, "m", c.m, true, error) ||
      !integer(o, "n", c.n, true, error) ||
      !number(o, "efficiency", eff, false, error, 1.0) ||
      !integer(o, "ctas_per_sm", c.ctasPerSm, false, error))
    return false;
  c.efficiency = eff;
  return true;
}
} // namespace

std::optional<GpuTarget>
tshape::target::parseTargetJson(const std::string &text, std::string &error) {
  std::optional<json::Value> parsed = parseJsonObject(text, error);
  if (!parsed)
    return std::nullopt;
  const json::Object *o = parsed->getAsObject();
  GpuTarget t;
  bool fromBase = false;
  if (!readBase(*o, "target", findBuiltinTarget, builtinTargetNames(), t,
                fromBase, error))
    return std::nullopt;
  bool req = !fromBase;
  if (auto n = o->getString("name"))
    t.name = n->str();
  else if (req) {
    error = "missing required key 'name'";
    return std::nullopt;
  }
  if (auto d = o->getString("description"))
    t.description = d->str();
  if (auto a = o->getString("arch"))
    t.arch = a->str();
  double bw = t.memoryBandwidthGBs, l2 = t.l2MB, mem = t.memoryGiB;
  size_t constantsSet = 0;
  for (const ModelConstant &c : modelConstants()) {
    const json::Value *v = o->get(c.key);
    if (!v)
      continue;
    std::optional<double> d = v->getAsNumber();
    // A file may hold any value the model can use, wider than the range
    // calibration searches: efficiencies in (0, hi], the rest in [0, hi]
    // (0: none).
    bool efficiency = c.lo > 0 && c.hi <= 1;
    if (!d) {
      error = std::string("key '") + c.key + "': expected a number";
      return std::nullopt;
    }
    if (*d < 0 || (efficiency && *d == 0) || *d > c.hi) {
      char buf[200];
      snprintf(buf, sizeof(buf), "key '%s': must be in %s0, %g], got %g",
               c.key, efficiency ? "(" : "[", c.hi, *d);
      error = buf;
      return std::nullopt;
    }
    t.*c.field = *d;
    ++constantsSet;
  }
  if (constantsSet == modelConstants().size())
    t.constantsSource = "target file";
  else if (constantsSet)
    t.constantsSource = "target file (" + std::to_string(constantsSet) +
                        (constantsSet == 1 ? " constant" : " constants") +
                        "; the rest " + t.constantsSource + ")";
  if (!integer(*o, "sm_count", t.smCount, req, error) ||
      !number(*o, "memory_bandwidth_gbs", bw, req, error) ||
      !number(*o, "l2_mb", l2, false, error) ||
      !number(*o, "memory_gib", mem, false, error) ||
      !integer(*o, "min_align_bytes", t.minAlignBytes, false, error) ||
      !integer(*o, "best_align_bytes", t.bestAlignBytes, false, error) ||
      !integer(*o, "k_tile_bytes", t.kTileBytes, false, error) ||
      !integer(*o, "decode_query_tile", t.decodeQueryTile, false, error))
    return std::nullopt;
  if (!boolean(*o, "decode_split_gqa_only", t.decodeSplitGqaOnly, error) ||
      !boolean(*o, "fp8_split_k", t.fp8SplitK, error) ||
      !boolean(*o, "mxfp8", t.mxfp8, error) ||
      !boolean(*o, "fp8_tn_only", t.fp8TnOnly, error))
    return std::nullopt;
  if (const json::Value *v = o->get("attention_stack")) {
    std::optional<llvm::StringRef> s = v->getAsString();
    if (!s) {
      error = "key 'attention_stack': expected a string (e.g. \"vllm-0.24\")";
      return std::nullopt;
    }
    t.attentionStack = s->str();
  }
  t.memoryBandwidthGBs = bw;
  t.l2MB = l2;
  t.memoryGiB = mem;
  for (auto [key, v] : {std::pair<const char *, int64_t>{"min_align_bytes",
                                                         t.minAlignBytes},
                        {"best_align_bytes", t.bestAlignBytes},
                        {"k_tile_bytes", t.kTileBytes}})
    if (!isPow2(v)) {
      error = std::string("key '") + key + "': must be a power of two, got " +
              std::to_string(v);
      return std::nullopt;
    }
  if (t.bestAlignBytes < t.minAlignBytes) {
    error = "key 'best_align_bytes': must be at least min_align_bytes";
    return std::nullopt;
  }

  if (const json::Value *p = o->get("peak_tflops")) {
    const json::Object *po = p->getAsObject();
    if (!po) {
      error = "key 'peak_tflops': expected an object of dtype: TFLOP/s";
      return std::nullopt;
    }
    for (const auto &kv : *po) {
      auto dt = tshape::model::parseDType(kv.first.str());
      auto d = kv.second.getAsNumber();
      if (!dt) {
        error = "key 'peak_tflops': unknown dtype '" + kv.first.str() +
                "' (expected bf16, fp16, fp32, tf32, fp8)";
        return std::nullopt;
      }
      if (!d || *d < 0) {
        error = "key 'peak_tflops." + kv.first.str() +
                "': expected a number >= 0 (0: unsupported)";
        return std::nullopt;
      }
      t.peakTflops[(int)*dt] = *d;
    }
  } else if (req) {
    error = "missing required key 'peak_tflops'";
    return std::nullopt;
  }
  if (const json::Value *f = o->get("fused_head_dims")) {
    const json::Array *arr = f->getAsArray();
    if (!arr) {
      error = "key 'fused_head_dims': expected an array of integers";
      return std::nullopt;
    }
    t.fusedHeadDims.clear();
    for (const json::Value &e : *arr) {
      auto i = e.getAsInteger();
      if (!i || *i <= 0) {
        error = "key 'fused_head_dims': expected positive integers";
        return std::nullopt;
      }
      t.fusedHeadDims.push_back(*i);
    }
  }
  if (const json::Value *tl = o->get("tiles")) {
    const json::Array *arr = tl->getAsArray();
    if (!arr || arr->empty()) {
      error = "key 'tiles': expected a non-empty array of tile objects";
      return std::nullopt;
    }
    t.tiles.clear();
    for (const json::Value &e : *arr) {
      const json::Object *to = e.getAsObject();
      TileConfig c;
      if (!to) {
        error = "key 'tiles': each tile must be an object {m, n, "
                "efficiency, ctas_per_sm}";
        return std::nullopt;
      }
      if (!tile(*to, c, error)) {
        error = "key 'tiles': " + error;
        return std::nullopt;
      }
      t.tiles.push_back(c);
    }
  } else if (req) {
    error = "missing required key 'tiles'";
    return std::nullopt;
  }
  // The FP8 linear layer's dispatch (GpuTarget::fp8LinearKernels): an
  // empty array means the library's choice.
  if (const json::Value *fk = o->get("fp8_linear_kernels")) {
    const json::Array *arr = fk->getAsArray();
    if (!arr) {
      error = "key 'fp8_linear_kernels': expected an array of rule objects";
      return std::nullopt;
    }
    t.fp8LinearKernels.clear();
    for (const json::Value &e : *arr) {
      const json::Object *ko = e.getAsObject();
      Fp8LinearKernel k;
      if (!ko) {
        error = "key 'fp8_linear_kernels': each rule must be an object {m, "
                "n, efficiency, ctas_per_sm, min_m, max_m, max_n, min_k, "
                "stream_k, cluster_m, cluster_n}";
        return std::nullopt;
      }
      if (!tile(*ko, k.tile, error) ||
          !integer(*ko, "min_m", k.minM, false, error) ||
          !integer(*ko, "max_m", k.maxM, false, error) ||
          !integer(*ko, "max_n", k.maxN, false, error) ||
          !integer(*ko, "min_k", k.minK, false, error) ||
          !integer(*ko, "cluster_m", k.clusterM, false, error) ||
          !integer(*ko, "cluster_n", k.clusterN, false, error)) {
        error = "key 'fp8_linear_kernels': " + error;
        return std::nullopt;
      }
      if (const json::Value *sk = ko->get("stream_k")) {
        std::optional<bool> b = sk->getAsBoolean();
        if (!b) {
          error = "key 'fp8_linear_kernels': key 'stream_k': expected true "
                  "or false";
          return std::nullopt;
        }
        k.streamK = *b;
      }
      if (k.maxM && k.maxM < k.minM) {
        error = "key 'fp8_linear_kernels': max_m " + std::to_string(k.maxM) +
                " is below min_m " + std::to_string(k.minM);
        return std::nullopt;
      }
      t.fp8LinearKernels.push_back(k);
    }
  }
  return t;
}

std::optional<GpuTarget> tshape::target::loadTargetFile(const std::string &path,
                                                        std::string &error) {
  return loadJsonFile<GpuTarget>(path, "target", parseTargetJson, error);
}

std::optional<GpuTarget> tshape::target::resolveTarget(const std::string &name,
                                                       const std::string &file,
                                                       std::string &error) {
  if (!file.empty())
    return loadTargetFile(file, error);
  if (const GpuTarget *t = findBuiltinTarget(name))
    return *t;
  error = "unknown target '" + name + "' (built-in: " + builtinTargetNames() +
          ")";
  return std::nullopt;
}
