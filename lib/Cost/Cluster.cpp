//===- Cluster.cpp - Built-in GPU clusters --------------------------------===//
//
// Link figures from vendor datasheets; docs/clusters.md cites the source of
// each. The node tier's model constants of dgx-a100, dgx-h100 and dgx-b200
// are fitted on NCCL timings of one node (docs/model-accuracy.md); hgx-h200
// and gb200-nvl72 take the fit of the GPU with the same NVLink generation;
// the network tier is not fitted (no multi-node timings).
//
//===----------------------------------------------------------------------===//

#include "tshape/Cost/Cluster.h"

#include <utility>

using namespace tshape;
using namespace tshape::cost;

namespace {
/// Tier constants by cluster-file key (clusterConstants()).
using Constants = std::vector<std::pair<std::string, double>>;

TierLink link(const char *fabric, double gbs, bool inNetwork,
              const Constants &values, const char *source) {
  TierLink l;
  l.fabric = fabric;
  l.bandwidthGBs = gbs;
  l.inNetworkReduction = inNetwork;
  for (const auto &[key, v] : values)
    for (const ClusterConstant &c : clusterConstants())
      if (key == c.key)
        l.*c.field = v;
  l.constantsSource = source;
  return l;
}

// The node-tier fits: tshape-calibrate on ../shared/data/measured/nccl-*.csv
// (aiconfigurator, nccl-tests 2.27.3 on one 8-GPU node), the command and
// the held-out errors in docs/model-accuracy.md.
Constants a100Fit() {
  return {{"latency_us", 7.9531},          {"step_latency_us", 0.859},
          {"efficiency", 0.7581},          {"half_efficiency_bytes", 5963850},
          {"efficiency_exponent", 0.5945}, {"rank_offset", 0.3145}};
}
Constants h100Fit() {
  return {{"latency_us", 4.6822},          {"step_latency_us", 0.7559},
          {"efficiency", 0.7769},          {"half_efficiency_bytes", 3199411},
          {"efficiency_exponent", 0.5964}, {"rank_offset", 0.3574},
          {"in_network_efficiency", 0.7466}};
}
Constants b200Fit() {
  return {{"latency_us", 6.7336},          {"step_latency_us", 1.2695},
          {"efficiency", 0.6978},          {"half_efficiency_bytes", 9098438},
          {"efficiency_exponent", 0.5755}, {"rank_offset", 0.2335},
          {"in_network_efficiency", 0.7328}};
}

const char *fitA100 = "fitted on A100 SXM NCCL timings of one node "
                      "(aiconfigurator)";
const char *fitH100 = "fitted on H100 SXM NCCL timings of one node "
                      "(aiconfigurator)";
const char *fitB200 = "fitted on B200 NCCL timings of one node "
                      "(aiconfigurator)";
const char *fromH100 = "derived: the DGX H100 fit (the same NVLink 4 and "
                       "NVSwitch gen3; no timings of this cluster)";
const char *fromB200 = "derived: the DGX B200 fit (the same NVLink 5; no "
                       "timings of this cluster)";

/// The network tier: datasheet bandwidth, assumed latency and efficiency
/// (not fitted: the shared timings cover one node).
TierLink network(const char *fabric, double gbs) {
  return link(fabric, gbs, /*inNetwork=*/false,
              {{"latency_us", 10},
               {"step_latency_us", 2},
               {"efficiency", 0.9},
               {"half_efficiency_bytes", 4194304},
               {"efficiency_exponent", 1},
               {"rank_offset", 0}},
              "not fitted: assumed latency and efficiency (no multi-node "
              "timings)");
}

Cluster make(const char *name, const char *desc, const char *gpu,
             int64_t gpusPerNode, TierLink node, TierLink net,
             double hostLinkGBs) {
  Cluster c;
  c.name = name;
  c.description = desc;
  c.gpu = gpu;
  c.gpusPerNode = gpusPerNode;
  c.hostLinkGBs = hostLinkGBs;
  c.node = std::move(node);
  c.network = std::move(net);
  return c;
}
} // namespace

