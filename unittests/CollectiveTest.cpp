//===- CollectiveTest.cpp - Unit tests of clusters and collectives --------===//
//
// Each case of the collective model (docs/clusters.md) against values
// derived by hand in the comments, on a made-up tier whose numbers keep the
// arithmetic exact: 100 GB/s (1e5 bytes per microsecond), efficiency 0.5,
// half efficiency at 1e6 bus bytes with exponent 1 (eta = 0.5 x / (1 + x),
// x = bus bytes / 1e6), latency 5 us plus 1 us per ring step. Then the
// built-in clusters and the cluster-file reader's errors.
//
//===----------------------------------------------------------------------===//

#include "tshape/Cost/Collective.h"
#include "tshape/Cost/PredictKernel.h"
#include "tshape/Target/GpuTarget.h"

#include <gtest/gtest.h>

using namespace tshape;
using namespace tshape::cost;
using model::CollectiveOp;

namespace {
TierLink simpleLink() {
  TierLink l;
  l.bandwidthGBs = 100;
  l.efficiency = 0.5;
  l.halfEfficiencyBytes = 1e6;
  l.efficiencyExponent = 1;
  l.rankOffset = 0;
  l.latencyUs = 5;
  l.stepLatencyUs = 1;
  l.inNetworkEfficiency = 1;
  return l;
}

/// Four GPUs per node on simpleLink; the network: 10 GB/s (1e4 bytes/us),
/// the same curve, 10 us plus 2 us per step.
Cluster simpleCluster() {
  Cluster c;
  c.name = "test";
  c.gpu = "h100-sxm";
  c.gpusPerNode = 4;
  c.node = simpleLink();
  c.network = simpleLink();
  c.network.bandwidthGBs = 10;
  c.network.latencyUs = 10;
  c.network.stepLatencyUs = 2;
  return c;
}
} // namespace

TEST(Collective, BusFactors) {
  // nccl-tests' busbw convention.
  EXPECT_DOUBLE_EQ(busFactor(CollectiveOp::AllReduce, 8), 1.75); // 2*7/8
  EXPECT_DOUBLE_EQ(busFactor(CollectiveOp::ReduceScatter, 8), 0.875);
  EXPECT_DOUBLE_EQ(busFactor(CollectiveOp::AllGather, 8), 0.875);
  EXPECT_DOUBLE_EQ(busFactor(CollectiveOp::AllToAll, 4), 0.75);
  EXPECT_DOUBLE_EQ(busFactor(CollectiveOp::SendRecv, 2), 1.0);
  EXPECT_DOUBLE_EQ(busFactor(CollectiveOp::AllReduce, 8, true), 1.0);
  EXPECT_DOUBLE_EQ(busFactor(CollectiveOp::AllReduce, 1), 0.0);
  EXPECT_EQ(latencySteps(CollectiveOp::AllReduce, 8), 14);
  EXPECT_EQ(latencySteps(CollectiveOp::AllGather, 8), 7);
  EXPECT_EQ(latencySteps(CollectiveOp::AllToAll, 8), 1);
}

TEST(Collective, FlatAlphaBeta) {
  TierLink l = simpleLink();
  // All-reduce of 8e6 bytes on 4 ranks: bus bytes 8e6 * 2 * 3/4 = 12e6;
  // x = 12, eta = 0.5 * 12/13 = 6/13; bandwidth 12e6 / (1e5 * 6/13) =
  // 260 us; latency 5 + 1 * 2 * 3 = 11 us; 271 us.
  CollectiveEstimate e = flatCollective(l, CollectiveOp::AllReduce, 8e6, 4);
  EXPECT_NEAR(e.bandwidthUs, 260, 1e-9);
  EXPECT_NEAR(e.latencyUs, 11, 1e-12);
  EXPECT_NEAR(e.predictedUs, 271, 1e-9);
  // All-gather of the same 8e6 (the gathered buffer) on 4 ranks: bus
  // 6e6, x = 6, eta = 3/7, 6e6 / (1e5 * 3/7) = 140 us; latency 5 + 3.
  EXPECT_NEAR(flatCollective(l, CollectiveOp::AllGather, 8e6, 4).predictedUs,
              148, 1e-9);
  // Send/recv of 1e6 bytes: bus 1e6, x = 1, eta = 0.25, 40 us; latency
  // 5 + 1.
  EXPECT_NEAR(flatCollective(l, CollectiveOp::SendRecv, 1e6, 2).predictedUs,
              46, 1e-9);
  // Fewer ranks reach less: rank offset 4 on 4 ranks halves eta (4/8), so
  // the all-reduce's bandwidth term doubles: 11 + 520.
  l.rankOffset = 4;
  EXPECT_NEAR(flatCollective(l, CollectiveOp::AllReduce, 8e6, 4).predictedUs,
              531, 1e-9);
  // One rank moves nothing.
  EXPECT_EQ(flatCollective(l, CollectiveOp::AllReduce, 8e6, 1).predictedUs, 0);
}

