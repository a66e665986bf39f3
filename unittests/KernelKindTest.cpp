//===- KernelKindTest.cpp - Every kernel kind through one row -------------===//
//
// The top-k selection kind (a sparse attention's indexer) by hand, the
// fields every kind's estimate fills (predictKernel), which the serving
// report reads without naming a kind, and open role groups.
//
//===----------------------------------------------------------------------===//

#include "tshape/Advise/ShapeReport.h"
#include "tshape/Cost/Cluster.h"
#include "tshape/Cost/PredictKernel.h"
#include "tshape/Model/Kernel.h"
#include "tshape/Target/GpuTarget.h"

#include <gtest/gtest.h>

using namespace tshape;
using namespace tshape::model;

namespace {
Dim dim(int64_t v) {
  Dim d;
  d.value = v;
  d.expr = DimExpr::constant(v);
  return d;
}

TopKSpec topK(int64_t batch, int64_t rows, int64_t length, int64_t k,
              bool causal) {
  TopKSpec s;
  s.batch = dim(batch);
  s.rows = dim(rows);
  s.length = dim(length);
  s.k = dim(k);
  s.causal = causal;
  return s;
}

const target::GpuTarget &h100() {
  return *target::findBuiltinTarget("h100-sxm");
}
} // namespace

// DeepSeek-V3.2's indexer keeps k = 2048 keys a query.
// A prefill of 4096 tokens, 2 sequences, causal: query i sees i + 1 keys,
// 4096 x 4097 / 2 = 8,390,656 scores a sequence; the first 2048 queries
// keep all they see (2048 x 2049 / 2 = 2,098,176), the other 2048 keep
// 2048 each (4,194,304): 6,292,480 indices a sequence. Bytes: 4 x
// (2 x 8,390,656 + 2 x 6,292,480) = 117,465,088.
// A decode step (1 query over 8192 keys, 8 sequences): 8 x 8192 scores,
// 8 x 2048 indices, 4 x (65,536 + 16,384) = 327,680 bytes.
// Not causal, 3 queries over 1000 keys, k 2048: each keeps all 1000.
TEST(KernelKind, TopKByHand) {
  TopKSpec prefill = topK(2, 4096, 4096, 2048, true);
  EXPECT_DOUBLE_EQ(prefill.scores(), 2 * 8390656.0);
  EXPECT_DOUBLE_EQ(prefill.selected(), 2 * 6292480.0);
  EXPECT_DOUBLE_EQ(prefill.bytes(), 117465088.0);
  TopKSpec decode = topK(8, 1, 8192, 2048, true);
  EXPECT_DOUBLE_EQ(decode.scores(), 65536.0);
  EXPECT_DOUBLE_EQ(decode.selected(), 16384.0);
  EXPECT_DOUBLE_EQ(decode.bytes(), 327680.0);
  TopKSpec open = topK(1, 3, 1000, 2048, false);
  EXPECT_DOUBLE_EQ(open.selected(), 3000.0);

  // The kernel: named by its role, no FLOPs, no backward, its sizes as the
  // report's columns.
  Kernel k(decode);
  EXPECT_EQ(k.kind(), KernelKind::TopK);
  EXPECT_STREQ(kernelKindName(k.kind()), "top_k");
  EXPECT_EQ(k.name(), "indexer_topk");
  EXPECT_EQ(k.flops(), 0);
  EXPECT_FALSE(k.backward());
  EXPECT_TRUE(backwardKernels({k}).empty());
  EXPECT_EQ(k.columns(), (std::array<int64_t, 4>{8, 1, 8192, 2048}));
  EXPECT_EQ(k.dims().size(), 4u);

  // Its price: one launch plus the bytes at bandwidth x memory efficiency,
  // memory-bound, all of them activations.
  const target::GpuTarget &t = h100();
  cost::KernelEstimate e = cost::predictKernel(k, DType::BF16, t, nullptr);
  ASSERT_TRUE(e.supported) << e.unsupported;
  EXPECT_NEAR(e.predictedUs,
              t.launchOverheadUs + 327680.0 / (t.memoryBandwidthGBs * 1e3 *
                                               t.memoryEfficiency),
              1e-9);
  EXPECT_TRUE(e.memoryBound);
  EXPECT_DOUBLE_EQ(e.fixedUs, t.launchOverheadUs);
  EXPECT_DOUBLE_EQ(e.bytes, 327680.0);
  EXPECT_DOUBLE_EQ(e.cacheBytes + e.weightBytes, 0.0);
}

