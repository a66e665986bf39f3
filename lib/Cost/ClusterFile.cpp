//===- ClusterFile.cpp - GPU clusters in JSON -----------------------------===//
//
// Reads a user's cluster description, in the style of the target-file
// reader (lib/Target/TargetFile.cpp): a file may start from a built-in
// cluster ("base") and override any field; without a base the name, the
// GPU, the GPUs per node and each tier's bandwidth are required. Every
// error names its key ("key 'node.bandwidth_gbs': ..."). Schema and
// example: docs/clusters.md.
//
//===----------------------------------------------------------------------===//

#include "tshape/Cost/Cluster.h"
#include "tshape/Target/GpuTarget.h"
#include "tshape/Target/JsonFile.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdio>

using namespace tshape;
using namespace tshape::cost;
namespace json = llvm::json;

namespace {
/// Reads the fields of one JSON object; the first error wins and names the
/// key with its path (`prefix`).
struct Fields {
  const json::Object &o;
  std::string prefix; ///< "" or "node."
  std::string &error;

  bool fail(const std::string &key, const std::string &why) {
    error = "key '" + prefix + key + "': " + why;
    return false;
  }
  bool missing(const std::string &key) {
    error = "missing required key '" + prefix + key + "'";
    return false;
  }
  /// A number in [lo, hi] (`lo` excluded when `open`); absent keeps `out`
  /// unless `required`.
  bool number(const char *key, double &out, bool required, double lo,
              double hi, bool open) {
    const json::Value *v = o.get(key);
    if (!v)
      return !required || missing(key);
    std::optional<double> d = v->getAsNumber();
    if (!d)
      return fail(key, "expected a number");
    if (*d < lo || (open && *d == lo) || *d > hi) {
      char buf[120];
      snprintf(buf, sizeof(buf), "must be in %s%g, %g], got %g",
               open ? "(" : "[", lo, hi, *d);
      return fail(key, buf);
    }
    out = *d;
    return true;
  }
  bool string(const char *key, std::string &out, bool required) {
    const json::Value *v = o.get(key);
    if (!v)
      return !required || missing(key);
    std::optional<llvm::StringRef> s = v->getAsString();
    if (!s)
      return fail(key, "expected a string");
    out = s->str();
    return true;
  }
  bool boolean(const char *key, bool &out) {
    const json::Value *v = o.get(key);
    if (!v)
      return true;
    std::optional<bool> b = v->getAsBoolean();
    if (!b)
      return fail(key, "expected true or false");
    out = *b;
    return true;
  }
};

bool readTier(const json::Object &top, const char *name, TierLink &t,
              bool required, std::string &error) {
  const json::Value *v = top.get(name);
  if (!v) {
    if (required)
      error = std::string("missing required key '") + name + "'";
    return !required;
  }
  const json::Object *o = v->getAsObject();
  if (!o) {
    error = std::string("key '") + name + "': expected an object";
    return false;
  }
  Fields f{*o, std::string(name) + ".", error};
  if (!f.string("fabric", t.fabric, false) ||
      !f.number("bandwidth_gbs", t.bandwidthGBs, required, 0, 1e6, true) ||
      !f.boolean("in_network_reduction", t.inNetworkReduction))
    return false;
  size_t set = 0;
  for (const ClusterConstant &c : clusterConstants()) {
    bool efficiency = c.lo > 0 && c.hi <= 1;
    if (!f.number(c.key, t.*c.field, false, efficiency ? 0 : c.lo, c.hi,
                  efficiency))
      return false;
    set += o->get(c.key) != nullptr;
  }
  if (set == clusterConstants().size())
    t.constantsSource = "cluster file";
  else if (set)
    t.constantsSource = "cluster file (" + std::to_string(set) +
                        (set == 1 ? " constant" : " constants") +
                        "; the rest " + t.constantsSource + ")";
  for (const auto &kv : *o) {
    llvm::StringRef k = kv.first;
    bool known = k == "fabric" || k == "bandwidth_gbs" ||
                 k == "in_network_reduction";
    for (const ClusterConstant &c : clusterConstants())
      known = known || k == c.key;
    if (!known) {
      error = "key '" + std::string(name) + "." + k.str() +
              "': unknown key (docs/clusters.md lists them)";
      return false;
    }
  }
  return true;
}
} // namespace

