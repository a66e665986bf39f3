//===- Cluster.h - GPU clusters: nodes, links, tiers ------------*- C++ -*-===//
//
// What the collective model (Collective.h) needs to know about a cluster:
// the GPU target of its GPUs, how many GPUs share one NVLink domain (a
// node; 72 on a GB200 NVL72 rack), and per tier (Node: NVLink/NVSwitch
// inside the domain; Network: InfiniBand/RoCE across domains) the
// bandwidth per GPU in one direction, the latency, the efficiency curve
// and whether the tier reduces in the network (NVLink SHARP, InfiniBand
// SHARP). Built-in figures come from vendor datasheets (docs/clusters.md
// cites each); the node tier's constants of the three GPUs with NCCL
// timings are fitted (docs/model-accuracy.md). Users write JSON cluster
// files (schema in docs/clusters.md). Plain C++: no MLIR types.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_COST_CLUSTER_H
#define TSHAPE_COST_CLUSTER_H

#include "tshape/Model/Kernel.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tshape::cost {

/// One tier of links. A collective's time on it is
///   latencyUs + stepLatencyUs * steps + busBytes / (bandwidthGBs * eta)
/// with the efficiency
///   eta = efficiency * n / (n + rankOffset) * x^p / (1 + x^p),
///   x = busBytes / halfEfficiencyBytes, p = efficiencyExponent
/// (Collective.h, docs/clusters.md).
struct TierLink {
  std::string fabric;      ///< e.g. "NVLink 4 / NVSwitch gen3"
  double bandwidthGBs = 0; ///< per GPU, one direction (datasheet)
  /// Whether the fabric reduces in the network (NVLink SHARP on NVSwitch
  /// gen3 and later, InfiniBand SHARP): an all-reduce then moves each
  /// byte once (bus factor 1) instead of 2(n-1)/n.
  bool inNetworkReduction = false;
  // Model constants (clusterConstants() lists them). Defaults: the guesses
  // before calibration.
  double latencyUs = 5;           ///< fixed cost of one collective
  double stepLatencyUs = 1;       ///< per ring step (2(n-1) for all-reduce)
  double efficiency = 0.8;        ///< fraction of bandwidth at large sizes
  double halfEfficiencyBytes = 1 << 20; ///< bus bytes at half efficiency
  double efficiencyExponent = 1;  ///< steepness of the rise with size
  double rankOffset = 0;          ///< fewer ranks reach less: n / (n + r)
  /// Fraction of the efficiency an in-network all-reduce keeps (the
  /// switch's reduction rate bounds it).
  double inNetworkEfficiency = 1;
  /// Where the constants come from: a fit, a file, or the guesses.
  std::string constantsSource = "uncalibrated guesses";
};

struct Cluster {
  std::string name;        ///< canonical name, e.g. "dgx-h100"
  std::string description; ///< e.g. "NVIDIA DGX H100 (8x H100 SXM5)"
  std::string gpu;         ///< a GPU target name (target::findBuiltinTarget)
  int64_t gpusPerNode = 8; ///< GPUs in one NVLink domain
  /// GPUs one host (one operating system, one torchrun) drives: what a
  /// launch line's --nproc_per_node is. 0: the NVLink domain is one host
  /// (DGX). A GB200 NVL72 rack is one NVLink domain of 72 GPUs over 18
  /// compute trays of 4 GPUs each.
  int64_t gpusPerHost = 0;
  TierLink node, network;
  /// The link between a GPU and host memory, GB/s per GPU in one direction
  /// (datasheet): what activation CPU offloading moves over. PCIe Gen4 x16
  /// 32, Gen5 x16 64; GB200's NVLink-C2C 900 GB/s both ways per superchip,
  /// shared by its two GPUs: 225. 0: unknown (an offloaded plan is then
  /// an error).
  double hostLinkGBs = 0;

  /// GPUs per host: gpusPerHost, or the NVLink domain when it is 0.
  int64_t hostGpus() const { return gpusPerHost > 0 ? gpusPerHost : gpusPerNode; }

  const TierLink &tier(model::Tier t) const {
    return t == model::Tier::Node ? node : network;
  }
  TierLink &tier(model::Tier t) { return t == model::Tier::Node ? node : network; }
};

/// The built-in clusters, in documentation order: dgx-a100, dgx-h100,
/// hgx-h200, dgx-b200, gb200-nvl72.
const std::vector<Cluster> &builtinClusters();
/// A built-in cluster by name; nullptr when unknown.
const Cluster *findBuiltinCluster(const std::string &name);
/// "dgx-a100, dgx-h100, ..." for error messages.
std::string builtinClusterNames();
/// The first built-in cluster whose GPUs are the target `targetName`;
/// nullptr when none.
const Cluster *defaultClusterForTarget(const std::string &targetName);

/// One fitted constant of a TierLink: its cluster-file key, the range
/// calibration searches (and a file may set), and whether calibration
/// searches it on a log scale (a size).
struct ClusterConstant {
  const char *key;
  double lo, hi;
  double TierLink::*field;
  bool logScale;
};
/// Every fitted tier constant, in fitting order (docs/clusters.md).
const std::vector<ClusterConstant> &clusterConstants();

/// `c` with the constants of tier `t` put back to the guesses.
Cluster uncalibrated(const Cluster &c, model::Tier t);

/// Parses a cluster description (JSON, schema in docs/clusters.md). On
/// error returns nullopt and sets `error`, naming the key.
std::optional<Cluster> parseClusterJson(const std::string &text,
                                        std::string &error);
/// Reads and parses a cluster file; errors start with the path.
std::optional<Cluster> loadClusterFile(const std::string &path,
                                       std::string &error);
/// The cluster a tool's --cluster-file (when not empty) or --cluster names;
/// nullopt with `error` ("unknown cluster 'x' (built-in: ...)" or the
/// file's error) otherwise.
std::optional<Cluster> resolveCluster(const std::string &name,
                                      const std::string &file,
                                      std::string &error);
/// The cluster as a JSON cluster file.
std::string clusterJson(const Cluster &c);

} // namespace tshape::cost

#endif // TSHAPE_COST_CLUSTER_H