// The fields every kind fills. A weight GEMM of 4096 x 4096 in bf16 reads
// 4096 x 4096 x 2 = 33,554,432 weight bytes; the ridge is bf16's peak x
// math efficiency over bandwidth x memory efficiency. A collective is
// communication, its bytes its message. A decode attention reads its cache.
TEST(KernelKind, EstimatesStateTheirBound) {
  const target::GpuTarget &t = h100();
  GemmSpec g;
  g.role = Role::AttnOut;
  g.m = dim(8);
  g.n = dim(4096);
  g.k = dim(4096);
  g.batch = dim(1);
  cost::KernelEstimate e = cost::predictKernel(Kernel(g), DType::BF16, t,
                                               nullptr);
  EXPECT_DOUBLE_EQ(e.weightBytes, 33554432.0);
  EXPECT_TRUE(e.memoryBound); // 8 rows: a GEMV
  EXPECT_DOUBLE_EQ(e.fixedUs, t.launchOverheadUs);
  EXPECT_DOUBLE_EQ(e.ridge, t.peakTflops[int(DType::BF16)] *
                                t.mathEfficiency * 1e12 /
                                (t.memoryBandwidthGBs * 1e9 *
                                 t.memoryEfficiency));
  EXPECT_EQ(Kernel(g).columns(), (std::array<int64_t, 4>{1, 8, 4096, 4096}));

  CollectiveSpec c;
  c.op = CollectiveOp::AllReduce;
  c.bytes = dim(1 << 20);
  c.ranks = dim(8);
  e = cost::predictKernel(Kernel(c), DType::BF16, t,
                          cost::findBuiltinCluster("dgx-h100"));
  ASSERT_TRUE(e.supported) << e.unsupported;
  EXPECT_TRUE(e.communication);
  EXPECT_DOUBLE_EQ(e.bytes, double(1 << 20));
  EXPECT_EQ(Kernel(c).columns(), (std::array<int64_t, 4>{8, 0, 1 << 20, 0}));
  EXPECT_EQ(Kernel(c).ringElementsPerToken(), 0);

  // One query over 4096 cached keys of 8 kv heads of 128: the cache read
  // is 2 x 8 x 4096 x 128 x 2 bytes a sequence (16 MiB for 8 sequences).
  AttentionSpec a;
  a.batch = dim(8);
  a.heads = dim(32);
  a.kvHeads = dim(8);
  a.headDim = dim(128);
  a.valueHeadDim = dim(128);
  a.queryLen = dim(1);
  a.kvLen = dim(4096);
  a.window = dim(0);
  e = cost::predictKernel(Kernel(a), DType::BF16, t, nullptr);
  ASSERT_TRUE(e.supported) << e.unsupported;
  EXPECT_DOUBLE_EQ(e.cacheBytes, 8 * 2 * 8 * 4096 * 128 * 2.0);
  EXPECT_TRUE(e.memoryBound);
  EXPECT_DOUBLE_EQ(e.fixedUs, e.decode.fixedUs);
  // A context-parallel ring exchanges 8 x (128 + 128) elements a token.
  EXPECT_EQ(Kernel(a).ringElementsPerToken(), 2048);
}