TEST(Collective, InNetworkReduction) {
  TierLink l = simpleLink();
  l.inNetworkReduction = true;
  // The switch reduces: bus factor 1, bus 8e6, x = 8, eta = 4/9,
  // 8e6 / (1e5 * 4/9) = 180 us < the ring's 260; latency stays the ring's
  // 11 us.
  CollectiveEstimate e = flatCollective(l, CollectiveOp::AllReduce, 8e6, 4);
  EXPECT_TRUE(e.inNetwork);
  EXPECT_NEAR(e.predictedUs, 191, 1e-9);
  // Two ranks: no in-network reduction; the ring moves 8e6 * 2 * 1/2 =
  // 8e6, 180 us, latency 5 + 2.
  CollectiveEstimate two = flatCollective(l, CollectiveOp::AllReduce, 8e6, 2);
  EXPECT_FALSE(two.inNetwork);
  EXPECT_NEAR(two.predictedUs, 187, 1e-9);
  // A switch at half the efficiency (360 us) loses to the ring (260 us).
  l.inNetworkEfficiency = 0.5;
  CollectiveEstimate slow = flatCollective(l, CollectiveOp::AllReduce, 8e6, 4);
  EXPECT_FALSE(slow.inNetwork);
  EXPECT_NEAR(slow.predictedUs, 271, 1e-9);
  // Other collectives do not reduce in the network.
  EXPECT_NEAR(flatCollective(l, CollectiveOp::AllGather, 8e6, 4).predictedUs,
              148, 1e-9);
}

TEST(Collective, Hierarchical) {
  Cluster c = simpleCluster();
  // All-reduce of 8e6 bytes on 8 ranks of the network tier: 2 nodes of 4.
  //  reduce-scatter in the node: 148 us (FlatAlphaBeta's all-gather);
  //  all-reduce of 8e6/4 = 2e6 on 2 nodes: bus 2e6 * 2 * 1/2 = 2e6, x = 2,
  //    eta = 1/3, 2e6 / (1e4 / 3) = 600 us; latency 10 + 2 * 2 = 14;
  //  all-gather in the node: 148 us.
  CollectiveEstimate e = estimateCollective(
      {CollectiveOp::AllReduce, 8e6, 8, model::Tier::Network}, c);
  ASSERT_TRUE(e.supported);
  EXPECT_EQ(e.phases, 3);
  EXPECT_NEAR(e.predictedUs, 148 + 614 + 148, 1e-9);
  // Reduce-scatter: in the node (148), then 2e6 across 2 nodes: bus 1e6,
  // x = 1, eta = 1/4, 400 us, latency 10 + 2.
  e = estimateCollective(
      {CollectiveOp::ReduceScatter, 8e6, 8, model::Tier::Network}, c);
  EXPECT_EQ(e.phases, 2);
  EXPECT_NEAR(e.predictedUs, 148 + 412, 1e-9);
  // Not whole nodes: flat over the network, one rank per node. All-gather
  // of 3e6 on 3 ranks: bus 2e6, x = 2, eta = 1/3, 600 us; latency
  // 10 + 2 * 2.
  e = estimateCollective({CollectiveOp::AllGather, 3e6, 3,
                          model::Tier::Network},
                         c);
  EXPECT_EQ(e.phases, 1);
  EXPECT_NEAR(e.predictedUs, 614, 1e-9);
  // A strided group, 2 of its ranks in each node (ranksPerNode = 2):
  // all-reduce of 8e6 on 4 ranks runs hierarchically over 2 nodes of 2.
  //  reduce-scatter in the node on 2 ranks: bus 8e6 / 2 = 4e6, x = 4,
  //    eta = 0.4, 4e6 / (1e5 x 0.4) = 100 us, latency 5 + 1 = 106;
  //  all-reduce of 4e6 on 2 nodes: bus 4e6, eta = 0.4, 1000 us, latency
  //    10 + 2 x 2 = 1014;
  //  all-gather in the node: 106.
  e = estimateCollective(
      {CollectiveOp::AllReduce, 8e6, 4, model::Tier::Network, 2}, c);
  EXPECT_EQ(e.phases, 3);
  EXPECT_NEAR(e.predictedUs, 106 + 1014 + 106, 1e-9);
  // One rank per node (a group strided by a whole node): flat, bus
  // 8e6 x 2 x 3/4 = 12e6, x = 12, eta = 6/13, 2600 us; latency 10 + 2 x 6.
  e = estimateCollective(
      {CollectiveOp::AllReduce, 8e6, 4, model::Tier::Network, 1}, c);
  EXPECT_EQ(e.phases, 1);
  EXPECT_NEAR(e.predictedUs, 2622, 1e-9);
  // More ranks than a node holds on the node tier is an error.
  e = estimateCollective({CollectiveOp::AllReduce, 8e6, 8, model::Tier::Node},
                         c);
  EXPECT_FALSE(e.supported);
  EXPECT_EQ(e.unsupported,
            "8 ranks on the node tier of test, which has 4 GPUs per node");
}