std::optional<Cluster> tshape::cost::parseClusterJson(const std::string &text,
                                                      std::string &error) {
  std::optional<json::Value> parsed = target::parseJsonObject(text, error);
  if (!parsed)
    return std::nullopt;
  const json::Object *o = parsed->getAsObject();
  Cluster c;
  bool fromBase = false;
  if (!target::readBase(*o, "cluster", findBuiltinCluster,
                        builtinClusterNames(), c, fromBase, error))
    return std::nullopt;
  const bool req = !fromBase;
  Fields f{*o, "", error};
  double gpus = double(c.gpusPerNode);
  if (!f.string("name", c.name, req) ||
      !f.string("description", c.description, false) ||
      !f.string("gpu", c.gpu, req) ||
      !f.number("gpus_per_node", gpus, req, 1, 1 << 20, false))
    return std::nullopt;
  if (gpus != std::floor(gpus)) {
    f.fail("gpus_per_node", "expected a positive integer");
    return std::nullopt;
  }
  c.gpusPerNode = int64_t(gpus);
  double host = double(c.gpusPerHost);
  if (!f.number("gpus_per_host", host, false, 0, 1 << 20, false))
    return std::nullopt;
  if (host != std::floor(host) ||
      (host > 0 && c.gpusPerNode % int64_t(host) != 0)) {
    f.fail("gpus_per_host",
           "expected 0 (the NVLink domain is one host) or a positive integer "
           "that divides gpus_per_node " +
               std::to_string(c.gpusPerNode) + ", got " +
               llvm::formatv("{0}", host).str());
    return std::nullopt;
  }
  c.gpusPerHost = int64_t(host);
  if (!f.number("host_link_gbs", c.hostLinkGBs, false, 0, 1e5, false))
    return std::nullopt;
  if (!target::findBuiltinTarget(c.gpu)) {
    f.fail("gpu", "unknown target '" + c.gpu +
                      "' (built-in: " + target::builtinTargetNames() + ")");
    return std::nullopt;
  }
  if (!readTier(*o, "node", c.node, req, error) ||
      !readTier(*o, "network", c.network, req, error))
    return std::nullopt;
  return c;
}

std::optional<Cluster> tshape::cost::loadClusterFile(const std::string &path,
                                                     std::string &error) {
  return target::loadJsonFile<Cluster>(path, "cluster", parseClusterJson,
                                       error);
}

std::optional<Cluster> tshape::cost::resolveCluster(const std::string &name,
                                                    const std::string &file,
                                                    std::string &error) {
  if (!file.empty())
    return loadClusterFile(file, error);
  if (const Cluster *c = findBuiltinCluster(name))
    return *c;
  error = "unknown cluster '" + name + "' (built-in: " +
          builtinClusterNames() + ")";
  return std::nullopt;
}

std::string tshape::cost::clusterJson(const Cluster &c) {
  auto tier = [](const TierLink &t) {
    json::Object o{{"fabric", t.fabric},
                   {"bandwidth_gbs", t.bandwidthGBs},
                   {"in_network_reduction", t.inNetworkReduction}};
    for (const ClusterConstant &k : clusterConstants()) {
      double v = t.*k.field;
      // Sizes to whole bytes, the rest to four significant places.
      o[k.key] = k.logScale ? std::round(v)
                            : std::round(v * 10000) / 10000;
    }
    return o;
  };
  json::Object o{{"name", c.name},
                 {"description", c.description},
                 {"gpu", c.gpu},
                 {"gpus_per_node", c.gpusPerNode},
                 {"gpus_per_host", c.gpusPerHost},
                 {"host_link_gbs", c.hostLinkGBs},
                 {"node", tier(c.node)},
                 {"network", tier(c.network)}};
  std::string s;
  llvm::raw_string_ostream os(s);
  os << llvm::formatv("{0:2}", json::Value(std::move(o))) << "\n";
  return s;
}