// Role groups are open: a block registers its own group, and "where the
// time goes" lists it beside the built-in ones (then "other", where
// communication goes). Records of 60 us attention, 30 us MLP, 10 us of a
// registered group's role and 20 us of collectives (ungrouped): shares
// 0.5, 0.25, 0 (logits, always listed), 1/12 and 1/6; the four-way view
// books the registered group as other: 0.25.
TEST(KernelKind, RoleGroupsAreOpen) {
  const RoleGroup recurrent = registerRoleGroup("test_recurrent");
  EXPECT_EQ(registerRoleGroup("test_recurrent"), recurrent);
  EXPECT_STREQ(roleGroupName(recurrent), "test_recurrent");
  const Role scanOut = registerRole(
      {Role::Qkv, "test_group_scan_out", recurrent, true, "dgrad", "wgrad"});
  auto record = [](Role r, double us) {
    GemmSpec g;
    g.role = r;
    advise::KernelRecord rec = advise::KernelRecord::bare(g);
    rec.predictedUs = us;
    return rec;
  };
  std::vector<advise::KernelRecord> records = {
      record(Role::Qkv, 60), record(Role::MlpUp, 30), record(scanOut, 10)};
  advise::KernelRecord comm;
  comm.predictedUs = 20;
  records.push_back(comm);
  advise::ShapeAnalysis analysis(h100(), 0.1);
  const advise::Totals t = analysis.totals(records);
  ASSERT_EQ(t.groups.size(), 5u);
  const std::vector<std::pair<std::string, double>> want = {
      {"attention", 0.5},
      {"mlp", 0.25},
      {"logits", 0},
      {"test_recurrent", 10.0 / 120},
      {"other", 20.0 / 120}};
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(t.groups[i].group, want[i].first);
    EXPECT_DOUBLE_EQ(t.groups[i].share, want[i].second) << want[i].first;
  }
  EXPECT_DOUBLE_EQ(t.otherShare, 0.25);
}

// Kernels no op computes travel on lowered IR as their fields
// (tshape.kernels): a collective, a scan and a top-k come back from
// fields() as they were, sizes re-evaluated over their bindings; a GEMM,
// which its own op carries, is refused with a reason.
TEST(KernelKind, FieldsRoundTrip) {
  Bindings env;
  env.set(Param::Hidden, 64);
  env.set(Param::Tp, 2);
  auto dim = [&](const char *text) {
    std::string why;
    Dim d;
    d.expr = *DimExpr::parse(text, why);
    d.value = *d.expr.eval(env);
    return d;
  };
  CollectiveSpec c;
  c.role = Role::TpLeave;
  c.layer = 3;
  c.op = CollectiveOp::ReduceScatter;
  c.tier = Tier::Network;
  c.backward = true;
  c.bytes = dim("hidden*2");
  c.ranks = dim("tp");
  c.env = env;
  ScanSpec s;
  s.layer = 1;
  s.batch = dim("tp");
  s.heads = dim("2");
  s.length = dim("hidden*4");
  s.chunk = dim("64");
  s.keyDim = dim("16");
  s.valueDim = dim("hidden");
  s.backward = true;
  s.env = env;
  TopKSpec t;
  t.batch = dim("1");
  t.rows = dim("hidden");
  t.length = dim("hidden*8");
  t.k = dim("32");
  t.causal = false;
  t.env = env;
  for (const Kernel &k : {Kernel(c), Kernel(s), Kernel(t)}) {
    EXPECT_FALSE(k.hasOp());
    std::string error;
    std::optional<Kernel> back = Kernel::fromFields(k.fields(), error);
    ASSERT_TRUE(back) << error;
    EXPECT_EQ(back->kind(), k.kind());
    EXPECT_EQ(back->name(), k.name());
    EXPECT_EQ(back->layer(), k.layer());
    EXPECT_EQ(back->backward(), k.backward());
    EXPECT_EQ(back->causal(), k.causal());
    EXPECT_EQ(back->columns(), k.columns());
    const auto a = k.dims(), b = back->dims();
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i)
      EXPECT_EQ(a[i].second.expr.str(), b[i].second.expr.str());
  }
  EXPECT_EQ(Kernel(c).columns()[2], 128); // hidden*2
  EXPECT_EQ(Kernel(c).fields().words[0].second, "reduce_scatter");
  // A missing size and a GEMM are errors with a reason.
  KernelFields missing = Kernel(s).fields();
  missing.sizes.pop_back();
  KernelFields gemm;
  gemm.kind = KernelKind::Gemm;
  EXPECT_TRUE(Kernel(GemmSpec()).hasOp());
  for (auto [f, why] :
       {std::pair<KernelFields, std::string>{missing,
                                             "lacks the size 'value_dim'"},
        {gemm, "a gemm kernel is carried by its own op, not by "
               "tshape.kernels"}}) {
    std::string error;
    EXPECT_FALSE(Kernel::fromFields(f, error));
    EXPECT_EQ(error, why);
  }
}