TEST(Collective, PredictKernelPricesCollectives) {
  const Cluster *dgx = findBuiltinCluster("dgx-h100");
  ASSERT_NE(dgx, nullptr);
  const target::GpuTarget *h100 = target::findBuiltinTarget("h100-sxm");
  model::CollectiveSpec spec;
  spec.op = CollectiveOp::AllReduce;
  spec.bytes = {int64_t(1) << 26, model::DimExpr::constant(int64_t(1) << 26)};
  spec.ranks = {8, model::DimExpr::constant(8)};
  KernelEstimate k = predictKernel(spec, model::DType::BF16, *h100, dgx);
  ASSERT_TRUE(k.supported);
  EXPECT_EQ(k.kind, model::KernelKind::Collective);
  EXPECT_DOUBLE_EQ(
      k.predictedUs,
      estimateCollective({CollectiveOp::AllReduce, double(1 << 26), 8,
                          model::Tier::Node},
                         *dgx)
          .predictedUs);
  // 64 MiB (32 Mi half elements) on 8 H100s: NVLink SHARP; nccl-tests
  // measured 322 us (../shared/data/measured/nccl-h100-sxm.csv).
  EXPECT_TRUE(k.collective.inNetwork);
  EXPECT_GT(k.predictedUs, 290);
  EXPECT_LT(k.predictedUs, 355);
}

TEST(Cluster, Builtins) {
  EXPECT_EQ(builtinClusterNames(),
            "dgx-a100, dgx-h100, hgx-h200, dgx-b200, gb200-nvl72");
  for (const Cluster &c : builtinClusters())
    EXPECT_NE(target::findBuiltinTarget(c.gpu), nullptr) << c.name;
  // Datasheet NVLink bandwidth per GPU and direction (half the
  // bidirectional figure): 600, 900, 900, 1800, 1800 GB/s.
  EXPECT_EQ(findBuiltinCluster("dgx-a100")->node.bandwidthGBs, 300);
  EXPECT_EQ(findBuiltinCluster("dgx-h100")->node.bandwidthGBs, 450);
  EXPECT_EQ(findBuiltinCluster("hgx-h200")->node.bandwidthGBs, 450);
  EXPECT_EQ(findBuiltinCluster("dgx-b200")->node.bandwidthGBs, 900);
  const Cluster *nvl = findBuiltinCluster("gb200-nvl72");
  EXPECT_EQ(nvl->gpusPerNode, 72);
  // 18 compute trays of 4 GPUs: the host is not the NVLink domain there;
  // on a DGX it is.
  EXPECT_EQ(nvl->hostGpus(), 4);
  EXPECT_EQ(findBuiltinCluster("dgx-h100")->hostGpus(), 8);
  EXPECT_EQ(nvl->node.bandwidthGBs, 900);
  EXPECT_EQ(nvl->gpu, "gb200");
  // 400 Gb/s InfiniBand per GPU = 50 GB/s.
  EXPECT_EQ(findBuiltinCluster("dgx-h100")->network.bandwidthGBs, 50);
  EXPECT_FALSE(findBuiltinCluster("dgx-a100")->node.inNetworkReduction);
  EXPECT_TRUE(findBuiltinCluster("dgx-h100")->node.inNetworkReduction);
  EXPECT_EQ(defaultClusterForTarget("b200")->name, "dgx-b200");
  EXPECT_EQ(defaultClusterForTarget("v100"), nullptr);
  EXPECT_EQ(findBuiltinCluster("dgx-z"), nullptr);
}