const std::vector<ClusterConstant> &tshape::cost::clusterConstants() {
  static const std::vector<ClusterConstant> constants = {
      {"latency_us", 0.0, 50.0, &TierLink::latencyUs, false},
      {"step_latency_us", 0.0, 5.0, &TierLink::stepLatencyUs, false},
      {"efficiency", 0.2, 1.0, &TierLink::efficiency, false},
      {"half_efficiency_bytes", 1024.0, 1073741824.0,
       &TierLink::halfEfficiencyBytes, true},
      {"efficiency_exponent", 0.3, 3.0, &TierLink::efficiencyExponent, false},
      {"rank_offset", 0.0, 8.0, &TierLink::rankOffset, false},
      {"in_network_efficiency", 0.2, 1.0, &TierLink::inNetworkEfficiency,
       false},
  };
  return constants;
}

const std::vector<Cluster> &tshape::cost::builtinClusters() {
  static const std::vector<Cluster> clusters = [] {
  std::vector<Cluster> all = {
      make("dgx-a100", "NVIDIA DGX A100 (8x A100 SXM4 80GB)", "a100-80gb", 8,
           link("NVLink 3 / NVSwitch gen2", 300, false, a100Fit(), fitA100),
           network("8x ConnectX-6 HDR InfiniBand 200 Gb/s", 25),
           /*PCIe Gen4 x16*/ 32),
      make("dgx-h100", "NVIDIA DGX H100 (8x H100 SXM5 80GB)", "h100-sxm", 8,
           link("NVLink 4 / NVSwitch gen3 (NVLink SHARP)", 450, true,
                h100Fit(), fitH100),
           network("8x ConnectX-7 NDR InfiniBand 400 Gb/s", 50),
           /*PCIe Gen5 x16*/ 64),
      make("hgx-h200", "NVIDIA HGX H200 (8x H200 SXM 141GB)", "h200", 8,
           link("NVLink 4 / NVSwitch gen3 (NVLink SHARP)", 450, true,
                h100Fit(), fromH100),
           network("8x ConnectX-7 NDR InfiniBand 400 Gb/s", 50),
           /*PCIe Gen5 x16*/ 64),
      make("dgx-b200", "NVIDIA DGX B200 (8x B200)", "b200", 8,
           link("NVLink 5 / NVSwitch gen4 (NVLink SHARP)", 900, true,
                b200Fit(), fitB200),
           network("8x ConnectX-7 NDR InfiniBand 400 Gb/s", 50),
           /*PCIe Gen5 x16*/ 64),
      make("gb200-nvl72", "NVIDIA GB200 NVL72 (72x GB200 GPU, one NVLink "
                          "domain)",
           "gb200", 72,
           link("NVLink 5 / NVLink Switch (NVLink SHARP)", 900, true,
                b200Fit(), fromB200),
           network("ConnectX-7 NDR InfiniBand 400 Gb/s per GPU", 50),
           /*NVLink-C2C, 450 GB/s a direction for two GPUs*/ 225),
  };
  // A GB200 NVL72 rack's 72 GPUs sit in 18 compute trays, each a host of
  // 4 GPUs (two Grace-Blackwell superchips): torchrun and Slurm start 4
  // processes a host (Megatron-Bridge 067f987d,
  // scripts/performance/argument_parser.py:30-38, "gb200": 4).
  all.back().gpusPerHost = 4;
  return all;
  }();
  return clusters;
}

const Cluster *tshape::cost::findBuiltinCluster(const std::string &name) {
  for (const Cluster &c : builtinClusters())
    if (c.name == name)
      return &c;
  return nullptr;
}

std::string tshape::cost::builtinClusterNames() {
  std::string out;
  for (const Cluster &c : builtinClusters())
    out += (out.empty() ? "" : ", ") + c.name;
  return out;
}

const Cluster *
tshape::cost::defaultClusterForTarget(const std::string &targetName) {
  for (const Cluster &c : builtinClusters())
    if (c.gpu == targetName)
      return &c;
  return nullptr;
}

Cluster tshape::cost::uncalibrated(const Cluster &c, model::Tier t) {
  Cluster u = c;
  const TierLink guess;
  for (const ClusterConstant &k : clusterConstants())
    u.tier(t).*k.field = guess.*k.field;
  u.tier(t).constantsSource = guess.constantsSource;
  return u;
}