TEST(Cluster, FileRoundTrip) {
  std::string error;
  const Cluster &b = *findBuiltinCluster("dgx-b200");
  std::optional<Cluster> c =
      parseClusterJson(clusterJson(*findBuiltinCluster("gb200-nvl72")), error);
  ASSERT_TRUE(c) << error;
  EXPECT_EQ(c->gpusPerHost, 4);
  c = parseClusterJson(clusterJson(b), error);
  ASSERT_TRUE(c) << error;
  EXPECT_EQ(c->name, "dgx-b200");
  EXPECT_EQ(c->gpusPerNode, 8);
  for (const ClusterConstant &k : clusterConstants())
    EXPECT_NEAR(c->node.*k.field, b.node.*k.field,
                1e-4 * std::max(1.0, b.node.*k.field))
        << k.key;
  // A base and one override.
  c = parseClusterJson(
      R"({"base": "dgx-h100", "name": "mine", "network": {"bandwidth_gbs": 100, "in_network_reduction": true}})",
      error);
  ASSERT_TRUE(c) << error;
  EXPECT_EQ(c->network.bandwidthGBs, 100);
  EXPECT_TRUE(c->network.inNetworkReduction);
  EXPECT_EQ(c->node.bandwidthGBs, 450);
}

TEST(Cluster, FileErrorsNameTheKey) {
  auto err = [](const std::string &text) {
    std::string error;
    EXPECT_FALSE(parseClusterJson(text, error)) << text;
    return error;
  };
  EXPECT_EQ(err("{").substr(0, 15), "malformed JSON:");
  EXPECT_EQ(err("[1]"), "expected a JSON object at the top level");
  EXPECT_EQ(err(R"({"gpu": "h100-sxm", "gpus_per_node": 8})"),
            "missing required key 'name'");
  EXPECT_EQ(err(R"({"name": "x", "gpu": "h100-sxm", "gpus_per_node": 8,
                    "node": {}, "network": {"bandwidth_gbs": 50}})"),
            "missing required key 'node.bandwidth_gbs'");
  EXPECT_EQ(err(R"({"name": "x", "gpu": "h100-sxm", "gpus_per_node": 8,
                    "node": {"bandwidth_gbs": 450}})"),
            "missing required key 'network'");
  EXPECT_EQ(err(R"({"base": "dgx-z"})"),
            "key 'base': unknown built-in cluster 'dgx-z' (known: dgx-a100, "
            "dgx-h100, hgx-h200, dgx-b200, gb200-nvl72)");
  EXPECT_EQ(err(R"({"base": "dgx-h100", "gpu": "tpu"})").substr(0, 29),
            "key 'gpu': unknown target 'tp");
  EXPECT_EQ(err(R"({"base": "dgx-h100", "gpus_per_node": 2.5})"),
            "key 'gpus_per_node': expected a positive integer");
  EXPECT_EQ(err(R"({"base": "dgx-h100", "gpus_per_host": 1.5})").substr(0, 31),
            "key 'gpus_per_host': expected 0");
  EXPECT_EQ(err(R"({"base": "dgx-h100", "node": {"efficiency": 1.5}})"),
            "key 'node.efficiency': must be in (0, 1], got 1.5");
  EXPECT_EQ(err(R"({"base": "dgx-h100", "node": {"latency_us": "x"}})"),
            "key 'node.latency_us': expected a number");
  EXPECT_EQ(err(R"({"base": "dgx-h100", "node": {"in_network_reduction": 1}})"),
            "key 'node.in_network_reduction': expected true or false");
  EXPECT_EQ(err(R"({"base": "dgx-h100", "node": {"bandwith_gbs": 1}})"),
            "key 'node.bandwith_gbs': unknown key (docs/clusters.md lists "
            "them)");
  EXPECT_EQ(err(R"({"base": "dgx-h100", "node": 3})"),
            "key 'node': expected an object");

  std::string error;
  EXPECT_FALSE(resolveCluster("dgx-z", "", error));
  EXPECT_EQ(error, "unknown cluster 'dgx-z' (built-in: dgx-a100, dgx-h100, "
                   "hgx-h200, dgx-b200, gb200-nvl72)");
  EXPECT_FALSE(loadClusterFile("/nonexistent/c.json", error));
  EXPECT_EQ(error.substr(0, 46),
            "cannot read cluster file '/nonexistent/c.json'");
}
